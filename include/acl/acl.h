/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acl/acl.h - the header CANN programs include.  CANN's also pulls in the
 * operator and model APIs (acl_op.h, acl_mdl.h), which memreg does not
 * implement; the runtime is all of it here.
 */
#ifndef MEMREG_ACL_ACL_H
#define MEMREG_ACL_ACL_H

#include "acl_rt.h"

#endif /* MEMREG_ACL_ACL_H */
