/*
 * tools/ping/ping_opts.h - nanosm-ping's command line, hosts file and run plan (pure:
 * strings in, structs out; the caller reads the files).
 *
 * DOC: Server:  nanosm-ping --server [--tcp-port N] [-g GUID | -d CA [-p PORT]] [-v]
 *      Client:  nanosm-ping [options] TARGET...   or   --all HOSTS_FILE
 * -d/--ca, -p/--port and -g/--guid choose the local InfiniBand port as they
 * do for nanosm and nanosm-verify (CA, its port number, port GUID); the
 * side channel's TCP port is --tcp-port on both ends.
 * A TARGET is HOST, HOST:PORT, [IPV6]:PORT, a bare IPv6 address, or a LID
 * (decimal or 0x hex; a word of digits is always a LID).  A LID alone has
 * no TCP address, so LID targets need a hosts file (--hosts FILE): every
 * host in it is asked for its LID (the server's HELLO), and the ones whose
 * LID was named are tested.  A hosts file lists one HOST[:PORT] per line;
 * '#' starts a comment.  Options take their value as "-n 10", "-n10",
 * "--iters 10" or "--iters=10"; sizes accept a k or m suffix (KiB, MiB);
 * the timeout is seconds ("1", "0.25") or milliseconds ("250ms").
 */
#ifndef NANOSM_TOOLS_PING_PING_OPTS_H
#define NANOSM_TOOLS_PING_PING_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "tools/ping/ping_proto.h"

#define PING_OPTS_ITERS 1000
#define PING_OPTS_ITERS_MAX 10000000
#define PING_OPTS_PING_SIZE 64
#define PING_OPTS_RC_BW_SIZE 65536
#define PING_OPTS_BW_COUNT 4096
#define PING_OPTS_BW_COUNT_MAX 10000000
#define PING_OPTS_TIMEOUT_MS 1000
#define PING_OPTS_TIMEOUT_MS_MAX 3600000
#define PING_OPTS_HOST_MAX 255
#define PING_OPTS_DEV_MAX 63

struct ping_target {
	char host[PING_OPTS_HOST_MAX + 1]; /* "" for a LID target */
	uint16_t port;			   /* TCP port of the side channel */
	uint16_t lid;			   /* a LID target: 1..0xBFFF; else 0 */
};

struct ping_opts {
	int server;
	int help, version;
	int verbose;
	uint16_t tcp_port;
	char dev[PING_OPTS_DEV_MAX + 1]; /* -d: "" = first InfiniBand port */
	unsigned ib_port;		 /* -p: 0 = first InfiniBand port of dev */
	uint64_t port_guid;		 /* -g: 0 = any */
	enum ping_mode mode;
	unsigned iters;
	uint32_t ping_size;
	int bw;
	uint32_t bw_size; /* 0 = default: RC 64 KiB, UD the path MTU */
	unsigned bw_count;
	unsigned timeout_ms;	     /* per ping */
	const char *all_file;	     /* borrowed from argv */
	const char *hosts_file;	     /* borrowed from argv */
	struct ping_target *targets; /* owned; ping_opts_fini frees */
	size_t n_targets;
};

/* One host to contact, in the order the verdicts are printed. */
struct ping_plan_item {
	struct ping_target target;
	int resolve_only; /* only asked for its LID: tested if a LID target names it */
};

/* Parse argv (argv[0] is the program).  Returns 0 or -EINVAL with err set;
 * -ENOMEM.  On success call ping_opts_fini; on failure nothing to free. */
int ping_opts_parse(struct ping_opts *o, int argc, char *const argv[], char *err, size_t errlen);
void ping_opts_fini(struct ping_opts *o);

/* One TARGET word.  Returns 0 or -EINVAL with err set. */
int ping_opts_parse_target(const char *s, uint16_t default_port, struct ping_target *t, char *err,
			   size_t errlen);

/* A hosts file's text (len bytes, need not be NUL-terminated), name used in
 * messages ("hosts.txt:3: ...").  *out is malloc'ed (caller frees).
 * Returns 0, -EINVAL with err set, -ENOMEM. */
int ping_opts_parse_hosts(const char *text, size_t len, const char *name, uint16_t default_port,
			  struct ping_target **out, size_t *n, char *err, size_t errlen);

/* The hosts to contact: HOST targets in command-line order, then the hosts
 * file's (all of them with --all; with LID targets and --hosts, those not
 * already listed, resolve_only).  The same host:port is contacted once.
 * *items is malloc'ed (caller frees).  Returns 0 or -ENOMEM. */
int ping_opts_plan(const struct ping_opts *o, const struct ping_target *file, size_t n_file,
		   struct ping_plan_item **items, size_t *n);

/* Number of LID targets. */
size_t ping_opts_lid_targets(const struct ping_opts *o);

/* "host2", "host2:18600" (port shown when not the default), "[fe80::1]:18600"
 * or "lid 4", into buf. */
const char *ping_opts_target_name(const struct ping_target *t, uint16_t default_port, char *buf,
				  size_t cap);

#endif
