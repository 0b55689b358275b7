/*
 * tools/ping/nping_client.h - the client driver (nping_client.c).
 */
#ifndef NANOSM_TOOLS_PING_NPING_CLIENT_H
#define NANOSM_TOOLS_PING_NPING_CLIENT_H

#include <stddef.h>

#include "tools/ping/nping_dev.h"
#include "tools/ping/ping_opts.h"

/* Every path of plan (n) from port d, a verdict line each and the summary
 * on stdout; returns NPING_EXIT_OK, _FAIL or _SETUP. */
int nping_client_run(struct nping_dev *d, const struct ping_opts *o,
		     const struct ping_plan_item *plan, size_t n);

#endif
