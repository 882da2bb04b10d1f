/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host callbacks (report.c), for the rest of lib/acl: their tasks are
 * report.c's own (task.h).
 */
#ifndef MEMREG_ACL_REPORT_H
#define MEMREG_ACL_REPORT_H

struct acl_stream;

/* The stream ends: its pending reports go, its subscription too. */
void memreg__acl_report_stream_gone(struct acl_stream *s);

#endif /* MEMREG_ACL_REPORT_H */
