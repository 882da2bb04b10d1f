// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one lock and condition that stream tasks and the host wait on
 * (events, blocking host callbacks, value waits, the host callbacks'
 * queue), broadcast on every change, and the deadlines of timed waits.
 */
#include "wait.h"

pthread_mutex_t memreg__acl_wait_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t memreg__acl_wait_cv;
static pthread_once_t wait_cv_once = PTHREAD_ONCE_INIT;

/* Timed waits must not jump with the wall clock. */
static void wait_cv_init(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&memreg__acl_wait_cv, &attr);
	pthread_condattr_destroy(&attr);
}

void memreg__acl_wait_init(void)
{
	pthread_once(&wait_cv_once, wait_cv_init);
}

void memreg__acl_deadline(struct timespec *ts, int64_t ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}
