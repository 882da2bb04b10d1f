/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memreg_fuzz: what its parts share.
 *
 * A worker process (struct fz_proc) runs threads (struct fz_thread) that
 * each draw calls from their own PRNG, seeded from the run's seed, the
 * process index and the thread index: the same seed gives every thread the
 * same sequence of choices (what the calls return can differ, since the
 * threads race).  The things a call needs that an earlier call made (fds,
 * handles, mappings, tokens) live in pools of the process; the tokens also
 * in a page shared by every process, so that imports and transfers cross
 * processes while the owners unregister, revoke and exit.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/memreg.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* ------------------------------------------------------------------ PRNG */

/* splitmix64: one 64-bit state, good enough spread for choosing calls */
struct fz_rng {
	uint64_t s;
};

static inline uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. n - 1 (n > 0); the modulo bias does not matter here */
static inline uint64_t fz_below(struct fz_rng *r, uint64_t n)
{
	return fz_next(r) % n;
}

/* true once in @n draws */
static inline bool fz_one_in(struct fz_rng *r, unsigned int n)
{
	return fz_below(r, n) == 0;
}

/*
 * A number from the values that make kernels trip: 0, 1, page edges, the
 * top of every width, powers of two and their neighbours.
 */
uint64_t fz_interesting(struct fz_rng *r);

/* ----------------------------------------------------------------- stats */

#define FZ_KINDS(X)							\
	X(INFO, "ioctl INFO")						\
	X(REGISTER, "ioctl REGISTER")					\
	X(UNREGISTER, "ioctl UNREGISTER")				\
	X(QUERY, "ioctl QUERY")						\
	X(DEV_ALLOC, "ioctl DEV_ALLOC")					\
	X(DEV_FREE, "ioctl DEV_FREE")					\
	X(DEV_INFO, "ioctl DEV_INFO")					\
	X(GRANT, "ioctl GRANT")						\
	X(REVOKE, "ioctl REVOKE")					\
	X(IMPORT, "ioctl IMPORT")					\
	X(UNIMPORT, "ioctl UNIMPORT")					\
	X(TRANSFER, "ioctl TRANSFER")					\
	X(MSTX, "ioctl MSTX")						\
	X(DEV_EXPORT, "ioctl DEV_EXPORT")				\
	X(REG_EXPORT, "ioctl REG_EXPORT")				\
	X(DMABUF_REG, "ioctl REGISTER dma-buf")				\
	X(IPC, "ioctl IPC_*")						\
	X(DMABUF_MMAP, "mmap dma-buf")					\
	X(BADCMD, "ioctl other numbers")				\
	X(NL_DO_STATS, "netlink GET_STATS do")				\
	X(NL_DUMP_STATS, "netlink GET_STATS dump")			\
	X(NL_DO_PROC, "netlink PROC_GET do")				\
	X(NL_DUMP_PROC, "netlink PROC_GET dump")			\
	X(NL_DO_REGION, "netlink REGION_GET do")			\
	X(NL_DUMP_REGION, "netlink REGION_GET dump")			\
	X(NL_DO_LIMITS, "netlink SET_LIMITS do")			\
	X(NL_DUMP_LIMITS, "netlink SET_LIMITS dump")			\
	X(NL_DO_DEV, "netlink DEV_GET do")				\
	X(NL_DUMP_DEV, "netlink DEV_GET dump")				\
	X(NL_DO_HEAP, "netlink HEAP_GET do")				\
	X(NL_DUMP_HEAP, "netlink HEAP_GET dump")			\
	X(NL_OTHER, "netlink other commands")				\
	X(NL_GARBAGE, "netlink malformed messages")			\
	X(MMAP, "mmap pool")						\
	X(DEV_MMAP, "mmap /dev/memreg")					\
	X(MUNMAP, "unmap (PROT_NONE over)")				\
	X(MREMAP, "mremap")						\
	X(MADV_DONTNEED, "madvise DONTNEED")				\
	X(MADV_DONTFORK, "madvise DONTFORK/DOFORK")			\
	X(MPROTECT, "mprotect")						\
	X(FORK, "fork child")						\
	X(KILL, "kill -9 / reap child")					\
	X(REOPEN, "close+open /dev/memreg")				\
	X(DUP, "dup/dup2 /dev/memreg")

#define FZ_KIND_ENUM(k, name) FZ_##k,
enum fz_kind { FZ_KINDS(FZ_KIND_ENUM) FZ_NKINDS };
#undef FZ_KIND_ENUM

#define FZ_NERRNO 134		/* errnos counted one by one; more in [0] */

struct fz_kstat {
	uint64_t calls;
	uint64_t ok;
	uint64_t err[FZ_NERRNO];
};

/* --------------------------------------------------------- shared tokens */

/* A token some process granted, for any process to import. */
struct fz_token {
	uint8_t token[16];
	uint64_t addr;
	uint64_t len;
	uint32_t access;
	pid_t pid;
};

#define FZ_NTOKENS 64
#define FZ_NIPC_TOKENS 16

/* One MAP_SHARED anonymous mapping made before the first fork. */
struct fz_shared {
	struct fz_kstat stats[FZ_NKINDS];
	struct fz_token tokens[FZ_NTOKENS];
	uint64_t tokens_published;
	uint8_t ipc_tokens[FZ_NIPC_TOKENS][16];	/* names, for any process */
	int unexpected;		/* a worker saw something impossible */
};

extern struct fz_shared *fz_sh;
extern uint64_t fz_deadline_ns;

/* Count one call of @kind that returned @ret (0 or a positive errno). */
static inline void fz_count(enum fz_kind kind, int ret)
{
	struct fz_kstat *st = &fz_sh->stats[kind];

	__atomic_fetch_add(&st->calls, 1, __ATOMIC_RELAXED);
	if (!ret)
		__atomic_fetch_add(&st->ok, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&st->err[ret > 0 && ret < FZ_NERRNO ? ret : 0],
				   1, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- pools */

#define FZ_NFDS		4
#define FZ_NMAPS	16
#define FZ_NREGS	48
#define FZ_NDEVS	12
#define FZ_NIMPORTS	32
#define FZ_NGRANTS	32
#define FZ_NCHILDREN	6
#define FZ_NDMABUFS	8
#define FZ_NNAMES	8

enum fz_map_kind {
	FZ_MAP_ANON,		/* private anonymous, a few pages */
	FZ_MAP_THP,		/* private anonymous, 2 MiB aligned */
	FZ_MAP_SHARED,		/* MAP_SHARED anonymous (shmem) */
	FZ_MAP_MEMFD,		/* memfd, MAP_SHARED */
	FZ_MAP_HUGETLB,		/* MAP_HUGETLB, one 2 MiB page */
	FZ_MAP_FILE_SHARED,	/* /tmp file, MAP_SHARED: not pinnable */
	FZ_MAP_FILE_PRIVATE,	/* /tmp file, MAP_PRIVATE: COW, pinnable */
	FZ_MAP_RDONLY,		/* anonymous, PROT_READ: EACCES */
	FZ_MAP_DEV,		/* /dev/memreg at a DEV_ALLOC offset */
	FZ_NMAP_KINDS
};

struct fz_map {
	uint64_t addr;		/* 0: free slot */
	uint64_t len;
	int kind;
};

struct fz_reg {
	uint64_t handle;	/* 0: free slot */
	int fdi;		/* index in fz_proc.fds it was made on */
	uint64_t addr, len;
	uint32_t access;
};

struct fz_dev {
	uint64_t handle;	/* 0: free slot */
	int fdi;
	uint64_t offset, len;
	uint32_t device;
};

struct fz_import {
	uint64_t handle;	/* 0: free slot */
	int fdi;
	uint64_t addr, len;
	uint32_t access;
};

struct fz_grant {
	uint8_t token[16];
	int fdi;
	bool used;
};

/*
 * A worker process's pools.  One mutex guards them all: the calls
 * themselves are made outside it, with a copy of what they need, so a
 * handle may be gone (or its fd closed and reopened) by the time the
 * kernel sees it -- the races are part of what is tried.
 */
struct fz_proc {
	pthread_mutex_t lock;
	int index;
	bool child;		/* a forked child: no further forks */
	int fds[FZ_NFDS];	/* -1: closed */
	int tmpfd;		/* the /tmp file behind the file mappings */
	struct fz_map maps[FZ_NMAPS];
	struct fz_reg regs[FZ_NREGS];
	struct fz_dev devs[FZ_NDEVS];
	struct fz_import imports[FZ_NIMPORTS];
	struct fz_grant grants[FZ_NGRANTS];
	pid_t children[FZ_NCHILDREN];
	int dmabufs[FZ_NDMABUFS];	/* dma-buf fds; -1: free */
	uint8_t names[FZ_NNAMES][16];	/* IPC names made; zero: free */
	uint32_t devices;	/* MEMREG_INFO.devices */
	uint32_t page_size;
};

struct fz_thread {
	struct fz_proc *p;
	struct fz_rng rng;
	int index;
	int nlfd;		/* this thread's netlink socket, -1 if none */
	uint32_t nlseq;
	uint64_t calls;
	/* scratch for descriptor and op arrays, big enough for the huge counts */
	void *scratch;
	size_t scratch_len;
	/*
	 * Where this thread maps dma-bufs: reserved (PROT_NONE) for the run,
	 * so that no mmap(NULL) is made while other threads open holes in
	 * the arena (fuzz_mm.c) that they then close again with MAP_FIXED.
	 */
	void *dmabuf_win;
};

#define FZ_DMABUF_WIN	(64UL << 20)	/* longest dma-buf mapping */

extern int fz_genl_family;	/* resolved once per process; 0 if unknown */

/* fuzz_ioctl.c */
void fz_ioctl_one(struct fz_thread *t);
int fz_pick_fd(struct fz_thread *t, int *fdi);
void fz_pool_init(struct fz_proc *p);
uint64_t fz_pick_addr(struct fz_thread *t, uint64_t *len, int *kind);

/* fuzz_dmabuf.c */
void fz_dmabuf_one(struct fz_thread *t);
void fz_dmabuf_init(struct fz_proc *p);

/* shared by fuzz_ioctl.c and fuzz_dmabuf.c */
int fz_call(struct fz_thread *t, enum fz_kind kind, int fd,
	    unsigned int nr, size_t ssize, bool *clean);
uint32_t fz_flags(struct fz_thread *t);
void fz_reserved(struct fz_thread *t, void *res, size_t len);
void fz_keep_reg(struct fz_thread *t, int fd, const struct fz_reg *nr);
/* A registration of the pool, preferring one made on @fdi; false if none. */
bool fz_pick_reg(struct fz_thread *t, int fdi, struct fz_reg *out,
		 bool take);
extern __thread uint8_t fz_argbuf[];

/* fuzz_netlink.c */
int fz_nl_resolve(void);
void fz_netlink_one(struct fz_thread *t);

/* fuzz_mm.c */
void fz_mm_one(struct fz_thread *t);
void fz_mm_init(struct fz_proc *p, struct fz_rng *r);
void fz_reap_children(struct fz_proc *p, bool kill_them);

/* memreg_fuzz.c: one call of any kind, for workers and forked children */
void fz_step(struct fz_thread *t);
uint64_t fz_now_ns(void);

#endif
