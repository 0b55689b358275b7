/*
 * sm/core/pkey_push.c - programs P_KeyTable block 0 of the plan's ports and keeps
 * the per-port cache of what each port holds (see pkey_push.h).  Reads
 * sm->next, never changes it; the plan itself is built by pkey.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/pkey_push.h"

/* What one port answered last: its P_KeyTable block 0, as an index into
 * the cache's pool of distinct blocks (most ports hold one of a few
 * tables: 16 bytes a port instead of 80). */
struct pkey_cache_entry {
	uint64_t guid; /* node GUID */
	uint8_t port;
	uint8_t used;
	uint8_t stale; /* a Set failed: what the port holds is unknown, read it */
	uint32_t held; /* index into blk */
};

/* Open addressing on (node GUID, port); cap is a power of two.  A push
 * borrows the cache and leaves its plan here: the cache is the context
 * its SMPs carry (req.ctx), so nothing is allocated per push and nothing
 * is left behind when sm_free cancels one. */
struct pkey_cache {
	struct pkey_cache_entry *e;
	size_t n, cap;
	struct smp_pkey_block *blk; /* distinct blocks held, each once */
	size_t n_blk, cap_blk;
	uint32_t *blk_ix; /* open addressing on the block: index + 1, 0 = empty */
	size_t blk_ix_cap;
	const struct pkey_plan *pp; /* plan of the last push (borrowed; read only by its SMPs) */
	size_t walk;		    /* the push's cursor into pp->t (SM_FEED_BATCH at a time) */
	sm_phase_fn then;	    /* what runs after the push */
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
	free(c->blk);
	free(c->blk_ix);
	free(c);
}

void pkey_cache_clear(struct pkey_cache *c)
{
	if (c->e)
		memset(c->e, 0, c->cap * sizeof(*c->e));
	c->n = 0;
	if (c->blk_ix)
		memset(c->blk_ix, 0, c->blk_ix_cap * sizeof(*c->blk_ix));
	c->n_blk = 0;
}

/* ---- Pool of distinct blocks ----------------------------------------- */

size_t pkey_cache_blocks(const struct pkey_cache *c)
{
	return c->n_blk;
}

static size_t pkey_block_hash(const struct smp_pkey_block *b, size_t cap)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a over the 32 keys */

	for (unsigned i = 0; i < PKEY_BLOCK_SIZE; i++)
		h = (h ^ b->pkey[i]) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 32)) & (cap - 1);
}

static void pkey_block_index(struct pkey_cache *c, uint32_t i)
{
	size_t h = pkey_block_hash(&c->blk[i], c->blk_ix_cap);

	while (c->blk_ix[h])
		h = (h + 1) & (c->blk_ix_cap - 1);
	c->blk_ix[h] = i + 1;
}

/* Index blk[0..n_blk) afresh in the (cleared) index. */
static void pkey_block_index_all(struct pkey_cache *c)
{
	memset(c->blk_ix, 0, c->blk_ix_cap * sizeof(*c->blk_ix));
	for (size_t i = 0; i < c->n_blk; i++)
		pkey_block_index(c, (uint32_t)i);
}

/* A new index of cap slots over blk[0..n_blk). */
static int pkey_block_reindex(struct pkey_cache *c, size_t cap)
{
	uint32_t *ix = malloc(cap * sizeof(*ix));

	if (!ix)
		return -ENOMEM;
	free(c->blk_ix);
	c->blk_ix = ix;
	c->blk_ix_cap = cap;
	pkey_block_index_all(c);
	return 0;
}

/* Blocks no port holds any more go once they outnumber the ports that
 * hold one (partitions that changed many times). */
static void pkey_block_compact(struct pkey_cache *c)
{
	uint32_t *map = malloc(c->n_blk * sizeof(*map));
	size_t n = 0;

	if (!map)
		return;
	for (size_t i = 0; i < c->n_blk; i++)
		map[i] = UINT32_MAX;
	for (size_t i = 0; i < c->cap; i++) {
		struct pkey_cache_entry *e = &c->e[i];

		if (!e->used)
			continue;
		if (map[e->held] == UINT32_MAX) {
			c->blk[n] = c->blk[e->held];
			map[e->held] = (uint32_t)n++;
		}
		e->held = map[e->held];
	}
	free(map);
	c->n_blk = n;
	pkey_block_index_all(c);
}

/* The pool index of block b, added if new; -ENOMEM. */
static long pkey_block_intern(struct pkey_cache *c, const struct smp_pkey_block *b)
{
	size_t h;

	if (c->blk_ix) {
		for (h = pkey_block_hash(b, c->blk_ix_cap); c->blk_ix[h];
		     h = (h + 1) & (c->blk_ix_cap - 1))
			if (!memcmp(&c->blk[c->blk_ix[h] - 1], b, sizeof(*b)))
				return (long)c->blk_ix[h] - 1;
	}
	if (c->n_blk >= 64 && c->n_blk > 2 * c->n)
		pkey_block_compact(c);
	if (c->n_blk == c->cap_blk) {
		size_t cap = c->cap_blk ? 2 * c->cap_blk : 4;
		struct smp_pkey_block *nb = realloc(c->blk, cap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		c->blk = nb;
		c->cap_blk = cap;
	}
	if (2 * (c->n_blk + 1) > c->blk_ix_cap &&
	    pkey_block_reindex(c, c->blk_ix_cap ? 2 * c->blk_ix_cap : 8) < 0)
		return -ENOMEM;
	c->blk[c->n_blk] = *b;
	pkey_block_index(c, (uint32_t)c->n_blk);
	return (long)c->n_blk++;
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
	free(c->e);
	c->e = bigger.e;
	c->cap = bigger.cap; /* n and the push's plan stay */
	return 0;
}

/* Remember what a port answered; on no memory the port is just read
 * again next time. */
static void pkey_cache_store(struct pkey_cache *c, uint64_t guid, uint8_t port,
			     const struct smp_pkey_block *held)
{
	struct pkey_cache_entry *e;
	long b;

	if (2 * (c->n + 1) > c->cap && pkey_cache_grow(c) < 0)
		return;
	if ((b = pkey_block_intern(c, held)) < 0)
		return;
	e = pkey_cache_slot(c, guid, port);
	if (!e->used)
		c->n++;
	e->guid = guid;
	e->port = port;
	e->used = 1;
	e->stale = 0;
	e->held = (uint32_t)b;
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
	if (!p->present || (!fabric_port_route(n, t->port)->hops && !own_port))
		return -ENOENT;
	r->hops = fabric_port_route(n, t->port)->hops;
	memcpy(r->path, fabric_port_route(n, t->port)->path, sizeof(r->path));
	*mod = 0;
	return 0;
}

/* ---- SMPs ------------------------------------------------------------ */

static void pkey_get_done(struct sm_req *r, int status, const struct smp *resp);
static void pkey_set_done(struct sm_req *r, int status, const struct smp *resp);

/* One SMP about pp->t[idx] through sm_submit: req.ctx is the cache,
 * req.extra the index.  A port with no route of its own is left alone. */
static int pkey_submit(struct sm *sm, struct pkey_cache *c, size_t idx, uint8_t method,
		       const struct smp_pkey_block *b)
{
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct sm_req r;
	uint32_t mod;

	if (pkey_route(&sm->next, &c->pp->t[idx], &r, &mod) < 0)
		return 0;
	r.extra = (uint32_t)idx;
	r.ctx = c;
	if (b)
		smp_pkey_encode(b, data);
	return sm_submit(sm, &r, method, SMP_ATTR_PKEY_TABLE, mod, b ? data : NULL,
			 method == SMP_METHOD_GET ? pkey_get_done : pkey_set_done);
}

static void pkey_fail(struct sm *sm, const struct pkey_port_table *t, const char *what, int status,
		      const struct smp *resp)
{
	const struct fabric_node *n = &sm->next.nodes[t->node];

	sm->st.set_errors++;
	log_warnx("NSM-W420 port 0x%016llx/%u (%s): P_KeyTable %s failed: %s%s",
		  (unsigned long long)pkey_port_guid(n, t->port), t->port, n->desc, what,
		  strerror(-status), resp ? " (refused by the port)" : "");
}

static void pkey_send_set(struct sm *sm, struct pkey_cache *c, size_t idx,
			  const struct smp_pkey_block *want)
{
	sm->st.pkey_blocks_sent++;
	if (pkey_submit(sm, c, idx, SMP_METHOD_SET, want) < 0)
		pkey_fail(sm, &c->pp->t[idx], "Set", -ENOMEM, NULL);
}

/* A port answered: remember what it holds; 0, or -errno after counting
 * and logging the failure of what (the cache is left as it was). */
static int pkey_answered(struct sm_req *r, const char *what, int status, const struct smp *resp,
			 struct smp_pkey_block *held)
{
	struct pkey_cache *c = r->ctx;
	const struct pkey_port_table *t = &c->pp->t[r->extra];

	if (status < 0) {
		pkey_fail(r->sm, t, what, status, resp);
		return status;
	}
	smp_pkey_decode(resp->data, held);
	pkey_cache_store(c, r->sm->next.nodes[t->node].guid, t->port, held);
	return 0;
}

/* After a Get: set the port if it holds something else. */
static void pkey_get_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct pkey_cache *c = r->ctx;
	struct smp_pkey_block held, want;

	if (pkey_answered(r, "Get", status, resp, &held) < 0)
		return;
	pkey_want(&c->pp->t[r->extra], &want);
	if (memcmp(&held, &want, sizeof(want)) != 0)
		pkey_send_set(r->sm, c, r->extra, &want);
}

static void pkey_set_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct pkey_cache *c = r->ctx;
	const struct pkey_port_table *t = &c->pp->t[r->extra];
	struct smp_pkey_block held;
	struct pkey_cache_entry *e;

	if (pkey_answered(r, "Set", status, resp, &held) == 0 || !c->cap)
		return;
	/* the Set may have landed with its answer lost: read the port next time */
	e = pkey_cache_slot(c, r->sm->next.nodes[t->node].guid, t->port);
	if (e->used)
		e->stale = 1;
}

/* ---- Phase ----------------------------------------------------------- */

/* Read a port the cache does not know; Set one it knows to differ. */
static void pkey_push_port(struct sm *sm, struct pkey_cache *c, size_t idx)
{
	const struct pkey_port_table *t = &c->pp->t[idx];
	const struct pkey_cache_entry *e =
	    pkey_cache_find(c, sm->next.nodes[t->node].guid, t->port);
	struct smp_pkey_block want;

	pkey_want(t, &want);
	if (!e || e->stale) {
		if (pkey_submit(sm, c, idx, SMP_METHOD_GET, NULL) < 0)
			pkey_fail(sm, t, "Get", -ENOMEM, NULL);
		return;
	}
	if (memcmp(&c->blk[e->held], &want, sizeof(want)) != 0)
		pkey_send_set(sm, c, idx, &want);
}

/* Queue the next batch of ports (sm_phase_feed); the running push's cache
 * is sm->pk_push (borrowed). */
static void pkey_push_next(struct sm *sm, size_t i)
{
	pkey_push_port(sm, sm->pk_push, i);
}

static void pkey_push_batch(struct sm *sm)
{
	struct pkey_cache *c = sm->pk_push;

	if (sm_feed_walk(sm, &c->walk, c->pp ? c->pp->n : 0, pkey_push_next, pkey_push_batch))
		return;
	sm->pk_push = NULL;
	sm_phase_wait(sm, c->then);
}

void pkey_push_start(struct sm *sm, const struct pkey_plan *pp, struct pkey_cache *c,
		     sm_phase_fn then)
{
	c->pp = pp;
	c->walk = 0;
	c->then = then;
	sm->pk_push = c;
	pkey_push_batch(sm);
}
