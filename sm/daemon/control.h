/*
 * sm/daemon/control.h - the control socket's server: nanosmctl's way into a
 * running nanosm (the protocol itself: sm/daemon/control_proto.h).
 *
 * control.c never sees the SM's internals nor the event loop: the daemon
 * hands it a struct control_ops (callbacks + ctx) and calls control_serve
 * when the listening fd is readable.  Every pointer an op returns is
 * borrowed for the duration of that one request.
 */
#ifndef NANOSM_SM_DAEMON_CONTROL_H
#define NANOSM_SM_DAEMON_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "mad/mad_queue.h"
#include "routing/fabric.h"
#include "routing/lid_alloc.h"
#include "routing/topo_write.h"
#include "sm/core/sm.h"
#include "sm/daemon/control_proto.h"
#include "sm/daemon/metrics.h"
#include "sm/sa/server.h"

#define CONTROL_PLAN_REFUSED 1 /* plan: a reload of it would be refused */

/* What "status" reports, filled by the daemon (all times from one
 * monotonic clock, in milliseconds). */
struct control_status {
	const char *state;    /* the SM state SMInfo answers, e.g. "MASTER" */
	uint64_t master_guid; /* STANDBY: the master's port GUID (0: none known) */
	uint16_t master_lid;  /* and its LID */
	int sweeping;	      /* 1 while a sweep runs */
	uint64_t port_guid;   /* the SM's own port */
	uint16_t sm_lid;
	uint64_t now_ms;		 /* now */
	uint64_t started_ms;		 /* when the daemon started */
	const char *engines;		 /* the configured engine list ("ftree,updn,minhop") */
	struct sm_sweep_stats last;	 /* the last sweep that ended; number 0: none yet */
	uint64_t last_end_ms;		 /* when it ended */
	struct sm_sweep_stats last_good; /* the last successful sweep; number 0: none */
	struct mad_counters mad;	 /* since start */
	uint64_t rx_dropped;		 /* MADs the receive ring had no room for */
	struct sm_light_stats light;	 /* light sweeps and traps since start */
	struct sa_counters sa;		 /* SA queries since start */
	size_t mcast_groups;		 /* multicast groups the SA holds */
	struct sa_usage sa_use;		 /* the SA's limits and who holds the most */
	uint64_t tx_dropped;		 /* MADs the send queue had no room for */
	uint64_t tx_failed;		 /* MADs the sender thread could not send */
	const struct quar *quar;	 /* what keeps failing (borrowed; NULL: none) */
};

struct perf_table;
struct perfmgr_stats;
struct perfmgr_opts;

/* The performance manager's port table, figures and settings (borrowed
 * for the request; never NULL when the op is there). */
struct control_perf {
	const struct perf_table *t;
	const struct perfmgr_stats *st;
	const struct perfmgr_opts *opts;
};

/* The daemon's side.  Any op may be NULL: its commands then answer
 * "error ... not available".  ctx is passed to every op. */
struct control_ops {
	void *ctx;
	void (*status)(void *ctx, struct control_status *out);
	/* Ask for a heavy sweep (coalesced with one that runs).  0 or -errno. */
	int (*sweep)(void *ctx);
	/* Re-read the configuration (force: even a file with no settings over
	 * a running policy that has some).  0 with msg set to the answer (may
	 * be "", may be several lines), or -errno with msg set to the error. */
	int (*reload)(void *ctx, int force, char *msg, size_t msglen);
	/* What applying the configuration text (len bytes, not NUL-terminated;
	 * name names it in messages, "name:line:col: ...") would change: 0
	 * with *out malloc'ed (NUL-terminated, caller frees);
	 * CONTROL_PLAN_REFUSED with *out the plan and err why a reload would
	 * be refused; or -errno with err set.  verbose (plan -v): every
	 * switch whose table would change, not only the first ones. */
	int (*plan)(void *ctx, const char *name, const char *text, size_t len, int verbose,
		    char **out, char *err, size_t errlen);
	/* The last good fabric model (LIDs assigned). */
	const struct fabric *(*fabric)(void *ctx);
	/* The LFTs committed with that model (node indices of fabric()), or
	 * NULL when there are none yet.  A running sweep does not change them
	 * until it commits its own model and tables together. */
	const struct lft_set *(*lfts)(void *ctx);
	/* The LID map (port GUID -> LID, reservations included). */
	const struct lid_alloc *(*lids)(void *ctx);
	/* Node GUID -> name map for output and for naming nodes in "routes";
	 * NULL = descriptions only. */
	const struct topo_names *(*names)(void *ctx);
	/* The figures "metrics" renders (sm/daemon/metrics.h); pointers in it are
	 * borrowed for the request. */
	void (*metrics)(void *ctx, struct metrics_figures *out);
	/* The performance manager (health, the status health line). */
	void (*perf)(void *ctx, struct control_perf *out);
};

/* Create the listening socket at path: the parent directory is created
 * (0755) when missing, a stale socket file is replaced, a live one (another
 * daemon answers on it) or a file that is not a socket is an error.
 * Returns the nonblocking, close-on-exec fd, or -errno with err set
 * ("control socket /run/nanosm/nanosm.sock: ..."). */
int control_listen(const char *path, char *err, size_t errlen);

/* Accept one pending client on lfd (returns at once if none), read its
 * request line, answer it through ops, close it.  Bounded: the read by
 * CONTROL_READ_TIMEOUT_MS, the reply by CONTROL_STALL_TIMEOUT_MS without
 * progress and CONTROL_WRITE_TIMEOUT_MS in all.  Logs what went wrong. */
void control_serve(int lfd, const struct control_ops *ops);

/* Close lfd and remove the socket file. */
void control_close(int lfd, const char *path);

/* The protocol without the socket: the whole reply ("ok\n<body>" or
 * "error <message>\n<body>") to one request (len bytes: its line, and
 * after the line's newline the body a "plan" announces).  *reply is
 * malloc'ed and NUL-terminated, *reply_len its length.  Returns 0, or
 * -ENOMEM (no reply could be built). */
int control_handle(const struct control_ops *ops, const char *request, size_t len, char **reply,
		   size_t *reply_len);

#endif
