/*
 * sm/core/sm.c - the SM core's orchestration: the sweep's phase chain, SMP
 * bookkeeping, SMInfo answers and traps.  The phases themselves live in
 * discover.c, configure.c and lft_push.c.  No fds, no event loop here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/guid2lid.h"
#include "sm/core/log.h"
#include "sm/core/mft_push.h"
#include "sm/core/pkey_push.h"
#include "sm/core/sm_priv.h"
#include "sm/core/topo_diff.h"
#include "sm/sa/mcast.h"
#include "sm/sa/services.h"

struct sm_call {
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

static void sm_on_request(void *arg, const struct mad_addr *from, const struct smp *req);
static void sm_count(struct sm *sm, const struct fabric *f);
static void sm_after_discover(struct sm *sm);
static void sm_parts_free(struct policy_partition *parts, size_t n);
static void sm_sa_release(struct sm *sm, size_t max);
static void sm_rejected(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len);

uint64_t sm_now(const struct sm *sm)
{
	return sm->clock.now_ms(sm->clock.ctx);
}

struct sm *sm_new(const struct sm_opts *opts, const struct mad_xmit *xmit,
		  const struct sm_clock *clock)
{
	struct sm *sm = calloc(1, sizeof(*sm));

	if (!sm)
		return NULL;
	sm->opts = *opts;
	if (!sm->opts.subnet_prefix)
		sm->opts.subnet_prefix = 0xfe80000000000000ull;
	if (!sm->opts.subnet_timeout)
		sm->opts.subnet_timeout = 18;
	sm->clock = *clock;
	sm->ha.state = SM_STATE_DISCOVERING;
	fabric_init(&sm->cur);
	fabric_init(&sm->next);
	sm->model = &sm->cur;
	quar_init(&sm->quar);
	lft_set_init(&sm->lfts);
	sm->xmit = *xmit;
	sm->q = mad_queue_new(&sm->opts.mad, xmit, sm_on_request, sm);
	sm->sa = sa_new(xmit);
	pkey_plan_init(&sm->pk);
	pkey_plan_init(&sm->pk_next);
	sm->pkc = pkey_cache_new();
	sm->mftc = mft_cache_new();
	mft_set_init(&sm->mft_want);
	if (!sm->q || !sm->sa || !sm->pkc || !sm->mftc ||
	    /* no policy yet: the default partition and its IPoIB group */
	    sm_set_partitions(sm, NULL, 0) < 0 || lid_alloc_init(&sm->lids, LID_UNICAST_MAX) < 0 ||
	    sm_set_routing(sm, opts->engine ? opts->engine : "minhop", opts->roots, opts->n_roots,
			   1, NULL, 0) < 0) {
		sm_free(sm);
		return NULL;
	}
	return sm;
}

void sm_free(struct sm *sm)
{
	if (!sm)
		return;
	sm->phase_done = NULL;
	sm->feed = NULL;
	mad_queue_free(sm->q); /* completes pending SMPs with -ECANCELED */
	free(sm->deferred);
	sa_free(sm->sa);
	free(sm->sa_q);
	pkey_plan_fini(&sm->pk);
	pkey_plan_fini(&sm->pk_next);
	pkey_cache_free(sm->pkc);
	mft_cache_free(sm->mftc);
	mft_set_fini(&sm->mft_want);
	sm_parts_free(sm->parts, sm->n_parts);
	pkey_warn_forget(sm);
	lid_alloc_fini(&sm->lids);
	fabric_fini(&sm->cur);
	fabric_fini(&sm->next);
	quar_fini(&sm->quar);
	lft_set_fini(&sm->lfts);
	lft_cache_fini(&sm->cache);
	lft_steps_free(sm); /* freed in the middle of a push */
	free(sm->prog);
	configure_fini(sm);
	lid_static_fini(sm);
	free(sm->roots);
	free(sm->names);
	free(sm);
}

static int sm_name_cmp(const void *a, const void *b)
{
	const struct policy_node_name *x = a, *y = b;

	return (x->guid > y->guid) - (x->guid < y->guid);
}

int sm_set_names(struct sm *sm, const uint64_t *guids, const char *const *names, size_t n)
{
	struct policy_node_name *v = n ? calloc(n, sizeof(*v)) : NULL;

	if (n && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i].guid = guids[i];
		snprintf(v[i].name, sizeof(v[i].name), "%s", names[i]);
	}
	if (n)
		qsort(v, n, sizeof(*v), sm_name_cmp);
	free(sm->names);
	sm->names = v;
	sm->n_names = n;
	return 0;
}

const char *sm_name_of(const struct sm *sm, uint64_t guid)
{
	struct policy_node_name key = {.guid = guid};
	const struct policy_node_name *hit;

	if (!sm->n_names)
		return NULL;
	hit = bsearch(&key, sm->names, sm->n_names, sizeof(key), sm_name_cmp);
	return hit ? hit->name : NULL;
}

int sm_set_routing(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
		   int force, char *err, size_t errlen)
{
	char why[768];
	uint64_t *copy = NULL;

	if (strlen(engines) >= sizeof(sm->engines)) {
		snprintf(why, sizeof(why), "engine list too long");
		goto refuse;
	}
	if (!force && lft_push_dry_run(sm, engines, roots, n_roots, NULL, why, sizeof(why)) < 0)
		goto refuse;
	if (n_roots && !(copy = malloc(n_roots * sizeof(*copy))))
		return -ENOMEM;
	if (n_roots)
		memcpy(copy, roots, n_roots * sizeof(*copy));
	free(sm->roots);
	sm->roots = copy;
	snprintf(sm->engines, sizeof(sm->engines), "%s", engines);
	sm->opts.engine = sm->engines;
	sm->opts.roots = sm->roots;
	sm->opts.n_roots = n_roots;
	return 0;
refuse:
	if (err)
		snprintf(err, errlen, "%s", why);
	return -EINVAL;
}

void sm_set_priority(struct sm *sm, uint8_t priority)
{
	sm->opts.priority = priority;
}

void sm_set_lid_reclaim_age(struct sm *sm, unsigned seconds)
{
	sm->opts.lid_reclaim_age = seconds;
}

int sm_reserve_lid(struct sm *sm, uint64_t guid, uint16_t lid)
{
	return lid_alloc_reserve(&sm->lids, guid, lid);
}

int sm_load_lids(struct sm *sm)
{
	uint64_t now = sm->clock.wall_s ? sm->clock.wall_s(sm->clock.ctx) : 0;
	struct guid2lid_report r;
	int rc;

	if (!sm->opts.guid2lid)
		return 0;
	rc = guid2lid_load(sm->opts.guid2lid, &sm->lids, now, &r);
	for (size_t i = 0; i < r.n_msg; i++) {
		if (r.msg[i].warn)
			log_warnx("%s", r.msg[i].text);
		else
			log_info("%s", r.msg[i].text);
	}
	guid2lid_report_fini(&r);
	if (rc < 0)
		log_warnx("NSM-E110 %s: %s", sm->opts.guid2lid, strerror(-rc));
	return rc;
}

void sm_set_sweep_done(struct sm *sm, sm_sweep_done_fn fn, void *arg)
{
	sm->done_fn = fn;
	sm->done_arg = arg;
}

int sm_busy(const struct sm *sm)
{
	return sm->running;
}

size_t sm_outstanding(const struct sm *sm)
{
	return mad_queue_outstanding(sm->q);
}

static int sm_call_send(struct sm *sm, struct sm_call *c);

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
	free(c);
	sm->pending--;
	if (sm->feed && sm->pending <= SM_FEED_LOW) {
		sm_phase_fn more = sm->feed;

		sm->feed = NULL;
		more(sm);
	}
	if (sm->pending == 0 && sm->phase_done) {
		sm_phase_fn next = sm->phase_done;

		sm->phase_done = NULL;
		next(sm);
	}
}

int sm_submit(struct sm *sm, const struct sm_req *req, uint8_t method, uint16_t attr, uint32_t mod,
	      const uint8_t *data,
	      void (*done)(struct sm_req *r, int status, const struct smp *resp))
{
	struct sm_call *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return -ENOMEM;
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
	c->heavy = sm->heavy;
	sm->pending++;
	rc = sm_call_send(sm, c);
	if (rc < 0) {
		sm->pending--;
		free(c);
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
	if (sm->pending == 0) {
		next_phase(sm);
		return;
	}
	sm->phase_done = next_phase;
}

void sm_phase_feed(struct sm *sm, sm_phase_fn more)
{
	if (sm->pending <= SM_FEED_LOW) {
		more(sm);
		return;
	}
	sm->feed = more;
}

int sm_feed_walk(struct sm *sm, size_t *next, size_t n, void (*one)(struct sm *sm, size_t i),
		 sm_phase_fn more)
{
	while (*next < n && sm->pending < SM_FEED_BATCH)
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
	while (sm->deferred_head < sm->n_deferred && sm->pending < SM_FEED_BATCH) {
		struct sm_deferred d = sm->deferred[sm->deferred_head++];

		if (sm_submit(sm, &d.req, SMP_METHOD_GET, d.attr, d.mod, NULL, d.done) < 0)
			log_warnx("NSM-E200 out of memory queuing %s", smp_attr_name(d.attr));
	}
	if (sm->deferred_head < sm->n_deferred) {
		sm_phase_feed(sm, sm_deferred_feed);
		return;
	}
	sm->deferred_head = sm->n_deferred = 0;
	if (sm->cap_deferred > SM_FEED_BATCH) { /* a big walk is over: give it back */
		free(sm->deferred);
		sm->deferred = NULL;
		sm->cap_deferred = 0;
	}
}

int sm_submit_paced(struct sm *sm, const struct sm_req *req, uint16_t attr, uint32_t mod,
		    void (*done)(struct sm_req *r, int status, const struct smp *resp))
{
	if (sm->pending < SM_FEED_BATCH && sm->deferred_head == sm->n_deferred)
		return sm_submit(sm, req, SMP_METHOD_GET, attr, mod, NULL, done);
	if (sm->n_deferred == sm->cap_deferred) {
		size_t live = sm->n_deferred - sm->deferred_head;
		size_t cap = live * 2 > SM_FEED_BATCH ? live * 2 : SM_FEED_BATCH;
		struct sm_deferred *d = malloc(cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		if (live)
			memcpy(d, sm->deferred + sm->deferred_head, live * sizeof(*d));
		free(sm->deferred);
		sm->deferred = d;
		sm->cap_deferred = cap;
		sm->deferred_head = 0;
		sm->n_deferred = live;
	}
	sm->deferred[sm->n_deferred++] = (struct sm_deferred){*req, attr, mod, done};
	if (!sm->feed)
		sm_phase_feed(sm, sm_deferred_feed);
	return 0;
}

enum sm_subnet sm_subnet_state(const struct sm_sweep_stats *st)
{
	if (st->status || st->sm_state != SM_STATE_MASTER)
		return SM_SUBNET_NO;
	if (!st->incomplete_run)
		return SM_SUBNET_COMPLETE;
	return st->incomplete_run >= SM_DEGRADED_AFTER ? SM_SUBNET_DEGRADED : SM_SUBNET_NO;
}

/* The sweep's misses against the earlier ones: what is quarantined now
 * (logged once, by GUID and route) and what answers again. */
static void sm_quar_end(struct sm *sm)
{
	struct quar_entry fresh[8], gone[8];
	size_t nf, ng;
	char buf[200];

	quar_sweep_end(&sm->quar, sm->st.number, fresh, 8, &nf, gone, 8, &ng);
	for (size_t i = 0; i < nf; i++)
		log_warnx(
		    "NSM-W230 quarantined: %s of 0x%016llx port %u via %s failed in %u "
		    "sweeps in a row; no other routes are tried for it, it is asked again "
		    "every sweep",
		    smp_attr_name(fresh[i].attr), (unsigned long long)fresh[i].guid, fresh[i].port,
		    smp_path_str(fresh[i].path, fresh[i].hops, buf, sizeof(buf)), fresh[i].misses);
	for (size_t i = 0; i < ng; i++)
		log_info("quarantine over: %s of 0x%016llx port %u answers again",
			 smp_attr_name(gone[i].attr), (unsigned long long)gone[i].guid,
			 gone[i].port);
	sm->st.quarantined = quar_count(&sm->quar);
}

void sm_sweep_end(struct sm *sm)
{
	sm->model = &sm->cur;
	sm->heavy = 0;
	mad_queue_adapt(sm->q, 0);
	sm_quar_end(sm);
	sm->st.sm_state = sm->ha.state;
	sm->st.mads_sent = mad_queue_counters(sm->q)->sent - sm->mads_at_start;
	sm->st.sweep_ms = sm_now(sm) - sm->sweep_start_ms;
	if (!sm->st.engine)
		sm->st.engine = "none";
	sm->running = 0;
	/* a sweep that failed or left work undone (nodes that did not
	 * answer, Sets that failed, ports without a LID) is followed by a
	 * heavy sweep at the next interval, not a light one: a light sweep
	 * would see no change and leave the fabric half programmed */
	sm->heavy_due =
	    sm->st.status || sm->st.unreachable || sm->st.set_errors || sm->st.lid_failures;
	sm->incomplete_run = sm->heavy_due ? sm->incomplete_run + 1 : 0;
	sm->st.incomplete_run = sm->incomplete_run;
	/* and soon: 0.5 s, doubling per sweep that is still incomplete, at
	 * most SM_RETRY_MAX_MS (a node that never answers is retried at that
	 * pace without holding anything else up) */
	if (!sm->heavy_due) {
		sm->retry_ms = 0;
		sm->retry_due_ms = 0;
	} else {
		sm->retry_ms = sm->retry_ms ? sm->retry_ms * 2 : SM_RETRY_FIRST_MS;
		if (sm->retry_ms > SM_RETRY_MAX_MS)
			sm->retry_ms = SM_RETRY_MAX_MS;
		sm->retry_due_ms = sm_now(sm) + sm->retry_ms;
	}
	if (sm->done_fn)
		sm->done_fn(sm->done_arg, &sm->st);
	sm_sa_release(sm, 0);
	if (sm->sweep_pending && !sm->running) {
		sm->sweep_pending = 0;
		sm_sweep_request(sm);
	}
}

void sm_sweep_fail(struct sm *sm, int status, const char *why)
{
	log_warnx("NSM-E100 sweep %u failed: %s; keeping the last good state", sm->st.number, why);
	sm->st.status = status;
	sm_count(sm, &sm->next);
	sm_sweep_end(sm);
}

static void sm_count(struct sm *sm, const struct fabric *f)
{
	sm->st.switches = fabric_count_switches(f);
	sm->st.cas = fabric_count_cas(f);
	sm->st.ports = 0;
	sm->st.lids = 0;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = fabric_is_switch(n) ? 0 : 1; p <= n->num_ports; p++) {
			if (!n->ports[p].present)
				continue;
			sm->st.ports++;
			if ((p == 0 || !fabric_is_switch(n)) && n->ports[p].lid)
				sm->st.lids++;
		}
	}
}

/* Did this sweep change what the SA's path answers depend on? */
static int sm_routes_changed(const struct sm *sm, const struct fabric *old)
{
	const struct sm_sweep_stats *st = &sm->st;

	return st->lft_blocks_sent || st->port_sets || st->state_sets || st->pkey_blocks_sent ||
	       old->n_nodes != sm->cur.n_nodes || st->number == 1;
}

/* Hand the SA the committed model (cur, its LFTs, its partition plan). */
static void sm_update_sa(struct sm *sm)
{
	struct sa_view v = {
	    .f = &sm->cur,
	    .lfts = sm_lfts(sm),
	    .pk = &sm->pk,
	    .mfts = &sm->mft_want,
	    .subnet_prefix = sm->opts.subnet_prefix,
	    .sm_lid = sm->my_lid,
	    .sm_guid = sm->opts.port_guid,
	    .sm_key = sm->opts.sm_key,
	    .sm_priority = sm->opts.priority,
	    .sm_state = SM_STATE_MASTER,
	    .sm_act_count = sm->act_count,
	    .subnet_timeout = sm->opts.subnet_timeout,
	    .route_gen = sm->route_gen,
	};

	if (sa_update(sm->sa, &v) < 0)
		log_warnx("NSM-E800 SA: out of memory building its view; answering no records");
}

/* ---- multicast: MFTs follow the SA's groups -------------------------- */

static void sm_after_mfts(struct sm *sm);

/* Compute the trees of every group on cur and push the blocks that
 * differ; runs at the end of each sweep and whenever a join or leave
 * changed the groups between sweeps. */
static void sm_push_mfts(struct sm *sm)
{
	struct mcast_db *db = sm->sa->mcast;

	sm->mcast_gen = mcast_db_gen(db);
	if (mcast_mft_compute(sm->sa, &sm->mft_want) < 0) {
		log_warnx("NSM-E432 multicast trees not computed (out of memory); MFTs unchanged");
		sm_after_mfts(sm);
		return;
	}
	mft_push_start(sm, &sm->cur, &sm->mft_want, sm->mftc, sm_after_mfts);
}

static void sm_after_mfts(struct sm *sm)
{
	if (mcast_db_gen(sm->sa->mcast) != sm->mcast_gen) {
		sm_push_mfts(sm); /* groups changed while we pushed */
		return;
	}
	if (!sm->mcast_only) {
		sm_sweep_end(sm);
		return;
	}
	log_info("multicast: %zu MFT blocks pushed after group changes",
		 sm->st.mft_blocks_sent - sm->mft_blocks_at);
	sm->mcast_only = 0;
	sm->running = 0;
	sm_sa_release(sm, 0);
	if (sm->sweep_pending && !sm->running) {
		sm->sweep_pending = 0;
		sm_sweep_request(sm);
	}
}

/* A join or leave between sweeps: push now (a sweep in progress pushes
 * at its end anyway). */
static void sm_mcast_check(struct sm *sm)
{
	if (sm->running || !sm_lfts(sm) || mcast_db_gen(sm->sa->mcast) == sm->mcast_gen)
		return;
	sm->running = 1;
	sm->mcast_only = 1;
	sm->mft_blocks_at = sm->st.mft_blocks_sent;
	sm_push_mfts(sm);
}

/* Does f hold an end port (CA/router port with a LID) like node n port p? */
static int sm_has_end_port(const struct fabric *f, const struct fabric_node *n, unsigned p)
{
	int i = fabric_find(f, n->guid);

	return i != FABRIC_NONE && p <= f->nodes[i].num_ports && f->nodes[i].ports[p].present &&
	       f->nodes[i].ports[p].lid;
}

/* Traps 64/65 to the SA's subscribers: end ports of `to` missing from
 * `from` came into service (64) or, the other way round, left it (65). */
static void sm_port_events(struct sm *sm, const struct fabric *from, const struct fabric *to,
			   int trap)
{
	uint8_t gid[16];

	for (size_t i = 0; i < to->n_nodes; i++) {
		const struct fabric_node *n = &to->nodes[i];

		if (fabric_is_switch(n))
			continue;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			if (!n->ports[p].present || !n->ports[p].lid || sm_has_end_port(from, n, p))
				continue;
			sa_gid_make(sm->opts.subnet_prefix, n->ports[p].guid, gid);
			sa_svc_port_event(sm->sa, gid, trap, sm_now(sm));
		}
	}
}

static void sm_commit_pkeys(struct sm *sm)
{
	struct pkey_plan t = sm->pk;

	sm->pk = sm->pk_next;
	sm->pk_next = t;
	pkey_plan_fini(&sm->pk_next);
}

#define SM_CHANGES_SAID 20 /* changes logged one per line after a sweep */

/* The first SM_CHANGES_SAID changes of one topo_diff pass (the nodes are
 * borrowed from the two models, which outlive the report). */
struct sm_change {
	enum topo_change what;
	const struct fabric_node *a, *b;
	unsigned pa, pb;
};

struct sm_changes {
	struct sm_change c[SM_CHANGES_SAID];
	unsigned n;
};

static void sm_change_keep(void *arg, enum topo_change what, const struct fabric_node *a,
			   unsigned pa, const struct fabric_node *b, unsigned pb)
{
	struct sm_changes *ch = arg;

	if (ch->n < SM_CHANGES_SAID)
		ch->c[ch->n] = (struct sm_change){what, a, b, pa, pb};
	ch->n++;
}

/* What this sweep changed against the last good model (after the first):
 * one summary line, then one line per node or cable (at most 20). */
static void sm_report_changes(const struct fabric *was, const struct fabric *now, unsigned sweep)
{
	static const char *const verb[] = {"node new", "node gone", "cable up", "cable down"};
	struct topo_diff_counts c;
	struct sm_changes ch = {.n = 0};

	if (!was->n_nodes)
		return;
	topo_diff(was, now, sm_change_keep, &ch, &c);
	if (!ch.n)
		return;
	log_info("sweep %u changed the subnet: %zu nodes new, %zu gone, %zu cables up, %zu down",
		 sweep, c.nodes_new, c.nodes_gone, c.links_up, c.links_down);
	for (unsigned i = 0; i < ch.n && i < SM_CHANGES_SAID; i++) {
		const struct fabric_node *a = ch.c[i].a, *b = ch.c[i].b;

		if (!b)
			log_info("  %s: 0x%016llx (%s)", verb[ch.c[i].what],
				 (unsigned long long)a->guid, a->desc);
		else
			log_info("  %s: 0x%016llx (%s) port %u - 0x%016llx (%s) port %u",
				 verb[ch.c[i].what], (unsigned long long)a->guid, a->desc,
				 ch.c[i].pa, (unsigned long long)b->guid, b->desc, ch.c[i].pb);
	}
	if (ch.n > SM_CHANGES_SAID)
		log_info("  ... and %u more", ch.n - SM_CHANGES_SAID);
}

static void sm_after_active(struct sm *sm)
{
	struct fabric old = sm->cur;

	sm->cur = sm->next;
	sm->next = old;
	sm->model = &sm->cur;
	sm->lfts_ahead = 0;
	if (sm_routes_changed(sm, &sm->next))
		sm->route_gen++;
	sm_commit_pkeys(sm);
	sm_count(sm, &sm->cur);
	sm->st.status = 0;
	sm_update_sa(sm);
	mcast_policy_fit_check(sm);
	sm_report_changes(&sm->next, &sm->cur, sm->st.number);
	sm_port_events(sm, &sm->next, &sm->cur, 64);
	sm_port_events(sm, &sm->cur, &sm->next, 65);
	fabric_fini(&sm->next);
	fabric_init(&sm->next);
	sm_push_mfts(sm);
}

static void sm_after_arm(struct sm *sm)
{
	configure_states(sm, PORT_STATE_ARMED, PORT_STATE_ACTIVE, sm_after_active);
}

static void sm_after_pkeys(struct sm *sm)
{
	configure_states(sm, PORT_STATE_INIT, PORT_STATE_ARMED, sm_after_arm);
}

/* Partitions: the plan for next (built before the ports are configured,
 * which enforce it on switch ports), then the P_Key tables that differ. */
static int sm_plan_pkeys(struct sm *sm)
{
	char err[256];

	pkey_warn_sweep(sm, &sm->next);
	if (pkey_plan_build(&sm->pk_next, sm->parts, sm->n_parts, sm->names, sm->n_names, &sm->next,
			    sm->next.sm_node, sm->next.sm_port, err, sizeof(err)) == 0)
		return 0;
	log_warnx("NSM-E421 partitions not programmed this sweep: %s", err);
	pkey_plan_fini(&sm->pk_next);
	return -1;
}

static void sm_after_lfts(struct sm *sm)
{
	if (!sm->pk_next.n) { /* the plan failed: leave the tables as they are */
		sm_after_pkeys(sm);
		return;
	}
	pkey_push_start(sm, &sm->pk_next, sm->pkc, sm_after_pkeys);
}

static void sm_after_ports(struct sm *sm)
{
	if (lft_push_compute(sm) < 0) {
		sm_sweep_fail(sm, -EINVAL, "routing failed");
		return;
	}
	lft_push_start(sm, sm_after_lfts);
}

/* Master (or staying master) after the SMInfo check: program the subnet. */
static void sm_after_ha(struct sm *sm)
{
	if (configure_lids(sm) < 0) {
		sm_sweep_fail(sm, -ENOMEM, "LID assignment failed");
		return;
	}
	sm_plan_pkeys(sm);
	configure_ports(sm, sm_after_ports);
}

static void sm_after_discover(struct sm *sm)
{
	if (sm->next.sm_node == FABRIC_NONE) {
		sm_sweep_fail(sm, -EHOSTUNREACH, "the SM's own port did not answer NodeInfo");
		return;
	}
	ha_check_start(sm, sm_after_ha);
}

int sm_sweep_request(struct sm *sm)
{
	if (sm->ha.state == SM_STATE_STANDBY || sm->ha.state == SM_STATE_NOT_ACTIVE) {
		log_debug("%s: no sweep (another SM programs the subnet)",
			  smp_sm_state_name(sm->ha.state));
		return -EPERM;
	}
	if (sm->running) {
		sm->sweep_pending = 1;
		return -EBUSY;
	}
	memset(&sm->st, 0, sizeof(sm->st));
	sm->running = 1;
	sm->st.number = ++sm->sweeps;
	sm->sweep_start_ms = sm_now(sm);
	sm->mads_at_start = mad_queue_counters(sm->q)->sent;
	fabric_fini(&sm->next);
	fabric_init(&sm->next);
	sm->model = &sm->next;
	sm->heavy = 1;
	mad_queue_adapt(sm->q, 1);
	discover_start(sm, sm_after_discover);
	return 0;
}

/* ---- SA requests during a sweep ------------------------------------------ */

/* Only the master's SA serves (IBA 15.1): anywhere else the request is
 * dropped, and the client's retries find the master. */
static void sm_sa_answer(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	if (sm->ha.state != SM_STATE_MASTER) {
		sm->ha.sa_dropped++;
		return;
	}
	sa_recv(sm->sa, from, mad, len, sm_now(sm));
	sm_mcast_check(sm);
}

/* Hold an SA request until the sweep's SMPs have gone by.  The answers
 * come from the last committed view either way; holding them keeps a
 * flood of answers from queueing in front of the sweep's SMPs (the
 * clients wait for answers, so the flood waits here, not on the wire). */
static void sm_sa_hold(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	struct sm_sa_pending *e;

	if (!sm->sa_q)
		sm->sa_q = calloc(SM_SA_BACKLOG, sizeof(*sm->sa_q));
	if (!sm->sa_q || sm->sa_q_n == SM_SA_BACKLOG) {
		sm->sa->counters.backlog_dropped++; /* the client retries */
		return;
	}
	e = &sm->sa_q[(sm->sa_q_head + sm->sa_q_n) % SM_SA_BACKLOG];
	e->from = *from;
	e->len = len < sizeof(e->mad) ? len : sizeof(e->mad);
	memcpy(e->mad, mad, e->len);
	sm->sa_q_n++;
	sm->sa->counters.deferred++;
}

/* Answer up to max held requests (all when max is 0), oldest first; stops
 * early if an answer started a multicast push. */
static void sm_sa_release(struct sm *sm, size_t max)
{
	for (size_t done = 0; sm->sa_q_n && (!max || done < max); done++) {
		struct sm_sa_pending e = sm->sa_q[sm->sa_q_head];

		sm->sa_q_head = (sm->sa_q_head + 1) % SM_SA_BACKLOG;
		sm->sa_q_n--;
		sm_sa_answer(sm, &e.from, e.mad, e.len);
		if (!max && sm->running)
			break;
	}
}

void sm_sa_release_all(struct sm *sm)
{
	sm_sa_release(sm, 0);
}

void sm_recv(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	if (len >= 2 && mad[1] == SA_CLASS) {
		if (sm->running)
			sm_sa_hold(sm, from, mad, len);
		else
			sm_sa_answer(sm, from, mad, len);
		return;
	}
	{
		const struct mad_counters *c = mad_queue_counters(sm->q);
		uint64_t bad = c->unmatched + c->malformed;

		mad_queue_recv(sm->q, from, mad, len, sm_now(sm));
		if (c->unmatched + c->malformed != bad)
			sm_rejected(sm, from, mad, len);
	}
	/* each SMP answer lets a held SA request through; the rest go when
	 * the sweep ends */
	sm_sa_release(sm, sm->running ? SM_SA_PER_SMP : 0);
}

/* A MAD the queue threw away (no request of ours with that TID, attribute
 * and route, or it did not decode): said once a second at most, naming
 * where it came from; the counters have every one. */
static void sm_rejected(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	uint64_t now = sm_now(sm);

	sm->rejected_quiet++;
	if (sm->rejected_said && now < sm->rejected_ms + 1000)
		return;
	log_warnx("NSM-W220 ignored a MAD from LID %u (class 0x%02x method 0x%02x attribute "
		  "0x%04x, %zu bytes): not an answer to an SMP of ours, or malformed; %" PRIu64
		  " such in all since the last one said",
		  from->lid, len > 1 ? mad[1] : 0, len > 3 ? mad[3] : 0,
		  len > 17 ? (unsigned)(mad[16] << 8 | mad[17]) : 0u, len, sm->rejected_quiet);
	sm->rejected_quiet = 0;
	sm->rejected_ms = now;
	sm->rejected_said = 1;
}

uint64_t sm_tick(struct sm *sm)
{
	uint64_t now = sm_now(sm), next;

	sa_tick(sm->sa, now);
	if (sm->trap_due_ms && now >= sm->trap_due_ms) {
		sm->trap_due_ms = 0;
		log_info("repeated traps: sweep requested");
		sm_sweep_request(sm);
	}
	if (sm->retry_due_ms &&
	    (sm->ha.state == SM_STATE_STANDBY || sm->ha.state == SM_STATE_NOT_ACTIVE))
		sm->retry_due_ms = 0; /* not ours to sweep */
	if (sm->retry_due_ms && now >= sm->retry_due_ms && !sm->running) {
		sm->retry_due_ms = 0;
		log_info("the last sweep was incomplete: sweeping again");
		sm_sweep_request(sm);
	}
	next = mad_queue_tick(sm->q, now);
	if (sm->trap_due_ms && (!next || sm->trap_due_ms < next))
		next = sm->trap_due_ms;
	/* a retry due while a sweep runs waits for its end (which ticks
	 * again): as a deadline it would be in the past all along, and the
	 * loop's timer would fire without pause */
	if (sm->retry_due_ms && !sm->running && (!next || sm->retry_due_ms < next))
		next = sm->retry_due_ms;
	return next;
}

const struct sa *sm_sa(const struct sm *sm)
{
	return sm->sa;
}

/* ---- partitions -------------------------------------------------------- */

static void sm_parts_free(struct policy_partition *parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(parts[i].members);
	free(parts);
}

int sm_set_partitions(struct sm *sm, const struct policy_partition *parts, size_t n)
{
	struct policy_partition *copy = n ? calloc(n, sizeof(*copy)) : NULL;

	if (n && !copy)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		copy[i] = parts[i];
		copy[i].members = NULL;
		if (parts[i].n_members) {
			copy[i].members = malloc(parts[i].n_members * sizeof(*copy[i].members));
			if (!copy[i].members) {
				sm_parts_free(copy, i);
				return -ENOMEM;
			}
			memcpy(copy[i].members, parts[i].members,
			       parts[i].n_members * sizeof(*copy[i].members));
		}
	}
	sm_parts_free(sm->parts, sm->n_parts);
	sm->parts = copy;
	sm->n_parts = n;
	pkey_warn_forget(sm); /* the next sweep says again what matches no port */
	/* the IPoIB broadcast groups follow the policy's partitions */
	return mcast_policy_apply(sm, copy, n);
}

const struct fabric *sm_fabric(const struct sm *sm)
{
	return &sm->cur;
}

const struct lft_set *sm_lfts(const struct sm *sm)
{
	return sm->lfts_ahead || !sm->cur.n_nodes || !sm->lfts.n ? NULL : &sm->lfts;
}

const struct lid_alloc *sm_lids(const struct sm *sm)
{
	return &sm->lids;
}

const struct mad_counters *sm_mad_counters(const struct sm *sm)
{
	return mad_queue_counters(sm->q);
}

uint16_t sm_lid(const struct sm *sm)
{
	return sm->my_lid;
}

uint8_t sm_state(const struct sm *sm)
{
	return sm->ha.state;
}

int sm_master(const struct sm *sm, uint64_t *guid, uint16_t *lid)
{
	if (sm->ha.state != SM_STATE_STANDBY || !sm->ha.has_master)
		return -ENOENT;
	*guid = sm->ha.master.sm.guid;
	*lid = sm->ha.master.lid;
	return 0;
}

uint64_t sm_sa_dropped(const struct sm *sm)
{
	return sm->ha.sa_dropped;
}

/* ---- unsolicited MADs ------------------------------------------------ */

/* IBA 14.4.1: the SM_Key in an SMInfo answer is guarded by the M_Key: a
 * Get that passes our M_Key check (it carries our M_Key - with no M_Key
 * configured, 0, so any Get) reads it, as it does from OpenSM; so does a
 * Get whose own SMInfo shows the key.  Anyone else reads 0. */
static uint64_t sm_sminfo_key(const struct sm *sm, const struct smp *req)
{
	struct smp_sm_info asked;

	if (!sm->opts.sm_key)
		return 0;
	smp_sm_info_decode(req->data, &asked);
	return asked.sm_key == sm->opts.sm_key || req->mkey == sm->opts.m_key ? sm->opts.sm_key : 0;
}

void sm_sminfo_fill(struct sm *sm, uint64_t sm_key, struct smp_sm_info *out)
{
	*out = (struct smp_sm_info){
	    .guid = sm->opts.port_guid,
	    .sm_key = sm_key,
	    .act_count = ++sm->act_count,
	    .priority = sm->opts.priority,
	    .state = sm->ha.state,
	};
}

void sm_reply_sminfo(struct sm *sm, const struct mad_addr *from, const struct smp *req,
		     uint64_t sm_key)
{
	struct smp resp = *req;
	struct smp_sm_info info;

	sm_sminfo_fill(sm, sm_key, &info);
	smp_make_reply(&resp);
	resp.status = 0;
	memset(resp.data, 0, sizeof(resp.data));
	smp_sm_info_encode(&info, resp.data);
	if (mad_queue_send_oneway(sm->q, from, &resp) < 0)
		log_warnx("NSM-W120 cannot answer SMInfo from LID %u", from->lid);
}

static void sm_answer_sminfo(struct sm *sm, const struct mad_addr *from, const struct smp *req)
{
	sm_reply_sminfo(sm, from, req, sm_sminfo_key(sm, req));
	ha_on_get(sm, req);
}

/* The slot of (lid, trap): the one that holds it, else the stalest. */
static struct sm_trap_seen *sm_trap_slot(struct sm *sm, uint16_t lid, uint16_t trap)
{
	struct sm_trap_seen *old = &sm->traps[0];

	for (size_t i = 0; i < SM_TRAP_SLOTS; i++) {
		struct sm_trap_seen *t = &sm->traps[i];

		if (t->used && t->lid == lid && t->trap == trap)
			return t;
		if (!t->used || (old->used && t->last_ms < old->last_ms))
			old = t;
	}
	*old = (struct sm_trap_seen){.lid = lid, .trap = trap};
	return old;
}

/* Every trap is repressed (the sender stops repeating it); the same trap
 * from the same LID within SM_TRAP_QUIET_MS asks for no new sweep and is
 * not logged again, so a babbling port cannot keep the SM sweeping. */
static void sm_answer_trap(struct sm *sm, const struct mad_addr *from, const struct smp *req)
{
	struct smp repress = *req;
	/* Notice (IBA 13.4.8.2): IsGeneric|Type, ProducerType (3 bytes),
	 * then TrapNumber at bytes 4-5 */
	uint16_t trap = (uint16_t)(req->data[4] << 8 | req->data[5]);
	struct sm_trap_seen *t = sm_trap_slot(sm, from->lid, trap);
	uint64_t now = sm_now(sm);

	repress.method = SMP_METHOD_TRAP_REPRESS;
	if (mad_queue_send_oneway(sm->q, from, &repress) < 0)
		log_warnx("NSM-W121 cannot repress trap from LID %u", from->lid);
	if (t->used && now >= t->last_ms && now - t->last_ms < SM_TRAP_QUIET_MS) {
		/* news may hide in a repeat (a second link of the same switch):
		 * one sweep when the quiet time is over covers it */
		t->suppressed++;
		sm->light_st.traps_suppressed++;
		if (!sm->trap_due_ms)
			sm->trap_due_ms = t->last_ms + SM_TRAP_QUIET_MS;
		return;
	}
	if (t->suppressed)
		log_info("trap %u from LID %u: sweep requested (%" PRIu64
			 " repeats in the last second were repressed only)",
			 trap, from->lid, t->suppressed);
	else
		log_info("trap %u from LID %u: sweep requested", trap, from->lid);
	t->used = 1;
	t->last_ms = now;
	t->suppressed = 0;
	sm_sweep_request(sm);
}

/* ---- light sweep ------------------------------------------------------ */

void sm_light_changed(struct sm *sm, const char *why)
{
	if (!sm->light_changed)
		snprintf(sm->light_why, sizeof(sm->light_why), "%s", why);
	sm->light_changed = 1;
}

static void sm_light_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	const struct fabric_node *n = &sm->cur.nodes[r->node];
	struct smp_switch_info si;
	char why[160];

	if (status < 0) {
		snprintf(why, sizeof(why), "switch 0x%016llx (%s) did not answer SwitchInfo",
			 (unsigned long long)n->guid, n->desc);
		sm_light_changed(sm, why);
		return;
	}
	smp_switch_info_decode(resp->data, &si);
	if (!si.port_state_change)
		return;
	snprintf(why, sizeof(why), "switch 0x%016llx (%s) reports a port state change",
		 (unsigned long long)n->guid, n->desc);
	sm_light_changed(sm, why);
}

/* A CA port read by the light sweep (M_Key lease refresh): a port that
 * is silent, left ACTIVE or changed its LID or IsSM bit is a change. */
static void sm_light_ca_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	const struct fabric_node *n = &sm->cur.nodes[r->node];
	struct smp_port_info was, now;
	char why[160];

	if (status < 0) {
		snprintf(why, sizeof(why), "port 0x%016llx/%u (%s) did not answer PortInfo",
			 (unsigned long long)n->ports[r->port].guid, r->port, n->desc);
		sm_light_changed(sm, why);
		return;
	}
	smp_port_info_decode(n->ports[r->port].pi_raw, &was);
	smp_port_info_decode(resp->data, &now);
	if (now.state == was.state && now.lid == was.lid &&
	    ((now.cap_mask ^ was.cap_mask) & PORT_CAP_IS_SM) == 0)
		return;
	snprintf(why, sizeof(why), "port 0x%016llx/%u (%s) changed (state %u LID %u IsSM %u)",
		 (unsigned long long)n->ports[r->port].guid, r->port, n->desc, now.state, now.lid,
		 (now.cap_mask & PORT_CAP_IS_SM) != 0);
	sm_light_changed(sm, why);
}

/* With an M_Key lease, a port's protection lapses if the SM is not heard
 * within the lease after a failed M_Key check: switches hear from every
 * light sweep (SwitchInfo), CA ports get a PortInfo Get once half the
 * lease has passed since the last such round. */
static void sm_light_touch_cas(struct sm *sm)
{
	uint64_t now = sm_now(sm);

	if (!sm->opts.m_key || !sm->opts.m_key_protect || !sm->opts.m_key_lease ||
	    (sm->ca_touched && now < sm->ca_touch_ms + (uint64_t)sm->opts.m_key_lease * 500))
		return;
	sm->ca_touched = 1;
	sm->ca_touch_ms = now;
	for (size_t i = 0; i < sm->cur.n_nodes; i++) {
		const struct fabric_node *n = &sm->cur.nodes[i];

		if (fabric_is_switch(n))
			continue;
		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct fabric_port *fp = &n->ports[p];
			const struct fabric_route *rt = fabric_port_route(n, p);
			struct sm_req q = {.node = (int)i, .port = (uint8_t)p, .hops = rt->hops};

			if (!fp->present || !fp->lid || (!rt->hops && (int)i != sm->cur.sm_node))
				continue;
			memcpy(q.path, rt->path, sizeof(q.path));
			sm->light_st.ca_reads++;
			if (sm_submit(sm, &q, SMP_METHOD_GET, SMP_ATTR_PORT_INFO, p, NULL,
				      sm_light_ca_done) < 0)
				sm_light_changed(sm, "out of memory queuing PortInfo");
		}
	}
}

static void sm_after_light(struct sm *sm)
{
	sm->light = 0;
	sm->running = 0;
	sm->light_st.last_mads = mad_queue_counters(sm->q)->sent - sm->mads_at_start;
	sm->light_st.last_ms = sm_now(sm) - sm->sweep_start_ms;
	log_debug("light sweep: %zu switches, %" PRIu64 " MADs, %" PRIu64 " ms: %s",
		  fabric_count_switches(&sm->cur), sm->light_st.last_mads, sm->light_st.last_ms,
		  sm->light_changed ? sm->light_why : "no change");
	sm_sa_release(sm, 0);
	if (sm->light_changed) {
		sm->light_st.escalations++;
		log_info("light sweep: %s: heavy sweep", sm->light_why);
		sm->sweep_pending = 1;
	}
	if (sm->sweep_pending && !sm->running) {
		sm->sweep_pending = 0;
		sm_sweep_request(sm);
	}
}

int sm_light_sweep(struct sm *sm)
{
	if (sm->ha.state == SM_STATE_STANDBY)
		return ha_poll(sm);
	if (sm->ha.state == SM_STATE_NOT_ACTIVE)
		return -EPERM;
	if (sm->running)
		return -EBUSY;
	if (!sm_lfts(sm) || sm->heavy_due)
		return -EAGAIN;
	sm->running = 1;
	sm->light = 1;
	sm->model = &sm->cur;
	sm->light_changed = 0;
	sm->light_st.runs++;
	sm->sweep_start_ms = sm_now(sm);
	sm->mads_at_start = mad_queue_counters(sm->q)->sent;
	for (size_t i = 0; i < sm->cur.n_nodes; i++) {
		const struct fabric_node *n = &sm->cur.nodes[i];
		struct sm_req q = {.node = (int)i, .hops = n->dr_hops};

		if (!fabric_is_switch(n))
			continue;
		memcpy(q.path, n->dr_path, sizeof(q.path));
		if (sm_submit(sm, &q, SMP_METHOD_GET, SMP_ATTR_SWITCH_INFO, 0, NULL,
			      sm_light_done) < 0)
			sm_light_changed(sm, "out of memory queuing SwitchInfo");
	}
	ha_light_poll(sm);
	sm_light_touch_cas(sm);
	sm_phase_wait(sm, sm_after_light);
	return 0;
}

const struct sm_light_stats *sm_light_stats(const struct sm *sm)
{
	return &sm->light_st;
}

const struct quar *sm_quarantine(const struct sm *sm)
{
	return &sm->quar;
}

static void sm_on_request(void *arg, const struct mad_addr *from, const struct smp *req)
{
	struct sm *sm = arg;

	if (req->attr_id == SMP_ATTR_SM_INFO && req->method == SMP_METHOD_GET) {
		sm_answer_sminfo(sm, from, req);
		return;
	}
	if (req->attr_id == SMP_ATTR_SM_INFO && req->method == SMP_METHOD_SET) {
		ha_on_set(sm, from, req);
		return;
	}
	if (req->method == SMP_METHOD_TRAP && req->mgmt_class == SMP_CLASS_LID) {
		sm_answer_trap(sm, from, req);
		return;
	}
	log_debug("ignored %s method 0x%02x from LID %u", smp_attr_name(req->attr_id), req->method,
		  from->lid);
}

/* ---- progress of a long sweep (progress.c says when and what) ------------ */

#include "sm/core/configure.h"
#include "sm/core/lft_push.h"
#include "sm/core/progress.h"

static enum progress_phase sm_progress_phase(const struct sm *sm)
{
	if (sm->phase_done == sm_after_ports || sm->ports_then)
		return PROGRESS_PORTS;
	if (sm->phase_done == sm_after_lfts || lft_push_busy(sm))
		return PROGRESS_LFTS;
	if (sm->phase_done == sm_after_pkeys)
		return PROGRESS_PKEYS;
	if (sm->phase_done == sm_after_arm || configure_states_busy(sm) == PORT_STATE_ARMED)
		return PROGRESS_ARM;
	if (sm->phase_done == sm_after_active || configure_states_busy(sm) == PORT_STATE_ACTIVE)
		return PROGRESS_ACTIVATE;
	if (sm->phase_done == sm_after_mfts)
		return PROGRESS_MFTS;
	if (!sm->st.port_sets && !sm->st.lft_blocks_sent && !sm->st.state_sets)
		return PROGRESS_DISCOVER;
	return PROGRESS_OTHER;
}

/* The snapshot; the port count (a walk over every node) only if ports. */
static void sm_progress_fill(const struct sm *sm, struct progress_snap *s, int ports)
{
	uint64_t now = sm_now(sm);

	memset(s, 0, sizeof(*s));
	s->running = sm->heavy;
	if (!s->running)
		return;
	s->sweep = sm->st.number;
	s->phase = sm_progress_phase(sm);
	s->elapsed_ms = now > sm->sweep_start_ms ? now - sm->sweep_start_ms : 0;
	s->nodes = sm->next.n_nodes;
	for (size_t i = 0; ports && i < sm->next.n_nodes; i++)
		s->ports += sm->next.nodes[i].num_ports;
	s->mads = mad_queue_counters(sm->q)->sent - sm->mads_at_start;
	s->outstanding = sm->pending;
	s->lft_blocks = sm->st.lft_blocks_sent;
	s->state_sets = sm->st.state_sets;
	s->port_sets = sm->st.port_sets;
}

void sm_progress_snap(const struct sm *sm, struct progress_snap *s)
{
	sm_progress_fill(sm, s, 1);
}

void sm_progress_tick(struct sm *sm)
{
	struct progress_snap s;
	char line[256];

	if (!sm->prog) {
		sm->prog = calloc(1, sizeof(*sm->prog));
		if (!sm->prog)
			return;
		sm->prog->every_ms = PROGRESS_EVERY_MS;
	}
	sm_progress_fill(sm, &s, 0); /* called after every MAD batch: stay cheap */
	if (!progress_due(sm->prog, &s))
		return;
	sm_progress_fill(sm, &s, 1);
	progress_format(&s, line, sizeof(line));
	log_info("%s", line);
}
