/*
 * ftree_test.c - the rig of the ftree engine's unit tests (test_ftree.c,
 * test_ftree_degraded.c): 2- and 3-level fat trees generated as topology
 * text (full, or with links, spines, hosts or leaves missing), parsed and
 * routed; every route followed through the LFTs and judged (shortest, up
 * then down), the gate asked, and the shift all-to-all link load measured
 * and compared with minhop's.  Test code only; the engine never sees it.
 */
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/check.h"
#include "routing/route.h"
#include "routing/topo_file.h"
#include "tests/unit/ftree_test.h"
#include "tests/unit/route_test.h"

#define NO_PATH 1000
#define MAX_HOPS 64

/* ---- A fat-tree generator: topology text for topo_parse ---------------- */

static int gen_add(struct ftree_test_gen *g, int is_switch, unsigned nports, uint64_t guid,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int gen_add(struct ftree_test_gen *g, int is_switch, unsigned nports, uint64_t guid,
		   const char *fmt, ...)
{
	struct ftree_test_gen_node *x = &g->node[g->n];
	va_list ap;

	CU_ASSERT_FATAL(g->n < FTREE_TEST_GEN_MAX_NODES && nports <= FTREE_TEST_GEN_MAX_PORTS);
	memset(x, 0, sizeof(*x));
	va_start(ap, fmt);
	vsnprintf(x->name, sizeof(x->name), fmt, ap);
	va_end(ap);
	x->is_switch = is_switch;
	x->nports = nports ? nports : 1;
	x->guid = guid;
	for (unsigned p = 0; p <= FTREE_TEST_GEN_MAX_PORTS; p++)
		x->peer[p] = -1;
	return g->n++;
}

void ftree_test_gen_link(struct ftree_test_gen *g, int a, unsigned pa, int b, unsigned pb)
{
	g->node[a].peer[pa] = b;
	g->node[a].pport[pa] = pb;
	g->node[b].peer[pb] = a;
	g->node[b].pport[pb] = pa;
}

static void gen_unlink(struct ftree_test_gen *g, int a, unsigned pa)
{
	int b = g->node[a].peer[pa];

	if (b < 0)
		return;
	g->node[b].peer[g->node[a].pport[pa]] = -1;
	g->node[a].peer[pa] = -1;
}

int ftree_test_gen_find(const struct ftree_test_gen *g, const char *name)
{
	for (int i = 0; i < g->n; i++)
		if (!strcmp(g->node[i].name, name))
			return i;
	CU_FAIL_FATAL("generator: no such node");
	return -1;
}

static void gen_hosts(struct ftree_test_gen *g, const struct ftree_test_spec *sp, int leaf, int i)
{
	int n = sp->leaf_hosts[i] < 0 ? 0 : sp->leaf_hosts[i] ? sp->leaf_hosts[i] : sp->hosts;

	for (int p = 1; p <= n; p++) {
		int h = gen_add(g, 0, 1, FTREE_TEST_HOST_GUID + (uint64_t)(g->n + 1) * 0x10, "h%d",
				g->n + 1);

		ftree_test_gen_link(g, h, 1, leaf, (unsigned)p);
	}
}

void ftree_test_gen_two_level(struct ftree_test_gen *g, const struct ftree_test_spec *sp)
{
	unsigned up = (unsigned)(sp->spines * sp->links);
	int leaf0 = g->n, spine0;

	for (int l = 0; l < sp->leaves; l++)
		gen_add(g, 1, (unsigned)sp->hosts + up, FTREE_TEST_LEAF_GUID + (uint64_t)l + 1,
			"leaf%d", l + 1);
	spine0 = g->n;
	for (int s = 0; s < sp->spines; s++)
		gen_add(g, 1, (unsigned)(sp->leaves * sp->links),
			FTREE_TEST_SPINE_GUID + (uint64_t)s + 1, "spine%d", s + 1);
	for (int l = 0; l < sp->leaves; l++)
		for (int s = 0; s < sp->spines; s++)
			for (int k = 0; k < sp->links; k++)
				ftree_test_gen_link(g, leaf0 + l,
						    (unsigned)(sp->hosts + s * sp->links + k + 1),
						    spine0 + s, (unsigned)(l * sp->links + k + 1));
	for (int l = 0; l < sp->leaves; l++)
		gen_hosts(g, sp, leaf0 + l, l);
}

static void gen_three_level(struct ftree_test_gen *g, const struct ftree_test_spec *sp)
{
	int m = sp->m, leaf[8][8], mid[8][8], spine0, nl[8], n = 0;

	for (int p = 0; p < sp->pods; p++) {
		nl[p] = sp->pod_leaves[p] ? sp->pod_leaves[p] : m;
		for (int i = 0; i < nl[p]; i++, n++)
			leaf[p][i] =
			    gen_add(g, 1, (unsigned)(sp->hosts + m),
				    FTREE_TEST_LEAF_GUID + (uint64_t)n + 1, "leaf%d", n + 1);
	}
	for (int p = 0; p < sp->pods; p++)
		for (int j = 0; j < m; j++)
			mid[p][j] = gen_add(g, 1, (unsigned)(2 * m),
					    FTREE_TEST_MID_GUID + (uint64_t)(p * m + j) + 1,
					    "mid%d", p * m + j + 1);
	spine0 = g->n;
	for (int s = 0; s < m * m; s++)
		gen_add(g, 1, (unsigned)sp->pods, FTREE_TEST_SPINE_GUID + (uint64_t)s + 1,
			"spine%d", s + 1);
	for (int p = 0; p < sp->pods; p++)
		for (int j = 0; j < m; j++) {
			for (int i = 0; i < nl[p]; i++)
				ftree_test_gen_link(g, leaf[p][i], (unsigned)(sp->hosts + j + 1),
						    mid[p][j], (unsigned)(i + 1));
			for (int t = 0; t < m; t++)
				ftree_test_gen_link(g, mid[p][j], (unsigned)(m + t + 1),
						    spine0 + j * m + t, (unsigned)(p + 1));
		}
	for (int p = 0, i = 0; p < sp->pods; p++)
		for (int k = 0; k < nl[p]; k++, i++)
			gen_hosts(g, sp, leaf[p][k], i);
}

/* Cables and switches the spec leaves out. */
static void gen_damage(struct ftree_test_gen *g, const struct ftree_test_spec *sp)
{
	for (size_t i = 0; i < sizeof(sp->cut) / sizeof(sp->cut[0]) && sp->cut[i]; i++) {
		char name[16];
		unsigned port;

		CU_ASSERT_FATAL(sscanf(sp->cut[i], "%15[^/]/%u", name, &port) == 2);
		gen_unlink(g, ftree_test_gen_find(g, name), port);
	}
	for (size_t i = 0; i < 4 && sp->gone[i]; i++) {
		int x = ftree_test_gen_find(g, sp->gone[i]);

		g->node[x].gone = 1;
		for (unsigned p = 1; p <= g->node[x].nports; p++)
			gen_unlink(g, x, p);
	}
}

/* ibnetdiscover-style text: hosts, then switches, each cable from both ends. */
char *ftree_test_gen_text(const struct ftree_test_gen *g, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < g->n; i++) {
			const struct ftree_test_gen_node *x = &g->node[i];

			if (x->gone || x->is_switch != pass)
				continue;
			fprintf(fp, "%s=0x%016" PRIx64 "\n%s\t%u \"%s\"\n",
				pass ? "switchguid" : "caguid", x->guid, pass ? "Switch" : "Hca",
				x->nports, x->name);
			for (unsigned p = 1; p <= x->nports; p++)
				if (x->peer[p] >= 0)
					fprintf(fp, "[%u]\t\"%s\"[%u]\n", p,
						g->node[x->peer[p]].name, x->pport[p]);
			fputc('\n', fp);
		}
	fclose(fp);
	return buf;
}

/* ---- A fabric under test ----------------------------------------------- */

/* The switch cabled to port p of node, or FABRIC_NONE (nothing or a CA). */
static int remote_switch(const struct fabric *f, int node, unsigned p)
{
	int r = f->nodes[node].ports[p].remote_node;

	return r != FABRIC_NONE && fabric_is_switch(&f->nodes[r]) ? r : FABRIC_NONE;
}

/* Fewest switch hops from a to every node going up (level + 1) any number
 * of times, then down (level - 1): breadth first over (node, going down). */
static void updown_from(const struct ftree_test *t, int a, int *out)
{
	size_t n = t->f.n_nodes, head = 0, tail = 0;
	int *d = malloc(2 * n * sizeof(*d)), *q = malloc(2 * n * sizeof(*q));

	for (size_t i = 0; i < 2 * n; i++)
		d[i] = NO_PATH;
	d[2 * a] = 0;
	q[tail++] = 2 * a;
	while (head < tail) {
		int st = q[head++], x = st / 2, down = st % 2;

		for (unsigned p = 1; p <= t->f.nodes[x].num_ports; p++) {
			int y = remote_switch(&t->f, x, p), ny;

			if (y == FABRIC_NONE || (t->level[y] != t->level[x] - 1 &&
						 (down || t->level[y] != t->level[x] + 1)))
				continue;
			ny = 2 * y + (t->level[y] < t->level[x]);
			if (d[ny] == NO_PATH) {
				d[ny] = d[st] + 1;
				q[tail++] = ny;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		out[i] = d[2 * i] < d[2 * i + 1] ? d[2 * i] : d[2 * i + 1];
	free(d);
	free(q);
}

/* A switch's level by its name: "spine" top, "mid" 1, else 0; CAs -1. */
static int level_by_name(const struct fabric_node *n, int top)
{
	if (!fabric_is_switch(n))
		return -1;
	if (!strncmp(n->desc, "spine", 5))
		return top;
	return !strncmp(n->desc, "mid", 3);
}

/* Levels by name ("leaf", "mid", "spine"), CAs in leaf order, distances. */
void ftree_test_index(struct ftree_test *t)
{
	size_t n = t->f.n_nodes;
	int top = route_test_find_node(&t->f, "mid1") >= 0 ? 2 : 1;

	t->level = calloc(n, sizeof(*t->level));
	t->has_ca = calloc(n, sizeof(*t->has_ca));
	t->ca = calloc(n, sizeof(*t->ca));
	for (size_t i = 0; i < n; i++)
		t->level[i] = level_by_name(&t->f.nodes[i], top);
	for (size_t i = 0; i < n; i++)
		for (unsigned p = 1; t->level[i] == 0 && p <= t->f.nodes[i].num_ports; p++) {
			int r = t->f.nodes[i].ports[p].remote_node;

			if (r != FABRIC_NONE && !fabric_is_switch(&t->f.nodes[r])) {
				t->has_ca[i] = 1;
				t->ca[t->n_cas++] = r;
			}
		}
	t->gd = route_test_switch_distances(&t->f, NO_PATH);
	t->ud = malloc(n * n * sizeof(*t->ud));
	for (size_t i = 0; i < n; i++)
		updown_from(t, (int)i, &t->ud[i * n]);
}

int ftree_test_parse(struct ftree_test *t, const char *text, size_t len)
{
	char err[256];
	int rc;

	memset(t, 0, sizeof(*t));
	fabric_init(&t->f);
	lft_set_init(&t->lft);
	rc = topo_parse(text, len, "gen.topo", &t->f, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "\n  %s\n", err);
		return rc;
	}
	t->max_lid = route_test_assign_lids(&t->f, ROUTE_TEST_SWITCH_GUID);
	ftree_test_index(t);
	return 0;
}

void ftree_test_build(struct ftree_test *t, const struct ftree_test_spec *sp)
{
	struct ftree_test_gen *g = calloc(1, sizeof(*g));
	size_t len;
	char *text;

	if (sp->levels == 3)
		gen_three_level(g, sp);
	else
		ftree_test_gen_two_level(g, sp);
	gen_damage(g, sp);
	text = ftree_test_gen_text(g, &len);
	CU_ASSERT_EQUAL_FATAL(ftree_test_parse(t, text, len), 0);
	free(text);
	free(g);
}

void ftree_test_free(struct ftree_test *t)
{
	lft_set_fini(&t->lft);
	fabric_fini(&t->f);
	free(t->level);
	free(t->has_ca);
	free(t->ca);
	free(t->gd);
	free(t->ud);
}

/* Route t with ftree (the result in t->lft and t->err). */
int ftree_test_route_with(struct ftree_test *t, const uint64_t *roots, size_t n_roots)
{
	struct route_opts opts = {.max_lid = t->max_lid, .roots = roots, .n_roots = n_roots};

	lft_set_fini(&t->lft);
	return route_engine_ftree.compute(&t->f, &opts, &t->lft, &t->note, t->err, sizeof(t->err));
}

/* The same, roots found alone; says why when it fails. */
int ftree_test_route(struct ftree_test *t)
{
	int rc = ftree_test_route_with(t, NULL, 0);

	if (rc)
		fprintf(stderr, "\n  ftree: %s\n", t->err);
	return rc;
}

/* ---- Following routes -------------------------------------------------- */

/* The switches passed climb, then descend: never down then up. */
static int up_then_down(const struct ftree_test *t, const int *path, int hops)
{
	int down = 0;

	for (int i = 0; i < hops; i++) {
		if (t->level[path[i + 1]] > t->level[path[i]] && down)
			return 0;
		down |= t->level[path[i + 1]] < t->level[path[i]];
	}
	return 1;
}

/* One route from switch a to a LID owned by node dn, judged. */
static int route_ok(const struct ftree_test *t, const struct lft_set *s, int a, int dn,
		    uint16_t lid, int updown)
{
	size_t n = t->f.n_nodes;
	int path[MAX_HOPS], at = fabric_is_switch(&t->f.nodes[dn]) ? dn : FABRIC_NONE, got, any, ud;
	uint8_t out[MAX_HOPS];

	for (unsigned p = 1; at == FABRIC_NONE && p <= t->f.nodes[dn].num_ports; p++)
		if (t->f.nodes[dn].ports[p].lid <= lid &&
		    lid < t->f.nodes[dn].ports[p].lid + (1u << t->f.nodes[dn].ports[p].lmc))
			at = remote_switch(&t->f, dn, p);
	any = at == FABRIC_NONE ? NO_PATH : t->gd[(size_t)a * n + (size_t)at];
	got = route_test_follow(&t->f, s, a, lid, MAX_HOPS, path, out);
	if (any == NO_PATH)
		return got == -1;
	if (got < 0)
		return 0;
	if (!t->has_ca[a])
		return 1; /* a switch's own traffic: delivered is enough */
	ud = t->ud[(size_t)a * n + (size_t)at];
	if (ud == NO_PATH && updown)
		return 1; /* a down-up route, placed to close no credit loop: the gate judges */
	if (!updown || ud == NO_PATH)
		return got == any;
	if (updown == 1 && got > 0 && t->ud[(size_t)path[1] * n + (size_t)at] == NO_PATH &&
	    t->level[path[1]] > t->level[a])
		return 1; /* a detour up to a parent with no up-then-down route */
	return got == ud && up_then_down(t, path, got) && (updown < 2 || got == any);
}

/* Every switch delivers every LID it can reach.  From a leaf (so for every
 * CA) each LID, a CA's or a switch's, takes the fewest switch hops going up
 * then down, never down then up - or, when no up-then-down path is left,
 * any route (ftree picks it to close no credit loop; gate_ok judges); the
 * fewest hops of any kind when updown is 0.  updown 2: and that is the
 * fewest hops of any kind too (full trees).  Returns the bad routes. */
int ftree_test_check_routes(const struct ftree_test *t, const struct lft_set *s, int updown)
{
	int bad = 0;

	for (size_t a = 0; a < t->f.n_nodes; a++) {
		if (!fabric_is_switch(&t->f.nodes[a]))
			continue;
		for (size_t dn = 0; dn < t->f.n_nodes; dn++) {
			const struct fabric_node *d = &t->f.nodes[dn];

			for (unsigned p = fabric_is_switch(d) ? 0 : 1;
			     p <= (fabric_is_switch(d) ? 0u : d->num_ports); p++)
				for (unsigned k = 0; d->ports[p].lid && k < (1u << d->ports[p].lmc);
				     k++)
					if (!route_ok(t, s, (int)a, (int)dn,
						      (uint16_t)(d->ports[p].lid + k), updown)) {
						fprintf(stderr, "\n  %s -> LID %u (%s): bad route",
							t->f.nodes[a].desc, d->ports[p].lid + k,
							d->desc);
						bad++;
					}
		}
	}
	return bad;
}

/* Shift all-to-all: for each s, CA i sends to LID base + offset of CA
 * (i + s) mod N.  Returns the most flows any directed link (switch, out
 * port) carries for one s. */
unsigned ftree_test_shift_load_to(const struct ftree_test *t, const struct lft_set *s,
				  unsigned offset)
{
	uint16_t *load = malloc(t->f.n_nodes * 256 * sizeof(*load));
	unsigned worst = 0;

	for (size_t sh = 1; sh < t->n_cas; sh++) {
		memset(load, 0, t->f.n_nodes * 256 * sizeof(*load));
		for (size_t i = 0; i < t->n_cas; i++) {
			int src = t->ca[i], dst = t->ca[(i + sh) % t->n_cas], path[MAX_HOPS];
			uint8_t out[MAX_HOPS];
			int hops = route_test_follow(
			    &t->f, s, t->f.nodes[src].ports[1].remote_node,
			    (uint16_t)(t->f.nodes[dst].ports[1].lid + offset), MAX_HOPS, path, out);

			CU_ASSERT_FATAL(hops >= 0);
			for (int h = 0; h <= hops; h++) {
				unsigned c = ++load[(size_t)path[h] * 256 + out[h]];

				worst = c > worst ? c : worst;
			}
		}
	}
	free(load);
	return worst;
}

unsigned ftree_test_shift_load(const struct ftree_test *t, const struct lft_set *s)
{
	return ftree_test_shift_load_to(t, s, 0);
}

/* The routing gate: everything reachable, no forwarding loop, no bad port,
 * and (when credit) no credit loop either. */
static int gate_says_ok(const struct ftree_test *t, int credit)
{
	struct route_check_opts opts = {.skip_credit_loops = !credit};
	struct route_check res;
	int rc = route_check_run(&t->f, &t->lft, &opts, &res);

	if (rc)
		fprintf(stderr, "\n  gate: %s\n", res.first);
	return rc == 0 && !res.unreachable && !res.loops && !res.bad_ports && !res.credit_loop;
}

int ftree_test_gate_ok(const struct ftree_test *t)
{
	return gate_says_ok(t, 1);
}

/* minhop's worst shift all-to-all link load on t's fabric. */
unsigned ftree_test_minhop_shift_load(struct ftree_test *t)
{
	struct route_opts opts = {.max_lid = t->max_lid};
	struct lft_set mh;
	unsigned load;

	lft_set_init(&mh);
	CU_ASSERT_EQUAL_FATAL(route_engine_minhop.compute(&t->f, &opts, &mh, NULL, NULL, 0), 0);
	load = ftree_test_shift_load(t, &mh);
	lft_set_fini(&mh);
	return load;
}

/* ftree's worst shift load must be 1 and no worse than minhop's. */
void ftree_test_compare_shift(struct ftree_test *t, const char *what)
{
	unsigned ft = ftree_test_shift_load(t, &t->lft), mn = ftree_test_minhop_shift_load(t);

	fprintf(stderr, "\n    %s, %zu CAs: worst shift all-to-all link load ftree %u, minhop %u ",
		what, t->n_cas, ft, mn);
	CU_ASSERT_EQUAL(ft, 1);
	CU_ASSERT_TRUE(ft <= mn);
}

int ftree_test_note_has(const struct ftree_test *t, const char *want)
{
	if (strstr(t->note.text, want))
		return 1;
	fprintf(stderr, "\n  note \"%s\"\n  lacks \"%s\"\n", t->note.text, want);
	return 0;
}
