/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmocka needs these headers, in this order, before <cmocka.h>.  Each
 * test file exposes one group runner; test_core.c runs them all.
 */
#ifndef CORE_TESTS_H
#define CORE_TESTS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Filled by a group runner: how many tests it had and how many failed. */
struct group_result {
	unsigned int tests;
	unsigned int failed;
};

void run_error_tests(struct group_result *res);
void run_device_tests(struct group_result *res);
void run_ioctl_tests(struct group_result *res);
void run_query_tests(struct group_result *res);
void run_thread_tests(struct group_result *res);
void run_dmabuf_tests(struct group_result *res);
void run_copy_thread_tests(struct group_result *res);

#define RUN_GROUP(name, tests, setup, teardown, res)			\
	do {								\
		(res)->tests = sizeof(tests) / sizeof((tests)[0]);	\
		(res)->failed = (unsigned int)cmocka_run_group_tests_name( \
			name, tests, setup, teardown);			\
	} while (0)

#endif /* CORE_TESTS_H */
