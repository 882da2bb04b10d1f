/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading memreg netlink messages: the attribute policy the tool trusts,
 * names for the enums in the UAPI header, and fields from attributes that
 * may be missing.
 */
#ifndef MEMREG_TOOL_ATTRS_H
#define MEMREG_TOOL_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <linux/memreg.h>

#include "out.h"

/*
 * Parse the attributes of a memreg generic netlink message into
 * tb[0..MEMREG_A_MAX].  Attributes newer than this tool are ignored; one of
 * the wrong size fails the whole message (libnl error code, negative).
 */
int attrs_parse(struct nlmsghdr *nlh, struct nlattr **tb);

/* "host", "device"; NULL for a type this tool does not know. */
const char *attrs_mem_type_name(uint32_t type);

/*
 * The attributes inside a nest: MEMREG_A_* ones (a DEV_USAGE nest) into
 * tb[0..MEMREG_A_MAX], or a MEMREG_A_HEAP nest into
 * tb[0..MEMREG_HEAP_A_MAX].  Negative libnl error if malformed.
 */
int attrs_parse_nested(const struct nlattr *nest, struct nlattr **tb);
int attrs_parse_heap(const struct nlattr *nest, struct nlattr **tb);

/*
 * Every MEMREG_A_DEV_USAGE nest of @nlh parses and has DEV_ALLOC_BYTES and
 * @who (MEMREG_A_DEVICE in the process dump, MEMREG_A_PID in the device
 * dump); -EBADMSG if not.
 */
int attrs_check_dev_usage(struct nlmsghdr *nlh, int who);

/* "added", "out_of_heap", ... for enum memreg_heap_event; NULL if unknown. */
const char *attrs_heap_event_name(uint32_t ev);

/* "regions", "host_bytes", "dev_bytes", "memlock"; NULL if unknown. */
const char *attrs_refusal_name(uint32_t reason);

/* "REG_ADDED", ...; NULL for a command that is not an event. */
const char *attrs_event_name(uint8_t cmd);

/*
 * The command name of the process: MEMREG_A_COMM, else (if @proc_fallback)
 * /proc/PID/comm, else NULL.
 */
const char *attrs_comm(struct nlattr **tb, char *buf, size_t len,
		       bool proc_fallback);

/* Fields from attributes: out_absent() when the attribute is missing. */
void out_attr_u32(struct out *o, const char *key, const struct nlattr *a);
void out_attr_u64(struct out *o, const char *key, const struct nlattr *a);
void out_attr_count(struct out *o, const char *key, const struct nlattr *a);
void out_attr_size(struct out *o, const char *key, const struct nlattr *a);
void out_attr_hex(struct out *o, const char *key, const struct nlattr *a);
void out_attr_handle(struct out *o, const char *key, const struct nlattr *a);
void out_attr_age(struct out *o, const char *key, const struct nlattr *a);
void out_attr_mem_type(struct out *o, const char *key,
		       const struct nlattr *a);

/* JSON only: the member if the attribute is there. */
void out_attr_json_u64(struct out *o, const char *key,
		       const struct nlattr *a);
void out_attr_json_u32(struct out *o, const char *key,
		       const struct nlattr *a);

#endif /* MEMREG_TOOL_ATTRS_H */
