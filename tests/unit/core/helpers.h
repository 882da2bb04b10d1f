/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small things more than one test file needs. */
#ifndef CORE_TEST_HELPERS_H
#define CORE_TEST_HELPERS_H

#include <memreg/memreg.h>

/* A device node that opens read-write and is not memreg. */
#define FAKE_DEVICE	"/dev/null"

/* Point MEMREG_DEVICE at @path for the memreg_open() calls that follow. */
void use_device(const char *path);

/* Open descriptors of this process, to catch leaks on failure paths. */
int count_fds(void);

/*
 * Fill the stack below the caller with a pattern, so that a struct the
 * library forgot to zero shows up as bytes that are not zero.
 */
void poison_stack(void);

/* cmocka setup/teardown: fake module installed, MEMREG_DEVICE at it. */
int fake_setup(void **state);
int fake_teardown(void **state);
/* The same plus an open context in *state. */
int fake_ctx_setup(void **state);
int fake_ctx_teardown(void **state);

#endif /* CORE_TEST_HELPERS_H */
