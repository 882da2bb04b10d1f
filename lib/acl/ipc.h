/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * IPC of device memory (ipc.c), for the rest of lib/acl.
 */
#ifndef MEMREG_ACL_IPC_H
#define MEMREG_ACL_IPC_H

#include <acl/acl_base.h>

/* The aclError (recorded with why) of a failed memreg dma-buf/IPC call. */
aclError memreg__acl_ipc_error(int memreg_err);

#endif /* MEMREG_ACL_IPC_H */
