/*
 * tools/ping/ping_serve.h - the server's state machine for one client session (pure:
 * events in, calls to an ops struct out).
 *
 * DOC: A session walks IDLE -ACCEPTED-> GREETED (HELLO sent) -INFO->
 * SERVING (our INFO sent; the driver echoes pings and counts bandwidth
 * messages on the QP) -DONE-> DONE (BYE rx=N sent).  A client that only
 * wanted the LID sends DONE while GREETED.  When the local port cannot
 * serve (not ACTIVE, LID 0) or the client's INFO is malformed or does not
 * fit, the server answers "ERROR <why>" and the session FAILS; the server
 * itself goes on to the next client.  ops->close runs exactly once, when
 * the session ends.
 */
#ifndef NANOSM_TOOLS_PING_PING_SERVE_H
#define NANOSM_TOOLS_PING_PING_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "tools/ping/ping_proto.h"

enum ping_serve_state {
	PING_SERVE_IDLE,
	PING_SERVE_GREETED, /* HELLO sent, waiting for INFO (or DONE) */
	PING_SERVE_SERVING, /* our INFO sent; QP live until DONE */
	PING_SERVE_DONE,
	PING_SERVE_FAILED,
};

enum ping_serve_ev_type {
	PING_SERVE_EV_ACCEPTED,
	PING_SERVE_EV_LINE,
	PING_SERVE_EV_TIMEOUT,
	PING_SERVE_EV_ERROR,
	PING_SERVE_EV_CLOSED, /* the client closed the side channel */
};

struct ping_serve_event {
	enum ping_serve_ev_type type;
	uint64_t now;	  /* ns, monotonic */
	const char *line; /* LINE, without the newline; borrowed for the call */
	const char *what; /* ERROR */
};

struct ping_serve;

struct ping_serve_ops {
	/* The local port now: LID, GID and MTU, or why it cannot serve (-errno,
	 * err set, e.g. "port 1 of mlx5_0 is INIT: ..."). */
	int (*port_check)(struct ping_serve *s, uint16_t *lid, uint8_t gid[16], uint16_t *mtu,
			  char *err, size_t errlen);
	int (*send_line)(struct ping_serve *s, const char *line, char *err, size_t errlen);
	/* Create a QP of local->mode for messages up to local->size bytes,
	 * connect it to the client's, post receives; fill lid, qpn, psn, gid,
	 * mtu and (RC) the rkey/addr of a size-byte write buffer. */
	int (*qp_open)(struct ping_serve *s, const struct ping_info *client,
		       struct ping_info *local, char *err, size_t errlen);
	/* Bandwidth messages received on the QP so far. */
	uint64_t (*rx_count)(struct ping_serve *s);
	void (*close)(struct ping_serve *s);
};

struct ping_serve {
	/* set by ping_serve_init */
	const struct ping_serve_ops *ops;
	void *ctx;
	char client_name[80]; /* "10.0.0.3:51234", for messages */
	unsigned timeout_ms;  /* waiting for INFO */
	/* read-only for the driver */
	enum ping_serve_state state;
	uint64_t deadline; /* ns; 0: none */
	struct ping_info client, local;
	uint64_t rx;
	char reason[320]; /* FAILED: why; DONE: what was served */
	/* internal */
	uint16_t lid, mtu;
	uint8_t gid[16];
};

void ping_serve_init(struct ping_serve *s, const char *client_name, unsigned timeout_ms,
		     const struct ping_serve_ops *ops, void *ctx);
void ping_serve_event(struct ping_serve *s, const struct ping_serve_event *ev);
int ping_serve_finished(const struct ping_serve *s);
const char *ping_serve_state_name(enum ping_serve_state st);

#endif
