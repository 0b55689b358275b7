/*
 * test_ping.c - unit tests for nanosm-ping's pure core (tools/ping/ping_proto.c,
 * ping_opts.c, ping_report.c, ping_peer.c, ping_serve.c) and its TCP side
 * channel (tools/ping/ping_chan.c) over 127.0.0.1 only: a client peer and a server
 * session talk through real sockets with a fake verbs layer.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "tools/ping/ping_chan.h"
#include "tools/ping/ping_opts.h"
#include "tools/ping/ping_peer.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_report.h"
#include "tools/ping/ping_serve.h"

/* Also in unit.h once registered there; repeated so this file builds alone. */
void test_ping_register(void);

#define US 1000ULL    /* ns */
#define MS 1000000ULL /* ns */
#define SEC 1000000000ULL

static const uint8_t GID_A[16] = {0xfe, 0x80, 0,    0,	  0,	0,    0,    0,
				  0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3};
static const uint8_t GID_B[16] = {0xfe, 0x80, 0,    0,	  0,	0,    0,    0,
				  0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc4};

#define HELLO_B "NSMPING/1 HELLO lid=4 gid=fe80:0000:0000:0000:0002:c903:00a1:b2c4"

static void info_fill(struct ping_info *in, enum ping_mode mode, uint16_t lid, uint32_t qpn,
		      const uint8_t *gid)
{
	memset(in, 0, sizeof(*in));
	in->mode = mode;
	in->lid = lid;
	in->qpn = qpn;
	in->psn = 0x3c4d5e;
	memcpy(in->gid, gid, 16);
	in->mtu = 4096;
	in->size = 64;
}

static int has(const char *hay, const char *needle)
{
	int found = hay && strstr(hay, needle) != NULL;

	if (!found)
		fprintf(stderr, "\n  expected \"%s\" in \"%s\"\n", needle, hay ? hay : "(null)");
	return found;
}

/* ==== ping_proto ============================================================ */

static void test_ping_proto_info_exact(void)
{
	struct ping_msg m, back;
	char err[256];
	char line[PING_PROTO_LINE_MAX];
	int n;

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_INFO;
	info_fill(&m.info, PING_MODE_UD, 3, 0x12a, GID_A);
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
	info_fill(&m.info, PING_MODE_RC, 0xBFFF, 0xffffff, GID_B);
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
	memcpy(m.gid, GID_B, 16);
	CU_ASSERT_TRUE(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)) > 0);
	CU_ASSERT_STRING_EQUAL(line, HELLO_B);
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(line, &back, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(back.lid, 4);
	CU_ASSERT_EQUAL(memcmp(back.gid, GID_B, 16), 0);

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
	CU_ASSERT_TRUE(has(err, want));
}

#define INFO_HEAD "NSMPING/1 INFO mode=ud lid=3 "
#define GID_TXT "gid=fe80:0000:0000:0000:0002:c903:00a1:b2c3"
#define INFO_TAIL " mtu=4096 size=64 rkey=0x00000000 addr=0x0000000000000000"

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
	info_fill(&m.info, PING_MODE_UD, 3, 0x12a, GID_A);
	m.info.lid = 0;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(has(err, "field 'lid'"));
	m.info.lid = 3;
	m.info.qpn = 1;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	m.info.qpn = 0x12a;
	m.info.psn = 0x1000000;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(has(err, "field 'psn'"));
	m.info.psn = 1;
	memset(m.info.gid, 0, 16);
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	memcpy(m.info.gid, GID_A, 16);
	m.info.mtu = 1500;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	m.info.mtu = 2048;
	m.info.mode = (enum ping_mode)7;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(has(err, "field 'mode'"));
	m.info.mode = PING_MODE_UD;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, small, sizeof(small), err, sizeof(err)), -ENOSPC);

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_ERROR;
	strcpy(m.text, "bad\nline");
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(has(err, "non-printable byte 0x0a"));
	m.text[0] = '\0';
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
	m.type = (enum ping_msg_type)99;
	CU_ASSERT_EQUAL(ping_proto_encode(&m, line, sizeof(line), err, sizeof(err)), -EINVAL);
}

static void test_ping_proto_checks(void)
{
	struct ping_info c, s;
	char err[256] = "";

	info_fill(&c, PING_MODE_UD, 3, 0x100, GID_A);
	info_fill(&s, PING_MODE_UD, 4, 0x200, GID_B);
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), 0);
	s.mode = PING_MODE_RC;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(has(err, "server answered in rc mode, we asked for ud"));
	s.mode = PING_MODE_UD;
	s.size = 128;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(has(err, "server accepted message size 128, we asked for 64"));
	c.size = s.size = 4096;
	s.mtu = 2048;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(has(err, "message size 4096 is above the path MTU 2048"));
	s.mtu = 4096;
	s.rkey = 5;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(has(err, "RDMA buffer (rkey/addr) in UD mode"));
	/* RC: needs a write buffer, no MTU limit on messages */
	c.mode = s.mode = PING_MODE_RC;
	c.size = s.size = 65536;
	s.rkey = 0;
	s.addr = 0x7f0000001000ULL;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(has(err, "no RDMA write buffer"));
	s.rkey = 0x1234;
	CU_ASSERT_EQUAL(ping_proto_check_server(&c, &s, err, sizeof(err)), 0);

	/* the server's view of a client */
	info_fill(&c, PING_MODE_UD, 3, 0x100, GID_A);
	CU_ASSERT_EQUAL(ping_proto_check_client(&c, 4096, err, sizeof(err)), 0);
	c.size = 4096;
	CU_ASSERT_EQUAL(ping_proto_check_client(&c, 1024, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(has(err, "above the path MTU 1024"));
	c.mode = PING_MODE_RC;
	CU_ASSERT_EQUAL(ping_proto_check_client(&c, 1024, err, sizeof(err)), 0);
	c.addr = 1;
	CU_ASSERT_EQUAL(ping_proto_check_client(&c, 1024, err, sizeof(err)), -EBADMSG);
	CU_ASSERT_TRUE(has(err, "client INFO carries rkey/addr"));
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

/* ==== ping_opts ============================================================= */

static int opts_argv(struct ping_opts *o, const char *words, char *err, size_t errlen)
{
	char buf[512], *argv[32], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "nanosm-ping %s", words);
	for (char *w = strtok_r(buf, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	return ping_opts_parse(o, argc, argv, err, errlen);
}

static void opts_fail(const char *words, const char *want)
{
	struct ping_opts o;
	char err[256] = "";

	CU_ASSERT_EQUAL(opts_argv(&o, words, err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(has(err, want));
}

static void test_ping_opts_defaults(void)
{
	struct ping_opts o;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "host2", err, sizeof(err)), 0);
	CU_ASSERT_FALSE(o.server);
	CU_ASSERT_EQUAL(o.tcp_port, PING_PROTO_TCP_PORT);
	CU_ASSERT_EQUAL(o.mode, PING_MODE_UD);
	CU_ASSERT_EQUAL(o.iters, 1000);
	CU_ASSERT_EQUAL(o.ping_size, 64);
	CU_ASSERT_FALSE(o.bw);
	CU_ASSERT_EQUAL(o.bw_size, 0);
	CU_ASSERT_EQUAL(o.bw_count, 4096);
	CU_ASSERT_EQUAL(o.timeout_ms, 1000);
	CU_ASSERT_STRING_EQUAL(o.dev, "");
	CU_ASSERT_EQUAL(o.ib_port, 0);
	CU_ASSERT_EQUAL_FATAL(o.n_targets, 1);
	CU_ASSERT_STRING_EQUAL(o.targets[0].host, "host2");
	CU_ASSERT_EQUAL(o.targets[0].port, PING_PROTO_TCP_PORT);
	ping_opts_fini(&o);
}

static void test_ping_opts_client(void)
{
	struct ping_opts o;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(opts_argv(&o,
					"--rc -n 10 --bw -s 1m --bw-count=32 -t 250ms "
					"-d mlx5_1 -p2 --tcp-port 19000 --ping-size=2k -vv "
					"host2 host3:19001 [fe80::1%ib0]:7 fe80::2 4 0x10 "
					"--hosts h.txt",
					err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(o.mode, PING_MODE_RC);
	CU_ASSERT_EQUAL(o.iters, 10);
	CU_ASSERT_TRUE(o.bw);
	CU_ASSERT_EQUAL(o.bw_size, 1 << 20);
	CU_ASSERT_EQUAL(o.bw_count, 32);
	CU_ASSERT_EQUAL(o.timeout_ms, 250);
	CU_ASSERT_STRING_EQUAL(o.dev, "mlx5_1");
	CU_ASSERT_EQUAL(o.ib_port, 2);
	CU_ASSERT_EQUAL(o.tcp_port, 19000);
	CU_ASSERT_EQUAL(o.ping_size, 2048);
	CU_ASSERT_EQUAL(o.verbose, 2);
	CU_ASSERT_STRING_EQUAL(o.hosts_file, "h.txt");
	CU_ASSERT_EQUAL_FATAL(o.n_targets, 6);
	/* the default port applies to targets given before --tcp-port too */
	CU_ASSERT_STRING_EQUAL(o.targets[0].host, "host2");
	CU_ASSERT_EQUAL(o.targets[0].port, 19000);
	CU_ASSERT_STRING_EQUAL(o.targets[1].host, "host3");
	CU_ASSERT_EQUAL(o.targets[1].port, 19001);
	CU_ASSERT_STRING_EQUAL(o.targets[2].host, "fe80::1%ib0");
	CU_ASSERT_EQUAL(o.targets[2].port, 7);
	CU_ASSERT_STRING_EQUAL(o.targets[3].host, "fe80::2");
	CU_ASSERT_EQUAL(o.targets[3].port, 19000);
	CU_ASSERT_EQUAL(o.targets[4].lid, 4);
	CU_ASSERT_STRING_EQUAL(o.targets[4].host, "");
	CU_ASSERT_EQUAL(o.targets[5].lid, 16);
	CU_ASSERT_EQUAL(ping_opts_lid_targets(&o), 2);
	ping_opts_fini(&o);

	CU_ASSERT_EQUAL_FATAL(
	    opts_argv(&o, "--timeout=0.5 --all hosts.txt -- -odd-host", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.timeout_ms, 500);
	CU_ASSERT_STRING_EQUAL(o.all_file, "hosts.txt");
	CU_ASSERT_EQUAL_FATAL(o.n_targets, 1);
	CU_ASSERT_STRING_EQUAL(o.targets[0].host, "-odd-host");
	ping_opts_fini(&o);

	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--rc --ud -t 2 --all h", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.mode, PING_MODE_UD); /* the last one wins */
	CU_ASSERT_EQUAL(o.timeout_ms, 2000);
	ping_opts_fini(&o);
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "-t 1.25s --all h", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.timeout_ms, 1250);
	ping_opts_fini(&o);
}

static void test_ping_opts_server(void)
{
	struct ping_opts o;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(
	    opts_argv(&o, "--server --tcp-port=18600 -d mlx5_0 -p 1 -v", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(o.server);
	CU_ASSERT_EQUAL(o.tcp_port, 18600);
	CU_ASSERT_STRING_EQUAL(o.dev, "mlx5_0");
	CU_ASSERT_EQUAL(o.ib_port, 1);
	CU_ASSERT_EQUAL(o.n_targets, 0);
	ping_opts_fini(&o);
	opts_fail("--server host2", "--server takes no targets (\"host2\")");
	opts_fail("--server --bw", "--bw is a client option");
	opts_fail("--server -n 5", "--iters is a client option");
	opts_fail("--server --all f", "--all is a client option");
	/* --help wins over everything else */
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--server --bw -h", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(o.help);
	ping_opts_fini(&o);
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--version", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(o.version);
	ping_opts_fini(&o);
}

static void test_ping_opts_errors(void)
{
	opts_fail("", "no target: give HOST, LID or --all HOSTS_FILE (or --server)");
	opts_fail("--bogus host2", "unknown option \"--bogus\"");
	opts_fail("--bogus=1 host2", "unknown option \"--bogus\"");
	opts_fail("-x host2", "unknown option \"-x\"");
	opts_fail("-vx host2", "unknown option \"-x\" in \"-vx\"");
	opts_fail("-vn host2", "-n needs a value");
	opts_fail("host2 -n", "-n needs a value");
	opts_fail("--bw=1 host2", "--bw takes no value");
	opts_fail("-n 0 host2", "-n: 0 is out of range 1..10000000");
	opts_fail("-n ten host2", "-n: \"ten\" is not a number");
	opts_fail("-n 99999999999999999999999 host2", "is too large");
	opts_fail("--tcp-port 0 host2", "--tcp-port: 0 is out of range 1..65535");
	opts_fail("-p 0 host2", "-p: 0 is out of range 1..254");
	opts_fail("-d 0123456789012345678901234567890123456789012345678901234567890123 h",
		  "-d: device name must be 1..63 characters");
	opts_fail("--tcp-port 65536 host2", "out of range");
	opts_fail("-p 65536 host2", "-p: 65536 is out of range 1..254");
	opts_fail("--ping-size 4 host2", "--ping-size: 4 is out of range 8..8388608");
	opts_fail("--ping-size 8k host2", "--ping-size 8192: a UD message must fit in one packet");
	opts_fail("--bw -s 9m host2", "-s: 9m is out of range");
	opts_fail("--bw -s 8k host2", "--size 8192: a UD message must fit in one packet");
	opts_fail("-s 4k host2", "--size sets the bandwidth message size: add --bw");
	opts_fail("-t 0 host2", "-t: 0 is out of range 1ms..3600s");
	opts_fail("-t 1.2345 host2", "is not a duration");
	opts_fail("-t 1. host2", "is not a duration");
	opts_fail("-t soon host2", "is not a duration");
	opts_fail("-t 3601 host2", "out of range");
	opts_fail("4", "LID target 4 needs --hosts FILE");
	opts_fail("--all a --hosts b", "give --all or --hosts, not both");
	opts_fail("0", "LID target 0: not a unicast LID");
	opts_fail("49152 --hosts h", "LID target 49152: not a unicast LID");
	opts_fail("0x --hosts h", "LID target: \"0x\" is not a number");
}

/* -d, -p and -g mean the CA, its port and the port GUID, as for nanosm
 * and nanosm-verify; the side channel's TCP port is --tcp-port. */
static void test_ping_opts_port_letters(void)
{
	struct ping_opts o;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--ca mlx5_0 --port 2 host2", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(o.dev, "mlx5_0");
	CU_ASSERT_EQUAL(o.ib_port, 2);
	CU_ASSERT_EQUAL(o.tcp_port, PING_PROTO_TCP_PORT);
	CU_ASSERT_EQUAL(o.targets[0].port, PING_PROTO_TCP_PORT);
	ping_opts_fini(&o);
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "-g 0x0002c90300a00011 host2", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.port_guid, 0x0002c90300a00011ULL);
	ping_opts_fini(&o);
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--guid=0x21 --server", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.port_guid, 0x21);
	ping_opts_fini(&o);
	/* both ends take --tcp-port */
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--tcp-port 7000 host2 host3:7001", err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(o.tcp_port, 7000);
	CU_ASSERT_EQUAL(o.targets[0].port, 7000);
	CU_ASSERT_EQUAL(o.targets[1].port, 7001);
	CU_ASSERT_EQUAL(o.ib_port, 0);
	ping_opts_fini(&o);
	/* the old meaning of -p (a TCP port) is explained, the old names too */
	opts_fail("-p 18600 host2", "-p: 18600 is not an InfiniBand port (1..254): -p/--port is "
				    "the IB port, as in nanosm; the side channel's TCP port is "
				    "--tcp-port");
	opts_fail("--server --port 18600", "--port: 18600 is not an InfiniBand port");
	opts_fail("-i 1 host2", "-i is gone: the IB port is -p/--port");
	opts_fail("--ib-port 1 host2", "--ib-port is now -p/--port, as in nanosm");
	opts_fail("--ib-dev=mlx5_0 host2", "--ib-dev is now -d/--ca, as in nanosm");
	opts_fail("-g 0 host2", "-g: 0 is out of range 1..");
	opts_fail("-g xyz host2", "-g: \"xyz\" is not a number");
	opts_fail("-g 0x21 -d mlx5_0 host2", "give -g GUID or -d CA [-p PORT], not both");
	opts_fail("-p 1 -g 0x21 host2", "give -g GUID or -d CA [-p PORT], not both");
}

static void target_fail(const char *s, const char *want)
{
	struct ping_target t;
	char err[256] = "";

	CU_ASSERT_EQUAL(ping_opts_parse_target(s, 18555, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(has(err, want));
}

static void test_ping_opts_targets(void)
{
	struct ping_target t;
	char err[256];
	char name[300];

	CU_ASSERT_EQUAL(ping_opts_parse_target("10.0.0.2", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(t.host, "10.0.0.2");
	CU_ASSERT_EQUAL(t.lid, 0);
	CU_ASSERT_STRING_EQUAL(ping_opts_target_name(&t, 18555, name, sizeof(name)), "10.0.0.2");
	CU_ASSERT_EQUAL(ping_opts_parse_target("host-2.lab_x:1", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(ping_opts_target_name(&t, 18555, name, sizeof(name)),
			       "host-2.lab_x:1");
	CU_ASSERT_EQUAL(ping_opts_parse_target("[::1]:9", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(t.host, "::1");
	CU_ASSERT_STRING_EQUAL(ping_opts_target_name(&t, 18555, name, sizeof(name)), "[::1]:9");
	CU_ASSERT_EQUAL(ping_opts_parse_target("[::1]", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.port, 18555);
	CU_ASSERT_EQUAL(ping_opts_parse_target("0x2A", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.lid, 42);
	CU_ASSERT_STRING_EQUAL(ping_opts_target_name(&t, 18555, name, sizeof(name)), "lid 42");
	CU_ASSERT_EQUAL(ping_opts_parse_target("49151", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.lid, 49151);
	target_fail("", "empty target");
	target_fail(":80", "empty host name");
	target_fail("host:", "port: \"\" is not a number");
	target_fail("host:http", "port: \"http\" is not a number");
	target_fail("host:0", "port: 0 is out of range");
	target_fail("[::1", "expected [IPV6] or [IPV6]:PORT");
	target_fail("[::1]x", "expected [IPV6] or [IPV6]:PORT");
	target_fail("[]:5", "empty host name");
	target_fail("ho st", "' ' is not allowed");
	target_fail("host/24", "'/' is not allowed");
	target_fail("99999999999", "not a unicast LID");
}

static void test_ping_opts_hosts(void)
{
	const char *text = "# lab hosts\n"
			   "host1\n"
			   "\n"
			   "  host2:18600   # the odd one\r\n"
			   "\t10.0.0.3\n"
			   "host4";
	struct ping_target *list = NULL;
	char err[256] = "";
	size_t n = 0;

	CU_ASSERT_EQUAL_FATAL(ping_opts_parse_hosts(text, strlen(text), "hosts.txt", 18555, &list,
						    &n, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT_STRING_EQUAL(list[0].host, "host1");
	CU_ASSERT_STRING_EQUAL(list[1].host, "host2");
	CU_ASSERT_EQUAL(list[1].port, 18600);
	CU_ASSERT_STRING_EQUAL(list[2].host, "10.0.0.3");
	CU_ASSERT_STRING_EQUAL(list[3].host, "host4");
	free(list);

#define HOSTS_FAIL(t, want)                                                                        \
	do {                                                                                       \
		list = NULL;                                                                       \
		CU_ASSERT_EQUAL(ping_opts_parse_hosts(t, strlen(t), "h.txt", 18555, &list, &n,     \
						      err, sizeof(err)),                           \
				-EINVAL);                                                          \
		CU_ASSERT_PTR_NULL(list);                                                          \
		CU_ASSERT_TRUE(has(err, want));                                                    \
	} while (0)
	HOSTS_FAIL("host1\nhost2 host3\n", "h.txt:2: one host per line, found \"host2 host3\"");
	HOSTS_FAIL("host1\n\nhost1\n", "h.txt:3: host1 is listed twice");
	HOSTS_FAIL("HOST1:18555\nhost1\n", "h.txt:2: host1 is listed twice");
	HOSTS_FAIL("host1\n4\n", "h.txt:2: 4 is a LID; a hosts file lists hosts");
	HOSTS_FAIL("host1\nbad:port\n", "h.txt:2: target \"bad:port\": port");
	HOSTS_FAIL("# nothing\n\n", "h.txt: no hosts in the file");
	HOSTS_FAIL("", "h.txt: no hosts in the file");
	{
		char bin[] = "host1\nho\0st\n";
		list = NULL;
		CU_ASSERT_EQUAL(ping_opts_parse_hosts(bin, sizeof(bin) - 1, "h.txt", 18555, &list,
						      &n, err, sizeof(err)),
				-EINVAL);
		CU_ASSERT_TRUE(has(err, "h.txt:2: line too long or not text"));
	}
#undef HOSTS_FAIL
}

static void test_ping_opts_plan(void)
{
	struct ping_opts o;
	char err[256];
	struct ping_target file[3];
	struct ping_plan_item *plan = NULL;
	size_t n = 0;

	CU_ASSERT_EQUAL(ping_opts_parse_target("host1", 18555, &file[0], err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ping_opts_parse_target("host2", 18555, &file[1], err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ping_opts_parse_target("host3", 18555, &file[2], err, sizeof(err)), 0);

	/* LID targets: hosts named directly first, the rest of the file resolve-only */
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "host2 6 host2 hostX --hosts f", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(ping_opts_plan(&o, file, 3, &plan, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT_STRING_EQUAL(plan[0].target.host, "host2");
	CU_ASSERT_FALSE(plan[0].resolve_only);
	CU_ASSERT_STRING_EQUAL(plan[1].target.host, "hostX");
	CU_ASSERT_FALSE(plan[1].resolve_only);
	CU_ASSERT_STRING_EQUAL(plan[2].target.host, "host1");
	CU_ASSERT_TRUE(plan[2].resolve_only);
	CU_ASSERT_STRING_EQUAL(plan[3].target.host, "host3");
	CU_ASSERT_TRUE(plan[3].resolve_only);
	free(plan);
	ping_opts_fini(&o);

	/* --all: every host tested, none resolve-only, even with LID targets */
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--all f 4", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(ping_opts_plan(&o, file, 3, &plan, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_FALSE(plan[i].resolve_only);
	free(plan);
	ping_opts_fini(&o);

	/* --hosts without LID targets: the file is not contacted */
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "host9 --hosts f", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(ping_opts_plan(&o, file, 3, &plan, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	free(plan);
	ping_opts_fini(&o);
}

/* ==== ping_report =========================================================== */

static void test_ping_report_stats(void)
{
	uint64_t one[] = {1500};
	uint64_t two[] = {3000, 1000};
	uint64_t five[] = {3400, 1900, 2100, 2000, 2100};
	uint64_t many[1000];
	struct ping_stats st;

	CU_ASSERT_EQUAL(ping_report_stats(one, 0, &st), -EINVAL);
	CU_ASSERT_EQUAL(ping_report_stats(one, 1, &st), 0);
	CU_ASSERT_EQUAL(st.min, 1500);
	CU_ASSERT_EQUAL(st.median, 1500);
	CU_ASSERT_EQUAL(st.p99, 1500);
	CU_ASSERT_EQUAL(ping_report_stats(two, 2, &st), 0);
	CU_ASSERT_EQUAL(st.median, 2000); /* mean of the middle two */
	CU_ASSERT_EQUAL(st.p99, 3000);
	CU_ASSERT_EQUAL(ping_report_stats(five, 5, &st), 0);
	CU_ASSERT_EQUAL(st.n, 5);
	CU_ASSERT_EQUAL(st.min, 1900);
	CU_ASSERT_EQUAL(st.median, 2100);
	CU_ASSERT_EQUAL(st.p99, 3400);
	CU_ASSERT_EQUAL(st.max, 3400);
	/* 1000 samples, 1..1000 us in scrambled order: p99 is the 990th */
	for (unsigned i = 0; i < 1000; i++)
		many[i] = ((i * 7919u) % 1000 + 1) * US;
	CU_ASSERT_EQUAL(ping_report_stats(many, 1000, &st), 0);
	CU_ASSERT_EQUAL(st.min, 1 * US);
	CU_ASSERT_EQUAL(st.max, 1000 * US);
	CU_ASSERT_EQUAL(st.median, 500 * US + 500); /* (500 + 501) / 2 us */
	CU_ASSERT_EQUAL(st.p99, 990 * US);
	/* 100 samples: rank 99 */
	for (unsigned i = 0; i < 100; i++)
		many[i] = 100 - i;
	CU_ASSERT_EQUAL(ping_report_stats(many, 100, &st), 0);
	CU_ASSERT_EQUAL(st.p99, 99);
	/* 101 samples: rank ceil(99.99) = 100 */
	for (unsigned i = 0; i < 101; i++)
		many[i] = i + 1;
	CU_ASSERT_EQUAL(ping_report_stats(many, 101, &st), 0);
	CU_ASSERT_EQUAL(st.p99, 100);
	CU_ASSERT_EQUAL(st.median, 51);
}

static void result_ok(struct ping_result *r, const char *name, uint16_t lid)
{
	uint64_t s[] = {1900, 2100, 3400, 2050, 2100};

	memset(r, 0, sizeof(*r));
	r->verdict = PING_VERDICT_OK;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->lid = lid;
	r->sent = 5;
	ping_report_stats(s, 5, &r->rtt);
}

static void test_ping_report_format(void)
{
	struct ping_result r;
	char line[PING_REPORT_LINE_MAX], small[10];

	result_ok(&r, "host2", 4);
	CU_ASSERT_EQUAL(ping_report_format(&r, line, sizeof(line)), (int)strlen(line));
	CU_ASSERT_STRING_EQUAL(line, "OK lid 4 (host2): rtt min 1.9 median 2.1 p99 3.4 us");
	r.have_bw = 1;
	r.bw_bytes = 268435456;
	r.bw_ns = 191739611;
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line,
			       "OK lid 4 (host2): rtt min 1.9 median 2.1 p99 3.4 us, bw 11.2 Gb/s");
	/* UD: messages that did not arrive are shown */
	r.bw_sent = 4096;
	r.bw_rx = 4000;
	r.bw_bytes = 4000ULL * 4096;
	r.bw_ns = 20 * MS;
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_TRUE(has(line, ", bw 6.6 Gb/s (4000 of 4096 messages arrived)"));
	r.bw_bytes = 1000;
	r.bw_ns = 1 * MS;
	r.bw_sent = 0;
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_TRUE(has(line, ", bw 8.0 Mb/s"));
	r.loopback = 1;
	r.have_bw = 0;
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line,
			       "OK lid 4 (host2, loopback): rtt min 1.9 median 2.1 p99 3.4 us");

	memset(&r, 0, sizeof(r));
	r.verdict = PING_VERDICT_FAIL;
	strcpy(r.name, "host3");
	r.lid = 6;
	strcpy(r.reason, "no response (timeout 1s)");
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "FAIL lid 6 (host3): no response (timeout 1s)");
	r.name[0] = '\0';
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "FAIL lid 6: no response (timeout 1s)");
	r.lid = 0;
	strcpy(r.name, "host3:19000");
	strcpy(r.reason, "side channel: connect to host3:19000: Connection refused");
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(
	    line, "FAIL host3:19000: side channel: connect to host3:19000: Connection refused");

	/* a failure with measurements keeps them */
	result_ok(&r, "host2", 4);
	r.verdict = PING_VERDICT_FAIL;
	strcpy(r.reason, "1 of 5 pings lost (timeout 1s)");
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "FAIL lid 4 (host2): 1 of 5 pings lost (timeout 1s); rtt min "
				     "1.9 median 2.1 p99 3.4 us");
	CU_ASSERT_EQUAL(ping_report_format(&r, small, sizeof(small)), -ENOSPC);
}

static void test_ping_report_misc(void)
{
	char buf[200];
	struct ping_result res[4];

	CU_ASSERT_STRING_EQUAL(ping_report_duration(1000, buf, sizeof(buf)), "1s");
	CU_ASSERT_STRING_EQUAL(ping_report_duration(500, buf, sizeof(buf)), "0.5s");
	CU_ASSERT_STRING_EQUAL(ping_report_duration(1250, buf, sizeof(buf)), "1.25s");
	CU_ASSERT_STRING_EQUAL(ping_report_duration(1, buf, sizeof(buf)), "0.001s");
	CU_ASSERT_STRING_EQUAL(ping_report_duration(60000, buf, sizeof(buf)), "60s");
	CU_ASSERT_TRUE(ping_report_gbps(125, 100) == 10.0);
	CU_ASSERT_TRUE(ping_report_gbps(125, 0) == 0.0);

	result_ok(&res[0], "host1", 3);
	result_ok(&res[1], "host2", 4);
	memset(&res[2], 0, sizeof(res[2]));
	res[2].verdict = PING_VERDICT_FAIL;
	strcpy(res[2].name, "host3");
	memset(&res[3], 0, sizeof(res[3]));
	res[3].verdict = PING_VERDICT_SKIPPED;
	res[3].lid = 9;
	CU_ASSERT_TRUE(ping_report_lid_missing(6, "hosts.txt", res, 4, buf, sizeof(buf)) > 0);
	CU_ASSERT_STRING_EQUAL(
	    buf,
	    "FAIL lid 6: no server listed in hosts.txt reports this LID (could not ask host3)");
	res[2].verdict = PING_VERDICT_OK;
	ping_report_lid_missing(6, "hosts.txt", res, 4, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "FAIL lid 6: no server listed in hosts.txt reports this LID");
	res[2].verdict = PING_VERDICT_FAIL;
	ping_report_summary(res, 4, 1, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "4 paths: 2 OK, 2 FAIL");
	ping_report_summary(res, 1, 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1 path: 1 OK, 0 FAIL");
}

static struct ping_port_desc port_desc(const char *dev, unsigned port, enum ping_port_state st,
				       enum ping_link_layer link, uint16_t lid)
{
	struct ping_port_desc d;

	memset(&d, 0, sizeof(d));
	snprintf(d.dev, sizeof(d.dev), "%s", dev);
	d.port = port;
	d.state = st;
	d.link = link;
	d.lid = lid;
	d.mtu = 4096;
	return d;
}

static void port_problem(struct ping_port_desc d, int rc, const char *exact)
{
	char err[256] = "";

	CU_ASSERT_EQUAL(ping_report_port_usable(&d, err, sizeof(err)), rc);
	CU_ASSERT_STRING_EQUAL(err, exact);
}

static void test_ping_report_port(void)
{
	char err[256] = "";
	struct ping_port_desc d = port_desc("mlx5_0", 1, PING_PORT_ACTIVE, PING_LINK_IB, 3);

	CU_ASSERT_EQUAL(ping_report_port_usable(&d, err, sizeof(err)), 0);
	d.state = PING_PORT_ACTIVE_DEFER;
	CU_ASSERT_EQUAL(ping_report_port_usable(&d, err, sizeof(err)), 0);
	port_problem(port_desc("mlx5_0", 1, PING_PORT_INIT, PING_LINK_IB, 0), -ENETDOWN,
		     "port 1 of mlx5_0 is INIT: is a subnet manager running? (run nanosm)");
	port_problem(port_desc("mlx5_0", 1, PING_PORT_DOWN, PING_LINK_IB, 0), -ENETDOWN,
		     "port 1 of mlx5_0 is DOWN: no link (is the cable plugged in? see ibstat)");
	port_problem(port_desc("mlx5_0", 2, PING_PORT_ARMED, PING_LINK_IB, 7), -ENETDOWN,
		     "port 2 of mlx5_0 is ARMED: the subnet manager has not activated it yet (is "
		     "nanosm still sweeping?)");
	port_problem(port_desc("mlx5_0", 1, PING_PORT_NOP, PING_LINK_IB, 0), -ENETDOWN,
		     "port 1 of mlx5_0 is in state NOP (0), not ACTIVE");
	port_problem(
	    port_desc("mlx5_0", 1, PING_PORT_ACTIVE, PING_LINK_IB, 0), -EADDRNOTAVAIL,
	    "port 1 of mlx5_0 has LID 0: no subnet manager has assigned it a LID (run nanosm)");
	port_problem(port_desc("mlx5_2", 1, PING_PORT_ACTIVE, PING_LINK_ETHERNET, 0),
		     -EPROTONOSUPPORT,
		     "port 1 of mlx5_2 is Ethernet (RoCE): nanosm-ping tests InfiniBand ports "
		     "(choose one with -d/-p or -g)");
	CU_ASSERT_STRING_EQUAL(ping_report_port_state_name((enum ping_port_state)9), "UNKNOWN");
}

static void pick_fails(const struct ping_port_desc *ports, size_t n, const char *dev, unsigned port,
		       int rc, const char *exact)
{
	char err[256] = "";
	size_t idx = 99;

	CU_ASSERT_EQUAL(ping_report_pick_port(ports, n, dev, port, 0, &idx, err, sizeof(err)), rc);
	CU_ASSERT_STRING_EQUAL(err, exact);
	CU_ASSERT_EQUAL(idx, 99);
}

static void test_ping_report_pick(void)
{
	struct ping_port_desc ports[4] = {
	    port_desc("mlx5_0", 1, PING_PORT_ACTIVE, PING_LINK_ETHERNET, 0),
	    port_desc("mlx5_1", 1, PING_PORT_INIT, PING_LINK_IB, 0),
	    port_desc("mlx5_1", 2, PING_PORT_ACTIVE, PING_LINK_IB, 9),
	    port_desc("mlx5_2", 1, PING_PORT_ACTIVE, PING_LINK_IB, 4),
	};
	char err[256];
	size_t idx = 99;

	pick_fails(ports, 0, "", 0, -ENODEV, "no RDMA device found: is the HCA driver loaded?");
	/* default: the first usable InfiniBand port */
	CU_ASSERT_EQUAL(ping_report_pick_port(ports, 4, "", 0, 0, &idx, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(idx, 2);
	CU_ASSERT_EQUAL(ping_report_pick_port(ports, 4, NULL, 1, 0, &idx, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(idx, 3);
	CU_ASSERT_EQUAL(ping_report_pick_port(ports, 4, "mlx5_2", 0, 0, &idx, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(idx, 3);
	/* -g: the port with that GUID */
	ports[3].guid = 0x0002c90300a00021ULL;
	CU_ASSERT_EQUAL(
	    ping_report_pick_port(ports, 4, "", 0, 0x0002c90300a00021ULL, &idx, err, sizeof(err)),
	    0);
	CU_ASSERT_EQUAL(idx, 3);
	{
		char e[256] = "";
		size_t keep = 99;

		CU_ASSERT_EQUAL(ping_report_pick_port(ports, 4, "", 0, 0x99, &keep, e, sizeof(e)),
				-ENODEV);
		CU_ASSERT_STRING_EQUAL(e, "no RDMA port has GUID 0x0000000000000099 (devices: "
					  "mlx5_0, mlx5_1, mlx5_2)");
		CU_ASSERT_EQUAL(keep, 99);
	}
	/* the named port is not usable: say why */
	pick_fails(ports, 4, "mlx5_1", 1, -ENETDOWN,
		   "port 1 of mlx5_1 is INIT: is a subnet manager running? (run nanosm)");
	pick_fails(ports, 4, "mlx5_0", 0, -EPROTONOSUPPORT,
		   "port 1 of mlx5_0 is Ethernet (RoCE): nanosm-ping tests InfiniBand ports "
		   "(choose one with -d/-p or -g)");
	pick_fails(ports, 4, "mlx5_9", 0, -ENODEV,
		   "RDMA device mlx5_9 not found (found: mlx5_0, mlx5_1, mlx5_2)");
	pick_fails(ports, 4, "mlx5_2", 2, -ENODEV, "mlx5_2 has no port 2");
	pick_fails(ports, 4, "", 3, -ENODEV,
		   "no RDMA device has a port 3 (found: mlx5_0, mlx5_1, mlx5_2)");
	/* nothing usable: the first InfiniBand port's problem, not the Ethernet one's */
	ports[2].lid = 0;
	ports[3].state = PING_PORT_DOWN;
	pick_fails(ports, 4, "", 0, -ENETDOWN,
		   "port 1 of mlx5_1 is INIT: is a subnet manager running? (run nanosm)");
	pick_fails(ports, 1, "", 0, -EPROTONOSUPPORT,
		   "port 1 of mlx5_0 is Ethernet (RoCE): nanosm-ping tests InfiniBand ports "
		   "(choose one with -d/-p or -g)");
}

/* ==== ping_peer with a fake verbs/transport ================================= */

#define FAKE_LINES 16
#define FAKE_TRACE 16

struct fake_peer {
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
	char lines[FAKE_LINES][PING_PROTO_LINE_MAX];
	int n_lines;
	enum ping_peer_state trace[FAKE_TRACE];
	int n_trace;
};

static int fake_connect(struct ping_peer *p, char *err, size_t errlen)
{
	struct fake_peer *f = p->ctx;

	f->connects++;
	if (f->connect_rc)
		snprintf(err, errlen,
			 "connect to %.60s:%u: Connection refused (is \"nanosm-ping --server\" "
			 "running there?)",
			 p->target.host, p->target.port);
	return f->connect_rc;
}

static int fake_send_line(struct ping_peer *p, const char *line, char *err, size_t errlen)
{
	struct fake_peer *f = p->ctx;

	if (f->send_rc) {
		snprintf(err, errlen, "send: Broken pipe");
		return f->send_rc;
	}
	if (f->n_lines < FAKE_LINES)
		snprintf(f->lines[f->n_lines++], PING_PROTO_LINE_MAX, "%s", line);
	return 0;
}

static int fake_qp_open(struct ping_peer *p, struct ping_info *local, char *err, size_t errlen)
{
	struct fake_peer *f = p->ctx;

	f->qp_opens++;
	f->opened_as = *local;
	if (f->qp_open_rc) {
		snprintf(err, errlen, "ibv_create_qp(UD): Cannot allocate memory");
		return f->qp_open_rc;
	}
	local->lid = f->qp_info.lid;
	local->qpn = f->qp_info.qpn;
	local->psn = f->qp_info.psn;
	memcpy(local->gid, f->qp_info.gid, 16);
	local->mtu = f->qp_info.mtu;
	return 0;
}

static int fake_qp_connect(struct ping_peer *p, const struct ping_info *remote, char *err,
			   size_t errlen)
{
	struct fake_peer *f = p->ctx;

	f->qp_connects++;
	f->connected_to = *remote;
	if (f->qp_connect_rc)
		snprintf(err, errlen, "ibv_modify_qp to RTR: Invalid argument");
	return f->qp_connect_rc;
}

static int fake_send_ping(struct ping_peer *p, uint32_t seq, char *err, size_t errlen)
{
	struct fake_peer *f = p->ctx;

	if (f->ping_rc) {
		snprintf(err, errlen, "ibv_post_send: No space left on device");
		return f->ping_rc;
	}
	if (f->n_pings < 64)
		f->pings[f->n_pings++] = seq;
	return 0;
}

static int fake_start_bw(struct ping_peer *p, uint32_t size, unsigned count, char *err,
			 size_t errlen)
{
	struct fake_peer *f = p->ctx;

	f->bw_starts++;
	f->bw_size = size;
	f->bw_count = count;
	if (f->bw_rc)
		snprintf(err, errlen, "ibv_post_send: Invalid argument");
	return f->bw_rc;
}

static void fake_close(struct ping_peer *p)
{
	struct fake_peer *f = p->ctx;

	f->closes++;
}

static void fake_trace(struct ping_peer *p, enum ping_peer_state from, enum ping_peer_state to)
{
	struct fake_peer *f = p->ctx;

	(void)from;
	if (f->n_trace < FAKE_TRACE)
		f->trace[f->n_trace++] = to;
}

static const struct ping_peer_ops fake_peer_ops = {
    .connect = fake_connect,
    .send_line = fake_send_line,
    .qp_open = fake_qp_open,
    .qp_connect = fake_qp_connect,
    .send_ping = fake_send_ping,
    .start_bw = fake_start_bw,
    .close = fake_close,
    .trace = fake_trace,
};

static void peer_cfg(struct ping_peer_cfg *cfg, enum ping_mode mode, unsigned iters)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = mode;
	cfg->iters = iters;
	cfg->ping_size = 64;
	cfg->bw_count = 4096;
	cfg->timeout_ms = 1000;
	cfg->chan_timeout_ms = 10000;
	cfg->local_mtu = 4096;
}

static void peer_start(struct ping_peer *p, struct fake_peer *f, const struct ping_peer_cfg *cfg,
		       const char *host, int resolve_only)
{
	struct ping_target t;
	char err[256];

	memset(f, 0, sizeof(*f));
	info_fill(&f->qp_info, cfg->mode, 3, 0x12a, GID_A);
	CU_ASSERT_EQUAL_FATAL(ping_opts_parse_target(host, 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(ping_peer_init(p, cfg, &t, host, resolve_only, &fake_peer_ops, f), 0);
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

	info_fill(&s, p->local.mode, 4, 0x2b3, GID_B);
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
	struct fake_peer f;
	char line[PING_REPORT_LINE_MAX];
	uint64_t t = 5 * SEC;

	peer_cfg(&cfg, PING_MODE_UD, 5);
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
	struct fake_peer f;
	char line[PING_REPORT_LINE_MAX];
	struct ping_peer_event ev = {.type = PING_PEER_EV_BW_DONE};
	uint64_t t = 0;

	peer_cfg(&cfg, PING_MODE_RC, 3);
	cfg.bw = 1;
	CU_ASSERT_EQUAL(ping_peer_bw_size(&cfg), 65536);
	CU_ASSERT_EQUAL(ping_peer_msg_size(&cfg), 65536);
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_to_pinging(&p, t);
	CU_ASSERT_EQUAL(f.opened_as.size, 65536);
	CU_ASSERT_TRUE(has(f.lines[0], "mode=rc"));
	CU_ASSERT_TRUE(has(f.lines[0], "size=65536 rkey=0x00000000 addr=0x0000000000000000"));
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
	struct fake_peer f;
	struct ping_peer_event ev = {.type = PING_PEER_EV_BW_DONE};

	peer_cfg(&cfg, PING_MODE_UD, 1);
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
	CU_ASSERT_TRUE(
	    has(p.result.reason,
		"server INFO does not fit: message size 4096 is above the path MTU 2048"));
	CU_ASSERT_EQUAL(f.qp_connects, 0);
	CU_ASSERT_EQUAL(f.closes, 1);
	ping_peer_fini(&p);
}

static void test_ping_peer_no_response(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct fake_peer f;
	char line[PING_REPORT_LINE_MAX];

	peer_cfg(&cfg, PING_MODE_UD, 1000);
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
	peer_cfg(&cfg, PING_MODE_RC, 10);
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
	struct fake_peer f;
	char line[PING_REPORT_LINE_MAX];
	uint64_t t = 0;

	peer_cfg(&cfg, PING_MODE_UD, 5);
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
	peer_cfg(&cfg, PING_MODE_UD, 100);
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
	struct fake_peer f;

	peer_cfg(&cfg, PING_MODE_UD, 5);
	peer_start(&p, &f, &cfg, "host2", 0);
	peer_ev(&p, PING_PEER_EV_START, 0);
	peer_ev(&p, PING_PEER_EV_CONNECTED, 0);
	peer_line(&p, line, 0);
	CU_ASSERT_EQUAL(p.state, PING_PEER_FAILED);
	CU_ASSERT_EQUAL(p.result.verdict, PING_VERDICT_FAIL);
	CU_ASSERT_TRUE(has(p.result.reason, want));
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
	struct fake_peer f;
	struct ping_info s;

	peer_cfg(&cfg, PING_MODE_UD, 5);
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
	struct fake_peer f;
	char line[PING_REPORT_LINE_MAX];

	peer_cfg(&cfg, PING_MODE_UD, 5);
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
	peer_cfg(&cfg, PING_MODE_UD, 1);
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
	peer_cfg(&cfg, PING_MODE_UD, 5);
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
	struct fake_peer f;

	peer_cfg(&cfg, PING_MODE_UD, 5);
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
	struct fake_peer f;

	peer_cfg(&cfg, PING_MODE_UD, 1);
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
	struct fake_peer f;
	char line[PING_REPORT_LINE_MAX];

	peer_cfg(&cfg, PING_MODE_UD, 1);
	peer_start(&p, &f, &cfg, "host1", 0);
	f.qp_info.lid = 4;
	memcpy(f.qp_info.gid, GID_B, 16); /* our own port is the server's */
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

/* ==== ping_serve with a fake verbs layer ==================================== */

struct fake_serve {
	int port_rc, qp_open_rc, send_rc;
	int long_err; /* qp_open fails with a 250-character message */
	uint64_t rx;
	int qp_opens, closes;
	struct ping_info client_seen;
	char lines[FAKE_LINES][PING_PROTO_LINE_MAX];
	int n_lines;
	int fd; /* loopback tests: the real side channel */
};

static int fake_serve_port(struct ping_serve *s, uint16_t *lid, uint8_t gid[16], uint16_t *mtu,
			   char *err, size_t errlen)
{
	struct fake_serve *f = s->ctx;

	if (f->port_rc) {
		snprintf(err, errlen,
			 "port 1 of mlx5_0 is INIT: is a subnet manager running? (run nanosm)");
		return f->port_rc;
	}
	*lid = 4;
	memcpy(gid, GID_B, 16);
	*mtu = 2048;
	return 0;
}

static int fake_serve_send(struct ping_serve *s, const char *line, char *err, size_t errlen)
{
	struct fake_serve *f = s->ctx;

	if (f->n_lines < FAKE_LINES)
		snprintf(f->lines[f->n_lines++], PING_PROTO_LINE_MAX, "%s", line);
	if (f->fd >= 0)
		return ping_chan_send_line(f->fd, line, 1000, err, errlen);
	if (f->send_rc)
		snprintf(err, errlen, "send: Connection reset by peer");
	return f->send_rc;
}

static int fake_serve_qp_open(struct ping_serve *s, const struct ping_info *client,
			      struct ping_info *local, char *err, size_t errlen)
{
	struct fake_serve *f = s->ctx;

	f->qp_opens++;
	f->client_seen = *client;
	if (f->long_err) {
		memset(err, 'e', 250);
		err[250] = '\0';
		return -EIO;
	}
	if (f->qp_open_rc) {
		snprintf(err, errlen, "ibv_reg_mr of 8388608 bytes: Cannot allocate memory");
		return f->qp_open_rc;
	}
	local->lid = 4;
	local->qpn = 0x2b3;
	local->psn = 0x10203;
	memcpy(local->gid, GID_B, 16);
	local->mtu = 2048;
	if (local->mode == PING_MODE_RC) {
		local->rkey = 0xabc;
		local->addr = 0x7f0012340000ULL;
	}
	return 0;
}

static uint64_t fake_serve_rx(struct ping_serve *s)
{
	struct fake_serve *f = s->ctx;

	return f->rx;
}

static void fake_serve_close(struct ping_serve *s)
{
	struct fake_serve *f = s->ctx;

	f->closes++;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

static const struct ping_serve_ops fake_serve_ops = {
    .port_check = fake_serve_port,
    .send_line = fake_serve_send,
    .qp_open = fake_serve_qp_open,
    .rx_count = fake_serve_rx,
    .close = fake_serve_close,
};

static void serve_ev(struct ping_serve *s, enum ping_serve_ev_type type, uint64_t now,
		     const char *line)
{
	struct ping_serve_event ev = {.type = type, .now = now, .line = line};

	ping_serve_event(s, &ev);
}

static void serve_start(struct ping_serve *s, struct fake_serve *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	ping_serve_init(s, "10.0.0.3:51234", 10000, &fake_serve_ops, f);
}

#define CLIENT_INFO_UD INFO_HEAD "qpn=0x00012a psn=0x3c4d5e " GID_TXT INFO_TAIL

static void test_ping_serve_happy(void)
{
	struct ping_serve s;
	struct fake_serve f;
	struct ping_msg m;
	char err[256];

	serve_start(&s, &f);
	serve_ev(&s, PING_SERVE_EV_LINE, 0, CLIENT_INFO_UD); /* before ACCEPTED: ignored */
	CU_ASSERT_EQUAL(f.n_lines, 0);
	serve_ev(&s, PING_SERVE_EV_ACCEPTED, 1 * SEC, NULL);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_GREETED);
	CU_ASSERT_EQUAL(s.deadline, 11 * SEC);
	CU_ASSERT_EQUAL_FATAL(f.n_lines, 1);
	CU_ASSERT_STRING_EQUAL(f.lines[0], HELLO_B);
	serve_ev(&s, PING_SERVE_EV_LINE, 2 * SEC, CLIENT_INFO_UD);
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
	serve_ev(&s, PING_SERVE_EV_LINE, 3 * SEC, "NSMPING/1 DONE");
	CU_ASSERT_EQUAL(s.state, PING_SERVE_DONE);
	CU_ASSERT_EQUAL_FATAL(f.n_lines, 3);
	CU_ASSERT_STRING_EQUAL(f.lines[2], "NSMPING/1 BYE rx=42");
	CU_ASSERT_STRING_EQUAL(s.reason, "ud, lid 3 qpn 0x00012a, 64-byte messages, rx 42");
	CU_ASSERT_EQUAL(f.closes, 1);
	serve_ev(&s, PING_SERVE_EV_CLOSED, 4 * SEC, NULL);
	CU_ASSERT_EQUAL(f.closes, 1);
}

static void serve_refuses(const struct fake_serve *preset, const char *line, const char *want)
{
	struct ping_serve s;
	struct fake_serve f;
	struct ping_msg m;
	char err[256];

	serve_start(&s, &f);
	f.port_rc = preset->port_rc;
	f.qp_open_rc = preset->qp_open_rc;
	serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	if (line)
		serve_ev(&s, PING_SERVE_EV_LINE, 0, line);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_FAILED);
	CU_ASSERT_EQUAL(f.closes, 1);
	CU_ASSERT_TRUE_FATAL(f.n_lines >= 1);
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(f.lines[f.n_lines - 1], &m, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.type, PING_MSG_ERROR);
	CU_ASSERT_TRUE(has(m.text, want));
	CU_ASSERT_TRUE(has(s.reason, want));
}

static void test_ping_serve_refusals(void)
{
	struct fake_serve preset;
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
	struct fake_serve f;

	/* LID query: DONE right after HELLO */
	serve_start(&s, &f);
	serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	serve_ev(&s, PING_SERVE_EV_LINE, 0, "NSMPING/1 DONE");
	CU_ASSERT_EQUAL(s.state, PING_SERVE_DONE);
	CU_ASSERT_STRING_EQUAL(f.lines[1], "NSMPING/1 BYE rx=0");
	CU_ASSERT_STRING_EQUAL(s.reason, "LID query only");
	CU_ASSERT_EQUAL(f.qp_opens, 0);
	/* no INFO in time */
	serve_start(&s, &f);
	serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	serve_ev(&s, PING_SERVE_EV_TIMEOUT, 9 * SEC, NULL);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_GREETED);
	serve_ev(&s, PING_SERVE_EV_TIMEOUT, 10 * SEC, NULL);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_FAILED);
	CU_ASSERT_STRING_EQUAL(s.reason, "no INFO from the client within 10000 ms");
	CU_ASSERT_EQUAL(f.closes, 1);
	/* the client vanishes while served */
	serve_start(&s, &f);
	serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	serve_ev(&s, PING_SERVE_EV_LINE, 0, CLIENT_INFO_UD);
	serve_ev(&s, PING_SERVE_EV_CLOSED, 0, NULL);
	CU_ASSERT_STRING_EQUAL(s.reason, "client closed the side channel while serving");
	/* a completion error on the QP */
	serve_start(&s, &f);
	serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	serve_ev(&s, PING_SERVE_EV_LINE, 0, CLIENT_INFO_UD);
	{
		struct ping_serve_event ev = {.type = PING_SERVE_EV_ERROR,
					      .what =
						  "receive completion error: local length error"};
		ping_serve_event(&s, &ev);
	}
	CU_ASSERT_STRING_EQUAL(s.reason, "receive completion error: local length error");
	/* the client sends ERROR */
	serve_start(&s, &f);
	serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	serve_ev(&s, PING_SERVE_EV_LINE, 0, "NSMPING/1 ERROR interrupted");
	CU_ASSERT_STRING_EQUAL(s.reason, "client gave up: interrupted");
	/* the HELLO cannot be sent */
	serve_start(&s, &f);
	f.send_rc = -ECONNRESET;
	serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_FAILED);
	CU_ASSERT_STRING_EQUAL(s.reason, "side channel: send: Connection reset by peer");
	CU_ASSERT_EQUAL(f.closes, 1);
	CU_ASSERT_STRING_EQUAL(ping_serve_state_name(PING_SERVE_SERVING), "serving");
}

static void test_ping_serve_long_error(void)
{
	struct ping_serve s;
	struct fake_serve f;
	struct ping_msg m;
	char err[256];
	char line[PING_PROTO_LINE_MAX];

	/* a 250-character reason: the ERROR text is cut to 200, still valid */
	serve_start(&s, &f);
	f.long_err = 1;
	serve_ev(&s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	serve_ev(&s, PING_SERVE_EV_LINE, 0, CLIENT_INFO_UD);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_FAILED);
	CU_ASSERT_EQUAL_FATAL(f.n_lines, 2);
	CU_ASSERT_TRUE(strlen(f.lines[1]) < PING_PROTO_LINE_MAX);
	CU_ASSERT_EQUAL_FATAL(ping_proto_parse(f.lines[1], &m, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.type, PING_MSG_ERROR);
	CU_ASSERT_EQUAL(strlen(m.text), PING_PROTO_TEXT_MAX);
	CU_ASSERT_TRUE(has(m.text, "server cannot create a QP: eeee"));
	CU_ASSERT_TRUE(strlen(s.reason) > PING_PROTO_TEXT_MAX);
	(void)line;
}

/* ==== ping_chan: 127.0.0.1 only ============================================= */

static void test_ping_chan_lines(void)
{
	char err[256];
	struct ping_proto_linebuf lb;
	char name[80], line[PING_PROTO_LINE_MAX];
	uint16_t port = 0;
	int lfd, cfd, sfd, n = 0, got = 0;

	CU_ASSERT_EQUAL_FATAL(ping_chan_listen("127.0.0.1", 0, &lfd, &port, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(port > 0);
	CU_ASSERT_EQUAL(ping_chan_accept(lfd, 0, &sfd, name, sizeof(name), err, sizeof(err)),
			-ETIMEDOUT);
	CU_ASSERT_EQUAL_FATAL(ping_chan_connect("127.0.0.1", port, 2000, &cfd, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL_FATAL(
	    ping_chan_accept(lfd, 2000, &sfd, name, sizeof(name), err, sizeof(err)), 0);
	CU_ASSERT_TRUE(has(name, "127.0.0.1:"));
	CU_ASSERT_EQUAL(ping_chan_send_line(cfd, "NSMPING/1 DONE", 1000, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ping_chan_send_line(cfd, "NSMPING/1 BYE rx=1", 1000, err, sizeof(err)), 0);
	ping_proto_linebuf_init(&lb);
	while (got < 2 && n++ < 100) {
		CU_ASSERT_EQUAL(ping_chan_wait(sfd, 1000), 1);
		CU_ASSERT_TRUE(ping_chan_read(sfd, &lb, err, sizeof(err)) > 0);
		while (ping_proto_linebuf_take(&lb, line, sizeof(line)) == 1)
			CU_ASSERT_STRING_EQUAL(line, got++ == 0 ? "NSMPING/1 DONE"
								: "NSMPING/1 BYE rx=1");
	}
	CU_ASSERT_EQUAL(got, 2);
	CU_ASSERT_EQUAL(ping_chan_read(sfd, &lb, err, sizeof(err)), -EAGAIN);
	CU_ASSERT_EQUAL(ping_chan_wait(sfd, 0), 0);
	close(cfd);
	CU_ASSERT_EQUAL(ping_chan_wait(sfd, 1000), 1);
	CU_ASSERT_EQUAL(ping_chan_read(sfd, &lb, err, sizeof(err)), 0); /* end of stream */
	/* a peer that went away: -EPIPE (or reset), never SIGPIPE */
	{
		int rc = 0;
		for (int i = 0; i < 50 && rc == 0; i++)
			rc = ping_chan_send_line(sfd, "NSMPING/1 DONE", 100, err, sizeof(err));
		CU_ASSERT_TRUE(rc == -EPIPE || rc == -ECONNRESET);
	}
	close(sfd);
	close(lfd);
}

static void test_ping_chan_limits(void)
{
	char err[256] = "";
	struct ping_proto_linebuf lb;
	char big[PING_PROTO_LINE_MAX + 1];
	size_t room;
	uint16_t port = 0;
	int lfd, cfd, sfd;
	char name[80];

	CU_ASSERT_EQUAL_FATAL(ping_chan_listen("127.0.0.1", 0, &lfd, &port, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(ping_chan_connect("127.0.0.1", port, 2000, &cfd, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL_FATAL(
	    ping_chan_accept(lfd, 2000, &sfd, name, sizeof(name), err, sizeof(err)), 0);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CU_ASSERT_EQUAL(ping_chan_send_line(cfd, big, 1000, err, sizeof(err)), -EMSGSIZE);
	CU_ASSERT_TRUE(has(err, "line of 256 bytes is too long to send"));
	/* a full line buffer is refused, not overrun */
	ping_proto_linebuf_init(&lb);
	ping_proto_linebuf_room(&lb, &room);
	ping_proto_linebuf_commit(&lb, room);
	CU_ASSERT_EQUAL(ping_chan_read(sfd, &lb, err, sizeof(err)), -EMSGSIZE);
	close(cfd);
	close(sfd);
	close(lfd);
}

static void test_ping_chan_refused(void)
{
	char err[256] = "";
	uint16_t port = 0;
	int lfd, cfd, lfd2;

	/* a port that was free a moment ago */
	CU_ASSERT_EQUAL_FATAL(ping_chan_listen("127.0.0.1", 0, &lfd, &port, err, sizeof(err)), 0);
	close(lfd);
	CU_ASSERT_EQUAL(ping_chan_connect("127.0.0.1", port, 2000, &cfd, err, sizeof(err)),
			-ECONNREFUSED);
	CU_ASSERT_TRUE(has(err, "connect to 127.0.0.1:"));
	CU_ASSERT_TRUE(has(err, "Connection refused (is \"nanosm-ping --server\" running there?)"));
	/* the port taken */
	CU_ASSERT_EQUAL_FATAL(ping_chan_listen("127.0.0.1", 0, &lfd, &port, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ping_chan_listen("127.0.0.1", port, &lfd2, NULL, err, sizeof(err)),
			-EADDRINUSE);
	CU_ASSERT_TRUE(has(err, "another nanosm-ping --server? choose one with --tcp-port"));
	close(lfd);
}

/* ---- loopback: a client peer and a server session over 127.0.0.1 --------- */

struct lb_client {
	struct fake_peer fake; /* recording, and the QP the fake verbs layer opens */
	int fd;
	struct ping_proto_linebuf lb;
	struct ping_peer_event pending[4];
	int n_pending;
	uint64_t clock; /* fake ns */
	int drop_seq;	/* a ping the fake wire loses, -1: none */
};

static void lb_post(struct lb_client *c, const struct ping_peer_event *ev)
{
	CU_ASSERT_FATAL(c->n_pending < 4);
	c->pending[c->n_pending++] = *ev;
}

static int lb_connect(struct ping_peer *p, char *err, size_t errlen)
{
	struct lb_client *c = p->ctx;
	struct ping_peer_event ev = {.type = PING_PEER_EV_CONNECTED};
	int rc = ping_chan_connect(p->target.host, p->target.port, 2000, &c->fd, err, errlen);

	if (rc == 0)
		lb_post(c, &ev);
	return rc;
}

static int lb_send_line(struct ping_peer *p, const char *line, char *err, size_t errlen)
{
	struct lb_client *c = p->ctx;

	return ping_chan_send_line(c->fd, line, 1000, err, errlen);
}

/* The fake wire answers every ping 2 us + seq ns later, except drop_seq. */
static int lb_send_ping(struct ping_peer *p, uint32_t seq, char *err, size_t errlen)
{
	struct lb_client *c = p->ctx;
	struct ping_peer_event ev = {.type = PING_PEER_EV_PONG, .seq = seq};

	(void)err;
	(void)errlen;
	c->clock += 2 * US + seq;
	ev.now = c->clock;
	if ((int)seq != c->drop_seq)
		lb_post(c, &ev);
	return 0;
}

static int lb_start_bw(struct ping_peer *p, uint32_t size, unsigned count, char *err, size_t errlen)
{
	struct lb_client *c = p->ctx;
	struct ping_peer_event ev = {.type = PING_PEER_EV_BW_DONE};

	(void)err;
	(void)errlen;
	ev.bytes = (uint64_t)size * count;
	ev.msgs = count;
	ev.ns = 10 * MS;
	ev.now = c->clock += 10 * MS;
	lb_post(c, &ev);
	return 0;
}

static void lb_close(struct ping_peer *p)
{
	struct lb_client *c = p->ctx;

	c->fake.closes++;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static const struct ping_peer_ops lb_client_ops = {
    .connect = lb_connect,
    .send_line = lb_send_line,
    .qp_open = fake_qp_open, /* struct fake_peer is the first member */
    .qp_connect = fake_qp_connect,
    .send_ping = lb_send_ping,
    .start_bw = lb_start_bw,
    .close = lb_close,
    .trace = fake_trace,
};

/* Read one side's socket and feed its lines; returns 1 if it did anything. */
static int lb_client_io(struct ping_peer *p, struct lb_client *c)
{
	char line[PING_PROTO_LINE_MAX];
	char err[256];
	int rc;

	if (c->n_pending) {
		struct ping_peer_event ev = c->pending[0];
		memmove(c->pending, c->pending + 1, sizeof(c->pending[0]) * (size_t)--c->n_pending);
		ping_peer_event(p, &ev);
		return 1;
	}
	if (p->deadline && c->clock >= p->deadline) {
		struct ping_peer_event ev = {.type = PING_PEER_EV_TIMEOUT, .now = c->clock};
		ping_peer_event(p, &ev);
		return 1;
	}
	if (p->state == PING_PEER_PINGING) { /* nothing on the wire: let time pass */
		c->clock = p->deadline;
		return 1;
	}
	if (ping_proto_linebuf_take(&c->lb, line, sizeof(line)) == 1) {
		struct ping_peer_event ev = {
		    .type = PING_PEER_EV_LINE, .now = c->clock, .line = line};
		ping_peer_event(p, &ev);
		return 1;
	}
	if (c->fd < 0 || ping_chan_wait(c->fd, 0) != 1)
		return 0;
	rc = ping_chan_read(c->fd, &c->lb, err, sizeof(err));
	if (rc == 0) {
		struct ping_peer_event ev = {.type = PING_PEER_EV_CLOSED, .now = c->clock};
		ping_peer_event(p, &ev);
	}
	return 1;
}

static int lb_server_io(struct ping_serve *s, struct fake_serve *f, struct ping_proto_linebuf *lb)
{
	char line[PING_PROTO_LINE_MAX];
	char err[256];
	int rc;

	if (ping_proto_linebuf_take(lb, line, sizeof(line)) == 1) {
		serve_ev(s, PING_SERVE_EV_LINE, 0, line);
		return 1;
	}
	if (f->fd < 0 || ping_chan_wait(f->fd, 0) != 1)
		return 0;
	rc = ping_chan_read(f->fd, lb, err, sizeof(err));
	if (rc == 0)
		serve_ev(s, PING_SERVE_EV_CLOSED, 0, NULL);
	return 1;
}

/* Run one client peer against one server session over 127.0.0.1. */
static void lb_run(struct ping_peer *p, struct lb_client *c, struct ping_serve *s,
		   struct fake_serve *f)
{
	struct ping_proto_linebuf slb;
	struct ping_peer_event start = {.type = PING_PEER_EV_START};
	char err[256];
	char name[80];
	uint16_t port = 0;
	int lfd, sfd, idle = 0;

	CU_ASSERT_EQUAL_FATAL(ping_chan_listen("127.0.0.1", 0, &lfd, &port, err, sizeof(err)), 0);
	p->target.port = port;
	ping_peer_event(p, &start); /* connects; the kernel queues it for accept */
	CU_ASSERT_EQUAL_FATAL(p->state, PING_PEER_CONNECTING);
	CU_ASSERT_EQUAL_FATAL(
	    ping_chan_accept(lfd, 2000, &sfd, name, sizeof(name), err, sizeof(err)), 0);
	close(lfd);
	f->fd = sfd;
	ping_proto_linebuf_init(&slb);
	ping_serve_init(s, name, 10000, &fake_serve_ops, f);
	serve_ev(s, PING_SERVE_EV_ACCEPTED, 0, NULL);
	while ((!ping_peer_finished(p) || !ping_serve_finished(s)) && idle < 2000) {
		int busy = 0;
		if (!ping_peer_finished(p))
			busy |= lb_client_io(p, c);
		if (!ping_serve_finished(s))
			busy |= lb_server_io(s, f, &slb);
		if (!busy) {
			struct pollfd pf[2] = {{.fd = c->fd, .events = POLLIN},
					       {.fd = f->fd, .events = POLLIN}};
			poll(pf, 2, 5);
			idle++;
		}
	}
	CU_ASSERT_TRUE(idle < 2000);
	if (c->fd >= 0)
		close(c->fd);
	if (f->fd >= 0)
		close(f->fd);
}

static void lb_setup(struct ping_peer *p, struct lb_client *c, const struct ping_peer_cfg *cfg)
{
	struct ping_target t;
	char err[256];

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->drop_seq = -1;
	c->clock = SEC;
	ping_proto_linebuf_init(&c->lb);
	info_fill(&c->fake.qp_info, cfg->mode, 3, 0x12a, GID_A);
	c->fake.qp_info.mtu = 2048;
	CU_ASSERT_EQUAL_FATAL(ping_opts_parse_target("127.0.0.1", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(ping_peer_init(p, cfg, &t, "localhost", 0, &lb_client_ops, c), 0);
}

static void test_ping_loopback_rc_bw(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct lb_client c;
	struct ping_serve s;
	struct fake_serve f;
	char line[PING_REPORT_LINE_MAX];

	peer_cfg(&cfg, PING_MODE_RC, 20);
	cfg.bw = 1;
	lb_setup(&p, &c, &cfg);
	memset(&f, 0, sizeof(f));
	lb_run(&p, &c, &s, &f);
	CU_ASSERT_EQUAL(p.state, PING_PEER_DONE);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_DONE);
	CU_ASSERT_EQUAL(c.fake.closes, 1);
	CU_ASSERT_EQUAL(f.closes, 1);
	/* the server saw exactly the client's QP, the client the server's */
	CU_ASSERT_EQUAL(f.client_seen.qpn, 0x12a);
	CU_ASSERT_EQUAL(f.client_seen.mode, PING_MODE_RC);
	CU_ASSERT_EQUAL(f.client_seen.size, 65536);
	CU_ASSERT_EQUAL(c.fake.connected_to.qpn, 0x2b3);
	CU_ASSERT_EQUAL(c.fake.connected_to.rkey, 0xabc);
	CU_ASSERT_EQUAL(c.fake.connected_to.addr, 0x7f0012340000ULL);
	CU_ASSERT_EQUAL(p.result.verdict, PING_VERDICT_OK);
	CU_ASSERT_EQUAL(p.result.rtt.n, 20);
	CU_ASSERT_EQUAL(p.result.rtt.min, 2000);
	CU_ASSERT_EQUAL(p.result.rtt.max, 2019);
	ping_report_format(&p.result, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(
	    line, "OK lid 4 (localhost): rtt min 2.0 median 2.0 p99 2.0 us, bw 214.7 Gb/s");
	ping_peer_fini(&p);
}

static void test_ping_loopback_ud_loss(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct lb_client c;
	struct ping_serve s;
	struct fake_serve f;

	peer_cfg(&cfg, PING_MODE_UD, 10);
	cfg.bw = 1;
	cfg.local_mtu = 2048;
	lb_setup(&p, &c, &cfg);
	c.drop_seq = 3;
	memset(&f, 0, sizeof(f));
	f.rx = 4000;
	lb_run(&p, &c, &s, &f);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_DONE);
	CU_ASSERT_EQUAL(f.client_seen.size, 2048);
	CU_ASSERT_EQUAL(p.state, PING_PEER_FAILED);
	CU_ASSERT_STRING_EQUAL(p.result.reason, "1 of 10 pings lost (timeout 1s)");
	CU_ASSERT_EQUAL(p.result.rtt.n, 9);
	CU_ASSERT_EQUAL(p.result.bw_rx, 4000);
	CU_ASSERT_EQUAL(p.result.bw_sent, 4096);
	ping_peer_fini(&p);
}

static void test_ping_loopback_refused(void)
{
	struct ping_peer_cfg cfg;
	struct ping_peer p;
	struct lb_client c;
	struct ping_serve s;
	struct fake_serve f;
	char line[PING_REPORT_LINE_MAX];

	peer_cfg(&cfg, PING_MODE_UD, 10);
	lb_setup(&p, &c, &cfg);
	memset(&f, 0, sizeof(f));
	f.port_rc = -ENETDOWN;
	lb_run(&p, &c, &s, &f);
	CU_ASSERT_EQUAL(s.state, PING_SERVE_FAILED);
	CU_ASSERT_EQUAL(p.state, PING_PEER_FAILED);
	ping_report_format(&p.result, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "FAIL localhost: server refused: port 1 of mlx5_0 is INIT: is "
				     "a subnet manager running? (run nanosm)");
	CU_ASSERT_EQUAL(c.fake.qp_opens, 0);
	ping_peer_fini(&p);
}

void test_ping_register(void)
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

	s = CU_add_suite("ping_opts", NULL, NULL);
	if (!s)
		return;
	CU_add_test(s, "defaults", test_ping_opts_defaults);
	CU_add_test(s, "client options, all spellings", test_ping_opts_client);
	CU_add_test(s, "server options", test_ping_opts_server);
	CU_add_test(s, "errors", test_ping_opts_errors);
	CU_add_test(s, "-d/-p/-g as in nanosm, --tcp-port", test_ping_opts_port_letters);
	CU_add_test(s, "targets", test_ping_opts_targets);
	CU_add_test(s, "hosts file", test_ping_opts_hosts);
	CU_add_test(s, "plan: order, dedup, resolve-only", test_ping_opts_plan);

	s = CU_add_suite("ping_report", NULL, NULL);
	if (!s)
		return;
	CU_add_test(s, "min/median/p99", test_ping_report_stats);
	CU_add_test(s, "verdict lines", test_ping_report_format);
	CU_add_test(s, "durations, missing LIDs, summary", test_ping_report_misc);
	CU_add_test(s, "port problems, exact texts", test_ping_report_port);
	CU_add_test(s, "port choice", test_ping_report_pick);

	s = CU_add_suite("ping_peer", NULL, NULL);
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

	s = CU_add_suite("ping_serve", NULL, NULL);
	if (!s)
		return;
	CU_add_test(s, "session", test_ping_serve_happy);
	CU_add_test(s, "refusals answer ERROR", test_ping_serve_refusals);
	CU_add_test(s, "LID query, timeout, hangup, errors", test_ping_serve_other);
	CU_add_test(s, "long ERROR text cut", test_ping_serve_long_error);

	s = CU_add_suite("ping_chan (127.0.0.1)", NULL, NULL);
	if (!s)
		return;
	CU_add_test(s, "lines both ways, EOF, EPIPE", test_ping_chan_lines);
	CU_add_test(s, "refused, port in use", test_ping_chan_refused);
	CU_add_test(s, "overlong lines", test_ping_chan_limits);
	CU_add_test(s, "client+server, RC with bandwidth", test_ping_loopback_rc_bw);
	CU_add_test(s, "client+server, UD with a lost ping", test_ping_loopback_ud_loss);
	CU_add_test(s, "client+server, port not ACTIVE", test_ping_loopback_refused);
}
