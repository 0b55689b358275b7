/*
 * sm/core/topo_diff.h - what changed between two models of the subnet: nodes that
 * came or went, cables that came or went.  Pure: the caller says what to
 * do with each change (the SM logs them after a sweep).
 */
#ifndef NANOSM_SM_CORE_TOPO_DIFF_H
#define NANOSM_SM_CORE_TOPO_DIFF_H

#include <stddef.h>

#include "routing/fabric.h"

enum topo_change { TOPO_NODE_NEW, TOPO_NODE_GONE, TOPO_LINK_UP, TOPO_LINK_DOWN };

struct topo_diff_counts {
	size_t nodes_new, nodes_gone, links_up, links_down;
};

/* Call fn for every change from `was` to `now` (node: a = the node, b =
 * NULL; link: a/pa - b/pb, each cable once), with the node as it is in the
 * model that has it.  Counts go to *c.  Stale nodes in either model count
 * as present. */
void topo_diff(const struct fabric *was, const struct fabric *now,
	       void (*fn)(void *arg, enum topo_change what, const struct fabric_node *a,
			  unsigned pa, const struct fabric_node *b, unsigned pb),
	       void *arg, struct topo_diff_counts *c);

#endif
