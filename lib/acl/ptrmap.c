// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Open addressing with linear probing.  Removal shifts the entries of the
 * probe run back instead of leaving tombstones, so a lookup never walks
 * further than the entries that collide with it however long the table
 * has been in use: GetByStream stays a few nanoseconds at any age.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ptrmap.h"

#define PTRMAP_MIN_SLOTS	16

static size_t slot_of(const struct ptrmap *m, const void *key)
{
	/*
	 * Fibonacci hashing: handles are heap pointers whose low bits are
	 * all alike (alignment), the multiplication spreads the high ones.
	 */
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ULL;

	return (size_t)(h >> 32) & m->mask;
}

void *memreg__ptrmap_get(const struct ptrmap *m, const void *key)
{
	size_t i;

	if (!m->slots || !key)
		return NULL;
	for (i = slot_of(m, key); m->slots[i].key; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			return m->slots[i].val;
	return NULL;
}

static void insert(struct ptrmap *m, const void *key, void *val)
{
	size_t i = slot_of(m, key);

	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	if (!m->slots[i].key)
		m->used++;
	m->slots[i].key = key;
	m->slots[i].val = val;
}

static int grow(struct ptrmap *m)
{
	size_t n = m->slots ? 2 * (m->mask + 1) : PTRMAP_MIN_SLOTS;
	struct ptrmap old = *m;
	size_t i;

	m->slots = calloc(n, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return -1;
	}
	m->mask = n - 1;
	m->used = 0;
	for (i = 0; old.slots && i <= old.mask; i++)
		if (old.slots[i].key)
			insert(m, old.slots[i].key, old.slots[i].val);
	free(old.slots);
	return 0;
}

int memreg__ptrmap_put(struct ptrmap *m, const void *key, void *val)
{
	if (!key)
		return -1;
	/* At most half full keeps the probe runs short. */
	if ((!m->slots || 2 * (m->used + 1) > m->mask + 1) && grow(m))
		return -1;
	insert(m, key, val);
	return 0;
}

void *memreg__ptrmap_del(struct ptrmap *m, const void *key)
{
	size_t i, j, home;
	void *val;

	if (!m->slots || !key)
		return NULL;
	for (i = slot_of(m, key); m->slots[i].key != key; i = (i + 1) & m->mask)
		if (!m->slots[i].key)
			return NULL;
	val = m->slots[i].val;

	/*
	 * Pull back each later entry of the run that may live in the hole:
	 * one whose home slot is not cyclically in (i, j].
	 */
	for (j = (i + 1) & m->mask; m->slots[j].key; j = (j + 1) & m->mask) {
		home = slot_of(m, m->slots[j].key);
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].key = NULL;
	m->slots[i].val = NULL;
	m->used--;
	return val;
}

size_t memreg__ptrmap_values(const struct ptrmap *m, void **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; m->slots && i <= m->mask; i++)
		if (m->slots[i].key && n < max)
			out[n++] = m->slots[i].val;
	return m->used;
}

void memreg__ptrmap_clear(struct ptrmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = 0;
	m->used = 0;
}
