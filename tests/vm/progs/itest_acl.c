// SPDX-License-Identifier: GPL-2.0
/*
 * The ACL runtime against the real module's emulated devices (the suite
 * loads it with dev_capacity=256 MiB): capacity exhaustion and recovery,
 * HUGE_ONLY with no contiguous memory left, copies in every direction
 * checked byte for byte, stream order, a program's allocator serving the
 * runtime's work memory, pinned host memory, and freeing registered
 * device memory, events ordering two streams, forced stream destroy,
 * and a queued copy whose device memory was freed failing through the
 * exception callback.  Linked against the shipped libascendcl.so (and
 * libmemreg.so).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

#define MiB	(1UL << 20)

static struct memreg_ctx *mctx;	/* the test's own view of the module */

static int setup(void **state)
{
	(void)state;
	if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	return memreg_open(&mctx) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	memreg_close(mctx);
	return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static struct memreg_dev_stat dev_stat(unsigned int dev)
{
	struct memreg_dev_stat st;

	assert_int_equal(memreg_dev_stat(mctx, dev, &st), 0);
	return st;
}

static void test_meminfo_is_the_device(void **state)
{
	struct memreg_lib_info info;
	size_t f, t;
	void *p;

	(void)state;
	assert_int_equal(memreg_info(mctx, &info), 0);
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_SUCCESS);
	assert_int_equal(t, info.dev_capacity);
	assert_int_equal(f, t - dev_stat(0).used);
	assert_int_equal(aclrtMalloc(&p, 8 * MiB, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtGetMemInfo(ACL_DDR_MEM, &f, &t), ACL_SUCCESS);
	/* 8 MiB + 64 bytes of request, in 4 KiB pages. */
	assert_int_equal(t - f, dev_stat(0).used);
	assert_true(dev_stat(0).proc_bytes >= 8 * MiB + 4096);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void test_capacity_exhaustion(void **state)
{
	struct memreg_lib_info info;
	void *p[64], *q;
	size_t f, t, chunk = 32 * MiB;
	unsigned int n = 0, i;

	(void)state;
	assert_int_equal(memreg_info(mctx, &info), 0);
	assert_int_equal(dev_stat(0).used, 0);
	while (n < 64 && aclrtMalloc(&p[n], chunk, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS)
		n++;
	/* Each takes 32 MiB + a chunk for the padding. */
	assert_true(n >= info.dev_capacity / (chunk + 2 * MiB));
	assert_true(n <= info.dev_capacity / chunk);
	assert_int_equal(aclrtMalloc(&q, chunk, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
	assert_int_equal(aclrtMalloc(&q, chunk, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_ERROR_RT_MEMORY_ALLOCATION);
	/* The other device is another capacity. */
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&q, chunk, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtFree(q), ACL_SUCCESS);
	assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
	/* One back: room again. */
	assert_int_equal(aclrtFree(p[n - 1]), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&p[n - 1], chunk, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	for (i = 0; i < n; i++)
		assert_int_equal(aclrtFree(p[i]), ACL_SUCCESS);
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_SUCCESS);
	assert_int_equal(f, t);
	assert_int_equal(dev_stat(0).used, 0);
}

/* Free 2 MiB blocks (order 9; order 10 is two) in the zones user pages use. */
static long huge_blocks_free(void)
{
	char line[512], zone[32];
	long total = 0, n[11];
	FILE *f = fopen("/proc/buddyinfo", "r");
	int k;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		k = sscanf(line, "Node %*d, zone %31s %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld",
			   zone, &n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6],
			   &n[7], &n[8], &n[9], &n[10]);
		/* ZONE_DMA is kept from user allocations (lowmem reserve). */
		if (k < 11 || !strcmp(zone, "DMA"))
			continue;
		total += n[9] + (k == 12 ? 2 * n[10] : 0);
	}
	fclose(f);
	return total;
}

static void write_sysctl(const char *path, const char *val, char *old, size_t oldlen)
{
	FILE *f = fopen(path, "r");

	if (old) {
		old[0] = 0;
		if (f && fgets(old, (int)oldlen, f))
			old[strcspn(old, "\n")] = 0;
	}
	if (f)
		fclose(f);
	f = fopen(path, "w");
	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

static long mem_free_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemFree: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Take 4 KiB pages until no free block of order 9 is left, then give
 * back every other page of the last part: free memory in single pages,
 * none of it 2 MiB-contiguous.  The buddy allocator splits the large
 * blocks last, so the memory is nearly all taken by then: the watermarks
 * are lowered meanwhile (else the last large blocks sit in the reserve
 * that only the kernel may use), the steps get small near the end, and
 * the test gives up (skips) before the free memory gets near the OOM
 * killer.
 */
#define FRAG_STEP	(4 * MiB)
#define FRAG_MAX	4096
#define FRAG_FLOOR_KB	1024

struct frag {
	void *chunk[FRAG_MAX];
	size_t len[FRAG_MAX];
	unsigned int n;
	long hugepages;		/* nr_hugepages before the test */
};

static int fragment(struct frag *fr)
{
	unsigned int i;
	size_t off, step;
	long blocks;
	char *p, val[32];

	while ((blocks = huge_blocks_free()) > 0) {
		if (fr->n == FRAG_MAX || mem_free_kb() < FRAG_FLOOR_KB) {
			print_message("fragment: %ld large blocks left at %ld kB free\n",
				      blocks, mem_free_kb());
			return -1;
		}
		step = blocks > 4 ? FRAG_STEP : 256 * 1024;
		p = mmap(NULL, step, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			print_message("fragment: mmap: %s\n", strerror(errno));
			return -1;
		}
		madvise(p, step, MADV_NOHUGEPAGE);
		for (off = 0; off < step; off += 4096)
			p[off] = 1;
		fr->chunk[fr->n] = p;
		fr->len[fr->n++] = step;
	}
	/*
	 * Room for 4 KiB-page allocations: one page in 16 of the first
	 * 256 MiB.  (Every other page is not enough: enough of those turn
	 * out physically adjacent to merge into 2 MiB blocks again.)
	 */
	for (i = 0; i < fr->n && i < 64; i++)
		for (off = 0; off < fr->len[i]; off += 16 * 4096)
			madvise((char *)fr->chunk[i] + off, 4096, MADV_DONTNEED);
	/*
	 * The kernel freed some memory of its own meanwhile (caches shrunk
	 * while memory was short), and it merged into 2 MiB blocks: hugetlb
	 * takes exactly those, as persistent huge pages, until the test ends.
	 */
	blocks = huge_blocks_free();
	if (blocks > 0) {
		snprintf(val, sizeof(val), "%ld", fr->hugepages + blocks);
		write_sysctl("/proc/sys/vm/nr_hugepages", val, NULL, 0);
	}
	blocks = huge_blocks_free();
	if (blocks)
		print_message("fragment: %ld large blocks after the holes\n", blocks);
	return blocks ? -1 : 0;
}

#define HELD_MAX	64

static void test_huge_only_without_contiguous_memory(void **state)
{
	struct memreg_dev_stat before, after;
	char proactive[32], min_free[32], scale[32], hugepages[32], reserve[32];
	struct frag *fr;
	unsigned int i, held = 0, taken, held_first;
	void *kept[HELD_MAX], *q = NULL;
	aclError huge_only = ACL_SUCCESS, huge_first = -1;
	int fragmented = -1;

	(void)state;
	if (geteuid() != 0) {
		/* Lowering the watermarks and stopping compaction need root. */
		skip();
	}
	fr = calloc(1, sizeof(*fr));
	assert_non_null(fr);
	/* Compaction would make 2 MiB blocks again behind the test's back. */
	write_sysctl("/proc/sys/vm/compaction_proactiveness", "0", proactive, sizeof(proactive));
	write_sysctl("/proc/sys/vm/min_free_kbytes", "256", min_free, sizeof(min_free));
	write_sysctl("/proc/sys/vm/watermark_scale_factor", "1", scale, sizeof(scale));
	write_sysctl("/proc/sys/vm/nr_hugepages", "0", hugepages, sizeof(hugepages));
	/*
	 * Fragmenting takes nearly all RAM, far below the RAM reserve that
	 * device allocations leave to the system (dev_ram_reserve, an
	 * eighth of RAM): HUGE_FIRST's fallback would be refused by that,
	 * not by fragmentation.  One byte of reserve for this test; the
	 * reserve itself is devmem_pressure.sh's.
	 */
	write_sysctl("/sys/module/memreg/parameters/dev_ram_reserve", "1",
		     reserve, sizeof(reserve));
	fr->hugepages = 0;
	before = dev_stat(0);
	fragmented = fragment(fr);
	/*
	 * The per-cpu page lists keep a few free 2 MiB pages that
	 * /proc/buddyinfo does not show: HUGE_ONLY may get those first.
	 * Keep what it gets until it fails; there are only a few.
	 */
	for (held = 0; !fragmented && held < HELD_MAX; held++) {
		huge_only = aclrtMalloc(&kept[held], 3 * MiB / 2, ACL_MEM_MALLOC_HUGE_ONLY);
		if (huge_only != ACL_SUCCESS)
			break;
	}
	taken = held;
	/*
	 * HUGE_FIRST: 4 KiB pages now.  A 2 MiB block may still turn up
	 * between the two calls (a per-cpu list drained, a page freed):
	 * keep any huge allocation it gets and ask again, until it falls
	 * back or fails.
	 */
	while (!fragmented && held < HELD_MAX) {
		struct memreg_dev_stat s0 = dev_stat(0);

		huge_first = aclrtMalloc(&q, 3 * MiB / 2, ACL_MEM_MALLOC_HUGE_FIRST);
		if (huge_first != ACL_SUCCESS ||
		    dev_stat(0).normal_bytes > s0.normal_bytes)
			break;
		kept[held++] = q;
		q = NULL;
	}
	after = dev_stat(0);
	held_first = held - taken;
	if (huge_first == ACL_SUCCESS && q)
		aclrtFree(q);
	while (held > 0)
		aclrtFree(kept[--held]);
	for (i = 0; i < fr->n; i++)
		munmap(fr->chunk[i], fr->len[i]);
	free(fr);
	write_sysctl("/proc/sys/vm/nr_hugepages", hugepages[0] ? hugepages : "0", NULL, 0);
	if (scale[0])
		write_sysctl("/proc/sys/vm/watermark_scale_factor", scale, NULL, 0);
	if (min_free[0])
		write_sysctl("/proc/sys/vm/min_free_kbytes", min_free, NULL, 0);
	if (proactive[0])
		write_sysctl("/proc/sys/vm/compaction_proactiveness", proactive, NULL, 0);
	if (reserve[0])
		write_sysctl("/sys/module/memreg/parameters/dev_ram_reserve", reserve, NULL, 0);

	if (fragmented) {
		print_message("could not fragment memory without nearing OOM (%ld large blocks free)\n",
			      huge_blocks_free());
		skip();
	}
	/* Refused cleanly with the out-of-memory code ... */
	assert_int_equal(huge_only, ACL_ERROR_RT_MEMORY_ALLOCATION);
	/* ... while HUGE_FIRST falls back to 4 KiB pages. */
	assert_int_equal(huge_first, ACL_SUCCESS);
	assert_true(after.normal_bytes > before.normal_bytes);
	print_message("HUGE_ONLY took %u hidden 2 MiB blocks before failing, HUGE_FIRST %u more before falling back\n",
		      taken, held_first);
	assert_int_equal(dev_stat(0).used, before.used);
}

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)((i >> 3) * 131 + i + seed);
}

#define LEN	(3 * MiB + 123)

static void test_memcpy_every_direction(void **state)
{
	unsigned char *h1 = malloc(LEN), *h2 = malloc(LEN), *want = malloc(LEN);
	void *d0, *d1;

	(void)state;
	assert_int_equal(aclrtMalloc(&d0, LEN, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d1, LEN, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);

	fill(want, LEN, 1);
	assert_int_equal(aclrtMemcpy(h1, LEN, want, LEN, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
	assert_memory_equal(h1, want, LEN);
	fill(want, LEN, 2);
	assert_int_equal(aclrtMemcpy(d0, LEN, want, LEN, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(d1, LEN, d0, LEN, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
	memset(h2, 0, LEN);
	assert_int_equal(aclrtMemcpy(h2, LEN, d1, LEN, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
	assert_memory_equal(h2, want, LEN);

	fill(want, LEN, 3);
	assert_int_equal(aclrtMemcpy(d1, LEN, want, LEN, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(d0, LEN, d1, LEN, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
	memset(h2, 0, LEN);
	assert_int_equal(aclrtMemcpy(h2, LEN, d0, LEN, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
	assert_memory_equal(h2, want, LEN);

	fill(h1, LEN, 4);
	memcpy(want, h1, LEN);
	assert_int_equal(aclrtMemcpy(d0, LEN, h1, LEN, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE), ACL_SUCCESS);
	memset(h2, 0, LEN);
	assert_int_equal(aclrtMemcpy(h2, LEN, d0, LEN, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
	assert_memory_equal(h2, want, LEN);

	assert_int_equal(aclrtMemcpy(d0, LEN, d1, LEN, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpy(d0, LEN, d1, LEN, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpy(d0, LEN - 1, d1, LEN, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpy(NULL, 0, NULL, 0, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);

	assert_int_equal(aclrtFree(d0), ACL_SUCCESS);
	assert_int_equal(aclrtFree(d1), ACL_SUCCESS);
	free(h1);
	free(h2);
	free(want);
}

static void test_memcpy_async_every_direction(void **state)
{
	unsigned char *h1 = malloc(LEN), *h2 = malloc(LEN), *h3 = malloc(LEN), *want = malloc(LEN);
	aclrtStream s;
	void *d0, *d1;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d0, LEN, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d1, LEN, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
	fill(h1, LEN, 5);
	memcpy(want, h1, LEN);
	memset(h3, 0, LEN);
	assert_int_equal(aclrtMemcpyAsync(h2, LEN, h1, LEN, ACL_MEMCPY_HOST_TO_HOST, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(d0, LEN, h2, LEN, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(d1, LEN, d0, LEN, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(h3, LEN, d1, LEN, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_memory_equal(h3, want, LEN);

	/* Staged: the source may be changed as soon as the call returns. */
	fill(h1, LEN, 6);
	memcpy(want, h1, LEN);
	assert_int_equal(aclrtMemcpyAsync(d1, LEN, h1, LEN, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s), ACL_SUCCESS);
	memset(h1, 0xee, LEN);
	assert_int_equal(aclrtMemcpyAsync(d0, LEN, d1, LEN, ACL_MEMCPY_DEFAULT, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(h3, LEN, d0, LEN, ACL_MEMCPY_DEFAULT, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_memory_equal(h3, want, LEN);

	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	assert_int_equal(aclrtFree(d0), ACL_SUCCESS);
	assert_int_equal(aclrtFree(d1), ACL_SUCCESS);
	free(h1);
	free(h2);
	free(h3);
	free(want);
}

static void test_stream_order(void **state)
{
	enum { N = 4096, STEPS = 500 };
	unsigned char *d, *out = malloc(N), src[N];
	aclrtStream s, other;
	int i;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&other), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc((void **)&d, N, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	for (i = 0; i < N; i++)
		src[i] = (unsigned char)i;
	/*
	 * Shift by one and stamp the first byte, STEPS times: only the
	 * queued order gives this result.  Another stream's work in between
	 * is on other memory and does not disturb it.
	 */
	assert_int_equal(aclrtMemcpyAsync(d, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
	for (i = 0; i < STEPS; i++) {
		assert_int_equal(aclrtMemcpyAsync(d + 1, N - 1, d, N - 1, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
		assert_int_equal(aclrtMemsetAsync(d, 1, i & 0xff, 1, s), ACL_SUCCESS);
		assert_int_equal(aclrtMemsetAsync(out, N, i & 0xff, N, other), ACL_SUCCESS);
	}
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(other), ACL_SUCCESS);
	for (i = 0; i < STEPS; i++)
		assert_int_equal(d[i], (STEPS - 1 - i) & 0xff);
	for (i = STEPS; i < N; i++)
		assert_int_equal(d[i], (i - STEPS) & 0xff);
	assert_int_equal(out[N - 1], (STEPS - 1) & 0xff);
	aclrtDestroyStream(s);
	aclrtDestroyStream(other);
	aclrtFree(d);
	free(out);
}

/* ---- a program's allocator handing out device memory, counting ---- */

struct dev_allocator {
	unsigned int allocs, advises, frees, addrs;
	void *hint;
	size_t bytes;
};

static void *da_alloc(aclrtAllocator obj, size_t size)
{
	struct dev_allocator *a = obj;
	void *p;

	/* Called on the caller's thread, not on the stream's worker. */
	if (aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return NULL;
	__atomic_add_fetch(&a->allocs, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&a->bytes, size, __ATOMIC_RELAXED);
	return p;	/* the block is the device address, as MindSpore does */
}

static void *da_advise(aclrtAllocator obj, size_t size, aclrtAllocatorAddr addr)
{
	struct dev_allocator *a = obj;

	a->hint = addr;
	__atomic_add_fetch(&a->advises, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&a->allocs, 1, __ATOMIC_RELAXED);
	return da_alloc(obj, size);
}

static void da_free(aclrtAllocator obj, aclrtAllocatorBlock block)
{
	struct dev_allocator *a = obj;

	aclrtFree(block);
	__atomic_add_fetch(&a->frees, 1, __ATOMIC_RELAXED);
}

static void *da_addr(aclrtAllocatorBlock block)
{
	return block;
}

static void test_registered_allocator_serves_work_memory(void **state)
{
	struct dev_allocator a = { 0 };
	aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
	unsigned char *src = malloc(LEN), *out = malloc(LEN), *want = malloc(LEN);
	struct memreg_dev_stat st;
	aclrtStream s;
	void *dev;
	int i;

	(void)state;
	aclrtAllocatorSetObjToDesc(desc, &a);
	aclrtAllocatorSetAllocFuncToDesc(desc, da_alloc);
	aclrtAllocatorSetFreeFuncToDesc(desc, da_free);
	aclrtAllocatorSetAllocAdviseFuncToDesc(desc, da_advise);
	aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, da_addr);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&dev, LEN, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorRegister(s, desc), ACL_SUCCESS);
	/* Teardown order of real users: the registration is a copy. */
	assert_int_equal(aclrtAllocatorDestroyDesc(desc), ACL_SUCCESS);

	st = dev_stat(0);
	for (i = 0; i < 4; i++) {
		fill(src, LEN, 10 + i);
		memcpy(want, src, LEN);
		assert_int_equal(aclrtMemcpyAsync(dev, LEN, src, LEN, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s), ACL_SUCCESS);
		memset(src, 0, LEN);
		assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
		assert_int_equal(aclrtMemcpy(out, LEN, dev, LEN, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
		assert_memory_equal(out, want, LEN);
	}
	/*
	 * Once allocated, then asked each time for the address used before;
	 * every byte staged was the allocator's device memory.
	 */
	assert_int_equal(a.allocs, 1);
	assert_int_equal(a.advises, 3);
	assert_int_equal(a.frees, 4);
	assert_non_null(a.hint);
	assert_int_equal(a.bytes, 4 * (size_t)LEN);
	/* Every block went back: the device has what it had. */
	assert_int_equal(dev_stat(0).used, st.used);

	/* Unregistered: the runtime's own pool; the allocator is not called. */
	assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dev, LEN, want, LEN, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(a.allocs + a.advises, 4);

	aclrtDestroyStream(s);
	aclrtFree(dev);
	free(src);
	free(out);
	free(want);
}

static void test_malloc_host_is_pinned(void **state)
{
	struct memreg_lib_info before, after;
	void *p;

	(void)state;
	assert_int_equal(memreg_info(mctx, &before), 0);
	assert_int_equal(aclrtMallocHost(&p, 10000), ACL_SUCCESS);
	memset(p, 0x33, 10000);
	assert_int_equal(memreg_info(mctx, &after), 0);
	/* Registered with the module as host memory, whole pages. */
	assert_int_equal(after.host_bytes - before.host_bytes, 12288);
	assert_int_equal(after.regions - before.regions, 1);
	assert_int_equal(aclrtFreeHost(p), ACL_SUCCESS);
	assert_int_equal(memreg_info(mctx, &after), 0);
	assert_int_equal(after.host_bytes, before.host_bytes);
}

static void test_free_registered_device_memory(void **state)
{
	uint64_t handle;
	void *p;

	(void)state;
	assert_int_equal(aclrtMalloc(&p, 64 * 1024, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(memreg_register(mctx, p, 64 * 1024, MEMREG_MEM_DEVICE, 0, &handle), 0);
	/* The module refuses to free registered memory: it stays usable. */
	assert_int_equal(aclrtFree(p), ACL_ERROR_RT_MEMORY_FREE);
	memset(p, 1, 64 * 1024);
	assert_int_equal(memreg_unregister(mctx, handle), 0);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void gate_cb(void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

/* Hold @s with a blocking callback that only this thread runs. */
static void close_gate(aclrtStream s, int *ran)
{
	assert_int_equal(aclrtSubscribeReport((uint64_t)pthread_self(), s), ACL_SUCCESS);
	assert_int_equal(aclrtLaunchCallback(gate_cb, ran, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
}

static void open_gate(aclrtStream s)
{
	assert_int_equal(aclrtProcessReport(5000), ACL_SUCCESS);
	assert_int_equal(aclrtUnSubscribeReport((uint64_t)pthread_self(), s), ACL_SUCCESS);
}

/* B waits for A's record, so B's copy sees what A wrote, 8 MiB of it. */
static void test_event_orders_streams(void **state)
{
	const size_t len = 8 * MiB;
	aclrtStreamStatus st;
	aclrtStream a, b;
	unsigned char *out;
	aclrtEvent e;
	void *d1, *d2;
	int ran = 0;

	(void)state;
	out = calloc(1, len);
	assert_non_null(out);
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d1, len, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d2, len, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(d1, len, 0x6b, len), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(d2, len, 0, len), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
	close_gate(a, &ran);
	assert_int_equal(aclrtMemcpyAsync(d2, len, d1, len, ACL_MEMCPY_DEVICE_TO_DEVICE, a), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(e, a), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEvent(b, e), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, len, d2, len, ACL_MEMCPY_DEVICE_TO_HOST, b), ACL_SUCCESS);
	usleep(50000);
	assert_int_equal(aclrtStreamQuery(b, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
	assert_int_equal(out[0], 0);
	open_gate(a);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
	assert_int_equal(out[0], 0x6b);
	assert_int_equal(out[len - 1], 0x6b);
	assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
	aclrtDestroyStream(a);
	aclrtDestroyStream(b);
	aclrtFree(d1);
	aclrtFree(d2);
	free(out);
}

static unsigned int exc_error;

static void exc_cb(aclrtExceptionInfo *info)
{
	exc_error = aclrtGetErrorCodeFromExceptionInfo(info);
}

/*
 * The device memory a queued copy reads is freed (unmapped) before the
 * copy runs: the copy fails, it does not fault.  Then a forced destroy
 * drops what is still queued.
 */
static void test_freed_memory_and_force(void **state)
{
	unsigned char out[4096];
	aclrtStream s;
	int ran = 0;
	void *d;

	(void)state;
	memset(out, 1, sizeof(out));
	assert_int_equal(aclrtSetExceptionInfoCallback(exc_cb), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d, sizeof(out), ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	close_gate(s, &ran);
	assert_int_equal(aclrtMemcpyAsync(out, sizeof(out), d, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
	assert_int_equal(aclrtFree(d), ACL_SUCCESS);
	open_gate(s);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_SYS_DMA);
	assert_int_equal(exc_error, ACL_ERROR_RT_SYS_DMA);
	assert_int_equal(out[0], 1);
	aclrtSetExceptionInfoCallback(NULL);

	close_gate(s, &ran);
	assert_int_equal(aclrtMemsetAsync(out, sizeof(out), 9, sizeof(out), s), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStreamForce(s), ACL_SUCCESS);
	assert_int_equal(out[0], 1);
	assert_int_equal(ran, 1);	/* the first gate only */
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meminfo_is_the_device),
		cmocka_unit_test(test_capacity_exhaustion),
		cmocka_unit_test(test_huge_only_without_contiguous_memory),
		cmocka_unit_test(test_memcpy_every_direction),
		cmocka_unit_test(test_memcpy_async_every_direction),
		cmocka_unit_test(test_stream_order),
		cmocka_unit_test(test_registered_allocator_serves_work_memory),
		cmocka_unit_test(test_malloc_host_is_pinned),
		cmocka_unit_test(test_free_registered_device_memory),
		cmocka_unit_test(test_event_orders_streams),
		cmocka_unit_test(test_freed_memory_and_force),
	};

	return cmocka_run_group_tests_name("acl", tests, setup, teardown);
}
