/*
 * test_ping_serve.c - unit tests for nanosm-ping's server session
 * (tools/ping/ping_serve.c) over the fake verbs layer of ping_test.c: a
 * session, the refusals it answers with ERROR, LID queries, timeouts, hangups.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/ping_test.h"
#include "tests/unit/unit.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_serve.h"

static void serve_start(struct ping_serve *s, struct ping_test_serve *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	ping_serve_init(s, "10.0.0.3:51234", 10000, &ping_test_serve_ops, f);
}

#define CLIENT_INFO_UD INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT INFO_TAIL

static void test_ping_serve_happy(void)
{
	struct ping_serve s;
	struct ping_test_serve f;
	struct ping_msg m;
	char err[256];

	serve_start(&s, &f);
	ping_test_serve_ev(&s, PING_SERVE_EV_LINE, 0,
			   CLIENT_INFO_UD); /* before ACCEPTED: ignored */
	CU_ASSERT_EQUAL(f.n_lines, 0);
	ping_test_serve_ev(&s, PING_SERVE_EV_ACCEPTED, 1 * SEC, NULL);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_GREETED);
	CU_ASSERT_EQUAL(s.deadline, 11 * SEC);
	CU_ASSERT_EQUAL_FATAL(f.n_lines, 1);
	CU_ASSERT_STRING_EQUAL(f.lines[0], HELLO_B);
	ping_test_serve_ev(&s, PING_SERVE_EV_LINE, 2 * SEC, CLIENT_INFO_UD);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_SERVING);
	CU_ASSERT_EQUAL(s.deadline, 0);
	CU_ASSERT_EQUAL(f.qp_opens, 1);
	CU_ASSERT_EQUAL(f.client_seen.qpn, 0x12a);
	CU_ASSERT_EQUAL_FATAL(f.n_lines, 2);
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(f.lines[1], &m, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.type, PING_MSG_INFO);
	CU_ASSERT_EQUAL(m.info.qpn, 0x2b3);
	CU_ASSERT_EQUAL(m.info.size, 64); /* echoed */
	CU_ASSERT_EQUAL(m.info.mode, PING_MODE_UD);
	CU_ASSERT_EQUAL(m.info.rkey, 0);
	f.rx = 42;
	ping_test_serve_ev(&s, PING_SERVE_EV_LINE, 3 * SEC, "NSMPING/1 DONE");
	CU_ASSERT_EQUAL(s.state, PING_SERVE_DONE);
	CU_ASSERT_EQUAL_FATAL(f.n_lines, 3);
	CU_ASSERT_STRING_EQUAL(f.lines[2], "NSMPING/1 BYE rx=42");
	CU_ASSERT_STRING_EQUAL(s.reason, "ud, lid 3 qpn 0x00012a, 64-byte messages, rx 42");
	CU_ASSERT_EQUAL(f.closes, 1);
	ping_test_serve_ev(&s, PING_SERVE_EV_CLOSED, 4 * SEC, NULL);
	CU_ASSERT_EQUAL(f.closes, 1);
}

static void serve_refuses(const struct ping_test_serve *preset, const char *line, const char *want)
{
	struct ping_serve s;
	struct ping_test_serve f;
	struct ping_msg m;
	char err[256];

	serve_start(&s, &f);
	f.port_rc = preset->port_rc;
	f.qp_open_rc = preset->qp_open_rc;
	ping_test_serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	if (line)
		ping_test_serve_ev(&s, PING_SERVE_EV_LINE, 0, line);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_FAILED);
	CU_ASSERT_EQUAL(f.closes, 1);
	CU_ASSERT_TRUE_FATAL(f.n_lines >= 1);
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(f.lines[f.n_lines - 1], &m, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.type, PING_MSG_ERROR);
	CU_ASSERT_TRUE(ping_test_has(m.text, want));
	CU_ASSERT_TRUE(ping_test_has(s.reason, want));
}

static void test_ping_serve_refusals(void)
{
	struct ping_test_serve preset;
	char info[PING_PROTO_LINE_MAX];

	memset(&preset, 0, sizeof(preset));
	preset.port_rc = -ENETDOWN;
	serve_refuses(&preset, NULL,
		      "port 1 of mlx5_0 is INIT: is a subnet manager running? (run nanosm)");
	memset(&preset, 0, sizeof(preset));
	serve_refuses(&preset, INFO_HEAD "qpn=0x12a",
		      "malformed line: INFO: field 'qpn': \"0x12a\" is not 0x and 6 hex digits");
	serve_refuses(&preset, "GET / HTTP/1.1", "malformed line: not a nanosm-ping peer");
	/* UD message above this port's MTU (2048) */
	snprintf(info, sizeof(info), "%s",
		 INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT
			   " mtu=4096 size=4096 rkey=0x00000000 addr=0x0000000000000000");
	serve_refuses(&preset, info, "INFO refused: message size 4096 is above the path MTU 2048");
	serve_refuses(&preset, "NSMPING/1 HELLO lid=4 gid=fe80:0000:0000:0000:0002:c903:00a1:b2c4",
		      "protocol error: HELLO while greeted");
	preset.qp_open_rc = -ENOMEM;
	serve_refuses(
	    &preset, CLIENT_INFO_UD,
	    "server cannot create a QP: ibv_reg_mr of 8388608 bytes: Cannot allocate memory");
}

static void test_ping_serve_other(void)
{
	struct ping_serve s;
	struct ping_test_serve f;

	/* LID query: DONE right after HELLO */
	serve_start(&s, &f);
	ping_test_serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	ping_test_serve_ev(&s, PING_SERVE_EV_LINE, 0, "NSMPING/1 DONE");
	CU_ASSERT_EQUAL(s.state, PING_SERVE_DONE);
	CU_ASSERT_STRING_EQUAL(f.lines[1], "NSMPING/1 BYE rx=0");
	CU_ASSERT_STRING_EQUAL(s.reason, "LID query only");
	CU_ASSERT_EQUAL(f.qp_opens, 0);
	/* no INFO in time */
	serve_start(&s, &f);
	ping_test_serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	ping_test_serve_ev(&s, PING_SERVE_EV_TIMEOUT, 9 * SEC, NULL);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_GREETED);
	ping_test_serve_ev(&s, PING_SERVE_EV_TIMEOUT, 10 * SEC, NULL);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_FAILED);
	CU_ASSERT_STRING_EQUAL(s.reason, "no INFO from the client within 10000 ms");
	CU_ASSERT_EQUAL(f.closes, 1);
	/* the client vanishes while served */
	serve_start(&s, &f);
	ping_test_serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	ping_test_serve_ev(&s, PING_SERVE_EV_LINE, 0, CLIENT_INFO_UD);
	ping_test_serve_ev(&s, PING_SERVE_EV_CLOSED, 0, NULL);
	CU_ASSERT_STRING_EQUAL(s.reason, "client closed the side channel while serving");
	/* a completion error on the QP */
	serve_start(&s, &f);
	ping_test_serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	ping_test_serve_ev(&s, PING_SERVE_EV_LINE, 0, CLIENT_INFO_UD);
	{
		struct ping_serve_event ev = {.type = PING_SERVE_EV_ERROR,
					      .what =
						  "receive completion error: local length error"};
		ping_serve_event(&s, &ev);
	}
	CU_ASSERT_STRING_EQUAL(s.reason, "receive completion error: local length error");
	/* the client sends ERROR */
	serve_start(&s, &f);
	ping_test_serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	ping_test_serve_ev(&s, PING_SERVE_EV_LINE, 0, "NSMPING/1 ERROR interrupted");
	CU_ASSERT_STRING_EQUAL(s.reason, "client gave up: interrupted");
	/* the HELLO cannot be sent */
	serve_start(&s, &f);
	f.send_rc = -ECONNRESET;
	ping_test_serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_FAILED);
	CU_ASSERT_STRING_EQUAL(s.reason, "side channel: send: Connection reset by peer");
	CU_ASSERT_EQUAL(f.closes, 1);
	CU_ASSERT_STRING_EQUAL(ping_serve_state_name(PING_SERVE_SERVING), "serving");
}

static void test_ping_serve_long_error(void)
{
	struct ping_serve s;
	struct ping_test_serve f;
	struct ping_msg m;
	char err[256];
	char line[PING_PROTO_LINE_MAX];

	/* a 250-character reason: the ERROR text is cut to 200, still valid */
	serve_start(&s, &f);
	f.long_err = 1;
	ping_test_serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	ping_test_serve_ev(&s, PING_SERVE_EV_LINE, 0, CLIENT_INFO_UD);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_FAILED);
	CU_ASSERT_EQUAL_FATAL(f.n_lines, 2);
	CU_ASSERT_TRUE(strlen(f.lines[1]) < PING_PROTO_LINE_MAX);
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(f.lines[1], &m, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.type, PING_MSG_ERROR);
	CU_ASSERT_EQUAL(strlen(m.text), PING_PROTO_TEXT_MAX);
	CU_ASSERT_TRUE(ping_test_has(m.text, "server cannot create a QP: eeee"));
	CU_ASSERT_TRUE(strlen(s.reason) > PING_PROTO_TEXT_MAX);
	(void)line;
}

void test_ping_serve_register(void)
{
	CU_pSuite s = CU_add_suite("ping_serve", NULL, NULL);

	if (!s)
		return;
	CU_add_test(s, "session", test_ping_serve_happy);
	CU_add_test(s, "refusals answer ERROR", test_ping_serve_refusals);
	CU_add_test(s, "LID query, timeout, hangup, errors", test_ping_serve_other);
	CU_add_test(s, "long ERROR text cut", test_ping_serve_long_error);
}
