/*
 * tools/ping/ping_peer.h - the client's state machine for one path (pure: events in,
 * calls to an ops struct out; the caller passes the time in every event).
 *
 * DOC: One peer walks
 *
 *   IDLE -START-> CONNECTING -CONNECTED-> GREETING -HELLO-> EXCHANGING
 *     -INFO-> READY -> PINGING -(iters pongs)-> [BW -BW_DONE->] CLOSING
 *     -BYE-> DONE
 *
 * and ends in DONE, FAILED, or SKIPPED (a resolve-only host whose LID no
 * target named: it gets DONE and is not tested).  The machine never does
 * I/O: it asks its ops to connect, send a line, open and connect a QP, send
 * one ping or start a bandwidth stream, and the driver answers with events
 * (a line arrived, pong seq N arrived, the stream ended, a deadline passed,
 * something failed).  One ping is in flight at a time; a ping unanswered
 * within the timeout is lost.  No answer to the very first ping fails the
 * path ("no response (timeout 1s)"); later, PING_PEER_MAX_MISSES losses in a
 * row end it; any loss makes the verdict FAIL.  ops->close runs exactly
 * once, when the peer reaches DONE, FAILED or SKIPPED.
 *
 * The driver owns the clock: it delivers TIMEOUT once now >= deadline
 * (deadline 0: none).  Events for a finished peer are ignored.
 */
#ifndef NANOSM_TOOLS_PING_PING_PEER_H
#define NANOSM_TOOLS_PING_PING_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "tools/ping/ping_opts.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_report.h"

#define PING_PEER_CHAN_TIMEOUT_MS 10000 /* each side-channel step */
#define PING_PEER_BW_TIMEOUT_MS 60000	/* the whole bandwidth stream */
#define PING_PEER_MAX_MISSES 3

enum ping_peer_state {
	PING_PEER_IDLE,
	PING_PEER_CONNECTING, /* side channel being opened */
	PING_PEER_GREETING,   /* waiting for the server's HELLO */
	PING_PEER_EXCHANGING, /* our INFO sent, waiting for the server's */
	PING_PEER_READY,      /* our QP points at the server's */
	PING_PEER_PINGING,
	PING_PEER_BW,
	PING_PEER_CLOSING, /* DONE sent, waiting for BYE */
	PING_PEER_DONE,
	PING_PEER_FAILED,
	PING_PEER_SKIPPED,
};

enum ping_peer_ev_type {
	PING_PEER_EV_START,
	PING_PEER_EV_CONNECTED,
	PING_PEER_EV_LINE,
	PING_PEER_EV_PONG,
	PING_PEER_EV_BW_DONE,
	PING_PEER_EV_TIMEOUT,
	PING_PEER_EV_ERROR,
	PING_PEER_EV_CLOSED, /* the server closed the side channel */
};

struct ping_peer_event {
	enum ping_peer_ev_type type;
	uint64_t now;	  /* ns, monotonic; every event */
	const char *line; /* LINE: without the newline; borrowed for the call */
	uint32_t seq;	  /* PONG */
	uint64_t bytes;	  /* BW_DONE: bytes sent ... */
	uint64_t msgs;	  /* ... in that many messages ... */
	uint64_t ns;	  /* ... from the first post to the last completion */
	const char *what; /* ERROR: what failed, e.g. "connect to host2:18555: ..." */
};

struct ping_peer;

/* Every op returns 0 or -errno with err set; none may call back into the
 * machine. */
struct ping_peer_ops {
	/* Open the side channel to p->target; CONNECTED or ERROR follows. */
	int (*connect)(struct ping_peer *p, char *err, size_t errlen);
	int (*send_line)(struct ping_peer *p, const char *line, char *err, size_t errlen);
	/* Create a QP of local->mode for messages up to local->size bytes,
	 * post its receives, and fill lid, qpn, psn, gid and mtu. */
	int (*qp_open)(struct ping_peer *p, struct ping_info *local, char *err, size_t errlen);
	/* Point the QP at the server's (UD: address handle; RC: RTR, RTS). */
	int (*qp_connect)(struct ping_peer *p, const struct ping_info *remote, char *err,
			  size_t errlen);
	/* Send ping seq (ping_size bytes); PONG seq or nothing follows. */
	int (*send_ping)(struct ping_peer *p, uint32_t seq, char *err, size_t errlen);
	/* Stream count messages of size bytes; BW_DONE or ERROR follows. */
	int (*start_bw)(struct ping_peer *p, uint32_t size, unsigned count, char *err,
			size_t errlen);
	/* Release the QP and the side channel. */
	void (*close)(struct ping_peer *p);
	/* Optional: a state change, for -v. */
	void (*trace)(struct ping_peer *p, enum ping_peer_state from, enum ping_peer_state to);
};

/* What to run: the same for every peer of one invocation. */
struct ping_peer_cfg {
	enum ping_mode mode;
	unsigned iters;
	uint32_t ping_size;
	int bw;
	uint32_t bw_size; /* 0: RC PING_OPTS_RC_BW_SIZE, UD local_mtu */
	unsigned bw_count;
	unsigned timeout_ms;	   /* per ping */
	unsigned chan_timeout_ms;  /* per side-channel step */
	uint16_t local_mtu;	   /* active MTU of the local port, bytes */
	const uint16_t *want_lids; /* LID targets (resolve-only peers); borrowed */
	size_t n_want;
};

struct ping_peer {
	/* set by ping_peer_init; read-only afterwards */
	const struct ping_peer_cfg *cfg; /* borrowed: outlives the peer */
	const struct ping_peer_ops *ops;
	void *ctx; /* the driver's */
	struct ping_target target;
	int resolve_only;
	/* read-only for the driver */
	enum ping_peer_state state;
	uint64_t deadline;	   /* ns; 0: none */
	struct ping_result result; /* final once the peer has finished */
	struct ping_info local, remote;
	uint32_t bw_size; /* the bandwidth message size actually used */
	/* internal */
	uint64_t *samples; /* cfg->iters round trips, ns */
	size_t n_samples;
	uint32_t seq;
	uint64_t sent_at;
	unsigned misses;
	uint16_t hello_lid;
	uint8_t hello_gid[16];
};

/* name: the target as the user gave it (copied into the result).
 * Returns 0 or -ENOMEM. */
int ping_peer_init(struct ping_peer *p, const struct ping_peer_cfg *cfg,
		   const struct ping_target *t, const char *name, int resolve_only,
		   const struct ping_peer_ops *ops, void *ctx);
void ping_peer_fini(struct ping_peer *p);
void ping_peer_event(struct ping_peer *p, const struct ping_peer_event *ev);
/* 1 once DONE, FAILED or SKIPPED. */
int ping_peer_finished(const struct ping_peer *p);
const char *ping_peer_state_name(enum ping_peer_state s);
/* The largest message this peer sends: max(ping size, bw size). */
uint32_t ping_peer_msg_size(const struct ping_peer_cfg *cfg);
/* The bandwidth message size after defaults (0 without --bw). */
uint32_t ping_peer_bw_size(const struct ping_peer_cfg *cfg);

#endif
