/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Netlink messages as the memreg module would send them, built by hand:
 * what the print tests feed the tool's printers.
 */
#ifndef MEMREG_TOOL_FAKE_MSGS_H
#define MEMREG_TOOL_FAKE_MSGS_H

#include <netlink/msg.h>

/* A /proc of its own, with <dir>/4242/comm = "from-proc". */
const char *fake_proc_root(void);

struct nl_msg *fake_stats(void);
struct nl_msg *fake_proc_full(void);		/* pid 1234, every attribute */
struct nl_msg *fake_proc_sparse(void);		/* pid 4242: no COMM, peaks, ... */
struct nl_msg *fake_region_full(void);		/* pid 1234, host region */
struct nl_msg *fake_region_hidden(void);	/* another uid's: no ADDR/HANDLE */
struct nl_msg *fake_region_child(void);	/* shares 0xbeef's pages */
struct nl_msg *fake_event(uint8_t cmd);		/* any MEMREG_CMD_EVENT_* */
struct nl_msg *fake_heap(void);			/* pid 1234, heap 3 */
struct nl_msg *fake_heap_none(void);		/* pid 1234, outside every heap */
struct nl_msg *fake_dev(void);			/* device 0, two processes */
struct nl_msg *fake_dev_idle(void);		/* device 1, nobody */

#endif /* MEMREG_TOOL_FAKE_MSGS_H */
