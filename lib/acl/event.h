/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Events (event.c), for the rest of lib/acl: their tasks are event.c's
 * own (task.h).
 */
#ifndef MEMREG_ACL_EVENT_H
#define MEMREG_ACL_EVENT_H

#include <stdint.h>

/* aclFinalize's part: forget every event; rt.lock held. */
void memreg__acl_events_release(void);

/* aclrtSetOpWaitTimeout's (misc.c): 0 is none, else seconds. */
extern uint32_t memreg__acl_op_wait_timeout;

#endif /* MEMREG_ACL_EVENT_H */
