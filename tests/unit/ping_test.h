/*
 * ping_test.h - what the nanosm-ping unit tests (test_ping_*.c) share: times
 * in ns, two GIDs and the protocol lines built on them, a substring check, and
 * the fake verbs layers a client peer (struct ping_test_peer) and a server
 * session (struct ping_test_serve) run over.  Test code only (ping_test.c).
 */
#ifndef NANOSM_TESTS_UNIT_PING_TEST_H
#define NANOSM_TESTS_UNIT_PING_TEST_H

#include <stdint.h>

#include "tools/ping/ping_peer.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_serve.h"

#define US 1000ULL    /* ns */
#define MS 1000000ULL /* ns */
#define SEC 1000000000ULL

/* Port GIDs of the client (a) and the server (b). */
extern const uint8_t ping_test_gid_a[16];
extern const uint8_t ping_test_gid_b[16];

#define HELLO_B "NSMPING/1 HELLO lid=4 gid=fe80:0000:0000:0000:0002:c903:00a1:b2c4"
#define INFO_HEAD "NSMPING/1 INFO mode=ud lid=3 "
#define GID_TXT "gid=fe80:0000:0000:0000:0002:c903:00a1:b2c3"
#define INFO_TAIL " mtu=4096 size=64 rkey=0x00000000 addr=0x0000000000000000"

/* Lines and state changes a fake records, at most. */
#define PING_TEST_LINES 16
#define PING_TEST_TRACE 16

/* An INFO with psn 0x3c4d5e, MTU 4096, size 64 and the rest zero. */
void ping_test_info_fill(struct ping_info *in, enum ping_mode mode, uint16_t lid, uint32_t qpn,
			 const uint8_t *gid);
/* 1 if needle is in hay; else says on stderr what it missed and returns 0. */
int ping_test_has(const char *hay, const char *needle);

/* The client's fake transport and verbs (ping_test_peer_ops, ctx = this):
 * each call fails with its *_rc when set, else records what it was given. */
struct ping_test_peer {
	/* behaviour */
	int connect_rc, send_rc, qp_open_rc, qp_connect_rc, ping_rc, bw_rc;
	struct ping_info qp_info; /* what qp_open fills in */
	/* record */
	int connects, qp_opens, qp_connects, bw_starts, closes;
	struct ping_info opened_as, connected_to;
	uint32_t pings[64];
	int n_pings;
	uint32_t bw_size;
	unsigned bw_count;
	char lines[PING_TEST_LINES][PING_PROTO_LINE_MAX];
	int n_lines;
	enum ping_peer_state trace[PING_TEST_TRACE];
	int n_trace;
};

extern const struct ping_peer_ops ping_test_peer_ops;
/* Three of those ops, for a test's own ops table (its ctx must begin with a
 * struct ping_test_peer). */
int ping_test_peer_qp_open(struct ping_peer *p, struct ping_info *local, char *err, size_t errlen);
int ping_test_peer_qp_connect(struct ping_peer *p, const struct ping_info *remote, char *err,
			      size_t errlen);
void ping_test_peer_trace(struct ping_peer *p, enum ping_peer_state from, enum ping_peer_state to);
/* A client config: mode, iters, 64-byte pings, 4096 bandwidth messages,
 * 1 s ping and 10 s side-channel timeouts, local MTU 4096. */
void ping_test_peer_cfg(struct ping_peer_cfg *cfg, enum ping_mode mode, unsigned iters);

/* The server's fake verbs layer (ping_test_serve_ops, ctx = this): the port
 * is LID 4, ping_test_gid_b, MTU 2048 unless port_rc; lines are recorded, and
 * sent on fd when it is >= 0. */
struct ping_test_serve {
	int port_rc, qp_open_rc, send_rc;
	int long_err; /* qp_open fails with a 250-character message */
	uint64_t rx;
	int qp_opens, closes;
	struct ping_info client_seen;
	char lines[PING_TEST_LINES][PING_PROTO_LINE_MAX];
	int n_lines;
	int fd; /* loopback tests: the real side channel */
};

extern const struct ping_serve_ops ping_test_serve_ops;
/* Feed one event to a server session. */
void ping_test_serve_ev(struct ping_serve *s, enum ping_serve_ev_type type, uint64_t now,
			const char *line);

#endif
