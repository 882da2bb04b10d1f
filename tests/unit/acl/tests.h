/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmocka needs these headers, in this order, before <cmocka.h>.  Each
 * test file exposes one group runner; test_main.c runs them all.
 */
#ifndef ACL_TESTS_H
#define ACL_TESTS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

struct group_result {
	unsigned int tests;
	unsigned int failed;
};

/*
 * test_main.c: the usual fixture: the fake kernel, aclInit and device 0;
 * then aclFinalize and the fake's teardown.
 */
int acl_test_setup(void **state);
int acl_test_teardown(void **state);

/*
 * gate.c: hold a stream behind a blocking host callback (close_gate)
 * until the test processes its report (open_gate), which the callback
 * counts in *ran; the calling thread's id for aclrtSubscribeReport; time.
 */
struct timespec;
uint64_t self_id(void);
void count_cb(void *arg);
void close_gate(void *stream, int *ran);
void open_gate(void *stream, int *ran);
void sleep_ms(long ms);
long elapsed_ms(const struct timespec *from);

void run_allocator_tests(struct group_result *res);
void run_args_tests(struct group_result *res);
void run_devmem_tests(struct group_result *res);
void run_runtime_tests(struct group_result *res);
void run_copy_tests(struct group_result *res);
void run_event_tests(struct group_result *res);
void run_misc_tests(struct group_result *res);
void run_error_tests(struct group_result *res);
void run_value_tests(struct group_result *res);
void run_query_tests(struct group_result *res);
void run_streamcfg_tests(struct group_result *res);
void run_ipc_tests(struct group_result *res);
void run_vmm_tests(struct group_result *res);
void run_ipcevent_tests(struct group_result *res);
void run_builtin_tests(struct group_result *res);
void run_model_tests(struct group_result *res);
void run_build_tests(struct group_result *res);
void run_reason_tests(struct group_result *res);
void run_dropin_tests(struct group_result *res);

#define RUN_GROUP(name, tests, setup, teardown, res)			\
	do {								\
		(res)->tests = sizeof(tests) / sizeof((tests)[0]);	\
		(res)->failed = (unsigned int)cmocka_run_group_tests_name( \
			name, tests, setup, teardown);			\
	} while (0)

#endif /* ACL_TESTS_H */
