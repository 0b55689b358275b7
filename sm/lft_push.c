/*
 * lft_push.c - compute routes with the chosen engine and program them:
 * SwitchInfo.LinearFDBTop, then only the LFT blocks that differ from what
 * the SM last wrote to each switch (a cache keyed by switch GUID; empty
 * after a restart, so everything is written once).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "routing/check.h"
#include "sm_priv.h"

void lft_cache_fini(struct lft_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].port);
	free(c->e);
	memset(c, 0, sizeof(*c));
}

static struct lft_cache_entry *lft_cache_get(struct lft_cache *c, uint64_t guid)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].guid == guid)
			return &c->e[i];
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct lft_cache_entry *e = realloc(c->e, cap * sizeof(*e));

		if (!e)
			return NULL;
		c->e = e;
		c->cap = cap;
	}
	memset(&c->e[c->n], 0, sizeof(c->e[0]));
	c->e[c->n].guid = guid;
	return &c->e[c->n++];
}

/* Does the cache say the switch holds exactly these 64 entries? */
static int lft_cache_has(const struct lft_cache_entry *e, unsigned block, const uint8_t *want)
{
	if (!e || !e->port || (block + 1u) * LFT_BLOCK_SIZE > (unsigned)e->top + 1u)
		return 0;
	return memcmp(e->port + block * LFT_BLOCK_SIZE, want, LFT_BLOCK_SIZE) == 0;
}

/* Remember a block the switch accepted.  Cache slots never written hold
 * nothing valid: `top` only grows over blocks that were written in order,
 * so a hole is marked by a cleared entry which lft_cache_has refuses. */
static void lft_cache_store(struct lft_cache *c, uint64_t guid, unsigned block,
			    const uint8_t *ports)
{
	struct lft_cache_entry *e = lft_cache_get(c, guid);
	unsigned need = (block + 1u) * LFT_BLOCK_SIZE;

	if (!e)
		return;
	if (!e->port || need > (unsigned)e->top + 1u) {
		uint8_t *np = realloc(e->port, need);
		unsigned old = e->port ? (unsigned)e->top + 1u : 0;

		if (!np)
			return;
		/* unknown contents: a pattern no block can match (ports > 254) */
		memset(np + old, 0xFE, need - old);
		for (unsigned i = old; i < need; i += LFT_BLOCK_SIZE)
			np[i] = 0xFE, np[i + 1] = 0xFD;
		e->port = np;
		e->top = (uint16_t)(need - 1);
	}
	memcpy(e->port + block * LFT_BLOCK_SIZE, ports, LFT_BLOCK_SIZE);
}

/* What one routing attempt works on: the fabric (with LIDs), the engines'
 * options, and where the winning tables go. */
struct lft_push_job {
	const struct fabric *f;
	struct route_opts opts;
	struct lft_set *out;
	int quiet; /* a dry run logs nothing */
};

/* Route with one engine and run the gate; on success the tables replace
 * *job->out, else it is left as it was. */
static int lft_push_try(struct sm *sm, const struct lft_push_job *job,
			const struct route_engine *eng, char *why, size_t whylen)
{
	struct route_check_opts copts = {0};
	struct route_check res;
	struct route_err err;
	struct lft_set t;
	int rc;

	memset(&err, 0, sizeof(err));
	lft_set_init(&t);
	rc = eng->compute(job->f, &job->opts, &t, &err);
	if (rc < 0) {
		snprintf(why, whylen, "routing engine %s failed: %s", eng->name, err.msg);
		if (!job->quiet)
			log_warnx("NSM-E401 %s", why);
		lft_set_fini(&t);
		return rc;
	}
	rc = route_check_run(job->f, &t, &copts, &res);
	if (rc < 0) {
		snprintf(why, whylen,
			 "routing engine %s: tables refused by the gate (%zu unreachable, %zu loops, "
			 "%zu bad ports, credit loop: %s): %s",
			 eng->name, res.unreachable, res.loops, res.bad_ports,
			 res.credit_loop ? "yes" : "no", res.first);
		if (!job->quiet) {
			sm->st.gate_refusals++;
			log_warnx("NSM-E402 %s", why);
		}
		lft_set_fini(&t);
		return rc;
	}
	if (err.note[0] && !job->quiet)
		log_info("routing engine %s: %s", eng->name, err.note);
	if (!job->quiet)
		log_debug("routing engine %s: gate passed (%zu pairs, max %zu hops)", eng->name,
			  res.pairs, res.max_hops);
	lft_set_fini(job->out);
	*job->out = t;
	return 0;
}

/* Try the engines of list in order; the first whose tables pass wins.
 * Returns its name, or NULL with why set to the last failure. */
static const char *lft_push_route(struct sm *sm, const struct lft_push_job *job, const char *list,
				  char *why, size_t whylen)
{
	char copy[256];
	char *save = NULL;

	snprintf(copy, sizeof(copy), "%s", list);
	snprintf(why, whylen, "no routing engine in '%s'", list);
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct route_engine *eng = route_engine_find(name);

		if (!eng) {
			snprintf(why, whylen, "unknown routing engine '%s'", name);
			if (!job->quiet)
				log_warnx("NSM-E400 %s", why);
			continue;
		}
		if (lft_push_try(sm, job, eng, why, whylen) == 0)
			return eng->name;
	}
	return NULL;
}

int lft_push_compute(struct sm *sm)
{
	struct lft_push_job job = {
		.f = &sm->next,
		.opts = {.max_lid = sm->max_lid, .roots = sm->opts.roots, .n_roots = sm->opts.n_roots},
		.out = &sm->lfts,
	};
	char why[768];
	const char *used = lft_push_route(sm, &job, sm->opts.engine, why, sizeof(why));

	if (used) {
		sm->st.engine = used;
		sm->lfts_ahead = 1;
		return 0;
	}
	log_warnx("NSM-E403 no routing engine of '%s' produced tables that pass the gate; "
		  "nothing pushed, the switches keep their last good tables", sm->opts.engine);
	return -EINVAL;
}

int lft_push_dry_run(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
		     struct lft_set *keep, char *why, size_t whylen)
{
	struct lft_set scratch;
	struct lft_push_job job = {
		.f = &sm->cur,
		.opts = {.max_lid = sm->max_lid, .roots = roots, .n_roots = n_roots},
		.out = keep ? keep : &scratch,
		.quiet = 1,
	};
	const char *used;

	if (!sm->cur.n_nodes) {
		snprintf(why, whylen, "no fabric swept yet");
		return keep ? -EAGAIN : 0; /* the next sweep's gate decides */
	}
	lft_set_init(&scratch);
	used = lft_push_route(sm, &job, engines, why, whylen);
	lft_set_fini(&scratch);
	if (!used)
		return -EINVAL;
	snprintf(why, whylen, "%s", used);
	return 0;
}

static void lft_push_block_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	const struct fabric_node *n = &sm->next.nodes[r->node];
	struct smp_lft_block b;

	if (status < 0) {
		sm->st.set_errors++;
		log_warnx("NSM-W410 switch 0x%016llx (%s): LFT block %u Set failed: %s",
			  (unsigned long long)n->guid, n->desc, r->extra, strerror(-status));
		return;
	}
	smp_lft_decode(resp->data, &b);
	lft_cache_store(&sm->cache, n->guid, r->extra, b.port);
}

static void lft_push_top_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct fabric_node *n = &r->sm->next.nodes[r->node];
	struct smp_switch_info si;

	if (status < 0) {
		r->sm->st.set_errors++;
		log_warnx("NSM-W411 switch 0x%016llx (%s): SwitchInfo Set failed: %s",
			  (unsigned long long)n->guid, n->desc, strerror(-status));
		return;
	}
	smp_switch_info_decode(resp->data, &si);
	n->lft_top = si.linear_fdb_top;
	memcpy(n->si_raw, resp->data, sizeof(n->si_raw));
}

static void lft_push_top(struct sm *sm, int node)
{
	struct fabric_node *n = &sm->next.nodes[node];
	struct sm_req r = {.node = node, .hops = n->dr_hops};
	struct smp_switch_info si;
	uint8_t data[SMP_DATA_SIZE] = {0};

	if (n->lft_top == sm->max_lid)
		return;
	smp_switch_info_decode(n->si_raw, &si);
	si.linear_fdb_top = sm->max_lid;
	si.port_state_change = 0; /* writing 1 would clear it: leave to the sweep */
	smp_switch_info_encode(&si, data);
	memcpy(r.path, n->dr_path, sizeof(r.path));
	sm->st.switchinfo_sets++;
	if (sm_submit(sm, &r, SMP_METHOD_SET, SMP_ATTR_SWITCH_INFO, 0, data, lft_push_top_done) < 0)
		sm->st.set_errors++;
}

static void lft_push_switch(struct sm *sm, const struct lft *t)
{
	const struct fabric_node *n = &sm->next.nodes[t->node];
	const struct lft_cache_entry *e = NULL;
	unsigned blocks = (unsigned)sm->max_lid / LFT_BLOCK_SIZE + 1;

	for (size_t i = 0; i < sm->cache.n; i++)
		if (sm->cache.e[i].guid == n->guid)
			e = &sm->cache.e[i];
	for (unsigned b = 0; b < blocks; b++) {
		struct smp_lft_block blk;
		struct sm_req r = {.node = t->node, .hops = n->dr_hops, .extra = b};
		uint8_t data[SMP_DATA_SIZE] = {0};

		for (unsigned i = 0; i < LFT_BLOCK_SIZE; i++) {
			unsigned lid = b * LFT_BLOCK_SIZE + i;

			blk.port[i] = lid <= t->top ? t->port[lid] : LFT_DROP;
		}
		if (lft_cache_has(e, b, blk.port))
			continue;
		smp_lft_encode(&blk, data);
		memcpy(r.path, n->dr_path, sizeof(r.path));
		sm->st.lft_blocks_sent++;
		if (sm_submit(sm, &r, SMP_METHOD_SET, SMP_ATTR_LFT, b, data, lft_push_block_done) < 0)
			sm->st.set_errors++;
	}
}

void lft_push_start(struct sm *sm, sm_phase_fn then)
{
	for (size_t i = 0; i < sm->lfts.n; i++) {
		const struct lft *t = &sm->lfts.tables[i];

		lft_push_top(sm, t->node);
		lft_push_switch(sm, t);
	}
	sm_phase_wait(sm, then);
}
