// SPDX-License-Identifier: MIT
/*
 * register - the libmemreg walk-through: open /dev/memreg, show what the
 * module reports, register a malloc'd buffer, list the process's
 * registrations, unregister.
 *
 *   cc -o register register.c $(pkg-config --cflags --libs libmemreg)
 *   ./register [BYTES]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <memreg/memreg.h>

/* Every libmemreg error is a negative enum memreg_err with a sentence. */
static int report(const char *what, int err)
{
	fprintf(stderr, "register: %s: %s\n", what, memreg_strerror(err));
	return err;
}

static void print_limit(const char *name, uint64_t v)
{
	if (v == MEMREG_UNLIMITED)
		printf("  %-16s unlimited\n", name);
	else
		printf("  %-16s %" PRIu64 "\n", name, v);
}

static int show_info(struct memreg_ctx *ctx)
{
	struct memreg_lib_info info;
	unsigned int i;
	int err;

	err = memreg_info(ctx, &info);
	if (err)
		return report("info", err);
	printf("memreg ABI %u, page size %u, features %#" PRIx64 ", instance ",
	       info.abi_version, info.page_size, info.features);
	for (i = 0; i < sizeof(info.instance_id); i++)
		printf("%02x", info.instance_id[i]);
	printf("\nthis process: %" PRIu64 " registrations, %" PRIu64
	       " host bytes, %" PRIu64 " device bytes\nits limits:\n",
	       info.regions, info.host_bytes, info.dev_bytes);
	print_limit("registrations", info.max_regions);
	print_limit("host bytes", info.max_host_bytes);
	print_limit("device bytes", info.max_dev_bytes);
	print_limit("RLIMIT_MEMLOCK", info.memlock_limit);
	return 0;
}

static int print_region(const struct memreg_region *r, void *arg)
{
	unsigned int *n = arg;

	printf("  handle %#" PRIx64 "  addr %#" PRIx64 "  len %" PRIu64
	       "  %s  pinned pages %" PRIu64 "\n", (uint64_t)r->handle,
	       (uint64_t)r->addr, (uint64_t)r->len,
	       r->type == MEMREG_MEM_DEVICE ? "device" : "host",
	       (uint64_t)r->pinned_pages);
	(*n)++;
	return 0;	/* go on */
}

/* Register @buf, list what the process has registered, unregister it. */
static int register_and_list(struct memreg_ctx *ctx, void *buf, size_t len)
{
	unsigned int n = 0;
	uint64_t handle;
	int err, ret;

	/* Pinned until unregistered, or until the context is closed. */
	err = memreg_register(ctx, buf, len, MEMREG_MEM_HOST, 0, &handle);
	if (err)
		return report("register", err);
	printf("registered %zu bytes at %p: handle %#" PRIx64 "\n", len, buf,
	       handle);

	printf("registrations:\n");
	err = memreg_query_all(ctx, print_region, &n);
	if (err)
		report("query", err);
	else
		printf("%u in all\n", n);

	ret = memreg_unregister(ctx, handle);
	if (ret)
		return report("unregister", ret);
	printf("unregistered %#" PRIx64 "\n", handle);
	return err;
}

int main(int argc, char **argv)
{
	size_t len = argc > 1 ? strtoull(argv[1], NULL, 0) : 1 << 20;
	struct memreg_ctx *ctx;
	void *buf;
	int err;

	err = memreg_open(&ctx);
	if (err) {
		report("open", err);
		return 1;
	}

	buf = malloc(len);
	if (!buf) {
		fprintf(stderr, "register: cannot allocate %zu bytes\n", len);
		memreg_close(ctx);
		return 1;
	}

	err = show_info(ctx);
	if (!err)
		err = register_and_list(ctx, buf, len);

	memreg_close(ctx);
	free(buf);
	return err ? 1 : 0;
}
