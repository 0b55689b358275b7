/*
 * minhop.c - the "minhop" routing engine: every switch forwards each LID on
 * a shortest path (in switch hops), spreading LIDs over equal-cost ports.
 * Reads a const fabric, writes an lft_set; no I/O, no globals, no SM state.
 */
#include <errno.h>
#include <stdlib.h>

#include "mad/text.h"
#include "routing/route.h"
#include "routing/swgraph.h"

struct minhop {
	const struct fabric *f;
	uint16_t max_lid;
	struct lft_set *out;
	char *err; /* the caller's error buffer */
	size_t errlen;
	struct swgraph g;
	uint32_t *load;		    /* LIDs routed through each (switch, port) so far */
	struct swgraph_dests dests; /* grouped by the switch they hang off */
	int *dist;		    /* BFS hop count to the current destination switch */
	int *queue;
	uint8_t *cand; /* min-hop ports of one switch */
};

/* ---- Setup ------------------------------------------------------------- */

static int minhop_alloc(struct minhop *m)
{
	size_t s = m->g.n_sw ? m->g.n_sw : 1, slots = m->g.port_base[m->g.n_sw];

	m->load = calloc(slots ? slots : 1, sizeof(*m->load));
	m->dist = malloc(s * sizeof(*m->dist));
	m->queue = malloc(s * sizeof(*m->queue));
	m->cand = malloc(FABRIC_MAX_PORTS + 1);
	return m->load && m->dist && m->queue && m->cand ? 0 : -ENOMEM;
}

static void minhop_free(struct minhop *m)
{
	swgraph_fini(&m->g);
	swgraph_dests_fini(&m->dests);
	free(m->load);
	free(m->dist);
	free(m->queue);
	free(m->cand);
}

/* The tables, the switch graph and a row of per-port load counters for
 * each switch. */
static int minhop_setup(struct minhop *m)
{
	int rc = lft_set_alloc(m->out, m->f, m->max_lid);

	if (!rc)
		rc = swgraph_init(&m->g, m->f, 0);
	if (!rc)
		rc = minhop_alloc(m);
	if (rc)
		return text_err(m->err, m->errlen, rc, "out of memory routing %zu switches",
				fabric_count_switches(m->f));
	return 0;
}

/* ---- Shortest paths and port choice ----------------------------------- */

static uint32_t *minhop_load(const struct minhop *m, int s)
{
	return &m->load[m->g.port_base[s]];
}

/* Ports of switch s that lead one hop closer to the destination switch,
 * ascending. */
static size_t minhop_candidates(struct minhop *m, int s)
{
	const struct swgraph_link *l = &m->g.adj[m->g.adj_start[s]];
	const struct swgraph_link *end = &m->g.adj[m->g.adj_start[s + 1]];
	int nearer = m->dist[s] - 1;
	size_t k = 0;

	for (; l < end; l++)
		if (m->dist[l->sw] == nearer)
			m->cand[k++] = l->port;
	return k;
}

/* Route every LID hanging off switch t from every switch that reaches t.
 * The forced pass sets the routes with one shortest-path port (and t's own
 * exits); the choice pass then spreads the rest over the least-loaded
 * ports (lowest port on a tie), so choices see the full forced load. */
static void minhop_route_to(struct minhop *m, int t, int choices)
{
	const struct swgraph_dest *d = &m->dests.v[m->dests.start[t]];
	size_t n = m->dests.start[t + 1] - m->dests.start[t];

	swgraph_bfs_from(&m->g, t, m->queue, m->dist, NULL);
	if (!choices)
		swgraph_route_exits(m->out->tables[t].port, minhop_load(m, t), d, n);
	for (size_t s = 0; s < m->g.n_sw; s++) {
		size_t k;

		if ((int)s == t || m->dist[s] < 0)
			continue;
		k = minhop_candidates(m, (int)s);
		if ((k > 1) == choices)
			swgraph_spread(m->out->tables[s].port, minhop_load(m, (int)s), m->cand, k,
				       d, n);
	}
}

static void minhop_route_all(struct minhop *m)
{
	for (int choices = 0; choices <= 1; choices++)
		for (size_t t = 0; t < m->g.n_sw; t++)
			if (m->dests.start[t] < m->dests.start[t + 1])
				minhop_route_to(m, (int)t, choices);
}

/* ---- The engine -------------------------------------------------------- */

static int minhop_compute(const struct fabric *f, const struct route_opts *opts,
			  struct lft_set *out, struct route_note *note, char *err, size_t errlen)
{
	struct minhop m = {
	    .f = f, .max_lid = opts->max_lid, .out = out, .err = err, .errlen = errlen};
	int rc;

	if (note)
		note->text[0] = '\0'; /* minhop has nothing to note */
	rc = route_opts_check(opts, err, errlen);
	if (rc)
		return rc;
	rc = minhop_setup(&m);
	if (!rc)
		rc = swgraph_collect_dests(&m.g, m.max_lid, 1, &m.dests, err, errlen);
	if (!rc)
		minhop_route_all(&m);
	minhop_free(&m);
	if (rc)
		lft_set_fini(out);
	return rc;
}

const struct route_engine route_engine_minhop = {
    .name = "minhop",
    .summary = "shortest paths in switch hops, LIDs balanced over equal-cost ports",
    .compute = minhop_compute,
};
