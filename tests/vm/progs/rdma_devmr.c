// SPDX-License-Identifier: GPL-2.0
/*
 * memreg device memory in an RDMA memory region, on the kernel's own
 * terms: what ADXL over RDMA relies on, without ADXL.
 *
 *   - ibv_reg_mr() of a device mapping pins its pages (normal and 2 MiB
 *     allocations), and DEV_FREE is refused while it does (EBUSY);
 *     deregistering unpins every page, and then the free goes through;
 *   - the NIC reads and writes device memory: RDMA READ and WRITE between
 *     two queue pairs of one device (rxe loops back), byte-checked on both
 *     sides through the CPU mappings;
 *   - a process killed (-9) holding such a region gives every page and
 *     every byte of device capacity back;
 *   - a mapping of an export (a dma-buf, revocable) cannot be pinned.
 *
 * Runs where an rxe device is up (tests/vm/cases/rdma_pair.sh), as root:
 * the pin counters are exact only after /proc/sys/vm/stat_refresh.
 *   MEMREG_TEST_RDMA_DEV  the device (rxe0)
 *   MEMREG_TEST_GID       the GID index to loop back on (RoCE v2, IPv4)
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <infiniband/verbs.h>
#include "memtest.h"

#define MiB (1ULL << 20)
#define PAGE 4096ULL
#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
		IBV_ACCESS_REMOTE_WRITE)

struct devmem {
	uint64_t handle;
	uint64_t len;
	char *map;
};

struct verbs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
};

static struct verbs v;

static int dev_alloc(int fd, uint32_t policy, uint64_t len, struct devmem *m)
{
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .device = 0, .policy = policy, .len = len,
	};
	void *p;

	if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a))
		return -errno;
	p = mmap(NULL, a.alloc_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 a.mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	m->handle = a.handle;
	m->len = a.alloc_len;
	m->map = p;
	return 0;
}

static int dev_free(int fd, uint64_t handle)
{
	struct memreg_dev_free f = { .size = sizeof(f), .handle = handle };

	return ioctl(fd, MEMREG_IOC_DEV_FREE, &f) ? -errno : 0;
}

/* Bytes of device 0 in use, by every process. */
static uint64_t dev_used(void)
{
	struct memreg_dev_info i = { .size = sizeof(i), .device = 0 };
	int fd = memtest_open();

	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_INFO, &i), 0);
	close(fd);
	return i.used;
}

static struct ibv_context *open_device(void)
{
	const char *want = getenv("MEMREG_TEST_RDMA_DEV");
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), want ? want : "rxe0"))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

static int setup(void **state)
{
	(void)state;
	v.ctx = open_device();
	if (!v.ctx) {
		fprintf(stderr, "no RDMA device %s\n",
			getenv("MEMREG_TEST_RDMA_DEV") ?: "rxe0");
		return -1;
	}
	v.pd = ibv_alloc_pd(v.ctx);
	return v.pd ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ibv_dealloc_pd(v.pd);
	ibv_close_device(v.ctx);
	return 0;
}

/*
 * An MR over device memory pins each of its pages once, and holds the
 * allocation: DEV_FREE says EBUSY until it is deregistered.
 */
static void mr_pins_and_holds(uint32_t policy)
{
	long long held = memtest_pins_held();
	uint64_t used = dev_used();
	int fd = memtest_open();
	struct devmem m;
	struct ibv_mr *mr;

	assert_int_equal(dev_alloc(fd, policy, 4 * MiB, &m), 0);
	memtest_fill(m.map, m.len, 7);
	mr = ibv_reg_mr(v.pd, m.map, m.len, ACCESS);
	if (!mr)
		fail_msg("ibv_reg_mr of device memory: %s", strerror(errno));
	assert_int_equal(memtest_pins_held(), held + (long long)(m.len / PAGE));
	assert_int_equal(dev_free(fd, m.handle), -EBUSY);
	/* refused: still allocated, still mapped, bytes unchanged */
	assert_true(memtest_same(m.map, m.len, 7));
	assert_int_equal(dev_used(), used + m.len);

	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(memtest_pins_held(), held);
	assert_int_equal(dev_free(fd, m.handle), 0);
	assert_int_equal(munmap(m.map, m.len), 0);
	assert_int_equal(dev_used(), used);
	close(fd);
}

static void test_mr_normal(void **state)
{
	(void)state;
	mr_pins_and_holds(MEMREG_DEV_NORMAL_ONLY);
}

static void test_mr_huge(void **state)
{
	(void)state;
	/* 2 MiB chunks or nothing: no quiet fall back to 4 KiB pages */
	mr_pins_and_holds(MEMREG_DEV_HUGE_ONLY);
}

/* Two RC queue pairs of one device, connected to each other. */
struct loop {
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
};

static void qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int err = ibv_modify_qp(qp, a, mask);

	if (err)
		fail_msg("ibv_modify_qp (state %d): %s", a->qp_state,
			 strerror(err));
}

static void loop_connect(struct loop *l)
{
	const char *g = getenv("MEMREG_TEST_GID");
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	union ibv_gid gid;
	int gidx = g ? atoi(g) : 0, i;

	assert_int_equal(ibv_query_gid(v.ctx, 1, gidx, &gid), 0);
	l->cq = ibv_create_cq(v.ctx, 32, NULL, NULL, 0);
	assert_non_null(l->cq);
	init.send_cq = l->cq;
	init.recv_cq = l->cq;
	for (i = 0; i < 2; i++) {
		l->qp[i] = ibv_create_qp(v.pd, &init);
		assert_non_null(l->qp[i]);
	}
	for (i = 0; i < 2; i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT, .port_num = 1,
			.qp_access_flags = ACCESS,
		};

		qp_modify(l->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = l->qp[!i]->qp_num;
		a.max_dest_rd_atomic = 16;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = gidx;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		qp_modify(l->qp[i], &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 16;
		qp_modify(l->qp[i], &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC);
	}
}

static void loop_close(struct loop *l)
{
	assert_int_equal(ibv_destroy_qp(l->qp[0]), 0);
	assert_int_equal(ibv_destroy_qp(l->qp[1]), 0);
	assert_int_equal(ibv_destroy_cq(l->cq), 0);
}

/* One READ or WRITE of @len bytes from queue pair 0, waited for (30 s). */
static void loop_xfer(struct loop *l, enum ibv_wr_opcode op,
		      struct ibv_mr *local, struct ibv_mr *remote,
		      uint64_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)local->addr, .length = len,
		.lkey = local->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)remote->addr,
			     .rkey = remote->rkey },
	}, *bad;
	struct ibv_wc wc;
	int n, tries = 0;

	assert_int_equal(ibv_post_send(l->qp[0], &wr, &bad), 0);
	while (!(n = ibv_poll_cq(l->cq, 1, &wc))) {
		if (++tries > 30000)
			fail_msg("%s of %llu bytes: no completion in 30 s",
				 op == IBV_WR_RDMA_READ ? "READ" : "WRITE",
				 (unsigned long long)len);
		usleep(1000);
	}
	assert_int_equal(n, 1);
	if (wc.status != IBV_WC_SUCCESS)
		fail_msg("%s: %s", op == IBV_WR_RDMA_READ ? "READ" : "WRITE",
			 ibv_wc_status_str(wc.status));
}

/*
 * The NIC reads device memory into host memory and writes host memory
 * into device memory; the CPU sees the same bytes on both sides.
 */
static void test_read_write_device_memory(void **state)
{
	const uint64_t len = 1 * MiB;
	long long held = memtest_pins_held();
	int fd = memtest_open();
	struct ibv_mr *dmr, *hmr;
	struct devmem m;
	struct loop l;
	char *host;

	(void)state;
	assert_int_equal(dev_alloc(fd, MEMREG_DEV_NORMAL_ONLY, len, &m), 0);
	host = memtest_map(MEMTEST_ANON, len);
	assert_non_null(host);
	dmr = ibv_reg_mr(v.pd, m.map, len, ACCESS);
	hmr = ibv_reg_mr(v.pd, host, len, ACCESS);
	assert_non_null(dmr);
	assert_non_null(hmr);
	loop_connect(&l);

	/* READ: device (the remote side) into host */
	memtest_fill(m.map, len, 11);
	memset(host, 0, len);
	loop_xfer(&l, IBV_WR_RDMA_READ, hmr, dmr, len);
	assert_true(memtest_same(host, len, 11));
	/* WRITE: host into device */
	memtest_fill(host, len, 12);
	loop_xfer(&l, IBV_WR_RDMA_WRITE, hmr, dmr, len);
	assert_true(memtest_same(m.map, len, 12));
	/* and device memory as the local side: READ host into device */
	memtest_fill(host, len, 13);
	loop_xfer(&l, IBV_WR_RDMA_READ, dmr, hmr, len);
	assert_true(memtest_same(m.map, len, 13));

	loop_close(&l);
	assert_int_equal(ibv_dereg_mr(hmr), 0);
	assert_int_equal(ibv_dereg_mr(dmr), 0);
	assert_int_equal(memtest_pins_held(), held);
	assert_int_equal(dev_free(fd, m.handle), 0);
	munmap(m.map, len);
	memtest_unmap(host, len);
	close(fd);
}

/*
 * A process killed while its MR pins device memory: the pins and the
 * device's capacity all come back.
 */
static void test_kill9_holder(void **state)
{
	long long held = memtest_pins_held();
	uint64_t used = dev_used();
	int ready[2], status;
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct ibv_context *ctx = open_device();
		struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
		int fd = memtest_open();
		struct devmem m;

		if (!pd || dev_alloc(fd, MEMREG_DEV_HUGE_FIRST, 8 * MiB, &m) ||
		    !ibv_reg_mr(pd, m.map, m.len, ACCESS))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	assert_true(memtest_pins_held() >= held + (long long)(8 * MiB / PAGE));
	assert_int_equal(dev_used(), used + 8 * MiB);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(memtest_pins_held(), held);
	assert_int_equal(dev_used(), used);
}

/*
 * A mapping of a dma-buf export is revocable (freeing the allocation
 * takes it away), so it stays unpinnable: the MR is refused.
 */
static void test_export_mapping_not_pinnable(void **state)
{
	long long held = memtest_pins_held();
	int fd = memtest_open(), dfd;
	struct ibv_mr *mr;
	void *p;

	(void)state;
	dfd = memtest_dmabuf(fd, MiB);
	assert_true(dfd >= 0);
	p = mmap(NULL, MiB, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	assert_true(p != MAP_FAILED);
	memset(p, 1, PAGE);
	mr = ibv_reg_mr(v.pd, p, MiB, ACCESS);
	if (mr) {
		ibv_dereg_mr(mr);
		fail_msg("an export's mapping was pinned into an MR");
	}
	assert_int_equal(errno, EFAULT);
	assert_int_equal(memtest_pins_held(), held);
	munmap(p, MiB);
	close(dfd);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mr_normal),
		cmocka_unit_test(test_mr_huge),
		cmocka_unit_test(test_read_write_device_memory),
		cmocka_unit_test(test_kill9_holder),
		cmocka_unit_test(test_export_mapping_not_pinnable),
	};

	return cmocka_run_group_tests_name("rdma_devmr", tests, setup,
					   teardown);
}
