/*
 * tools/gen/gen_cut.c - nanosm-gen's damage: --missing-switches takes
 * random switches out with their cables, --missing-links random
 * switch-switch cables, each only while the fabric stays connected (a
 * breadth-first walk after each cut; an undo when it would not).  Works on
 * any shape gen_fattree.c or gen_mesh.c built; prints nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/gen/gen.h"

struct gen_bfs {
	uint32_t *mark, *queue;
	uint32_t stamp;
};

/* Breadth-first walk over cabled ports from `from`: SIZE_MAX as soon as it
 * reaches `stop` (GEN_NONE: never), else how many switches it reached. */
static size_t gen_walk(struct gen *g, struct gen_bfs *b, uint32_t from, uint32_t stop)
{
	size_t head = 0, tail = 0, switches = g->nodes[from].role != GEN_HOST;

	b->stamp++;
	b->mark[from] = b->stamp;
	b->queue[tail++] = from;
	while (head < tail) {
		uint32_t v = b->queue[head++];

		for (unsigned p = 1; p <= g->nodes[v].nports; p++) {
			uint32_t w = gen_port_at(g, v, p)->node;

			if (w == GEN_NONE || b->mark[w] == b->stamp)
				continue;
			if (w == stop)
				return SIZE_MAX;
			b->mark[w] = b->stamp;
			b->queue[tail++] = w;
			switches += g->nodes[w].role != GEN_HOST;
		}
	}
	return switches;
}

/* Is `to` reachable from `from` through cabled ports? (early exit) */
static int gen_reachable(struct gen *g, struct gen_bfs *b, uint32_t from, uint32_t to)
{
	return gen_walk(g, b, from, to) == SIZE_MAX;
}

/* Every switch-switch link once, as (node << 8 | port) from its lower end. */
static uint32_t *gen_switch_links(struct gen *g, size_t *n)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (uint32_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].role == GEN_HOST)
			continue;
		for (unsigned p = 1; p <= g->nodes[i].nports; p++) {
			struct gen_port *r = gen_port_at(g, i, p);

			if (r->node == GEN_NONE || g->nodes[r->node].role == GEN_HOST ||
			    r->node < i || (r->node == i && r->port < p))
				continue;
			v = gen_grow(v, &cap, *n + 1, sizeof(*v));
			v[(*n)++] = i << 8 | p;
		}
	}
	return v;
}

/* Remove `want` random switch-switch links, keeping the fabric connected. */
void gen_cut_links(struct gen *g, unsigned want, uint64_t *seed)
{
	struct gen_bfs b = {calloc(g->n_nodes, sizeof(uint32_t)),
			    malloc(g->n_nodes * sizeof(uint32_t)), 0};
	size_t n, removed = 0;
	uint32_t *links = gen_switch_links(g, &n);

	if (!b.mark || !b.queue)
		gen_die("out of memory");
	gen_shuffle(links, n, seed);
	for (size_t i = 0; i < n && removed < want; i++) {
		uint32_t a = links[i] >> 8, pa = links[i] & 0xff;
		struct gen_port r = *gen_port_at(g, a, pa);

		gen_unlink(g, a, pa);
		if (gen_reachable(g, &b, a, r.node))
			removed++;
		else
			gen_link(g, a, pa, r.node, r.port);
	}
	if (removed < want)
		gen_die("only %zu of %u switch-switch links can be removed without disconnecting "
			"the fabric",
			removed, want);
	free(links);
	free(b.mark);
	free(b.queue);
}

/* ---------------------------------------------------------------- missing switches */

static int gen_has_host(struct gen *g, uint32_t sw)
{
	for (unsigned p = 1; p <= g->nodes[sw].nports; p++) {
		uint32_t r = gen_port_at(g, sw, p)->node;

		if (r != GEN_NONE && g->nodes[r].role == GEN_HOST)
			return 1;
	}
	return 0;
}

/* The switch host1 is cabled to: never removed (the SM's attach point). */
static uint32_t gen_host1_switch(struct gen *g)
{
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].role == GEN_HOST && g->nodes[i].idx == 1)
			return gen_port_at(g, i, 1)->node;
	return GEN_NONE;
}

/* Do the switches left (not gone) all reach `from`? */
static int gen_switches_connected(struct gen *g, struct gen_bfs *b, uint32_t from)
{
	size_t left = 0;

	for (uint32_t i = 0; i < g->n_nodes; i++)
		left += g->nodes[i].role != GEN_HOST && !g->nodes[i].gone;
	return gen_walk(g, b, from, GEN_NONE) == left;
}

/* Take switch `sw` out with its cables (and its hosts, which go too);
 * saved[] keeps its port table so gen_restore_switch can put it back. */
static void gen_drop_switch(struct gen *g, uint32_t sw, struct gen_port *saved)
{
	struct gen_node *n = &g->nodes[sw];

	memcpy(saved, gen_port_at(g, sw, 0), (n->nports + 1u) * sizeof(*saved));
	for (unsigned p = 1; p <= n->nports; p++) {
		uint32_t r = gen_port_at(g, sw, p)->node;

		if (r == GEN_NONE)
			continue;
		if (g->nodes[r].role == GEN_HOST)
			g->nodes[r].gone = 1;
		gen_unlink(g, sw, p);
	}
	n->gone = 1;
}

static void gen_restore_switch(struct gen *g, uint32_t sw, const struct gen_port *saved)
{
	g->nodes[sw].gone = 0;
	for (unsigned p = 1; p <= g->nodes[sw].nports; p++) {
		if (saved[p].node == GEN_NONE)
			continue;
		g->nodes[saved[p].node].gone = 0;
		gen_link(g, sw, p, saved[p].node, saved[p].port);
	}
}

/* The switches --missing-switches may take, in random order: without hosts,
 * or (--lose-hosts) any but host1's. */
static uint32_t *gen_switch_candidates(struct gen *g, const struct gen_args *a, size_t *n,
				       uint64_t *seed)
{
	uint32_t *v = malloc(g->n_nodes * sizeof(*v)), keep = gen_host1_switch(g);

	if (!v)
		gen_die("out of memory");
	*n = 0;
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].role != GEN_HOST && i != keep &&
		    (a->lose_hosts || !gen_has_host(g, i)))
			v[(*n)++] = i;
	gen_shuffle(v, *n, seed);
	return v;
}

/* Remove `want` random switches with their cables, each only if the
 * switches left stay connected; their indices go into removed[]. */
static size_t gen_remove_switches(struct gen *g, const struct gen_args *a, uint32_t *removed,
				  uint64_t *seed)
{
	struct gen_bfs b = {calloc(g->n_nodes, sizeof(uint32_t)),
			    malloc(g->n_nodes * sizeof(uint32_t)), 0};
	struct gen_port saved[GEN_MAX_PORTS + 1];
	size_t n, done = 0;
	uint32_t *cand = gen_switch_candidates(g, a, &n, seed), root = gen_host1_switch(g);

	if (!b.mark || !b.queue)
		gen_die("out of memory");
	for (size_t i = 0; i < n && done < a->missing_switches; i++) {
		gen_drop_switch(g, cand[i], saved);
		if (gen_switches_connected(g, &b, root))
			removed[done++] = cand[i];
		else
			gen_restore_switch(g, cand[i], saved);
	}
	free(cand);
	free(b.mark);
	free(b.queue);
	return done;
}

void gen_cut_switches(struct gen *g, const struct gen_args *a, uint64_t *seed)
{
	uint32_t *removed = malloc(a->missing_switches * sizeof(*removed));
	size_t done;

	if (!removed)
		gen_die("out of memory");
	if (gen_host1_switch(g) == GEN_NONE)
		gen_die("internal: host1 is not cabled to a switch");
	done = gen_remove_switches(g, a, removed, seed);
	if (done < a->missing_switches)
		gen_die("only %zu of %u switches %scan be removed without disconnecting the "
			"fabric%s",
			done, a->missing_switches, a->lose_hosts ? "" : "without hosts ",
			a->lose_hosts ? "" : " (--lose-hosts also takes switches with hosts)");
	g->removed_idx = removed;
	g->n_removed = done;
}
