/*
 * pkey_push.c - programs P_KeyTable block 0 of the plan's ports and keeps
 * the per-port cache of what each port holds (see pkey_push.h).  Reads
 * sm->next, never changes it; the plan itself is built by pkey.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "pkey_push.h"

/* What one port answered last: its P_KeyTable block 0. */
struct pkey_cache_entry {
	uint64_t guid; /* node GUID */
	uint8_t port;
	uint8_t used;
	struct smp_pkey_block held;
};

/* Open addressing on (node GUID, port); cap is a power of two. */
struct pkey_cache {
	struct pkey_cache_entry *e;
	size_t n, cap;
};

/* One push: what the completions need (they get no other context). */
struct pkey_push {
	struct sm *sm;
	const struct pkey_plan *pp;
	struct pkey_cache *c;
	size_t calls; /* SMPs of this push still outstanding */
};

struct pkey_call {
	struct pkey_push *job;
	size_t idx; /* into job->pp->t */
	uint8_t method;
};

/* ---- Cache ----------------------------------------------------------- */

struct pkey_cache *pkey_cache_new(void)
{
	return calloc(1, sizeof(struct pkey_cache));
}

void pkey_cache_free(struct pkey_cache *c)
{
	if (!c)
		return;
	free(c->e);
	free(c);
}

void pkey_cache_clear(struct pkey_cache *c)
{
	if (c->e)
		memset(c->e, 0, c->cap * sizeof(*c->e));
	c->n = 0;
}

static size_t pkey_cache_hash(uint64_t guid, uint8_t port, size_t cap)
{
	uint64_t h = (guid ^ ((uint64_t)port << 56) ^ port) * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

/* The slot of (guid, port): its entry, or the empty slot it would take. */
static struct pkey_cache_entry *pkey_cache_slot(const struct pkey_cache *c, uint64_t guid,
						uint8_t port)
{
	size_t h = pkey_cache_hash(guid, port, c->cap);

	while (c->e[h].used && !(c->e[h].guid == guid && c->e[h].port == port))
		h = (h + 1) & (c->cap - 1);
	return &c->e[h];
}

static const struct pkey_cache_entry *pkey_cache_find(const struct pkey_cache *c, uint64_t guid,
						      uint8_t port)
{
	const struct pkey_cache_entry *e;

	if (!c->cap)
		return NULL;
	e = pkey_cache_slot(c, guid, port);
	return e->used ? e : NULL;
}

static int pkey_cache_grow(struct pkey_cache *c)
{
	struct pkey_cache bigger = {.cap = c->cap ? 2 * c->cap : 64};

	bigger.e = calloc(bigger.cap, sizeof(*bigger.e));
	if (!bigger.e)
		return -ENOMEM;
	for (size_t i = 0; i < c->cap; i++)
		if (c->e[i].used)
			*pkey_cache_slot(&bigger, c->e[i].guid, c->e[i].port) = c->e[i];
	bigger.n = c->n;
	free(c->e);
	*c = bigger;
	return 0;
}

/* Remember what a port answered; on no memory the port is just read
 * again next time. */
static void pkey_cache_store(struct pkey_cache *c, uint64_t guid, uint8_t port,
			     const struct smp_pkey_block *held)
{
	struct pkey_cache_entry *e;

	if (2 * (c->n + 1) > c->cap && pkey_cache_grow(c) < 0)
		return;
	e = pkey_cache_slot(c, guid, port);
	if (!e->used)
		c->n++;
	e->guid = guid;
	e->port = port;
	e->used = 1;
	e->held = *held;
}

/* ---- Targets --------------------------------------------------------- */

static void pkey_want(const struct pkey_port_table *t, struct smp_pkey_block *b)
{
	memset(b, 0, sizeof(*b));
	for (unsigned i = 0; i < t->n && i < PKEY_BLOCK_SIZE; i++)
		b->pkey[i] = t->pkey[i];
}

static uint64_t pkey_port_guid(const struct fabric_node *n, uint8_t port)
{
	uint8_t owner = fabric_is_switch(n) ? 0 : port;

	return n->ports[owner].guid ? n->ports[owner].guid : n->guid;
}

/* The directed route and modifier for a port's P_KeyTable; -ENOENT when
 * a CA port has no route of its own. */
static int pkey_route(const struct fabric *f, const struct pkey_port_table *t, struct sm_req *r,
		      uint32_t *mod)
{
	const struct fabric_node *n = &f->nodes[t->node];
	const struct fabric_port *p = &n->ports[t->port];
	int own_port = t->node == f->sm_node && t->port == f->sm_port;

	memset(r, 0, sizeof(*r));
	r->node = t->node;
	r->port = t->port;
	if (fabric_is_switch(n)) {
		r->hops = n->dr_hops;
		memcpy(r->path, n->dr_path, sizeof(r->path));
		*mod = (uint32_t)t->port << 16;
		return 0;
	}
	if (!p->present || (!p->dr_hops && !own_port))
		return -ENOENT;
	r->hops = p->dr_hops;
	memcpy(r->path, p->dr_path, sizeof(r->path));
	*mod = 0;
	return 0;
}

/* ---- SMPs ------------------------------------------------------------ */

static void pkey_done(void *arg, int status, const struct smp *resp);

/* Like sm_submit, but the completion gets a pkey_call (struct sm_req has
 * no room for the push's context); the phase's pending count is kept the
 * same way. */
static int pkey_submit(struct pkey_push *job, size_t idx, uint8_t method,
		       const struct smp_pkey_block *b)
{
	const struct pkey_port_table *t = &job->pp->t[idx];
	struct mad_addr to = {.lid = 0xffff};
	struct pkey_call *call;
	struct sm_req r;
	struct smp smp;
	uint32_t mod;
	int rc;

	if (pkey_route(&job->sm->next, t, &r, &mod) < 0)
		return 0; /* unreachable by its own route: left alone */
	call = malloc(sizeof(*call));
	if (!call)
		return -ENOMEM;
	*call = (struct pkey_call){.job = job, .idx = idx, .method = method};
	smp_init_dr(&smp, method, SMP_ATTR_PKEY_TABLE, mod, r.path, r.hops);
	if (b)
		smp_pkey_encode(b, smp.data);
	job->sm->pending++;
	job->calls++;
	rc = mad_queue_submit(job->sm->q, &to, &smp, pkey_done, call, sm_now(job->sm));
	if (rc < 0) {
		job->sm->pending--;
		job->calls--;
		free(call);
	}
	return rc;
}

static void pkey_fail(struct pkey_push *job, size_t idx, const char *what, int status,
		      const struct smp *resp)
{
	const struct pkey_port_table *t = &job->pp->t[idx];
	const struct fabric_node *n = &job->sm->next.nodes[t->node];

	job->sm->st.set_errors++;
	log_warnx("NSM-W420 port 0x%016llx/%u (%s): P_KeyTable %s failed: %s%s",
		  (unsigned long long)pkey_port_guid(n, t->port), t->port, n->desc, what,
		  strerror(-status), resp ? " (refused by the port)" : "");
}

static void pkey_send_set(struct pkey_push *job, size_t idx, const struct smp_pkey_block *want)
{
	job->sm->st.pkey_blocks_sent++;
	if (pkey_submit(job, idx, SMP_METHOD_SET, want) < 0)
		pkey_fail(job, idx, "Set", -ENOMEM, NULL);
}

/* A port answered (Get or Set): remember it; after a Get, set it if it
 * holds something else. */
static void pkey_answered(struct pkey_push *job, const struct pkey_call *call,
			  const struct smp *resp)
{
	const struct pkey_port_table *t = &job->pp->t[call->idx];
	const struct fabric_node *n = &job->sm->next.nodes[t->node];
	struct smp_pkey_block held, want;

	smp_pkey_decode(resp->data, &held);
	pkey_cache_store(job->c, n->guid, t->port, &held);
	pkey_want(t, &want);
	if (call->method == SMP_METHOD_GET && memcmp(&held, &want, sizeof(want)) != 0)
		pkey_send_set(job, call->idx, &want);
}

/* The end of every pkey SMP: handle it, then account for it the way
 * sm_submit's completions do (the phase moves on at zero pending). */
static void pkey_done(void *arg, int status, const struct smp *resp)
{
	struct pkey_call *call = arg;
	struct pkey_push *job = call->job;
	struct sm *sm = job->sm;

	if (status == 0)
		pkey_answered(job, call, resp);
	else if (status != -ECANCELED)
		pkey_fail(job, call->idx, call->method == SMP_METHOD_GET ? "Get" : "Set", status,
			  resp);
	free(call);
	if (--job->calls == 0)
		free(job);
	sm->pending--;
	if (sm->pending == 0 && sm->phase_done) {
		sm_phase_fn next = sm->phase_done;

		sm->phase_done = NULL;
		next(sm);
	}
}

/* ---- Phase ----------------------------------------------------------- */

/* Read a port the cache does not know; Set one it knows to differ. */
static void pkey_push_port(struct pkey_push *job, size_t idx)
{
	const struct pkey_port_table *t = &job->pp->t[idx];
	const struct fabric_node *n = &job->sm->next.nodes[t->node];
	const struct pkey_cache_entry *e = pkey_cache_find(job->c, n->guid, t->port);
	struct smp_pkey_block want;

	pkey_want(t, &want);
	if (!e) {
		if (pkey_submit(job, idx, SMP_METHOD_GET, NULL) < 0)
			pkey_fail(job, idx, "Get", -ENOMEM, NULL);
		return;
	}
	if (memcmp(&e->held, &want, sizeof(want)) != 0)
		pkey_send_set(job, idx, &want);
}

void pkey_push_start(struct sm *sm, const struct pkey_plan *pp, struct pkey_cache *c,
		     sm_phase_fn then)
{
	struct pkey_push *job = calloc(1, sizeof(*job));

	if (!job) {
		sm->st.set_errors++;
		log_warnx("NSM-W421 P_Key tables not pushed: out of memory");
	} else {
		*job = (struct pkey_push){.sm = sm, .pp = pp, .c = c, .calls = 1};
		for (size_t i = 0; pp && i < pp->n; i++)
			pkey_push_port(job, i);
		if (--job->calls == 0) /* the 1 held the job while submitting */
			free(job);
	}
	sm_phase_wait(sm, then);
}
