/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Labels and label lists (label.c), for the rest of lib/acl: their tasks
 * are label.c's own (task.h).
 */
#ifndef MEMREG_ACL_LABEL_H
#define MEMREG_ACL_LABEL_H

/* aclFinalize's part: every label and list goes; rt.lock held. */
void memreg__acl_labels_release(void);

#endif /* MEMREG_ACL_LABEL_H */
