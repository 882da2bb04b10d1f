/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Models captured from streams (model.c), for the rest of lib/acl: a
 * stream being captured hands its tasks to its model.  What the model
 * files share among themselves is in model_internal.h.
 */
#ifndef MEMREG_ACL_MODEL_H
#define MEMREG_ACL_MODEL_H

#include <acl/acl_base.h>

struct acl_model;
struct acl_task;

/* Keep @t in @m, in order; the lock of the stream captured into @m held. */
void memreg__acl_model_add(struct acl_model *m, struct acl_task *t);
/*
 * The stream @m was captured from goes (forced destroy, its context or
 * device reset, aclFinalize): the capture ends and the model with it.
 * rt.lock may be held.
 */
void memreg__acl_model_abandon(struct acl_model *m);
/*
 * May the calling thread make an "unsafe" call (@call: aclrtMemcpy,
 * aclrtMemset) given the captures going on and its capture mode?
 * ACL_SUCCESS, or ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT (recorded).
 */
aclError memreg__acl_capture_mode_check(const char *call);
/* aclFinalize's part: every model goes; rt.lock held, streams gone. */
void memreg__acl_models_release(void);

#endif /* MEMREG_ACL_MODEL_H */
