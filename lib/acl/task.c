// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What every task goes through, whatever its kind: run or dropped by a
 * worker, released unrun, cloned for a model's run, numbered as it is
 * queued.  Each step calls the hook of the task's kind (task.h), so that
 * the worker (stream.c) and the models (model.c, build.c) hold no list
 * of the kinds there are.
 */
#include <stdlib.h>

#include "task.h"

aclError memreg__acl_task_run(struct acl_stream *s, struct acl_task *t,
			      bool drop)
{
	const struct acl_task_ops *ops = t->ops;

	/* Kept in built models only: their run steers by them instead. */
	if (!ops->run)
		return ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT;
	if (!drop)
		return ops->run(s, t);
	if (ops->drop)
		ops->drop(s, t);
	return ACL_SUCCESS;
}

void memreg__acl_task_release(struct acl_task *t)
{
	if (t->ops->release)
		t->ops->release(t);
	free(t);
}

struct acl_task *memreg__acl_task_clone(const struct acl_task *t,
					struct acl_stream *s)
{
	struct acl_task *c;

	if (!t->ops->clone)
		return NULL;
	c = t->ops->clone(t, s);
	if (c)
		c->next = NULL;
	return c;
}

void memreg__acl_task_queued(struct acl_task *t)
{
	if (t->ops->queued)
		t->ops->queued(t);
}

void memreg__acl_task_captured(struct acl_task *t, int delta)
{
	if (t->ops->captured)
		t->ops->captured(t, delta);
}
