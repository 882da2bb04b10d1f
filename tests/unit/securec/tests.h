/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmocka needs these headers, in this order, before <cmocka.h>.  Each
 * test file exposes one group runner; test_main.c runs them all.
 */
#ifndef SECUREC_TESTS_H
#define SECUREC_TESTS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <securec.h>

/* The filler of every buffer: a byte a function wrote shows. */
#define FILL	'X'

/* Whether @n bytes at @p are all @c. */
int all_bytes(const void *p, size_t n, int c);

/* A destMax just above the limit: refused before anything is touched. */
#define TOO_BIG_MEM	((size_t)SECUREC_MEM_MAX_LEN + 1)
#define TOO_BIG_STR	((size_t)SECUREC_STRING_MAX_LEN + 1)

int run_value_tests(void);
int run_mem_tests(void);
int run_str_tests(void);
int run_cat_tests(void);
int run_printf_tests(void);

#endif /* SECUREC_TESTS_H */
