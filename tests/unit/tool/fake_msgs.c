// SPDX-License-Identifier: GPL-2.0
/*
 * Hand-built memreg messages.  64-bit attributes are preceded by a
 * MEMREG_A_PAD attribute here and there, as nla_put_u64_64bit() in the
 * kernel does to align them; the tool must step over those.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool_test.h"
#include "fake_msgs.h"

#define PUT(call)	assert_int_equal((call), 0)

const char *fake_proc_root(void)
{
	static char dir[] = "/tmp/memreg-tool-test-XXXXXX";
	static bool made;
	char path[sizeof(dir) + 32];
	FILE *f;

	if (made)
		return dir;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/4242", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/4242/comm", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("from-proc\n", f);
	fclose(f);
	made = true;
	return dir;
}

static void put_pad(struct nl_msg *msg)
{
	PUT(nla_put(msg, MEMREG_A_PAD, 0, NULL));
}

/* A DEV_USAGE nest: {@who = @id, DEV_ALLOC_BYTES = @bytes}. */
static void put_dev_usage(struct nl_msg *msg, int who, uint32_t id,
			  uint64_t bytes)
{
	struct nlattr *nest = nla_nest_start(msg, MEMREG_A_DEV_USAGE);

	assert_non_null(nest);
	PUT(nla_put_u32(msg, who, id));
	if (who == MEMREG_A_PID)
		PUT(nla_put_string(msg, MEMREG_A_COMM, id == 1234 ? "trainer" : "server"));
	put_pad(msg);
	PUT(nla_put_u64(msg, MEMREG_A_DEV_ALLOC_BYTES, bytes));
	PUT(nla_nest_end(msg, nest));
}

struct nl_msg *fake_stats(void)
{
	static const unsigned char id[16] = {
		0x6d, 0x65, 0x6d, 0x72, 0x65, 0x67, 0x00, 0x01,
		0x02, 0x03, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9,
	};
	struct nl_msg *msg = fake_msg(MEMREG_CMD_GET_STATS);

	put_pad(msg);
	PUT(nla_put_u64(msg, MEMREG_A_PROCS, 3));
	PUT(nla_put_u64(msg, MEMREG_A_REGIONS, 12));
	PUT(nla_put_u64(msg, MEMREG_A_HOST_BYTES, 4ULL << 20));
	PUT(nla_put_u64(msg, MEMREG_A_DEV_BYTES, 0));
	PUT(nla_put_u64(msg, MEMREG_A_PINNED_BYTES, (4ULL << 20) + 8192));
	PUT(nla_put_u64(msg, MEMREG_A_REFUSED_REGIONS, 0));
	PUT(nla_put_u64(msg, MEMREG_A_REFUSED_HOST_BYTES, 1));
	PUT(nla_put_u64(msg, MEMREG_A_REFUSED_DEV_BYTES, 0));
	PUT(nla_put_u64(msg, MEMREG_A_REFUSED_MEMLOCK, 2));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_REGIONS, 256));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_HOST_BYTES, 20ULL << 30));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_DEV_BYTES, 50ULL << 30));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_IPC_NAMES, 1024));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_IPC_PIDS, 16384));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_USER_FILES, 5880));
	PUT(nla_put_u64(msg, MEMREG_A_IPC_IMPORT_FAILED, 7));
	PUT(nla_put_u64(msg, MEMREG_A_IPC_IMPORT_THROTTLED, 0));
	PUT(nla_put(msg, MEMREG_A_INSTANCE_ID, sizeof(id), id));
	PUT(nla_put_u32(msg, MEMREG_A_DEVICES, 2));
	return msg;
}

struct nl_msg *fake_proc_full(void)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_PROC_GET);

	PUT(nla_put_u32(msg, MEMREG_A_PID, 1234));
	PUT(nla_put_string(msg, MEMREG_A_COMM, "trainer"));
	PUT(nla_put_u32(msg, MEMREG_A_UID, 1000));
	put_pad(msg);
	PUT(nla_put_u64(msg, MEMREG_A_REGIONS, 3));
	PUT(nla_put_u64(msg, MEMREG_A_HOST_BYTES, 4ULL << 20));
	PUT(nla_put_u64(msg, MEMREG_A_DEV_BYTES, 0));
	PUT(nla_put_u64(msg, MEMREG_A_PINNED_BYTES, 4ULL << 20));
	PUT(nla_put_u64(msg, MEMREG_A_PEAK_REGIONS, 5));
	PUT(nla_put_u64(msg, MEMREG_A_PEAK_HOST_BYTES, 8ULL << 20));
	PUT(nla_put_u64(msg, MEMREG_A_PEAK_DEV_BYTES, 0));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_REGIONS, 256));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_HOST_BYTES, 20ULL << 30));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_DEV_BYTES, 50ULL << 30));
	put_dev_usage(msg, MEMREG_A_DEVICE, 0, 4ULL << 20);
	put_dev_usage(msg, MEMREG_A_DEVICE, 1, 2ULL << 20);
	PUT(nla_put_u32(msg, MEMREG_A_IMPORTS, 3));
	put_pad(msg);
	PUT(nla_put_u64(msg, MEMREG_A_XFER_DESCS, 10));
	PUT(nla_put_u64(msg, MEMREG_A_XFER_READ_BYTES, 1ULL << 20));
	PUT(nla_put_u64(msg, MEMREG_A_XFER_WRITE_BYTES, 2ULL << 20));
	return msg;
}

struct nl_msg *fake_proc_sparse(void)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_PROC_GET);

	/* no COMM (fallback to /proc), no PEAK_*, no PINNED_BYTES */
	PUT(nla_put_u32(msg, MEMREG_A_PID, 4242));
	PUT(nla_put_u32(msg, MEMREG_A_UID, 0));
	PUT(nla_put_u64(msg, MEMREG_A_REGIONS, 100000));
	PUT(nla_put_u64(msg, MEMREG_A_HOST_BYTES, 1536ULL << 30));
	PUT(nla_put_u64(msg, MEMREG_A_DEV_BYTES, 1ULL << 30));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_REGIONS, MEMREG_UNLIMITED));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_HOST_BYTES, MEMREG_UNLIMITED));
	PUT(nla_put_u64(msg, MEMREG_A_MAX_DEV_BYTES, 64ULL << 30));
	return msg;
}

static void put_region_body(struct nl_msg *msg)
{
	PUT(nla_put_u32(msg, MEMREG_A_TYPE, MEMREG_MEM_HOST));
	put_pad(msg);
	PUT(nla_put_u64(msg, MEMREG_A_LEN, 4ULL << 20));
	PUT(nla_put_u64(msg, MEMREG_A_PINNED_PAGES, 1024));
	PUT(nla_put_u64(msg, MEMREG_A_AGE_MS, 185000));
	PUT(nla_put_u32(msg, MEMREG_A_ACCESS, MEMREG_ACCESS_ALL));
}

struct nl_msg *fake_region_full(void)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_REGION_GET);

	PUT(nla_put_u32(msg, MEMREG_A_PID, 1234));
	PUT(nla_put_string(msg, MEMREG_A_COMM, "trainer"));
	PUT(nla_put_u32(msg, MEMREG_A_ID, 0xbeef));
	put_pad(msg);
	PUT(nla_put_u64(msg, MEMREG_A_HANDLE, 0x5eed0000beefULL));
	PUT(nla_put_u64(msg, MEMREG_A_ADDR, 0x7f3a12400000ULL));
	put_region_body(msg);
	PUT(nla_put_u32(msg, MEMREG_A_GRANTS, 1));
	PUT(nla_put_u32(msg, MEMREG_A_IMPORTS, 2));
	return msg;
}

struct nl_msg *fake_region_hidden(void)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_REGION_GET);

	PUT(nla_put_u32(msg, MEMREG_A_PID, 1));
	PUT(nla_put_string(msg, MEMREG_A_COMM, "init"));
	PUT(nla_put_u32(msg, MEMREG_A_ID, 2));
	PUT(nla_put_u32(msg, MEMREG_A_TYPE, MEMREG_MEM_DEVICE));
	PUT(nla_put_u32(msg, MEMREG_A_DEVICE, 1));
	PUT(nla_put_u64(msg, MEMREG_A_LEN, 2ULL << 30));
	PUT(nla_put_u64(msg, MEMREG_A_PINNED_PAGES, 0));
	PUT(nla_put_u64(msg, MEMREG_A_AGE_MS, 90061000));
	PUT(nla_put_u32(msg, MEMREG_A_ACCESS, 0));
	return msg;
}

struct nl_msg *fake_region_child(void)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_REGION_GET);

	PUT(nla_put_u32(msg, MEMREG_A_PID, 1234));
	PUT(nla_put_string(msg, MEMREG_A_COMM, "trainer"));
	PUT(nla_put_u32(msg, MEMREG_A_ID, 0xbef0));
	PUT(nla_put_u32(msg, MEMREG_A_TYPE, MEMREG_MEM_HOST));
	put_pad(msg);
	PUT(nla_put_u64(msg, MEMREG_A_LEN, 200 << 10));
	PUT(nla_put_u64(msg, MEMREG_A_PINNED_PAGES, 0));
	PUT(nla_put_u64(msg, MEMREG_A_AGE_MS, 1000));
	PUT(nla_put_u32(msg, MEMREG_A_ACCESS, MEMREG_ACCESS_REMOTE_READ));
	PUT(nla_put_u32(msg, MEMREG_A_GRANTS, 0));
	PUT(nla_put_u32(msg, MEMREG_A_IMPORTS, 0));
	PUT(nla_put_u32(msg, MEMREG_A_PARENT, 0xbeef));
	return msg;
}

struct nl_msg *fake_event(uint8_t cmd)
{
	struct nl_msg *msg = fake_msg(cmd);

	switch (cmd) {
	case MEMREG_CMD_EVENT_REG_ADDED:
	case MEMREG_CMD_EVENT_REG_REMOVED:
		PUT(nla_put_u32(msg, MEMREG_A_PID, 1234));
		PUT(nla_put_string(msg, MEMREG_A_COMM, "trainer"));
		/* as the kernel sends them: no handle, address, pages, age */
		PUT(nla_put_u32(msg, MEMREG_A_UID, 1000));
		PUT(nla_put_u32(msg, MEMREG_A_ID, 0xbeef));
		PUT(nla_put_u32(msg, MEMREG_A_TYPE, MEMREG_MEM_HOST));
		put_pad(msg);
		PUT(nla_put_u64(msg, MEMREG_A_LEN, 4ULL << 20));
		break;
	case MEMREG_CMD_EVENT_LIMIT_REFUSED:
		PUT(nla_put_u32(msg, MEMREG_A_PID, 1234));
		PUT(nla_put_string(msg, MEMREG_A_COMM, "trainer"));
		PUT(nla_put_u32(msg, MEMREG_A_REASON,
				MEMREG_REFUSED_HOST_BYTES));
		PUT(nla_put_u64(msg, MEMREG_A_LEN, 1ULL << 30));
		PUT(nla_put_u32(msg, MEMREG_A_TYPE, MEMREG_MEM_HOST));
		break;
	case MEMREG_CMD_EVENT_HEAP: {
		/* as the kernel sends them: no address */
		struct nlattr *nest;

		PUT(nla_put_u32(msg, MEMREG_A_PID, 1234));
		PUT(nla_put_string(msg, MEMREG_A_COMM, "trainer"));
		PUT(nla_put_u32(msg, MEMREG_A_UID, 1000));
		nest = nla_nest_start(msg, MEMREG_A_HEAP);
		assert_non_null(nest);
		PUT(nla_put_u32(msg, MEMREG_HEAP_A_EVENT, MEMREG_HEAP_EV_DROPPED));
		PUT(nla_put_u32(msg, MEMREG_HEAP_A_ID, 3));
		PUT(nla_put_string(msg, MEMREG_HEAP_A_DOMAIN, "torch_npu"));
		PUT(nla_put_u32(msg, MEMREG_HEAP_A_DEVICE, 1));
		PUT(nla_put_u64(msg, MEMREG_HEAP_A_SIZE, 64ULL << 20));
		PUT(nla_put_u64(msg, MEMREG_HEAP_A_COUNT, 4));
		PUT(nla_put_u64(msg, MEMREG_HEAP_A_BYTES, 4096));
		PUT(nla_nest_end(msg, nest));
		break;
	}
	default:
		PUT(nla_put_u32(msg, MEMREG_A_PID, 1234));
		PUT(nla_put_string(msg, MEMREG_A_COMM, "trainer"));
		break;
	}
	return msg;
}

/* A MEMREG_A_HEAP nest as the heap dump sends it. */
static void put_heap(struct nl_msg *msg, uint32_t id)
{
	struct nlattr *nest = nla_nest_start(msg, MEMREG_A_HEAP);

	assert_non_null(nest);
	PUT(nla_put_u32(msg, MEMREG_HEAP_A_ID, id));
	PUT(nla_put(msg, MEMREG_HEAP_A_PAD, 0, NULL));
	PUT(nla_put_u64(msg, MEMREG_HEAP_A_REGIONS, id ? 3 : 1));
	PUT(nla_put_u64(msg, MEMREG_HEAP_A_REGION_BYTES, id ? 8704 : 4096));
	PUT(nla_put_u64(msg, MEMREG_HEAP_A_PEAK_REGIONS, id ? 7 : 1));
	PUT(nla_put_u64(msg, MEMREG_HEAP_A_PEAK_BYTES, id ? 1ULL << 20 : 4096));
	PUT(nla_put_u64(msg, MEMREG_HEAP_A_OUT_OF_HEAP, id ? 0 : 1));
	PUT(nla_put_u64(msg, MEMREG_HEAP_A_UNKNOWN, 1));
	PUT(nla_put_u64(msg, MEMREG_HEAP_A_DUPLICATE, id ? 2 : 0));
	PUT(nla_put_u64(msg, MEMREG_HEAP_A_REFUSED, 0));
	PUT(nla_put_u64(msg, MEMREG_HEAP_A_DROPPED, id ? 0 : 4));
	PUT(nla_put_u64(msg, MEMREG_HEAP_A_AGE_MS, 1500));
	if (id) {
		PUT(nla_put_string(msg, MEMREG_HEAP_A_DOMAIN, "torch_npu"));
		PUT(nla_put_u32(msg, MEMREG_HEAP_A_DEVICE, 1));
		PUT(nla_put_u64(msg, MEMREG_HEAP_A_SIZE, 1ULL << 20));
		PUT(nla_put_u32(msg, MEMREG_HEAP_A_UTIL, 830));
		PUT(nla_put_u64(msg, MEMREG_HEAP_A_ADDR, 0x7f3a12400000ULL));
	}
	PUT(nla_nest_end(msg, nest));
}

struct nl_msg *fake_heap(void)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_HEAP_GET);

	PUT(nla_put_u32(msg, MEMREG_A_PID, 1234));
	PUT(nla_put_string(msg, MEMREG_A_COMM, "trainer"));
	PUT(nla_put_u32(msg, MEMREG_A_UID, 1000));
	put_heap(msg, 3);
	return msg;
}

struct nl_msg *fake_heap_none(void)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_HEAP_GET);

	PUT(nla_put_u32(msg, MEMREG_A_PID, 1234));
	PUT(nla_put_string(msg, MEMREG_A_COMM, "trainer"));
	PUT(nla_put_u32(msg, MEMREG_A_UID, 1000));
	put_heap(msg, 0);
	return msg;
}

struct nl_msg *fake_dev(void)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_DEV_GET);

	PUT(nla_put_u32(msg, MEMREG_A_DEVICE, 0));
	put_pad(msg);
	PUT(nla_put_u64(msg, MEMREG_A_CAPACITY, 1ULL << 30));
	PUT(nla_put_u64(msg, MEMREG_A_USED_BYTES, 70ULL << 20));
	PUT(nla_put_u64(msg, MEMREG_A_HUGE_BYTES, 64ULL << 20));
	PUT(nla_put_u64(msg, MEMREG_A_NORMAL_BYTES, 6ULL << 20));
	PUT(nla_put_u64(msg, MEMREG_A_RAM_RESERVE, 128ULL << 20));
	PUT(nla_put_u64(msg, MEMREG_A_RAM_AVAILABLE, 700ULL << 20));
	put_dev_usage(msg, MEMREG_A_PID, 1234, 68ULL << 20);
	put_dev_usage(msg, MEMREG_A_PID, 77, 2ULL << 20);
	return msg;
}

struct nl_msg *fake_dev_idle(void)
{
	struct nl_msg *msg = fake_msg(MEMREG_CMD_DEV_GET);

	PUT(nla_put_u32(msg, MEMREG_A_DEVICE, 1));
	PUT(nla_put_u64(msg, MEMREG_A_CAPACITY, 1ULL << 30));
	PUT(nla_put_u64(msg, MEMREG_A_USED_BYTES, 0));
	PUT(nla_put_u64(msg, MEMREG_A_HUGE_BYTES, 0));
	PUT(nla_put_u64(msg, MEMREG_A_NORMAL_BYTES, 0));
	return msg;
}
