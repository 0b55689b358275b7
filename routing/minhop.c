/*
 * minhop.c - the "minhop" routing engine: every switch forwards each LID on
 * a shortest path (in switch hops), spreading LIDs over equal-cost ports.
 * Reads a const fabric, writes an lft_set; no I/O, no globals, no SM state.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/route.h"

/* A destination LID and where it leaves the fabric: the switch it hangs
 * off and that switch's port towards it (0 for the switch's own LID). */
struct minhop_dest {
	uint16_t lid;
	uint8_t exit_port;
	int sw; /* switch ordinal */
};

struct minhop {
	const struct fabric *f;
	uint16_t max_lid;
	struct lft_set *out;
	struct route_err *err;
	size_t n_sw;
	int *sw_of;         /* node index -> switch ordinal, -1 for CAs */
	int *sw_node;       /* switch ordinal -> node index */
	size_t *adj_start;  /* switch ordinal -> first of its switch-to-switch cables */
	int *adj_sw;        /* [cable]: switch ordinal at the far end */
	uint8_t *adj_port;  /* [cable]: local port, ascending per switch */
	size_t *load_base;  /* switch ordinal -> offset into load */
	uint32_t *load;     /* LIDs routed through each (switch, port) so far */
	uint32_t *lid_owner; /* lid -> node * 256 + port + 1 owning it, or 0 */
	struct minhop_dest *dests;
	size_t n_dests, cap_dests;
	size_t *dest_start; /* switch ordinal -> first of its dests (sorted) */
	int *dist;          /* BFS hop count to the current destination switch */
	int *queue;
	uint8_t *cand;      /* min-hop ports of one switch */
};

static int minhop_fail(struct minhop *m, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int minhop_fail(struct minhop *m, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err->msg, sizeof(m->err->msg), fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- Setup ------------------------------------------------------------- */

static int minhop_alloc(struct minhop *m)
{
	size_t n = m->f->n_nodes ? m->f->n_nodes : 1, s = m->n_sw ? m->n_sw : 1;

	m->sw_of = malloc(n * sizeof(*m->sw_of));
	m->sw_node = malloc(s * sizeof(*m->sw_node));
	m->load_base = malloc(s * sizeof(*m->load_base));
	m->dest_start = calloc(s + 1, sizeof(*m->dest_start));
	m->adj_start = calloc(s + 1, sizeof(*m->adj_start));
	m->dist = malloc(s * sizeof(*m->dist));
	m->queue = malloc(s * sizeof(*m->queue));
	m->cand = malloc(FABRIC_MAX_PORTS + 1);
	m->lid_owner = calloc((size_t)m->max_lid + 1, sizeof(*m->lid_owner));
	if (!m->sw_of || !m->sw_node || !m->load_base || !m->dest_start || !m->adj_start ||
	    !m->dist || !m->queue || !m->cand || !m->lid_owner)
		return -ENOMEM;
	return 0;
}

static void minhop_free(struct minhop *m)
{
	free(m->sw_of);
	free(m->sw_node);
	free(m->adj_start);
	free(m->adj_sw);
	free(m->adj_port);
	free(m->load_base);
	free(m->load);
	free(m->lid_owner);
	free(m->dests);
	free(m->dest_start);
	free(m->dist);
	free(m->queue);
	free(m->cand);
}

/* Number the switches and give each a row of per-port load counters. */
static int minhop_index_switches(struct minhop *m)
{
	size_t ports = 0, s = 0;

	for (size_t i = 0; i < m->f->n_nodes; i++) {
		const struct fabric_node *n = &m->f->nodes[i];

		m->sw_of[i] = -1;
		if (!fabric_is_switch(n))
			continue;
		m->sw_of[i] = (int)s;
		m->sw_node[s] = (int)i;
		m->load_base[s++] = ports;
		ports += (size_t)n->num_ports + 1;
	}
	m->load = calloc(ports ? ports : 1, sizeof(*m->load));
	return m->load ? 0 : -ENOMEM;
}

/* The switch graph as flat arrays: cables between switches only, so the
 * BFS and the port choice never walk CA ports or empty ones. */
static int minhop_build_adjacency(struct minhop *m)
{
	size_t e = 0;

	for (int pass = 0; pass < 2; pass++) {
		e = 0;
		for (size_t s = 0; s < m->n_sw; s++) {
			const struct fabric_node *n = &m->f->nodes[m->sw_node[s]];

			m->adj_start[s] = e;
			for (unsigned pn = 1; pn <= n->num_ports; pn++) {
				int r = n->ports[pn].remote_node;

				if (r == FABRIC_NONE || m->sw_of[r] < 0)
					continue;
				if (pass) {
					m->adj_sw[e] = m->sw_of[r];
					m->adj_port[e] = (uint8_t)pn;
				}
				e++;
			}
		}
		m->adj_start[m->n_sw] = e;
		if (!pass) {
			m->adj_sw = malloc((e ? e : 1) * sizeof(*m->adj_sw));
			m->adj_port = malloc(e ? e : 1);
			if (!m->adj_sw || !m->adj_port)
				return -ENOMEM;
		}
	}
	return 0;
}

/* ---- Destinations ------------------------------------------------------ */

static int minhop_push_dest(struct minhop *m, uint16_t lid, int sw, uint8_t exit_port)
{
	if (m->n_dests == m->cap_dests) {
		size_t cap = m->cap_dests ? m->cap_dests * 2 : 256;
		struct minhop_dest *d = realloc(m->dests, cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		m->dests = d;
		m->cap_dests = cap;
	}
	m->dests[m->n_dests++] = (struct minhop_dest){ lid, exit_port, sw };
	return 0;
}

/* Claim base LID .. base + 2^lmc - 1 for port pn of node; each must be in
 * range and owned by no other port.  sw < 0: the LID leads nowhere. */
static int minhop_claim_lids(struct minhop *m, int node, unsigned pn, int sw, uint8_t exit)
{
	const struct fabric_port *p = &m->f->nodes[node].ports[pn];
	unsigned count = 1u << (p->lmc > 7 ? 7 : p->lmc);
	uint32_t me = (uint32_t)node * 256 + pn + 1;

	for (unsigned lid = p->lid; lid < (unsigned)p->lid + count; lid++) {
		uint32_t other;

		if (lid > m->max_lid)
			return minhop_fail(m, -ERANGE,
					   "port 0x%016" PRIx64 "/%u: LID %u above max_lid %u",
					   p->guid, pn, lid, m->max_lid);
		other = m->lid_owner[lid];
		if (other && other != me)
			return minhop_fail(m, -EINVAL,
					   "port 0x%016" PRIx64 "/%u: LID %u also used by port 0x%016" PRIx64 "/%u",
					   p->guid, pn, lid,
					   m->f->nodes[(other - 1) / 256].ports[(other - 1) % 256].guid,
					   (other - 1) % 256);
		m->lid_owner[lid] = me;
		if (sw >= 0 && minhop_push_dest(m, (uint16_t)lid, sw, exit))
			return minhop_fail(m, -ENOMEM, "out of memory");
	}
	return 0;
}

/* A switch's LID leaves by port 0; a CA/router port's LID is reachable
 * when the port is cabled to a switch. */
static int minhop_collect_node(struct minhop *m, int node)
{
	const struct fabric_node *n = &m->f->nodes[node];
	int rc = 0;

	if (fabric_is_switch(n))
		return n->ports[0].lid ? minhop_claim_lids(m, node, 0, m->sw_of[node], 0) : 0;
	for (unsigned pn = 1; pn <= n->num_ports && !rc; pn++) {
		const struct fabric_port *p = &n->ports[pn];
		int sw = p->remote_node == FABRIC_NONE ? -1 : m->sw_of[p->remote_node];

		if (p->lid)
			rc = minhop_claim_lids(m, node, pn, sw, p->remote_port);
	}
	return rc;
}

static int minhop_collect_dests(struct minhop *m)
{
	for (size_t i = 0; i < m->f->n_nodes; i++) {
		int rc = minhop_collect_node(m, (int)i);

		if (rc)
			return rc;
	}
	return 0;
}

static int minhop_dest_cmp(const void *a, const void *b)
{
	const struct minhop_dest *x = a, *y = b;

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	return (x->lid > y->lid) - (x->lid < y->lid);
}

/* Sort by (switch, LID): dest_start[s] .. dest_start[s + 1] hang off s. */
static void minhop_group_dests(struct minhop *m)
{
	size_t d = 0;

	if (m->n_dests)
		qsort(m->dests, m->n_dests, sizeof(*m->dests), minhop_dest_cmp);
	for (size_t s = 0; s <= m->n_sw; s++) {
		while (d < m->n_dests && m->dests[d].sw < (int)s)
			d++;
		m->dest_start[s] = d;
	}
}

/* ---- Shortest paths and port choice ----------------------------------- */

/* Hop counts from every switch to switch ordinal t (-1: unreachable). */
static void minhop_bfs(struct minhop *m, int t)
{
	size_t head = 0, tail = 0;

	for (size_t s = 0; s < m->n_sw; s++)
		m->dist[s] = -1;
	m->dist[t] = 0;
	m->queue[tail++] = t;
	while (head < tail) {
		int s = m->queue[head++];

		for (size_t e = m->adj_start[s]; e < m->adj_start[s + 1]; e++) {
			int r = m->adj_sw[e];

			if (m->dist[r] >= 0)
				continue;
			m->dist[r] = m->dist[s] + 1;
			m->queue[tail++] = r;
		}
	}
}

/* Ports of switch s that lead one hop closer to the destination switch. */
static size_t minhop_candidates(struct minhop *m, int s)
{
	size_t k = 0;

	for (size_t e = m->adj_start[s]; e < m->adj_start[s + 1]; e++)
		if (m->dist[m->adj_sw[e]] == m->dist[s] - 1)
			m->cand[k++] = m->adj_port[e];
	return k;
}

/* The least-loaded candidate; the lowest port number wins a tie. */
static uint8_t minhop_pick(const struct minhop *m, int s, size_t k)
{
	const uint32_t *load = &m->load[m->load_base[s]];
	uint8_t best = m->cand[0];

	for (size_t i = 1; i < k; i++)
		if (load[m->cand[i]] < load[best])
			best = m->cand[i];
	return best;
}

static void minhop_set(struct minhop *m, int s, uint16_t lid, uint8_t port)
{
	m->out->tables[s].port[lid] = port;
	m->load[m->load_base[s] + port]++;
}

/* Route every LID hanging off switch t from every switch that reaches t.
 * The forced pass sets the routes with one shortest-path port (and t's own
 * exits); the choice pass then spreads the rest over the least-loaded
 * ports, so choices see the full forced load. */
static void minhop_route_to(struct minhop *m, int t, int choices)
{
	size_t first = m->dest_start[t], last = m->dest_start[t + 1];

	minhop_bfs(m, t);
	for (size_t d = first; d < last && !choices; d++)
		minhop_set(m, t, m->dests[d].lid, m->dests[d].exit_port);
	for (size_t s = 0; s < m->n_sw; s++) {
		size_t k;

		if ((int)s == t || m->dist[s] < 0)
			continue;
		k = minhop_candidates(m, (int)s);
		if ((k > 1) != choices)
			continue;
		for (size_t d = first; d < last; d++)
			minhop_set(m, (int)s, m->dests[d].lid, minhop_pick(m, (int)s, k));
	}
}

static void minhop_route_all(struct minhop *m)
{
	for (int choices = 0; choices <= 1; choices++)
		for (size_t t = 0; t < m->n_sw; t++)
			if (m->dest_start[t] < m->dest_start[t + 1])
				minhop_route_to(m, (int)t, choices);
}

/* ---- The engine -------------------------------------------------------- */

static int minhop_compute(const struct fabric *f, const struct route_opts *opts,
			  struct lft_set *out, struct route_err *err)
{
	struct minhop m = { .f = f, .out = out, .err = err };
	int rc;

	err->msg[0] = '\0';
	if (opts->max_lid > LID_UNICAST_MAX)
		return minhop_fail(&m, -EINVAL, "max_lid %u above the unicast range (0x%x)",
				   opts->max_lid, LID_UNICAST_MAX);
	m.max_lid = opts->max_lid;
	m.n_sw = fabric_count_switches(f);
	rc = lft_set_alloc(out, f, m.max_lid);
	if (!rc)
		rc = minhop_alloc(&m);
	if (!rc)
		rc = minhop_index_switches(&m);
	if (!rc)
		rc = minhop_build_adjacency(&m);
	if (rc)
		rc = minhop_fail(&m, rc, "out of memory routing %zu switches", m.n_sw);
	if (!rc)
		rc = minhop_collect_dests(&m);
	if (!rc) {
		minhop_group_dests(&m);
		minhop_route_all(&m);
	}
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
