/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A hash map from pointers to pointers, for the runtime's tables keyed by
 * a handle (stream -> allocator, live streams and contexts, host memory).
 * Not locked: each table's owner holds its own lock around it.
 */
#ifndef MEMREG_ACL_PTRMAP_H
#define MEMREG_ACL_PTRMAP_H

#include <stddef.h>

struct ptrmap_slot {
	const void *key;	/* NULL: empty */
	void *val;
};

struct ptrmap {
	struct ptrmap_slot *slots;
	size_t mask;		/* slots - 1; the size is a power of two */
	size_t used;
};

#define PTRMAP_INIT { NULL, 0, 0 }

/* The value for @key, or NULL. */
void *memreg__ptrmap_get(const struct ptrmap *m, const void *key);
/* Set @key (non-NULL) to @val; 0, or -1 if out of memory (map unchanged). */
int memreg__ptrmap_put(struct ptrmap *m, const void *key, void *val);
/* Remove @key; its value, or NULL if it was not there. */
void *memreg__ptrmap_del(struct ptrmap *m, const void *key);
/*
 * Up to @max values into @out; the number of entries in the map.  The
 * caller compares the two to know whether it saw them all.
 */
size_t memreg__ptrmap_values(const struct ptrmap *m, void **out, size_t max);
/* Free the table (not the values). */
void memreg__ptrmap_clear(struct ptrmap *m);

#endif /* MEMREG_ACL_PTRMAP_H */
