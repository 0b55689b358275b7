/*
 * sm/core/mft_push.c - write the MulticastForwardingTable blocks that differ from
 * what each switch holds (see mft_push.h).  Owns struct mft_cache; reads
 * the wanted tables and the model, changes neither.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/mft_push.h"

/* What one switch is known to hold: masks in struct mft_table layout with
 * MFT_POSITIONS positions, known[block * MFT_POSITIONS + pos] set once a
 * Set of that block succeeded. */
struct mft_cache_entry {
	uint64_t guid;
	struct mft_table t;
	uint8_t *known;
};

/* A push borrows the cache and leaves its model here: the cache is the
 * context its SMPs carry (req.ctx), so nothing is allocated per push and
 * nothing is left behind when sm_free cancels one. */
struct mft_cache {
	struct mft_cache_entry *e;
	size_t n, cap;
	const struct fabric *f; /* model of the last push (borrowed; read only by its SMPs) */
};

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

void mft_cache_free(struct mft_cache *c)
{
	if (!c)
		return;
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
static const uint16_t *mft_cache_have(const struct mft_cache_entry *e, unsigned block, unsigned pos)
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

/* A Set failed, maybe with its answer lost after it landed: the switch
 * may hold what we sent, or what it had.  The cache then remembers a
 * pattern no real table has (every port of the position, with bit 0 of
 * the second entry cleared), so the next push writes that block whatever
 * it wants there, an empty block included. */
static void mft_cache_unsure(struct mft_cache *c, uint64_t guid, unsigned block, unsigned pos)
{
	uint16_t masks[MFT_BLOCK_MLIDS];

	for (unsigned i = 0; i < MFT_BLOCK_MLIDS; i++)
		masks[i] = 0xffff;
	masks[1] = 0xfffe;
	mft_cache_store(c, guid, block, pos, masks);
}

/* ---- the push ---------------------------------------------------------- */

static void mft_push_block_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct mft_cache *c = r->ctx;
	uint16_t masks[MFT_BLOCK_MLIDS];
	unsigned block, pos;
	uint64_t guid;

	if (r->node < 0 || (size_t)r->node >= c->f->n_nodes)
		return;
	guid = c->f->nodes[r->node].guid;
	mft_attr_split(r->extra, &block, &pos);
	if (status < 0 || resp->status) {
		r->sm->st.set_errors++;
		log_warnx("NSM-W430 switch 0x%016llx: MFT block %u position %u Set failed: %s",
			  (unsigned long long)guid, block, pos,
			  status < 0 ? strerror(-status) : "refused");
		mft_cache_unsure(c, guid, block, pos);
		return;
	}
	mft_block_decode(resp->data, masks);
	mft_cache_store(c, guid, block, pos, masks);
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

static void mft_push_block(struct sm *sm, struct mft_cache *c, int node, unsigned block,
			   unsigned pos, const uint16_t *masks)
{
	static const uint16_t zero[MFT_BLOCK_MLIDS];
	const struct fabric_node *n = &c->f->nodes[node];
	struct sm_req r = {
	    .node = node, .hops = n->dr_hops, .extra = mft_attr_mod(block, pos), .ctx = c};
	uint8_t data[SMP_DATA_SIZE] = {0};

	mft_block_encode(masks ? masks : zero, data);
	memcpy(r.path, n->dr_path, sizeof(r.path));
	sm->st.mft_blocks_sent++;
	if (sm_submit(sm, &r, SMP_METHOD_SET, MFT_ATTR_ID, r.extra, data, mft_push_block_done) < 0)
		sm->st.set_errors++;
}

static void mft_push_switch(struct sm *sm, struct mft_cache *c, int node,
			    const struct mft_set *want)
{
	const struct fabric_node *n = &c->f->nodes[node];
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
				mft_push_block(sm, c, node, b, p, w);
		}
}

void mft_push_start(struct sm *sm, const struct fabric *f, const struct mft_set *want,
		    struct mft_cache *c, sm_phase_fn then)
{
	if (!c) {
		log_warnx("NSM-W431 MFT push skipped: no cache");
		sm_phase_wait(sm, then);
		return;
	}
	c->f = f;
	for (size_t i = 0; i < f->n_nodes; i++)
		if (fabric_is_switch(&f->nodes[i]))
			mft_push_switch(sm, c, (int)i, want);
	sm_phase_wait(sm, then);
}
