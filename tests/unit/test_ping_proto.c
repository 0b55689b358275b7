/*
 * test_ping_proto.c - unit tests for nanosm-ping's side-channel protocol
 * (tools/ping/ping_proto.c): the exact text of every message, parse and encode
 * errors that name the field, the INFO checks, the data-path header, the line
 * buffer.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/ping_test.h"
#include "tests/unit/unit.h"
#include "tools/ping/ping_proto.h"

static void test_ping_proto_info_exact(void)
{
	struct ping_msg m, back;
	char err[256];
	char line[PING_PROTO_LINE_MAX];
	int n;

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_INFO;
	ping_test_info_fill(&m.info, PING_MODE_UD, 3, 0x12a, ping_test_gid_a);
	n = ping_proto_encode(&m, line, sizeof(line), err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(line, "NSMPING/1 INFO mode=ud lid=3 qpn=0x00012a psn=0x3c4d5e "
				     "gid=fe80:0000:0000:0000:0002:c903:00a1:b2c3 mtu=4096 size=64 "
				     "rkey=0x00000000 addr=0x0000000000000000");
	CU_ASSERT_EQUAL(n, (int)strlen(line));
	CU_ASSERT_TRUE(n < PING_PROTO_LINE_MAX);
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(line, &back, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(back.type, PING_MSG_INFO);
	CU_ASSERT_EQUAL(memcmp(&back.info, &m.info, sizeof(m.info)), 0);
}

static void test_ping_proto_round_trip(void)
{
	struct ping_msg m, back;
	char err[256];
	char line[PING_PROTO_LINE_MAX];

	/* RC with the largest values in every field */
	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_INFO;
	ping_test_info_fill(&m.info, PING_MODE_RC, 0xBFFF, 0xffffff, ping_test_gid_b);
	m.info.psn = 0xffffff;
	m.info.mtu = 256;
	m.info.size = PING_PROTO_SIZE_MAX;
	m.info.rkey = 0xffffffff;
	m.info.addr = 0xffffffffffffffffULL;
	CU_ASSERT_TRUE(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)) > 0);
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(line, &back, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(memcmp(&back.info, &m.info, sizeof(m.info)), 0);

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_HELLO;
	m.lid = 4;
	memcpy(m.gid, ping_test_gid_b, 16);
	CU_ASSERT_TRUE(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)) > 0);
	CU_ASSERT_STRING_EQUAL(line, HELLO_B);
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(line, &back, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(back.lid, 4);
	CU_ASSERT_EQUAL(memcmp(back.gid, ping_test_gid_b, 16), 0);

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_BYE;
	m.rx = 18446744073709551615ULL;
	CU_ASSERT_TRUE(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)) > 0);
	CU_ASSERT_STRING_EQUAL(line, "NSMPING/1 BYE rx=18446744073709551615");
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(line, &back, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(back.rx, 18446744073709551615ULL);

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_DONE;
	CU_ASSERT_TRUE(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)) > 0);
	CU_ASSERT_STRING_EQUAL(line, "NSMPING/1 DONE");
	CU_ASSERT_EQUAL(ping_proto_parse(line, &back, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(back.type, PING_MSG_DONE);

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_ERROR;
	strcpy(m.text, "port 1 of mlx5_0 is INIT: is a subnet manager running? (run nanosm)");
	CU_ASSERT_TRUE(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)) > 0);
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(line, &back, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(back.type, PING_MSG_ERROR);
	CU_ASSERT_STRING_EQUAL(back.text, m.text);
}

/* Parsing line must fail with rc and a message containing want. */
static void parse_fails(const char *line, int rc, const char *want)
{
	struct ping_msg m;
	char err[256] = "";

	CU_ASSERT_EQUAL(ping_proto_parse(line, &m, err, sizeof(err)), rc);
	CU_ASSERT_TRUE(ping_test_has(err, want));
}

static void test_ping_proto_parse_errors(void)
{
	parse_fails("SSH-2.0-OpenSSH_9.2p1 Debian-2\r", -EPROTO,
		    "not a nanosm-ping peer (line starts \"SSH-2.0-OpenSSH_9.2p1 Debian-2?\")");
	parse_fails("", -EPROTO, "not a nanosm-ping peer");
	parse_fails("NSMPING/", -EPROTO, "no protocol version");
	parse_fails("NSMPING/1x HELLO", -EPROTO, "bad protocol version");
	parse_fails("NSMPING/2 HELLO lid=4", -EPROTONOSUPPORT,
		    "peer speaks NSMPING/2, this nanosm-ping speaks NSMPING/1");
	parse_fails("NSMPING/1", -EBADMSG, "no message type");
	parse_fails("NSMPING/1 ", -EBADMSG, "no message type");
	parse_fails("NSMPING/1 HELO lid=4", -EBADMSG, "unknown message \"HELO\"");
	parse_fails("NSMPING/1 DONE\t", -EBADMSG, "non-printable byte 0x09 at column 15");
	parse_fails("NSMPING/1 DONE now", -EBADMSG,
		    "DONE: unexpected text after the last field: \" now\"");
	parse_fails("NSMPING/1 ERROR", -EBADMSG, "ERROR without a text");
	parse_fails("NSMPING/1 ERROR ", -EBADMSG, "ERROR text must be 1..200");
	parse_fails("NSMPING/1 BYE", -EBADMSG, "BYE: missing field 'rx'");
	parse_fails("NSMPING/1 BYE rx=-1", -EBADMSG, "field 'rx': \"-1\" is not a decimal number");
	parse_fails("NSMPING/1 BYE rx=18446744073709551616", -EBADMSG,
		    "is above 18446744073709551615");
	parse_fails("NSMPING/1 BYE rx=", -EBADMSG, "field 'rx' is empty");
	parse_fails("NSMPING/1 BYE  rx=1", -EBADMSG, "expected field 'rx', found \"\"");
	parse_fails("NSMPING/1 HELLO lid=0 " GID_TXT, -EBADMSG,
		    "HELLO: field 'lid': 0 is not a unicast LID (1..49151)");
	parse_fails("NSMPING/1 HELLO lid=49152 " GID_TXT, -EBADMSG, "49152 is not a unicast LID");
	parse_fails("NSMPING/1 HELLO lid=65536 " GID_TXT, -EBADMSG, "65536 is above 65535");
	parse_fails("NSMPING/1 HELLO gid=fe80:0000:0000:0000:0002:c903:00a1:b2c3 lid=4", -EBADMSG,
		    "expected field 'lid', found \"gid=fe80:0000:0000:0000:0002:c9");
	parse_fails(
	    "NSMPING/1 HELLO lid=4 gid=fe80::2:c903:a1:b2c3", -EBADMSG,
	    "field 'gid': \"fe80::2:c903:a1:b2c3\" is not a GID (8 groups of 4 hex digits)");
	parse_fails("NSMPING/1 HELLO lid=4 gid=fe80:0000:0000:0000:0002:c903:00a1:b2cg", -EBADMSG,
		    "is not a GID");
	parse_fails("NSMPING/1 HELLO lid=4 gid=fe80-0000:0000:0000:0002:c903:00a1:b2c3", -EBADMSG,
		    "is not a GID");
	parse_fails("NSMPING/1 HELLO lid=4 gid=0000:0000:0000:0000:0000:0000:0000:0000", -EBADMSG,
		    "field 'gid': all zero");
	parse_fails("NSMPING/1 HELLO lid=4", -EBADMSG, "missing field 'gid'");
}

static void test_ping_proto_info_errors(void)
{
	parse_fails("NSMPING/1 INFO mode=xrc lid=3", -EBADMSG,
		    "field 'mode': \"xrc\" is not ud or rc");
	parse_fails(INFO_HEAD "qpn=0x12a psn=0x3c4d5e " GID_TXT INFO_TAIL, -EBADMSG,
		    "INFO: field 'qpn': \"0x12a\" is not 0x and 6 hex digits");
	parse_fails(INFO_HEAD "qpn=0x1000000 psn=0x3c4d5e " GID_TXT INFO_TAIL, -EBADMSG,
		    "\"0x1000000\" is not 0x and 6 hex digits");
	parse_fails(INFO_HEAD "qpn=0x000001 psn=0x3c4d5e " GID_TXT INFO_TAIL, -EBADMSG,
		    "field 'qpn': 0x1 is not a 24-bit QP number above 1");
	parse_fails(INFO_HEAD "qpn=0x00012a psn=3c4d5e " GID_TXT INFO_TAIL, -EBADMSG,
		    "field 'psn': \"3c4d5e\" is not 0x and 6 hex digits");
	parse_fails(INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT
			      " mtu=300 size=64 rkey=0x00000000 addr=0x0000000000000000",
		    -EBADMSG, "field 'mtu': 300 is not 256, 512, 1024, 2048 or 4096");
	parse_fails(INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT
			      " mtu=4096 size=4 rkey=0x00000000 addr=0x0000000000000000",
		    -EBADMSG, "field 'size': 4 is out of range 8..8388608");
	parse_fails(INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT
			      " mtu=4096 size=8388609 rkey=0x00000000 addr=0x0000000000000000",
		    -EBADMSG, "out of range");
	parse_fails(INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT
			      " mtu=4096 size=64 rkey=0x0000 addr=0x0000000000000000",
		    -EBADMSG, "field 'rkey': \"0x0000\" is not 0x and 8 hex digits");
	parse_fails(INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT
			      " mtu=4096 size=64 rkey=0x00000000",
		    -EBADMSG, "missing field 'addr'");
	parse_fails(INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT INFO_TAIL " extra=1", -EBADMSG,
		    "INFO: unexpected text after the last field: \" extra=1\"");
	parse_fails(INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT INFO_TAIL " ", -EBADMSG,
		    "unexpected text after the last field");
	/* upper-case hex is accepted */
	{
		struct ping_msg m;
		char err[256];
		CU_ASSERT_EQUAL(ping_proto_parse(INFO_HEAD
						 "qpn=0x00012A psn=0x3C4D5E " GID_TXT INFO_TAIL,
						 &m, err, sizeof(err)),
				0);
		CU_ASSERT_EQUAL(m.info.qpn, 0x12a);
	}
}

static void test_ping_proto_long_line(void)
{
	char line[400];

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, "NSMPING/1 ERROR ", 16);
	parse_fails(line, -EBADMSG, "line of 399 bytes (at most 255)");
}

static void test_ping_proto_encode_errors(void)
{
	struct ping_msg m;
	char err[256] = "";
	char line[PING_PROTO_LINE_MAX], small[20];

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_INFO;
	ping_test_info_fill(&m.info, PING_MODE_UD, 3, 0x12a, ping_test_gid_a);
	m.info.lid = 0;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(ping_test_has(err, "field 'lid'"));
	m.info.lid = 3;
	m.info.qpn = 1;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	m.info.qpn = 0x12a;
	m.info.psn = 0x1000000;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(ping_test_has(err, "field 'psn'"));
	m.info.psn = 1;
	memset(m.info.gid, 0, 16);
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	memcpy(m.info.gid, ping_test_gid_a, 16);
	m.info.mtu = 1500;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	m.info.mtu = 2048;
	m.info.mode = (enum ping_mode)7;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(ping_test_has(err, "field 'mode'"));
	m.info.mode = PING_MODE_UD;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, small, sizeof(small), err, sizeof(err)), -ENOSPC);

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_ERROR;
	strcpy(m.text, "bad\nline");
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(ping_test_has(err, "non-printable byte 0x0a"));
	m.text[0] = '\0';
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	m.type = (enum ping_msg_type)99;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
}

static void test_ping_proto_checks(void)
{
	struct ping_info c, s;
	char err[256] = "";

	ping_test_info_fill(&c, PING_MODE_UD, 3, 0x100, ping_test_gid_a);
	ping_test_info_fill(&s, PING_MODE_UD, 4, 0x200, ping_test_gid_b);
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), 0);
	s.mode = PING_MODE_RC;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(ping_test_has(err, "server answered in rc mode, we asked for ud"));
	s.mode = PING_MODE_UD;
	s.size = 128;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(ping_test_has(err, "server accepted message size 128, we asked for 64"));
	c.size = s.size = 4096;
	s.mtu = 2048;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(ping_test_has(err, "message size 4096 is above the path MTU 2048"));
	s.mtu = 4096;
	s.rkey = 5;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(ping_test_has(err, "RDMA buffer (rkey/addr) in UD mode"));
	/* RC: needs a write buffer, no MTU limit on messages */
	c.mode = s.mode = PING_MODE_RC;
	c.size = s.size = 65536;
	s.rkey = 0;
	s.addr = 0x7f0000001000ULL;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(ping_test_has(err, "no RDMA write buffer"));
	s.rkey = 0x1234;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), 0);

	/* the server's view of a client */
	ping_test_info_fill(&c, PING_MODE_UD, 3, 0x100, ping_test_gid_a);
	CU_ASSERT_EQUAL(ping_proto_check_client(&c, 4096, err, sizeof(err)), 0);
	c.size = 4096;
	CU_ASSERT_EQUAL(ping_proto_check_client(&c, 1024, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(ping_test_has(err, "above the path MTU 1024"));
	c.mode = PING_MODE_RC;
	CU_ASSERT_EQUAL(ping_proto_check_client(&c, 1024, err, sizeof(err)), 0);
	c.addr = 1;
	CU_ASSERT_EQUAL(ping_proto_check_client(&c, 1024, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(ping_test_has(err, "client INFO carries rkey/addr"));
	CU_ASSERT_TRUE(ping_proto_mtu_valid(1024));
	CU_ASSERT_FALSE(ping_proto_mtu_valid(128));
}

static void test_ping_proto_payload(void)
{
	uint8_t buf[16];
	enum ping_payload_kind kind;
	uint32_t seq;

	ping_proto_payload_put(buf, PING_PAYLOAD_PONG, 0x123456);
	CU_ASSERT_EQUAL(memcmp(buf, "NSMP\x02\x12\x34\x56", 8), 0);
	CU_ASSERT_EQUAL(ping_proto_payload_get(buf, 8, &kind, &seq), 0);
	CU_ASSERT_EQUAL(kind, PING_PAYLOAD_PONG);
	CU_ASSERT_EQUAL(seq, 0x123456);
	ping_proto_payload_put(buf, PING_PAYLOAD_PING, 0x1000001); /* seq is 24 bits */
	CU_ASSERT_EQUAL(ping_proto_payload_get(buf, 64, &kind, &seq), 0);
	CU_ASSERT_EQUAL(kind, PING_PAYLOAD_PING);
	CU_ASSERT_EQUAL(seq, 1);
	CU_ASSERT_EQUAL(ping_proto_payload_get(buf, 7, &kind, &seq), -EBADMSG);
	buf[4] = 9;
	CU_ASSERT_EQUAL(ping_proto_payload_get(buf, 8, &kind, &seq), -EBADMSG);
	buf[4] = 1;
	buf[0] = 'X';
	CU_ASSERT_EQUAL(ping_proto_payload_get(buf, 8, &kind, &seq), -EBADMSG);
}

static void linebuf_put(struct ping_proto_linebuf *lb, const char *s, size_t n)
{
	size_t room;
	char *at = ping_proto_linebuf_room(lb, &room);

	CU_ASSERT_FATAL(n <= room);
	memcpy(at, s, n);
	ping_proto_linebuf_commit(lb, n);
}

static void test_ping_proto_linebuf(void)
{
	struct ping_proto_linebuf lb;
	char line[PING_PROTO_LINE_MAX], big[PING_PROTO_LINE_MAX + 10];

	ping_proto_linebuf_init(&lb);
	CU_ASSERT_EQUAL(ping_proto_linebuf_take(&lb, line, sizeof(line)), 0);
	linebuf_put(&lb, "NSMPING/1 DO", 12);
	CU_ASSERT_EQUAL(ping_proto_linebuf_take(&lb, line, sizeof(line)), 0);
	linebuf_put(&lb, "NE\nNSMPING/1 BYE rx=3\n\nNSM", 26);
	CU_ASSERT_EQUAL(ping_proto_linebuf_take(&lb, line, sizeof(line)), 1);
	CU_ASSERT_STRING_EQUAL(line, "NSMPING/1 DONE");
	CU_ASSERT_EQUAL(ping_proto_linebuf_take(&lb, line, sizeof(line)), 1);
	CU_ASSERT_STRING_EQUAL(line, "NSMPING/1 BYE rx=3");
	CU_ASSERT_EQUAL(ping_proto_linebuf_take(&lb, line, sizeof(line)), 1);
	CU_ASSERT_STRING_EQUAL(line, "");
	CU_ASSERT_EQUAL(ping_proto_linebuf_take(&lb, line, sizeof(line)), 0);
	CU_ASSERT_EQUAL(lb.len, 3);
	/* a NUL inside a line */
	linebuf_put(&lb, "P\0X\n", 4);
	CU_ASSERT_EQUAL(ping_proto_linebuf_take(&lb, line, sizeof(line)), -EBADMSG);
	/* too long without a newline */
	ping_proto_linebuf_init(&lb);
	memset(big, 'a', sizeof(big));
	linebuf_put(&lb, big, PING_PROTO_LINE_MAX);
	CU_ASSERT_EQUAL(ping_proto_linebuf_take(&lb, line, sizeof(line)), -EMSGSIZE);
	/* too long with a newline */
	ping_proto_linebuf_init(&lb);
	big[PING_PROTO_LINE_MAX + 2] = '\n';
	linebuf_put(&lb, big, PING_PROTO_LINE_MAX + 3);
	CU_ASSERT_EQUAL(ping_proto_linebuf_take(&lb, line, sizeof(line)), -EMSGSIZE);
}

void test_ping_proto_register(void)
{
	CU_pSuite s = CU_add_suite("ping_proto", NULL, NULL);

	if (!s)
		return;
	CU_add_test(s, "INFO line: exact text, round trip", test_ping_proto_info_exact);
	CU_add_test(s, "every message round trips, limits", test_ping_proto_round_trip);
	CU_add_test(s, "parse errors name the field", test_ping_proto_parse_errors);
	CU_add_test(s, "INFO field errors", test_ping_proto_info_errors);
	CU_add_test(s, "overlong line", test_ping_proto_long_line);
	CU_add_test(s, "encoder refuses bad fields", test_ping_proto_encode_errors);
	CU_add_test(s, "client/server INFO checks", test_ping_proto_checks);
	CU_add_test(s, "data-path header", test_ping_proto_payload);
	CU_add_test(s, "line buffer", test_ping_proto_linebuf);
}
