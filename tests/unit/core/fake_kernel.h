/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in for memreg.ko behind lib/core's ioctl hook: it checks each
 * struct the way the UAPI header says the module does, keeps a table of
 * registrations, and records the bytes of every request it is handed.
 */
#ifndef FAKE_KERNEL_H
#define FAKE_KERNEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/memreg.h>

enum fake_cmd { FAKE_INFO, FAKE_REGISTER, FAKE_UNREGISTER, FAKE_QUERY,
		FAKE_NR_CMDS };

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

	/* Per command: next call fails with this errno (0: none), once. */
	int fail_errno[FAKE_NR_CMDS];

	unsigned long calls[FAKE_NR_CMDS];
	struct fake_call last[FAKE_NR_CMDS];
	/* Every QUERY call, in order, up to the room here. */
	struct fake_call queries[16];
	unsigned int nr_queries;

	struct fake_region *regions;	/* in order of creation */
	size_t nr_regions, cap_regions;
	uint64_t live;

	/* QUERY: the most entries one call returns (0: as many as fit). */
	unsigned int query_batch;
	/*
	 * Per-thread mode: every thread gets a module of its own (its own
	 * table and counters) and the fake takes no lock.  Without the
	 * fake's mutex ordering every call, a race detector sees any state
	 * lib/core shares between threads.  Set before threads start.
	 */
	int per_thread;

	/* QUERY misbehaviour, to test that the library does not trust it. */
	int query_overflow;		/* claim one entry more than room */
	int query_stuck;		/* never move the cursor */
	int query_zero_cursor_at_end;	/* store 0 with the last batch */
};

extern struct fake_kernel fake;

/* Reset the fake and install it as lib/core's ioctl. */
void fake_kernel_setup(void);
/* Uninstall it and free its table. */
void fake_kernel_teardown(void);

/* Per-thread mode: name the calling thread (distinct handles per id). */
void fake_thread_init(unsigned int id);
/* Per-thread mode: calls of @cmd this thread made, and its live count. */
unsigned long fake_thread_calls(enum fake_cmd cmd);
uint64_t fake_thread_live(void);

/* Handle the fake gives the n-th registration (not guessable in the real one). */
uint64_t fake_handle(size_t n);

#endif /* FAKE_KERNEL_H */
