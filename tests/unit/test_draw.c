/*
 * test_draw.c - unit tests for the fabric picture (tools/draw): rows by
 * rank (a fat tree's leaves at the bottom, a mesh by distance from its
 * center), hosts folded into a count or expanded, bundles of parallel
 * cables, what only a reference fabric has drawn as missing, the width
 * bound, no two boxes or labels overlapping, and the same bytes twice.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"
#include "tools/draw/draw.h"

/* ---- Fabrics ------------------------------------------------------------ */

static void draw_name(struct fabric *f, int n, const char *fmt, int a, int b)
{
	snprintf(f->nodes[n].desc, sizeof(f->nodes[n].desc), fmt, a, b);
}

/* A 3-level fat tree of radix k (k pods of k/2 leaves and k/2 aggs, (k/2)^2
 * cores, k/2 hosts per leaf), named like nanosm-gen's. */
static void draw_tree3(struct fabric *f, int k)
{
	int h = k / 2, cores = h * h, pods = k, base_agg, base_leaf;

	fabric_init(f);
	for (int c = 0; c < cores; c++)
		draw_name(f, route_test_add_sw(f, k), "core%02d", c + 1, 0);
	base_agg = (int)f->n_nodes;
	for (int p = 0; p < pods; p++)
		for (int a = 0; a < h; a++)
			draw_name(f, route_test_add_sw(f, k), "pod%02d-agg%d", p + 1, a + 1);
	base_leaf = (int)f->n_nodes;
	for (int p = 0; p < pods; p++)
		for (int l = 0; l < h; l++)
			draw_name(f, route_test_add_sw(f, k), "pod%02d-leaf%d", p + 1, l + 1);
	for (int p = 0; p < pods; p++)
		for (int a = 0; a < h; a++) {
			int agg = base_agg + p * h + a;

			for (int c = 0; c < h; c++) /* agg a reaches cores a*h .. a*h+h-1 */
				CU_ASSERT_EQUAL(fabric_link(f, agg, (uint8_t)(h + 1 + c), a * h + c,
							    (uint8_t)(p + 1)),
						0);
			for (int l = 0; l < h; l++)
				CU_ASSERT_EQUAL(fabric_link(f, agg, (uint8_t)(l + 1),
							    base_leaf + p * h + l,
							    (uint8_t)(h + 1 + a)),
						0);
		}
	for (int p = 0; p < pods; p++)
		for (int l = 0; l < h; l++)
			for (int x = 0; x < h; x++)
				draw_name(
				    f,
				    route_test_add_host(f, base_leaf + p * h + l, (unsigned)x + 1),
				    "host%04d", (p * h + l) * h + x + 1, 0);
}

static void draw_fini(struct draw_layout *l, struct fabric *f)
{
	draw_layout_fini(l);
	fabric_fini(f);
}

static int draw_lay(const struct fabric *f, const struct draw_opts *o, struct draw_layout *l)
{
	char err[256] = "";
	int rc = draw_layout(f, o, l, err, sizeof(err));

	if (rc)
		fprintf(stderr, "draw_layout: %s\n", err);
	return rc;
}

/* The box of the node named name, or NULL. */
static const struct draw_box *draw_box_of(const struct draw_layout *l, const char *name)
{
	for (size_t i = 0; i < l->n_boxes; i++)
		if (!strcmp(l->nodes[l->boxes[i].node].name, name))
			return &l->boxes[i];
	return NULL;
}

/* No two boxes overlap, no label overlaps a box or another label, and
 * everything lies inside the picture. */
static void draw_assert_clean(const struct draw_layout *l)
{
	size_t bad = 0;

	for (size_t i = 0; i < l->n_boxes; i++) {
		const struct draw_box *a = &l->boxes[i];

		bad += a->x < 0 || a->y < 0 || a->x + a->w > l->width || a->y + a->h > l->height;
		for (size_t j = i + 1; j < l->n_boxes; j++) {
			const struct draw_box *b = &l->boxes[j];

			bad += draw_overlap(a->x, a->y, a->w, a->h, b->x, b->y, b->w, b->h);
		}
		for (size_t j = 0; j < l->n_labels; j++) {
			const struct draw_label *q = &l->labels[j];

			bad += draw_overlap(a->x, a->y, a->w, a->h, q->x, q->y, q->w, q->h);
		}
	}
	for (size_t i = 0; i < l->n_labels; i++)
		for (size_t j = i + 1; j < l->n_labels; j++) {
			const struct draw_label *a = &l->labels[i], *b = &l->labels[j];

			bad += draw_overlap(a->x, a->y, a->w, a->h, b->x, b->y, b->w, b->h);
		}
	CU_ASSERT_EQUAL(bad, 0);
}

/* ---- Tests -------------------------------------------------------------- */

static void test_draw_tree_rows(void)
{
	struct fabric f;
	struct draw_layout l;
	struct draw_opts o = {0};
	const struct draw_box *core, *agg, *leaf;

	draw_tree3(&f, 8); /* 16 cores, 32 aggs, 32 leaves, 128 hosts */
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l) == 0);
	CU_ASSERT_EQUAL(l.tree, 1);
	CU_ASSERT_EQUAL(l.n_rows, 3);
	CU_ASSERT_STRING_EQUAL(l.rows[0].name, "cores");
	CU_ASSERT_STRING_EQUAL(l.rows[1].name, "aggregation");
	CU_ASSERT_STRING_EQUAL(l.rows[2].name, "leaves");
	core = draw_box_of(&l, "core01");
	agg = draw_box_of(&l, "pod01-agg1");
	leaf = draw_box_of(&l, "pod01-leaf1");
	CU_ASSERT_FATAL(core && agg && leaf);
	CU_ASSERT(core->y + core->h < agg->y);
	CU_ASSERT(agg->y + agg->h < leaf->y);
	/* 128 hosts: folded, no host boxes, the count on the leaf */
	CU_ASSERT_EQUAL(l.n_boxes, 80);
	CU_ASSERT_STRING_EQUAL(leaf->sub, "4 hosts");
	CU_ASSERT_PTR_NULL(draw_box_of(&l, "host0001"));
	/* every switch cable drawn, each its own line; host cables folded */
	CU_ASSERT_EQUAL(l.n_edges, 256);
	CU_ASSERT_STRING_EQUAL(l.summary, "80 switches, 128 hosts, 384 cables");
	draw_assert_clean(&l);
	draw_fini(&l, &f);
}

static void test_draw_expand(void)
{
	struct fabric f;
	struct draw_layout l;
	uint64_t guid;
	struct draw_opts o = {.expand = &guid, .n_expand = 1};
	const struct draw_box *leaf, *host;

	draw_tree3(&f, 8);
	guid = f.nodes[route_test_node(&f, "pod02-leaf3")].guid;
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l) == 0);
	CU_ASSERT_EQUAL(l.n_boxes, 84); /* 80 switches, that leaf's 4 hosts */
	leaf = draw_box_of(&l, "pod02-leaf3");
	host = draw_box_of(&l, "host0025"); /* pod 2 leaf 3's first host */
	CU_ASSERT_FATAL(leaf && host);
	CU_ASSERT(host->y > leaf->y + leaf->h);
	CU_ASSERT_STRING_EQUAL(leaf->sub, "");
	CU_ASSERT_PTR_NULL(draw_box_of(&l, "host0001"));
	CU_ASSERT_EQUAL(l.n_edges, 256 + 4);
	draw_assert_clean(&l);
	draw_layout_fini(&l);
	o.expand_all = 1;
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l) == 0);
	CU_ASSERT_EQUAL(l.n_boxes, 80 + 128);
	draw_assert_clean(&l);
	draw_fini(&l, &f);
}

/* A ring of 6 switches: no tree; rows by distance from the center. */
static void test_draw_mesh_rows(void)
{
	struct fabric f;
	struct draw_layout l;
	struct draw_opts o = {0};

	fabric_init(&f);
	for (int i = 0; i < 6; i++)
		draw_name(&f, route_test_add_sw(&f, 8), "sw%d", i + 1, 0);
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(fabric_link(&f, i, 2, (i + 1) % 6, 3), 0);
		draw_name(&f, route_test_add_host(&f, i, 1), "h%d", i + 1, 0);
	}
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l) == 0);
	CU_ASSERT_EQUAL(l.tree, 0);
	CU_ASSERT_EQUAL(l.n_rows, 4);
	CU_ASSERT_STRING_EQUAL(l.rows[0].name, "center");
	CU_ASSERT_STRING_EQUAL(l.rows[3].name, "3 hops from center");
	CU_ASSERT_EQUAL(l.n_boxes, 12); /* 6 hosts: drawn */
	CU_ASSERT_EQUAL(l.n_edges, 12);
	draw_assert_clean(&l);
	draw_fini(&l, &f);
}

/* Three parallel cables between two switches: one line, count 3, its
 * label; one of them missing against a reference. */
static void test_draw_bundle_and_missing(void)
{
	struct fabric f, ref;
	struct draw_layout l;
	struct draw_opts o = {0};
	const struct draw_edge *e = NULL;

	fabric_init(&ref);
	for (int i = 0; i < 2; i++)
		draw_name(&ref, route_test_add_sw(&ref, 8), "sw%d", i + 1, 0);
	for (int p = 5; p <= 7; p++)
		CU_ASSERT_EQUAL(fabric_link(&ref, 0, (uint8_t)p, 1, (uint8_t)p), 0);
	draw_name(&ref, route_test_add_host(&ref, 0, 1), "a", 0, 0);
	draw_name(&ref, route_test_add_host(&ref, 1, 1), "b", 0, 0);
	CU_ASSERT_FATAL(fabric_copy(&f, &ref) == 0);
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l) == 0);
	for (size_t i = 0; i < l.n_edges; i++)
		if (l.edges[i].live == 3)
			e = &l.edges[i];
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(e->missing, 0);
	CU_ASSERT_FATAL(e->label >= 0);
	CU_ASSERT_STRING_EQUAL(l.labels[e->label].text, "\xc3\x97"
							"3");
	draw_assert_clean(&l);
	draw_layout_fini(&l);
	/* cut one cable and host b's: the reference says they are missing */
	f.nodes[0].ports[6].remote_node = FABRIC_NONE;
	f.nodes[1].ports[6].remote_node = FABRIC_NONE;
	f.nodes[1].ports[1].remote_node = FABRIC_NONE;
	f.nodes[3].ports[1].remote_node = FABRIC_NONE;
	o.reference = &ref;
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l) == 0);
	e = NULL;
	for (size_t i = 0; i < l.n_edges; i++)
		if (l.edges[i].live == 2)
			e = &l.edges[i];
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(e->missing, 1);
	CU_ASSERT_STRING_EQUAL(l.labels[e->label].text, "\xc3\x97"
							"3 (1 missing)");
	CU_ASSERT_PTR_NOT_NULL(strstr(l.summary, "2 cables and 0 nodes missing"));
	draw_assert_clean(&l);
	draw_layout_fini(&l);
	fabric_fini(&ref);
	fabric_fini(&f);
}

/* A node only the reference has is drawn, in its row, as missing. */
static void test_draw_missing_switch(void)
{
	struct fabric f, ref;
	struct draw_layout l;
	struct draw_opts o = {.reference = &ref};
	const struct draw_box *ghost, *agg;
	int gone;

	draw_tree3(&ref, 4);
	draw_tree3(&f, 4);
	gone = route_test_node(&f, "pod02-agg1");
	for (unsigned p = 1; p <= f.nodes[gone].num_ports; p++) {
		struct fabric_port *q = &f.nodes[gone].ports[p];

		if (q->remote_node >= 0)
			f.nodes[q->remote_node].ports[q->remote_port].remote_node = FABRIC_NONE;
	}
	/* a fabric without that switch: rebuild without it (GUIDs kept) */
	{
		struct fabric g;

		fabric_init(&g);
		for (size_t i = 0; i < f.n_nodes; i++) {
			const struct fabric_node *n = &f.nodes[i];

			if ((int)i == gone)
				continue;
			CU_ASSERT(fabric_add_node(&g, n->guid, n->type, n->num_ports) >= 0);
			memcpy(g.nodes[g.n_nodes - 1].desc, n->desc, sizeof(n->desc));
		}
		for (size_t i = 0; i < f.n_nodes; i++)
			for (unsigned p = 1; p <= f.nodes[i].num_ports; p++) {
				const struct fabric_port *q = &f.nodes[i].ports[p];
				int a, b;

				if ((int)i == gone || q->remote_node < 0 || q->remote_node == gone)
					continue;
				a = fabric_find(&g, f.nodes[i].guid);
				b = fabric_find(&g, f.nodes[q->remote_node].guid);
				fabric_link(&g, a, (uint8_t)p, b, q->remote_port);
			}
		fabric_fini(&f);
		f = g;
	}
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l) == 0);
	ghost = draw_box_of(&l, "pod02-agg1");
	agg = draw_box_of(&l, "pod01-agg1");
	CU_ASSERT_FATAL(ghost && agg);
	CU_ASSERT_EQUAL(l.nodes[ghost->node].live, -1);
	CU_ASSERT_STRING_EQUAL(ghost->sub, "missing");
	CU_ASSERT_DOUBLE_EQUAL(ghost->y, agg->y, 0.01); /* the aggregation row */
	CU_ASSERT_PTR_NOT_NULL(strstr(l.summary, "4 cables and 1 node missing"));
	draw_assert_clean(&l);
	draw_fini(&l, &f);
	fabric_fini(&ref);
}

/* A 1,024-host tree stays within the width bound and clean; the same
 * fabric gives the same SVG bytes. */
static void test_draw_big_and_deterministic(void)
{
	struct fabric f;
	struct draw_layout l, l2;
	struct draw_opts o = {.title = "k16"};
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;

	draw_tree3(&f, 16); /* 64 cores, 128 aggs, 128 leaves, 1024 hosts */
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l) == 0);
	CU_ASSERT(l.width <= DRAW_MAX_WIDTH);
	CU_ASSERT(l.height < l.width); /* a picture, not a strip either way */
	CU_ASSERT(l.height > l.width / 8);
	draw_assert_clean(&l);
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l2) == 0);
	CU_ASSERT_EQUAL(draw_svg(&l, &a, &na), 0);
	CU_ASSERT_EQUAL(draw_svg(&l2, &b, &nb), 0);
	CU_ASSERT_FATAL(a && b);
	CU_ASSERT(na == nb && !memcmp(a, b, na));
	CU_ASSERT_PTR_NOT_NULL(strstr(a, "1024 hosts"));
	free(a);
	free(b);
	draw_layout_fini(&l2);
	o.max_width = 1200;
	draw_layout_fini(&l);
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l) == 0);
	CU_ASSERT(l.width <= 1200);
	draw_assert_clean(&l);
	draw_fini(&l, &f);
}

static void test_draw_find_switch(void)
{
	struct fabric f;
	uint64_t g = 0;
	char err[200] = "", num[32];

	draw_tree3(&f, 4);
	CU_ASSERT_EQUAL(draw_find_switch(&f, "pod01-leaf2", &g, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(g, f.nodes[route_test_node(&f, "pod01-leaf2")].guid);
	snprintf(num, sizeof(num), "0x%llx", (unsigned long long)f.nodes[0].guid);
	CU_ASSERT_EQUAL(draw_find_switch(&f, num, &g, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(g, f.nodes[0].guid);
	CU_ASSERT(draw_find_switch(&f, "host0001", &g, err, sizeof(err)) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no switch named 'host0001'"));
	fabric_fini(&f);
}

/* `nanosmctl health`'s text read back; the cables it names coloured. */
static void test_draw_health(void)
{
	static const char text[] =
	    "monitor: on, interval 2 s, passes 2, ports 12; thresholds ...\n"
	    "cable a 0x0001000000000010/1 <-> sw1 0x0002000000000001/1: flapping\n"
	    "  a 0x0001000000000010/1: LinkDownedCounter +3 (1.5/s) (health flapping)\n"
	    "  sw1 0x0002000000000001/1: no errors (health ok)\n"
	    "cable sw 1 0x0002000000000001/5 <-> sw2 0x0002000000000002/5: degrading\n"
	    "  sw 1 0x0002000000000001/5: SymbolErrorCounter +500 (245.3/s) (health degrading)\n"
	    "cable nonsense\n";
	struct draw_health_cable *h = NULL;
	struct draw_layout l;
	struct draw_opts o = {0};
	struct fabric f;
	size_t n = 0, coloured = 0;
	char *svg = NULL;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(draw_health_parse(text, strlen(text), &h, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(h[0].guid_a, 0x0001000000000010ULL);
	CU_ASSERT_EQUAL(h[0].port_b, 1);
	CU_ASSERT_EQUAL(h[0].health, DRAW_HEALTH_FLAPPING);
	CU_ASSERT_PTR_NOT_NULL(strstr(h[0].detail, "LinkDownedCounter +3"));
	CU_ASSERT_EQUAL(h[1].guid_b, 0x0002000000000002ULL);
	CU_ASSERT_EQUAL(h[1].health, DRAW_HEALTH_DEGRADING);
	/* two switches (ports 5 and 6 cabled), a host on each */
	fabric_init(&f);
	for (int i = 0; i < 2; i++)
		draw_name(&f, route_test_add_sw(&f, 8), "sw%d", i + 1, 0);
	CU_ASSERT_EQUAL(fabric_link(&f, 0, 5, 1, 5), 0);
	CU_ASSERT_EQUAL(fabric_link(&f, 0, 6, 1, 6), 0);
	draw_name(&f, route_test_add_host(&f, 0, 1), "a", 0, 0);
	draw_name(&f, route_test_add_host(&f, 1, 1), "b", 0, 0);
	CU_ASSERT_EQUAL_FATAL(f.nodes[2].guid, 0x0001000000000030ULL);
	h[0].guid_a = f.nodes[2].guid; /* host a as the fabric numbers it */
	o.health = h;
	o.n_health = n;
	CU_ASSERT_FATAL(draw_lay(&f, &o, &l) == 0);
	CU_ASSERT_EQUAL(l.n_unhealthy, 2);
	for (size_t i = 0; i < l.n_edges; i++) {
		coloured += l.edges[i].health != DRAW_HEALTH_NONE;
		if (l.edges[i].live == 2) /* the bundle: its port 5 is degrading */
			CU_ASSERT_EQUAL(l.edges[i].health, DRAW_HEALTH_DEGRADING);
	}
	CU_ASSERT_EQUAL(coloured, 2);
	CU_ASSERT_EQUAL(draw_svg(&l, &svg, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(svg && strstr(svg, "class=\"c hf\""));
	CU_ASSERT_PTR_NOT_NULL(svg && strstr(svg, "sw1/5 - sw2/5: degrading: "));
	free(svg);
	free(h);
	draw_fini(&l, &f);
}

void test_draw_register(void)
{
	CU_pSuite s = CU_add_suite("draw", NULL, NULL);

	CU_add_test(s, "fat tree: cores, aggregation, leaves; hosts folded", test_draw_tree_rows);
	CU_add_test(s, "hosts of one switch, of all", test_draw_expand);
	CU_add_test(s, "ring: rows by distance from the center", test_draw_mesh_rows);
	CU_add_test(s, "parallel cables: one line and a count; missing",
		    test_draw_bundle_and_missing);
	CU_add_test(s, "a switch only the reference has", test_draw_missing_switch);
	CU_add_test(s, "1,024 hosts: bounded, clean, deterministic",
		    test_draw_big_and_deterministic);
	CU_add_test(s, "switches by name or GUID", test_draw_find_switch);
	CU_add_test(s, "cables coloured by their health", test_draw_health);
}
