/*
 * sm/core/lft_push.c - compute routes with the chosen engine and program them:
 * SwitchInfo.LinearFDBTop, then only the LFT blocks that differ from what
 * each switch holds: a cache keyed by switch GUID, filled from what the
 * SM wrote and, for a switch it does not know yet (after a restart), from
 * LinearForwardingTable Gets.  Reads sm->next and sm->lfts; owns sm->cache.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/check.h"
#include "sm/core/lft_push.h"
#include "sm/core/log.h"
#include "sm/core/sl2vl_push.h"
#include "sm/core/sm_priv.h"

/* A push queues its SMPs a batch of switches at a time (SM_FEED_BATCH
 * SMPs, sm_phase_feed), so the MAD queue holds about one batch (~0.5 KB
 * per queued SMP) instead of every block of the fabric (270K blocks, over
 * 100 MB, at 10K CAs).  The cursor lives in the push's struct lft_steps
 * (sm->lft_steps, NULL when no push runs). */

int lft_push_busy(const struct sm *sm)
{
	return sm->lft_steps != NULL;
}

void lft_cache_fini(struct lft_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].port);
	free(c->e);
	memset(c, 0, sizeof(*c));
}

/* The cache is kept sorted by switch GUID: every answered LFT Set looks
 * its switch up (270K lookups among 1469 switches at 10K CAs, which a
 * linear search made about a third of a second of CPU). */
static size_t lft_cache_slot(const struct lft_cache *c, uint64_t guid)
{
	return text_u64_lower_bound(c->e, c->n, sizeof(*c->e),
				    offsetof(struct lft_cache_entry, guid), guid);
}

static struct lft_cache_entry *lft_cache_find(const struct lft_cache *c, uint64_t guid)
{
	size_t i = lft_cache_slot(c, guid);

	return i < c->n && c->e[i].guid == guid ? &c->e[i] : NULL;
}

static struct lft_cache_entry *lft_cache_get(struct lft_cache *c, uint64_t guid)
{
	size_t i = lft_cache_slot(c, guid);

	if (i < c->n && c->e[i].guid == guid)
		return &c->e[i];
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct lft_cache_entry *e = realloc(c->e, cap * sizeof(*e));

		if (!e)
			return NULL;
		c->e = e;
		c->cap = cap;
	}
	memmove(&c->e[i + 1], &c->e[i], (c->n - i) * sizeof(c->e[0]));
	memset(&c->e[i], 0, sizeof(c->e[0]));
	c->e[i].guid = guid;
	c->n++;
	return &c->e[i];
}

/* The switch lost its table: the cache no longer knows any of it. */
static void lft_cache_forget(struct lft_cache *c, uint64_t guid)
{
	struct lft_cache_entry *e = lft_cache_find(c, guid);

	if (!e)
		return;
	free(e->port);
	e->port = NULL;
	e->top = 0;
}

/* Does the cache say the switch holds exactly these 64 entries? */
static int lft_cache_has(const struct lft_cache_entry *e, unsigned block, const uint8_t *want)
{
	if (!e || !e->port || (block + 1u) * LFT_BLOCK_SIZE > (unsigned)e->top + 1u)
		return 0;
	return memcmp(e->port + block * LFT_BLOCK_SIZE, want, LFT_BLOCK_SIZE) == 0;
}

/* A cache block whose contents are unknown holds a pattern no routing
 * table produces (0xFE, 0xFD, then 0xFE: ports 254 and 253 are never
 * all of a block's first entries next to each other like that). */
static void lft_cache_hole(uint8_t *blk)
{
	memset(blk, 0xFE, LFT_BLOCK_SIZE);
	blk[1] = 0xFD;
}

static int lft_cache_is_hole(const uint8_t *blk)
{
	uint8_t hole[LFT_BLOCK_SIZE];

	lft_cache_hole(hole);
	return memcmp(blk, hole, LFT_BLOCK_SIZE) == 0;
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
		for (unsigned i = old; i < need; i += LFT_BLOCK_SIZE)
			lft_cache_hole(np + i);
		e->port = np;
		e->top = (uint16_t)(need - 1);
	}
	memcpy(e->port + block * LFT_BLOCK_SIZE, ports, LFT_BLOCK_SIZE);
}

/* Mark one block of a switch's cache as unknown. */
static void lft_cache_unknown(struct lft_cache *c, uint64_t guid, unsigned block)
{
	struct lft_cache_entry *e = lft_cache_find(c, guid);

	if (!e || !e->port || (block + 1u) * LFT_BLOCK_SIZE > (unsigned)e->top + 1u)
		return;
	lft_cache_hole(e->port + block * LFT_BLOCK_SIZE);
}

/* What one routing attempt works on: the fabric (with LIDs), the engines'
 * options, and where the winning tables go. */
struct lft_push_job {
	const struct fabric *f;
	struct route_opts opts;
	struct lft_set *out;
	int quiet; /* a dry run logs nothing */
	/* the engines passed over before the winner and why, with names next
	 * to the GUIDs ("routing engine ftree: tables refused by the gate
	 * (...): credit loop: 0x... (sw1)/7 -> ...; "), and whether one of
	 * them was refused by the gate */
	char story[LFT_PUSH_STORY];
	size_t story_len;
	int gate_refused;
};

/* Append why (names added) to the job's story. */
static void lft_push_story(struct lft_push_job *job, const char *why)
{
	size_t room = sizeof(job->story) - job->story_len;

	if (room < 8)
		return;
	job->story_len += sm_guid_names(job->f, why, job->story + job->story_len, room - 2);
	if (job->story_len >= sizeof(job->story) - 2)
		job->story_len = sizeof(job->story) - 3;
	memcpy(job->story + job->story_len, "; ", 3);
	job->story_len += 2;
}

/* An engine that does not fit: an error when it was the last one to try,
 * else a line of the fallback's story, told once the winner is known
 * (lft_push_fallback_log). */
static void lft_push_not_used(struct lft_push_job *job, const char *id, const char *why, int last)
{
	char named[1024];

	if (last && !job->quiet) {
		sm_guid_names(job->f, why, named, sizeof(named));
		log_errx("%s %s", id, named);
	}
	lft_push_story(job, why);
}

/* Give the LIDs of port p (its LMC range) SL sl in t, where t has room. */
static unsigned lft_push_sl_port(struct lft_set *t, const struct fabric_port *p, uint8_t sl)
{
	unsigned n = 0;

	for (unsigned k = 0; p->lid && k < fabric_port_lid_count(p); k++)
		if ((unsigned)p->lid + k <= t->sl_top) {
			t->sl[p->lid + k] = sl;
			for (size_t i = 0; t->path_sl && i < t->n; i++) /* every path to it */
				t->path_sl[i * ((size_t)t->sl_top + 1) + p->lid + k] = sl;
			n++;
		}
	return n;
}

/* Test aid (sm_opts.test_vl_switch, --test-vl-switch): the LIDs of that
 * switch and of the CA ports cabled to it get SL 1, so the paths to them
 * ride VL 1.  Applied before the gate: moving the paths to some
 * destinations onto a VL of their own splits the channel dependencies of
 * tables that pass on one VL, and cannot close a cycle.  Returns how many
 * LIDs were moved, -ENOENT when the switch is not in f, -ENOMEM. */
static int lft_push_test_vl(const struct fabric *f, uint64_t guid, uint16_t max_lid,
			    struct lft_set *t)
{
	int sw = fabric_find(f, guid);
	const struct fabric_node *n;
	unsigned moved;

	if (sw == FABRIC_NONE || !fabric_is_switch(&f->nodes[sw]))
		return -ENOENT;
	if (!t->sl && lft_set_alloc_sl(t, max_lid) < 0)
		return -ENOMEM;
	n = &f->nodes[sw];
	moved = lft_push_sl_port(t, &n->ports[0], 1);
	for (unsigned p = 1; p <= n->num_ports; p++) {
		const struct fabric_port *pt = &n->ports[p];
		const struct fabric_node *rn;

		if (!pt->present || pt->remote_node == FABRIC_NONE)
			continue;
		rn = &f->nodes[pt->remote_node];
		if (!fabric_is_switch(rn))
			moved += lft_push_sl_port(t, &rn->ports[pt->remote_port], 1);
	}
	if (t->n_vls < 2)
		t->n_vls = 2;
	return (int)moved;
}

/* Route with one engine and run the gate; on success the tables replace
 * *job->out, else it is left as it was.  last: no engine after it. */
static int lft_push_try(struct sm *sm, struct lft_push_job *job, const struct route_engine *eng,
			int last, char *why, size_t whylen)
{
	struct route_check_opts copts = {0};
	struct route_check res;
	struct route_note note;
	char err[256] = "";
	struct lft_set t;
	int rc;

	lft_set_init(&t);
	rc = eng->compute(job->f, &job->opts, &t, &note, err, sizeof(err));
	if (rc < 0) {
		snprintf(why, whylen, "routing engine %s failed: %s", eng->name, err);
		lft_push_not_used(job, "NSM-E401", why, last);
		lft_set_fini(&t);
		return rc;
	}
	if (sm->opts.test_vl_switch) {
		rc = lft_push_test_vl(job->f, sm->opts.test_vl_switch, job->opts.max_lid, &t);
		if (!job->quiet)
			log_info("test aid --test-vl-switch 0x%016llx: %s%d LIDs ride SL 1",
				 (unsigned long long)sm->opts.test_vl_switch,
				 rc == -ENOENT ? "no such switch, " : "", rc < 0 ? 0 : rc);
	}
	rc = route_check_run(job->f, &t, &copts, &res);
	if (rc < 0) {
		snprintf(
		    why, whylen,
		    "routing engine %s: tables refused by the gate (%zu unreachable, %zu loops, "
		    "%zu bad ports, credit loop: %s): %s",
		    eng->name, res.unreachable, res.loops, res.bad_ports,
		    res.credit_loop ? "yes" : "no", res.first);
		if (!job->quiet)
			sm->st.gate_refusals++;
		job->gate_refused = 1;
		lft_push_not_used(job, "NSM-E402", why, last);
		lft_set_fini(&t);
		return rc;
	}
	if (note.text[0] && !job->quiet) {
		char named[sizeof(note.text) + 512];

		sm_guid_names(job->f, note.text, named, sizeof(named));
		log_info("routing engine %s: %s", eng->name, named);
	}
	if (!job->quiet)
		log_debug("routing engine %s: gate passed (%zu pairs, max %zu hops)", eng->name,
			  res.pairs, res.max_hops);
	lft_set_fini(job->out);
	*job->out = t;
	return 0;
}

/* Try the engines of list in order; the first whose tables pass wins.
 * An engine with engines after it that wants more VLs than the ports
 * offer (route_engine_skip) is passed over with an info line.  Returns
 * the winner's name, or NULL with why set to the last failure. */
static const char *lft_push_route(struct sm *sm, struct lft_push_job *job, const char *list,
				  char *why, size_t whylen)
{
	char copy[256], skip[160];
	char *save = NULL;

	snprintf(copy, sizeof(copy), "%s", list);
	snprintf(why, whylen, "no routing engine in '%s'", list);
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct route_engine *eng = route_engine_find(name);

		if (!eng) {
			snprintf(why, whylen, "unknown routing engine '%s'", name);
			if (!job->quiet)
				log_errx("NSM-E400 %s", why);
			continue;
		}
		if (*save && route_engine_skip(eng, job->f, skip, sizeof(skip))) {
			char line[256];

			snprintf(line, sizeof(line), "routing engine %s skipped: %s", eng->name,
				 skip);
			lft_push_story(job, line);
			continue;
		}
		if (lft_push_try(sm, job, eng, !*save, why, whylen) == 0)
			return eng->name;
	}
	return NULL;
}

/* The VLs the paths of s use: n_vls as the engine said, and at least one
 * more than the highest SL it gave a destination or a path. */
static unsigned lft_push_vls(const struct lft_set *s)
{
	unsigned vls = s->n_vls ? s->n_vls : 1;
	unsigned path_vls = lft_set_path_vls(s, UINT8_MAX + 1u);

	for (unsigned d = 0; s->sl && d <= s->sl_top; d++)
		if (s->sl[d] + 1u > vls)
			vls = s->sl[d] + 1u;
	return path_vls > vls ? path_vls : vls;
}

/* The first engine of a comma list, into buf. */
static const char *lft_push_first(const char *list, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s", (int)strcspn(list, ","), list);
	return buf;
}

/* Why the engine that won was used, for status and the log: "ftree,
 * first in the list", or the story of the engines passed over. */
static void lft_push_why(const struct lft_push_job *job, const char *list, const char *used,
			 char *out, size_t size)
{
	char first[32];

	if (!job->story_len) {
		snprintf(out, size, "%s: %s", list,
			 strcmp(used, lft_push_first(list, first, sizeof(first)))
			     ? "the first that applies"
			     : "the first in the list");
		return;
	}
	snprintf(out, size, "%s: %.*s", list, (int)(job->story_len - 2), job->story);
}

/* One line when the engine used is not the first of the list: from what,
 * to what, why (names next to the GUIDs); a warning when the gate refused
 * an engine, else information (an engine that does not apply).  The same
 * story sweep after sweep is told once, then counted. */
static void lft_push_fallback_log(struct sm *sm, const struct lft_push_job *job, const char *used)
{
	char first[32];

	if (!job->story_len || !strcmp(sm->fallback_last, job->story)) {
		if (job->story_len) {
			sm->fallback_repeats++;
			log_debug("routing: the same fallback to %s again (%u sweeps in a row)",
				  used, sm->fallback_repeats + 1);
		}
		if (!job->story_len)
			sm->fallback_last[0] = '\0';
		return;
	}
	if (sm->fallback_repeats)
		log_info("routing: the fallback before this one held for %u more sweep%s",
			 sm->fallback_repeats, sm->fallback_repeats == 1 ? "" : "s");
	sm->fallback_repeats = 0;
	snprintf(sm->fallback_last, sizeof(sm->fallback_last), "%s", job->story);
	lft_push_first(sm->opts.engine, first, sizeof(first));
	if (job->gate_refused)
		log_warnx("NSM-W405 routing falls back from %s to %s: %.*s", first, used,
			  (int)(job->story_len - 2), job->story);
	else
		log_info("routing falls back from %s to %s: %.*s", first, used,
			 (int)(job->story_len - 2), job->story);
}

int lft_push_compute(struct sm *sm)
{
	struct lft_push_job job = {
	    .f = &sm->next,
	    .opts = {.max_lid = sm->max_lid, .roots = sm->opts.roots, .n_roots = sm->opts.n_roots},
	    .out = &sm->lfts,
	};
	char why[768];
	size_t len;
	uint8_t *key = lft_routed_key(sm, &len);
	const char *reused = lft_routed_reuse(sm, key, len); /* the same fabric as lfts_cur's */
	const char *used =
	    reused ? reused : lft_push_route(sm, &job, sm->opts.engine, why, sizeof(why));

	/* against the SLs the SA answers now (lfts_cur stays as it is until
	 * the sweep commits) */
	sm->sls_changed = used && lft_set_sls_differ(&sm->lfts_cur, &sm->lfts);
	if (used) {
		sm->st.engine = used;
		sm->engine_used = used;
		if (reused) {
			snprintf(sm->st.engine_why, sizeof(sm->st.engine_why), "%s",
				 sm->routed.why);
		} else {
			lft_push_why(&job, sm->opts.engine, used, sm->st.engine_why,
				     sizeof(sm->st.engine_why));
			lft_push_fallback_log(sm, &job, used);
		}
		sm->st.vls = lft_push_vls(&sm->lfts);
		if (sm->st.vls > 1)
			log_info("routing engine %s: paths on %u VLs (SL s rides VL s)", used,
				 sm->st.vls);
		lft_routed_keep(sm, key, len, used, reused != NULL);
		sm->lfts_ahead = 1;
		return 0;
	}
	free(key);
	log_errx("NSM-E403 no routing engine of '%s' produced tables that pass the gate; "
		 "nothing pushed, the switches keep their last good tables",
		 sm->opts.engine);
	return -EINVAL;
}

int lft_push_dry_run(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
		     struct lft_set *keep, char *why, size_t whylen, char *story, size_t storylen)
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
	if (story && storylen)
		snprintf(story, storylen, "%.*s", job.story_len ? (int)(job.story_len - 2) : 0,
			 job.story);
	if (!used) {
		char named[1024];

		sm_guid_names(job.f, why, named, sizeof(named));
		snprintf(why, whylen, "%s", named);
		return -EINVAL;
	}
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
		/* the Set may have landed with its answer lost: what the switch
		 * holds there is unknown now, so the next sweep writes it again */
		lft_cache_unknown(&sm->cache, n->guid, r->extra);
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

/* The 64 entries switch t should hold in block b. */
static void lft_push_want(const struct lft *t, unsigned b, struct smp_lft_block *blk)
{
	for (unsigned i = 0; i < LFT_BLOCK_SIZE; i++) {
		unsigned lid = b * LFT_BLOCK_SIZE + i;

		blk->port[i] = lid <= t->top ? t->port[lid] : LFT_DROP;
	}
}

/* The directed route to switch t, for an SMP about block b. */
static void lft_push_req(const struct sm *sm, const struct lft *t, unsigned b, struct sm_req *r)
{
	const struct fabric_node *n = &sm->next.nodes[t->node];

	memset(r, 0, sizeof(*r));
	r->node = t->node;
	r->hops = n->dr_hops;
	memcpy(r->path, n->dr_path, sizeof(r->path));
	r->extra = b;
	r->ctx = (void *)t; /* sm->lfts: the sweep does not change it while it pushes */
}

static void lft_push_write(struct sm *sm, const struct lft *t, unsigned b,
			   const struct smp_lft_block *blk)
{
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct sm_req r;

	lft_push_req(sm, t, b, &r);
	smp_lft_encode(blk, data);
	sm->st.lft_blocks_sent++;
	if (sm_submit(sm, &r, SMP_METHOD_SET, SMP_ATTR_LFT, b, data, lft_push_block_done) < 0)
		sm->st.set_errors++;
}

/* A block read from a switch the cache did not know: remember what it
 * holds, and write it only if that is not what the routes want.  A failed
 * Get is not an error of its own: the block is written unread (and a
 * switch that answers nothing then logs NSM-W410 for the Set). */
static void lft_push_read_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sm *sm = r->sm;
	const struct lft *t = r->ctx;
	const struct fabric_node *n = &sm->next.nodes[r->node];
	struct smp_lft_block held, want;

	lft_push_want(t, r->extra, &want);
	if (status < 0) {
		log_debug("switch 0x%016llx (%s): LFT block %u Get failed: %s; writing it unread",
			  (unsigned long long)n->guid, n->desc, r->extra, strerror(-status));
		lft_push_write(sm, t, r->extra, &want);
		return;
	}
	smp_lft_decode(resp->data, &held);
	lft_cache_store(&sm->cache, n->guid, r->extra, held.port);
	if (memcmp(held.port, want.port, LFT_BLOCK_SIZE) != 0)
		lft_push_write(sm, t, r->extra, &want);
}

static void lft_push_read(struct sm *sm, const struct lft *t, unsigned b)
{
	struct smp_lft_block want;
	struct sm_req r;

	lft_push_req(sm, t, b, &r);
	if (sm_submit(sm, &r, SMP_METHOD_GET, SMP_ATTR_LFT, b, NULL, lft_push_read_done) == 0) {
		sm->st.lft_blocks_read++;
		return;
	}
	lft_push_want(t, b, &want); /* no memory to read: write it, as before */
	lft_push_write(sm, t, b, &want);
}

/* ---- loop-free order of the writes ------------------------------------ */

#define LFT_STEPS 32 /* steps of a push; farther entries share the last one */
/* Blocks a push writes in steps at most (~200 bytes each to plan); beyond
 * that (a new engine on a large fabric, not a cable) the rest is written
 * at once, as before steps existed. */
#define LFT_STEP_MAX_BLOCKS 8192

/* A block whose routes move, written in steps (see lft_push_start). */
struct lft_step_block {
	const struct lft *t;
	unsigned block;
	uint8_t old[LFT_BLOCK_SIZE]; /* what the switch holds (cache) */
	uint8_t want[LFT_BLOCK_SIZE];
	uint8_t step[LFT_BLOCK_SIZE]; /* when each changed entry is written */
	uint32_t steps;		      /* bit s: some entry is written in step s */
};

struct lft_steps {
	struct lft_step_block *b;
	size_t n, cap;
	unsigned next; /* the step to run next */
	int overflow;  /* LFT_STEP_MAX_BLOCKS reached: said once */
	size_t table;  /* next table of sm->lfts to queue (batches) */
	sm_phase_fn then;
};

unsigned lft_push_dist_in(const struct fabric *f, const struct lft_set *s, int sw, unsigned dlid)
{
	int node = sw;

	for (unsigned h = 0; h < FABRIC_MAX_HOPS; h++) {
		const struct lft *t = lft_set_find_const(s, node);
		const struct fabric_port *p;
		uint8_t out;

		if (!t || dlid > t->top || (out = t->port[dlid]) == LFT_DROP || out == 0)
			return h;
		if (out > f->nodes[node].num_ports)
			return h;
		p = &f->nodes[node].ports[out];
		if (p->remote_node == FABRIC_NONE || !fabric_is_switch(&f->nodes[p->remote_node]))
			return h;
		node = p->remote_node;
	}
	return 0;
}

/* Switch-to-switch hops from switch node s to the switch that delivers
 * dlid, following the new tables: 0 when s delivers it itself or drops it
 * (or the walk goes nowhere, which the gate rules out). */
static unsigned lft_push_dist(const struct sm *sm, int s, unsigned dlid)
{
	return lft_push_dist_in(&sm->next, &sm->lfts, s, dlid);
}

unsigned lft_push_block_writes(const struct fabric *f, const struct lft_set *s, int sw,
			       unsigned block, const uint8_t *old, const uint8_t *want,
			       size_t *planned)
{
	uint32_t steps = 0;
	unsigned n = 0;

	if ((*planned)++ >= LFT_STEP_MAX_BLOCKS)
		return 1; /* past the cap: written at once */
	for (unsigned i = 0; i < LFT_BLOCK_SIZE; i++) {
		unsigned d;

		if (old[i] == want[i])
			continue;
		d = lft_push_dist_in(f, s, sw, block * LFT_BLOCK_SIZE + i);
		steps |= 1u << (d < LFT_STEPS ? d : LFT_STEPS - 1);
	}
	for (; steps; steps &= steps - 1)
		n++;
	return n ? n : 1;
}

/* A block of switch t the cache knows (old) that must change: plan its
 * writes.  Each changed entry is written in the step equal to its new
 * distance to the destination, so a switch changes its route to a LID
 * only after every switch nearer the LID on the new route has. */
static int lft_push_plan(struct sm *sm, const struct lft *t, unsigned b, const uint8_t *old,
			 const uint8_t *want)
{
	struct lft_steps *st = sm->lft_steps;
	struct lft_step_block *x;

	if (st->n >= LFT_STEP_MAX_BLOCKS) {
		if (!st->overflow)
			log_info(
			    "LFT push: more than %u blocks move; the rest are written at once, "
			    "not in loop-free steps",
			    LFT_STEP_MAX_BLOCKS);
		st->overflow = 1;
		return -ENOSPC;
	}
	if (TEXT_GROW(st->b, st->cap, st->n + 1, 64) < 0)
		return -ENOMEM;
	x = &st->b[st->n++];
	memset(x, 0, sizeof(*x));
	x->t = t;
	x->block = b;
	memcpy(x->old, old, LFT_BLOCK_SIZE);
	memcpy(x->want, want, LFT_BLOCK_SIZE);
	for (unsigned i = 0; i < LFT_BLOCK_SIZE; i++) {
		unsigned d;

		if (old[i] == want[i])
			continue;
		d = lft_push_dist(sm, t->node, b * LFT_BLOCK_SIZE + i);
		x->step[i] = (uint8_t)(d < LFT_STEPS ? d : LFT_STEPS - 1);
		x->steps |= 1u << x->step[i];
	}
	return 0;
}

static void lft_push_step(struct sm *sm);

void lft_steps_free(struct sm *sm)
{
	if (!sm->lft_steps)
		return;
	free(sm->lft_steps->b);
	free(sm->lft_steps);
	sm->lft_steps = NULL;
}

/* Run the next step that has writes: every planned block with entries of
 * that step gets them (and those of earlier steps); the rest keep what
 * they hold.  The step ends when all its Sets are answered. */
static void lft_push_step(struct sm *sm)
{
	struct lft_steps *st = sm->lft_steps;
	uint32_t any = 0;

	for (size_t i = 0; i < st->n; i++)
		any |= st->b[i].steps;
	while (st->next < LFT_STEPS && !(any & (1u << st->next)))
		st->next++;
	if (st->next >= LFT_STEPS) {
		sm_phase_fn then = st->then;

		if (sm->st.lft_steps > 1)
			log_info("LFT push in %zu steps, switches nearer each destination first",
				 sm->st.lft_steps);
		lft_steps_free(sm);
		then(sm);
		return;
	}
	for (size_t i = 0; i < st->n; i++) {
		const struct lft_step_block *x = &st->b[i];
		struct smp_lft_block blk;

		if (!(x->steps & (1u << st->next)))
			continue;
		for (unsigned e = 0; e < LFT_BLOCK_SIZE; e++)
			blk.port[e] = x->step[e] <= st->next ? x->want[e] : x->old[e];
		lft_push_write(sm, x->t, x->block, &blk);
	}
	sm->st.lft_steps++;
	st->next++;
	sm_phase_wait(sm, lft_push_step);
}

/* One switch's blocks 0..max_lid/64.  A switch the cache knows: write the
 * blocks that differ from the cache.  A switch it does not know (the
 * first sweep after a start, or a switch new to nanosm): read every block
 * first (lft_push_read_done writes those that differ), so a restarted
 * nanosm rewrites nothing that is already right - unless the switch's
 * LinearFDBTop was 0 when discovered: such a switch forwards no unicast
 * LID at all (a fresh one), nothing in it is worth keeping, and it is
 * written without reading. */
static void lft_push_switch(struct sm *sm, const struct lft *t, uint16_t found_top)
{
	const struct fabric_node *n = &sm->next.nodes[t->node];
	const struct lft_cache_entry *e = lft_cache_find(&sm->cache, n->guid);
	unsigned blocks = (unsigned)sm->max_lid / LFT_BLOCK_SIZE + 1;
	int known;

	if (e && !found_top && e->top) {
		/* it had a table and now forwards nothing: rebooted (or reset
		 * behind our back); what the cache says it holds is gone */
		log_info("switch 0x%016llx (%s): LinearFDBTop is 0, its table was lost "
			 "(rebooted?): writing all of it",
			 (unsigned long long)n->guid, n->desc);
		lft_cache_forget(&sm->cache, n->guid);
		sl2vl_cache_forget(sm->sl2vlc, n->guid); /* its SLtoVL tables went too */
		e = NULL;
	}
	known = e != NULL;
	for (unsigned b = 0; b < blocks; b++) {
		struct smp_lft_block blk;

		/* looked up again: a store may move entries (sorted inserts) */
		e = known ? lft_cache_find(&sm->cache, n->guid) : NULL;
		if (!known && found_top) {
			lft_push_read(sm, t, b);
			continue;
		}
		lft_push_want(t, b, &blk);
		if (lft_cache_has(e, b, blk.port))
			continue;
		/* a known block that changes: written in steps (lft_push_start);
		 * an unknown one (beyond the cached top, or a hole left by a
		 * failed Set) or no memory: now */
		if (sm->lft_steps && e && e->port &&
		    (b + 1u) * LFT_BLOCK_SIZE <= (unsigned)e->top + 1u &&
		    !lft_cache_is_hole(e->port + b * LFT_BLOCK_SIZE) &&
		    lft_push_plan(sm, t, b, e->port + b * LFT_BLOCK_SIZE, blk.port) == 0)
			continue;
		lft_push_write(sm, t, b, &blk);
	}
}

/* Write order: switch by switch in the order of sm->lfts (fabric node
 * order: the order discovery found them, roughly breadth-first from the
 * SM), for each one SwitchInfo.LinearFDBTop first, then its blocks in
 * ascending order; at most --window SMPs are on the wire, so several
 * switches are in flight at once and their Sets land in no guaranteed
 * order.  A block read first is written when its Get is answered.  No
 * order of whole blocks rules out transient loops while routes move (one
 * block carries 64 destinations whose new trees differ), hence the steps
 * below.  What is guaranteed:
 * only tables that passed the gate are written, the final state is
 * loop-free, and a restart or an unchanged re-sweep moves no route, so it
 * writes nothing (docs/design.md, docs/operations.md "Restarts").
 *
 * Routes that move do not loop on the way either, as far as the SM knows
 * what the switches hold (the cache): the changed blocks of known
 * switches are written in steps.  In step k a switch gets the new entries
 * of the LIDs that are k switch hops away from it on the new routes
 * (step 0: the switch that delivers the LID), keeping the old ones of
 * LIDs farther away; a step starts when every Set of the one before is
 * answered.  So a switch that forwards a LID the new way sends it to a
 * switch that already does too, down to the destination; switches not
 * yet changed forward the old way, which was loop-free, until the packet
 * meets a changed one.  A block with entries at several distances is
 * written several times (`lft_blocks_sent` counts every write).  Blocks
 * read first (after a restart) and blocks beyond the cached top are
 * written at once.  The switches are queued in batches (SM_FEED_BATCH),
 * in the same order, before the steps. */
static void lft_push_one(struct sm *sm, size_t i)
{
	const struct lft *t = &sm->lfts.tables[i];
	uint16_t found_top = sm->next.nodes[t->node].lft_top;

	lft_push_top(sm, t->node);
	lft_push_switch(sm, t, found_top);
}

/* Queue the next batch of switches; when all are queued, the steps run
 * once the last SMP is answered. */
static void lft_push_batch(struct sm *sm)
{
	if (!sm_feed_walk(sm, &sm->lft_steps->table, sm->lfts.n, lft_push_one, lft_push_batch))
		sm_phase_wait(sm, lft_push_step);
}

void lft_push_start(struct sm *sm, sm_phase_fn then)
{
	sm->lft_steps = calloc(1, sizeof(*sm->lft_steps));
	if (!sm->lft_steps) { /* no memory to plan: everything at once, no steps */
		for (size_t i = 0; i < sm->lfts.n; i++)
			lft_push_one(sm, i);
		sm_phase_wait(sm, then);
		return;
	}
	sm->lft_steps->then = then;
	lft_push_batch(sm);
}
