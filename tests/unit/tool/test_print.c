// SPDX-License-Identifier: GPL-2.0
/*
 * From netlink message to text and JSON: the printers of every object, fed
 * with messages built the way the kernel builds them.
 */
#include <errno.h>
#include <string.h>

#include "tool_test.h"
#include "comm.h"
#include "fake_msgs.h"
#include "listing.h"
#include "tool.h"

enum mode { TEXT, JSON, PRETTY };

struct printer {
	struct capture c;
	struct out o;
};

static void printer_open(struct printer *p, enum mode mode)
{
	capture_open(&p->c);
	out_init(&p->o, p->c.f, mode != TEXT, mode == PRETTY);
}

/* Print @msg with @print_row, freeing it; returns the printer's result. */
static int feed(struct printer *p,
		int (*print_row)(struct out *, struct nlmsghdr *),
		struct nl_msg *msg)
{
	int ret = print_row(&p->o, nlmsg_hdr(msg));

	nlmsg_free(msg);
	return ret;
}

/* Every print test sees the fake /proc, where pid 4242 is "from-proc". */
static int use_fake_proc(void **state)
{
	(void)state;
	comm_proc_root = fake_proc_root();
	return 0;
}

static void test_proc_table(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, TEXT);
	proc_table_begin(&p.o);
	assert_int_equal(feed(&p, proc_print_row, fake_proc_full()), 0);
	assert_int_equal(feed(&p, proc_print_row, fake_proc_sparse()), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
"PID     COMM            UID    REGIONS HOST      DEV       PEAK                  LIMITS                      IMPORTS XFER READ/WRITE     DEVMEM\n"
"1234    trainer         1000   3       4.0MiB    0B        5/8.0MiB/0B           256/20.0GiB/50.0GiB         3       1.0MiB/2.0MiB       0:4.0MiB 1:2.0MiB\n"
"4242    from-proc       0      100000  1.5TiB    1.0GiB    -/-/-                 unlimited/unlimited/64.0GiB -       -/-                 -\n");
	capture_close(&p.c);
}

static void test_proc_json(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, JSON);
	proc_table_begin(&p.o);
	assert_int_equal(feed(&p, proc_print_row, fake_proc_full()), 0);
	assert_int_equal(feed(&p, proc_print_row, fake_proc_sparse()), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
		"[{\"pid\":1234,\"comm\":\"trainer\",\"uid\":1000,\"regions\":3,"
		"\"host_bytes\":4194304,\"dev_bytes\":0,\"pinned_bytes\":4194304,"
		"\"peak_regions\":5,\"peak_host_bytes\":8388608,"
		"\"peak_dev_bytes\":0,\"max_regions\":256,"
		"\"max_host_bytes\":21474836480,\"max_dev_bytes\":53687091200,"
		"\"imports\":3,\"xfer_descs\":10,\"xfer_read_bytes\":1048576,"
		"\"xfer_write_bytes\":2097152,"
		"\"dev_usage\":[{\"device\":0,\"dev_alloc_bytes\":4194304},"
		"{\"device\":1,\"dev_alloc_bytes\":2097152}]},"
		"{\"pid\":4242,\"comm\":\"from-proc\",\"uid\":0,"
		"\"regions\":100000,\"host_bytes\":1649267441664,"
		"\"dev_bytes\":1073741824,"
		"\"max_regions\":18446744073709551615,"
		"\"max_host_bytes\":18446744073709551615,"
		"\"max_dev_bytes\":68719476736}]\n");
	capture_close(&p.c);
}

static void test_region_table(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, TEXT);
	region_table_begin(&p.o);
	assert_int_equal(feed(&p, region_print_row, fake_region_full()), 0);
	assert_int_equal(feed(&p, region_print_row, fake_region_hidden()), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
"PID     COMM            ID       HANDLE             TYPE   DEV  ADDR               LEN       PINNED   GRANTS IMPORTS AGE\n"
"1234    trainer         48879    0x00005eed0000beef host   -    0x7f3a12400000     4.0MiB    1024     1      2       3m05s\n"
"1       init            2        -                  device 1    -                  2.0GiB    0        -      -       1d01h\n");
	capture_close(&p.c);
}

static void test_region_json(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, JSON);
	region_table_begin(&p.o);
	assert_int_equal(feed(&p, region_print_row, fake_region_full()), 0);
	assert_int_equal(feed(&p, region_print_row, fake_region_hidden()), 0);
	out_table_end(&p.o);
	/* the hidden row has no "handle" and no "addr" at all */
	assert_string_equal(capture_text(&p.c),
		"[{\"pid\":1234,\"comm\":\"trainer\",\"id\":48879,"
		"\"handle\":104372000308975,"
		"\"type\":\"host\",\"addr\":139887391014912,\"len\":4194304,"
		"\"pinned_pages\":1024,\"grants\":1,\"imports\":2,"
		"\"age_ms\":185000,"
		"\"access\":[\"remote_read\",\"remote_write\"]},"
		"{\"pid\":1,\"comm\":\"init\",\"id\":2,\"type\":\"device\","
		"\"device\":1,\"len\":2147483648,\"pinned_pages\":0,\"age_ms\":90061000,"
		"\"access\":[]}]\n");
	capture_close(&p.c);
}

/* a registration that shares another's pages says whose */
static void test_region_child(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, TEXT);
	region_table_begin(&p.o);
	assert_int_equal(feed(&p, region_print_row, fake_region_child()), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
"PID     COMM            ID       HANDLE             TYPE   DEV  ADDR               LEN       PINNED   GRANTS IMPORTS AGE\n"
"1234    trainer         48880    -                  host   -    -                  200.0KiB  of 48879 0      0       1.0s\n");
	capture_close(&p.c);

	printer_open(&p, JSON);
	region_table_begin(&p.o);
	assert_int_equal(feed(&p, region_print_row, fake_region_child()), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
		"[{\"pid\":1234,\"comm\":\"trainer\",\"id\":48880,"
		"\"type\":\"host\",\"len\":204800,\"pinned_pages\":0,"
		"\"grants\":0,\"imports\":0,\"age_ms\":1000,\"parent\":48879,"
		"\"access\":[\"remote_read\"]}]\n");
	capture_close(&p.c);
}

static void test_region_pretty(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, PRETTY);
	region_table_begin(&p.o);
	assert_int_equal(feed(&p, region_print_row, fake_region_hidden()), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
		"[\n"
		"  {\n"
		"    \"pid\": 1,\n"
		"    \"comm\": \"init\",\n"
		"    \"id\": 2,\n"
		"    \"type\": \"device\",\n"
		"    \"device\": 1,\n"
		"    \"len\": 2147483648,\n"
		"    \"pinned_pages\": 0,\n"
		"    \"age_ms\": 90061000,\n"
		"    \"access\": []\n"
		"  }\n"
		"]\n");
	capture_close(&p.c);
}

static void test_empty_listing(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, TEXT);
	region_table_begin(&p.o);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
"PID     COMM            ID       HANDLE             TYPE   DEV  ADDR               LEN       PINNED   GRANTS IMPORTS AGE\n");
	capture_close(&p.c);

	printer_open(&p, JSON);
	proc_table_begin(&p.o);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c), "[]\n");
	capture_close(&p.c);
}

static void test_stats_block(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, stats_print, fake_stats()), 0);
	assert_string_equal(capture_text(&p.c),
		"processes       3\n"
		"registrations   12\n"
		"host            4.0MiB\n"
		"device          0B\n"
		"devices         2\n"
		"pinned          4.0MiB\n"
		"refused regions 0\n"
		"refused host    1\n"
		"refused device  0\n"
		"refused memlock 2\n"
		"default regions 256\n"
		"default host    20.0GiB\n"
		"default device  50.0GiB\n"
		"instance        6d656d72656700010203a4b5c6d7e8f9\n");
	capture_close(&p.c);
}

static void test_stats_json(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, JSON);
	assert_int_equal(feed(&p, stats_print, fake_stats()), 0);
	assert_string_equal(capture_text(&p.c),
		"{\"procs\":3,\"regions\":12,\"host_bytes\":4194304,"
		"\"dev_bytes\":0,\"devices\":2,\"pinned_bytes\":4202496,"
		"\"refused_regions\":0,\"refused_host_bytes\":1,"
		"\"refused_dev_bytes\":0,\"refused_memlock\":2,"
		"\"ipc_import_failed\":7,\"ipc_import_throttled\":0,"
		"\"max_regions\":256,\"max_host_bytes\":21474836480,"
		"\"max_dev_bytes\":53687091200,"
		"\"instance_id\":\"6d656d72656700010203a4b5c6d7e8f9\"}\n");
	capture_close(&p.c);

	printer_open(&p, PRETTY);
	assert_int_equal(feed(&p, stats_print, fake_stats()), 0);
	assert_non_null(strstr(capture_text(&p.c),
			       "{\n  \"procs\": 3,\n  \"regions\": 12,\n"));
	assert_non_null(strstr(capture_text(&p.c),
			       "\n  \"instance_id\": \"6d656d72656700010203a4b5c6d7e8f9\"\n}\n"));
	capture_close(&p.c);
}

/* A stats answer from a kernel that sends only some of the attributes. */
static void test_stats_sparse(void **state)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_GET_STATS);
	struct printer p;

	(void)state;
	assert_int_equal(nla_put_u64(msg, MEMREG_A_PROCS, 0), 0);
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, stats_print, msg), 0);
	assert_non_null(strstr(capture_text(&p.c), "processes       0\n"
						   "registrations   -\n"));
	assert_non_null(strstr(capture_text(&p.c), "instance        -\n"));
	capture_close(&p.c);
}

static int print_limits_global(struct out *o, struct nlmsghdr *nlh)
{
	return limits_print(o, nlh, false);
}

static int print_limits_pid(struct out *o, struct nlmsghdr *nlh)
{
	return limits_print(o, nlh, true);
}

static void test_limits(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, print_limits_global, fake_stats()), 0);
	assert_int_equal(feed(&p, print_limits_pid, fake_proc_sparse()), 0);
	assert_string_equal(capture_text(&p.c),
		"regions 256\n"
		"host    20.0GiB\n"
		"dev     50.0GiB\n"
		"ipc names 1024\n"
		"ipc pids 16384\n"
		"user files 5880\n"
		"pid     4242\n"
		"regions unlimited\n"
		"host    unlimited\n"
		"dev     64.0GiB\n");
	capture_close(&p.c);

	printer_open(&p, JSON);
	assert_int_equal(feed(&p, print_limits_global, fake_stats()), 0);
	assert_int_equal(feed(&p, print_limits_pid, fake_proc_sparse()), 0);
	assert_string_equal(capture_text(&p.c),
		"{\"max_regions\":256,\"max_host_bytes\":21474836480,"
		"\"max_dev_bytes\":53687091200,\"max_ipc_names\":1024,"
		"\"max_ipc_pids\":16384,\"max_user_files\":5880}\n"
		"{\"pid\":4242,\"max_regions\":18446744073709551615,"
		"\"max_host_bytes\":18446744073709551615,"
		"\"max_dev_bytes\":68719476736}\n");
	capture_close(&p.c);
}

static void test_monitor_text(void **state)
{
	char want[512];
	struct printer p;

	(void)state;
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, monitor_print_event,
			      fake_event(MEMREG_CMD_EVENT_REG_ADDED)), 0);
	assert_int_equal(feed(&p, monitor_print_event,
			      fake_event(MEMREG_CMD_EVENT_REG_REMOVED)), 0);
	assert_int_equal(feed(&p, monitor_print_event,
			      fake_event(MEMREG_CMD_EVENT_LIMIT_REFUSED)), 0);
	assert_int_equal(feed(&p, monitor_print_event,
			      fake_event(MEMREG_CMD_EVENT_PROC_GONE)), 0);
	/* an event this tool does not know yet */
	assert_int_equal(feed(&p, monitor_print_event,
			      fake_event(MEMREG_CMD_MAX + 1)), 0);
	snprintf(want, sizeof(want),
		 "REG_ADDED pid 1234 comm trainer id 48879 type host len 4.0MiB\n"
		 "REG_REMOVED pid 1234 comm trainer id 48879 type host len 4.0MiB\n"
		 "LIMIT_REFUSED pid 1234 comm trainer reason host_bytes len 1.0GiB type host\n"
		 "PROC_GONE pid 1234 comm trainer\n"
		 "EVENT%d pid 1234 comm trainer\n", MEMREG_CMD_MAX + 1);
	assert_string_equal(capture_text(&p.c), want);
	capture_close(&p.c);
}

static void test_monitor_json(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, JSON);
	assert_int_equal(feed(&p, monitor_print_event,
			      fake_event(MEMREG_CMD_EVENT_REG_ADDED)), 0);
	assert_int_equal(feed(&p, monitor_print_event,
			      fake_event(MEMREG_CMD_EVENT_LIMIT_REFUSED)), 0);
	assert_int_equal(feed(&p, monitor_print_event,
			      fake_event(MEMREG_CMD_EVENT_PROC_GONE)), 0);
	assert_string_equal(capture_text(&p.c),
		"{\"event\":\"REG_ADDED\",\"pid\":1234,\"comm\":\"trainer\","
		"\"id\":48879,\"type\":\"host\",\"len\":4194304}\n"
		"{\"event\":\"LIMIT_REFUSED\",\"pid\":1234,\"comm\":\"trainer\","
		"\"reason\":\"host_bytes\",\"len\":1073741824,\"type\":\"host\"}\n"
		"{\"event\":\"PROC_GONE\",\"pid\":1234,\"comm\":\"trainer\"}\n");
	capture_close(&p.c);
}

/* Missing fields are left out of event lines, not shown as "-". */
static void test_monitor_sparse(void **state)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_EVENT_REG_REMOVED);
	struct printer p;

	(void)state;
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 1), 0);
	assert_int_equal(nla_put_string(msg, MEMREG_A_COMM, "init"), 0);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_TYPE, 7), 0);
	assert_int_equal(nla_put_u64(msg, MEMREG_A_LEN, 4096), 0);
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, monitor_print_event, msg), 0);
	assert_string_equal(capture_text(&p.c),
			    "REG_REMOVED pid 1 comm init type type7 len 4.0KiB\n");
	capture_close(&p.c);

	/* every field a registration has gets its own label */
	msg = fake_msg(MEMREG_CMD_EVENT_REG_ADDED);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 1), 0);
	assert_int_equal(nla_put_string(msg, MEMREG_A_COMM, "init"), 0);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_GRANTS, 2), 0);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_IMPORTS, 3), 0);
	assert_int_equal(nla_put_u64(msg, MEMREG_A_AGE_MS, 1500), 0);
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, monitor_print_event, msg), 0);
	assert_string_equal(capture_text(&p.c),
			    "REG_ADDED pid 1 comm init grants 2 imports 3 age 1.5s\n");
	capture_close(&p.c);

	/* the comm of a gone process is never looked up in /proc */
	msg = fake_msg(MEMREG_CMD_EVENT_PROC_GONE);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 4242), 0);
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, monitor_print_event, msg), 0);
	assert_string_equal(capture_text(&p.c), "PROC_GONE pid 4242\n");
	capture_close(&p.c);

	/* ... but that of a live one is */
	msg = fake_msg(MEMREG_CMD_EVENT_LIMIT_REFUSED);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 4242), 0);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_REASON, 99), 0);
	printer_open(&p, JSON);
	assert_int_equal(feed(&p, monitor_print_event, msg), 0);
	assert_string_equal(capture_text(&p.c),
		"{\"event\":\"LIMIT_REFUSED\",\"pid\":4242,\"comm\":\"from-proc\","
		"\"reason\":\"reason99\"}\n");
	capture_close(&p.c);
}

/* What a hostile comm (prctl PR_SET_NAME) turns into. */
static void test_hostile_comm(void **state)
{
	static const char comm[] = "\x1b[2J\"x\\\n\xff";
	struct nl_msg *msg;
	struct printer p;

	(void)state;
	msg = fake_msg(MEMREG_CMD_PROC_GET);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 7), 0);
	assert_int_equal(nla_put_string(msg, MEMREG_A_COMM, comm), 0);
	printer_open(&p, TEXT);
	proc_table_begin(&p.o);
	assert_int_equal(feed(&p, proc_print_row, msg), 0);
	assert_non_null(strstr(capture_text(&p.c),
			       "\n7       ?[2J\"x\\?\xff       -      "));
	capture_close(&p.c);

	msg = fake_msg(MEMREG_CMD_PROC_GET);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 7), 0);
	assert_int_equal(nla_put_string(msg, MEMREG_A_COMM, comm), 0);
	printer_open(&p, JSON);
	proc_table_begin(&p.o);
	assert_int_equal(feed(&p, proc_print_row, msg), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
		"[{\"pid\":7,\"comm\":\"\\u001b[2J\\\"x\\\\\\n\\ufffd\"}]\n");
	capture_close(&p.c);
}

/* A message with an attribute of the wrong size is refused whole. */
static void test_malformed(void **state)
{
	struct nl_msg *msg;
	struct printer p;
	uint16_t short_pid = 5;

	(void)state;
	msg = fake_msg(MEMREG_CMD_PROC_GET);
	assert_int_equal(nla_put(msg, MEMREG_A_PID, sizeof(short_pid),
				 &short_pid), 0);
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, proc_print_row, msg), -EBADMSG);
	assert_string_equal(capture_text(&p.c), "");
	capture_close(&p.c);

	msg = fake_msg(MEMREG_CMD_GET_STATS);
	assert_int_equal(nla_put(msg, MEMREG_A_INSTANCE_ID, 8, "12345678"), 0);
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, stats_print, msg), -EBADMSG);
	capture_close(&p.c);

	/* a COMM that is not NUL-terminated */
	msg = fake_msg(MEMREG_CMD_REGION_GET);
	assert_int_equal(nla_put(msg, MEMREG_A_COMM, 4, "abcd"), 0);
	printer_open(&p, JSON);
	assert_int_equal(feed(&p, region_print_row, msg), -EBADMSG);
	assert_string_equal(capture_text(&p.c), "");
	capture_close(&p.c);

	/* attributes from a newer kernel are not a reason to refuse */
	msg = fake_proc_full();
	assert_int_equal(nla_put_u64(msg, MEMREG_A_MAX + 1, 1), 0);
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, proc_print_row, msg), 0);
	capture_close(&p.c);
}

static void test_heap_table(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, TEXT);
	heap_table_begin(&p.o);
	assert_int_equal(feed(&p, heap_print_row, fake_heap_none()), 0);
	assert_int_equal(feed(&p, heap_print_row, fake_heap()), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
"PID     COMM            HEAP  DOMAIN       DEV  ADDR               SIZE      REGIONS  USED      PEAK      UTIL    OOB/UNK/DUP/DROP/REF\n"
"1234    trainer         none  -            -    -                  -         1        4.0KiB    4.0KiB    -       1/1/0/4/0\n"
"1234    trainer         3     torch_npu    1    0x7f3a12400000     1.0MiB    3        8.5KiB    1.0MiB    8.3%    0/1/2/0/0\n");
	capture_close(&p.c);
}

static void test_heap_json(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, JSON);
	heap_table_begin(&p.o);
	assert_int_equal(feed(&p, heap_print_row, fake_heap()), 0);
	assert_int_equal(feed(&p, heap_print_row, fake_heap_none()), 0);
	out_table_end(&p.o);
	/* heap 0 has no domain, device, address, size or utilisation */
	assert_string_equal(capture_text(&p.c),
		"[{\"pid\":1234,\"comm\":\"trainer\",\"uid\":1000,\"heap\":3,"
		"\"domain\":\"torch_npu\",\"device\":1,"
		"\"addr\":139887391014912,\"size\":1048576,\"regions\":3,"
		"\"region_bytes\":8704,\"peak_regions\":7,"
		"\"peak_bytes\":1048576,\"util_bp\":830,\"out_of_heap\":0,"
		"\"unknown\":1,\"duplicate\":2,\"dropped\":0,\"refused\":0,"
		"\"age_ms\":1500},"
		"{\"pid\":1234,\"comm\":\"trainer\",\"uid\":1000,\"heap\":0,"
		"\"regions\":1,\"region_bytes\":4096,\"peak_regions\":1,"
		"\"peak_bytes\":4096,\"out_of_heap\":1,\"unknown\":1,"
		"\"duplicate\":0,\"dropped\":4,\"refused\":0,\"age_ms\":1500}]\n");
	capture_close(&p.c);
}

/* A heap message without its nest is malformed, not an empty row. */
static void test_heap_malformed(void **state)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_HEAP_GET);
	struct printer p;

	(void)state;
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 1), 0);
	printer_open(&p, JSON);
	assert_int_equal(feed(&p, heap_print_row, msg), -EBADMSG);
	assert_string_equal(capture_text(&p.c), "");
	capture_close(&p.c);
}

static void test_dev_table(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, TEXT);
	dev_table_begin(&p.o);
	assert_int_equal(feed(&p, dev_print_row, fake_dev()), 0);
	assert_int_equal(feed(&p, dev_print_row, fake_dev_idle()), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
"DEV  CAPACITY  USED      HUGE      NORMAL    RESERVE   AVAIL     USAGE\n"
"0    1.0GiB    70.0MiB   64.0MiB   6.0MiB    128.0MiB  700.0MiB  1234/trainer 68.0MiB, 77/server 2.0MiB\n"
"1    1.0GiB    0B        0B        0B        -         -         -\n");
	capture_close(&p.c);
}

static void test_dev_json(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, JSON);
	dev_table_begin(&p.o);
	assert_int_equal(feed(&p, dev_print_row, fake_dev()), 0);
	assert_int_equal(feed(&p, dev_print_row, fake_dev_idle()), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
		"[{\"device\":0,\"capacity\":1073741824,\"used_bytes\":73400320,"
		"\"huge_bytes\":67108864,\"normal_bytes\":6291456,"
		"\"ram_reserve\":134217728,\"ram_available\":734003200,\"usage\":["
		"{\"pid\":1234,\"comm\":\"trainer\",\"dev_alloc_bytes\":71303168},"
		"{\"pid\":77,\"comm\":\"server\",\"dev_alloc_bytes\":2097152}]},"
		"{\"device\":1,\"capacity\":1073741824,\"used_bytes\":0,"
		"\"huge_bytes\":0,\"normal_bytes\":0,\"usage\":[]}]\n");
	capture_close(&p.c);
}

/* A usage nest without its bytes fails the row before anything is printed. */
static void test_dev_usage_malformed(void **state)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_DEV_GET);
	struct printer p;
	struct nlattr *nest;

	(void)state;
	assert_int_equal(nla_put_u32(msg, MEMREG_A_DEVICE, 0), 0);
	nest = nla_nest_start(msg, MEMREG_A_DEV_USAGE);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 5), 0);
	assert_int_equal(nla_nest_end(msg, nest), 0);
	printer_open(&p, JSON);
	assert_int_equal(feed(&p, dev_print_row, msg), -EBADMSG);
	assert_string_equal(capture_text(&p.c), "");
	capture_close(&p.c);

	/* the process dump's nests need a device */
	msg = fake_msg(MEMREG_CMD_PROC_GET);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 5), 0);
	nest = nla_nest_start(msg, MEMREG_A_DEV_USAGE);
	assert_int_equal(nla_put_u64(msg, MEMREG_A_DEV_ALLOC_BYTES, 1), 0);
	assert_int_equal(nla_nest_end(msg, nest), 0);
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, proc_print_row, msg), -EBADMSG);
	assert_string_equal(capture_text(&p.c), "");
	capture_close(&p.c);
}

static void test_monitor_heap(void **state)
{
	struct printer p;

	(void)state;
	printer_open(&p, TEXT);
	assert_int_equal(feed(&p, monitor_print_event,
			      fake_event(MEMREG_CMD_EVENT_HEAP)), 0);
	assert_string_equal(capture_text(&p.c),
		"HEAP pid 1234 comm trainer heap 3 kind dropped domain torch_npu "
		"dev 1 size 64.0MiB count 4 bytes 4.0KiB\n");
	capture_close(&p.c);

	printer_open(&p, JSON);
	assert_int_equal(feed(&p, monitor_print_event,
			      fake_event(MEMREG_CMD_EVENT_HEAP)), 0);
	assert_string_equal(capture_text(&p.c),
		"{\"event\":\"HEAP\",\"pid\":1234,\"comm\":\"trainer\","
		"\"heap\":3,\"kind\":\"dropped\",\"domain\":\"torch_npu\","
		"\"device\":1,\"size\":67108864,\"count\":4,\"bytes\":4096}\n");
	capture_close(&p.c);
}

/*
 * 100,000 registrations go through the printer one message at a time; each
 * is freed before the next is built, as in a real dump.
 */
static void test_many_rows(void **state)
{
	struct printer p;
	const char *text;
	size_t lines = 0;
	unsigned int i;

	(void)state;
	printer_open(&p, JSON);
	region_table_begin(&p.o);
	for (i = 0; i < 100000; i++)
		assert_int_equal(feed(&p, region_print_row,
				      fake_region_full()), 0);
	out_table_end(&p.o);
	text = capture_text(&p.c);
	assert_int_equal(text[0], '[');
	assert_int_equal(strlen(text), p.c.len);
	for (; *text; text++)
		lines += *text == '{';
	assert_int_equal(lines, 100000);
	assert_string_equal(p.c.buf + p.c.len - 3, "}]\n");
	capture_close(&p.c);
}

/* A region row with only what the sort and the handle column need. */
static struct nl_msg *region_row(uint32_t pid, uint32_t id, uint64_t handle)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_REGION_GET);

	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, pid), 0);
	assert_int_equal(nla_put_string(msg, MEMREG_A_COMM, "x"), 0);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_ID, id), 0);
	assert_int_equal(nla_put_u64(msg, MEMREG_A_HANDLE, handle), 0);
	return msg;
}

/* Handles are 0x and 16 digits: the column lines up whatever the bits. */
static void test_region_handle_width(void **state)
{
	struct printer p;
	const char *text;

	(void)state;
	printer_open(&p, TEXT);
	region_table_begin(&p.o);
	assert_int_equal(feed(&p, region_print_row,
			      region_row(5, 1, 0x0a8db24a00000001ULL)), 0);
	assert_int_equal(feed(&p, region_print_row,
			      region_row(5, 2, 0x0000000100000002ULL)), 0);
	assert_int_equal(feed(&p, region_print_row,
			      region_row(5, 3, 0xf54d3c6200000003ULL)), 0);
	out_table_end(&p.o);
	text = capture_text(&p.c);
	assert_non_null(strstr(text, "\n5       x               1        0x0a8db24a00000001 -      -    -  "));
	assert_non_null(strstr(text, "\n5       x               2        0x0000000100000002 -      -    -  "));
	assert_non_null(strstr(text, "\n5       x               3        0xf54d3c6200000003 -      -    -  "));
	capture_close(&p.c);

	/* JSON keeps the number */
	printer_open(&p, JSON);
	region_table_begin(&p.o);
	assert_int_equal(feed(&p, region_print_row,
			      region_row(5, 2, 0x0000000100000002ULL)), 0);
	out_table_end(&p.o);
	assert_string_equal(capture_text(&p.c),
		"[{\"pid\":5,\"comm\":\"x\",\"id\":2,\"handle\":4294967298}]\n");
	capture_close(&p.c);
}

static void expect_key(int (*sort_key)(struct nlmsghdr *, uint64_t[2]),
		       struct nl_msg *msg, int ret, uint64_t k0, uint64_t k1)
{
	uint64_t key[2] = { 1, 1 };

	assert_int_equal(sort_key(nlmsg_hdr(msg), key), ret);
	if (!ret) {
		assert_true(key[0] == k0);
		assert_true(key[1] == k1);
	}
	nlmsg_free(msg);
}

/*
 * What the listings sort by: pid then id (regions), pid then heap (heap
 * "none" is 0, first), pid (processes), device (devices).  A row whose
 * pid the reader may not see sorts last.
 */
static void test_sort_keys(void **state)
{
	struct nl_msg *msg;

	(void)state;
	expect_key(region_sort_key, fake_region_full(), 0, 1234, 0xbeef);
	expect_key(region_sort_key, fake_region_hidden(), 0, 1, 2);
	msg = fake_msg(MEMREG_CMD_REGION_GET);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_ID, 9), 0);
	expect_key(region_sort_key, msg, 0, LISTING_KEY_LAST, 9);
	expect_key(proc_sort_key, fake_proc_full(), 0, 1234, 0);
	expect_key(proc_sort_key, fake_proc_sparse(), 0, 4242, 0);
	expect_key(heap_sort_key, fake_heap(), 0, 1234, 3);
	expect_key(heap_sort_key, fake_heap_none(), 0, 1234, 0);
	expect_key(dev_sort_key, fake_dev(), 0, 0, 0);
	expect_key(dev_sort_key, fake_dev_idle(), 0, 1, 0);

	/* a message the printer would refuse is refused when it arrives */
	msg = fake_msg(MEMREG_CMD_HEAP_GET);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 1), 0);
	expect_key(heap_sort_key, msg, -EBADMSG, 0, 0);
	msg = fake_msg(MEMREG_CMD_REGION_GET);
	assert_int_equal(nla_put(msg, MEMREG_A_PID, 2, "ab"), 0);
	expect_key(region_sort_key, msg, -EBADMSG, 0, 0);
}

const struct CMUnitTest print_tests[] = {
	cmocka_unit_test_setup(test_proc_table, use_fake_proc),
	cmocka_unit_test_setup(test_proc_json, use_fake_proc),
	cmocka_unit_test_setup(test_region_table, use_fake_proc),
	cmocka_unit_test_setup(test_region_json, use_fake_proc),
	cmocka_unit_test_setup(test_region_child, use_fake_proc),
	cmocka_unit_test_setup(test_region_pretty, use_fake_proc),
	cmocka_unit_test_setup(test_empty_listing, use_fake_proc),
	cmocka_unit_test_setup(test_stats_block, use_fake_proc),
	cmocka_unit_test_setup(test_stats_json, use_fake_proc),
	cmocka_unit_test_setup(test_stats_sparse, use_fake_proc),
	cmocka_unit_test_setup(test_limits, use_fake_proc),
	cmocka_unit_test_setup(test_monitor_text, use_fake_proc),
	cmocka_unit_test_setup(test_monitor_json, use_fake_proc),
	cmocka_unit_test_setup(test_monitor_sparse, use_fake_proc),
	cmocka_unit_test_setup(test_hostile_comm, use_fake_proc),
	cmocka_unit_test_setup(test_malformed, use_fake_proc),
	cmocka_unit_test_setup(test_many_rows, use_fake_proc),
	cmocka_unit_test_setup(test_heap_table, use_fake_proc),
	cmocka_unit_test_setup(test_heap_json, use_fake_proc),
	cmocka_unit_test_setup(test_heap_malformed, use_fake_proc),
	cmocka_unit_test_setup(test_dev_table, use_fake_proc),
	cmocka_unit_test_setup(test_dev_json, use_fake_proc),
	cmocka_unit_test_setup(test_dev_usage_malformed, use_fake_proc),
	cmocka_unit_test_setup(test_monitor_heap, use_fake_proc),
	cmocka_unit_test_setup(test_region_handle_width, use_fake_proc),
	cmocka_unit_test_setup(test_sort_keys, use_fake_proc),
};

const size_t n_print_tests = sizeof(print_tests) / sizeof(print_tests[0]);
