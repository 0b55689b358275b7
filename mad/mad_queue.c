/*
 * mad_queue.c - the outstanding-MAD window: TIDs, matching, retries.
 *
 * Owns every pending request from submit to its one completion.  Pure: no
 * clock (callers pass now), no fds (struct mad_xmit sends), no logging.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/mad_queue.h"

#define MAD_QUEUE_TID_MASK 0xffffffffull /* the kernel owns the high 32 bits */
/* An attempt unanswered well past the usual round trip is probably lost:
 * it stops holding a window slot (it still waits for its timeout before
 * it is sent again), so one lossy part of the fabric does not stall the
 * rest of a sweep.  At most MAD_QUEUE_SPARE x window MADs are ever on the
 * wire, suspects included. */
#define MAD_QUEUE_SPARE 4
#define MAD_QUEUE_POOL 256 /* finished requests kept for reuse: no malloc per MAD */
#define MAD_QUEUE_SUSPECT_MIN_MS 5
/* When many attempts go unanswered, a request gets more of them: enough
 * for a 99 % chance at the loss seen lately, at most MAD_QUEUE_MORE x the
 * configured retries.  The loss is a running average of attempt
 * outcomes, in 1/1000. */
#define MAD_QUEUE_MORE 4

struct mad_pending {
	struct mad_pending *next; /* waiting FIFO link */
	struct mad_addr to;
	struct smp smp;
	mad_done_fn done;
	void *arg;
	uint64_t deadline;
	uint64_t sent_ms; /* when the current attempt went out */
	unsigned tries;
	uint8_t suspect; /* probably lost: no longer counted in the window */
};

struct mad_queue {
	struct mad_queue_opts opts;
	struct mad_xmit xmit;
	mad_request_fn on_request;
	void *request_arg;
	struct mad_pending **wire; /* wire_cap slots, NULL when free */
	size_t wire_cap;
	size_t on_wire;
	size_t suspects; /* of on_wire */
	uint64_t srtt_ms; /* smoothed round trip of first attempts (0: none yet) */
	unsigned loss_pm; /* attempts lost lately, per mille (running average) */
	int adapt;	  /* more attempts under loss allowed now (mad_queue_adapt) */
	int have_rtt;
	struct mad_pending *wait_head, *wait_tail;
	size_t waiting;
	uint32_t next_tid;
	struct mad_counters counters;
	struct mad_pending *pool; /* finished ones, linked by next */
	size_t pooled;
};

static void mad_queue_fill(struct mad_queue *q, uint64_t now_ms);

struct mad_queue *mad_queue_new(const struct mad_queue_opts *opts, const struct mad_xmit *xmit,
				mad_request_fn on_request, void *request_arg)
{
	struct mad_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->opts.window = opts && opts->window ? opts->window : 16;
	q->opts.timeout_ms = opts && opts->timeout_ms ? opts->timeout_ms : 200;
	q->opts.retries = opts ? opts->retries : 3;
	q->xmit = *xmit;
	q->on_request = on_request;
	q->request_arg = request_arg;
	q->next_tid = 1;
	q->wire_cap = (size_t)q->opts.window * MAD_QUEUE_SPARE;
	q->wire = calloc(q->wire_cap, sizeof(*q->wire));
	if (!q->wire) {
		free(q);
		return NULL;
	}
	return q;
}

/* Back to the pool (or freed past MAD_QUEUE_POOL) before done runs, so
 * a done that submits the next request reuses it at once. */
static void mad_queue_complete(struct mad_queue *q, struct mad_pending *p, int status,
			       const struct smp *resp)
{
	mad_done_fn done = p->done;
	void *arg = p->arg;

	if (q->pooled < MAD_QUEUE_POOL) {
		p->next = q->pool;
		q->pool = p;
		q->pooled++;
	} else {
		free(p);
	}
	if (done)
		done(arg, status, resp);
}

void mad_queue_free(struct mad_queue *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->wire_cap; i++) {
		struct mad_pending *p = q->wire[i];

		q->wire[i] = NULL;
		if (p)
			mad_queue_complete(q, p, -ECANCELED, NULL);
	}
	while (q->wait_head) {
		struct mad_pending *p = q->wait_head;

		q->wait_head = p->next;
		mad_queue_complete(q, p, -ECANCELED, NULL);
	}
	while (q->pool) {
		struct mad_pending *p = q->pool;

		q->pool = p->next;
		free(p);
	}
	free(q->wire);
	free(q);
}

static int mad_queue_transmit(struct mad_queue *q, const struct mad_addr *to, const struct smp *smp)
{
	uint8_t buf[SMP_MAD_SIZE];
	int rc = smp_encode(smp, buf, sizeof(buf));

	if (rc == 0)
		rc = q->xmit.send(q->xmit.ctx, to, buf, sizeof(buf));
	if (rc < 0) {
		q->counters.send_errors++;
		return rc;
	}
	q->counters.sent++;
	return 0;
}

/* Put p on the wire in a free slot; completes it with -EIO on failure. */
static void mad_queue_launch(struct mad_queue *q, struct mad_pending *p, uint64_t now_ms)
{
	unsigned slot = 0;

	while (q->wire[slot])
		slot++;
	p->tries = 1;
	p->deadline = now_ms + q->opts.timeout_ms;
	p->sent_ms = now_ms;
	p->suspect = 0;
	if (mad_queue_transmit(q, &p->to, &p->smp) < 0) {
		mad_queue_complete(q, p, -EIO, NULL);
		return;
	}
	q->wire[slot] = p;
	q->on_wire++;
}

static void mad_queue_fill(struct mad_queue *q, uint64_t now_ms)
{
	while (q->on_wire - q->suspects < q->opts.window && q->on_wire < q->wire_cap &&
	       q->wait_head) {
		struct mad_pending *p = q->wait_head;

		q->wait_head = p->next;
		if (!q->wait_head)
			q->wait_tail = NULL;
		q->waiting--;
		mad_queue_launch(q, p, now_ms);
	}
}

int mad_queue_submit(struct mad_queue *q, const struct mad_addr *to, const struct smp *smp,
		     mad_done_fn done, void *arg, uint64_t now_ms)
{
	struct mad_pending *p = q->pool;

	if (p) {
		q->pool = p->next;
		q->pooled--;
		memset(p, 0, sizeof(*p));
	} else if (!(p = calloc(1, sizeof(*p)))) {
		return -ENOMEM;
	}
	p->to = *to;
	p->smp = *smp;
	p->smp.tid = q->next_tid++;
	if (q->next_tid == 0)
		q->next_tid = 1;
	p->done = done;
	p->arg = arg;
	if (q->wait_tail)
		q->wait_tail->next = p;
	else
		q->wait_head = p;
	q->wait_tail = p;
	q->waiting++;
	mad_queue_fill(q, now_ms);
	return 0;
}

int mad_queue_send_oneway(struct mad_queue *q, const struct mad_addr *to, const struct smp *smp)
{
	return mad_queue_transmit(q, to, smp);
}

static int mad_queue_find(const struct mad_queue *q, uint64_t tid)
{
	for (size_t i = 0; i < q->wire_cap; i++) {
		const struct mad_pending *p = q->wire[i];

		if (p && (p->smp.tid & MAD_QUEUE_TID_MASK) == (tid & MAD_QUEUE_TID_MASK))
			return (int)i;
	}
	return -1;
}

/* Does resp answer req?  Same attribute and class; a directed-route
 * answer must be on its way back (D bit) along the request's own path:
 * a response with our TID from anywhere else is not ours (IBA 14.2.2). */
static int mad_queue_answers(const struct smp *req, const struct smp *resp)
{
	if (req->attr_id != resp->attr_id || req->mgmt_class != resp->mgmt_class)
		return 0;
	if (req->mgmt_class != SMP_CLASS_DR)
		return 1;
	return resp->direction && resp->hop_cnt == req->hop_cnt &&
	       memcmp(&resp->initial_path[1], &req->initial_path[1], req->hop_cnt) == 0;
}

static void mad_queue_match(struct mad_queue *q, const struct smp *resp, uint64_t now_ms)
{
	int slot = mad_queue_find(q, resp->tid);
	struct mad_pending *p;

	if (slot < 0 || !mad_queue_answers(&q->wire[slot]->smp, resp)) {
		q->counters.unmatched++;
		return;
	}
	p = q->wire[slot];
	q->wire[slot] = NULL;
	q->on_wire--;
	if (p->suspect)
		q->suspects--;
	if (p->tries == 1 && now_ms >= p->sent_ms) { /* first attempts only (Karn) */
		uint64_t rtt = now_ms - p->sent_ms;

		q->srtt_ms = q->have_rtt ? (7 * q->srtt_ms + rtt) / 8 : rtt;
		q->have_rtt = 1;
	}
	q->counters.received++;
	q->loss_pm -= q->loss_pm / 16;
	mad_queue_complete(q, p, resp->status ? -EREMOTEIO : 0, resp);
	mad_queue_fill(q, now_ms);
}

void mad_queue_recv(struct mad_queue *q, const struct mad_addr *from, const uint8_t *mad,
		    size_t len, uint64_t now_ms)
{
	struct smp smp;

	if (smp_decode(mad, len, &smp) < 0) {
		q->counters.malformed++;
		return;
	}
	if (smp.method & 0x80) {
		mad_queue_match(q, &smp, now_ms);
		return;
	}
	q->counters.requests++;
	if (q->on_request)
		q->on_request(q->request_arg, from, &smp);
}

/* How long past its send an attempt is suspected lost: four smoothed
 * round trips, at least MAD_QUEUE_SUSPECT_MIN_MS; never before a first
 * answer gave a round trip, never past the timeout. */
static uint64_t mad_queue_suspect_ms(const struct mad_queue *q)
{
	uint64_t ms = 4 * q->srtt_ms + MAD_QUEUE_SUSPECT_MIN_MS;

	if (!q->have_rtt || ms > q->opts.timeout_ms)
		return q->opts.timeout_ms;
	return ms;
}

void mad_queue_adapt(struct mad_queue *q, int on)
{
	q->adapt = on != 0;
}

unsigned mad_queue_retries_now(const struct mad_queue *q)
{
	unsigned n = q->opts.retries, cap = q->opts.retries * MAD_QUEUE_MORE;
	uint64_t all_lost = 1000; /* per mille: every one of n + 1 attempts lost */

	if (!q->adapt || q->loss_pm < 100 || q->loss_pm >= 1000)
		return n;
	for (unsigned i = 0; i <= n; i++)
		all_lost = all_lost * q->loss_pm / 1000;
	while (all_lost > 10 && n < cap) {
		all_lost = all_lost * q->loss_pm / 1000;
		n++;
	}
	return n;
}

static void mad_queue_drop_slot(struct mad_queue *q, size_t i)
{
	if (q->wire[i]->suspect)
		q->suspects--;
	q->wire[i] = NULL;
	q->on_wire--;
}

uint64_t mad_queue_tick(struct mad_queue *q, uint64_t now_ms)
{
	uint64_t next = 0, suspect_ms = mad_queue_suspect_ms(q);
	unsigned retries = mad_queue_retries_now(q);

	for (size_t i = 0; i < q->wire_cap; i++) {
		struct mad_pending *p = q->wire[i];

		if (!p)
			continue;
		if (p->deadline > now_ms) {
			if (!p->suspect && now_ms >= p->sent_ms + suspect_ms) {
				p->suspect = 1;
				q->suspects++;
			}
			continue;
		}
		q->loss_pm += (1000 - q->loss_pm) / 16; /* this attempt is lost */
		if (p->tries > retries) {
			mad_queue_drop_slot(q, i);
			q->counters.timeouts++;
			mad_queue_complete(q, p, -ETIMEDOUT, NULL);
			continue;
		}
		p->tries++;
		p->deadline = now_ms + q->opts.timeout_ms;
		p->sent_ms = now_ms;
		q->counters.retries++;
		if (mad_queue_transmit(q, &p->to, &p->smp) < 0) {
			mad_queue_drop_slot(q, i);
			mad_queue_complete(q, p, -EIO, NULL);
		}
	}
	mad_queue_fill(q, now_ms);
	for (size_t i = 0; i < q->wire_cap; i++) {
		const struct mad_pending *p = q->wire[i];
		uint64_t due;

		if (!p)
			continue;
		due = p->suspect ? p->deadline : p->sent_ms + suspect_ms;
		if (due > p->deadline)
			due = p->deadline;
		if (next == 0 || due < next)
			next = due;
	}
	return next;
}

size_t mad_queue_outstanding(const struct mad_queue *q)
{
	return q->on_wire + q->waiting;
}

const struct mad_counters *mad_queue_counters(const struct mad_queue *q)
{
	return &q->counters;
}
