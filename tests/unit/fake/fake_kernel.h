/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One stand-in for memreg.ko behind lib/core's ioctl hook, shared by the
 * host unit tests of every layer (core, acl, adxl, mstx).  It checks each
 * struct the way the UAPI headers say the module does, keeps the tables
 * the module keeps (registrations, device allocations backed by a memfd
 * the library can mmap, grants, mstx heaps), copies the bytes of a
 * TRANSFER itself, and records what it is handed, so that a test can look
 * at the exact requests a library made.
 *
 * One fake and not one per suite: a rule of the module written once is
 * the same rule for every layer, and a layer that starts to use another
 * command (acl registering host memory, adxl device memory) finds it
 * already there.
 */
#ifndef FAKE_KERNEL_H
#define FAKE_KERNEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/memreg.h>	/* and linux/memreg_mstx.h */

enum fake_cmd {
	FAKE_INFO, FAKE_REGISTER, FAKE_UNREGISTER, FAKE_QUERY,
	FAKE_DEV_ALLOC, FAKE_DEV_FREE, FAKE_DEV_INFO,
	FAKE_GRANT, FAKE_REVOKE, FAKE_IMPORT, FAKE_UNIMPORT, FAKE_TRANSFER,
	FAKE_MSTX,
	FAKE_DEV_EXPORT, FAKE_IPC_EXPORT, FAKE_IPC_ALLOW, FAKE_IPC_IMPORT,
	FAKE_IPC_CLOSE, FAKE_HEADROOM, FAKE_REG_EXPORT,
	FAKE_NR_CMDS
};

/* The emulated devices INFO reports, each with this much memory. */
#define FAKE_DEVICES	2
#define FAKE_CAPACITY	(64ULL << 20)

/* MSTX operations recorded one by one; later ones are counted only. */
#define FAKE_MSTX_MAX_OPS	(1u << 20)

struct fake_call {
	unsigned long request;
	int fd;
	unsigned char bytes[128];	/* the struct as the library passed it */
};

struct fake_region {
	struct memreg_region r;
	int live;
};

struct fake_kernel {
	pthread_mutex_t lock;

	/* What INFO answers (size and usage fields are filled in). */
	struct memreg_info info;

	/*
	 * Per command: the next call fails with this errno (0: none), once.
	 * A batch (TRANSFER, MSTX) is checked first and then stops at its
	 * operation fail_at[cmd], with done = fail_at; a batch shorter than
	 * that leaves the errno for the next one.
	 */
	int fail_errno[FAKE_NR_CMDS];
	uint32_t fail_at[FAKE_NR_CMDS];

	/* Calls per command, refused ones too; and the last of each. */
	unsigned long calls[FAKE_NR_CMDS];
	struct fake_call last[FAKE_NR_CMDS];
	/* Every QUERY call, in order, up to the room here. */
	struct fake_call queries[16];
	unsigned int nr_queries;

	/* Registrations, in order of creation; handles from fake_handle(). */
	struct fake_region *regions;
	size_t nr_regions, cap_regions;
	uint64_t live;
	uint64_t host_registered;	/* bytes of HOST registrations made */

	/* QUERY: the most entries one call returns (0: as many as fit). */
	unsigned int query_batch;
	/*
	 * Per-thread mode: every thread gets a module of its own (its own
	 * table and counters) for INFO, REGISTER, UNREGISTER and QUERY, and
	 * the fake takes no lock.  Without the fake's mutex ordering every
	 * call, a race detector sees any state lib/core shares between
	 * threads.  Set before threads start.
	 */
	int per_thread;

	/* QUERY misbehaviour, to test that the library does not trust it. */
	int query_overflow;		/* claim one entry more than room */
	int query_stuck;		/* never move the cursor */
	int query_zero_cursor_at_end;	/* store 0 with the last batch */

	/*
	 * Emulated device memory.  HUGE_FIRST above MEMREG_DEV_HUGE_MIN and
	 * HUGE_ONLY get 2 MiB chunks, unless no_huge says none are left.
	 */
	struct {
		uint64_t used[FAKE_DEVICES];
		uint64_t huge[FAKE_DEVICES];
		/* The last DEV_ALLOC, as the library sent it. */
		struct memreg_dev_alloc last_alloc;
		/* No 2 MiB-contiguous memory left: HUGE_ONLY fails. */
		int no_huge;
		int live;	/* allocations not freed */
	} dev;

	/*
	 * TRANSFER: the count and the first descriptor of the last call;
	 * and, if a test sets @seen, every call's descriptors are shown to
	 * it (under the fake's lock) before they are copied.
	 */
	struct {
		uint32_t count;
		struct memreg_xfer_desc first;
		void (*seen)(const struct memreg_xfer_desc *d, uint32_t n,
			     void *arg);
		void *arg;
		/* a descriptor naming this import fails with @fail_errno */
		uint64_t fail_remote;
		int fail_errno;
	} xfer;

	/*
	 * dma-bufs.  A dma-buf of the fake is the memfd opened again (a real
	 * fd the library can close) with the range of it the buffer is; the
	 * library's mmap of it goes through the hook, which maps that range.
	 * IPC names check the importer's pid against what ALLOW named: the
	 * "caller" is @pid, getpid() unless a test plays another process.
	 */
	struct {
		int32_t pid;		/* the pid IPC_EXPORT/IMPORT see */
		int live_names;		/* names not closed */
		int bufs;		/* dma-bufs made (exports, imports) */
		int maps;		/* mappings the hook made */
		uint32_t last_allow_count;
		int32_t last_allow_pids[8];
	} ipc;

	/*
	 * HEADROOM answers as the module does for a process alone in its
	 * cgroup: the process's limits and each device's free capacity,
	 * and, if a test sets one, the device limit of the process's cgroup
	 * (0: none), of which other processes of the cgroup hold
	 * cg_dev_others bytes besides this process's allocations.
	 */
	struct {
		uint64_t cg_dev_max[FAKE_DEVICES];
		uint64_t cg_dev_others[FAKE_DEVICES];
	} headroom;

	/*
	 * MSTX: every operation applied, in order, and the order of each
	 * heap's operations checked (a region deleted before it was added
	 * is counted).  REGION_ADD_DEL is recorded as it came and applied as
	 * the REGION_ADD and REGION_DEL it stands for.
	 */
	struct {
		struct memreg_mstx_op *ops;	/* up to FAKE_MSTX_MAX_OPS */
		unsigned long nops;		/* operations applied */
		char domains[64][64];	/* HEAP_ADD's domain: index % 64 */
		unsigned long early_dels;	/* REGION_DEL before its ADD */
		unsigned long live;		/* regions live, all heaps */
		unsigned long add_dels;		/* REGION_ADD_DEL ops */
	} mstx;
};

extern struct fake_kernel fake;

/*
 * Forget everything, install the fake as lib/core's ioctl and point
 * MEMREG_DEVICE at the fake's device memory (a memfd, so that the mmap(2)
 * the library makes at a DEV_ALLOC offset maps real shared memory); a
 * test that wants another node sets MEMREG_DEVICE after.  0 or -1.
 */
int fake_kernel_setup(void);
/*
 * Forget what was recorded (counters, last calls, the MSTX log and live
 * regions) but keep what the library holds handles to: registrations,
 * device allocations, live heaps.  The hook stays.
 */
void fake_kernel_forget(void);
/* Uninstall the fake, free its tables; MEMREG_DEVICE names no file. */
void fake_kernel_teardown(void);

/* INFO's instance id: every byte @b (another "kernel", as on two hosts). */
void fake_set_instance(uint8_t b);

/* Handle the fake gives the n-th registration (not guessable in the real one). */
uint64_t fake_handle(size_t n);
/* Handle IMPORT gives for a grant of registration @handle. */
uint64_t fake_import_handle(uint64_t handle);

/* Under the fake's lock, for tests that read while other threads call. */
unsigned long fake_calls(enum fake_cmd cmd);
unsigned long fake_mstx_nops(void);
struct memreg_mstx_op fake_mstx_op(unsigned long i);

/* Per-thread mode: name the calling thread (distinct handles per id). */
void fake_thread_init(unsigned int id);
/* Per-thread mode: calls of @cmd this thread made, and its live count. */
unsigned long fake_thread_calls(enum fake_cmd cmd);
uint64_t fake_thread_live(void);

#endif /* FAKE_KERNEL_H */
