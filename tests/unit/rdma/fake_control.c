// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake libibverbs (fake_verbs.h): its state, and what the tests call
 * to set it up, flip its switches and read what happened.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_int.h"

struct fake_state fv = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

int64_t fv_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Whether this call fails now, and with what (0: it does not). */
int fv_failing(enum fake_call call)
{
	struct fail_rule *f = &fv.fail[call];

	if (!f->err || !f->times)
		return 0;
	if (f->skip) {
		f->skip--;
		return 0;
	}
	if (f->times > 0)
		f->times--;
	return f->err;
}

void fv_misuse_add(const char *fmt, ...)
{
	size_t used = strlen(fv.misuse);
	va_list ap;

	if (used >= sizeof(fv.misuse) - 2)
		return;
	va_start(ap, fmt);
	vsnprintf(fv.misuse + used, sizeof(fv.misuse) - used - 1, fmt, ap);
	va_end(ap);
	strcat(fv.misuse, "\n");
}

/*
 * Before any test runs: the wire's condition variable on the monotonic
 * clock (its deadlines are latencies), fake0.
 */
__attribute__((constructor))
static void fake_init(void)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&fv.wake, &ca);
	pthread_condattr_destroy(&ca);
	/* Numbers that look like a NIC's, and are never reused. */
	fv.next_key = 0x1200;
	fv.next_qpn = 0x11;
	fake_reset();
}

__attribute__((destructor))
static void fake_fini(void)
{
	fv_wire_stop();
}

void fake_reset(void)
{
	pthread_mutex_lock(&fv.lock);
	fv.latency_us = 0;
	fv.silent = false;
	fv.retry_exc = false;
	fv.never_flush = false;
	fv.no_driver = false;
	memset(fv.fail, 0, sizeof(fv.fail));
	memset(&fv.stats, 0, sizeof(fv.stats));
	/* What an earlier test leaked is its failure, not the next one's. */
	memset(fv.live, 0, sizeof(fv.live));
	fv.misuse[0] = '\0';
	fv.n_devs = 1;
	fv_device_defaults(&fv.devs[0].cfg, 0);
	pthread_mutex_unlock(&fv.lock);
}

void fake_devices_clear(void)
{
	pthread_mutex_lock(&fv.lock);
	fv.n_devs = 0;
	pthread_mutex_unlock(&fv.lock);
}

struct fake_device *fake_device_add(const char *name)
{
	struct fake_device *c = NULL;

	pthread_mutex_lock(&fv.lock);
	if (fv.n_devs < FAKE_MAX_DEVICES) {
		c = &fv.devs[fv.n_devs].cfg;
		fv_device_defaults(c, fv.n_devs);
		snprintf(c->name, sizeof(c->name), "%s", name);
		fv.n_devs++;
	}
	pthread_mutex_unlock(&fv.lock);
	return c;
}

struct fake_device *fake_device(int index)
{
	return index < fv.n_devs ? &fv.devs[index].cfg : NULL;
}

/* Each switch wakes the wire: it may have work it can now do, or not. */
#define SWITCH(fn, type, field)				\
	void fn(type v)					\
	{						\
		pthread_mutex_lock(&fv.lock);		\
		fv.field = v;				\
		fv_wire_kick();			\
		pthread_mutex_unlock(&fv.lock);		\
	}

SWITCH(fake_wire_latency_us, unsigned int, latency_us)
SWITCH(fake_peer_silent, bool, silent)
SWITCH(fake_retries_exhausted, bool, retry_exc)
SWITCH(fake_never_flush, bool, never_flush)
SWITCH(fake_no_driver, bool, no_driver)

void fake_fail(enum fake_call call, int err, unsigned int skip, int times)
{
	pthread_mutex_lock(&fv.lock);
	fv.fail[call] = (struct fail_rule){ err, skip, times };
	pthread_mutex_unlock(&fv.lock);
}

void fake_get_stats(struct fake_stats *out)
{
	pthread_mutex_lock(&fv.lock);
	*out = fv.stats;
	pthread_mutex_unlock(&fv.lock);
}

void fake_clear_stats(void)
{
	pthread_mutex_lock(&fv.lock);
	memset(&fv.stats, 0, sizeof(fv.stats));
	pthread_mutex_unlock(&fv.lock);
}

bool fake_qp_info(uint32_t qpn, struct fake_qp_info *out)
{
	struct fqp *q;

	pthread_mutex_lock(&fv.lock);
	q = fv_qp_find(qpn);
	if (q) {
		*out = q->info;
		out->state = q->qp.state;
		out->in_nic = q->queued;
	}
	pthread_mutex_unlock(&fv.lock);
	return q != NULL;
}

unsigned int fake_live_objects(char *what, size_t len)
{
	static const char *const names[LIVE_KINDS] = {
		"contexts", "PDs", "MRs", "MWs", "channels", "CQs", "QPs"
	};
	unsigned int i, total = 0;
	size_t used = 0;

	pthread_mutex_lock(&fv.lock);
	if (len)
		what[0] = '\0';
	for (i = 0; i < LIVE_KINDS; i++) {
		if (!fv.live[i])
			continue;
		total += fv.live[i];
		if (used < len)
			used += (size_t)snprintf(what + used, len - used,
						 "%s%u %s", used ? ", " : "",
						 fv.live[i], names[i]);
	}
	pthread_mutex_unlock(&fv.lock);
	return total;
}

bool fake_misuse(char *buf, size_t len)
{
	bool any;

	pthread_mutex_lock(&fv.lock);
	any = fv.misuse[0] != '\0';
	snprintf(buf, len, "%s", fv.misuse);
	pthread_mutex_unlock(&fv.lock);
	return any;
}
