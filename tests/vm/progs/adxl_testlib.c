// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <memreg/memreg.h>

#include "adxl_testlib.h"

int atl_alloc(struct atl_mem *m, enum adxl_mem_type type, size_t len)
{
	struct memreg_dev_mem dm;
	int err;

	memset(m, 0, sizeof(*m));
	m->type = type;
	m->len = len;
	if (type == ADXL_MEM_HOST)
		return adxl_malloc_mem(ADXL_MEM_HOST, len, &m->addr) ? -1 : 0;

	if (memreg_open(&m->ctx))
		return -1;
	err = memreg_dev_alloc(m->ctx, 0, MEMREG_DEV_HUGE_FIRST, len, &dm);
	if (err) {
		fprintf(stderr, "memreg_dev_alloc %zu: %s\n", len,
			memreg_strerror(err));
		memreg_close(m->ctx);
		return -1;
	}
	m->addr = dm.addr;
	m->dev_handle = dm.handle;
	m->device = dm.device;
	m->huge = dm.huge;
	return 0;
}

adxl_engine_t *atl_engine(const char *name, const char *transport)
{
	struct adxl_option opt = { "Transport", transport };
	adxl_engine_t *eng;

	if (adxl_engine_create(&eng))
		return NULL;
	if (adxl_initialize(eng, name, &opt, transport ? 1 : 0)) {
		fprintf(stderr, "Initialize %s failed: %s\n", name,
			adxl_last_error());
		adxl_engine_destroy(eng);
		return NULL;
	}
	return eng;
}

int atl_alloc_reg(adxl_engine_t *eng, struct atl_mem *m,
		  enum adxl_mem_type type, size_t len, adxl_mem_handle_t *handle)
{
	struct adxl_mem_desc d;
	adxl_mem_handle_t h;
	adxl_status_t st;

	if (atl_alloc(m, type, len)) {
		fprintf(stderr, "cannot allocate %zu bytes\n", len);
		return -1;
	}
	d = (struct adxl_mem_desc){ (uintptr_t)m->addr, m->len };
	st = adxl_register_mem(eng, &d, type, &h);
	if (st) {
		fprintf(stderr, "RegisterMem: %s: %s\n", atl_status(st),
			adxl_last_error());
		return -1;
	}
	if (handle)
		*handle = h;
	return 0;
}

void atl_free(struct atl_mem *m)
{
	if (m->type == ADXL_MEM_HOST) {
		adxl_free_mem(m->addr);
	} else {
		struct memreg_dev_mem dm = {
			.addr = m->addr, .len = m->len, .handle = m->dev_handle,
			.device = m->device, .huge = m->huge,
		};

		memreg_dev_free(m->ctx, &dm);
		memreg_close(m->ctx);
	}
	memset(m, 0, sizeof(*m));
}

int atl_parse_type(const char *s, enum adxl_mem_type *type)
{
	if (!strcmp(s, "host"))
		*type = ADXL_MEM_HOST;
	else if (!strcmp(s, "dev"))
		*type = ADXL_MEM_DEVICE;
	else
		return -1;
	return 0;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint8_t atl_byte(uint64_t seed, uint64_t off)
{
	return (uint8_t)(mix(seed ^ (off >> 3) << 8) >> ((off & 7) * 8));
}

void atl_fill(void *p, size_t len, uint64_t seed, uint64_t off)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = atl_byte(seed, off + i);
}

long long atl_check(const void *p, size_t len, uint64_t seed, uint64_t off)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != atl_byte(seed, off + i))
			return (long long)i;
	return -1;
}

const char *atl_status(adxl_status_t st)
{
	switch (st) {
	case ADXL_SUCCESS: return "SUCCESS";
	case ADXL_PARAM_INVALID: return "PARAM_INVALID";
	case ADXL_TIMEOUT: return "TIMEOUT";
	case ADXL_NOT_CONNECTED: return "NOT_CONNECTED";
	case ADXL_ALREADY_CONNECTED: return "ALREADY_CONNECTED";
	case ADXL_NOTIFY_FAILED: return "NOTIFY_FAILED";
	case ADXL_UNSUPPORTED: return "UNSUPPORTED";
	case ADXL_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
	case ADXL_FAILED: return "FAILED";
	default: return "unknown status";
	}
}
