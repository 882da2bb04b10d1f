/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internals of lib/core shared by its files.  Names with external linkage
 * carry the "memreg__" prefix: the version script keeps them out of the
 * .so, but libmemreg.a shows them to the program it is linked into.
 */
#ifndef MEMREG_CORE_H
#define MEMREG_CORE_H

#include <pthread.h>
#include <memreg/memreg.h>

struct memreg_copy_pool;

/*
 * fd and info are written once, by memreg_open(), before the pointer is
 * handed out; that is what makes the context safe to share between
 * threads.  copy_threads is an atomic, and the copy pool is made and used
 * under pool_lock (copy_threads.c).
 */
struct memreg_ctx {
	int fd;
	struct memreg_lib_info info;	/* INFO at open; usage goes stale */
	_Atomic unsigned int copy_threads;	/* 1: the caller alone */
	pthread_mutex_t pool_lock;
	struct memreg_copy_pool *pool;	/* helpers, from the first split */
};

/* ioctl(2), or the test's fake kernel in a MEMREG_TESTING build. */
int memreg__ioctl(int fd, unsigned long request, void *arg);

#ifdef MEMREG_TESTING
/*
 * Set by unit tests before any context exists; never compiled into the
 * shipped library.  Same contract as ioctl(2): -1 and errno on failure.
 */
typedef int (*memreg__ioctl_fn)(int fd, unsigned long request, void *arg);
extern memreg__ioctl_fn memreg__test_ioctl;
#endif

/* Negative memreg_err for the errno a failed @op left; errno is kept. */
int memreg__fail(int op);

/* Negative memreg_err for an error the library found itself, with errno. */
int memreg__refuse(int err, int errnum);

/* MEMREG_IOC_INFO into the library's struct. */
int memreg__query_info(int fd, struct memreg_lib_info *info);

/* copy_threads.c: MEMREG_COPY_THREADS, or the CPUs we may use (up to 4). */
unsigned int memreg__copy_threads_default(void);

/*
 * A transfer on several threads: 1 if it does not split (the caller then
 * copies alone), else memreg_transfer()'s result with *done and *bytes.
 */
int memreg__transfer_split(struct memreg_ctx *ctx,
			   const struct memreg_xfer_desc *descs, size_t count,
			   size_t *done, uint64_t *bytes);

/* Stops the helpers (in the process that started them). */
void memreg__copy_pool_close(struct memreg_ctx *ctx);

#endif /* MEMREG_CORE_H */
