/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Models built from persistent streams (build.c), for the rest of
 * lib/acl: a persistent stream hands its tasks to the model it is bound
 * to.
 */
#ifndef MEMREG_ACL_BUILD_H
#define MEMREG_ACL_BUILD_H

#include <acl/acl_base.h>

struct acl_stream;
struct acl_task;

/*
 * A task queued on the persistent stream @s, its lock held: kept in the
 * model @s is bound to, or refused (recorded) if it is bound to none or
 * its model's build ended.
 */
aclError memreg__acl_binding_keep(struct acl_stream *s, struct acl_task *t);
/*
 * @s goes (destroyed, its context or device reset, aclFinalize): if it
 * is bound to a model, it is unbound.  rt.lock may be held.
 */
void memreg__acl_stream_unbind(struct acl_stream *s);

#endif /* MEMREG_ACL_BUILD_H */
