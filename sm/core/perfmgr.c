/*
 * sm/core/perfmgr.c - the performance manager's passes: the list of ACTIVE
 * ports, the PerfMgt GMPs on the wire (window, TIDs, retries), each
 * port's read and clear, the cable log lines.  Owns struct perfmgr (sm->pm)
 * and the port table; reads the last good model, sends through sm->xmit,
 * and never runs while a sweep does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/pma.h"
#include "sm/core/log.h"
#include "sm/core/perfmgr.h"
#include "sm/core/sm_priv.h"

enum perf_step { PERF_STEP_CPI, PERF_STEP_PC, PERF_STEP_EXT, PERF_STEP_CLEAR };

/* What a node's PMA said it has (ClassPortInfo), by node GUID. */
struct perf_cap {
	uint64_t guid;
	uint16_t cap_mask;
};

/* One port of the pass (idx in the table), or one node's ClassPortInfo. */
struct perf_job {
	size_t idx;
	uint8_t cpi;
};

/* A GMP on the wire and the job it belongs to. */
struct perf_slot {
	int used;
	size_t job;
	uint8_t step; /* enum perf_step */
	uint32_t tid;
	unsigned tries;
	uint64_t deadline;
	struct pma_counters pc; /* the PortCounters read, for the extended read after */
};

struct perfmgr {
	struct perfmgr_opts opts;
	struct perf_table t;
	struct perf_cap *caps; /* sorted by GUID */
	size_t n_caps;
	struct perf_job *jobs; /* ClassPortInfo jobs first (n_cpi), then the ports */
	size_t n_jobs, n_cpi, next_job, done_jobs;
	struct perf_slot slot[PERFMGR_WINDOW];
	unsigned in_flight, cpi_in_flight;
	int pass; /* a pass runs */
	uint64_t pass_start;
	uint64_t next_due; /* 0: not scheduled yet */
	uint32_t next_tid;
	size_t missed;
	struct perfmgr_stats st;
};

static void perfmgr_send(struct sm *sm, struct perf_slot *s);

/* ---- node capabilities ---- */

static int perfmgr_cap_cmp(const void *a, const void *b)
{
	const struct perf_cap *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static struct perf_cap *perfmgr_cap(const struct perfmgr *pm, uint64_t guid)
{
	struct perf_cap key = {.guid = guid};

	return pm->n_caps ? bsearch(&key, pm->caps, pm->n_caps, sizeof(key), perfmgr_cap_cmp)
			  : NULL;
}

static void perfmgr_cap_set(struct perfmgr *pm, uint64_t guid, uint16_t mask)
{
	struct perf_cap *c = perfmgr_cap(pm, guid), *grown;

	if (c) {
		c->cap_mask = mask;
		return;
	}
	grown = realloc(pm->caps, (pm->n_caps + 1) * sizeof(*grown));
	if (!grown)
		return; /* asked again next pass */
	pm->caps = grown;
	pm->caps[pm->n_caps++] = (struct perf_cap){guid, mask};
	qsort(pm->caps, pm->n_caps, sizeof(*pm->caps), perfmgr_cap_cmp);
}

static int perfmgr_has_ext(const struct perfmgr *pm, uint64_t guid)
{
	const struct perf_cap *c = perfmgr_cap(pm, guid);

	return c && (c->cap_mask & (PMA_CAP_EXT_WIDTH | PMA_CAP_EXT_WIDTH_NOIETF));
}

/* ---- the pass's ports ---- */

static int perfmgr_port_cmp(const void *a, const void *b)
{
	const struct perf_port *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

/* The ACTIVE ports of the last good model, with what the old table knew
 * of each; ports gone from the model are dropped. */
static int perfmgr_table_build(struct perfmgr *pm, const struct fabric *f)
{
	struct perf_table t = {NULL, 0};
	size_t cap = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		cap += f->nodes[i].num_ports;
	t.p = cap ? calloc(cap, sizeof(*t.p)) : NULL;
	if (cap && !t.p)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];
		int sw = fabric_is_switch(n);

		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct fabric_port *fp = &n->ports[p];
			uint16_t lid = sw ? n->ports[0].lid : fp->lid;
			const struct perf_port *old = perf_table_find(&pm->t, n->guid, (uint8_t)p);
			struct perf_port *e = &t.p[t.n];

			if (!fp->present || fp->state != PORT_STATE_ACTIVE || !lid || n->stale)
				continue;
			if (old)
				*e = *old;
			e->guid = n->guid;
			e->port = (uint8_t)p;
			e->lid = lid;
			e->is_switch = (uint8_t)sw;
			e->seen = 1;
			t.n++;
		}
	}
	qsort(t.p, t.n, sizeof(*t.p), perfmgr_port_cmp);
	free(pm->t.p);
	pm->t = t;
	return 0;
}

static int perfmgr_jobs_build(struct perfmgr *pm)
{
	size_t n = 0;

	free(pm->jobs);
	pm->jobs = calloc(pm->t.n * 2 + 1, sizeof(*pm->jobs));
	if (!pm->jobs)
		return -ENOMEM;
	for (size_t i = 0; i < pm->t.n; i++) /* one ClassPortInfo per node not known */
		if ((i == 0 || pm->t.p[i - 1].guid != pm->t.p[i].guid) &&
		    !perfmgr_cap(pm, pm->t.p[i].guid))
			pm->jobs[n++] = (struct perf_job){i, 1};
	pm->n_cpi = n;
	for (size_t i = 0; i < pm->t.n; i++)
		pm->jobs[n++] = (struct perf_job){i, 0};
	pm->n_jobs = n;
	pm->next_job = pm->done_jobs = 0;
	return 0;
}

static void perfmgr_pass_start(struct sm *sm, struct perfmgr *pm, uint64_t now)
{
	if (perfmgr_table_build(pm, &sm->cur) < 0 || perfmgr_jobs_build(pm) < 0) {
		log_warnx("NSM-W762 performance manager: out of memory, pass skipped");
		pm->next_due = now + (uint64_t)pm->opts.interval_s * 1000;
		return;
	}
	pm->pass = 1;
	pm->pass_start = now;
	pm->missed = 0;
	log_debug("performance manager: pass over %zu ports (%zu ClassPortInfo first)", pm->t.n,
		  pm->n_cpi);
}

/* ---- cables ---- */

static const char *perfmgr_desc(const struct fabric *f, uint64_t guid)
{
	int i = fabric_find(f, guid);

	return i == FABRIC_NONE ? "?" : f->nodes[i].desc;
}

static void perfmgr_cable_say(struct sm *sm, struct perf_port *a, const struct perf_port *b,
			      const struct fabric_node *bn, uint8_t bport, enum perf_health h)
{
	char ra[400], rb[400];

	perf_port_rises(a, ra, sizeof(ra));
	if (b)
		perf_port_rises(b, rb, sizeof(rb));
	else
		snprintf(rb, sizeof(rb), "not read");
	if (h != PERF_OK)
		log_warnx("NSM-W760 cable %s 0x%016" PRIx64 "/%u <-> %s 0x%016" PRIx64
			  "/%u: %s (was %s): %s; far end: %s",
			  perfmgr_desc(&sm->cur, a->guid), a->guid, a->port, bn->desc, bn->guid,
			  bport, perf_health_name(h), perf_health_name(a->said), ra, rb);
	else
		log_warnx("NSM-W761 cable %s 0x%016" PRIx64 "/%u <-> %s 0x%016" PRIx64
			  "/%u: recovered (was %s): no threshold crossed for %u intervals",
			  perfmgr_desc(&sm->cur, a->guid), a->guid, a->port, bn->desc, bn->guid,
			  bport, perf_health_name(a->said), sm->pm->opts.th.recover);
	a->said = (uint8_t)h;
}

/* Each cable once (from the end that speaks for it): a verdict that
 * changed since it was last said is logged. */
static void perfmgr_cables(struct sm *sm, struct perfmgr *pm)
{
	pm->st.unhealthy = 0;
	for (size_t i = 0; i < pm->t.n; i++) {
		struct perf_port *a = &pm->t.p[i], *b;
		const struct fabric_node *bn;
		uint8_t bport;
		enum perf_health h;

		if (a->health != PERF_OK)
			pm->st.unhealthy++;
		if (perf_cable(&sm->cur, &pm->t, i, &bn, &bport, &b) != 1)
			continue;
		h = perf_cable_health(a, b);
		if (h != a->said)
			perfmgr_cable_say(sm, a, b, bn, bport, h);
	}
}

static void perfmgr_pass_end(struct sm *sm, struct perfmgr *pm, uint64_t now)
{
	pm->pass = 0;
	pm->st.passes++;
	pm->st.last_pass_ms = now - pm->pass_start;
	pm->st.last_pass_end = now;
	pm->st.last_missed = pm->missed;
	pm->st.ports = pm->t.n;
	pm->next_due = pm->pass_start + (uint64_t)pm->opts.interval_s * 1000;
	if (pm->missed)
		log_warnx("NSM-W762 performance manager: %zu of %zu ports did not answer "
			  "PortCounters this pass",
			  pm->missed, pm->t.n);
	perfmgr_cables(sm, pm);
	log_debug("performance manager: pass %" PRIu64 " took %" PRIu64 " ms", pm->st.passes,
		  pm->st.last_pass_ms);
}

/* ---- GMPs ---- */

static void perfmgr_job_done(struct sm *sm, struct perf_slot *s)
{
	struct perfmgr *pm = sm->pm;

	if (pm->jobs[s->job].cpi)
		pm->cpi_in_flight--;
	s->used = 0;
	pm->in_flight--;
	pm->done_jobs++;
}

/* After a port's counters were read (ext NULL: none): account, judge,
 * and clear the port when a counter nears saturation. */
static void perfmgr_read_done(struct sm *sm, struct perf_slot *s,
			      const struct pma_counters_ext *ext)
{
	struct perfmgr *pm = sm->pm;
	struct perf_port *p = &pm->t.p[pm->jobs[s->job].idx];

	perf_port_account(p, &s->pc, ext, sm_now(sm));
	perf_port_judge(p, &pm->opts.th);
	if (!perf_port_needs_clear(p)) {
		perfmgr_job_done(sm, s);
		return;
	}
	s->step = PERF_STEP_CLEAR;
	pm->st.clears++;
	perfmgr_send(sm, s);
}

/* The answer to s (resp NULL: none came, or it carried a MAD status). */
static void perfmgr_answer(struct sm *sm, struct perf_slot *s, const struct pma_mad *resp)
{
	struct perfmgr *pm = sm->pm;
	const struct perf_port *p = &pm->t.p[pm->jobs[s->job].idx];
	struct pma_class_port_info cpi;
	struct pma_counters_ext ext;

	switch (s->step) {
	case PERF_STEP_CPI:
		if (resp)
			pma_cpi_decode(resp->data, &cpi);
		perfmgr_cap_set(pm, p->guid, resp ? cpi.cap_mask : 0);
		perfmgr_job_done(sm, s);
		return;
	case PERF_STEP_PC:
		if (!resp) {
			pm->missed++;
			perfmgr_job_done(sm, s);
			return;
		}
		pma_counters_decode(resp->data, &s->pc);
		if (!perfmgr_has_ext(pm, p->guid)) {
			perfmgr_read_done(sm, s, NULL);
			return;
		}
		s->step = PERF_STEP_EXT;
		perfmgr_send(sm, s);
		return;
	case PERF_STEP_EXT:
		if (!resp) /* refused: use PortCounters alone from now on */
			perfmgr_cap_set(pm, p->guid, 0);
		else
			pma_counters_ext_decode(resp->data, &ext);
		perfmgr_read_done(sm, s, resp ? &ext : NULL);
		return;
	default:
		if (resp)
			perf_port_cleared(&pm->t.p[pm->jobs[s->job].idx]);
		perfmgr_job_done(sm, s);
		return;
	}
}

static void perfmgr_send(struct sm *sm, struct perf_slot *s)
{
	struct perfmgr *pm = sm->pm;
	const struct perf_port *p = &pm->t.p[pm->jobs[s->job].idx];
	struct mad_addr to = {.lid = p->lid, .sl = 0, .qpn = 1};
	static const uint16_t attr[] = {PMA_ATTR_CLASS_PORT_INFO, PMA_ATTR_PORT_COUNTERS,
					PMA_ATTR_PORT_COUNTERS_EXT, PMA_ATTR_PORT_COUNTERS};
	uint8_t buf[PMA_MAD_SIZE];
	struct pma_mad m;

	if (s->step == PERF_STEP_CLEAR)
		pma_init_clear(&m, p->port);
	else
		pma_init_get(&m, attr[s->step], p->port);
	if (++pm->next_tid == 0)
		pm->next_tid = 1;
	s->tid = pm->next_tid;
	s->tries = 1;
	s->deadline = sm_now(sm) + sm->opts.mad.timeout_ms;
	m.tid = s->tid;
	pm->st.gmps_sent++;
	if (pma_encode(&m, buf, sizeof(buf)) < 0 ||
	    sm->xmit.send(sm->xmit.ctx, &to, buf, sizeof(buf)) < 0)
		s->deadline = sm_now(sm); /* retried at the next tick */
}

/* Start jobs while the window has room, nothing else runs, and (for the
 * ports) every ClassPortInfo has been answered. */
static void perfmgr_fill(struct sm *sm, struct perfmgr *pm)
{
	while (pm->pass && !sm->running && pm->in_flight < PERFMGR_WINDOW &&
	       pm->next_job < pm->n_jobs) {
		size_t j = pm->next_job;
		struct perf_slot *s = pm->slot;

		if (j >= pm->n_cpi && pm->cpi_in_flight)
			break;
		while (s->used)
			s++;
		*s = (struct perf_slot){.used = 1, .job = j};
		s->step = pm->jobs[j].cpi ? PERF_STEP_CPI : PERF_STEP_PC;
		pm->cpi_in_flight += pm->jobs[j].cpi;
		pm->in_flight++;
		pm->next_job++;
		perfmgr_send(sm, s);
	}
}

static void perfmgr_resend(struct sm *sm, struct perf_slot *s)
{
	unsigned tries = s->tries;

	sm->pm->st.gmps_sent--; /* perfmgr_send counts it again */
	perfmgr_send(sm, s);
	sm->pm->st.gmps_sent++;
	s->tries = tries + 1;
}

void perfmgr_recv(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	struct perfmgr *pm = sm->pm;
	struct pma_mad m;

	if (!pm || pma_decode(mad, len, &m) < 0 || !(m.method & 0x80))
		return;
	for (unsigned i = 0; i < PERFMGR_WINDOW; i++) {
		struct perf_slot *s = &pm->slot[i];
		const struct perf_port *p = s->used ? &pm->t.p[pm->jobs[s->job].idx] : NULL;

		if (!p || s->tid != (uint32_t)m.tid || (from->lid && from->lid != p->lid))
			continue;
		pm->st.gmps_received++;
		if (m.status)
			pm->st.errors++;
		perfmgr_answer(sm, s, m.status ? NULL : &m);
		break;
	}
	if (pm->pass && pm->done_jobs == pm->n_jobs)
		perfmgr_pass_end(sm, pm, sm_now(sm));
	perfmgr_fill(sm, pm);
}

static uint64_t perfmgr_expire(struct sm *sm, struct perfmgr *pm, uint64_t now)
{
	uint64_t next = 0;

	for (unsigned i = 0; i < PERFMGR_WINDOW; i++) {
		struct perf_slot *s = &pm->slot[i];

		if (s->used && s->deadline <= now) {
			if (s->tries <= sm->opts.mad.retries) {
				perfmgr_resend(sm, s);
			} else {
				pm->st.timeouts++;
				perfmgr_answer(sm, s, NULL);
			}
		}
		if (s->used && (!next || s->deadline < next))
			next = s->deadline;
	}
	return next;
}

uint64_t perfmgr_tick(struct sm *sm)
{
	struct perfmgr *pm = sm->pm;
	uint64_t now = sm_now(sm), next;

	if (!pm)
		return 0;
	next = perfmgr_expire(sm, pm, now);
	if (pm->pass && pm->done_jobs == pm->n_jobs)
		perfmgr_pass_end(sm, pm, now);
	if (!pm->opts.enabled || sm->ha.state != SM_STATE_MASTER || !sm->cur.n_nodes)
		return next;
	if (!pm->next_due)
		pm->next_due = now + (uint64_t)pm->opts.interval_s * 1000;
	if (!pm->pass && now >= pm->next_due && !sm->running)
		perfmgr_pass_start(sm, pm, now);
	perfmgr_fill(sm, pm);
	if (pm->pass && pm->done_jobs == pm->n_jobs) /* nothing to read */
		perfmgr_pass_end(sm, pm, now);
	next = perfmgr_expire(sm, pm, now) ?: next;
	if (!pm->pass && !sm->running && (!next || pm->next_due < next))
		next = pm->next_due;
	return next;
}

void perfmgr_free(struct sm *sm)
{
	if (!sm->pm)
		return;
	free(sm->pm->t.p);
	free(sm->pm->caps);
	free(sm->pm->jobs);
	free(sm->pm);
	sm->pm = NULL;
}

/* ---- what the daemon sets and reads ---- */

int sm_set_monitor(struct sm *sm, const struct perfmgr_opts *o)
{
	if (!sm->pm) {
		sm->pm = calloc(1, sizeof(*sm->pm));
		if (!sm->pm)
			return -ENOMEM;
	}
	if (o->interval_s != sm->pm->opts.interval_s || !o->enabled)
		sm->pm->next_due = 0; /* one new interval from the next tick */
	sm->pm->opts = *o;
	if (!sm->pm->opts.interval_s)
		sm->pm->opts.interval_s = PERFMGR_INTERVAL_DEFAULT;
	return 0;
}

const struct perf_table *sm_perf_table(const struct sm *sm)
{
	static const struct perf_table none = {NULL, 0};

	return sm->pm ? &sm->pm->t : &none;
}

const struct perfmgr_stats *sm_perf_stats(const struct sm *sm)
{
	static const struct perfmgr_stats none;

	return sm->pm ? &sm->pm->st : &none;
}

const struct perfmgr_opts *sm_perf_opts(const struct sm *sm)
{
	static const struct perfmgr_opts off = {0, PERFMGR_INTERVAL_DEFAULT,
						PERF_THRESHOLDS_DEFAULT};

	return sm->pm ? &sm->pm->opts : &off;
}

void sm_perf_now(struct sm *sm)
{
	if (sm->pm)
		sm->pm->next_due = 1;
}
