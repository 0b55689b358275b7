/*
 * tools/ping/nping_server.h - the server driver (nping_server.c).
 */
#ifndef NANOSM_TOOLS_PING_NPING_SERVER_H
#define NANOSM_TOOLS_PING_NPING_SERVER_H

#include "tools/ping/nping_dev.h"
#include "tools/ping/ping_opts.h"

/* Serve side-channel sessions on port d, one at a time, until nping_stop;
 * returns NPING_EXIT_OK, or NPING_EXIT_SETUP when it cannot listen. */
int nping_server_run(struct nping_dev *d, const struct ping_opts *o);

#endif
