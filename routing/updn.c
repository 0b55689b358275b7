/*
 * updn.c - the "updn" routing engine: up-star/down-star routes on any
 * topology.  Owns root choice, the switch order and the route choice; reads
 * a const fabric and writes an lft_set; no I/O, no globals, no SM state.
 *
 * DOC: Algorithm.  Each connected group of switches is routed on its own.
 * 1. Roots: the switches named in opts->roots (an unknown or non-switch
 *    GUID is an error).  A group without a given root gets roots detected:
 *    let h(s) be the hop distance from switch s to the nearest switch with a
 *    CA cabled to it (h = 0 everywhere in a group without CAs).
 *    - "top rank": when every cable joins switches whose h differs by
 *      exactly one (a layered graph: a fat tree or Clos with CAs on its
 *      leaves, a single switch), the roots are the switches of highest h.
 *    - "center" otherwise (meshes, rings, tori, cross-linked switches, a
 *      tree with a CA on an upper switch): the one switch with the least
 *      maximum distance to the CA-bearing switches, then the least total
 *      distance, then the lowest GUID.
 * 2. Order: rank = BFS distance from the group's roots over switch cables.
 *    With two roots or more, an apex is chosen the same way as a center but
 *    towards the roots (in a complete fat tree: a leaf), and every switch on a
 *    shortest path from the apex to a root (both ends included) forms the
 *    bridge, ordered by distance from the apex and placed above all other
 *    switches.  So the apex is the one switch with nothing above it, and
 *    every pair of switches has an up/down path (roots alone would leave
 *    root-to-root traffic without one); in a complete fat tree no route
 *    between CAs gets longer.  A cable goes "up" towards the switch that is
 *    higher in (bridge first, rank or apex distance, GUID): a total order,
 *    so no cycle of cables goes up all the way.
 * 3. Routes, per destination switch t (all LIDs behind it at once).  A path
 *    is legal when it never goes down and then up.  With one LFT entry per
 *    switch, a switch that sends t's LIDs up must never be entered from
 *    above, so each switch is either "down-only" (its whole route to t goes
 *    down; anyone may send down into it) or "up-first" (only switches below
 *    it may send into it).  A backwards BFS from t, level by level, gives
 *    each switch its shortest route consistent with the states of the
 *    switches nearer to t: first those sending down into a down-only switch
 *    of the level (they become down-only), then those sending up into any
 *    switch of it (up-first).  Nobody in t's group is left out: the highest
 *    down-only switch is the top of the group (a switch above it would have
 *    been reached down-only, or climbs to a down-only switch higher still),
 *    and every switch climbs to the top.  Every route is up*down*, so the
 *    channel dependency graph is acyclic: no credit loop.
 * 4. Ports: each switch sends each of t's LIDs out of a port leading to a
 *    neighbour one step nearer that its state allows, the one with the
 *    fewest LIDs so far (lowest port on a tie); routes with a single such
 *    port are set first, for all destinations, so the choices see the whole
 *    forced load.  t sends its own LIDs (2^LMC each) to port 0 and a cabled
 *    CA port's LIDs to that port; LIDs of other groups or no switch drop.
 * Cost: O(S * (S + E)) time for S switches and E cables (one BFS per
 * destination switch and pass; one pass for a switch that delivers only
 * its own LIDs), O(S + E + LIDs) memory besides the tables.  Destinations
 * are taken 64 at a time (updn_route_batch): one breadth-first search for
 * all 64 as the bits of a word per switch (updn_legal_search), each
 * cable's 64 verdicts in one pass of 16-bit compares (updn_cables_ok),
 * then routed switch by switch, the same order at every switch, with its
 * loads and table lines kept in cache.  Hop counts are 16 bits: more than
 * 65534 switches is refused (-E2BIG).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "mad/text.h"
#include "routing/route.h"
#include "routing/swgraph.h"

#define UPDN_NOTE_GUIDS 6 /* switches listed by GUID in the note, per kind */
#define UPDN_BATCH 64	  /* destination switches searched and routed together: bits of a word */
#define UPDN_FAR 0xffff	  /* dist of a switch the search did not reach */
/* a switch's up (down) cables in words of 64 bits */
#define UPDN_CHUNKS ((FABRIC_MAX_PORTS + 63) / 64)

enum updn_how { UPDN_NOT_ROOT, UPDN_GIVEN, UPDN_TOP, UPDN_CENTER };

struct updn {
	const struct fabric *f;
	struct lft_set *out;
	struct route_note *note; /* the caller's, or a scratch one */
	char *err;		 /* the caller's error buffer */
	size_t errlen;
	uint16_t max_lid;
	struct swgraph g;    /* its cables get ordered: up ones first */
	size_t *adj_split;   /* once ordered: up cables before it, down ones from it */
	int *nbr;	     /* g.adj[e].sw once ordered, packed (the BFS reads only this) */
	uint8_t *nport;	     /* g.adj[e].port, likewise */
	uint8_t *root;       /* enum updn_how */
	uint8_t *apex;       /* 1 for a group's apex */
	uint8_t *bridge;     /* 1 on a shortest path from the apex to a root */
	int *rank;           /* distance from the roots, or from the apex on the bridge */
	uint8_t *mark;       /* scratch: the switches distances are taken to */
	int *hop;            /* scratch distances */
	int *ecc;            /* max distance to the marked switches */
	uint64_t *total;     /* total distance to them */
	uint64_t *seen, *front, *next; /* scratch: 64 breadth-first searches at once */
	uint32_t *load;      /* LIDs routed through each (switch, port) so far */
	struct swgraph_dests dests; /* grouped by the switch they hang off */
	/* the legal search of a batch, bit b (or column b) for its b-th
	 * destination switch (updn_legal_search): */
	uint16_t *dist;			  /* dist[s * UPDN_BATCH + b]: hops from s, UPDN_FAR none */
	uint64_t *down_only;		  /* s's route only goes down */
	uint64_t *reached;		  /* scratch: the search reached s */
	uint64_t *front_all, *front_down; /* reached at this level (and down-only) */
	uint64_t *via_all, *via_down;	  /* next level: from a front neighbour below
					   * (any state) or above (down-only) */
	int *touched;			  /* switches with a via bit, then the next front */
	int *front_sw;			  /* switches of the front */
	int *queue;
	uint8_t *cand;
	uint64_t *cand_bits; /* per side, 64 cables, destination: may take (updn_cables_ok) */
	size_t cand_key[UPDN_CHUNKS]; /* what u->cand now holds (updn_candidates) */
	int cand_side;
	size_t cand_k;
	int cand_again; /* 1: the last updn_candidates kept the list */
};

static void updn_note(struct updn *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append to the note, truncating quietly when it is full. */
static void updn_note(struct updn *u, const char *fmt, ...)
{
	size_t len = strlen(u->note->text);
	va_list ap;

	if (len + 1 >= sizeof(u->note->text))
		return;
	va_start(ap, fmt);
	vsnprintf(u->note->text + len, sizeof(u->note->text) - len, fmt, ap);
	va_end(ap);
}

/* ---- Setup ------------------------------------------------------------- */

static int updn_alloc(struct updn *u)
{
	size_t s = u->g.n_sw ? u->g.n_sw : 1, slots = u->g.port_base[u->g.n_sw];

	u->adj_split = calloc(s, sizeof(*u->adj_split));
	u->root = calloc(s, 1);
	u->apex = calloc(s, 1);
	u->bridge = calloc(s, 1);
	u->rank = malloc(s * sizeof(*u->rank));
	u->mark = malloc(s);
	u->hop = malloc(s * sizeof(*u->hop));
	u->ecc = malloc(s * sizeof(*u->ecc));
	u->total = malloc(s * sizeof(*u->total));
	u->load = calloc(slots ? slots : 1, sizeof(*u->load));
	u->dist = malloc(UPDN_BATCH * s * sizeof(*u->dist));
	u->down_only = malloc(s * sizeof(*u->down_only));
	u->reached = malloc(s * sizeof(*u->reached));
	u->front_all = calloc(s, sizeof(*u->front_all));
	u->front_down = calloc(s, sizeof(*u->front_down));
	u->via_all = calloc(s, sizeof(*u->via_all));
	u->via_down = calloc(s, sizeof(*u->via_down));
	u->touched = malloc(s * sizeof(*u->touched));
	u->front_sw = malloc(s * sizeof(*u->front_sw));
	u->queue = malloc(s * sizeof(*u->queue));
	u->cand = malloc(FABRIC_MAX_PORTS + 1);
	u->cand_bits = malloc(2 * UPDN_CHUNKS * UPDN_BATCH * sizeof(*u->cand_bits));
	u->seen = malloc(s * sizeof(*u->seen));
	u->front = malloc(s * sizeof(*u->front));
	u->next = malloc(s * sizeof(*u->next));
	u->nbr = malloc((u->g.adj_start[u->g.n_sw] + 1) * sizeof(*u->nbr));
	u->nport = malloc(u->g.adj_start[u->g.n_sw] + 1);
	if (!u->seen || !u->front || !u->next || !u->nbr || !u->nport || !u->adj_split ||
	    !u->root || !u->apex || !u->bridge || !u->rank || !u->mark || !u->hop || !u->ecc ||
	    !u->total || !u->load || !u->dist || !u->down_only || !u->queue || !u->cand ||
	    !u->reached || !u->front_all || !u->front_down || !u->via_all || !u->via_down ||
	    !u->touched || !u->front_sw || !u->cand_bits)
		return -ENOMEM;
	return 0;
}

static void updn_free(struct updn *u)
{
	void *all[] = {u->adj_split, u->root,	    u->apex,	u->bridge,   u->rank,
		       u->mark,	     u->hop,	    u->ecc,	u->total,    u->load,
		       u->dist,	     u->down_only,  u->queue,	u->cand,     u->nbr,
		       u->nport,     u->seen,	    u->front,	u->next,     u->reached,
		       u->front_all, u->front_down, u->via_all, u->via_down, u->touched,
		       u->front_sw,  u->cand_bits};

	swgraph_fini(&u->g);
	swgraph_dests_fini(&u->dests);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
}

/* The tables, the switch graph (its connected groups are routed apart)
 * and a row of per-port load counters for each switch. */
static int updn_setup(struct updn *u, const struct route_opts *opts)
{
	int rc = route_opts_check(opts, u->err, u->errlen);

	if (rc)
		return rc;
	u->max_lid = opts->max_lid;
	rc = lft_set_alloc(u->out, u->f, u->max_lid);
	if (!rc)
		rc = swgraph_init(&u->g, u->f, 0);
	if (!rc && u->g.n_sw >= UPDN_FAR) /* hop counts are 16 bits */
		return text_err(u->err, u->errlen, -E2BIG,
				"updn routes at most %u switches, not %zu", UPDN_FAR - 1,
				u->g.n_sw);
	if (!rc)
		rc = updn_alloc(u);
	if (rc)
		return text_err(u->err, u->errlen, rc, "out of memory routing %zu switches",
				fabric_count_switches(u->f));
	return 0;
}


/* ---- Roots ------------------------------------------------------------- */

static int updn_given_roots(struct updn *u, const struct route_opts *opts)
{
	for (size_t i = 0; opts->roots && i < opts->n_roots; i++) {
		int node = fabric_find(u->f, opts->roots[i]);

		if (node == FABRIC_NONE)
			return text_err(u->err, u->errlen, -ENOENT,
					"root 0x%016" PRIx64 ": no such node", opts->roots[i]);
		if (u->g.sw_of[node] < 0)
			return text_err(u->err, u->errlen, -EINVAL,
					"root 0x%016" PRIx64 " (%s): not a switch", opts->roots[i],
					u->f->nodes[node].desc);
		u->root[u->g.sw_of[node]] = UPDN_GIVEN;
	}
	return 0;
}

/* hop[] over a group: distance to the nearest CA-bearing switch, 0 for all
 * when the group has no CA; mark[] = the switches at 0. */
static void updn_ca_heights(struct updn *u, const int *m, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		u->hop[m[i]] = u->g.has_ca[m[i]] ? 0 : -1;
		if (u->g.has_ca[m[i]])
			u->queue[k++] = m[i];
	}
	for (size_t i = 0; i < n && !k; i++)
		u->hop[m[i]] = 0;
	swgraph_bfs(&u->g, u->queue, k, u->hop, NULL);
	for (size_t i = 0; i < n; i++)
		u->mark[m[i]] = u->hop[m[i]] == 0;
}

/* 1 when every cable of the group joins heights one apart; *top = max. */
static int updn_is_layered(const struct updn *u, const int *m, size_t n, int *top)
{
	*top = 0;
	for (size_t i = 0; i < n; i++) {
		int s = m[i];

		*top = u->hop[s] > *top ? u->hop[s] : *top;
		for (size_t e = u->g.adj_start[s]; e < u->g.adj_start[s + 1]; e++)
			if (abs(u->hop[s] - u->hop[u->g.adj[e].sw]) != 1)
				return 0;
	}
	return 1;
}

/* One level of up to 64 searches at once over a group: next[s] = the
 * searches (bits) first reaching s at this level, from the front of the
 * last.  Adds them to seen, ecc and total; returns 1 while any advanced. */
static int updn_level64(struct updn *u, const int *m, size_t n, int level)
{
	int any = 0;

	for (size_t i = 0; i < n; i++) {
		int s = m[i];
		uint64_t reach = 0;

		for (size_t e = u->g.adj_start[s]; e < u->g.adj_start[s + 1]; e++)
			reach |= u->front[u->g.adj[e].sw];
		u->next[s] = reach & ~u->seen[s];
	}
	for (size_t i = 0; i < n; i++) {
		int s = m[i];
		uint64_t b = u->next[s];

		u->front[s] = b;
		if (!b)
			continue;
		any = 1;
		u->seen[s] |= b;
		u->ecc[s] = level > u->ecc[s] ? level : u->ecc[s];
		u->total[s] += (uint64_t)level * (uint64_t)__builtin_popcountll(b);
	}
	return any;
}

/* ecc[] and total[] over a group: the largest and the summed distance from
 * each switch to the marked ones, by breadth-first searches from them, 64
 * at a time as bits of a word (a group is connected: all reach all). */
static void updn_distances_to_marked(struct updn *u, const int *m, size_t n)
{
	size_t next_mark = 0;

	for (size_t i = 0; i < n; i++)
		u->ecc[m[i]] = 0, u->total[m[i]] = 0;
	while (next_mark < n) {
		int bits = 0;

		for (size_t i = 0; i < n; i++)
			u->seen[m[i]] = 0;
		for (; next_mark < n && bits < 64; next_mark++)
			if (u->mark[m[next_mark]])
				u->seen[m[next_mark]] |= 1ull << bits++;
		for (size_t i = 0; i < n; i++)
			u->front[m[i]] = u->seen[m[i]];
		for (int level = 1; bits && updn_level64(u, m, n, level); level++)
			;
	}
}

/* 1 when switch a is closer to the marked switches than b. */
static int updn_more_central(const struct updn *u, int a, int b)
{
	if (u->ecc[a] != u->ecc[b])
		return u->ecc[a] < u->ecc[b];
	if (u->total[a] != u->total[b])
		return u->total[a] < u->total[b];
	return swgraph_guid(&u->g, a) < swgraph_guid(&u->g, b);
}

/* The group's switch closest to the marked ones: least maximum distance,
 * then least total distance, then lowest GUID. */
static int updn_most_central(struct updn *u, const int *m, size_t n)
{
	int best = m[0];

	updn_distances_to_marked(u, m, n);
	for (size_t i = 1; i < n; i++)
		if (updn_more_central(u, m[i], best))
			best = m[i];
	return best;
}

/* Roots for a group that has no given root: top rank, else center. */
static void updn_detect_group(struct updn *u, const int *m, size_t n)
{
	int top;

	updn_ca_heights(u, m, n);
	if (!updn_is_layered(u, m, n, &top)) {
		u->root[updn_most_central(u, m, n)] = UPDN_CENTER;
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (u->hop[m[i]] == top)
			u->root[m[i]] = UPDN_TOP;
}

static int updn_choose_roots(struct updn *u, const struct route_opts *opts)
{
	int rc = updn_given_roots(u, opts);

	for (size_t c = 0; c < u->g.n_comp && !rc; c++) {
		const int *m = u->g.comp_sw + u->g.comp_start[c];
		size_t n = u->g.comp_start[c + 1] - u->g.comp_start[c], given = 0;

		for (size_t i = 0; i < n; i++)
			given += u->root[m[i]] == UPDN_GIVEN;
		if (!given)
			updn_detect_group(u, m, n);
	}
	return rc;
}

/* ---- The switch order and cable directions ----------------------------- */

/* 1 when switch a is above switch b: the bridge above the rest, then the
 * lower rank (distance from the apex on the bridge), then the lower GUID. */
static int updn_above(const struct updn *u, int a, int b)
{
	if (u->bridge[a] != u->bridge[b])
		return u->bridge[a];
	if (u->rank[a] != u->rank[b])
		return u->rank[a] < u->rank[b];
	return swgraph_guid(&u->g, a) < swgraph_guid(&u->g, b);
}

/* rank[] over a group: BFS distance from its roots.  Returns the number of
 * roots. */
static size_t updn_rank_group(struct updn *u, const int *m, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		u->rank[m[i]] = -1;
	for (size_t i = 0; i < n; i++)
		if (u->root[m[i]]) {
			u->rank[m[i]] = 0;
			u->queue[k++] = m[i];
		}
	swgraph_bfs(&u->g, u->queue, k, u->rank, NULL);
	return k;
}

/* A group with several roots: its apex (closest to all roots) and bridge.
 * With hop[] = distance from the apex, a switch is on the bridge when it is
 * a root or has a bridge neighbour one hop further from the apex, which
 * walking the BFS order backwards sees first. */
static void updn_build_bridge(struct updn *u, const int *m, size_t n)
{
	size_t k;
	int a;

	for (size_t i = 0; i < n; i++) {
		u->mark[m[i]] = u->root[m[i]] != UPDN_NOT_ROOT;
		u->hop[m[i]] = -1;
	}
	a = updn_most_central(u, m, n);
	u->apex[a] = 1;
	u->hop[a] = 0;
	u->queue[0] = a;
	k = swgraph_bfs(&u->g, u->queue, 1, u->hop, NULL);
	while (k--) {
		int s = u->queue[k];

		u->bridge[s] = u->mark[s];
		for (size_t e = u->g.adj_start[s]; e < u->g.adj_start[s + 1] && !u->bridge[s]; e++) {
			int r = u->g.adj[e].sw;

			u->bridge[s] = u->bridge[r] && u->hop[r] == u->hop[s] + 1;
		}
		if (u->bridge[s])
			u->rank[s] = u->hop[s];
	}
}

/* Order the cables of s: up ones first (adj_start[s] .. adj_split[s]), then
 * down ones; ascending port order is kept within each. */
static void updn_order_cables(struct updn *u, int s)
{
	struct swgraph_link ordered[FABRIC_MAX_PORTS];
	struct swgraph_link *adj = &u->g.adj[u->g.adj_start[s]];
	size_t n = u->g.adj_start[s + 1] - u->g.adj_start[s], k = 0;

	for (int up = 1; up >= 0; up--) {
		for (size_t i = 0; i < n; i++)
			if (updn_above(u, adj[i].sw, s) == up)
				ordered[k++] = adj[i];
		if (up)
			u->adj_split[s] = u->g.adj_start[s] + k;
	}
	memcpy(adj, ordered, n * sizeof(*adj));
}

static void updn_orient(struct updn *u)
{
	for (size_t c = 0; c < u->g.n_comp; c++) {
		const int *m = u->g.comp_sw + u->g.comp_start[c];
		size_t n = u->g.comp_start[c + 1] - u->g.comp_start[c];

		if (updn_rank_group(u, m, n) > 1)
			updn_build_bridge(u, m, n);
	}
	for (size_t s = 0; s < u->g.n_sw; s++)
		updn_order_cables(u, (int)s);
	for (size_t e = 0; e < u->g.adj_start[u->g.n_sw]; e++) {
		u->nbr[e] = u->g.adj[e].sw;
		u->nport[e] = u->g.adj[e].port;
	}
}

/* ---- Legal routes to a batch of destination switches ------------------ */

/* One level of the search, from the front (the switches reached at the
 * last level, their bits in front_all, front_down): a switch above a
 * down-only one may send down into it, a switch below any one may send up
 * into it.  Records those bits in via_down and via_all and lists each
 * switch they reach once in touched; returns how many. */
static size_t updn_search_spread(struct updn *u, size_t n_front)
{
	/* in locals: the stores through via_* may alias the struct's fields */
	const size_t *adj_start = u->g.adj_start, *adj_split = u->adj_split;
	const int *nbr = u->nbr, *front = u->front_sw;
	uint64_t *via_all = u->via_all, *via_down = u->via_down;
	int *touched = u->touched;
	size_t n = 0;

	for (size_t i = 0; i < n_front; i++) {
		int x = front[i];
		uint64_t all = u->front_all[x], down = u->front_down[x];

		for (size_t e = adj_start[x]; down && e < adj_split[x]; e++) {
			int p = nbr[e];

			if (!(via_all[p] | via_down[p]))
				touched[n++] = p;
			via_down[p] |= down;
		}
		for (size_t e = adj_split[x]; e < adj_start[x + 1]; e++) {
			int p = nbr[e];

			if (!(via_all[p] | via_down[p]))
				touched[n++] = p;
			via_all[p] |= all;
		}
	}
	return n;
}

/* The switches of touched[0..n) first reached at this level (hops to the
 * destination: level) become the next front: down-only for the bits a
 * down-only switch of the last level below them sent, up-first for the
 * others (down wins, as when a level's down-only switches are expanded
 * before all of its switches).  Returns the size of the next front. */
static size_t updn_search_settle(struct updn *u, size_t n, uint16_t level)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		int p = u->touched[i];
		uint64_t down = u->via_down[p] & ~u->reached[p];
		uint64_t all = (u->via_all[p] | down) & ~u->reached[p];
		uint16_t *dist = &u->dist[(size_t)p * UPDN_BATCH];

		u->via_all[p] = u->via_down[p] = 0;
		if (!all)
			continue;
		u->reached[p] |= all;
		u->down_only[p] |= down;
		u->front_all[p] = all;
		u->front_down[p] = down;
		u->front_sw[k++] = p;
		for (uint64_t b = all; b; b &= b - 1)
			dist[__builtin_ctzll(b)] = level;
	}
	return k;
}

/* dist and down_only for destination switches t[0..nb): each switch's
 * shortest route to t[b] that never goes down then up, consistent with
 * one LFT entry per switch.  A backwards breadth-first search from each,
 * all nb at once as bits of a word; level by level, a switch sending down
 * into a down-only switch of the level becomes down-only, else one sending
 * up into any switch of it up-first (see the DOC above). */
static void updn_legal_search(struct updn *u, const int *t, size_t nb)
{
	size_t n_front = 0;

	memset(u->dist, 0xff, u->g.n_sw * UPDN_BATCH * sizeof(*u->dist));
	memset(u->reached, 0, u->g.n_sw * sizeof(*u->reached));
	memset(u->down_only, 0, u->g.n_sw * sizeof(*u->down_only));
	for (size_t b = 0; b < nb; b++) {
		u->reached[t[b]] = u->down_only[t[b]] = 1ull << b;
		u->front_all[t[b]] = u->front_down[t[b]] = 1ull << b;
		u->dist[(size_t)t[b] * UPDN_BATCH + b] = 0;
		u->front_sw[n_front++] = t[b];
	}
	for (uint16_t level = 1; n_front; level++) {
		size_t n = updn_search_spread(u, n_front);

		for (size_t i = 0; i < n_front; i++)
			u->front_all[u->front_sw[i]] = u->front_down[u->front_sw[i]] = 0;
		n_front = updn_search_settle(u, n, level);
	}
}

/* Bit b set where far[b] == near[b], for the batch's 64 columns. */
static uint64_t updn_equal64(const uint16_t *far, const uint16_t *near)
{
	uint64_t m = 0;

#ifdef __SSE2__
	_Static_assert(UPDN_BATCH == 64, "a batch is eight 8-lane compares");
	for (int q = 0; q < 4; q++) {
		__m128i lo = _mm_cmpeq_epi16(_mm_loadu_si128((const void *)(far + 16 * q)),
					     _mm_loadu_si128((const void *)(near + 16 * q)));
		__m128i hi = _mm_cmpeq_epi16(_mm_loadu_si128((const void *)(far + 16 * q + 8)),
					     _mm_loadu_si128((const void *)(near + 16 * q + 8)));

		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_packs_epi16(lo, hi)) << (16 * q);
	}
#else
	for (unsigned b = 0; b < UPDN_BATCH; b++)
		m |= (uint64_t)(far[b] == near[b]) << b;
#endif
	return m;
}

/* Turn a 64 x 64 bit matrix: bit j of a[i] becomes bit i of a[j]
 * (blocks of 32, 16, ... 1 swapped across the diagonal). */
static void updn_turn64(uint64_t *a)
{
	static const uint64_t keep[] = {0x00000000ffffffffull, 0x0000ffff0000ffffull,
					0x00ff00ff00ff00ffull, 0x0f0f0f0f0f0f0f0full,
					0x3333333333333333ull, 0x5555555555555555ull};

	for (unsigned w = 32, l = 0; w; w >>= 1, l++)
		for (unsigned j = 0; j < 64; j += 2 * w)
			for (unsigned i = j; i < j + w; i++) {
				uint64_t x = ((a[i] >> w) ^ a[i + w]) & keep[l];

				a[i] ^= x << w;
				a[i + w] ^= x;
			}
}

/* cand_bits for s's cables: for side 0 (up) and 1 (down), chunk c and
 * destination b, bit i of cand_bits[(side * UPDN_CHUNKS + c) * 64 + b]
 * says that the side's (64c + i)-th cable leads one step nearer to the
 * batch's b-th destination and that s's state allows it (an up cable from
 * an up-first switch, a down cable from a down-only one into a down-only
 * one).  Each cable's 64 destinations at once (the search's columns
 * compared eight at a time), then turned 64 cables at a time. */
static void updn_cables_ok(struct updn *u, int s)
{
	const size_t split = u->adj_split[s],
		     bound[3] = {u->g.adj_start[s], split, u->g.adj_start[s + 1]};
	const uint64_t *down_only = u->down_only;
	const uint16_t *dist = u->dist, *mine = &dist[(size_t)s * UPDN_BATCH];
	const uint64_t up_first = u->reached[s] & ~down_only[s];
	uint16_t near[UPDN_BATCH];

	for (unsigned b = 0; b < UPDN_BATCH; b++)
		near[b] = (uint16_t)(mine[b] - 1);
	for (int side = 0; side < 2; side++)
		for (size_t lo = bound[side], c = 0; lo < bound[side + 1]; lo += 64, c++) {
			uint64_t *bits = &u->cand_bits[(side * UPDN_CHUNKS + c) * UPDN_BATCH];
			size_t n = bound[side + 1] - lo < 64 ? bound[side + 1] - lo : 64;

			uint64_t any = 0, every = ~0ULL; /* over the n cables */

			for (size_t i = 0; i < 64; i++) {
				int r = i < n ? u->nbr[lo + i] : 0;
				uint64_t ok = i >= n ? 0
					      : side ? down_only[s] & down_only[r]
						     : up_first;

				bits[i] =
				    ok ? updn_equal64(&dist[(size_t)r * UPDN_BATCH], near) & ok : 0;
				any |= bits[i];
				every &= i < n ? bits[i] : ~0ULL;
			}
			if (any == every) /* every cable alike (or none): no turning */
				for (size_t b = 0; b < UPDN_BATCH; b++)
					bits[b] = (any >> b & 1) ? ~0ULL >> (64 - n) : 0;
			else
				updn_turn64(bits);
		}
}

/* Ports of s one step nearer to the batch's b-th destination that its
 * state allows (updn_cables_ok): down into a down-only switch when s is
 * down-only, else up, in cable order.  Listed in u->cand, kept while the
 * next destination's are the same (cand_key: reset per switch). */
static size_t updn_candidates(struct updn *u, int s, size_t b)
{
	int side = (u->down_only[s] >> b) & 1;
	size_t lo = side ? u->adj_split[s] : u->g.adj_start[s];
	size_t hi = side ? u->g.adj_start[s + 1] : u->adj_split[s];
	const uint64_t *bits = &u->cand_bits[side * UPDN_CHUNKS * UPDN_BATCH + b];
	size_t chunks = (hi - lo + 63) / 64, same = side == u->cand_side, k = 0;

	for (size_t c = 0; c < chunks; c++)
		same &= u->cand_key[c] == bits[c * UPDN_BATCH];
	u->cand_again = (int)same;
	if (same)
		return u->cand_k;
	for (size_t c = 0; c < chunks; c++) {
		u->cand_key[c] = bits[c * UPDN_BATCH];
		for (uint64_t w = u->cand_key[c]; w; w &= w - 1)
			u->cand[k++] = u->nport[lo + 64 * c + (size_t)__builtin_ctzll(w)];
	}
	u->cand_side = side;
	return u->cand_k = k;
}

static uint32_t *updn_load(const struct updn *u, int s)
{
	return &u->load[u->g.port_base[s]];
}

enum { UPDN_FORCED = 1, UPDN_CHOICES = 2 };

/* Route the LIDs of destination switches t[0..nb) (ascending) from every
 * switch: the forced pass (UPDN_FORCED in passes[b]) sets t's exits and
 * the routes with one allowed port, the choice pass (UPDN_CHOICES) the
 * rest, each LID to the allowed port with the fewest LIDs so far (lowest
 * port on a tie).  Switch by switch, each taking the batch's destinations
 * in order: a switch's loads and table are touched by its own routes
 * alone, so this is the order of destination by destination for every
 * switch, while its load row, cables and table lines stay in the cache
 * for the whole batch. */
static void updn_route_batch(struct updn *u, const int *t, const uint8_t *passes, size_t nb)
{
	updn_legal_search(u, t, nb);
	for (size_t s = 0; s < u->g.n_sw; s++) {
		uint8_t *lft = u->out->tables[s].port;
		uint32_t *load = updn_load(u, (int)s);
		const uint16_t *dist = &u->dist[s * UPDN_BATCH];
		int even = 0; /* u->cand's loads are equal (swgraph_spread_even) */

		updn_cables_ok(u, (int)s);
		u->cand_side = -1;
		for (size_t b = 0; b < nb; b++) {
			const struct swgraph_dest *d = &u->dests.v[u->dests.start[t[b]]];
			size_t n = u->dests.start[t[b] + 1] - u->dests.start[t[b]], k;

			if ((int)s == t[b]) {
				if (passes[b] & UPDN_FORCED)
					swgraph_route_exits(lft, load, d, n);
				even = 0;
				continue;
			}
			if (dist[b] == UPDN_FAR)
				continue;
			k = updn_candidates(u, (int)s, b);
			even &= u->cand_again;
			if (passes[b] & (k > 1 ? UPDN_CHOICES : UPDN_FORCED))
				even = (even ? swgraph_spread_even
					     : swgraph_spread)(lft, load, u->cand, k, d, n);
		}
	}
}

/* 1 when t delivers only its own LIDs (exit port 0).  Those are spread
 * without being counted in the load (swgraph_spread) and a forced route
 * takes its one port whatever the load, so t's forced routes can wait for
 * its choice pass: one breadth-first search instead of two. */
static int updn_own_lids_only(const struct updn *u, int t)
{
	for (size_t i = u->dests.start[t]; i < u->dests.start[t + 1]; i++)
		if (u->dests.v[i].exit_port)
			return 0;
	return 1;
}

/* Each pass in batches of destination switches, ascending. */
static void updn_route_all(struct updn *u)
{
	for (int pass = 0; pass < 2; pass++) {
		int t[UPDN_BATCH];
		uint8_t passes[UPDN_BATCH];
		size_t nb = 0;

		for (size_t s = 0; s < u->g.n_sw; s++) {
			int own = updn_own_lids_only(u, (int)s);

			if (u->dests.start[s] == u->dests.start[s + 1] || (!pass && own))
				continue;
			t[nb] = (int)s;
			passes[nb++] = !pass ? UPDN_FORCED : UPDN_CHOICES | (own ? UPDN_FORCED : 0);
			if (nb == UPDN_BATCH) {
				updn_route_batch(u, t, passes, nb);
				nb = 0;
			}
		}
		if (nb)
			updn_route_batch(u, t, passes, nb);
	}
}

/* ---- What the operator should know -------------------------------------- */

/* The lowest GUID above after (any GUID when !have) among the switches
 * with flag == value; 0 when there is none. */
static int updn_note_next(const struct updn *u, const uint8_t *flag, uint8_t value, int have,
			  uint64_t after, uint64_t *out)
{
	int found = 0;

	for (size_t s = 0; s < u->g.n_sw; s++) {
		uint64_t g = swgraph_guid(&u->g, (int)s);

		if (flag[s] == value && (!have || g > after) && (!found || g < *out)) {
			*out = g;
			found = 1;
		}
	}
	return found;
}

/* "<label> (<count>): 0x.., 0x.. and N more" for switches with flag ==
 * value, the lowest GUIDs first: the same switches head the list in every
 * sweep, whatever order discovery reached them in. */
static void updn_note_list(struct updn *u, const uint8_t *flag, uint8_t value, const char *label)
{
	size_t n = 0, shown = 0;
	uint64_t g = 0;

	for (size_t s = 0; s < u->g.n_sw; s++)
		n += flag[s] == value;
	if (!n)
		return;
	updn_note(u, "%s%s (%zu):", u->note->text[0] ? "; " : "", label, n);
	while (shown < UPDN_NOTE_GUIDS && updn_note_next(u, flag, value, shown > 0, g, &g))
		updn_note(u, "%s 0x%016" PRIx64, shown++ ? "," : "", g);
	if (n > shown)
		updn_note(u, " and %zu more", n - shown);
}

static void updn_write_note(struct updn *u)
{
	updn_note_list(u, u->root, UPDN_GIVEN, "roots given");
	updn_note_list(u, u->root, UPDN_TOP, "roots detected as top rank");
	updn_note_list(u, u->root, UPDN_CENTER, "roots detected as center");
	updn_note_list(u, u->apex, 1, "apex");
	for (size_t s = 0; s < u->g.n_sw; s++)
		if (u->apex[s]) {
			updn_note(u, "; the apex is the switch put above the roots to join "
				     "them: the top of the up/down order");
			break;
		}
}

/* ---- The engine -------------------------------------------------------- */

static int updn_compute(const struct fabric *f, const struct route_opts *opts, struct lft_set *out,
			struct route_note *note, char *err, size_t errlen)
{
	struct route_note scratch;
	struct updn u = {
	    .f = f, .out = out, .note = note ? note : &scratch, .err = err, .errlen = errlen};
	int rc;

	u.note->text[0] = '\0';
	rc = updn_setup(&u, opts);
	if (!rc)
		rc = swgraph_collect_dests(&u.g, u.max_lid, 1, &u.dests, err, errlen);
	if (!rc)
		rc = updn_choose_roots(&u, opts);
	if (!rc) {
		updn_orient(&u);
		updn_route_all(&u);
		updn_write_note(&u);
	}
	updn_free(&u);
	if (rc)
		lft_set_fini(out);
	return rc;
}

const struct route_engine route_engine_updn = {
	.name = "updn",
	.summary = "up/down routes on any topology (roots given or detected), LIDs balanced "
		   "over equal-cost legal ports; deadlock-free",
	.compute = updn_compute,
};
