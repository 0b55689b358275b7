/*
 * mft_push.c - write the MulticastForwardingTable blocks that differ from
 * what each switch holds (see mft_push.h).  Owns struct mft_cache; reads
 * the wanted tables and the model, changes neither.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sm/mft_push.h"

/* What one switch is known to hold: masks in struct mft_table layout with
 * MFT_POSITIONS positions, known[block * MFT_POSITIONS + pos] set once a
 * Set of that block succeeded. */
struct mft_cache_entry {
	uint64_t guid;
	struct mft_table t;
	uint8_t *known;
};

struct mft_cache {
	struct mft_cache_entry *e;
	size_t n, cap;
};

/* A push in flight.  struct sm_req has no room for a context pointer, so
 * the completions find their push here, by SM (one push per SM at a time).
 * Stopgap until sm_req carries one; see the report of the sa-mcast branch. */
struct mft_push_run {
	struct sm *sm;
	struct mft_cache *c;
	uint64_t *guids; /* node index -> switch GUID, copied from f */
	size_t n_nodes;
	sm_phase_fn then;
	struct mft_push_run *next;
};

static struct mft_push_run *mft_push_runs;

/* ---- cache ------------------------------------------------------------- */

struct mft_cache *mft_cache_new(void)
{
	return calloc(1, sizeof(struct mft_cache));
}

static void mft_cache_entry_fini(struct mft_cache_entry *e)
{
	free(e->t.masks);
	free(e->known);
}

static void mft_push_run_drop(struct mft_push_run **pp)
{
	struct mft_push_run *r = *pp;

	*pp = r->next;
	free(r->guids);
	free(r);
}

void mft_cache_free(struct mft_cache *c)
{
	if (!c)
		return;
	for (struct mft_push_run **pp = &mft_push_runs; *pp;)
		if ((*pp)->c == c)
			mft_push_run_drop(pp);
		else
			pp = &(*pp)->next;
	for (size_t i = 0; i < c->n; i++)
		mft_cache_entry_fini(&c->e[i]);
	free(c->e);
	free(c);
}

static struct mft_cache_entry *mft_cache_find(const struct mft_cache *c, uint64_t guid)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].guid == guid)
			return &c->e[i];
	return NULL;
}

int mft_cache_forget(struct mft_cache *c, uint64_t switch_guid)
{
	struct mft_cache_entry *e = mft_cache_find(c, switch_guid);

	if (!e)
		return -ENOENT;
	mft_cache_entry_fini(e);
	*e = c->e[--c->n];
	return 0;
}

static struct mft_cache_entry *mft_cache_get(struct mft_cache *c, uint64_t guid)
{
	struct mft_cache_entry *e = mft_cache_find(c, guid);

	if (e)
		return e;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct mft_cache_entry *v = realloc(c->e, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->e = v, c->cap = cap;
	}
	e = &c->e[c->n++];
	memset(e, 0, sizeof(*e));
	e->guid = guid;
	e->t.node = FABRIC_NONE;
	e->t.guid = guid;
	e->t.n_pos = MFT_POSITIONS;
	return e;
}

/* Make room for blocks 0..block; 0 or -ENOMEM. */
static int mft_cache_grow(struct mft_cache_entry *e, unsigned block)
{
	size_t old = e->t.n_blocks, need = (size_t)block + 1;
	size_t per = (size_t)MFT_POSITIONS * MFT_BLOCK_MLIDS;
	uint16_t *m;
	uint8_t *k;

	if (need <= old)
		return 0;
	m = realloc(e->t.masks, need * per * sizeof(*m));
	if (!m)
		return -ENOMEM;
	e->t.masks = m;
	k = realloc(e->known, need * MFT_POSITIONS);
	if (!k)
		return -ENOMEM;
	e->known = k;
	memset(m + old * per, 0, (need - old) * per * sizeof(*m));
	memset(k + old * MFT_POSITIONS, 0, (need - old) * MFT_POSITIONS);
	e->t.n_blocks = (uint16_t)need;
	return 0;
}

/* What the switch is known to hold at (block, pos); NULL = unknown. */
static const uint16_t *mft_cache_have(const struct mft_cache_entry *e, unsigned block,
				      unsigned pos)
{
	if (!e || block >= e->t.n_blocks || pos >= MFT_POSITIONS ||
	    !e->known[block * MFT_POSITIONS + pos])
		return NULL;
	return mft_table_block(&e->t, block, pos);
}

static void mft_cache_store(struct mft_cache *c, uint64_t guid, unsigned block, unsigned pos,
			    const uint16_t *masks)
{
	struct mft_cache_entry *e = mft_cache_get(c, guid);

	if (!e || block >= MFT_MAX_BLOCKS || pos >= MFT_POSITIONS || mft_cache_grow(e, block) < 0)
		return; /* not remembered: written again next time */
	memcpy((uint16_t *)mft_table_block(&e->t, block, pos), masks,
	       MFT_BLOCK_MLIDS * sizeof(*masks));
	e->known[block * MFT_POSITIONS + pos] = 1;
}

/* ---- the push ---------------------------------------------------------- */

static struct mft_push_run *mft_push_run_of(const struct sm *sm)
{
	for (struct mft_push_run *r = mft_push_runs; r; r = r->next)
		if (r->sm == sm)
			return r;
	return NULL;
}

static void mft_push_block_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct mft_push_run *run = mft_push_run_of(r->sm);
	uint16_t masks[MFT_BLOCK_MLIDS];
	unsigned block, pos;
	uint64_t guid;

	if (!run || r->node < 0 || (size_t)r->node >= run->n_nodes)
		return;
	guid = run->guids[r->node];
	mft_attr_split(r->extra, &block, &pos);
	if (status < 0 || resp->status) {
		r->sm->st.set_errors++;
		log_warnx("NSM-W420 switch 0x%016llx: MFT block %u position %u Set failed: %s",
			  (unsigned long long)guid, block, pos,
			  status < 0 ? strerror(-status) : "refused");
		return;
	}
	mft_block_decode(resp->data, masks);
	mft_cache_store(run->c, guid, block, pos, masks);
}

static const struct mft_table *mft_push_want(const struct mft_set *want, uint64_t guid)
{
	for (size_t i = 0; want && i < want->n; i++)
		if (want->tables[i].guid == guid)
			return &want->tables[i];
	return NULL;
}

/* Blocks the switch can hold (MulticastFDBCap / 32; 0 = not reported). */
static unsigned mft_push_cap_blocks(const struct fabric_node *n)
{
	struct smp_switch_info si;

	smp_switch_info_decode(n->si_raw, &si);
	if (!si.mcast_fdb_cap)
		return MFT_MAX_BLOCKS;
	return si.mcast_fdb_cap / MFT_BLOCK_MLIDS;
}

static void mft_push_block(struct sm *sm, int node, const struct fabric_node *n, unsigned block,
			   unsigned pos, const uint16_t *masks)
{
	static const uint16_t zero[MFT_BLOCK_MLIDS];
	struct sm_req r = {.node = node, .hops = n->dr_hops, .extra = mft_attr_mod(block, pos)};
	uint8_t data[SMP_DATA_SIZE] = {0};

	mft_block_encode(masks ? masks : zero, data);
	memcpy(r.path, n->dr_path, sizeof(r.path));
	sm->st.mft_blocks_sent++;
	if (sm_submit(sm, &r, SMP_METHOD_SET, MFT_ATTR_ID, r.extra, data, mft_push_block_done) < 0)
		sm->st.set_errors++;
}

static void mft_push_switch(struct sm *sm, const struct fabric *f, int node,
			    const struct mft_set *want, const struct mft_cache *c)
{
	const struct fabric_node *n = &f->nodes[node];
	const struct mft_table *t = mft_push_want(want, n->guid);
	const struct mft_cache_entry *e = mft_cache_find(c, n->guid);
	unsigned blocks = t ? t->n_blocks : 0, cap = mft_push_cap_blocks(n);
	unsigned n_pos = n->num_ports / MFT_POS_PORTS + 1u;

	if (e && e->t.n_blocks > blocks)
		blocks = e->t.n_blocks;
	if (blocks > cap)
		blocks = cap;
	for (unsigned b = 0; b < blocks; b++)
		for (unsigned p = 0; p < n_pos; p++) {
			const uint16_t *w = mft_table_block(t, b, p);

			if (mft_block_needs_write(w, mft_cache_have(e, b, p)))
				mft_push_block(sm, node, n, b, p, w);
		}
}

static void mft_push_finish(struct sm *sm)
{
	for (struct mft_push_run **pp = &mft_push_runs; *pp; pp = &(*pp)->next)
		if ((*pp)->sm == sm) {
			sm_phase_fn then = (*pp)->then;

			mft_push_run_drop(pp);
			then(sm);
			return;
		}
}

/* Register a push for sm (replacing a stale one): 0 or -ENOMEM. */
static int mft_push_run_add(struct sm *sm, const struct fabric *f, struct mft_cache *c,
			    sm_phase_fn then)
{
	struct mft_push_run *r = calloc(1, sizeof(*r));

	for (struct mft_push_run **pp = &mft_push_runs; *pp; pp = &(*pp)->next)
		if ((*pp)->sm == sm) {
			mft_push_run_drop(pp);
			break;
		}
	if (!r || !(r->guids = calloc(f->n_nodes + 1, sizeof(uint64_t)))) {
		free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->n_nodes; i++)
		r->guids[i] = f->nodes[i].guid;
	r->sm = sm, r->c = c, r->n_nodes = f->n_nodes, r->then = then;
	r->next = mft_push_runs;
	mft_push_runs = r;
	return 0;
}

void mft_push_start(struct sm *sm, const struct fabric *f, const struct mft_set *want,
		    struct mft_cache *c, sm_phase_fn then)
{
	if (!c || mft_push_run_add(sm, f, c, then) < 0) {
		log_warnx("NSM-W421 MFT push skipped: %s", c ? "out of memory" : "no cache");
		sm_phase_wait(sm, then);
		return;
	}
	for (size_t i = 0; i < f->n_nodes; i++)
		if (fabric_is_switch(&f->nodes[i]))
			mft_push_switch(sm, f, (int)i, want, c);
	sm_phase_wait(sm, mft_push_finish);
}
