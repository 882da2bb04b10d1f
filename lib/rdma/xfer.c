// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl-rdma.so: batches of RDMA READs and WRITEs (rdma_int.h).
 *
 * One xfer call at a time per queue pair (q->lock), so every completion
 * its CQ yields during a call is that call's: the call posts its ranges
 * cut into work requests of at most r->chunk bytes, keeps a window of
 * them outstanding, and counts completions until each posted WR has
 * completed.  It returns 0 only when every one did so successfully.
 *
 * The window: the send queue's depth for WRITEs; for READs also the
 * initiator depth (max_rd_atomic), beyond which a READ would only wait in
 * the send queue, and which keeps bursts of read responses (which rxe
 * under emulation loses) to 16 MiB.
 *
 * Waiting: a few polls that find nothing (yielding the CPU in between),
 * then the CQ is armed (ibv_req_notify_cq) and the caller sleeps in
 * poll() on its completion channel until an event, the deadline or
 * WAIT_MAX_MS.  Spinning would take a vCPU from the very thing we wait
 * for when rxe's packet processing shares it (a VM with one vCPU), and
 * fixed short sleeps would add their length to every small transfer (a
 * 4 KiB READ takes 0.4 ms under TCG); the event wakes us when there is
 * something to reap, and costs a system call only once the spin is over.
 *
 * Failure: after the first error, or at the deadline, nothing more is
 * posted, the QP goes to the error state (which flushes every WR still
 * queued with IBV_WC_WR_FLUSH_ERR, not a new error), and the call keeps
 * reaping until every WR it posted has completed, so that the NIC touches
 * none of the caller's buffers after it returns.  Should that take more
 * than DRAIN_MS, the QP is destroyed, which the NIC must finish with
 * first.  Either way the QP is failed from then on: the engine connects
 * a new one.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdma_int.h"

/* wr_id: the call's sequence number (24 bits) over its range's index. */
#define OP_BITS		40
#define OP_MASK		((1ULL << OP_BITS) - 1)

/* One xfer call. */
struct batch {
	struct adxl_plugin_ep *q;
	bool write;
	const struct adxl_plugin_op *ops;
	size_t n;
	uint32_t *lkeys;	/* of each range's MR */
	uint64_t seq;
	size_t next;		/* the range to post from */
	uint64_t off;		/* and where in it */
	size_t posted;		/* work requests */
	size_t done;		/* of them, completed (well or not) */
	int ret;		/* the first error */
};

static const char *verb(const struct batch *b)
{
	return b->write ? "RDMA WRITE" : "RDMA READ";
}

/* Every range non-empty and inside one of our MRs, before we post any. */
static int validate(struct batch *b, char *err)
{
	size_t i;

	if (b->n > OP_MASK) {
		rdmap_say(err, "%zu ranges in one call: too many", b->n);
		return -EINVAL;
	}
	b->lkeys = calloc(b->n, sizeof(*b->lkeys));
	if (!b->lkeys) {
		rdmap_say(err, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < b->n; i++) {
		const struct adxl_plugin_op *op = &b->ops[i];

		if (!op->len) {
			rdmap_say(err, "range %zu of %zu is empty", i, b->n);
			return -EINVAL;
		}
		if (op->len > UINT64_MAX - op->remote) {
			rdmap_say(err, "range %zu of %zu: remote [0x%llx, +%llu) wraps around",
				  i, b->n, (unsigned long long)op->remote,
				  (unsigned long long)op->len);
			return -EINVAL;
		}
		if (!rdmap_mr_lkey(b->q->r, op->local, op->len, &b->lkeys[i])) {
			rdmap_say(err, "local [0x%llx, +%llu) (range %zu of %zu) is in no MR of ours",
				  (unsigned long long)op->local,
				  (unsigned long long)op->len, i, b->n);
			return -EFAULT;
		}
	}
	return 0;
}

/* Posts up to @room more work requests, in one ibv_post_send(). */
static void post_some(struct batch *b, size_t room, char *err)
{
	struct ibv_send_wr wr[POST_BATCH], *bad = NULL;
	struct ibv_sge sge[POST_BATCH];
	uint64_t chunk = b->q->r->chunk;
	size_t k = 0;
	int e;

	while (k < room && k < POST_BATCH && b->next < b->n) {
		const struct adxl_plugin_op *op = &b->ops[b->next];
		uint64_t len = op->len - b->off < chunk ? op->len - b->off :
							  chunk;

		sge[k] = (struct ibv_sge){
			.addr = op->local + b->off,
			.length = (uint32_t)len,	/* chunk <= 1 MiB */
			.lkey = b->lkeys[b->next],
		};
		wr[k] = (struct ibv_send_wr){
			.wr_id = b->seq << OP_BITS | b->next,
			.sg_list = &sge[k],
			.num_sge = 1,
			.opcode = b->write ? IBV_WR_RDMA_WRITE :
					     IBV_WR_RDMA_READ,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = {
				.remote_addr = op->remote + b->off,
				.rkey = op->key,
			},
		};
		if (k)
			wr[k - 1].next = &wr[k];
		k++;
		b->off += len;
		if (b->off == op->len) {
			b->next++;
			b->off = 0;
		}
	}
	if (!k)
		return;
	e = ibv_post_send(b->q->qp, wr, &bad);
	if (!e) {
		b->posted += k;
		return;
	}
	/*
	 * Those before @bad went out.  Without a @bad we can trust, count
	 * them all: the drain then waits for some that never complete and
	 * destroys the QP, rather than return while one might be queued.
	 */
	b->posted += bad >= wr && bad < wr + k ? (size_t)(bad - wr) : k;
	rdmap_say(err, "ibv_post_send (%s): %s", verb(b), strerror(e));
	b->ret = e == ENOMEM ? -ENOMEM : -EIO;
}

/* The error a failed work completion means, with its message. */
static int wc_error(const struct batch *b, const struct ibv_wc *wc, char *err)
{
	size_t i = wc->wr_id & OP_MASK;
	const struct adxl_plugin_op *op = &b->ops[i < b->n ? i : 0];
	unsigned long long remote = op->remote, len = op->len;

	switch (wc->status) {
	case IBV_WC_REM_ACCESS_ERR:
	case IBV_WC_REM_INV_REQ_ERR:
		rdmap_say(err, "the peer refused [0x%llx, +%llu) (rkey 0x%x): not registered there (any more)",
			  remote, len, op->key);
		return -EACCES;
	case IBV_WC_RETRY_EXC_ERR:
	case IBV_WC_RNR_RETRY_EXC_ERR:
		/* ACK_TIMEOUT 17, RETRY_CNT 7: 8 attempts of 0.54 s. */
		rdmap_say(err, "peer unreachable: %s of [0x%llx, +%llu) unanswered after %d retries (about 4 s): %s",
			  verb(b), remote, len, RETRY_CNT,
			  ibv_wc_status_str(wc->status));
		return -ECONNRESET;
	default:
		rdmap_say(err, "%s [0x%llx, +%llu): %s (vendor error 0x%x)",
			  verb(b), remote, len, ibv_wc_status_str(wc->status),
			  wc->vendor_err);
		return -EIO;
	}
}

/*
 * Reaps what the CQ holds: the number of work completions found, or -1
 * if the CQ cannot be polled.  The first failed one sets b->ret; those
 * after it (the flushed rest) are no news.
 */
static int reap(struct batch *b, char *err)
{
	struct ibv_wc wc[POLL_BATCH];
	int got, i;

	got = ibv_poll_cq(b->q->cq, POLL_BATCH, wc);
	if (got < 0) {
		if (!b->ret) {
			rdmap_say(err, "ibv_poll_cq failed");
			b->ret = -EIO;
		}
		return -1;
	}
	for (i = 0; i < got; i++) {
		/*
		 * An earlier call's?  None can be left: a call returns
		 * when all of its WRs have completed, or destroys the QP.
		 * Counting one would make us return too early, though.
		 */
		if (wc[i].wr_id >> OP_BITS != b->seq)
			continue;
		b->done++;
		if (wc[i].status != IBV_WC_SUCCESS && !b->ret)
			b->ret = wc_error(b, &wc[i], err);
	}
	return got;
}

/*
 * After a poll that found nothing: yield for SPIN polls; then arm the
 * CQ and return, so that the caller polls once more (a completion that
 * came between its last poll and the arming raises no event); then
 * sleep until an event, @until (-1: no deadline) or WAIT_MAX_MS.
 */
static void wait_cq(struct adxl_plugin_ep *q, unsigned int *idle, int64_t until)
{
	struct pollfd pfd = { .fd = q->ch->fd, .events = POLLIN };
	int64_t left = WAIT_MAX_MS;
	struct timespec ts;
	struct ibv_cq *cq;
	void *ctx;

	if (*idle < SPIN) {
		++*idle;
		sched_yield();
		return;
	}
	if (!q->armed) {
		if (!ibv_req_notify_cq(q->cq, 0)) {
			q->armed = true;
			return;
		}
		/* Cannot arm (never seen): poll every millisecond instead. */
		left = 1;
	}
	if (until >= 0) {
		int64_t l = until - rdmap_now_ms();

		if (l < left)
			left = l > 0 ? l : 0;
	}
	if (q->armed) {
		if (poll(&pfd, 1, (int)left) <= 0)
			return;
		/* Non-blocking fd: nothing there is EAGAIN, not a hang. */
		if (!ibv_get_cq_event(q->ch, &cq, &ctx)) {
			/* Each at once: the CQ cannot be destroyed before. */
			ibv_ack_cq_events(cq, 1);
			q->armed = false;
			return;
		}
		/*
		 * Readable but no event (POLLERR: the device went away?):
		 * the fd would wake us at once from now on, so sleep instead.
		 */
		left = 1;
	}
	ts.tv_sec = 0;
	ts.tv_nsec = (long)left * 1000000;
	nanosleep(&ts, NULL);
}

/*
 * After the first error or the deadline: the QP to the error state, and
 * every WR we posted back from the NIC before we return (see the top).
 */
static void fail_and_drain(struct batch *b, char *err)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct adxl_plugin_ep *q = b->q;
	int64_t end = rdmap_now_ms() + DRAIN_MS;
	unsigned int idle = 0;
	int got, e;

	__atomic_store_n(&q->failed, true, __ATOMIC_RELAXED);
	/* Also with nothing outstanding: the contract says error state. */
	ibv_modify_qp(q->qp, &attr, IBV_QP_STATE);
	while (b->done < b->posted) {
		got = reap(b, err);
		if (got < 0)
			break;
		if (got) {
			idle = 0;
			continue;
		}
		if (rdmap_now_ms() >= end)
			break;
		wait_cq(q, &idle, end);
	}
	if (b->done == b->posted)
		return;
	e = ibv_destroy_qp(q->qp);
	if (!e)
		q->qp = NULL;
	rdmap_append(err, "; %zu work requests not flushed %d s after the error state: %s",
		     b->posted - b->done, DRAIN_MS / 1000,
		     e ? "could not destroy the queue pair either" :
			 "destroyed the queue pair");
}

int rdmap_xfer(struct adxl_plugin_ep *q, bool write,
	       const struct adxl_plugin_op *ops, size_t n, int64_t deadline,
	       char *err)
{
	struct batch b = { .q = q, .write = write, .ops = ops, .n = n };
	struct adxl_plugin_ctx *r = q->r;
	unsigned int idle = 0;
	size_t window;
	int got, ret;

	/*
	 * Calls take turns; one that waits past its deadline for another
	 * (a large transfer, an async worker) has posted nothing and fails
	 * nothing: -EAGAIN, and the queue pair serves on.
	 */
	if (deadline >= 0) {
		/*
		 * timedlock takes CLOCK_REALTIME: the time left, from now.
		 * (Not pthread_mutex_clocklock: gcc 12's TSan does not know
		 * it and then reports every unlock as a bug.)
		 */
		int64_t left = deadline - rdmap_now_ms();
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		if (left > 0) {
			ts.tv_sec += left / 1000;
			ts.tv_nsec += (left % 1000) * 1000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
		}
		if (pthread_mutex_timedlock(&q->lock, &ts)) {
			rdmap_say(err, "the deadline passed while another call had the queue pair; nothing was posted");
			return -EAGAIN;
		}
	} else {
		pthread_mutex_lock(&q->lock);
	}
	if (rdmap_qp_failed(q)) {
		rdmap_say(err, "the queue pair failed earlier: connect again");
		ret = -ECONNRESET;
		goto out;
	}
	if (!q->connected) {
		rdmap_say(err, "the queue pair is not connected");
		ret = -EINVAL;
		goto out;
	}
	ret = n ? validate(&b, err) : 0;
	if (ret || !n)
		goto out;
	q->seq = (q->seq + 1) & 0xffffff;
	b.seq = q->seq;
	window = r->sq_depth;
	if (!write && r->rd_atomic < window)
		window = r->rd_atomic;

	if (deadline >= 0 && rdmap_now_ms() >= deadline) {
		rdmap_say(err, "the deadline had passed before the first %s; nothing was posted",
			  verb(&b));
		ret = -EAGAIN;
		goto out;
	}
	while (!b.ret) {
		if (b.next < n && b.posted - b.done < window)
			post_some(&b, window - (b.posted - b.done), err);
		if (b.ret)
			break;
		got = reap(&b, err);
		if (b.ret || (b.next == n && b.done == b.posted))
			break;
		if (deadline >= 0 && rdmap_now_ms() >= deadline) {
			rdmap_say(err, "the deadline passed with %zu of the %zu %ss posted unanswered, %zu of %zu ranges yet to post",
				  b.posted - b.done, b.posted, verb(&b),
				  n - b.next, n);
			b.ret = -ETIMEDOUT;
			break;
		}
		if (got)
			idle = 0;
		else
			wait_cq(q, &idle, deadline);
	}
	if (b.ret)
		fail_and_drain(&b, err);
	ret = b.ret;
out:
	pthread_mutex_unlock(&q->lock);
	free(b.lkeys);
	return ret;
}
