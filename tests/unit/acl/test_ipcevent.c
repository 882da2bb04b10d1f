// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * IPC events: aclrtCreateEventExWithFlag(ACL_EVENT_IPC),
 * aclrtIpcGetEventHandle and aclrtIpcOpenEventHandle, within a process
 * and across a fork, and the calls CANN refuses on such events.
 *
 * A stream held by a gate (a blocking host callback the test thread
 * runs, as in test_events.c) makes "queued but not run" observable, in
 * the other process too.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

/* The page's file, from the handle's pid and id (event.c's layout). */
static void shm_name(const aclrtIpcEventHandle *h, char *buf, size_t len)
{
	int32_t pid;
	uint64_t id;

	memcpy(&pid, h->reserved + 12, sizeof(pid));
	memcpy(&id, h->reserved + 16, sizeof(id));
	snprintf(buf, len, "/dev/shm/memreg-acl-event.%d.%016llx", (int)pid,
		 (unsigned long long)id);
}

static void test_ipc_event_args(void **state)
{
	aclrtIpcEventHandle h, bad;
	aclrtEvent e, plain, o;
	aclrtEventStatus st;
	aclrtEventWaitStatus wst;
	char name[128];
	uint64_t ts;
	float ms;

	(void)state;
	/* CANN takes the flag only for the capturing kind, and alone. */
	assert_int_equal(aclrtCreateEventWithFlag(&e, ACL_EVENT_IPC),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC | ACL_EVENT_SYNC),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_SUCCESS);

	assert_int_equal(aclrtIpcGetEventHandle(e, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcGetEventHandle(NULL, &h), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateEventExWithFlag(&plain, ACL_EVENT_SYNC), ACL_SUCCESS);
	assert_int_equal(aclrtIpcGetEventHandle(plain, &h), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtDestroyEvent(plain), ACL_SUCCESS);
	assert_int_equal(aclrtIpcGetEventHandle(plain, &h), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcGetEventHandle(e, &h), ACL_SUCCESS);
	shm_name(&h, name, sizeof(name));
	assert_int_equal(access(name, F_OK), 0);

	/* What CANN's runtime refuses for IPC events. */
	assert_int_equal(aclrtResetEvent(e, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtQueryEvent(e, &st), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtQueryEventWaitStatus(e, &wst),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtRecordEvent(e, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
	assert_int_equal(aclrtEventElapsedTime(&ms, e, e),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtEventGetTimestamp(e, &ts),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

	assert_int_equal(aclrtIpcOpenEventHandle(h, NULL), ACL_ERROR_INVALID_PARAM);
	memset(&bad, 0x5a, sizeof(bad));
	assert_int_equal(aclrtIpcOpenEventHandle(bad, &o), ACL_ERROR_RT_PARAM_INVALID);
	/* A handle of this library whose page does not exist. */
	bad = h;
	bad.reserved[16] ^= 1;
	assert_int_equal(aclrtIpcOpenEventHandle(bad, &o), ACL_ERROR_INVALID_PARAM);

	/* Opened, then the creator destroys: the opener keeps its page. */
	assert_int_equal(aclrtIpcOpenEventHandle(h, &o), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
	assert_int_equal(access(name, F_OK), -1);
	assert_int_equal(aclrtIpcOpenEventHandle(h, &e), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtRecordEvent(o, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeEvent(o), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyEvent(o), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyEvent(o), ACL_ERROR_INVALID_PARAM);
}

/* aclFinalize takes the names of the IPC events still alive away. */
static void test_ipc_event_finalize(void **state)
{
	aclrtIpcEventHandle h;
	char name[128];
	aclrtEvent e;

	(void)state;
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_SUCCESS);
	assert_int_equal(aclrtIpcGetEventHandle(e, &h), ACL_SUCCESS);
	shm_name(&h, name, sizeof(name));
	assert_int_equal(access(name, F_OK), 0);
	aclFinalize();
	assert_int_equal(access(name, F_OK), -1);
	/* The fixture's teardown finalizes again: set up what it expects. */
	assert_int_equal(aclInit(NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

/*
 * One process, two handles on one page: a record behind a gate is seen
 * as not yet run through the opened event, which a stream then waits for.
 */
static void test_ipc_event_same_process(void **state)
{
	aclrtEventRecordedStatus rs;
	aclrtStreamStatus ss;
	aclrtIpcEventHandle h;
	aclrtStream a, b;
	aclrtEvent e, o;
	int ran = 0;

	(void)state;
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_SUCCESS);
	assert_int_equal(aclrtIpcGetEventHandle(e, &h), ACL_SUCCESS);
	assert_int_equal(aclrtIpcOpenEventHandle(h, &o), ACL_SUCCESS);

	/* Never recorded: complete, nothing to wait for (capturing events). */
	assert_int_equal(aclrtQueryEventStatus(o, &rs), ACL_SUCCESS);
	assert_int_equal(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	assert_int_equal(aclrtSynchronizeEventWithTimeout(o, 0), ACL_SUCCESS);

	close_gate(a, &ran);
	assert_int_equal(aclrtRecordEvent(e, a), ACL_SUCCESS);
	assert_int_equal(aclrtQueryEventStatus(o, &rs), ACL_SUCCESS);
	assert_int_equal(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
	assert_int_equal(aclrtSynchronizeEventWithTimeout(o, 0),
			 ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	assert_int_equal(aclrtSynchronizeEventWithTimeout(o, 30),
			 ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	/* Made with ACL_EVENT_IPC alone, and still waitable. */
	assert_int_equal(aclrtStreamWaitEvent(b, o), ACL_SUCCESS);
	sleep_ms(30);
	assert_int_equal(aclrtStreamQuery(b, &ss), ACL_SUCCESS);
	assert_int_equal(ss, ACL_STREAM_STATUS_NOT_READY);
	open_gate(a, &ran);
	assert_int_equal(aclrtSynchronizeStreamWithTimeout(b, 5000), ACL_SUCCESS);
	assert_int_equal(aclrtQueryEventStatus(o, &rs), ACL_SUCCESS);
	assert_int_equal(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);

	assert_int_equal(aclrtDestroyEvent(o), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(a), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(b), ACL_SUCCESS);
}

/* A wait that times out on an IPC event fails its task, not the stream. */
static void test_ipc_event_wait_timeout(void **state)
{
	aclrtStream a, b;
	aclrtEvent e;
	int ran = 0;

	(void)state;
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_SUCCESS);
	close_gate(a, &ran);
	assert_int_equal(aclrtRecordEvent(e, a), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEventWithTimeout(b, e, 20), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStreamWithTimeout(b, 5000),
			 ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	open_gate(a, &ran);
	assert_int_equal(aclrtSynchronizeStream(a), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(a), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(b), ACL_SUCCESS);
}

/* The child's checks: no cmocka in a forked process, a line number instead. */
#define CHILD_CHECK(cond)					\
	do {							\
		if (!(cond))					\
			_exit(__LINE__ % 250 + 1);		\
	} while (0)

/*
 * The child: open the handle; see the parent's record queued and not
 * run; queue a wait for it and a record of its own on stream C; then
 * tell the parent, and wait for both to run.
 */
static void child_main(aclrtIpcEventHandle h, int from_parent, int to_parent)
{
	aclrtEventRecordedStatus rs;
	aclrtStreamStatus ss;
	aclrtStream c;
	aclrtEvent e;
	char go;

	CHILD_CHECK(aclrtIpcOpenEventHandle(h, &e) == ACL_SUCCESS);
	/* The parent's record is queued (and held) once it says so. */
	CHILD_CHECK(read(from_parent, &go, 1) == 1 && go == 'g');
	CHILD_CHECK(aclrtQueryEventStatus(e, &rs) == ACL_SUCCESS);
	CHILD_CHECK(rs == ACL_EVENT_RECORDED_STATUS_NOT_READY);
	CHILD_CHECK(aclrtSynchronizeEventWithTimeout(e, 0) ==
		    ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	CHILD_CHECK(aclrtCreateStream(&c) == ACL_SUCCESS);
	CHILD_CHECK(aclrtStreamWaitEvent(c, e) == ACL_SUCCESS);
	CHILD_CHECK(aclrtRecordEvent(e, c) == ACL_SUCCESS);
	sleep_ms(30);
	CHILD_CHECK(aclrtStreamQuery(c, &ss) == ACL_SUCCESS);
	CHILD_CHECK(ss == ACL_STREAM_STATUS_NOT_READY);
	CHILD_CHECK(write(to_parent, "w", 1) == 1);
	CHILD_CHECK(aclrtSynchronizeStreamWithTimeout(c, 10000) == ACL_SUCCESS);
	CHILD_CHECK(aclrtSynchronizeEventWithTimeout(e, 10000) == ACL_SUCCESS);
	CHILD_CHECK(aclrtQueryEventStatus(e, &rs) == ACL_SUCCESS);
	CHILD_CHECK(rs == ACL_EVENT_RECORDED_STATUS_COMPLETE);
	CHILD_CHECK(aclrtDestroyEvent(e) == ACL_SUCCESS);
	CHILD_CHECK(aclrtDestroyStream(c) == ACL_SUCCESS);
	_exit(0);
}

/*
 * Across processes, both ways: the parent's record (behind a gate)
 * releases the child's wait; the child's record then releases a wait the
 * parent queued after it, which until then could not run.
 */
static void test_ipc_event_fork(void **state)
{
	aclrtEventRecordedStatus rs;
	aclrtStreamStatus ss;
	aclrtIpcEventHandle h;
	aclrtStream p, q;
	int up[2], down[2], status, ran = 0;
	aclrtEvent e;
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_SUCCESS);
	assert_int_equal(aclrtIpcGetEventHandle(e, &h), ACL_SUCCESS);
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	/* Before any stream: no worker thread is copied half-way. */
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(up[0]);
		close(down[1]);
		child_main(h, down[0], up[1]);
	}
	close(up[1]);
	close(down[0]);
	assert_int_equal(aclrtCreateStream(&p), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&q), ACL_SUCCESS);
	close_gate(p, &ran);
	assert_int_equal(aclrtRecordEvent(e, p), ACL_SUCCESS);
	assert_int_equal(write(down[1], "g", 1), 1);
	assert_int_equal(read(up[0], &c, 1), 1);
	assert_int_equal(c, 'w');
	/* The child's record is queued, behind the child's wait. */
	assert_int_equal(aclrtStreamWaitEvent(q, e), ACL_SUCCESS);
	sleep_ms(30);
	assert_int_equal(aclrtStreamQuery(q, &ss), ACL_SUCCESS);
	assert_int_equal(ss, ACL_STREAM_STATUS_NOT_READY);
	assert_int_equal(aclrtQueryEventStatus(e, &rs), ACL_SUCCESS);
	assert_int_equal(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);

	open_gate(p, &ran);
	assert_int_equal(aclrtSynchronizeStreamWithTimeout(q, 10000), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeEventWithTimeout(e, 10000), ACL_SUCCESS);
	assert_int_equal(aclrtQueryEventStatus(e, &rs), ACL_SUCCESS);
	assert_int_equal(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(up[0]);
	close(down[1]);
	assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(p), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(q), ACL_SUCCESS);
}

void run_ipcevent_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipc_event_args),
		cmocka_unit_test(test_ipc_event_finalize),
		cmocka_unit_test(test_ipc_event_same_process),
		cmocka_unit_test(test_ipc_event_wait_timeout),
		cmocka_unit_test(test_ipc_event_fork),
	};

	RUN_GROUP("acl_ipcevent", tests, acl_test_setup, acl_test_teardown, res);
}
