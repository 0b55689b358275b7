/*
 * tools/gen/gen.c - nanosm-gen's fabric in memory: dying with a message,
 * growing arrays, the seeded PRNG, and the graph primitives (add a node, a
 * host, cable two ports, uncable one).  Knows no shape and prints nothing
 * but gen_die's message.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/gen/gen.h"

void gen_die(const char *fmt, ...)
{
	va_list ap;

	fputs("nanosm-gen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void *gen_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;

	if (need <= *cap)
		return p;
	while (ncap < need)
		ncap *= 2;
	p = realloc(p, ncap * elem);
	if (!p)
		gen_die("out of memory");
	*cap = ncap;
	return p;
}

/* splitmix64: a small deterministic PRNG, the same on every platform. */
uint64_t gen_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t gen_rand_below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(gen_rand(state) % n);
}

void gen_shuffle(uint32_t *v, size_t n, uint64_t *state)
{
	for (size_t i = n; i > 1; i--) {
		uint32_t j = gen_rand_below(state, (uint32_t)i);
		uint32_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* ---------------------------------------------------------------- graph */

struct gen_port *gen_port_at(struct gen *g, uint32_t node, unsigned port)
{
	return &g->ports[g->nodes[node].port0 + port];
}

uint32_t gen_add_node(struct gen *g, enum gen_role role, unsigned nports, uint32_t group,
		      uint32_t idx)
{
	struct gen_node *n;

	if (nports < 1 || nports > GEN_MAX_PORTS)
		gen_die("a node needs 1..%d ports, not %u", GEN_MAX_PORTS, nports);
	g->nodes = gen_grow(g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(*g->nodes));
	g->ports = gen_grow(g->ports, &g->cap_ports, g->n_ports + nports + 1, sizeof(*g->ports));
	n = &g->nodes[g->n_nodes];
	n->role = (uint8_t)role;
	n->nports = (uint8_t)nports;
	n->gone = 0;
	n->group = group;
	n->idx = idx;
	n->port0 = (uint32_t)g->n_ports;
	for (unsigned p = 0; p <= nports; p++)
		g->ports[g->n_ports + p] = (struct gen_port){GEN_NONE, 0};
	g->n_ports += nports + 1;
	if (role == GEN_HOST) {
		g->n_hosts++;
		n->guid = GEN_CA_GUID_BASE + ((uint64_t)idx << 4);
	} else {
		n->guid = GEN_SW_GUID_BASE | (uint64_t)role << 28 | (uint64_t)group << 16 | idx;
	}
	return (uint32_t)g->n_nodes++;
}

void gen_link(struct gen *g, uint32_t a, unsigned pa, uint32_t b, unsigned pb)
{
	struct gen_port *x, *y;

	if (pa < 1 || pa > g->nodes[a].nports || pb < 1 || pb > g->nodes[b].nports)
		gen_die("internal: port out of range linking node %u/%u to %u/%u", a, pa, b, pb);
	x = gen_port_at(g, a, pa);
	y = gen_port_at(g, b, pb);
	if (x->node != GEN_NONE || y->node != GEN_NONE)
		gen_die("internal: port cabled twice (node %u/%u, node %u/%u)", a, pa, b, pb);
	*x = (struct gen_port){b, (uint8_t)pb};
	*y = (struct gen_port){a, (uint8_t)pa};
}

void gen_unlink(struct gen *g, uint32_t a, unsigned pa)
{
	struct gen_port *x = gen_port_at(g, a, pa);

	*gen_port_at(g, x->node, x->port) = (struct gen_port){GEN_NONE, 0};
	*x = (struct gen_port){GEN_NONE, 0};
}

/* The first free port in [lo, hi] of a node, or 0. */
unsigned gen_free_port(struct gen *g, uint32_t node, unsigned lo, unsigned hi)
{
	for (unsigned p = lo; p <= hi; p++)
		if (gen_port_at(g, node, p)->node == GEN_NONE)
			return p;
	return 0;
}

/* A host with ca_ports ports, port 1 cabled to sw/port. */
void gen_add_host(struct gen *g, unsigned ca_ports, uint32_t sw, unsigned port)
{
	uint32_t h = gen_add_node(g, GEN_HOST, ca_ports, 0, (uint32_t)g->n_hosts + 1);

	gen_link(g, h, 1, sw, port);
}
