/*
 * sm/daemon/opts.h - the daemon's settings: the YAML policy with command-line flags
 * on top.  Flags given on the command line stay in force across reloads.
 */
#ifndef NANOSM_SM_DAEMON_OPTS_H
#define NANOSM_SM_DAEMON_OPTS_H

#include "config/policy.h"
#include "sm/daemon/loop.h"

/* Which settings the command line fixed (they override the policy). */
enum opts_cli {
	OPTS_CLI_PORT = 1 << 0, /* -g / -d / -p */
	OPTS_CLI_INTERVAL = 1 << 1,
	OPTS_CLI_GUID2LID = 1 << 2,
	OPTS_CLI_ENGINE = 1 << 3,
	OPTS_CLI_ROOTS = 1 << 4,
	OPTS_CLI_PRIORITY = 1 << 5,
	OPTS_CLI_WINDOW = 1 << 6,
	OPTS_CLI_TIMEOUT = 1 << 7,
	OPTS_CLI_RETRIES = 1 << 8,
	OPTS_CLI_VERBOSE = 1 << 9,
};

/* Copy p's settings into o, except those in o->cli_set.  o keeps pointers
 * into p (roots, guid2lid, ca), so p must outlive o's use of them; the
 * engine list is copied into o->engines. */
void opts_apply_policy(struct loop_opts *o, const struct policy *p);
struct sa_limits;
/* The SA limits of p's sa: section (p NULL: the defaults). */
void opts_sa_limits(const struct policy *p, struct sa_limits *out);

#endif
