/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The program's exception callback (exception.c).
 */
#ifndef MEMREG_ACL_EXCEPTION_H
#define MEMREG_ACL_EXCEPTION_H

#include <acl/acl_base.h>

struct acl_stream;
struct acl_task;

/* A task of @s failed with @err: tell the program's exception callback. */
void memreg__acl_exception(struct acl_stream *s, struct acl_task *t,
			   aclError err);

#endif /* MEMREG_ACL_EXCEPTION_H */
