/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ADXL_UNIT_TESTS_H
#define ADXL_UNIT_TESTS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Each test_*.c runs its group; main adds the failures up. */
int test_name_group(void);
int test_msg_group(void);
int test_wire_group(void);
int test_api_group(void);
int test_engine_group(void);
int test_ucx_group(void);
int test_ucx_wire_group(void);
int test_link_group(void);
int test_port_group(void);

/* test_ucx.c: the peer process of the lost-peer tests (argv[1] "ucx-peer"). */
int test_ucx_peer_main(int argc, char **argv);

#endif
