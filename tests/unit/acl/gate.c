// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers the stream, event and model tests share: a "gate" that holds a
 * stream (a blocking host callback that runs only when the test processes
 * its report), a callback that counts, and time.
 */
#include <pthread.h>
#include <time.h>
#include <acl/acl.h>

#include "tests.h"

uint64_t self_id(void)
{
	return (uint64_t)pthread_self();
}

void count_cb(void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

void close_gate(void *s, int *ran)
{
	assert_int_equal(aclrtSubscribeReport(self_id(), s), ACL_SUCCESS);
	assert_int_equal(aclrtLaunchCallback(count_cb, ran, ACL_CALLBACK_BLOCK, s),
			 ACL_SUCCESS);
}

void open_gate(void *s, int *ran)
{
	int before = *ran;

	assert_int_equal(aclrtProcessReport(5000), ACL_SUCCESS);
	assert_int_equal(*ran, before + 1);
	assert_int_equal(aclrtUnSubscribeReport(self_id(), s), ACL_SUCCESS);
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

long elapsed_ms(const struct timespec *from)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - from->tv_sec) * 1000 +
	       (now.tv_nsec - from->tv_nsec) / 1000000;
}
