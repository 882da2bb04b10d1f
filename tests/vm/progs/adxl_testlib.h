/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the ADXL VM test programs: memory of either kind, a pattern
 * every byte of which depends on a seed and its offset (so a byte copied
 * to the wrong place, or not at all, shows), and status names.
 */
#ifndef ADXL_TESTLIB_H
#define ADXL_TESTLIB_H

#include <stddef.h>
#include <stdint.h>
#include <adxl/adxl.h>

struct atl_mem {
	void *addr;
	size_t len;
	enum adxl_mem_type type;
	struct memreg_ctx *ctx;		/* DEVICE: the allocation's context */
	uint64_t dev_handle;
	uint32_t device;
	uint32_t huge;
};

/* HOST: adxl_malloc_mem; DEVICE: memreg_dev_alloc on device 0.  0 or -1. */
int atl_alloc(struct atl_mem *m, enum adxl_mem_type type, size_t len);
/* An engine initialised as @name, with Transport=@transport if not NULL. */
adxl_engine_t *atl_engine(const char *name, const char *transport);
/* atl_alloc(), then adxl_register_mem() with @eng; says why on stderr. */
int atl_alloc_reg(adxl_engine_t *eng, struct atl_mem *m,
		  enum adxl_mem_type type, size_t len, adxl_mem_handle_t *handle);
void atl_free(struct atl_mem *m);
int atl_parse_type(const char *s, enum adxl_mem_type *type);

uint8_t atl_byte(uint64_t seed, uint64_t off);
void atl_fill(void *p, size_t len, uint64_t seed, uint64_t off);
/* Offset of the first byte that differs, or -1 if none. */
long long atl_check(const void *p, size_t len, uint64_t seed, uint64_t off);

const char *atl_status(adxl_status_t st);

#endif
