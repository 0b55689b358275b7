/*
 * test_ftree.c - unit tests for the ftree engine: 2- and 3-level fat trees
 * generated here as topology text (full, or with links, spines, hosts or
 * leaves missing), every route followed through the LFTs, and the shift
 * all-to-all link load measured here and compared with minhop's.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/check.h"
#include "routing/ftree_turns.h"
#include "routing/route.h"
#include "routing/topo_file.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"

#define NO_PATH 1000
#define MAX_HOPS 64
#define GEN_MAX_NODES 512
#define GEN_MAX_PORTS 64
#define HOST_GUID UINT64_C(0x0002c90300001000)
#define LEAF_GUID UINT64_C(0x0002c90300a00000)
#define MID_GUID UINT64_C(0x0002c90300b00000)
#define SPINE_GUID UINT64_C(0x0002c90300c00000)

/* ---- A fat-tree generator: topology text for topo_parse ---------------- */

/* What to build.  Two levels: `leaves` leaves, `spines` spines, `links`
 * cables per leaf-spine pair; leaf ports: hosts, then spine 1's cables, ...
 * Three levels: `pods` pods of m leaves and m middle switches ("mid"), and
 * m * m spines; leaf i's port hosts+j goes to its pod's mid j, whose port
 * m+t goes to spine j*m+t, whose port p is pod p.  Full bisection when
 * hosts == spines * links (2 levels) or hosts == m (3 levels). */
struct tree_spec {
	int levels;
	int leaves, spines, links;
	int pods, m;
	int hosts;	     /* host ports per leaf */
	int pod_leaves[8];   /* > 0: only that many leaves in pod p */
	int leaf_hosts[64];  /* > 0: that many hosts on leaf i; < 0: none */
	const char *cut[32]; /* "leaf2/6": cables left out, named by one end */
	const char *gone[4]; /* switches left out */
};

struct gen_node {
	char name[16];
	int is_switch;
	unsigned nports;
	uint64_t guid;
	int peer[GEN_MAX_PORTS + 1]; /* node index, -1 when unlinked */
	unsigned pport[GEN_MAX_PORTS + 1];
	int gone;
};

struct gen {
	struct gen_node node[GEN_MAX_NODES];
	int n;
};

static int gen_add(struct gen *g, int is_switch, unsigned nports, uint64_t guid, const char *fmt,
		   ...) __attribute__((format(printf, 5, 6)));

static int gen_add(struct gen *g, int is_switch, unsigned nports, uint64_t guid, const char *fmt,
		   ...)
{
	struct gen_node *x = &g->node[g->n];
	va_list ap;

	CU_ASSERT_FATAL(g->n < GEN_MAX_NODES && nports <= GEN_MAX_PORTS);
	memset(x, 0, sizeof(*x));
	va_start(ap, fmt);
	vsnprintf(x->name, sizeof(x->name), fmt, ap);
	va_end(ap);
	x->is_switch = is_switch;
	x->nports = nports ? nports : 1;
	x->guid = guid;
	for (unsigned p = 0; p <= GEN_MAX_PORTS; p++)
		x->peer[p] = -1;
	return g->n++;
}

static void gen_link(struct gen *g, int a, unsigned pa, int b, unsigned pb)
{
	g->node[a].peer[pa] = b;
	g->node[a].pport[pa] = pb;
	g->node[b].peer[pb] = a;
	g->node[b].pport[pb] = pa;
}

static void gen_unlink(struct gen *g, int a, unsigned pa)
{
	int b = g->node[a].peer[pa];

	if (b < 0)
		return;
	g->node[b].peer[g->node[a].pport[pa]] = -1;
	g->node[a].peer[pa] = -1;
}

static int gen_find(const struct gen *g, const char *name)
{
	for (int i = 0; i < g->n; i++)
		if (!strcmp(g->node[i].name, name))
			return i;
	CU_FAIL_FATAL("generator: no such node");
	return -1;
}

static void gen_hosts(struct gen *g, const struct tree_spec *sp, int leaf, int i)
{
	int n = sp->leaf_hosts[i] < 0 ? 0 : sp->leaf_hosts[i] ? sp->leaf_hosts[i] : sp->hosts;

	for (int p = 1; p <= n; p++) {
		int h = gen_add(g, 0, 1, HOST_GUID + (uint64_t)(g->n + 1) * 0x10, "h%d", g->n + 1);

		gen_link(g, h, 1, leaf, (unsigned)p);
	}
}

static void gen_two_level(struct gen *g, const struct tree_spec *sp)
{
	unsigned up = (unsigned)(sp->spines * sp->links);
	int leaf0 = g->n, spine0;

	for (int l = 0; l < sp->leaves; l++)
		gen_add(g, 1, (unsigned)sp->hosts + up, LEAF_GUID + (uint64_t)l + 1, "leaf%d",
			l + 1);
	spine0 = g->n;
	for (int s = 0; s < sp->spines; s++)
		gen_add(g, 1, (unsigned)(sp->leaves * sp->links), SPINE_GUID + (uint64_t)s + 1,
			"spine%d", s + 1);
	for (int l = 0; l < sp->leaves; l++)
		for (int s = 0; s < sp->spines; s++)
			for (int k = 0; k < sp->links; k++)
				gen_link(g, leaf0 + l,
					 (unsigned)(sp->hosts + s * sp->links + k + 1), spine0 + s,
					 (unsigned)(l * sp->links + k + 1));
	for (int l = 0; l < sp->leaves; l++)
		gen_hosts(g, sp, leaf0 + l, l);
}

static void gen_three_level(struct gen *g, const struct tree_spec *sp)
{
	int m = sp->m, leaf[8][8], mid[8][8], spine0, nl[8], n = 0;

	for (int p = 0; p < sp->pods; p++) {
		nl[p] = sp->pod_leaves[p] ? sp->pod_leaves[p] : m;
		for (int i = 0; i < nl[p]; i++, n++)
			leaf[p][i] = gen_add(g, 1, (unsigned)(sp->hosts + m),
					     LEAF_GUID + (uint64_t)n + 1, "leaf%d", n + 1);
	}
	for (int p = 0; p < sp->pods; p++)
		for (int j = 0; j < m; j++)
			mid[p][j] =
			    gen_add(g, 1, (unsigned)(2 * m), MID_GUID + (uint64_t)(p * m + j) + 1,
				    "mid%d", p * m + j + 1);
	spine0 = g->n;
	for (int s = 0; s < m * m; s++)
		gen_add(g, 1, (unsigned)sp->pods, SPINE_GUID + (uint64_t)s + 1, "spine%d", s + 1);
	for (int p = 0; p < sp->pods; p++)
		for (int j = 0; j < m; j++) {
			for (int i = 0; i < nl[p]; i++)
				gen_link(g, leaf[p][i], (unsigned)(sp->hosts + j + 1), mid[p][j],
					 (unsigned)(i + 1));
			for (int t = 0; t < m; t++)
				gen_link(g, mid[p][j], (unsigned)(m + t + 1), spine0 + j * m + t,
					 (unsigned)(p + 1));
		}
	for (int p = 0, i = 0; p < sp->pods; p++)
		for (int k = 0; k < nl[p]; k++, i++)
			gen_hosts(g, sp, leaf[p][k], i);
}

/* Cables and switches the spec leaves out. */
static void gen_damage(struct gen *g, const struct tree_spec *sp)
{
	for (size_t i = 0; i < sizeof(sp->cut) / sizeof(sp->cut[0]) && sp->cut[i]; i++) {
		char name[16];
		unsigned port;

		CU_ASSERT_FATAL(sscanf(sp->cut[i], "%15[^/]/%u", name, &port) == 2);
		gen_unlink(g, gen_find(g, name), port);
	}
	for (size_t i = 0; i < 4 && sp->gone[i]; i++) {
		int x = gen_find(g, sp->gone[i]);

		g->node[x].gone = 1;
		for (unsigned p = 1; p <= g->node[x].nports; p++)
			gen_unlink(g, x, p);
	}
}

/* ibnetdiscover-style text: hosts, then switches, each cable from both ends. */
static char *gen_text(const struct gen *g, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < g->n; i++) {
			const struct gen_node *x = &g->node[i];

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

struct tree {
	struct fabric f;
	struct lft_set lft;
	struct route_note note;
	char err[256];
	uint16_t max_lid;
	int *level;  /* per node: -1 CA, 0 leaf, 1 mid, top: spine (by name) */
	int *has_ca; /* per node: a switch with a CA cabled */
	int *ca;     /* CAs in leaf order, then leaf-port order */
	size_t n_cas;
	int *gd, *ud; /* switch hops between nodes: any path / up then down */
};

/* The switch cabled to port p of node, or FABRIC_NONE (nothing or a CA). */
static int remote_switch(const struct fabric *f, int node, unsigned p)
{
	int r = f->nodes[node].ports[p].remote_node;

	return r != FABRIC_NONE && fabric_is_switch(&f->nodes[r]) ? r : FABRIC_NONE;
}

/* Fewest switch hops from a to every node going up (level + 1) any number
 * of times, then down (level - 1): breadth first over (node, going down). */
static void updown_from(const struct tree *t, int a, int *out)
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
static void tree_index(struct tree *t)
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

static int tree_parse(struct tree *t, const char *text, size_t len)
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
	tree_index(t);
	return 0;
}

static void tree_build(struct tree *t, const struct tree_spec *sp)
{
	struct gen *g = calloc(1, sizeof(*g));
	size_t len;
	char *text;

	if (sp->levels == 3)
		gen_three_level(g, sp);
	else
		gen_two_level(g, sp);
	gen_damage(g, sp);
	text = gen_text(g, &len);
	CU_ASSERT_EQUAL_FATAL(tree_parse(t, text, len), 0);
	free(text);
	free(g);
}

static void tree_free(struct tree *t)
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
static int tree_route_with(struct tree *t, const uint64_t *roots, size_t n_roots)
{
	struct route_opts opts = {.max_lid = t->max_lid, .roots = roots, .n_roots = n_roots};

	lft_set_fini(&t->lft);
	return route_engine_ftree.compute(&t->f, &opts, &t->lft, &t->note, t->err, sizeof(t->err));
}

/* The same, roots found alone; says why when it fails. */
static int tree_route(struct tree *t)
{
	int rc = tree_route_with(t, NULL, 0);

	if (rc)
		fprintf(stderr, "\n  ftree: %s\n", t->err);
	return rc;
}

/* ---- Following routes -------------------------------------------------- */

/* Follow dlid from switch sw; path[i] is the i-th switch passed and out[i]
 * its port.  Returns the switch hops to the port owning dlid, or -1. */
static int follow(const struct fabric *f, const struct lft_set *s, int sw, uint16_t dlid, int *path,
		  uint8_t *out)
{
	for (int hops = 0; hops < MAX_HOPS; hops++) {
		const struct fabric_node *n = &f->nodes[sw];
		const struct lft *t = lft_set_find_const(s, sw);
		uint8_t p = t && dlid <= t->top ? t->port[dlid] : LFT_DROP;
		int r;

		path[hops] = sw;
		out[hops] = p;
		if (p == LFT_DROP || p > n->num_ports)
			return -1;
		if (p == 0)
			return n->ports[0].lid == dlid ? hops : -1;
		r = n->ports[p].remote_node;
		if (r == FABRIC_NONE)
			return -1;
		if (!fabric_is_switch(&f->nodes[r])) {
			const struct fabric_port *rp = &f->nodes[r].ports[n->ports[p].remote_port];

			return dlid >= rp->lid && dlid < rp->lid + (1u << rp->lmc) ? hops : -1;
		}
		sw = r;
	}
	return -1;
}

/* The switches passed climb, then descend: never down then up. */
static int up_then_down(const struct tree *t, const int *path, int hops)
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
static int route_ok(const struct tree *t, const struct lft_set *s, int a, int dn, uint16_t lid,
		    int updown)
{
	size_t n = t->f.n_nodes;
	int path[MAX_HOPS], at = fabric_is_switch(&t->f.nodes[dn]) ? dn : FABRIC_NONE, got, any, ud;
	uint8_t out[MAX_HOPS];

	for (unsigned p = 1; at == FABRIC_NONE && p <= t->f.nodes[dn].num_ports; p++)
		if (t->f.nodes[dn].ports[p].lid <= lid &&
		    lid < t->f.nodes[dn].ports[p].lid + (1u << t->f.nodes[dn].ports[p].lmc))
			at = remote_switch(&t->f, dn, p);
	any = at == FABRIC_NONE ? NO_PATH : t->gd[(size_t)a * n + (size_t)at];
	got = follow(&t->f, s, a, lid, path, out);
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
static int check_routes(const struct tree *t, const struct lft_set *s, int updown)
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
static unsigned shift_load_to(const struct tree *t, const struct lft_set *s, unsigned offset)
{
	uint16_t *load = malloc(t->f.n_nodes * 256 * sizeof(*load));
	unsigned worst = 0;

	for (size_t sh = 1; sh < t->n_cas; sh++) {
		memset(load, 0, t->f.n_nodes * 256 * sizeof(*load));
		for (size_t i = 0; i < t->n_cas; i++) {
			int src = t->ca[i], dst = t->ca[(i + sh) % t->n_cas], path[MAX_HOPS];
			uint8_t out[MAX_HOPS];
			int hops =
			    follow(&t->f, s, t->f.nodes[src].ports[1].remote_node,
				   (uint16_t)(t->f.nodes[dst].ports[1].lid + offset), path, out);

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

static unsigned shift_load(const struct tree *t, const struct lft_set *s)
{
	return shift_load_to(t, s, 0);
}

/* The routing gate: everything reachable, no forwarding loop, no bad port,
 * and (when credit) no credit loop either. */
static int gate_says_ok(const struct tree *t, int credit)
{
	struct route_check_opts opts = {.skip_credit_loops = !credit};
	struct route_check res;
	int rc = route_check_run(&t->f, &t->lft, &opts, &res);

	if (rc)
		fprintf(stderr, "\n  gate: %s\n", res.first);
	return rc == 0 && !res.unreachable && !res.loops && !res.bad_ports && !res.credit_loop;
}

static int gate_ok(const struct tree *t)
{
	return gate_says_ok(t, 1);
}

/* minhop's worst shift all-to-all link load on t's fabric. */
static unsigned minhop_shift_load(struct tree *t)
{
	struct route_opts opts = {.max_lid = t->max_lid};
	struct lft_set mh;
	unsigned load;

	lft_set_init(&mh);
	CU_ASSERT_EQUAL_FATAL(route_engine_minhop.compute(&t->f, &opts, &mh, NULL, NULL, 0), 0);
	load = shift_load(t, &mh);
	lft_set_fini(&mh);
	return load;
}

/* ftree's worst shift load must be 1 and no worse than minhop's. */
static void compare_shift(struct tree *t, const char *what)
{
	unsigned ft = shift_load(t, &t->lft), mn = minhop_shift_load(t);

	fprintf(stderr, "\n    %s, %zu CAs: worst shift all-to-all link load ftree %u, minhop %u ",
		what, t->n_cas, ft, mn);
	CU_ASSERT_EQUAL(ft, 1);
	CU_ASSERT_TRUE(ft <= mn);
}

static int note_has(const struct tree *t, const char *want)
{
	if (strstr(t->note.text, want))
		return 1;
	fprintf(stderr, "\n  note \"%s\"\n  lacks \"%s\"\n", t->note.text, want);
	return 0;
}

/* ---- Full trees: shortest, balanced ------------------------------------ */

static void test_ftree_single_switch(void)
{
	static const char text[] =
	    "Switch\t8 \"sw\"\n[1]\t\"h1\"[1]\n[2]\t\"h2\"[1]\n[5]\t\"h3\"[1]\n\n"
	    "Hca\t1 \"h1\"\nHca\t1 \"h2\"\nHca\t1 \"h3\"\n";
	struct tree t;

	CU_ASSERT_EQUAL_FATAL(tree_parse(&t, text, strlen(text)), 0);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(t.lft.n, 1);
	CU_ASSERT_EQUAL(t.lft.tables[0].port[1], 0); /* its own LID */
	CU_ASSERT_EQUAL(t.lft.tables[0].port[2], 1);
	CU_ASSERT_EQUAL(t.lft.tables[0].port[3], 2);
	CU_ASSERT_EQUAL(t.lft.tables[0].port[4], 5);
	CU_ASSERT_EQUAL(t.lft.tables[0].port[0], LFT_DROP);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 2), 0);
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 1 rank, 1 root, 1 leaf, 3 CA LIDs");
	tree_free(&t);
}

static void test_ftree_two_level(void)
{
	struct tree_spec sp = {.levels = 2, .leaves = 8, .spines = 4, .links = 1, .hosts = 4};
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 2), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	compare_shift(&t, "2-level 8x4 hosts, 4 spines");
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 2 ranks, 4 roots, 8 leaves, 32 CA LIDs");
	tree_free(&t);
}

/* Two cables per leaf-spine pair are two up-ports: each carries one flow. */
static void test_ftree_parallel_links(void)
{
	struct tree_spec sp = {.levels = 2, .leaves = 6, .spines = 2, .links = 3, .hosts = 6};
	struct tree t;
	char err[256];

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 2), 0);
	compare_shift(&t, "2-level 6x6 hosts, 2 spines x 3 cables");
	tree_free(&t);

	memset(&t, 0, sizeof(t));
	fabric_init(&t.f);
	lft_set_init(&t.lft);
	CU_ASSERT_EQUAL_FATAL(topo_load("tests/fabrics/fattree64.topo", &t.f, err, sizeof(err)), 0);
	t.max_lid = route_test_assign_lids(&t.f, ROUTE_TEST_SWITCH_GUID);
	tree_index(&t);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 2), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	compare_shift(&t, "fattree64.topo (2 cables per pair)");
	tree_free(&t);
}

static void test_ftree_three_level(void)
{
	struct tree_spec sp = {.levels = 3, .pods = 4, .m = 4, .hosts = 4};
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 2), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	compare_shift(&t, "3-level 4 pods x 4 leaves x 4 hosts");
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 3 ranks, 16 roots, 16 leaves, 64 CA LIDs");
	tree_free(&t);

	sp.pods = 8;
	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 2), 0);
	compare_shift(&t, "3-level 8 pods x 4 leaves x 4 hosts");
	tree_free(&t);
}

/* The given roots are the spines: the same tables as found alone. */
static void test_ftree_given_roots(void)
{
	struct tree_spec sp = {.levels = 3, .pods = 3, .m = 2, .hosts = 2};
	uint64_t roots[5] = {SPINE_GUID + 1, SPINE_GUID + 2, SPINE_GUID + 3, SPINE_GUID + 4,
			     SPINE_GUID + 99};
	struct lft_set alone;
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	alone = t.lft;
	lft_set_init(&t.lft);
	CU_ASSERT_EQUAL_FATAL(tree_route_with(&t, roots, 5), 0);
	for (size_t i = 0; i < alone.n; i++)
		CU_ASSERT_EQUAL(memcmp(alone.tables[i].port, t.lft.tables[i].port, t.max_lid + 1u),
				0);
	CU_ASSERT_TRUE(note_has(&t, "3 ranks, 4 roots, 6 leaves"));
	CU_ASSERT_TRUE(note_has(&t, "1 given root not in the fabric (0x0002c90300c00063)"));
	lft_set_fini(&alone);

	/* a leaf named as a root: the other leaves are at other depths */
	roots[0] = LEAF_GUID + 1;
	CU_ASSERT_EQUAL(tree_route_with(&t, roots, 1), -EINVAL);
	CU_ASSERT_STRING_EQUAL(t.err,
			       "not a fat tree from the given roots: leaf 0x0002c90300a00001 "
			       "is 0 hops below them, leaf 0x0002c90300a00002 2");
	CU_ASSERT_EQUAL(t.lft.n, 0);
	/* a CA is no root */
	roots[0] = t.f.nodes[t.ca[0]].guid;
	CU_ASSERT_EQUAL(tree_route_with(&t, roots, 1), -EINVAL);
	CU_ASSERT_TRUE(strstr(t.err, "is not a switch") != NULL);
	tree_free(&t);
}

/* ---- Degraded trees: routed around, and said so ------------------------ */

static void test_ftree_missing_links(void)
{
	struct tree_spec sp = {
	    .levels = 3, .pods = 4, .m = 4, .hosts = 4, .cut = {"leaf2/6", "mid5/7"}};
	struct tree_spec two = {.levels = 2,
				.leaves = 8,
				.spines = 4,
				.links = 1,
				.hosts = 4,
				.cut = {"leaf1/5", "leaf4/7", "spine4/8"}};
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	CU_ASSERT_TRUE(
	    note_has(&t, "; 2 up-links missing: 0x0002c90300a00002/6, 0x0002c90300b00005/7; "));
	CU_ASSERT_TRUE(note_has(&t, " LIDs routed around them"));
	CU_ASSERT_TRUE(strstr(t.note.text, "; 0 LIDs") == NULL);
	tree_free(&t);

	/* three cables gone, where OpenSM's ftree gives up */
	tree_build(&t, &two);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	CU_ASSERT_TRUE(note_has(&t,
				"3 up-links missing: 0x0002c90300a00001/5, 0x0002c90300a00004/7, "
				"0x0002c90300a00008/8;"));
	tree_free(&t);
}

/* mid3 keeps no up-link: it tops its own small tree (a root at rank 1),
 * and its pod still reaches everything through its other mids.  Pod 1's
 * CAs and the switches of column 3 (mid7, mid11, spine9..12) have no
 * up-then-down route to each other; their routes turn down-up where no
 * credit loop closes (the shortest ones turned in pods 2 and 3 both, and
 * the gate refused them). */
static void test_ftree_orphan_mid(void)
{
	struct tree_spec sp = {.levels = 3,
			       .pods = 3,
			       .m = 4,
			       .hosts = 4,
			       .cut = {"mid3/5", "mid3/6", "mid3/7", "mid3/8"}};
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	CU_ASSERT_TRUE(note_has(&t, "ftree: 3 ranks, 17 roots, 12 leaves, 48 CA LIDs; 4 up-links "
				    "missing: 0x0002c90300b00003/5, 0x0002c90300b00003/6, "
				    "0x0002c90300b00003/7, 0x0002c90300b00003/8;"));
	tree_free(&t);
}

static void test_ftree_missing_spine(void)
{
	struct tree_spec sp = {.levels = 3, .pods = 4, .m = 4, .hosts = 4, .gone = {"spine6"}};
	struct tree_spec two = {
	    .levels = 2, .leaves = 8, .spines = 4, .links = 2, .hosts = 8, .gone = {"spine2"}};
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	CU_ASSERT_TRUE(note_has(&t, "3 ranks, 15 roots, 16 leaves"));
	tree_free(&t);

	/* 8 hosts over 6 up-links per leaf: two flows on a link at worst */
	tree_build(&t, &two);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 2 ranks, 3 roots, 8 leaves, 64 CA LIDs");
	CU_ASSERT_EQUAL(shift_load(&t, &t.lft), 2);
	tree_free(&t);
}

/* Pods with fewer leaves, leaves with fewer hosts, a leaf with none. */
static void test_ftree_partial(void)
{
	struct tree_spec sp = {.levels = 3,
			       .pods = 3,
			       .m = 4,
			       .hosts = 4,
			       .pod_leaves = {4, 2, 3},
			       .leaf_hosts = {[1] = 1, [4] = 3, [7] = -1}};
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	tree_free(&t);
}

/* A leaf whose hosts are all gone sits where a root would, two ranks above
 * the leaves next to it.  In a 3-level tree it sees one pod only, and is
 * taken for the leaf it is: the same tables as with the spines named as
 * roots.  In a 2-level tree it is the one root above the spines (the same
 * graph as a 3-level tree of one pod and one spine): routes stay right. */
static void test_ftree_hostless_leaf(void)
{
	struct tree_spec sp = {
	    .levels = 3, .pods = 4, .m = 4, .hosts = 4, .leaf_hosts = {[5] = -1}};
	struct tree_spec two = {.levels = 2,
				.leaves = 6,
				.spines = 3,
				.links = 1,
				.hosts = 3,
				.leaf_hosts = {[2] = -1}};
	uint64_t roots[16];
	struct lft_set alone;
	struct tree t;

	for (int i = 0; i < 16; i++)
		roots[i] = SPINE_GUID + (uint64_t)i + 1;
	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 3 ranks, 16 roots, 15 leaves, 60 CA LIDs");
	alone = t.lft;
	lft_set_init(&t.lft);
	CU_ASSERT_EQUAL_FATAL(tree_route_with(&t, roots, 16), 0);
	for (size_t i = 0; i < alone.n; i++)
		CU_ASSERT_EQUAL(memcmp(alone.tables[i].port, t.lft.tables[i].port, t.max_lid + 1u),
				0);
	lft_set_fini(&alone);
	tree_free(&t);

	tree_build(&t, &two);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 3 ranks, 1 root, 5 leaves, 15 CA LIDs");
	CU_ASSERT_EQUAL_FATAL(tree_route_with(&t, roots, 3), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 2 ranks, 3 roots, 5 leaves, 15 CA LIDs");
	tree_free(&t);
}

/* leaf1 keeps only its cable to mid1, leaf2 only its cable to mid2: no
 * switch is above both, so their CAs reach each other by a route that
 * turns down then up once, where it closes no credit loop; the note says
 * so. */
static void test_ftree_no_common_ancestor(void)
{
	struct tree_spec sp = {
	    .levels = 3, .pods = 2, .m = 2, .hosts = 2, .cut = {"leaf1/4", "leaf2/3"}};
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(
	    note_has(&t, "2 up-links missing: 0x0002c90300a00001/4, 0x0002c90300a00002/3"));
	CU_ASSERT_TRUE(note_has(&t, "2 leaf pairs without a common ancestor take a down-up route"));
	CU_ASSERT_TRUE(note_has(&t, " kept free of credit loops"));
	CU_ASSERT_TRUE(gate_ok(&t));
	tree_free(&t);
}

/* 128 hosts in 8 pods (the tree of nanosm-gen fattree --levels 3 --radix
 * 8), five cables gone as by --missing-links 5 --seed 7: a leaf without
 * two of its four up-links, two leaves without one, a mid without one
 * spine.  Pods without a common ancestor must turn down then up both ways
 * between columns; the routes of the old ftree (shortest, with one parent
 * kept at each bounce point) closed a credit loop here and the gate
 * refused them.  Now every turn is checked against the others. */
static void test_ftree_degraded_credit_free(void)
{
	struct tree_spec sp = {.levels = 3,
			       .pods = 8,
			       .m = 4,
			       .hosts = 4,
			       .cut = {"leaf6/6", "leaf11/5", "leaf24/7", "leaf24/8", "mid21/5"}};
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	CU_ASSERT_TRUE(note_has(&t, " kept free of credit loops"));
	CU_ASSERT_TRUE(strstr(t.note.text, "may close a credit loop") == NULL);
	tree_free(&t);
}

/* Build sp, route it with ftree: every route up-then-down or turning as
 * ftree may, and the gate passes (a tree of the degraded tests). */
static void tree_route_gated(struct tree *t, const struct tree_spec *sp)
{
	tree_build(t, sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(t), 0);
	CU_ASSERT_EQUAL(check_routes(t, &t->lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(t));
}

/* Every port of t offers vl_cap (1: VL0 only, 0: not known, so 8). */
static void tree_set_vl_cap(struct tree *t, uint8_t vl_cap)
{
	for (size_t i = 0; i < t->f.n_nodes; i++)
		for (unsigned p = 0; p <= t->f.nodes[i].num_ports; p++)
			t->f.nodes[i].ports[p].vl_cap = vl_cap;
}

/* nanosm-gen fattree --levels 3 --radix 8 (8 pods of 4 leaves and 4 mids,
 * 16 spines) with the cables cut (NULL-ended) left out, routed with ftree:
 * every route judged and the gate passed. */
static void k8_route_gated(struct tree *t, const char *const *cut)
{
	struct tree_spec sp = {.levels = 3, .pods = 8, .m = 4, .hosts = 4};

	for (size_t i = 0; cut[i]; i++)
		sp.cut[i] = cut[i];
	tree_route_gated(t, &sp);
}

/* The cables --missing-links 20 --seed 13 cuts (tests below). */
static const char *const k8_seed13_cut[] = {
    "mid3/8",  "mid4/8",   "leaf4/7",  "mid6/8",  "leaf6/8",  "mid10/5", "mid12/5",
    "mid12/6", "mid13/8",  "mid16/6",  "mid17/7", "mid18/6",  "mid21/6", "mid24/5",
    "mid24/7", "leaf22/8", "leaf23/6", "mid25/7", "leaf25/7", "mid30/7", NULL};

/* nanosm-gen fattree --levels 3 --radix 8 --missing-links 20 --seed 13:
 * 20 of 256 cables gone, so many that one switch finds no turn left that
 * closes no credit loop on VL 0.  With the ports' 8 data VLs the LIDs
 * whose turns VL 0 cannot take ride another VL (at most 4; SL = VL) with a
 * graph of turns of their own, so the gate (per VL) passes and no LID is
 * moved off its parent at an exit (on VL 0 alone, 26 are); with VL0 only
 * the route stays on a shortest path, as before, and the gate refuses it. */
static void test_ftree_degraded_vl1(void)
{
	struct tree t;

	k8_route_gated(&t, k8_seed13_cut);
	CU_ASSERT_TRUE(note_has(&t, "(SL = VL), where their turns close no credit loop: "));
	/* no LID moved off its parent at an exit: another VL took its turn */
	CU_ASSERT_TRUE(note_has(&t, ", 0 LIDs moved to another parent there"));
	CU_ASSERT_TRUE(strstr(t.note.text, "may close a credit loop") == NULL);
	CU_ASSERT_TRUE(t.lft.n_vls >= 2 && t.lft.n_vls <= 4);
	CU_ASSERT_PTR_NOT_NULL(t.lft.sl);

	tree_set_vl_cap(&t, 1);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_TRUE(note_has(&t, "may close a credit loop"));
	CU_ASSERT_TRUE(strstr(t.note.text, "SL = VL") == NULL);
	CU_ASSERT_EQUAL(t.lft.n_vls, 1);
	CU_ASSERT_PTR_NULL(t.lft.sl);
	CU_ASSERT_FALSE(gate_ok(&t));
	tree_free(&t);
}

/* The tree of test_ftree_degraded_vl1: the turns put its CA LIDs on 3
 * VLs (a graph of turns links two turns whenever a root lies above both),
 * but the tables' own channel dependencies let the LIDs of VL 2 ride VL 0
 * or 1: ftree empties VL 2 (SLs only), and the gate still passes.  VL 1
 * does not go: its LIDs on VL 0 close a credit loop there. */
static void test_ftree_vl_merge(void)
{
	struct tree t;

	k8_route_gated(&t, k8_seed13_cut);
	CU_ASSERT_EQUAL(t.lft.n_vls, 2);
	CU_ASSERT_TRUE(note_has(&t, "CA LIDs on VL 0-1 (SL = VL)"));
	CU_ASSERT_TRUE(
	    note_has(&t, "; 1 VL emptied into lower VLs whose dependencies stay acyclic"));
	for (uint16_t lid = 0; t.lft.sl && lid <= t.lft.sl_top; lid++)
		CU_ASSERT_TRUE(t.lft.sl[lid] < 2);
	/* every LID on VL 0: a credit loop */
	for (uint16_t lid = 0; t.lft.sl && lid <= t.lft.sl_top; lid++)
		t.lft.sl[lid] = 0;
	t.lft.n_vls = 1;
	CU_ASSERT_FALSE(gate_ok(&t));
	tree_free(&t);
}

/* nanosm-gen fattree --levels 3 --radix 8 --missing-links 28 --seed 14:
 * ftree's turns take 3 VLs, the merge leaves 2.  The switches' own LIDs
 * stay on VL 0, and the CA traffic to them turns at every switch on its
 * way (not only at the leaves): counting only the leaves' turns, the
 * merge put LIDs on VL 0 that closed a credit loop with them there. */
static void test_ftree_vl_merge_switch_lids(void)
{
	static const char *const cut[] = {"mid2/7",   "mid4/5",	  "mid4/7",   "mid4/8",	 "leaf1/6",
					  "leaf4/8",  "mid7/7",	  "leaf6/8",  "mid12/7", "mid13/6",
					  "mid16/6",  "leaf14/5", "mid17/7",  "mid18/5", "mid18/6",
					  "mid20/8",  "leaf19/5", "mid21/7",  "mid25/5", "mid27/8",
					  "leaf25/5", "leaf25/6", "leaf28/5", "mid29/6", "mid29/7",
					  "mid30/6",  "leaf29/7", "leaf31/7", NULL};
	struct tree t;

	k8_route_gated(&t, cut);
	CU_ASSERT_EQUAL(t.lft.n_vls, 2);
	CU_ASSERT_TRUE(
	    note_has(&t, "; 1 VL emptied into lower VLs whose dependencies stay acyclic"));
	tree_free(&t);
}

/* A whole middle switch gone (nanosm-gen's aggregation switch): its pod's
 * leaves lose a column, so their CAs and that column's switches have no
 * up-then-down route to each other.  The old ftree's tables closed a
 * credit loop; these pass, and the rest stays balanced. */
static void test_ftree_gone_mid(void)
{
	struct tree_spec sp = {.levels = 3, .pods = 8, .m = 4, .hosts = 4, .gone = {"mid6"}};
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	CU_ASSERT_TRUE(shift_load(&t, &t.lft) <= 3);
	tree_free(&t);
}

/* 2 levels, 8 leaves of 4 hosts under 4 spines, a cable gone at three
 * different spines and one more: each spine must reach a leaf through
 * another, and CAs reach that spine's LID the same way; the turns gather
 * at one leaf (the hub), so none leads to another.  Shift all-to-all is
 * no worse than minhop's (whose tables have a credit loop here). */
static void test_ftree_degraded_two_level(void)
{
	struct tree_spec two = {.levels = 2,
				.leaves = 8,
				.spines = 4,
				.links = 1,
				.hosts = 4,
				.cut = {"spine1/3", "spine2/5", "spine3/8", "leaf6/8"}};
	struct tree t;

	tree_build(&t, &two);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_TRUE(gate_ok(&t));
	CU_ASSERT_TRUE(shift_load(&t, &t.lft) <= minhop_shift_load(&t));
	tree_free(&t);
}

/* nanosm-gen fattree --levels 2 --radix 8 --missing-links 2 --seed 6: leaf3
 * and leaf8 each lost their cable to spine3.  Leaf3 sends the LIDs of
 * column 3 up another live link; under a shift all-to-all its CAs send to
 * LIDs in a row, among them leaf8's fourth CA, which leaf8 took up spine2
 * (its three links were taken).  The column leaf3 takes for such a LID is
 * the one it would send the fewest of the LIDs around it out of (a shift
 * sends its CAs' flows to LIDs in a row, round the end), so no shift puts
 * three flows on one of its links, as minhop does not (the old choice, by
 * LIDs diverted so far, sent a shift's third flow up spine2). */
static void test_ftree_lost_column_spread(void)
{
	struct tree_spec two = {.levels = 2,
				.leaves = 8,
				.spines = 4,
				.links = 1,
				.hosts = 4,
				.cut = {"leaf3/7", "leaf8/7"}};
	struct tree t;

	tree_route_gated(&t, &two);
	CU_ASSERT_EQUAL(shift_load(&t, &t.lft), 2);
	CU_ASSERT_TRUE(shift_load(&t, &t.lft) <= minhop_shift_load(&t));
	tree_free(&t);
}

/* The worst shift load of k8_route_gated's tree. */
static unsigned k8_shift_load(const char *const *cut)
{
	struct tree t;
	unsigned load;

	k8_route_gated(&t, cut);
	load = shift_load(&t, &t.lft);
	tree_free(&t);
	return load;
}

/* nanosm-gen fattree --levels 3 --radix 8 --missing-links 4 --seed 11: a
 * leaf without two of its four up-links, another without one, a mid
 * without a spine.  With the leaves' lost columns sent where the LIDs
 * around them leave room, shift all-to-all stays at 3 (4 before). */
static void test_ftree_lost_columns_three_level(void)
{
	static const char *const cut[] = {"leaf1/6", "mid14/8", "leaf19/5", "leaf19/6", NULL};

	CU_ASSERT_TRUE(k8_shift_load(cut) <= 3);
}

/* nanosm-gen fattree --levels 3 --radix 8 --missing-links 5 --seed 7: leaf24
 * lost two of its four up-links (columns 3 and 4), leaf6 lost column 2,
 * so the only column both still have is 1; up-then-down, leaf24's flows
 * to leaf6's LIDs in a row all climb through mid21, and mid21 also lost
 * a spine (4 then 5 flows on one link).  leaf24 now sends a LID that
 * would make 3 flows on one link up its other parent (which has no
 * up-then-down route to leaf6) to that parent's exit, where the LID
 * turns up column 4 on a turn taken for it anyway; and mid21 spreads
 * the LIDs of its lost spine by the flows of its pod. */
static void test_ftree_detour_common_column(void)
{
	static const char *const cut[] = {"mid21/5",  "leaf6/6",  "leaf11/5",
					  "leaf24/7", "leaf24/8", NULL};

	CU_ASSERT_TRUE(k8_shift_load(cut) <= 3);
}

/* nanosm-gen fattree --levels 3 --radix 8 --missing-links 5 --seed 8: four
 * mids lost a spine each (mid4, mid9, mid24, mid27), leaf22 a mid.  A
 * mid that lost a spine sends those LIDs to the spine its pod's flows to
 * the LIDs in a row leave room on (4 flows on one link before). */
static void test_ftree_mid_lost_spines(void)
{
	static const char *const cut[] = {"mid9/6",  "mid27/8",	 "mid4/5",
					  "mid24/6", "leaf22/7", NULL};

	CU_ASSERT_TRUE(k8_shift_load(cut) <= 3);
}

/* The graph of turns on a hand-made tree: switches 0..3 are roots, 4..7
 * middle switches each under one root (4 under 0, ...), 8..11 leaves
 * under every middle switch.  A turn from column a to column b at one
 * leaf, and from b back to a at another, close a cycle (up through b's
 * root and down to the other leaf, and back through a's); at the same
 * leaf they do not (the walk would pass that leaf twice), unless the tree
 * has a diamond.  A chain a -> b -> c -> a closes one too. */
static void test_ftree_turns_graph(void)
{
	struct ftree_turns t;

	CU_ASSERT_EQUAL_FATAL(ftree_turns_init(&t, 12, 4), 0);
	for (int r = 0; r < 4; r++) {
		ftree_turns_mark_root(&t, r, (size_t)r);
		ftree_turns_inherit(&t, 4 + r, r);
		for (int leaf = 8; leaf <= 11; leaf++)
			ftree_turns_inherit(&t, leaf, 4 + r);
	}
	CU_ASSERT_TRUE(ftree_turns_common(&t, 8, 9));
	CU_ASSERT_FALSE(ftree_turns_common(&t, 4, 5));
	CU_ASSERT_TRUE(ftree_turns_common(&t, 4, 0));

	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 4, 8, 5));
	CU_ASSERT_EQUAL(ftree_turns_take(&t, 4, 8, 5), 0);
	CU_ASSERT_TRUE(ftree_turns_has(&t, 4, 8, 5));
	CU_ASSERT_FALSE(ftree_turns_has(&t, 5, 8, 4));
	CU_ASSERT_FALSE(ftree_turns_allowed(&t, 5, 9, 4)); /* back at another leaf */
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 5, 8, 4));  /* back at the hub */
	CU_ASSERT_EQUAL(ftree_turns_take(&t, 5, 8, 4), 0);
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 4, 8, 5)); /* taken: still fine */

	/* a chain of columns 1 -> 2 -> 3 at leaves 9 and 10; 3 -> 1 or 3 -> 0
	 * at leaf 11 closes a cycle, 3 -> 1 at leaf 9 does not (the walk would
	 * come back to leaf 9), nor 2 -> 1 at leaf 9 */
	CU_ASSERT_EQUAL(ftree_turns_take(&t, 5, 9, 6), 0);
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 6, 10, 7));
	CU_ASSERT_EQUAL(ftree_turns_take(&t, 6, 10, 7), 0);
	CU_ASSERT_FALSE(ftree_turns_allowed(&t, 7, 11, 5));
	CU_ASSERT_FALSE(ftree_turns_allowed(&t, 7, 11, 4)); /* 3 -> 0 -> 1 -> 2 -> 3 */
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 7, 9, 5));
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 6, 9, 5));
	ftree_turns_fini(&t);

	/* with a diamond the hub's two turns are judged by their roots alone */
	CU_ASSERT_EQUAL_FATAL(ftree_turns_init(&t, 12, 4), 0);
	for (int r = 0; r < 4; r++) {
		ftree_turns_mark_root(&t, r, (size_t)r);
		ftree_turns_inherit(&t, 4 + r, r);
		ftree_turns_inherit(&t, 8, 4 + r);
	}
	t.diamond = 1;
	CU_ASSERT_EQUAL(ftree_turns_take(&t, 4, 8, 5), 0);
	CU_ASSERT_FALSE(ftree_turns_allowed(&t, 5, 8, 4));
	CU_ASSERT_TRUE(ftree_turns_allowed(&t, 5, 8, 6));
	ftree_turns_fini(&t);
}

/* A single switch, a small tree, a switch alone and two CAs cabled back
 * to back, in one fabric: each island is routed, nothing crosses. */
static void test_ftree_islands(void)
{
	static const char text[] = "Switch\t4 \"a\"\n[1]\t\"h1\"[1]\n[2]\t\"h2\"[1]\n\n"
				   "Switch\t4 \"b1\"\n[1]\t\"h3\"[1]\n[3]\t\"spineb\"[1]\n\n"
				   "Switch\t4 \"b2\"\n[1]\t\"h4\"[1]\n[3]\t\"spineb\"[2]\n\n"
				   "Switch\t4 \"spineb\"\n\n"
				   "Switch\t4 \"lonely\"\n\n"
				   "Hca\t1 \"h1\"\nHca\t1 \"h2\"\nHca\t1 \"h3\"\nHca\t1 \"h4\"\n"
				   "Hca\t1 \"h5\"\n[1]\t\"h6\"[1]\nHca\t1 \"h6\"\n";
	struct tree t;

	CU_ASSERT_EQUAL_FATAL(tree_parse(&t, text, strlen(text)), 0);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	CU_ASSERT_STRING_EQUAL(t.note.text, "ftree: 2 ranks, 2 roots, 3 leaves, 4 CA LIDs; "
					    "1 switch with no leaf connected: own LIDs only");
	tree_free(&t);
}

/* Two leaves cabled together: not a tree. */
static void test_ftree_leaf_to_leaf(void)
{
	struct tree_spec sp = {.levels = 2,
			       .leaves = 4,
			       .spines = 2,
			       .links = 1,
			       .hosts = 2,
			       .leaf_hosts = {[0] = 1, [2] = 1}};
	struct tree t;
	char *text;
	size_t len;
	struct gen *g = calloc(1, sizeof(*g));

	gen_two_level(g, &sp);
	gen_link(g, gen_find(g, "leaf1"), 2, gen_find(g, "leaf3"), 2);
	text = gen_text(g, &len);
	CU_ASSERT_EQUAL_FATAL(tree_parse(&t, text, len), 0);
	CU_ASSERT_EQUAL(tree_route_with(&t, NULL, 0), -EINVAL);
	CU_ASSERT_STRING_EQUAL(t.err, "not a fat tree: 0x0002c90300a00001/2 - 0x0002c90300a00003/2 "
				      "links two switches of rank 0");
	tree_free(&t);
	free(text);
	free(g);
}

/* ---- Not a tree -------------------------------------------------------- */

/* sw[i] port 7 -> sw[i+1] port 8 around a ring of four; a host on sw[i]
 * when bit i of hosted is set. */
static char *ring_text(unsigned hosted)
{
	char *buf = NULL;
	size_t len;
	FILE *fp = open_memstream(&buf, &len);

	for (int i = 0; i < 4; i++) {
		fprintf(fp, "switchguid=0x%016" PRIx64 "\nSwitch\t8 \"sw%d\"\n[7]\t\"sw%d\"[8]\n",
			SPINE_GUID + (uint64_t)i + 1, i, (i + 1) % 4);
		if (hosted >> i & 1)
			fprintf(fp, "[1]\t\"h%d\"[1]\n", i);
		fprintf(fp, "\n");
	}
	for (int i = 0; i < 4; i++)
		if (hosted >> i & 1)
			fprintf(fp, "Hca\t1 \"h%d\"\n", i);
	fclose(fp);
	return buf;
}

static void test_ftree_not_a_tree(void)
{
	struct tree t;
	char *text = ring_text(0xf);

	CU_ASSERT_EQUAL_FATAL(tree_parse(&t, text, strlen(text)), 0);
	CU_ASSERT_EQUAL(tree_route_with(&t, NULL, 0), -EINVAL);
	CU_ASSERT_STRING_EQUAL(t.err, "not a fat tree: 0x0002c90300c00001/7 - 0x0002c90300c00002/8 "
				      "links two switches of rank 0");
	CU_ASSERT_EQUAL(t.lft.n, 0);
	tree_free(&t);
	free(text);

	text = ring_text(0);
	CU_ASSERT_EQUAL_FATAL(tree_parse(&t, text, strlen(text)), 0);
	CU_ASSERT_EQUAL(tree_route_with(&t, NULL, 0), -EINVAL);
	CU_ASSERT_STRING_EQUAL(t.err, "not a fat tree: no leaf (no switch has a CA cabled)");
	tree_free(&t);
	free(text);

	/* hosts on two opposite switches: a ring of four is a 2-by-2 tree */
	text = ring_text(0x5);
	CU_ASSERT_EQUAL_FATAL(tree_parse(&t, text, strlen(text)), 0);
	CU_ASSERT_EQUAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 0), 0);
	tree_free(&t);
	free(text);
}

/* ---- LIDs -------------------------------------------------------------- */

/* LMC 1 on every CA: the base LIDs are balanced as without LMC, the second
 * LIDs too, and they take other spines. */
static void test_ftree_lmc_balance(void)
{
	struct tree_spec sp = {.levels = 2, .leaves = 8, .spines = 4, .links = 1, .hosts = 4};
	struct tree t;
	unsigned other = 0;

	tree_build(&t, &sp);
	for (size_t i = 0; i < t.n_cas; i++) {
		t.f.nodes[t.ca[i]].ports[1].lid = (uint16_t)(64 + 2 * i);
		t.f.nodes[t.ca[i]].ports[1].lmc = 1;
	}
	t.max_lid = (uint16_t)(64 + 2 * t.n_cas);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 2), 0);
	CU_ASSERT_EQUAL(shift_load_to(&t, &t.lft, 0), 1);
	CU_ASSERT_EQUAL(shift_load_to(&t, &t.lft, 1), 1);
	for (size_t i = 0; i < t.n_cas; i++) {
		/* CA i + 4 is on the next leaf: both LIDs leave CA i's leaf going up */
		const struct fabric_port *to = &t.f.nodes[t.ca[(i + 4) % t.n_cas]].ports[1];
		const struct lft *from =
		    lft_set_find_const(&t.lft, t.f.nodes[t.ca[i]].ports[1].remote_node);

		other += from->port[to->lid] != from->port[to->lid + 1];
	}
	CU_ASSERT_EQUAL(other, t.n_cas);
	tree_free(&t);
}

static void test_ftree_lids(void)
{
	struct tree_spec sp = {.levels = 2, .leaves = 4, .spines = 2, .links = 1, .hosts = 2};
	struct route_opts opts;
	struct tree t;
	int h;

	tree_build(&t, &sp);
	/* the last CA gets LMC 2: 4 LIDs from a fresh, aligned base */
	h = t.ca[t.n_cas - 1];
	t.f.nodes[h].ports[1].lid = 32;
	t.f.nodes[h].ports[1].lmc = 2;
	t.max_lid = 40;
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL(check_routes(&t, &t.lft, 1), 0);
	for (uint16_t lid = 36; lid <= 40; lid++) /* unowned */
		CU_ASSERT_EQUAL(t.lft.tables[0].port[lid], LFT_DROP);

	opts = (struct route_opts){.max_lid = 34};
	CU_ASSERT_EQUAL(
	    route_engine_ftree.compute(&t.f, &opts, &t.lft, &t.note, t.err, sizeof(t.err)),
	    -ERANGE);
	CU_ASSERT_TRUE(strstr(t.err, "/1: LID 35 above max_lid 34") != NULL);
	CU_ASSERT_EQUAL(t.lft.n, 0);
	t.f.nodes[h].ports[1].lmc = 0;
	t.f.nodes[h].ports[1].lid = t.f.nodes[t.ca[0]].ports[1].lid;
	opts.max_lid = t.max_lid;
	CU_ASSERT_EQUAL(
	    route_engine_ftree.compute(&t.f, &opts, &t.lft, &t.note, t.err, sizeof(t.err)),
	    -EINVAL);
	CU_ASSERT_TRUE(strstr(t.err, "also used by port") != NULL);
	opts.max_lid = LID_UNICAST_MAX + 1;
	CU_ASSERT_EQUAL(
	    route_engine_ftree.compute(&t.f, &opts, &t.lft, &t.note, t.err, sizeof(t.err)),
	    -EINVAL);
	CU_ASSERT_STRING_EQUAL(t.err, "max_lid 49152 above the unicast range (0xbfff)");
	tree_free(&t);
}

static void test_ftree_deterministic(void)
{
	struct tree_spec sp = {.levels = 3, .pods = 4, .m = 4, .hosts = 3, .cut = {"mid3/6"}};
	struct lft_set first;
	struct tree t;

	tree_build(&t, &sp);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	first = t.lft;
	lft_set_init(&t.lft);
	CU_ASSERT_EQUAL_FATAL(tree_route(&t), 0);
	CU_ASSERT_EQUAL_FATAL(first.n, t.lft.n);
	for (size_t i = 0; i < first.n; i++)
		CU_ASSERT_EQUAL(memcmp(first.tables[i].port, t.lft.tables[i].port, t.max_lid + 1u),
				0);
	CU_ASSERT_PTR_EQUAL(route_engine_find("ftree"), &route_engine_ftree);
	lft_set_fini(&first);
	tree_free(&t);
}

void test_ftree_register(void)
{
	CU_pSuite s = CU_add_suite("ftree", NULL, NULL);

	CU_add_test(s, "single switch", test_ftree_single_switch);
	CU_add_test(s, "2-level full tree: shortest, shift load 1", test_ftree_two_level);
	CU_add_test(s, "parallel cables are up-ports of their own", test_ftree_parallel_links);
	CU_add_test(s, "3-level full tree: shortest, shift load 1", test_ftree_three_level);
	CU_add_test(s, "given roots", test_ftree_given_roots);
	CU_add_test(s, "missing links: routed around, noted", test_ftree_missing_links);
	CU_add_test(s, "a mid without up-links", test_ftree_orphan_mid);
	CU_add_test(s, "missing spine", test_ftree_missing_spine);
	CU_add_test(s, "partially populated 3-level tree", test_ftree_partial);
	CU_add_test(s, "a leaf without hosts", test_ftree_hostless_leaf);
	CU_add_test(s, "no common ancestor: down-up route, noted", test_ftree_no_common_ancestor);
	CU_add_test(s, "degraded 3-level tree: turns close no credit loop",
		    test_ftree_degraded_credit_free);
	CU_add_test(s, "degraded 3-level tree: turns VL 0 cannot take ride VL 1",
		    test_ftree_degraded_vl1);
	CU_add_test(s, "degraded tree: VLs its dependencies do not need are emptied",
		    test_ftree_vl_merge);
	CU_add_test(s, "degraded tree: VLs merged, CA traffic to switch LIDs counted",
		    test_ftree_vl_merge_switch_lids);
	CU_add_test(s, "a whole mid gone: gate passes", test_ftree_gone_mid);
	CU_add_test(s, "degraded 2-level tree: gate passes", test_ftree_degraded_two_level);
	CU_add_test(s, "a lost column: its LIDs spread over the links used least",
		    test_ftree_lost_column_spread);
	CU_add_test(s, "lost columns in a 3-level tree: shift load 3",
		    test_ftree_lost_columns_three_level);
	CU_add_test(s, "two leaves with one column in common: a detour, shift load 3",
		    test_ftree_detour_common_column);
	CU_add_test(s, "mids that lost a spine: their pod's flows spread, shift load 3",
		    test_ftree_mid_lost_spines);
	CU_add_test(s, "turns: a cycle of columns is refused, a hub is not",
		    test_ftree_turns_graph);
	CU_add_test(s, "islands: each routed alone", test_ftree_islands);
	CU_add_test(s, "leaves cabled together: not a tree", test_ftree_leaf_to_leaf);
	CU_add_test(s, "rings: not a tree, or a 2-by-2 tree", test_ftree_not_a_tree);
	CU_add_test(s, "LMC: each LID balanced, on its own path", test_ftree_lmc_balance);
	CU_add_test(s, "LMC, LID errors", test_ftree_lids);
	CU_add_test(s, "deterministic; in the engine table", test_ftree_deterministic);
}
