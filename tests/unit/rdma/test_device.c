// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which device, port and GID open() takes, and what it says when there
 * is none it can use: the first line an operator reads when ADXL over
 * RDMA does not come up.  describe() is compared whole, as a log shows
 * it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"

#define SOFT_ROCE "soft-RoCE: modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0"

/* open() must fail with @want, saying @msg; nothing stays open. */
static void open_fails(int want, const char *msg)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_ctx *r = NULL;

	assert_int_equal(dev_open(&r, err), want);
	assert_string_equal(err, msg);
	assert_int_equal(fake_live_objects(NULL, 0), 0);
}

/* open() must work, and describe() say @desc. */
static void open_describes(const char *desc)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_ctx *r = NULL;

	assert_ok(dev_open(&r, err), err);
	assert_string_equal(rd->describe(r), desc);
	rd->close(r);
}

static void device_none(void **state)
{
	(void)state;
	fake_devices_clear();
	open_fails(-ENODEV, "no RDMA device (" SOFT_ROCE ")");
}

static void device_no_driver(void **state)
{
	(void)state;
	fake_no_driver(true);
	open_fails(-ENODEV, "no RDMA device: ibv_get_device_list: Function not implemented (no RDMA driver loaded; " SOFT_ROCE ")");
}

static void device_port_down(void **state)
{
	(void)state;
	fake_device(0)->ports[0].state = IBV_PORT_DOWN;
	open_fails(-ENODEV, "no RDMA device with an active port (fake0 port 1: down)");
}

/* The first fit device is taken; when none is, each says why not. */
static void device_first_fit(void **state)
{
	struct fake_device *roce;

	(void)state;
	fake_devices_clear();
	fake_device_add("iwarp0")->transport = IBV_TRANSPORT_IWARP;
	fake_device_add("down0")->ports[0].state = IBV_PORT_DOWN;
	roce = fake_device_add("roce0");
	fake_device_add("roce1");
	open_describes("roce0 port 1, RoCE v2, GID ::ffff:10.9.0.3 (index 3), MTU 1024, a memory window per peer");

	roce->ports[0].state = IBV_PORT_INIT;
	fake_device(3)->max_cqe = 1;
	open_fails(-ENODEV, "no RDMA device with an active port (iwarp0: not InfiniBand or RoCE (iWARP?); down0 port 1: down; roce0 port 1: init; roce1: max_qp_wr 16384, max_cqe 1)");
}

static void device_first_active_port(void **state)
{
	struct fake_device *d = fake_device(0);

	(void)state;
	d->n_ports = 2;
	d->ports[0].state = IBV_PORT_DOWN;
	open_describes("fake0 port 2, RoCE v2, GID ::ffff:10.9.0.1 (index 3), MTU 1024, a memory window per peer");
}

static void device_by_name(void **state)
{
	(void)state;
	fake_device_add("fake1");
	setenv("MEMREG_ADXL_RDMA_DEVICE", "fake1", 1);
	open_describes("fake1 port 1, RoCE v2, GID ::ffff:10.9.0.2 (index 3), MTU 1024, a memory window per peer");
}

static void device_by_name_and_port(void **state)
{
	struct fake_device *d;

	(void)state;
	d = fake_device_add("fake1");
	d->n_ports = 2;
	d->ports[1].mtu = IBV_MTU_4096;
	setenv("MEMREG_ADXL_RDMA_DEVICE", "fake1:2", 1);
	open_describes("fake1 port 2, RoCE v2, GID ::ffff:10.9.0.2 (index 3), MTU 4096, a memory window per peer");

	/* The port asked for, or none: not another one that is up. */
	d->ports[1].state = IBV_PORT_DOWN;
	open_fails(-ENODEV, "no RDMA device with an active port (fake1 port 2: down)");
	setenv("MEMREG_ADXL_RDMA_DEVICE", "fake1:3", 1);
	open_fails(-ENODEV, "no RDMA device with an active port (fake1 has no port 3 (it has 2))");
}

static void device_unknown_name(void **state)
{
	(void)state;
	fake_device_add("fake1");
	setenv("MEMREG_ADXL_RDMA_DEVICE", "rxe0", 1);
	open_fails(-ENODEV, "MEMREG_ADXL_RDMA_DEVICE=rxe0: no such device (there are: fake0, fake1)");
}

static void device_bad_spec(void **state)
{
	static const char *const bad[] = {
		"fake0:", ":1", "fake0:x", "fake0:0", "fake0:256", "fake0:1x",
		"fake0:-1",
		/* longer than any device name can be */
		"a123456789b123456789c123456789d123456789e123456789f123456789g123",
	};
	char msg[ADXL_PLUGIN_ERR_LEN * 2];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("MEMREG_ADXL_RDMA_DEVICE", bad[i], 1);
		snprintf(msg, sizeof(msg), "MEMREG_ADXL_RDMA_DEVICE=%s: want a device name, or name:port (rxe0, mlx5_0:1)",
			 bad[i]);
		open_fails(-EINVAL, msg);
	}
}

/*
 * Unless told, the RoCE v2 GID of the IPv4 address (index 3 of fake0's
 * table), and the queue pairs speak from it.
 */
static void gid_default(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_rdma_qpinfo mine;
	struct adxl_plugin_ep *q = NULL;
	struct adxl_plugin_ctx *r = NULL;
	uint8_t want[16];

	(void)state;
	assert_ok(dev_open(&r, err), err);
	assert_string_equal(rd->describe(r), "fake0 port 1, RoCE v2, GID ::ffff:10.9.0.1 (index 3), MTU 1024, a memory window per peer");
	assert_ok(qp_create(r, true, NULL, &mine, &q, err), err);
	assert_int_equal(inet_pton(AF_INET6, "::ffff:10.9.0.1", want), 1);
	assert_memory_equal(mine.gid, want, sizeof(want));
	assert_int_equal(mine.mtu, IBV_MTU_1024);
	assert_int_equal(mine.lid, 0);
	assert_true(mine.psn <= 0xffffff);
	rd->ep_destroy(q);
	rd->close(r);
}

static void gid_index_env(void **state)
{
	(void)state;
	setenv("MEMREG_ADXL_RDMA_GID_INDEX", "2", 1);
	open_describes("fake0 port 1, RoCE v1, GID ::ffff:10.9.0.1 (index 2), MTU 1024, a memory window per peer");
	setenv("MEMREG_ADXL_RDMA_GID_INDEX", "1", 1);
	open_describes("fake0 port 1, RoCE v2, GID fe80::1 (index 1), MTU 1024, a memory window per peer");
	setenv("MEMREG_ADXL_RDMA_GID_INDEX", "0", 1);
	open_describes("fake0 port 1, RoCE v1, GID fe80::1 (index 0), MTU 1024, a memory window per peer");
}

static void gid_index_bad(void **state)
{
	/* unused, past the table, and not an index */
	static const char *const bad[] = { "4", "5", "-1", "x", "3x", "" };
	char msg[ADXL_PLUGIN_ERR_LEN];
	size_t i;

	(void)state;
	/* "" is unset: the default */
	for (i = 0; i + 1 < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("MEMREG_ADXL_RDMA_GID_INDEX", bad[i], 1);
		snprintf(msg, sizeof(msg), "MEMREG_ADXL_RDMA_GID_INDEX=%s: fake0 port 1 has no GID there (its table has 5 entries; show_gids lists them)",
			 bad[i]);
		open_fails(-EINVAL, msg);
	}
	setenv("MEMREG_ADXL_RDMA_GID_INDEX", "", 1);
	open_describes("fake0 port 1, RoCE v2, GID ::ffff:10.9.0.1 (index 3), MTU 1024, a memory window per peer");
}

/*
 * A host with two addresses on the port: a queue pair takes the RoCE v2
 * GID of the address the peer reaches us at, not the device's first;
 * an address the table lacks, or MEMREG_ADXL_RDMA_GID_INDEX, gives the
 * device's.  The table is read at each queue pair: an address added
 * after the device was opened is found.
 */
static void gid_per_address(void **state)
{
	struct fake_port *p = &fake_device(0)->ports[0];
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	static const uint8_t second[4] = { 10, 8, 0, 1 };
	static const uint8_t other[4] = { 192, 168, 0, 1 };
	static const uint8_t later[4] = { 10, 7, 0, 1 };
	struct adxl_rdma_qpinfo mine;
	struct adxl_plugin_ep *q = NULL;
	struct adxl_plugin_ctx *r = NULL;
	uint8_t want[16], dev[16], added[16];

	(void)state;
	p->gids[4] = (struct fake_gid){ "::ffff:10.8.0.1", "IB/RoCE v1" };
	p->gids[5] = (struct fake_gid){ "::ffff:10.8.0.1", "RoCE v2" };
	/* a table of 8 (a NIC's size never changes), 6 and 7 unused */
	p->n_gids = 8;
	assert_int_equal(inet_pton(AF_INET6, "::ffff:10.8.0.1", want), 1);
	assert_int_equal(inet_pton(AF_INET6, "::ffff:10.9.0.1", dev), 1);
	assert_ok(dev_open(&r, err), err);
	assert_ok(qp_create(r, true, second, &mine, &q, err), err);
	assert_memory_equal(mine.gid, want, 16);
	rd->ep_destroy(q);
	assert_ok(qp_create(r, true, other, &mine, &q, err), err);
	assert_memory_equal(mine.gid, dev, 16);
	rd->ep_destroy(q);
	/* an address that came up after open, as RoCE v2 at index 7 */
	p->gids[7] = (struct fake_gid){ "::ffff:10.7.0.1", "RoCE v2" };
	assert_int_equal(inet_pton(AF_INET6, "::ffff:10.7.0.1", added), 1);
	assert_ok(qp_create(r, true, later, &mine, &q, err), err);
	assert_memory_equal(mine.gid, added, 16);
	rd->ep_destroy(q);
	rd->close(r);

	setenv("MEMREG_ADXL_RDMA_GID_INDEX", "3", 1);
	assert_ok(dev_open(&r, err), err);
	assert_ok(qp_create(r, true, second, &mine, &q, err), err);
	assert_memory_equal(mine.gid, dev, 16);
	rd->ep_destroy(q);
	rd->close(r);
	unsetenv("MEMREG_ADXL_RDMA_GID_INDEX");
}

/* No RoCE v2 GID of an IPv4 address: index 0, whatever its type. */
static void gid_fallback(void **state)
{
	struct fake_port *p = &fake_device(0)->ports[0];

	(void)state;
	/* IPv6 only */
	p->gids[2].addr = p->gids[3].addr = NULL;
	open_describes("fake0 port 1, RoCE v1, GID fe80::1 (index 0), MTU 1024, a memory window per peer");
	/* IPv4 as RoCE v1 only */
	p->gids[2].addr = "::ffff:10.9.0.1";
	open_describes("fake0 port 1, RoCE v1, GID fe80::1 (index 0), MTU 1024, a memory window per peer");
	/*
	 * No GID types at all (an old kernel): libibverbs takes every entry
	 * for RoCE v1 on Ethernet, so no RoCE v2 either.
	 */
	p->gids[3].addr = "::ffff:10.9.0.1";
	p->gids[0].type = p->gids[1].type = NULL;
	p->gids[2].type = p->gids[3].type = NULL;
	open_describes("fake0 port 1, RoCE v1, GID fe80::1 (index 0), MTU 1024, a memory window per peer");
}

static void infiniband(void **state)
{
	struct fake_port *p = &fake_device(0)->ports[0];

	(void)state;
	p->link_layer = IBV_LINK_LAYER_INFINIBAND;
	p->lid = 7;
	p->mtu = IBV_MTU_4096;
	open_describes("fake0 port 1, InfiniBand, LID 7, GID fe80::1 (index 0), MTU 4096, a memory window per peer");
}

static void open_failures(void **state)
{
	(void)state;
	fake_fail(FAKE_OPEN_DEVICE, EACCES, 0, 1);
	open_fails(-ENODEV, "no RDMA device with an active port (fake0: ibv_open_device: Permission denied)");
	fake_fail(FAKE_ALLOC_PD, ENOMEM, 0, 1);
	open_fails(-ENOMEM, "fake0: ibv_alloc_pd: Cannot allocate memory");
	fake_fail(FAKE_ALLOC_PD, EPERM, 0, 1);
	open_fails(-EIO, "fake0: ibv_alloc_pd: Operation not permitted");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fresh, all_freed)

int test_device_group(void)
{
	const struct CMUnitTest tests[] = {
		T(device_none),
		T(device_no_driver),
		T(device_port_down),
		T(device_first_fit),
		T(device_first_active_port),
		T(device_by_name),
		T(device_by_name_and_port),
		T(device_unknown_name),
		T(device_bad_spec),
		T(gid_default),
		T(gid_index_env),
		T(gid_index_bad),
		T(gid_per_address),
		T(gid_fallback),
		T(infiniband),
		T(open_failures),
	};

	return cmocka_run_group_tests_name("device", tests, NULL, NULL);
}
