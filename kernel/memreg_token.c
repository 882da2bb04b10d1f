// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - the 16-byte tokens that name grants and IPC names.
 *
 * A token is the id its object is filed under in an xarray (bytes 0-3),
 * then random bytes: 12 for a grant or an IPC name, 4 for a short IPC
 * token (CANN's 8-byte keys), zeros after them.  A lookup loads the object
 * by id and then compares all 16 bytes in constant time, so a guess
 * learns nothing from how long the comparison took, and a token whose
 * object died names nothing even when its id is filed again.
 *
 * How ids are chosen stays with each object (grants: cyclic, so a dead
 * token's id is not soon reused; IPC names: random, so one name's token
 * tells nothing of the next), and so does the locking: a lookup runs
 * under the caller's RCU read lock or its table's lock.
 */
#include <linux/random.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include "memreg_internal.h"

/* @token: @id, then @random_len random bytes, then zeros. */
void memreg_token_make(u8 *token, u32 id, unsigned int random_len)
{
	memset(token, 0, MEMREG_TOKEN_LEN);
	memcpy(token, &id, sizeof(id));
	get_random_bytes(token + sizeof(id),
			 min_t(unsigned int, random_len,
			       MEMREG_TOKEN_LEN - sizeof(id)));
}

/*
 * The object of @xa whose token (at @token_off in it) is @token, or NULL.
 * The caller holds what keeps the object alive (RCU or the table's lock).
 */
void *memreg_token_lookup(struct xarray *xa, const u8 *token,
			  size_t token_off)
{
	void *obj;
	u32 id;

	memcpy(&id, token, sizeof(id));
	obj = xa_load(xa, id);
	if (!obj || !memreg_token_eq((const u8 *)obj + token_off, token))
		return NULL;
	return obj;
}

/*
 * Compare two tokens in a time that does not depend on where they differ
 * (crypto_memneq() is not in every kernel config memreg builds for).
 */
bool memreg_token_eq(const u8 *a, const u8 *b)
{
	u8 diff = 0;
	int i;

	for (i = 0; i < MEMREG_TOKEN_LEN; i++)
		diff |= READ_ONCE(a[i]) ^ READ_ONCE(b[i]);
	return !diff;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_token_eq);
