/*
 * sm/daemon/loop.h - the daemon's event loop (the only file that sees <ev.h>).
 */
#ifndef NANOSM_SM_DAEMON_LOOP_H
#define NANOSM_SM_DAEMON_LOOP_H

#include <stdint.h>

#include "sm/core/sm.h"

struct policy;

struct loop_opts {
	const char *ca;	       /* NULL = any */
	int port;	       /* 0 = first InfiniBand port */
	uint64_t port_guid;    /* 0 = by ca/port */
	int once;	       /* exit after the first successful sweep */
	int ibsim;	       /* ibsim's own protocol instead of libibumad (mad_port_open_ibsim) */
	const char *ibsim_node; /* NULL = SIM_HOST */
	double sweep_interval; /* seconds between heavy sweeps */
	int verbosity;	       /* enum log_level */
	struct sm_opts sm;
	/* the policy in force (static LIDs, reload); NULL = none */
	const struct policy *policy;
	const char *policy_path; /* re-read on SIGHUP; NULL = no file */
	unsigned cli_set;	 /* enum opts_cli: what the command line fixed */
	char engines[256];	 /* storage for sm.engine when it comes from the policy */
	const char *socket_path; /* control socket; NULL = the default */
	/* policy sm.topology: written at SUBNET UP (sm/daemon/topo_save.h) */
	const char *topology;
};

/* Run the SM until SIGTERM/SIGINT (or, with once, the first good sweep).
 * Returns the process exit status. */
int loop_run(struct loop_opts *opts);

#endif
