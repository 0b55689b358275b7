/*
 * route.c - the table of routing engines and lookup by name, the checks
 * every engine makes alike, and when an engine list passes one over.
 * Knows the engines only through their struct route_engine; computes no
 * route itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mad/text.h"
#include "routing/route.h"

static const struct route_engine *const route_table[] = {
    &route_engine_minhop, &route_engine_updn, &route_engine_ftree, &route_engine_vlsp, NULL,
};

const struct route_engine *const *route_engines(void)
{
	return route_table;
}

const struct route_engine *route_engine_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; route_table[i]; i++)
		if (!strcmp(route_table[i]->name, name))
			return route_table[i];
	return NULL;
}

int route_opts_check(const struct route_opts *opts, char *err, size_t errlen)
{
	if (opts->max_lid > LID_UNICAST_MAX)
		return text_err(err, errlen, -EINVAL, "max_lid %u above the unicast range (0x%x)",
				opts->max_lid, LID_UNICAST_MAX);
	return 0;
}

int route_engine_skip(const struct route_engine *eng, const struct fabric *f, char *why,
		      size_t whylen)
{
	int node;
	unsigned port, vls;
	const struct fabric_node *n;

	if (!eng->list_min_vls)
		return 0;
	vls = fabric_min_data_vls(f, &node, &port);
	if (vls >= eng->list_min_vls || node == FABRIC_NONE)
		return 0;
	n = &f->nodes[node];
	snprintf(why, whylen,
		 "ports offer %u data VL%s (0x%016" PRIx64 "/%u: VLCap %u), %s wants %u", vls,
		 vls == 1 ? "" : "s", n->guid, port, n->ports[port].vl_cap, eng->name,
		 eng->list_min_vls);
	return 1;
}
