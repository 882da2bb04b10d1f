/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The program's exception callback (exception.c).
 */
#ifndef MEMREG_ACL_EXCEPTION_H
#define MEMREG_ACL_EXCEPTION_H

#include <stdint.h>

#include <acl/acl_base.h>

struct acl_task;

/*
 * A task of the stream @stream_id on @device failed with @err: tell the
 * program's exception callback.
 */
void memreg__acl_exception(const struct acl_task *t, uint32_t stream_id,
			   int32_t device, aclError err);

#endif /* MEMREG_ACL_EXCEPTION_H */
