/*
 * route.c - the table of routing engines and lookup by name, and the
 * checks every engine makes alike.  Knows the engines only through their
 * struct route_engine; computes no route itself.
 */
#include <errno.h>
#include <stddef.h>
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
