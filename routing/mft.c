/*
 * mft.c - multicast spanning trees and the MulticastForwardingTable blocks
 * they give each switch (see mft.h).  Owns struct mft_set; reads the
 * fabric only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/mft.h"

/* Scratch for one mft_compute: per node BFS state and the member switches
 * of the group being placed. */
struct mft_work {
	const struct fabric *f;
	struct mft_set *set;
	int *tab_of;	     /* node -> index in set->tables, -1 for a CA */
	int *dist;	     /* BFS hops from the current source, -1 unseen */
	int *parent;	     /* BFS parent node */
	uint8_t *up_port;    /* port of a node towards its parent */
	int *queue;
	uint8_t *is_member;  /* node is a member switch of the current group */
	uint8_t *on_tree;    /* node already joined to the current tree */
	int *members;	     /* member switches of the current group */
	size_t n_members;
	size_t skipped;
};

void mft_set_init(struct mft_set *s)
{
	memset(s, 0, sizeof(*s));
}

void mft_set_fini(struct mft_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->tables[i].masks);
	free(s->tables);
	mft_set_init(s);
}

/* ---- tables ------------------------------------------------------------- */

static uint16_t *mft_slot(const struct mft_table *t, unsigned block, unsigned pos)
{
	return t->masks + ((size_t)block * t->n_pos + pos) * MFT_BLOCK_MLIDS;
}

static void mft_mask_set(struct mft_table *t, uint16_t mlid, uint8_t port)
{
	unsigned idx = (unsigned)mlid - MFT_MLID_BASE;

	if (port / MFT_POS_PORTS >= t->n_pos || idx / MFT_BLOCK_MLIDS >= t->n_blocks)
		return; /* an inconsistent fabric; never write past the table */
	mft_slot(t, idx / MFT_BLOCK_MLIDS, port / MFT_POS_PORTS)[idx % MFT_BLOCK_MLIDS] |=
		(uint16_t)(1u << (port % MFT_POS_PORTS));
}

int mft_port_get(const struct mft_table *t, uint16_t mlid, uint8_t port)
{
	unsigned idx = (unsigned)mlid - MFT_MLID_BASE;
	const uint16_t *b;

	if (mlid < MFT_MLID_BASE)
		return 0;
	b = mft_table_block(t, idx / MFT_BLOCK_MLIDS, port / MFT_POS_PORTS);
	return b ? (b[idx % MFT_BLOCK_MLIDS] >> (port % MFT_POS_PORTS)) & 1 : 0;
}

const uint16_t *mft_table_block(const struct mft_table *t, unsigned block, unsigned pos)
{
	if (!t || !t->masks || block >= t->n_blocks || pos >= t->n_pos)
		return NULL;
	return mft_slot(t, block, pos);
}

const struct mft_table *mft_set_find(const struct mft_set *s, int node)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->tables[i].node == node)
			return &s->tables[i];
	return NULL;
}

static int mft_set_alloc(struct mft_set *s, const struct fabric *f, uint16_t n_blocks)
{
	size_t n_sw = fabric_count_switches(f);

	s->tables = calloc(n_sw ? n_sw : 1, sizeof(*s->tables));
	if (!s->tables)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *sw = &f->nodes[i];
		struct mft_table *t;

		if (!fabric_is_switch(sw))
			continue;
		t = &s->tables[s->n++];
		t->node = (int)i;
		t->guid = sw->guid;
		t->n_blocks = n_blocks;
		t->n_pos = (uint8_t)(sw->num_ports / MFT_POS_PORTS + 1);
		t->masks = calloc((size_t)n_blocks * t->n_pos * MFT_BLOCK_MLIDS + 1, sizeof(uint16_t));
		if (!t->masks)
			return -ENOMEM;
	}
	return 0;
}

/* ---- work space --------------------------------------------------------- */

static void mft_work_fini(struct mft_work *w)
{
	free(w->tab_of);
	free(w->dist);
	free(w->parent);
	free(w->up_port);
	free(w->queue);
	free(w->is_member);
	free(w->on_tree);
	free(w->members);
}

static int mft_work_init(struct mft_work *w, const struct fabric *f, struct mft_set *set)
{
	size_t n = f->n_nodes ? f->n_nodes : 1;

	memset(w, 0, sizeof(*w));
	w->f = f;
	w->set = set;
	w->tab_of = malloc(n * sizeof(int));
	w->dist = malloc(n * sizeof(int));
	w->parent = malloc(n * sizeof(int));
	w->up_port = calloc(n, 1);
	w->queue = malloc(n * sizeof(int));
	w->is_member = calloc(n, 1);
	w->on_tree = calloc(n, 1);
	w->members = malloc(n * sizeof(int));
	if (!w->tab_of || !w->dist || !w->parent || !w->up_port || !w->queue || !w->is_member ||
	    !w->on_tree || !w->members)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nodes; i++)
		w->tab_of[i] = -1;
	for (size_t i = 0; i < set->n; i++)
		w->tab_of[set->tables[i].node] = (int)i;
	return 0;
}

/* ---- one group ---------------------------------------------------------- */

/* The switch and switch port a member hangs off: 0, or -1 when it is not
 * a switch's port 0 and not a port linked to a switch. */
static int mft_member_switch(const struct fabric *f, const struct mft_member *m, int *sw,
			     uint8_t *port)
{
	const struct fabric_node *n;
	const struct fabric_port *p;

	if (m->node < 0 || (size_t)m->node >= f->n_nodes)
		return -1;
	n = &f->nodes[m->node];
	if (m->port > n->num_ports)
		return -1;
	if (fabric_is_switch(n)) {
		*sw = m->node, *port = 0;
		return m->port == 0 ? 0 : -1;
	}
	p = &n->ports[m->port];
	if (m->port == 0 || p->remote_node < 0 || (size_t)p->remote_node >= f->n_nodes ||
	    !fabric_is_switch(&f->nodes[p->remote_node]))
		return -1;
	*sw = p->remote_node, *port = p->remote_port;
	return 0;
}

/* Note each member's switch once; give receiving members their port. */
static void mft_collect_members(struct mft_work *w, const struct mft_group *g)
{
	w->n_members = 0;
	for (size_t i = 0; i < g->n; i++) {
		int sw;
		uint8_t port;

		if (mft_member_switch(w->f, &g->m[i], &sw, &port) < 0) {
			w->skipped++;
			continue;
		}
		if (!g->m[i].send_only)
			mft_mask_set(&w->set->tables[w->tab_of[sw]], g->mlid, port);
		if (!w->is_member[sw]) {
			w->is_member[sw] = 1;
			w->members[w->n_members++] = sw;
		}
	}
}

/* BFS over switch-to-switch links from src: dist, parent, up_port.
 * Ports are tried in increasing order, so the tree is deterministic. */
static void mft_bfs(struct mft_work *w, int src)
{
	const struct fabric *f = w->f;
	size_t head = 0, tail = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		w->dist[i] = -1;
	w->dist[src] = 0;
	w->parent[src] = FABRIC_NONE;
	w->queue[tail++] = src;
	while (head < tail) {
		int x = w->queue[head++];
		const struct fabric_node *n = &f->nodes[x];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			int y = n->ports[p].remote_node;

			if (y < 0 || (size_t)y >= f->n_nodes || w->tab_of[y] < 0 || w->dist[y] >= 0)
				continue;
			w->dist[y] = w->dist[x] + 1;
			w->parent[y] = x;
			w->up_port[y] = n->ports[p].remote_port;
			w->queue[tail++] = y;
		}
	}
}

/* The member switch that reaches the most member switches, then the one
 * whose farthest member switch is nearest, then the lowest index. */
static int mft_pick_root(struct mft_work *w)
{
	int best = w->members[0];
	size_t best_miss = (size_t)-1;
	int best_far = 0;

	for (size_t i = 0; i < w->n_members; i++) {
		size_t miss = 0;
		int far = 0;

		mft_bfs(w, w->members[i]);
		for (size_t j = 0; j < w->n_members; j++) {
			int d = w->dist[w->members[j]];

			if (d < 0)
				miss++;
			else if (d > far)
				far = d;
		}
		if (miss < best_miss || (miss == best_miss && (far < best_far ||
			(far == best_far && w->members[i] < best)))) {
			best = w->members[i], best_miss = miss, best_far = far;
		}
	}
	return best;
}

/* Join member switch s to the tree: walk to the root, marking each link
 * at both ends, until a switch already on the tree. */
static void mft_graft(struct mft_work *w, int s, uint16_t mlid)
{
	const struct fabric *f = w->f;

	if (w->dist[s] < 0) {
		w->skipped++;
		return;
	}
	while (!w->on_tree[s] && w->parent[s] != FABRIC_NONE) {
		int up = w->parent[s];
		uint8_t out = w->up_port[s];
		uint8_t down = f->nodes[s].ports[out].remote_port;

		w->on_tree[s] = 1;
		mft_mask_set(&w->set->tables[w->tab_of[s]], mlid, out);
		mft_mask_set(&w->set->tables[w->tab_of[up]], mlid, down);
		s = up;
	}
	w->on_tree[s] = 1;
}

static void mft_place_group(struct mft_work *w, const struct mft_group *g)
{
	mft_collect_members(w, g);
	if (w->n_members) {
		mft_bfs(w, mft_pick_root(w));
		for (size_t i = 0; i < w->n_members; i++)
			mft_graft(w, w->members[i], g->mlid);
	}
	for (size_t i = 0; i < w->f->n_nodes; i++)
		w->is_member[i] = w->on_tree[i] = 0;
}

static int mft_blocks_needed(const struct mft_group *g, size_t n, uint16_t *n_blocks)
{
	unsigned top = 0;

	for (size_t i = 0; i < n; i++) {
		if (g[i].mlid < MFT_MLID_BASE || g[i].mlid > MFT_MLID_MAX)
			return -EINVAL;
		if ((unsigned)(g[i].mlid - MFT_MLID_BASE) / MFT_BLOCK_MLIDS + 1 > top)
			top = (unsigned)(g[i].mlid - MFT_MLID_BASE) / MFT_BLOCK_MLIDS + 1;
	}
	*n_blocks = (uint16_t)top;
	return 0;
}

int mft_compute(const struct fabric *f, const struct mft_group *g, size_t n_groups,
		struct mft_set *out, size_t *skipped)
{
	struct mft_set s;
	struct mft_work w = {0};
	uint16_t n_blocks;
	int rc = mft_blocks_needed(g, n_groups, &n_blocks);

	if (rc < 0)
		return rc;
	mft_set_init(&s);
	rc = mft_set_alloc(&s, f, n_blocks);
	if (rc == 0)
		rc = mft_work_init(&w, f, &s);
	if (rc < 0) {
		mft_work_fini(&w);
		mft_set_fini(&s);
		return rc;
	}
	for (size_t i = 0; i < n_groups; i++)
		mft_place_group(&w, &g[i]);
	if (skipped)
		*skipped = w.skipped;
	mft_work_fini(&w);
	mft_set_fini(out);
	*out = s;
	return 0;
}

/* ---- diffs and wire ----------------------------------------------------- */

int mft_block_is_zero(const uint16_t *masks)
{
	for (unsigned i = 0; masks && i < MFT_BLOCK_MLIDS; i++)
		if (masks[i])
			return 0;
	return 1;
}

static int mft_block_same(const uint16_t *a, const uint16_t *b)
{
	if (!a || !b)
		return mft_block_is_zero(a) && mft_block_is_zero(b);
	return memcmp(a, b, MFT_BLOCK_MLIDS * sizeof(uint16_t)) == 0;
}

int mft_block_needs_write(const uint16_t *want, const uint16_t *have)
{
	if (!have)
		return !mft_block_is_zero(want);
	return !mft_block_same(want, have);
}

static int mft_diff_add(struct mft_block_ref **v, size_t *n, size_t *cap, struct mft_block_ref r)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct mft_block_ref *nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv, *cap = c;
	}
	(*v)[(*n)++] = r;
	return 0;
}

static int mft_diff_table(const struct mft_table *ta, const struct mft_table *tb,
			  struct mft_block_ref **v, size_t *n, size_t *cap)
{
	unsigned blocks = tb->n_blocks;

	if (ta && ta->n_blocks > blocks)
		blocks = ta->n_blocks;
	for (unsigned b = 0; b < blocks; b++)
		for (unsigned p = 0; p < tb->n_pos; p++) {
			struct mft_block_ref r = {tb->node, (uint16_t)b, (uint8_t)p};

			if (!mft_block_same(mft_table_block(ta, b, p), mft_table_block(tb, b, p)) &&
			    mft_diff_add(v, n, cap, r) < 0)
				return -ENOMEM;
		}
	return 0;
}

int mft_diff(const struct mft_set *a, const struct mft_set *b, struct mft_block_ref **out,
	     size_t *n)
{
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct mft_table *tb = &b->tables[i];

		if (mft_diff_table(mft_set_find(a, tb->node), tb, out, n, &cap) < 0) {
			free(*out);
			*out = NULL;
			*n = 0;
			return -ENOMEM;
		}
	}
	return 0;
}

void mft_block_encode(const uint16_t *masks, uint8_t *data)
{
	for (unsigned i = 0; i < MFT_BLOCK_MLIDS; i++) {
		data[2 * i] = (uint8_t)(masks[i] >> 8);
		data[2 * i + 1] = (uint8_t)masks[i];
	}
}

void mft_block_decode(const uint8_t *data, uint16_t *masks)
{
	for (unsigned i = 0; i < MFT_BLOCK_MLIDS; i++)
		masks[i] = (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
}
