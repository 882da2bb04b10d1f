/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_json.h - the machine-readable lines of the benchmarks.
 *
 * With -J a benchmark prints, besides its table for people, one line per
 * figure:
 *
 *	BENCH {"bench":"reg","backing":"anon",...,"ns":[812.5,799.1,...]}
 *
 * scripts/bench collects these from the VM console and from native runs;
 * bench/report.py computes medians and spreads from the raw samples, so a
 * program only ever prints what it measured.  Each line goes out with one
 * write(2): on a serial console shared with the kernel's messages a line
 * written in pieces may be torn apart by a printk.
 */
#ifndef MEMREG_BENCH_JSON_H
#define MEMREG_BENCH_JSON_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Room for 128 samples and a dozen keys; a longer line is cut, not torn. */
#define BJ_MAX	4096

struct bj {
	char buf[BJ_MAX];
	size_t len;
	int first;
};

static inline void bj_add(struct bj *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void bj_add(struct bj *j, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (j->len >= BJ_MAX)
		return;
	va_start(ap, fmt);
	n = vsnprintf(j->buf + j->len, BJ_MAX - j->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		j->len += (size_t)n;
	if (j->len >= BJ_MAX)
		j->len = BJ_MAX - 1;
}

static inline void bj_key(struct bj *j, const char *key)
{
	bj_add(j, "%s\"%s\":", j->first ? "" : ",", key);
	j->first = 0;
}

static inline void bj_begin(struct bj *j, const char *bench)
{
	j->len = 0;
	j->first = 1;
	bj_add(j, "BENCH {");
	bj_key(j, "bench");
	bj_add(j, "\"%s\"", bench);
}

/* Keys and string values are the programs' own words: nothing to escape. */
static inline void bj_str(struct bj *j, const char *key, const char *val)
{
	bj_key(j, key);
	bj_add(j, "\"%s\"", val);
}

static inline void bj_num(struct bj *j, const char *key, double v)
{
	bj_key(j, key);
	bj_add(j, "%.6g", v);
}

/* Sizes and counts: %.6g would round 4 GiB to 4.29497e+09. */
static inline void bj_u64(struct bj *j, const char *key, unsigned long long v)
{
	bj_key(j, key);
	bj_add(j, "%llu", v);
}

static inline void bj_samples(struct bj *j, const char *key, const double *v,
			      unsigned int n)
{
	unsigned int i;

	bj_key(j, key);
	bj_add(j, "[");
	for (i = 0; i < n; i++)
		bj_add(j, "%s%.6g", i ? "," : "", v[i]);
	bj_add(j, "]");
}

static inline void bj_end(struct bj *j)
{
	ssize_t w;

	/* stdio's buffer first, so that the table and the line keep order */
	fflush(stdout);
	if (j->len > BJ_MAX - 3)
		j->len = BJ_MAX - 3;
	memcpy(j->buf + j->len, "}\n", 3);
	w = write(1, j->buf, j->len + 2);
	(void)w;
}

#endif
