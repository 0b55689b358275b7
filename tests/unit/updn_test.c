/*
 * updn_test.c - the updn unit tests' checker, independent of the engine:
 * the switch order recomputed from the roots and apex the note names,
 * every (source, LID) pair walked through the tables, and the channel
 * dependency graph searched for a cycle (a credit loop).
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "routing/route.h"
#include "tests/unit/route_test.h"
#include "tests/unit/updn_test.h"

#define MAX_ROOTS 16
#define NO_PATH 100000

/* The GUIDs the note lists after "roots ..." (roots) or "apex ..." (apex
 * switches), up to the next "; ".  Returns how many. */
static size_t note_guids(const char *note, const char *kind, uint64_t *guids, size_t max)
{
	size_t n = 0;

	for (const char *seg = note; seg && *seg; seg = strstr(seg, "; ")) {
		const char *end;

		seg += !strncmp(seg, "; ", 2) ? 2 : 0;
		end = strstr(seg, "; ");
		if (strncmp(seg, kind, strlen(kind)))
			continue;
		for (const char *p = strstr(seg, "0x"); p && (!end || p < end) && n < max;
		     p = strstr(p + 2, "0x"))
			guids[n++] = strtoull(p, NULL, 16);
	}
	return n;
}

/* ---- Independent checks ------------------------------------------------- */

/* The switch order recomputed here: rank = distance from the nearest root;
 * with an apex, the bridge (switches on a shortest path from the apex to a
 * root of its group) goes first, ranked by distance from the apex. */
struct order {
	int *rank;
	uint8_t *bridge;
};

static struct order order_from(const struct fabric *f, const uint64_t *roots, size_t n_roots,
			       const uint64_t *apexes, size_t n_apexes)
{
	struct order o = {malloc(f->n_nodes * sizeof(int)), calloc(f->n_nodes, 1)};
	int *d = route_test_switch_distances(f, NO_PATH);
	size_t n = f->n_nodes, root[MAX_ROOTS];

	for (size_t k = 0; k < n_roots; k++) {
		int r = fabric_find(f, roots[k]);

		CU_ASSERT_FATAL(r >= 0 && fabric_is_switch(&f->nodes[r]));
		root[k] = (size_t)r;
	}
	for (size_t i = 0; i < n; i++) {
		o.rank[i] = NO_PATH;
		for (size_t k = 0; k < n_roots; k++)
			o.rank[i] = d[root[k] * n + i] < o.rank[i] ? d[root[k] * n + i] : o.rank[i];
	}
	for (size_t k = 0; k < n_apexes; k++) {
		size_t a = (size_t)fabric_find(f, apexes[k]);

		for (size_t s = 0; s < n; s++)
			for (size_t j = 0; j < n_roots; j++)
				if (d[a * n + root[j]] < NO_PATH &&
				    d[a * n + s] + d[s * n + root[j]] == d[a * n + root[j]]) {
					o.bridge[s] = 1;
					o.rank[s] = d[a * n + s];
				}
	}
	free(d);
	return o;
}

static void order_free(struct order *o)
{
	free(o->rank);
	free(o->bridge);
}

/* 1 when a cable from switch a to switch b goes up. */
static int goes_up(const struct fabric *f, const struct order *o, int a, int b)
{
	if (o->bridge[a] != o->bridge[b])
		return o->bridge[b];
	if (o->rank[a] != o->rank[b])
		return o->rank[b] < o->rank[a];
	return f->nodes[b].guid < f->nodes[a].guid;
}

/* Owner test: dlid is one of port p's LIDs. */
static int owns(const struct fabric_port *p, uint16_t dlid)
{
	return p->lid && dlid >= p->lid && dlid < p->lid + (1u << p->lmc);
}

/* Follow dlid from switch sw.  Returns 1 when delivered, 0 when dropped at
 * a switch, -1 when lost (bad port, wrong node) or looping.  *illegal is
 * set when the path goes down and then up. */
static int walk(const struct fabric *f, const struct lft_set *s, const struct order *o, int sw,
		uint16_t dlid, int *illegal)
{
	int went_down = 0;

	for (size_t hops = 0; hops <= f->n_nodes; hops++) {
		const struct fabric_node *n = &f->nodes[sw];
		uint8_t p = route_test_out_port(s, sw, dlid);
		int r;

		if (p == LFT_DROP)
			return 0;
		if (p == 0 || p > n->num_ports)
			return p == 0 && owns(&n->ports[0], dlid) ? 1 : -1;
		r = n->ports[p].remote_node;
		if (r == FABRIC_NONE)
			return -1;
		if (!fabric_is_switch(&f->nodes[r]))
			return owns(&f->nodes[r].ports[n->ports[p].remote_port], dlid) ? 1 : -1;
		if (goes_up(f, o, sw, r))
			*illegal |= went_down;
		else
			went_down = 1;
		sw = r;
	}
	return -1;
}

/* Switch components (by node index), so "reachable" is known here. */
static int *components(const struct fabric *f)
{
	int *comp = malloc(f->n_nodes * sizeof(*comp)), *stack = malloc(f->n_nodes * sizeof(int));

	for (size_t i = 0; i < f->n_nodes; i++)
		comp[i] = -1;
	for (size_t i = 0; i < f->n_nodes; i++) {
		size_t top = 0;

		if (comp[i] >= 0 || !fabric_is_switch(&f->nodes[i]))
			continue;
		comp[i] = (int)i;
		stack[top++] = (int)i;
		while (top) {
			const struct fabric_node *n = &f->nodes[stack[--top]];

			for (unsigned p = 1; p <= n->num_ports; p++) {
				int r = n->ports[p].remote_node;

				if (r == FABRIC_NONE || comp[r] >= 0)
					continue;
				if (fabric_is_switch(&f->nodes[r])) {
					comp[r] = (int)i;
					stack[top++] = r;
				}
			}
		}
	}
	free(stack);
	return comp;
}

/* Every destination LID from one source switch; ca = a CA sends from it. */
static void check_source(const struct fabric *f, const struct lft_set *s, const struct order *o,
			 const int *comp, int src, int ca, struct updn_test_verdict *v)
{
	for (size_t dst = 0; dst < f->n_nodes; dst++) {
		const struct fabric_node *dn = &f->nodes[dst];

		for (unsigned p = fabric_is_switch(dn) ? 0 : 1; p <= dn->num_ports; p++) {
			const struct fabric_port *dp = &dn->ports[p];
			int at = route_test_attach_switch(f, (int)dst, p);
			int reach = at >= 0 && comp[at] == comp[src];

			for (unsigned k = 0; dp->lid && k < (1u << dp->lmc); k++) {
				uint16_t lid = (uint16_t)(dp->lid + k);
				int bad = 0, got = walk(f, s, o, src, lid, &bad);

				v->illegal += bad;
				v->lost += got < 0;
				v->stray += !reach && got != 0;
				v->undelivered += reach && ca && got != 1;
				v->switch_drops += reach && !ca && got == 0;
			}
			if (fabric_is_switch(dn))
				break;
		}
	}
}

/* Walk every (source, LID) pair: from each CA (its switch) and from each
 * switch itself. */
static struct updn_test_verdict check_routes(const struct fabric *f, const struct lft_set *s,
					     const struct order *o)
{
	int *comp = components(f);
	struct updn_test_verdict v = {0};

	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		if (fabric_is_switch(n)) {
			check_source(f, s, o, comp, (int)i, 0, &v);
			continue;
		}
		for (unsigned p = 1; p <= n->num_ports; p++)
			if (n->ports[p].lid && route_test_attach_switch(f, (int)i, p) >= 0)
				check_source(f, s, o, comp, route_test_attach_switch(f, (int)i, p),
					     1, &v);
	}
	free(comp);
	return v;
}

/* Channel numbers for directed cables between switches: id[node * 256 + port]. */
static size_t number_channels(const struct fabric *f, int *id)
{
	size_t c = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p < 256; p++) {
			const struct fabric_node *n = &f->nodes[i];
			int r = p >= 1 && p <= n->num_ports ? n->ports[p].remote_node : FABRIC_NONE;

			id[i * 256 + p] = fabric_is_switch(n) && r != FABRIC_NONE &&
						  fabric_is_switch(&f->nodes[r])
					      ? (int)c++
					      : -1;
		}
	return c;
}

/* The channel switch sw sends dlid on, or -1 (drop, CA, port 0). */
static int next_channel(const struct fabric *f, const struct lft_set *s, const int *id, int sw,
			uint16_t dlid)
{
	uint8_t p = route_test_out_port(s, sw, dlid);

	return p <= f->nodes[sw].num_ports ? id[(size_t)sw * 256 + p] : -1;
}

/* The channel dependency graph: channels are directed switch-to-switch
 * cables; for each LID, the channel a switch sends it on depends on the
 * channel the next switch sends it on. */
struct cdg {
	size_t n;
	uint8_t *dep;	 /* dep[a * n + b]: channel a depends on b */
	unsigned *indeg; /* dependencies on each channel */
};

static struct cdg cdg_build(const struct fabric *f, const struct lft_set *s, uint16_t max_lid)
{
	int *id = malloc(f->n_nodes * 256 * sizeof(*id));
	size_t n = number_channels(f, id);
	struct cdg g = {n, calloc(n * n + 1, 1), calloc(n + 1, sizeof(unsigned))};

	for (uint16_t lid = 1; lid <= max_lid; lid++)
		for (size_t i = 0; i < f->n_nodes; i++) {
			int a = -1, b = -1, next;

			if (fabric_is_switch(&f->nodes[i]))
				a = next_channel(f, s, id, (int)i, lid);
			if (a >= 0) {
				next = f->nodes[i]
					   .ports[route_test_out_port(s, (int)i, lid)]
					   .remote_node;
				b = next_channel(f, s, id, next, lid);
			}
			if (b >= 0 && !g.dep[(size_t)a * g.n + (size_t)b]) {
				g.dep[(size_t)a * g.n + (size_t)b] = 1;
				g.indeg[b]++;
			}
		}
	free(id);
	return g;
}

/* 1 when the channel dependency graph of the tables has a cycle (a credit
 * loop): Kahn's algorithm peels channels nothing depends on. */
int updn_test_credit_loop(const struct fabric *f, const struct lft_set *s, uint16_t max_lid)
{
	struct cdg g = cdg_build(f, s, max_lid);
	size_t *queue = malloc((g.n + 1) * sizeof(*queue)), done = 0, tail = 0;

	for (size_t i = 0; i < g.n; i++)
		if (!g.indeg[i])
			queue[tail++] = i;
	while (done < tail) {
		size_t a = queue[done++];

		for (size_t b = 0; b < g.n; b++)
			if (g.dep[a * g.n + b] && !--g.indeg[b])
				queue[tail++] = b;
	}
	free(g.dep);
	free(g.indeg);
	free(queue);
	return done != g.n;
}

/* Route f with updn (roots given or detected), then check everything:
 * every switch and CA reaches every LID of its group, nothing is lost, no
 * route goes down then up (against the order recomputed from the roots and
 * apex the note names), no credit loop.  *s keeps the tables. */
struct updn_test_verdict updn_test_check(const struct fabric *f, uint16_t max_lid,
					 const uint64_t *given, size_t n_given, struct lft_set *s,
					 struct route_note *note)
{
	uint64_t roots[MAX_ROOTS], apexes[MAX_ROOTS];
	size_t n_roots, n_apexes;
	struct order o;
	struct updn_test_verdict v;

	CU_ASSERT_EQUAL_FATAL(
	    route_test_run(&route_engine_updn, f, max_lid, given, n_given, s, note), 0);
	n_roots = note_guids(note->text, "roots ", roots, MAX_ROOTS);
	n_apexes = note_guids(note->text, "apex ", apexes, MAX_ROOTS);
	CU_ASSERT_FATAL(n_roots >= 1);
	o = order_from(f, roots, n_roots, apexes, n_apexes);
	v = check_routes(f, s, &o);
	order_free(&o);
	CU_ASSERT_EQUAL(v.undelivered, 0);
	CU_ASSERT_EQUAL(v.switch_drops, 0);
	CU_ASSERT_EQUAL(v.illegal, 0);
	CU_ASSERT_EQUAL(v.lost, 0);
	CU_ASSERT_EQUAL(v.stray, 0);
	CU_ASSERT_FALSE(updn_test_credit_loop(f, s, max_lid));
	return v;
}
