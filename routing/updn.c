/*
 * updn.c - PLACEHOLDER while the engine is being written: refuses to route.
 */
#include <errno.h>
#include <stdio.h>

#include "routing/route.h"

static int updn_compute(const struct fabric *f, const struct route_opts *opts, struct lft_set *out,
			struct route_err *err)
{
	(void)f;
	(void)opts;
	(void)out;
	snprintf(err->msg, sizeof(err->msg), "updn: not implemented yet");
	return -ENOSYS;
}

const struct route_engine route_engine_updn = {
	.name = "updn",
	.summary = "not implemented yet",
	.compute = updn_compute,
};
