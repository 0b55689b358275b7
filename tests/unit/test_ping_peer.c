/*
 * test_ping_peer.c - unit tests for nanosm-ping's client state machine
 * (tools/ping/ping_peer.c) over the fake verbs layer of ping_test.c: the
 * states from connect to done, bandwidth, losses, bad servers, side-channel
 * and local verbs failures, resolve-only hosts, loopback.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/ping_test.h"
#include "tests/unit/unit.h"
#include "tools/ping/ping_opts.h"
#include "tools/ping/ping_peer.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_report.h"

static void peer_start(struct ping_peer *p, struct ping_test_peer *f,
		       const struct ping_peer_cfg *cfg, const char *host, int resolve_only)
{
	struct ping_target t;
	char err[256];

	memset(f, 0, sizeof(*f));
	ping_test_info_fill(&f->qp_info, cfg->mode, 3, 0x12a, ping_test_gid_a);
	CU_ASSERT_EQUAL_FATAL(ping_opts_parse_target(host, 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(
	    ping_peer_init(p, cfg, &t, host, resolve_only, &ping_test_peer_ops, f), 0);
}

static void peer_ev(struct ping_peer *p, enum ping_peer_ev_type type, uint64_t now)
{
	struct ping_peer_event ev = {.type = type, .now = now};

	ping_peer_event(p, &ev);
}

static void peer_line(struct ping_peer *p, const char *line, uint64_t now)
{
	struct ping_peer_event ev = {.type = PING_PEER_EV_LINE, .now = now, .line = line};

	ping_peer_event(p, &ev);
}

static void peer_pong(struct ping_peer *p, uint32_t seq, uint64_t now)
{
	struct ping_peer_event ev = {.type = PING_PEER_EV_PONG, .now = now, .seq = seq};

	ping_peer_event(p, &ev);
}

static void peer_info_line(struct ping_peer *p, const struct ping_info *in, uint64_t now)
{
	struct ping_msg m;
	char err[256];
	char line[PING_PROTO_LINE_MAX];

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_INFO;
	m.info = *in;
	CU_ASSERT_FATAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)) > 0);
	peer_line(p, line, now);
}

/* The server's INFO answering what the peer sent. */
static struct ping_info server_info(const struct ping_peer *p)
{
	struct ping_info s;

	ping_test_info_fill(&s, p->local.mode, 4, 0x2b3, ping_test_gid_b);
	s.size = p->local.size;
	if (s.mode == PING_MODE_RC) {
		s.rkey = 0xabc;
		s.addr = 0x7f0012340000ULL;
	}
	return s;
}

/* START .. PINGING, at time t0. */
static void peer_to_pinging(struct ping_peer *p, uint64_t t0)
{
	struct ping_info s;

	peer_ev(p, PING_PEER_EV_START, t0);
	peer_ev(p, PING_PEER_EV_CONNECTED, t0);
	peer_line(p, HELLO_B, t0);
	CU_ASSERT_EQUAL_FATAL(p->state, PING_PEER_EXCHANGING);
	s = server_info(p);
	peer_info_line(p, &s, t0); /* the first ping leaves at t0 */
	CU_ASSERT_EQUAL_FATAL(p->state, PING_PEER_PINGING);
}

static void test_ping_peer_happy_ud(void)
{
	static const enum ping_peer_state walk[] = {
	    PING_PEER_CONNECTING, PING_PEER_GREETING, PING_PEER_EXCHANGING, PING_PEER_READY,
	    PING_PEER_PINGING,	  PING_PEER_CLOSING,  PING_PEER_DONE,
	};
	static const uint64_t rtt[] = {1900, 2100, 3400, 2050, 2100};
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;
	char line[PING_REPORT_LINE_MAX];
	uint64_t t = 5 * SEC;

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 5);
	peer_start(&p, &f, &cfg, "host2", 0);
	CU_ASSERT_EQUAL(p.state, PING_PEER_IDLE);
	peer_ev(&p, PING_PEER_EV_START, t);
	CU_ASSERT_EQUAL(f.connects, 1);
	CU_ASSERT_EQUAL(p.state, PING_PEER_CONNECTING);
	CU_ASSERT_EQUAL(p.deadline, t + 10 * SEC);
	peer_ev(&p, PING_PEER_EV_CONNECTED, t);
	CU_ASSERT_EQUAL(p.state, PING_PEER_GREETING);
	peer_line(&p, HELLO_B, t);
	CU_ASSERT_EQUAL(p.result.lid, 4);
	CU_ASSERT_EQUAL(f.qp_opens, 1);
	CU_ASSERT_EQUAL(f.opened_as.mode, PING_MODE_UD);
	CU_ASSERT_EQUAL(f.opened_as.size, 64);
	CU_ASSERT_EQUAL_FATAL(f.n_lines, 1);
	CU_ASSERT_STRING_EQUAL(f.lines[0], "NSMPING/1 INFO mode=ud lid=3 qpn=0x00012a psn=0x3c4d5e "
					   "gid=fe80:0000:0000:0000:0002:c903:00a1:b2c3 mtu=4096 "
					   "size=64 rkey=0x00000000 addr=0x0000000000000000");
	{
		struct ping_info s = server_info(&p);
		peer_info_line(&p, &s, t);
		CU_ASSERT_EQUAL(f.qp_connects, 1);
		CU_ASSERT_EQUAL(f.connected_to.qpn, 0x2b3);
		CU_ASSERT_EQUAL(f.connected_to.lid, 4);
	}
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL_FATAL(f.n_pings, i + 1);
		CU_ASSERT_EQUAL(f.pings[i], (uint32_t)i);
		CU_ASSERT_EQUAL(p.deadline, t + 1 * SEC);
		peer_pong(&p, 77, t + 500); /* not the seq in flight: ignored */
		t += rtt[i];
		peer_pong(&p, (uint32_t)i, t);
	}
	CU_ASSERT_EQUAL(p.state, PING_PEER_CLOSING);
	CU_ASSERT_EQUAL_FATAL(f.n_lines, 2);
	CU_ASSERT_STRING_EQUAL(f.lines[1], "NSMPING/1 DONE");
	CU_ASSERT_EQUAL(f.closes, 0);
	peer_line(&p, "NSMPING/1 BYE rx=0", t);
	CU_ASSERT_EQUAL(p.state, PING_PEER_DONE);
	CU_ASSERT_TRUE(ping_peer_finished(&p));
	CU_ASSERT_EQUAL(f.closes, 1);
	CU_ASSERT_EQUAL(p.deadline, 0);
	CU_ASSERT_EQUAL(f.n_trace, 7);
	for (int i = 0; i < 7 && i < f.n_trace; i++)
		CU_ASSERT_EQUAL(f.trace[i], walk[i]);
	CU_ASSERT_EQUAL(p.result.verdict, PING_VERDICT_OK);
	CU_ASSERT_EQUAL(p.result.sent, 5);
	CU_ASSERT_EQUAL(p.result.lost, 0);
	CU_ASSERT_FALSE(p.result.loopback);
	ping_report_format(&p.result, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "OK lid 4 (host2): rtt min 1.9 median 2.1 p99 3.4 us");
	/* a finished peer ignores everything */
	peer_ev(&p, PING_PEER_EV_CLOSED, t);
	peer_ev(&p, PING_PEER_EV_START, t);
	CU_ASSERT_EQUAL(f.closes, 1);
	CU_ASSERT_EQUAL(p.state, PING_PEER_DONE);
	ping_peer_fini(&p);
}

static void test_ping_peer_rc_bw(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;
	char line[PING_REPORT_LINE_MAX];
	struct ping_peer_event ev = {.type = PING_PEER_EV_BW_DONE};
	uint64_t t = 0;

	ping_test_peer_cfg(&cfg, PING_MODE_RC, 3);
	cfg.bw = 1;
	CU_ASSERT_EQUAL(ping_peer_bw_size(&cfg), 65536);
	CU_ASSERT_EQUAL(ping_peer_msg_size(&cfg), 65536);
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_to_pinging(&p, t);
	CU_ASSERT_EQUAL(f.opened_as.size, 65536);
	CU_ASSERT_TRUE(ping_test_has(f.lines[0], "mode=rc"));
	CU_ASSERT_TRUE(
	    ping_test_has(f.lines[0], "size=65536 rkey=0x00000000 addr=0x0000000000000000"));
	CU_ASSERT_EQUAL(f.connected_to.rkey, 0xabc);
	peer_pong(&p, 0, t += 1900);
	peer_pong(&p, 1, t += 2100);
	peer_pong(&p, 2, t += 3400);
	CU_ASSERT_EQUAL(p.state, PING_PEER_BW);
	CU_ASSERT_EQUAL(f.bw_starts, 1);
	CU_ASSERT_EQUAL(f.bw_size, 65536);
	CU_ASSERT_EQUAL(f.bw_count, 4096);
	CU_ASSERT_EQUAL(p.deadline, t + 60 * SEC);
	ev.now = t + SEC;
	ev.bytes = 268435456;
	ev.msgs = 4096;
	ev.ns = 191739611;
	ping_peer_event(&p, &ev);
	CU_ASSERT_EQUAL(p.state, PING_PEER_CLOSING);
	peer_line(&p, "NSMPING/1 BYE rx=0", t + SEC); /* RC: rx is not used */
	CU_ASSERT_EQUAL(p.result.verdict, PING_VERDICT_OK);
	ping_report_format(&p.result, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line,
			       "OK lid 4 (host2): rtt min 1.9 median 2.1 p99 3.4 us, bw 11.2 Gb/s");
	ping_peer_fini(&p);
}

static void test_ping_peer_ud_bw(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;
	struct ping_peer_event ev = {.type = PING_PEER_EV_BW_DONE};

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 1);
	cfg.bw = 1;
	cfg.local_mtu = 2048;
	CU_ASSERT_EQUAL(ping_peer_bw_size(&cfg), 2048); /* UD default: the MTU */
	peer_start(&p, &f, &cfg, "host2", 0);
	f.qp_info.mtu = 2048;
	peer_to_pinging(&p, 0);
	peer_pong(&p, 0, 2000);
	CU_ASSERT_EQUAL(f.bw_size, 2048);
	ev.now = 10 * MS;
	ev.bytes = 4096ULL * 2048;
	ev.msgs = 4096;
	ev.ns = 10 * MS;
	ping_peer_event(&p, &ev);
	peer_line(&p, "NSMPING/1 BYE rx=4000", 11 * MS);
	CU_ASSERT_EQUAL(p.result.verdict, PING_VERDICT_OK);
	CU_ASSERT_EQUAL(p.result.bw_sent, 4096);
	CU_ASSERT_EQUAL(p.result.bw_rx, 4000);
	CU_ASSERT_EQUAL(p.result.bw_bytes, 4000ULL * 2048);
	ping_peer_fini(&p);

	/* the server claims more than was sent: capped */
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_to_pinging(&p, 0);
	peer_pong(&p, 0, 2000);
	ping_peer_event(&p, &ev);
	peer_line(&p, "NSMPING/1 BYE rx=99999", 11 * MS);
	CU_ASSERT_EQUAL(p.result.bw_rx, 4096);
	ping_peer_fini(&p);

	/* --size above the UD MTU of the path: refused after the exchange */
	cfg.bw_size = 4096;
	peer_start(&p, &f, &cfg, "host2", 0);
	f.qp_info.mtu = 2048;
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, HELLO_B, 0);
	{
		struct ping_info s = server_info(&p);
		s.mtu = 4096;
		peer_info_line(&p, &s, 0);
	}
	CU_ASSERT_EQUAL(p.state, PING_PEER_FAILED);
	CU_ASSERT_TRUE(ping_test_has(
	    p.result.reason,
	    "server INFO does not fit: message size 4096 is above the path MTU 2048"));
	CU_ASSERT_EQUAL(f.qp_connects, 0);
	CU_ASSERT_EQUAL(f.closes, 1);
	ping_peer_fini(&p);
}

static void test_ping_peer_no_response(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;
	char line[PING_REPORT_LINE_MAX];

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 1000);
	peer_start(&p, &f, &cfg, "host3", 0);
	peer_to_pinging(&p, 0);
	peer_ev(&p, PING_PEER_EV_TIMEOUT, p.deadline - 1); /* early: ignored */
	CU_ASSERT_EQUAL(p.state, PING_PEER_PINGING);
	peer_ev(&p, PING_PEER_EV_TIMEOUT, p.deadline);
	CU_ASSERT_EQUAL(p.state, PING_PEER_FAILED);
	CU_ASSERT_EQUAL(f.closes, 1);
	CU_ASSERT_EQUAL(f.n_pings, 1);
	p.result.lid = 6; /* as if the server had said lid 6 */
	ping_report_format(&p.result, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "FAIL lid 6 (host3): no response (timeout 1s)");
	ping_peer_fini(&p);

	/* RC: the first ping ends in a completion error instead */
	ping_test_peer_cfg(&cfg, PING_MODE_RC, 10);
	peer_start(&p, &f, &cfg, "host3", 0);
	peer_to_pinging(&p, 0);
	{
		struct ping_peer_event ev = {.type = PING_PEER_EV_ERROR,
					     .now = 600 * MS,
					     .what = "send completion error: transport retry "
						     "counter exceeded (vendor error 0x81)"};
		ping_peer_event(&p, &ev);
	}
	CU_ASSERT_STRING_EQUAL(p.result.reason, "no response (send completion error: transport "
						"retry counter exceeded (vendor error 0x81))");
	ping_peer_fini(&p);
}

static void test_ping_peer_losses(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;
	char line[PING_REPORT_LINE_MAX];
	uint64_t t = 0;

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 5);
	cfg.timeout_ms = 250;
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_to_pinging(&p, t);
	peer_pong(&p, 0, t += 2000);
	t = p.deadline;
	peer_ev(&p, PING_PEER_EV_TIMEOUT, t); /* ping 1 lost */
	CU_ASSERT_EQUAL(p.state, PING_PEER_PINGING);
	CU_ASSERT_EQUAL(f.n_pings, 3);
	CU_ASSERT_EQUAL(f.pings[2], 2);
	peer_pong(&p, 1, t + 10); /* ping 1 answers late: ignored */
	CU_ASSERT_EQUAL(p.n_samples, 1);
	peer_pong(&p, 2, t += 2000);
	peer_pong(&p, 3, t += 2000);
	peer_pong(&p, 4, t += 2000);
	CU_ASSERT_EQUAL(p.state, PING_PEER_CLOSING);
	peer_line(&p, "NSMPING/1 BYE rx=0", t);
	CU_ASSERT_EQUAL(p.state, PING_PEER_FAILED);
	CU_ASSERT_EQUAL(p.result.verdict, PING_VERDICT_FAIL);
	CU_ASSERT_EQUAL(p.result.sent, 5);
	CU_ASSERT_EQUAL(p.result.lost, 1);
	CU_ASSERT_EQUAL(p.result.rtt.n, 4);
	CU_ASSERT_EQUAL(f.closes, 1);
	ping_report_format(&p.result, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "FAIL lid 4 (host2): 1 of 5 pings lost (timeout 0.25s); rtt "
				     "min 2.0 median 2.0 p99 2.0 us");
	ping_peer_fini(&p);

	/* the path dies after one reply: three losses in a row end it */
	ping_test_peer_cfg(&cfg, PING_MODE_UD, 100);
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_to_pinging(&p, 0);
	peer_pong(&p, 0, 2000);
	for (int i = 0; i < PING_PEER_MAX_MISSES; i++)
		peer_ev(&p, PING_PEER_EV_TIMEOUT, p.deadline);
	CU_ASSERT_EQUAL(p.state, PING_PEER_FAILED);
	CU_ASSERT_STRING_EQUAL(p.result.reason,
			       "no response after 1 reply: 3 pings in a row lost (timeout 1s)");
	CU_ASSERT_EQUAL(p.result.lost, 3);
	CU_ASSERT_EQUAL(p.result.sent, 4);
	ping_peer_fini(&p);
}

/* Drive a fresh peer to GREETING, hand it line: it must fail with want. */
static void peer_greeting_fails(const char *line, const char *want)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 5);
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, line, 0);
	CU_ASSERT_EQUAL(p.state, PING_PEER_FAILED);
	CU_ASSERT_EQUAL(p.result.verdict, PING_VERDICT_FAIL);
	CU_ASSERT_TRUE(ping_test_has(p.result.reason, want));
	CU_ASSERT_EQUAL(f.qp_opens, 0);
	CU_ASSERT_EQUAL(f.closes, 1);
	ping_peer_fini(&p);
}

static void test_ping_peer_bad_server(void)
{
	peer_greeting_fails("SSH-2.0-OpenSSH_9.2p1",
			    "malformed line from the server: not a nanosm-ping peer (line starts "
			    "\"SSH-2.0-OpenSSH_9.2p1\")");
	peer_greeting_fails("NSMPING/2 HELLO lid=4 gid=x",
			    "malformed line from the server: peer speaks NSMPING/2, this "
			    "nanosm-ping speaks NSMPING/1");
	peer_greeting_fails(
	    "NSMPING/1 HELLO lid=4 gid=fe80::1",
	    "malformed line from the server: HELLO: field 'gid': \"fe80::1\" is not a GID");
	peer_greeting_fails(
	    "NSMPING/1 ERROR port 1 of mlx5_0 is INIT: is a subnet manager running? (run nanosm)",
	    "server refused: port 1 of mlx5_0 is INIT: is a subnet manager running? (run nanosm)");
	peer_greeting_fails("NSMPING/1 BYE rx=1",
			    "protocol error: the server sent BYE, expected HELLO");
}

static void test_ping_peer_bad_info(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;
	struct ping_info s;

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 5);
	/* mode mismatch */
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, HELLO_B, 0);
	s = server_info(&p);
	s.mode = PING_MODE_RC;
	s.rkey = 1;
	s.addr = 2;
	peer_info_line(&p, &s, 0);
	CU_ASSERT_STRING_EQUAL(
	    p.result.reason,
	    "server INFO does not fit: server answered in rc mode, we asked for ud");
	ping_peer_fini(&p);
	/* LID differs from HELLO's */
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, HELLO_B, 0);
	s = server_info(&p);
	s.lid = 5;
	peer_info_line(&p, &s, 0);
	CU_ASSERT_STRING_EQUAL(p.result.reason, "server INFO says lid 5, its HELLO said lid 4");
	ping_peer_fini(&p);
	/* malformed INFO */
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, HELLO_B, 0);
	peer_line(&p, INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT " mtu=4096 size=64", 0);
	CU_ASSERT_STRING_EQUAL(p.result.reason,
			       "malformed line from the server: INFO: missing field 'rkey'");
	CU_ASSERT_EQUAL(f.closes, 1);
	ping_peer_fini(&p);
	/* qp_connect fails */
	peer_start(&p, &f, &cfg, "host2", 0);
	f.qp_connect_rc = -EINVAL;
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, HELLO_B, 0);
	s = server_info(&p);
	peer_info_line(&p, &s, 0);
	CU_ASSERT_STRING_EQUAL(
	    p.result.reason,
	    "cannot connect the QP to lid 4 qpn 0x0002b3: ibv_modify_qp to RTR: Invalid argument");
	ping_peer_fini(&p);
}

static void test_ping_peer_side_channel(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;
	char line[PING_REPORT_LINE_MAX];

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 5);
	/* connect refused */
	peer_start(&p, &f, &cfg, "host3", 0);
	f.connect_rc = -ECONNREFUSED;
	peer_ev(&p, PING_PEER_EV_START, 0);
	CU_ASSERT_EQUAL(p.state, PING_PEER_FAILED);
	CU_ASSERT_EQUAL(f.closes, 1);
	ping_report_format(&p.result, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "FAIL host3: side channel: connect to host3:18555: Connection "
				     "refused (is \"nanosm-ping --server\" running there?)");
	ping_peer_fini(&p);
	/* connect answered asynchronously with an error */
	peer_start(&p, &f, &cfg, "host3", 0);
	peer_ev(&p, PING_PEER_EV_START, 0);
	{
		struct ping_peer_event ev = {.type = PING_PEER_EV_ERROR,
					     .what = "connect to host3:18555: No route to host"};
		ping_peer_event(&p, &ev);
	}
	CU_ASSERT_STRING_EQUAL(p.result.reason,
			       "side channel: connect to host3:18555: No route to host");
	ping_peer_fini(&p);
	/* connect never completes */
	peer_start(&p, &f, &cfg, "host3", 0);
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_TIMEOUT, 10 * SEC);
	CU_ASSERT_STRING_EQUAL(p.result.reason,
			       "side channel: connect did not complete within 10s");
	ping_peer_fini(&p);
	/* no HELLO within the side-channel timeout */
	peer_start(&p, &f, &cfg, "host3", 0);
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, SEC);
	peer_ev(&p, PING_PEER_EV_TIMEOUT, 10 * SEC); /* the deadline is 11 s */
	CU_ASSERT_EQUAL(p.state, PING_PEER_GREETING);
	peer_ev(&p, PING_PEER_EV_TIMEOUT, 11 * SEC);
	CU_ASSERT_STRING_EQUAL(p.result.reason,
			       "side channel: no HELLO from the server within 10s");
	ping_peer_fini(&p);
	/* the server hangs up while we wait for its INFO */
	peer_start(&p, &f, &cfg, "host3", 0);
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, HELLO_B, 0);
	peer_ev(&p, PING_PEER_EV_CLOSED, 0);
	CU_ASSERT_STRING_EQUAL(p.result.reason,
			       "side channel closed by the server (waiting for INFO)");
	CU_ASSERT_EQUAL(p.result.lid, 4);
	ping_peer_fini(&p);
	/* ... or during the pings */
	peer_start(&p, &f, &cfg, "host3", 0);
	peer_to_pinging(&p, 0);
	peer_ev(&p, PING_PEER_EV_CLOSED, 0);
	CU_ASSERT_STRING_EQUAL(p.result.reason,
			       "side channel closed by the server during the ping test");
	ping_peer_fini(&p);
	/* no BYE */
	ping_test_peer_cfg(&cfg, PING_MODE_UD, 1);
	peer_start(&p, &f, &cfg, "host3", 0);
	peer_to_pinging(&p, 0);
	peer_pong(&p, 0, SEC);
	peer_ev(&p, PING_PEER_EV_TIMEOUT, 11 * SEC);
	CU_ASSERT_STRING_EQUAL(p.result.reason, "side channel: no BYE from the server within 10s");
	CU_ASSERT_EQUAL(p.result.rtt.n, 1); /* measurements are kept */
	ping_peer_fini(&p);
	/* sending fails */
	peer_start(&p, &f, &cfg, "host3", 0);
	f.send_rc = -EPIPE;
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, HELLO_B, 0);
	CU_ASSERT_STRING_EQUAL(p.result.reason, "side channel: send: Broken pipe");
	CU_ASSERT_EQUAL(f.closes, 1);
	ping_peer_fini(&p);
	/* an unexpected line while pinging */
	ping_test_peer_cfg(&cfg, PING_MODE_UD, 5);
	peer_start(&p, &f, &cfg, "host3", 0);
	peer_to_pinging(&p, 0);
	peer_line(&p, "NSMPING/1 DONE", 0);
	CU_ASSERT_STRING_EQUAL(p.result.reason,
			       "protocol error: the server sent DONE while pinging");
	ping_peer_fini(&p);
}

static void test_ping_peer_local_failures(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 5);
	peer_start(&p, &f, &cfg, "host2", 0);
	f.qp_open_rc = -ENOMEM;
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, HELLO_B, 0);
	CU_ASSERT_STRING_EQUAL(
	    p.result.reason,
	    "cannot create the local QP: ibv_create_qp(UD): Cannot allocate memory");
	CU_ASSERT_EQUAL(f.n_lines, 0);
	ping_peer_fini(&p);

	peer_start(&p, &f, &cfg, "host2", 0);
	f.ping_rc = -ENOSPC;
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, HELLO_B, 0);
	{
		struct ping_info s = server_info(&p);
		peer_info_line(&p, &s, 0);
	}
	CU_ASSERT_STRING_EQUAL(p.result.reason, "ping 0: ibv_post_send: No space left on device");
	ping_peer_fini(&p);

	cfg.bw = 1;
	peer_start(&p, &f, &cfg, "host2", 0);
	f.bw_rc = -EINVAL;
	peer_to_pinging(&p, 0);
	for (uint32_t i = 0; i < 5; i++)
		peer_pong(&p, i, 1000 * (i + 1));
	CU_ASSERT_STRING_EQUAL(p.result.reason, "bandwidth test: ibv_post_send: Invalid argument");
	ping_peer_fini(&p);

	peer_start(&p, &f, &cfg, "host2", 0);
	peer_to_pinging(&p, 0);
	for (uint32_t i = 0; i < 5; i++)
		peer_pong(&p, i, 1000 * (i + 1));
	CU_ASSERT_EQUAL(p.state, PING_PEER_BW);
	peer_ev(&p, PING_PEER_EV_TIMEOUT, 5000 + 60 * SEC);
	CU_ASSERT_STRING_EQUAL(p.result.reason, "bandwidth test did not finish within 60s");
	ping_peer_fini(&p);

	/* a completion error in the stream: the measured pings are kept */
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_to_pinging(&p, 0);
	for (uint32_t i = 0; i < 5; i++)
		peer_pong(&p, i, 1000 * (i + 1));
	{
		struct ping_peer_event ev = {
		    .type = PING_PEER_EV_ERROR,
		    .now = 6000,
		    .what =
			"bandwidth test: send completion error: transport retry counter exceeded"};
		ping_peer_event(&p, &ev);
	}
	CU_ASSERT_STRING_EQUAL(
	    p.result.reason,
	    "bandwidth test: send completion error: transport retry counter exceeded");
	CU_ASSERT_EQUAL(p.result.rtt.n, 5);
	CU_ASSERT_EQUAL(f.closes, 1);
	ping_peer_fini(&p);
}

static void test_ping_peer_resolve_only(void)
{
	static const uint16_t want[] = {6, 4};
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 1);
	cfg.want_lids = want;
	cfg.n_want = 1; /* only lid 6 */
	peer_start(&p, &f, &cfg, "host2", 1);
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, HELLO_B, 0);
	CU_ASSERT_EQUAL(p.state, PING_PEER_SKIPPED);
	CU_ASSERT_EQUAL(p.result.verdict, PING_VERDICT_SKIPPED);
	CU_ASSERT_EQUAL(p.result.lid, 4);
	CU_ASSERT_EQUAL(f.qp_opens, 0);
	CU_ASSERT_EQUAL_FATAL(f.n_lines, 1);
	CU_ASSERT_STRING_EQUAL(f.lines[0], "NSMPING/1 DONE");
	CU_ASSERT_EQUAL(f.closes, 1);
	ping_peer_fini(&p);

	cfg.n_want = 2; /* lid 4 is wanted now */
	peer_start(&p, &f, &cfg, "host2", 1);
	peer_to_pinging(&p, 0);
	peer_pong(&p, 0, 2000);
	peer_line(&p, "NSMPING/1 BYE rx=0", 3000);
	CU_ASSERT_EQUAL(p.result.verdict, PING_VERDICT_OK);
	ping_peer_fini(&p);
}

static void test_ping_peer_loopback(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct ping_test_peer f;
	char line[PING_REPORT_LINE_MAX];

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 1);
	peer_start(&p, &f, &cfg, "host1", 0);
	f.qp_info.lid = 4;
	memcpy(f.qp_info.gid, ping_test_gid_b, 16); /* our own port is the server's */
	peer_to_pinging(&p, 0);
	peer_pong(&p, 0, 300);
	peer_line(&p, "NSMPING/1 BYE rx=0", 400);
	CU_ASSERT_TRUE(p.result.loopback);
	ping_report_format(&p.result, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line,
			       "OK lid 4 (host1, loopback): rtt min 0.3 median 0.3 p99 0.3 us");
	ping_peer_fini(&p);
	CU_ASSERT_STRING_EQUAL(ping_peer_state_name(PING_PEER_EXCHANGING), "exchanging");
	CU_ASSERT_STRING_EQUAL(ping_peer_state_name((enum ping_peer_state)42), "?");
}

void test_ping_peer_register(void)
{
	CU_pSuite s = CU_add_suite("ping_peer", NULL, NULL);

	if (!s)
		return;
	CU_add_test(s, "UD: connect..done, states, verdict", test_ping_peer_happy_ud);
	CU_add_test(s, "RC with bandwidth", test_ping_peer_rc_bw);
	CU_add_test(s, "UD bandwidth: delivered counts, MTU", test_ping_peer_ud_bw);
	CU_add_test(s, "no response", test_ping_peer_no_response);
	CU_add_test(s, "losses, late pongs, dead path", test_ping_peer_losses);
	CU_add_test(s, "bad or refusing server", test_ping_peer_bad_server);
	CU_add_test(s, "bad server INFO", test_ping_peer_bad_info);
	CU_add_test(s, "side-channel failures", test_ping_peer_side_channel);
	CU_add_test(s, "local verbs failures", test_ping_peer_local_failures);
	CU_add_test(s, "resolve-only hosts", test_ping_peer_resolve_only);
	CU_add_test(s, "loopback detected", test_ping_peer_loopback);
}
