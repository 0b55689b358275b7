/*
 * route_test.c - helpers shared by the routing unit tests; see route_test.h.
 * Reads and builds plain fabrics and LFT sets only: no engine internals.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/topo_file.h"
#include "tests/unit/route_test.h"

int route_test_add_sw(struct fabric *f, unsigned ports)
{
	return fabric_add_node(f, 0x0002000000000000ULL + f->n_nodes + 1, 2, (uint8_t)ports);
}

int route_test_add_ca(struct fabric *f, unsigned ports)
{
	int n =
	    fabric_add_node(f, 0x0001000000000000ULL + (f->n_nodes + 1) * 0x10, 1, (uint8_t)ports);

	for (unsigned p = 1; p <= ports; p++)
		f->nodes[n].ports[p].guid = f->nodes[n].guid + p;
	return n;
}

int route_test_add_host(struct fabric *f, int sw, unsigned p)
{
	int h = route_test_add_ca(f, 1);

	CU_ASSERT_EQUAL(fabric_link(f, h, 1, sw, (uint8_t)p), 0);
	return h;
}

uint16_t route_test_assign_lids(struct fabric *f, unsigned flags)
{
	uint16_t lid = 0;

	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fabric_node *n = &f->nodes[i];

		if (fabric_is_switch(n)) {
			if (flags & ROUTE_TEST_SWITCH_GUID)
				n->ports[0].guid = n->guid;
			n->ports[0].lid = ++lid;
			continue;
		}
		for (unsigned p = 1; p <= n->num_ports; p++) {
			int cabled = n->ports[p].remote_node != FABRIC_NONE;

			if (flags & ROUTE_TEST_MARK_PRESENT)
				n->ports[p].present = cabled;
			if (cabled)
				n->ports[p].lid = ++lid;
		}
	}
	return lid;
}

void route_test_parse(const char *text, struct fabric *f)
{
	char err[256];

	fabric_init(f);
	CU_ASSERT_EQUAL_FATAL(topo_parse(text, strlen(text), "t.topo", f, err, sizeof(err)), 0);
}

int route_test_find_node(const struct fabric *f, const char *desc)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		if (!strcmp(f->nodes[i].desc, desc))
			return (int)i;
	return -1;
}

int route_test_node(const struct fabric *f, const char *desc)
{
	int n = route_test_find_node(f, desc);

	if (n < 0)
		CU_FAIL_FATAL("no such node");
	return n;
}

int route_test_run(const struct route_engine *eng, const struct fabric *f, uint16_t max_lid,
		   const uint64_t *roots, size_t n_roots, struct lft_set *out,
		   struct route_note *note)
{
	struct route_opts opts = {.max_lid = max_lid, .roots = roots, .n_roots = n_roots};
	char err[256] = "";
	int rc;

	lft_set_init(out);
	rc = eng->compute(f, &opts, out, note, err, sizeof(err));
	if (rc)
		fprintf(stderr, "\n  %s: %s\n", eng->name, err);
	return rc;
}

uint8_t route_test_out_port(const struct lft_set *s, int sw, uint16_t lid)
{
	const struct lft *t = lft_set_find_const(s, sw);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	return lid <= t->top ? t->port[lid] : LFT_DROP;
}

int route_test_follow(const struct fabric *f, const struct lft_set *s, int sw, uint16_t dlid,
		      int max_hops, int *path, uint8_t *out)
{
	for (int hops = 0; hops < max_hops; hops++) {
		const struct fabric_node *n = &f->nodes[sw];
		const struct lft *t = lft_set_find_const(s, sw);
		uint8_t p = t && dlid <= t->top ? t->port[dlid] : LFT_DROP;
		int r;

		if (path)
			path[hops] = sw;
		if (out)
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

unsigned route_test_lids_on_port(const struct lft_set *s, int sw, uint8_t p)
{
	const struct lft *t = lft_set_find_const(s, sw);
	unsigned n = 0;

	for (unsigned lid = 1; lid <= t->top; lid++)
		n += t->port[lid] == p;
	return n;
}

unsigned route_test_spread(const struct lft_set *s, int sw, uint8_t first, uint8_t last)
{
	unsigned lo = ~0u, hi = 0;

	for (unsigned p = first; p <= last; p++) {
		unsigned c = route_test_lids_on_port(s, sw, (uint8_t)p);

		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	return hi - lo;
}

/* Does switch sw send lid out of port p?  See route_test_host_spread. */
static int route_test_sends(const struct lft_set *s, int sw, uint16_t lid, unsigned p, int checked)
{
	const struct lft *t;

	if (checked)
		return route_test_out_port(s, sw, lid) == p;
	t = lft_set_find_const(s, sw);
	return lid <= t->top && t->port[lid] == p;
}

unsigned route_test_host_spread(const struct fabric *f, const struct lft_set *s, int sw,
				uint8_t first, uint8_t last, int checked)
{
	unsigned lo = ~0u, hi = 0;

	for (unsigned p = first; p <= last; p++) {
		unsigned c = 0;

		for (size_t i = 0; i < f->n_nodes; i++) {
			const struct fabric_node *n = &f->nodes[i];

			for (unsigned q = 1; !fabric_is_switch(n) && q <= n->num_ports; q++)
				c += n->ports[q].lid &&
				     route_test_sends(s, sw, n->ports[q].lid, p, checked);
		}
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	return hi - lo;
}

int *route_test_switch_distances(const struct fabric *f, int no_path)
{
	size_t n = f->n_nodes;
	int *d = malloc(n * n * sizeof(*d));

	for (size_t i = 0; i < n * n; i++)
		d[i] = i / n == i % n ? 0 : no_path;
	for (size_t i = 0; i < n; i++) {
		const struct fabric_node *a = &f->nodes[i];

		for (unsigned p = 1; fabric_is_switch(a) && p <= a->num_ports; p++) {
			int r = a->ports[p].remote_node;

			if (r != FABRIC_NONE && r != (int)i && fabric_is_switch(&f->nodes[r]))
				d[i * n + (size_t)r] = 1;
		}
	}
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++)
				if (d[i * n + k] + d[k * n + j] < d[i * n + j])
					d[i * n + j] = d[i * n + k] + d[k * n + j];
	return d;
}

int route_test_attach_switch(const struct fabric *f, int node, unsigned port)
{
	const struct fabric_port *p = &f->nodes[node].ports[port];

	if (fabric_is_switch(&f->nodes[node]))
		return node;
	if (p->remote_node == FABRIC_NONE || !fabric_is_switch(&f->nodes[p->remote_node]))
		return FABRIC_NONE;
	return p->remote_node;
}

/* A w x h 2D torus (wrap-around both ways), one host per switch on port
 * 1; switch (x, y) ports 2/3 go to x+1/x-1, ports 4/5 to y+1/y-1. */
void route_test_torus(struct fabric *f, int w, int h)
{
	fabric_init(f);
	for (int i = 0; i < w * h; i++)
		route_test_add_sw(f, 8);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int me = y * w + x;

			fabric_link(f, me, 2, y * w + (x + 1) % w, 3);
			fabric_link(f, me, 4, ((y + 1) % h) * w + x, 5);
		}
	for (int i = 0; i < w * h; i++)
		route_test_add_host(f, i, 1);
}

uint32_t route_test_lcg(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 16;
}

/* n switches: a random spanning tree plus extra random cables (fixed
 * seed), a host on every other switch (ports 1..3 hosts, 4..16 cables). */
void route_test_mesh(struct fabric *f, int n, int extra, uint32_t seed)
{
	unsigned next_port[512];

	fabric_init(f);
	for (int i = 0; i < n; i++) {
		route_test_add_sw(f, 16);
		next_port[i] = 4;
	}
	for (int i = 1; i < n + extra; i++) {
		int a = i < n ? i : (int)(route_test_lcg(&seed) % (uint32_t)n);
		int b = i < n ? (int)(route_test_lcg(&seed) % (uint32_t)i)
			      : (int)(route_test_lcg(&seed) % (uint32_t)n);

		if (a == b || next_port[a] > 16 || next_port[b] > 16)
			continue;
		fabric_link(f, a, (uint8_t)next_port[a]++, b, (uint8_t)next_port[b]++);
	}
	for (int i = 0; i < n; i += 2)
		route_test_add_host(f, i, 1);
}
