/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A task's parameters in aclmdlRIDebugPrint's text (name=value) and
 * aclmdlRIDebugJsonPrint's JSON ("name": value): each kind's print hook
 * (task.h) calls these, one parameter each, the same for both forms.
 */
#ifndef MEMREG_ACL_TASK_PRINT_H
#define MEMREG_ACL_TASK_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct acl_task;

struct acl_task_printer {
	FILE *f;
	bool json;
	/* Also what only helps debug memreg itself. */
	bool verbose;
};

void memreg__acl_print_ptr(const struct acl_task_printer *p, const char *name,
			   const void *v);
/* A code address (a function's), in hex. */
void memreg__acl_print_addr(const struct acl_task_printer *p, const char *name,
			    uintptr_t v);
void memreg__acl_print_u64(const struct acl_task_printer *p, const char *name,
			   uint64_t v);
void memreg__acl_print_i64(const struct acl_task_printer *p, const char *name,
			   int64_t v);
void memreg__acl_print_bool(const struct acl_task_printer *p, const char *name,
			    bool v);

/* Every parameter of @t: its kind's, then (verbose) what all tasks have. */
void memreg__acl_task_print(const struct acl_task_printer *p,
			    const struct acl_task *t);

#endif /* MEMREG_ACL_TASK_PRINT_H */
