/*
 * sm/core/calls.c - the SMPs of the running phase: one sm_call per SMP on
 * the MAD queue, other routes tried when one stays silent, and the
 * phase's continuation (sm_phase_wait, sm_phase_feed, the paced FIFO).
 * Owns struct sm_calls; touches no other part of struct sm but the
 * model it routes by, the quarantine and the sweep figures.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "sm/core/log.h"
#include "sm/core/sm_priv.h"

#define SM_CALL_POOL 256 /* finished calls kept for reuse: no malloc per SMP */

/* One SMP in flight and what it needs to be asked again. */
struct sm_call {
	struct sm_call *next_free; /* in sm->calls.pool */
	struct sm_req req;
	void (*done)(struct sm_req *r, int status, const struct smp *resp);
	/* what was asked, so it can be asked again over another route */
	uint8_t method;
	uint16_t attr;
	uint32_t mod;
	uint8_t has_data;
	uint8_t data[SMP_DATA_SIZE];
	uint64_t guid; /* the node req.node was in sm->model, 0 if none */
	int heavy;     /* submitted by a heavy sweep (misses are recorded) */
	unsigned alt;  /* other routes tried so far */
};

static int sm_call_send(struct sm *sm, struct sm_call *c);

/* A finished call goes back to the pool; the queue's teardown (-ECANCELED,
 * after sm_calls_fini) frees. */
static void sm_call_release(struct sm *sm, struct sm_call *c, int teardown)
{
	if (teardown || sm->calls.pooled >= SM_CALL_POOL) {
		free(c);
		return;
	}
	c->next_free = sm->calls.pool;
	sm->calls.pool = c;
	sm->calls.pooled++;
}

/* The k-th other directed route to what c asks (see FABRIC_ALT_PATHS):
 * a switch asked over its own route, or the port behind a switch (a
 * NodeInfo probe, an end port) asked over that switch's route plus the
 * port.  0 and the route in c->req, or -ENOENT. */
static int sm_alt_route(struct sm *sm, struct sm_call *c, unsigned k)
{
	const struct fabric *f = sm->model;
	struct sm_req *r = &c->req;
	const struct fabric_node *n, *sw = NULL;
	const struct fabric_route *alt;
	int i = c->guid ? fabric_find(f, c->guid) : FABRIC_NONE;
	uint8_t extra = 0;

	if (i == FABRIC_NONE || k >= FABRIC_ALT_PATHS)
		return -ENOENT;
	n = &f->nodes[i];
	if (fabric_is_switch(n) && smp_same_route(r->path, r->hops, n->dr_path, n->dr_hops)) {
		sw = n;
	} else if (fabric_is_switch(n) && r->hops &&
		   smp_same_route(r->path, r->hops - 1, n->dr_path, n->dr_hops)) {
		sw = n; /* probe behind one of its ports */
		extra = r->path[r->hops];
	} else if (!fabric_is_switch(n) && r->port && r->port <= n->num_ports &&
		   n->ports[r->port].remote_node != FABRIC_NONE && r->hops) {
		const struct fabric_port *p = &n->ports[r->port];

		sw = &f->nodes[p->remote_node];
		extra = p->remote_port;
		if (!fabric_is_switch(sw) || r->path[r->hops] != extra ||
		    !smp_same_route(r->path, r->hops - 1, sw->dr_path, sw->dr_hops))
			return -ENOENT;
	}
	alt = sw ? fabric_route_get(sw, k) : NULL;
	if (!alt || !alt->hops || alt->hops + (extra ? 1 : 0) > FABRIC_MAX_HOPS)
		return -ENOENT;
	memset(r->path, 0, sizeof(r->path));
	memcpy(r->path, alt->path, (size_t)alt->hops + 1);
	r->hops = alt->hops;
	if (extra)
		r->path[++r->hops] = extra;
	return 0;
}

/* A switch answered over its k-th other route while its first did not:
 * use that one first from now on. */
static void sm_alt_promote(struct sm *sm, const struct sm_call *c, unsigned k)
{
	int i = fabric_find(sm->model, c->guid);
	struct fabric_node *n;
	struct fabric_route *alt;
	uint8_t hops, path[FABRIC_MAX_HOPS + 1];

	if (i == FABRIC_NONE)
		return;
	n = &sm->model->nodes[i];
	alt = fabric_is_switch(n) ? fabric_route_slot(n, k) : NULL;
	if (!alt || !smp_same_route(c->req.path, c->req.hops, alt->path, alt->hops))
		return;
	hops = n->dr_hops;
	memcpy(path, n->dr_path, sizeof(path));
	n->dr_hops = alt->hops;
	memcpy(n->dr_path, alt->path, sizeof(n->dr_path));
	alt->hops = hops;
	memcpy(alt->path, path, sizeof(path));
}

/* An SMP that failed for good: a heavy sweep remembers it (quarantine.h);
 * NodeDescription is cosmetic and not counted. */
static void sm_call_missed(struct sm *sm, const struct sm_call *c)
{
	if (!c->heavy || c->attr == SMP_ATTR_NODE_DESC)
		return;
	if (quar_miss(&sm->quar, sm->st.number, c->guid, c->req.port, c->attr, c->req.path,
		      c->req.hops) < 0)
		log_debug("quarantine: out of memory");
}

static void sm_call_done(void *arg, int status, const struct smp *resp)
{
	struct sm_call *c = arg;
	struct sm *sm = c->req.sm;
	char buf[200];

	/* no answer over this route: try another before giving up, unless
	 * the target is quarantined (it had its chances in earlier sweeps) */
	while (status == -ETIMEDOUT && c->heavy && c->alt < FABRIC_ALT_PATHS &&
	       !quar_held(&sm->quar, c->guid, c->req.port, c->attr)) {
		struct sm_req keep = c->req;

		if (sm_alt_route(sm, c, c->alt++) < 0) {
			c->req = keep;
			break;
		}
		sm->st.alt_tries++;
		log_debug("%s via %s: no answer, trying route %s", smp_attr_name(c->attr),
			  smp_path_str(keep.path, keep.hops, buf, sizeof(buf)),
			  smp_path_str(c->req.path, c->req.hops, (char[200]){0}, 200));
		if (sm_call_send(sm, c) == 0)
			return; /* still pending */
		c->req = keep;
	}
	if (status >= 0 && c->alt) {
		sm->st.alt_ok++;
		sm_alt_promote(sm, c, c->alt - 1);
	}
	if (status < 0 && status != -ECANCELED)
		sm_call_missed(sm, c);
	if (status != -ECANCELED)
		c->done(&c->req, status, resp);
	sm_call_release(sm, c, status == -ECANCELED);
	sm->calls.pending--;
	if (sm->calls.feed && sm->calls.pending <= SM_FEED_LOW) {
		sm_phase_fn more = sm->calls.feed;

		sm->calls.feed = NULL;
		more(sm);
	}
	if (sm->calls.pending == 0 && sm->calls.phase_done) {
		sm_phase_fn next = sm->calls.phase_done;

		sm->calls.phase_done = NULL;
		next(sm);
	}
}

int sm_submit(struct sm *sm, const struct sm_req *req, uint8_t method, uint16_t attr, uint32_t mod,
	      const uint8_t *data,
	      void (*done)(struct sm_req *r, int status, const struct smp *resp))
{
	struct sm_call *c = sm->calls.pool;
	int rc;

	if (c) {
		sm->calls.pool = c->next_free;
		sm->calls.pooled--;
		memset(c, 0, sizeof(*c));
	} else if (!(c = calloc(1, sizeof(*c)))) {
		return -ENOMEM;
	}
	c->req = *req;
	c->req.sm = sm;
	c->done = done;
	c->method = method;
	c->attr = attr;
	c->mod = mod;
	c->has_data = data != NULL;
	if (data)
		memcpy(c->data, data, SMP_DATA_SIZE);
	if (req->node >= 0 && (size_t)req->node < sm->model->n_nodes)
		c->guid = sm->model->nodes[req->node].guid;
	c->heavy = sm->sweep.heavy;
	sm->calls.pending++;
	rc = sm_call_send(sm, c);
	if (rc < 0) {
		sm->calls.pending--;
		sm_call_release(sm, c, 0);
	}
	return rc;
}

static int sm_call_send(struct sm *sm, struct sm_call *c)
{
	struct mad_addr to = {.lid = 0xffff};
	struct smp smp;

	smp_init_dr(&smp, c->method, c->attr, c->mod, c->req.path, c->req.hops);
	smp.mkey = sm->opts.m_key; /* every SMP: ports check it against theirs */
	if (c->has_data)
		memcpy(smp.data, c->data, SMP_DATA_SIZE);
	return mad_queue_submit(sm->q, &to, &smp, sm_call_done, c, sm_now(sm));
}

void sm_phase_wait(struct sm *sm, sm_phase_fn next_phase)
{
	if (sm->calls.pending == 0) {
		next_phase(sm);
		return;
	}
	sm->calls.phase_done = next_phase;
}

void sm_phase_feed(struct sm *sm, sm_phase_fn more)
{
	if (sm->calls.pending <= SM_FEED_LOW) {
		more(sm);
		return;
	}
	sm->calls.feed = more;
}

int sm_feed_walk(struct sm *sm, size_t *next, size_t n, void (*one)(struct sm *sm, size_t i),
		 sm_phase_fn more)
{
	while (*next < n && sm->calls.pending < SM_FEED_BATCH)
		one(sm, (*next)++);
	if (*next >= n)
		return 0;
	sm_phase_feed(sm, more);
	return 1;
}

/* Send what sm_submit_paced kept while there is room; come back when
 * there is more room. */
static void sm_deferred_feed(struct sm *sm)
{
	while (sm->calls.deferred_head < sm->calls.n_deferred &&
	       sm->calls.pending < SM_FEED_BATCH) {
		struct sm_deferred d = sm->calls.deferred[sm->calls.deferred_head++];

		if (sm_submit(sm, &d.req, SMP_METHOD_GET, d.attr, d.mod, NULL, d.done) < 0)
			log_warnx("NSM-E200 out of memory queuing %s", smp_attr_name(d.attr));
	}
	if (sm->calls.deferred_head < sm->calls.n_deferred) {
		sm_phase_feed(sm, sm_deferred_feed);
		return;
	}
	sm->calls.deferred_head = sm->calls.n_deferred = 0;
	if (sm->calls.cap_deferred > SM_FEED_BATCH) { /* a big walk is over: give it back */
		free(sm->calls.deferred);
		sm->calls.deferred = NULL;
		sm->calls.cap_deferred = 0;
	}
}

int sm_submit_paced(struct sm *sm, const struct sm_req *req, uint16_t attr, uint32_t mod,
		    void (*done)(struct sm_req *r, int status, const struct smp *resp))
{
	if (sm->calls.pending < SM_FEED_BATCH && sm->calls.deferred_head == sm->calls.n_deferred)
		return sm_submit(sm, req, SMP_METHOD_GET, attr, mod, NULL, done);
	if (sm->calls.n_deferred == sm->calls.cap_deferred) {
		size_t live = sm->calls.n_deferred - sm->calls.deferred_head;
		size_t cap = live * 2 > SM_FEED_BATCH ? live * 2 : SM_FEED_BATCH;
		struct sm_deferred *d = malloc(cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		if (live)
			memcpy(d, sm->calls.deferred + sm->calls.deferred_head, live * sizeof(*d));
		free(sm->calls.deferred);
		sm->calls.deferred = d;
		sm->calls.cap_deferred = cap;
		sm->calls.deferred_head = 0;
		sm->calls.n_deferred = live;
	}
	sm->calls.deferred[sm->calls.n_deferred++] = (struct sm_deferred){*req, attr, mod, done};
	if (!sm->calls.feed)
		sm_phase_feed(sm, sm_deferred_feed);
	return 0;
}

void sm_calls_fini(struct sm *sm)
{
	sm->calls.phase_done = NULL;
	sm->calls.feed = NULL;
	free(sm->calls.deferred);
	sm->calls.deferred = NULL;
	sm->calls.deferred_head = sm->calls.n_deferred = sm->calls.cap_deferred = 0;
	while (sm->calls.pool) {
		struct sm_call *c = sm->calls.pool;

		sm->calls.pool = c->next_free;
		free(c);
	}
	sm->calls.pooled = 0;
}
