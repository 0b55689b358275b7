/*
 * sm/core/topo_diff.c - nodes and cables that came or went (see topo_diff.h).
 */
#include <string.h>

#include "sm/core/topo_diff.h"

/* Is node a's port p, in f, cabled to the node with GUID guid, port q? */
static int topo_has_link(const struct fabric *f, uint64_t a, unsigned p, uint64_t guid, unsigned q)
{
	int i = fabric_find(f, a);
	const struct fabric_port *fp;

	if (i == FABRIC_NONE || p > f->nodes[i].num_ports)
		return 0;
	fp = &f->nodes[i].ports[p];
	return fp->remote_node != FABRIC_NONE && f->nodes[fp->remote_node].guid == guid &&
	       fp->remote_port == q;
}

/* Every cable of `from` missing in `other`: reported as what. */
static void topo_links(const struct fabric *from, const struct fabric *other, enum topo_change what,
		       void (*fn)(void *, enum topo_change, const struct fabric_node *, unsigned,
				  const struct fabric_node *, unsigned),
		       void *arg, size_t *count)
{
	for (size_t i = 0; i < from->n_nodes; i++) {
		const struct fabric_node *n = &from->nodes[i];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			const struct fabric_port *fp = &n->ports[p];
			const struct fabric_node *r;

			if (fp->remote_node == FABRIC_NONE)
				continue;
			r = &from->nodes[fp->remote_node];
			/* each cable once: from its lower (GUID, port) end */
			if (r->guid < n->guid || (r->guid == n->guid && fp->remote_port < p))
				continue;
			if (topo_has_link(other, n->guid, p, r->guid, fp->remote_port))
				continue;
			(*count)++;
			if (fn)
				fn(arg, what, n, p, r, fp->remote_port);
		}
	}
}

void topo_diff(const struct fabric *was, const struct fabric *now,
	       void (*fn)(void *arg, enum topo_change what, const struct fabric_node *a,
			  unsigned pa, const struct fabric_node *b, unsigned pb),
	       void *arg, struct topo_diff_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < now->n_nodes; i++)
		if (fabric_find(was, now->nodes[i].guid) == FABRIC_NONE) {
			c->nodes_new++;
			if (fn)
				fn(arg, TOPO_NODE_NEW, &now->nodes[i], 0, NULL, 0);
		}
	for (size_t i = 0; i < was->n_nodes; i++)
		if (fabric_find(now, was->nodes[i].guid) == FABRIC_NONE) {
			c->nodes_gone++;
			if (fn)
				fn(arg, TOPO_NODE_GONE, &was->nodes[i], 0, NULL, 0);
		}
	topo_links(now, was, TOPO_LINK_UP, fn, arg, &c->links_up);
	topo_links(was, now, TOPO_LINK_DOWN, fn, arg, &c->links_down);
}
