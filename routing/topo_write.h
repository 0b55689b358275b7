/*
 * topo_write.h - print a fabric as text: ibnetdiscover, JSON or Graphviz.
 *
 * DOC: The reverse of topo_file.h.  Three formats:
 *
 *  - TOPO_FORMAT_IBNETDISCOVER: what `ibnetdiscover` prints (switches
 *    first, then CAs, then routers; ids "S-<guid>", "H-<guid>", "R-<guid>";
 *    the description, LIDs, LMC and link width/speed in the `#` comments).
 *    It loads back into ibsim (`ibsim -s`) and into topo_parse describing
 *    the same fabric: nodes, GUIDs, port counts, links, descriptions and
 *    LIDs.  Only cabled ports are listed, as ibnetdiscover does.
 *  - TOPO_FORMAT_JSON: one object {"nodes": [...], "links": [...]}; keys
 *    are stable (docs/nanosmctl.md lists them).
 *  - TOPO_FORMAT_DOT: an undirected Graphviz graph; switches are boxes,
 *    CAs ellipses, routers hexagons; every cable is its own edge (parallel
 *    links stay visible), labelled with its port numbers.
 *
 * Nodes are printed in fabric order within each type, links from the end
 * that comes first in that order, so the same fabric gives the same text.
 * Pure: a const fabric in, a malloc'ed string out; no I/O, no clock.
 */
#ifndef NANOSM_ROUTING_TOPO_WRITE_H
#define NANOSM_ROUTING_TOPO_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "routing/fabric.h"

enum topo_format {
	TOPO_FORMAT_IBNETDISCOVER = 0,
	TOPO_FORMAT_JSON,
	TOPO_FORMAT_DOT,
};

/* One node GUID -> name pair (e.g. a policy's node_names). */
struct topo_name {
	uint64_t guid; /* NodeGUID */
	const char *name;
};

/* A GUID -> name map.  Borrowed by topo_write for the call only.  A named
 * node is printed with its name where the format shows a description
 * (ibnetdiscover's comments, as `ibnetdiscover --node-name-map` does; the
 * DOT labels); JSON gives both "desc" and "name". */
struct topo_names {
	const struct topo_name *v;
	size_t n;
};

/* "ibnetdiscover", "json" or "dot" -> format.  Returns 0 or -EINVAL. */
int topo_format_from_name(const char *name, enum topo_format *fmt);
const char *topo_format_name(enum topo_format fmt);

/* The name names gives the node with this GUID, or NULL.  Linear: for one
 * lookup; topo_write indexes the map itself. */
const char *topo_names_find(const struct topo_names *names, uint64_t guid);

/* Print f in format fmt.  names may be NULL.  *out is malloc'ed and
 * NUL-terminated (caller frees), *len its length.  Returns 0, -EINVAL (an
 * unknown format) or -ENOMEM. */
int topo_write(const struct fabric *f, enum topo_format fmt, const struct topo_names *names,
	       char **out, size_t *len);

#endif
