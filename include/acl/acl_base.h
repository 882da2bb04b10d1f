/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acl/acl_base.h - umbrella of the ACL base headers, as in CANN: the base
 * types and ACL_ERROR_* codes, and the runtime's ACL_ERROR_RT_* codes.
 * CANN's umbrella also pulls in the model and graph-engine bases
 * (acl_base_mdl.h, ge_error_codes.h); memreg implements neither, so it
 * does not ship them.
 */
#ifndef MEMREG_ACL_ACL_BASE_H
#define MEMREG_ACL_ACL_BASE_H

#include "acl_base_rt.h"
#include "error_codes/rt_error_codes.h"

#endif /* MEMREG_ACL_ACL_BASE_H */
