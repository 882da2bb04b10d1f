/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What stream tasks and the host wait on (wait.c): events, blocking host
 * callbacks, value waits, the host callbacks' queue.
 */
#ifndef MEMREG_ACL_WAIT_H
#define MEMREG_ACL_WAIT_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/*
 * What stream tasks wait for (events, blocking host callbacks) and the
 * host callbacks' queue: one lock and one condition for all of it,
 * broadcast on every change.  Innermost lock.
 */
extern pthread_mutex_t memreg__acl_wait_lock;
extern pthread_cond_t memreg__acl_wait_cv;

/* Make the condition wait on CLOCK_MONOTONIC: before the first wait. */
void memreg__acl_wait_init(void);
/* Absolute CLOCK_MONOTONIC deadline @ms from now (the wait cv's clock). */
void memreg__acl_deadline(struct timespec *ts, int64_t ms);

#endif /* MEMREG_ACL_WAIT_H */
