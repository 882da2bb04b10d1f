/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Turning numbers into text for people, and text from the command line into
 * numbers.  Nothing here knows about netlink.
 */
#ifndef MEMREG_TOOL_FMT_H
#define MEMREG_TOOL_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Room for any string the fmt_* functions produce, NUL included. */
#define FMT_BUF_LEN	48

/*
 * @v in decimal or lower-case hex at @buf, no NUL: the number of bytes
 * written, at most FMT_U64_LEN.  These are the listings' hot path: no
 * stdio, no locale.
 */
#define FMT_U64_LEN	20
size_t fmt_u64(char *buf, uint64_t v);
size_t fmt_hex(char *buf, uint64_t v);

/*
 * @v as exactly 16 lower-case hex digits, leading zeros kept: a handle
 * is always as wide as its column, whatever its random high bits.
 */
size_t fmt_hex16(char *buf, uint64_t v);

/* "512B", "4.0MiB", "20.0GiB"; MEMREG_UNLIMITED as "unlimited". */
void fmt_size(char *buf, size_t len, uint64_t bytes);

/* A count that may be MEMREG_UNLIMITED: "256" or "unlimited". */
void fmt_count(char *buf, size_t len, uint64_t count);

/* Milliseconds as "850ms", "12.3s", "3m05s", "2h05m", "4d03h". */
void fmt_age(char *buf, size_t len, uint64_t ms);

/* Bytes as lower-case hex digits, no separators. */
void fmt_hexbytes(char *buf, size_t len, const void *data, size_t n);

/*
 * Parsers return 0, or -EINVAL for text that is not a number of the
 * expected form, or -ERANGE when it does not fit.
 */

/* Decimal digits only: no sign, no blanks, no base prefix. */
int parse_u64(const char *s, uint64_t *out);
int parse_u32(const char *s, uint32_t *out);

/* A decimal count, or "unlimited" for MEMREG_UNLIMITED. */
int parse_count(const char *s, uint64_t *out);

/*
 * Bytes: "4096", "64K", "64KiB", "2M", "1G", "1GiB", "1T", "1P", "1E"
 * (binary multiples, case-insensitive; 1G = 2^30), or "unlimited".  The
 * kernel's limits are u64 bytes, so anything up to 2^64 - 2 can be said,
 * and what fmt_size() prints (PiB, EiB) reads back.  -ERANGE from 16E.
 */
int parse_size(const char *s, uint64_t *out);

#endif /* MEMREG_TOOL_FMT_H */
