// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Domains: a name for the heaps registered in it.  Handles are checked
 * against the list of live domains before use, so a stale or foreign
 * handle means the default domain rather than a read of freed memory.
 */
#include <stdlib.h>
#include <string.h>

#include "mstx.h"

/* CANN's rule for domain names. */
#define MSTX_DOMAIN_NAME_MAX	1023

struct mstx_domain {
	struct mstx_domain *next;
	char name[];
};

static pthread_mutex_t mstx_domains_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mstx_domain *mstx_domains;

static bool mstx_name_ok(const char *name)
{
	size_t n;

	if (!name)
		return false;
	for (n = 0; name[n]; n++) {
		char c = name[n];

		if (n == MSTX_DOMAIN_NAME_MAX)
			return false;
		if (!(c == '_' || (c >= '0' && c <= '9') ||
		      (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return false;
	}
	return n > 0;
}

mstxDomainHandle_t mstx__domain_create(const char *name)
{
	struct mstx_domain *d;
	size_t len;

	if (!mstx_name_ok(name))
		return NULL;
	len = strlen(name);
	d = malloc(sizeof(*d) + len + 1);
	if (!d)
		return NULL;
	memcpy(d->name, name, len + 1);
	pthread_mutex_lock(&mstx_domains_lock);
	d->next = mstx_domains;
	mstx_domains = d;
	pthread_mutex_unlock(&mstx_domains_lock);
	return (mstxDomainHandle_t)(void *)d;
}

void mstx__domain_destroy(mstxDomainHandle_t domain)
{
	struct mstx_domain **p, *d = NULL;

	pthread_mutex_lock(&mstx_domains_lock);
	for (p = &mstx_domains; *p; p = &(*p)->next) {
		if ((void *)*p == (void *)domain) {
			d = *p;
			*p = d->next;
			break;
		}
	}
	pthread_mutex_unlock(&mstx_domains_lock);
	/* the kernel copied the name when the heap was sent: nothing refers to it */
	free(d);
}

/*
 * The name is used by heap registration, which sends it to the kernel
 * before returning, while the domain is (the caller promises) alive.
 */
const char *mstx__domain_name(mstxDomainHandle_t domain)
{
	struct mstx_domain *d;
	const char *name = NULL;

	if (!domain)
		return NULL;
	pthread_mutex_lock(&mstx_domains_lock);
	for (d = mstx_domains; d; d = d->next) {
		if ((void *)d == (void *)domain) {
			name = d->name;
			break;
		}
	}
	pthread_mutex_unlock(&mstx_domains_lock);
	return name;
}
