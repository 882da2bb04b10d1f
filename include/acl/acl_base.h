/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acl/acl_base.h - umbrella of the ACL base headers, as in CANN: the base
 * types and ACL_ERROR_* codes, the runtime's ACL_ERROR_RT_* codes and the
 * graph engine's ACL_ERROR_GE_* codes (declared so that programs testing
 * for them compile; memreg has no graph engine).  CANN's umbrella also
 * pulls in the model base (acl_base_mdl.h), which memreg does not ship.
 */
#ifndef MEMREG_ACL_ACL_BASE_H
#define MEMREG_ACL_ACL_BASE_H

#include "acl_base_rt.h"
#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"

#endif /* MEMREG_ACL_ACL_BASE_H */
