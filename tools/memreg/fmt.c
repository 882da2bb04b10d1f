// SPDX-License-Identifier: GPL-2.0
/*
 * Sizes, counts and ages for people; sizes and counts from people.
 *
 * Sizes are binary multiples throughout (KiB = 1024 bytes), which is how the
 * kernel's limits are expressed: the default host limit is exactly 20 GiB.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <linux/memreg.h>

#include "fmt.h"

static const char *const size_units[] = {
	"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
};

#define N_SIZE_UNITS	(sizeof(size_units) / sizeof(size_units[0]))

size_t fmt_u64(char *buf, uint64_t v)
{
	/* two digits per division: half the divisions of a digit at a time */
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	static const uint64_t pow10[FMT_U64_LEN] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL,
	};
	uint32_t v32;
	size_t n, i;

	/*
	 * The digit count from the bit count (log10(2) ~ 1233 / 4096) and
	 * one comparison, rather than a loop: a handle has 20 digits.
	 */
	n = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;
	n += v >= pow10[n];
	n += !n;
	i = n;
	while (v > UINT32_MAX) {
		unsigned int d = v % 100;

		v /= 100;
		buf[--i] = pairs[2 * d + 1];
		buf[--i] = pairs[2 * d];
	}
	/* most values fit in 32 bits, where dividing is cheaper */
	for (v32 = v; v32 >= 100; v32 /= 100) {
		unsigned int d = v32 % 100;

		buf[--i] = pairs[2 * d + 1];
		buf[--i] = pairs[2 * d];
	}
	v = v32;
	if (v >= 10) {
		buf[--i] = pairs[2 * v + 1];
		buf[--i] = pairs[2 * v];
	} else {
		buf[--i] = '0' + v;
	}
	return n;
}

size_t fmt_hex(char *buf, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = 1, i;

	while (n < 16 && v >> (4 * n))
		n++;
	for (i = 0; i < n; i++)
		buf[i] = digits[(v >> (4 * (n - 1 - i))) & 0xf];
	return n;
}

size_t fmt_hex16(char *buf, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < 16; i++)
		buf[i] = digits[(v >> (4 * (15 - i))) & 0xf];
	return 16;
}

/* @n bytes of @src as a string at @buf of @len, cut short as snprintf does. */
static void fmt_copy(char *buf, size_t len, const char *src, size_t n)
{
	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, src, n);
	buf[n] = '\0';
}

/* Two digits, with a leading zero: the "%02u" of the ages. */
static size_t fmt_2digits(char *buf, unsigned int v)
{
	buf[0] = '0' + v / 10 % 10;
	buf[1] = '0' + v % 10;
	return 2;
}

void fmt_size(char *buf, size_t len, uint64_t bytes)
{
	uint64_t unit = 1, whole, tenths;
	unsigned int u = 0;
	char tmp[FMT_BUF_LEN];
	size_t n;

	if (bytes == MEMREG_UNLIMITED) {
		fmt_copy(buf, len, "unlimited", 9);
		return;
	}
	if (bytes < 1024) {
		n = fmt_u64(tmp, bytes);
		tmp[n++] = 'B';
		fmt_copy(buf, len, tmp, n);
		return;
	}

	/*
	 * Pick the largest unit that leaves at least 1 in front of the point,
	 * then round to one decimal in integers: doubles would lose the low
	 * bits of sizes near 2^64.  Rounding can carry into the next unit
	 * (1023.96KiB -> 1.0MiB), hence the loop.
	 */
	while (u + 1 < N_SIZE_UNITS && bytes / unit >= 1024) {
		unit <<= 10;
		u++;
	}
	for (;;) {
		whole = bytes / unit;
		/* remainder < unit <= 2^60, so * 10 cannot overflow */
		tenths = ((bytes % unit) * 10 + unit / 2) / unit;
		if (tenths == 10) {
			whole++;
			tenths = 0;
		}
		if (whole < 1024 || u + 1 == N_SIZE_UNITS)
			break;
		unit <<= 10;
		u++;
	}
	n = fmt_u64(tmp, whole);
	tmp[n++] = '.';
	tmp[n++] = '0' + tenths;
	memcpy(tmp + n, size_units[u], strlen(size_units[u]));
	n += strlen(size_units[u]);
	fmt_copy(buf, len, tmp, n);
}

void fmt_count(char *buf, size_t len, uint64_t count)
{
	char tmp[FMT_U64_LEN];

	if (count == MEMREG_UNLIMITED)
		fmt_copy(buf, len, "unlimited", 9);
	else
		fmt_copy(buf, len, tmp, fmt_u64(tmp, count));
}

void fmt_age(char *buf, size_t len, uint64_t ms)
{
	uint64_t s = ms / 1000;
	char tmp[FMT_BUF_LEN];
	size_t n;

	if (ms < 1000) {
		n = fmt_u64(tmp, ms);
		tmp[n++] = 'm';
		tmp[n++] = 's';
	} else if (s < 60) {
		/* tenths of a second, truncated: an age never runs ahead */
		n = fmt_u64(tmp, s);
		tmp[n++] = '.';
		tmp[n++] = '0' + ms % 1000 / 100;
		tmp[n++] = 's';
	} else if (s < 3600) {
		n = fmt_u64(tmp, s / 60);
		tmp[n++] = 'm';
		n += fmt_2digits(tmp + n, s % 60);
		tmp[n++] = 's';
	} else if (s < 86400) {
		n = fmt_u64(tmp, s / 3600);
		tmp[n++] = 'h';
		n += fmt_2digits(tmp + n, s / 60 % 60);
		tmp[n++] = 'm';
	} else {
		n = fmt_u64(tmp, s / 86400);
		tmp[n++] = 'd';
		n += fmt_2digits(tmp + n, s / 3600 % 24);
		tmp[n++] = 'h';
	}
	fmt_copy(buf, len, tmp, n);
}

void fmt_hexbytes(char *buf, size_t len, const void *data, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *p = data;
	size_t i;

	if (!len)
		return;
	for (i = 0; i < n && 2 * i + 2 < len; i++) {
		buf[2 * i] = digits[p[i] >> 4];
		buf[2 * i + 1] = digits[p[i] & 0xf];
	}
	buf[2 * i] = '\0';
}

/* Accumulate decimal digits; *end is left at the first non-digit. */
static int parse_digits(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = *p - '0';

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*end = p;
	*out = v;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int err;

	err = parse_digits(s, &end, &v);
	if (err)
		return err;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;
	int err;

	err = parse_u64(s, &v);
	if (err)
		return err;
	if (v > UINT32_MAX)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

int parse_count(const char *s, uint64_t *out)
{
	if (!strcmp(s, "unlimited")) {
		*out = MEMREG_UNLIMITED;
		return 0;
	}
	return parse_u64(s, out);
}

/* Suffixes and their power of 1024; both short and IEC spellings. */
static const struct {
	const char *suffix;
	unsigned int shift;
} size_suffixes[] = {
	{ "", 0 }, { "B", 0 },
	{ "K", 10 }, { "KiB", 10 },
	{ "M", 20 }, { "MiB", 20 },
	{ "G", 30 }, { "GiB", 30 },
	{ "T", 40 }, { "TiB", 40 },
	{ "P", 50 }, { "PiB", 50 },
	/* up to 15E: 16E is 2^64, one more than "unlimited" */
	{ "E", 60 }, { "EiB", 60 },
};

int parse_size(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;
	size_t i;
	int err;

	if (!strcmp(s, "unlimited")) {
		*out = MEMREG_UNLIMITED;
		return 0;
	}
	err = parse_digits(s, &end, &v);
	if (err)
		return err;
	for (i = 0; i < sizeof(size_suffixes) / sizeof(size_suffixes[0]); i++) {
		unsigned int shift = size_suffixes[i].shift;

		if (strcasecmp(end, size_suffixes[i].suffix))
			continue;
		if (shift && v > (UINT64_MAX >> shift))
			return -ERANGE;
		*out = v << shift;
		return 0;
	}
	return -EINVAL;
}
