/*
 * loop.h - the daemon's event loop (the only file that sees <ev.h>).
 */
#ifndef NANOSM_SM_LOOP_H
#define NANOSM_SM_LOOP_H

#include <stdint.h>

#include "sm.h"

struct loop_opts {
	const char *ca;     /* NULL = any */
	int port;           /* 0 = first InfiniBand port */
	uint64_t port_guid; /* 0 = by ca/port */
	int once;           /* exit after the first successful sweep */
	double sweep_interval; /* seconds between heavy sweeps */
	struct sm_opts sm;
};

/* Run the SM until SIGTERM/SIGINT (or, with once, the first good sweep).
 * Returns the process exit status. */
int loop_run(const struct loop_opts *opts);

#endif
