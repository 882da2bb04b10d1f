// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The parameters of a task in the debug prints of models (model.c):
 * each one after a separator, quoted as JSON wants or bare as the text
 * form is read.
 */
#include <inttypes.h>

#include "task.h"
#include "task_print.h"

/* The separator, then the name and what goes between it and the value. */
static void print_name(const struct acl_task_printer *p, const char *name)
{
	if (p->json)
		fprintf(p->f, ", \"%s\": ", name);
	else
		fprintf(p->f, " %s=", name);
}

void memreg__acl_print_ptr(const struct acl_task_printer *p, const char *name,
			   const void *v)
{
	const char *q = p->json ? "\"" : "";

	print_name(p, name);
	fprintf(p->f, "%s%p%s", q, v, q);
}

void memreg__acl_print_addr(const struct acl_task_printer *p, const char *name,
			    uintptr_t v)
{
	const char *q = p->json ? "\"" : "";

	print_name(p, name);
	fprintf(p->f, "%s%#" PRIxPTR "%s", q, v, q);
}

void memreg__acl_print_u64(const struct acl_task_printer *p, const char *name,
			   uint64_t v)
{
	print_name(p, name);
	fprintf(p->f, "%" PRIu64, v);
}

void memreg__acl_print_i64(const struct acl_task_printer *p, const char *name,
			   int64_t v)
{
	print_name(p, name);
	fprintf(p->f, "%" PRId64, v);
}

void memreg__acl_print_bool(const struct acl_task_printer *p, const char *name,
			    bool v)
{
	print_name(p, name);
	fputs(v ? "true" : "false", p->f);
}

void memreg__acl_task_print(const struct acl_task_printer *p,
			    const struct acl_task *t)
{
	if (t->ops->print)
		t->ops->print(p, t);
	if (p->verbose)
		memreg__acl_print_u64(p, "queued_by_tid", t->tid);
}
