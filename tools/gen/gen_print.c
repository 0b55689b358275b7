/*
 * tools/gen/gen_print.c - nanosm-gen's output: the nodes' names (host<N>,
 * pod<P>-leaf<N>, sw-x<X>-y<Y>, ...), the counts of what is left after the
 * cuts, and the ibsim / ibnetdiscover "net" file: a header, every CA first
 * (host1 is ibsim's default attach point), then every switch, each port
 * line from both link ends.  Changes nothing in the fabric but its names.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/gen/gen.h"

static unsigned gen_digits(size_t v)
{
	unsigned d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* A 3-D grid switch: sw-x<X>-y<Y>-z<Z>, from its group (x) and idx. */
static void gen_name_grid3(const struct gen *g, char *s, const struct gen_node *n, uint32_t max_x,
			   uint32_t max_idx)
{
	unsigned z = g->grid_z, max_y = (max_idx - 1) / z + 1;

	snprintf(s, GEN_NAME_LEN, "sw-x%0*u-y%0*u-z%0*u", (int)gen_digits(max_x), n->group,
		 (int)gen_digits(max_y), (n->idx - 1) / z + 1, (int)gen_digits(z),
		 (n->idx - 1) % z + 1);
}

/* Names: host<N>, leaf<N> / spine<N> (2 levels), pod<P>-leaf<N> /
 * pod<P>-agg<N> / core<N> (3 levels), sw<N>, sw-x<X>-y<Y>[-z<Z>]; numbers
 * are 1-based and zero-padded to the widest in their role. */
void gen_print_names(struct gen *g)
{
	static const char *const fmt[GEN_ROLES] = {"host%0*u", "leaf%0*u", "spine%0*u", "agg%0*u",
						   "core%0*u", "sw%0*u",   "y%0*u"};
	uint32_t max_idx[GEN_ROLES] = {0}, max_group = 0;

	for (size_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].idx > max_idx[g->nodes[i].role])
			max_idx[g->nodes[i].role] = g->nodes[i].idx;
		if (g->nodes[i].group > max_group)
			max_group = g->nodes[i].group;
	}
	g->names = malloc(g->n_nodes * sizeof(*g->names));
	if (!g->names)
		gen_die("out of memory");
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gen_node *n = &g->nodes[i];
		char *s = g->names[i];
		int w = (int)gen_digits(max_idx[n->role]), off = 0;

		if (n->role == GEN_TORUS && g->grid_z) {
			gen_name_grid3(g, s, n, max_group, max_idx[GEN_TORUS]);
			continue;
		}
		if (n->role == GEN_TORUS)
			off = snprintf(s, GEN_NAME_LEN, "sw-x%0*u-", (int)gen_digits(max_group),
				       n->group);
		else if (n->group)
			off = snprintf(s, GEN_NAME_LEN, "pod%0*u-", (int)gen_digits(max_group),
				       n->group);
		snprintf(s + off, GEN_NAME_LEN - off, fmt[n->role], w, n->idx);
	}
}

struct gen_counts gen_print_counts(struct gen *g)
{
	struct gen_counts c = {0};

	for (uint32_t i = 0; i < g->n_nodes; i++) {
		int is_sw = g->nodes[i].role != GEN_HOST;

		if (g->nodes[i].gone)
			continue;
		c.switches += is_sw;
		c.cas += !is_sw;
		for (unsigned p = 1; p <= g->nodes[i].nports; p++) {
			struct gen_port *r = gen_port_at(g, i, p);

			if (r->node == GEN_NONE)
				continue;
			if (!is_sw) {
				c.ca_links++;
				c.lids++;
			} else if (g->nodes[r->node].role != GEN_HOST) {
				c.sw_links++; /* counted from both ends */
			}
		}
	}
	c.sw_links /= 2;
	c.lids += c.switches;
	return c;
}

static void gen_print_node(FILE *out, struct gen *g, uint32_t i)
{
	const struct gen_node *n = &g->nodes[i];
	int is_sw = n->role != GEN_HOST;

	fprintf(out, "vendid=0x%x\ndevid=0x%x\n%s=0x%016" PRIx64 "\n%s\t%u \"%s\"\n", GEN_VENDOR_ID,
		is_sw ? GEN_SW_DEVICE_ID : GEN_CA_DEVICE_ID, is_sw ? "switchguid" : "caguid",
		n->guid, is_sw ? "Switch" : "Hca", n->nports, g->names[i]);
	for (unsigned p = 1; p <= n->nports; p++) {
		const struct gen_port *r = gen_port_at(g, i, p);

		if (r->node != GEN_NONE)
			fprintf(out, "[%u]\t\"%s\"[%u]\n", p, g->names[r->node], r->port);
	}
	fputc('\n', out);
}

/* "# removed switches (N, with their cables[ and H hosts]): name ..." */
static void gen_print_removed(FILE *out, struct gen *g, const struct gen_args *a)
{
	size_t hosts = 0;

	if (!g->n_removed)
		return;
	for (uint32_t i = 0; i < g->n_nodes; i++)
		hosts += g->nodes[i].role == GEN_HOST && g->nodes[i].gone;
	fprintf(out, "# removed switches (%zu, with their cables", g->n_removed);
	if (a->lose_hosts)
		fprintf(out, " and %zu hosts", hosts);
	fputs("):", out);
	for (size_t i = 0; i < g->n_removed; i++)
		fprintf(out, " %s", g->names[g->removed_idx[i]]);
	fputc('\n', out);
}

void gen_print(FILE *out, struct gen *g, const struct gen_args *a, const struct gen_counts *c)
{
	static char buf[1 << 20];

	setvbuf(out, buf, _IOFBF, sizeof(buf));
	fprintf(out,
		"# %s\n# %zu switches, %zu CAs, %zu switch-switch links, %zu LIDs needed\n"
		"# %s%s\n",
		a->cmdline, c->switches, c->cas, c->sw_links, c->lids, g->shape,
		a->missing ? "; random switch-switch cables removed" : "");
	gen_print_removed(out, g, a);
	fputc('\n', out);
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].role == GEN_HOST && !g->nodes[i].gone)
			gen_print_node(out, g, i);
	for (uint32_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].role != GEN_HOST && !g->nodes[i].gone)
			gen_print_node(out, g, i);
	if (fflush(out) != 0 || ferror(out))
		gen_die("%s: write failed: %s", a->out ? a->out : "stdout", strerror(errno));
}

/* ---------------------------------------------------------------- command line */
