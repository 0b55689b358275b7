/*
 * test_ping_chan.c - unit tests for nanosm-ping's TCP side channel
 * (tools/ping/ping_chan.c) over 127.0.0.1 only: lines both ways and their
 * limits, then a client peer and a server session talking through real
 * sockets with the fake verbs layer of ping_test.c.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/ping_test.h"
#include "tests/unit/unit.h"
#include "tools/ping/ping_chan.h"
#include "tools/ping/ping_opts.h"
#include "tools/ping/ping_peer.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_report.h"
#include "tools/ping/ping_serve.h"

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
	CU_ASSERT_TRUE(ping_test_has(name, "127.0.0.1:"));
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
	CU_ASSERT_TRUE(ping_test_has(err, "line of 256 bytes is too long to send"));
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
	CU_ASSERT_TRUE(ping_test_has(err, "connect to 127.0.0.1:"));
	CU_ASSERT_TRUE(
	    ping_test_has(err, "Connection refused (is \"nanosm-ping --server\" running there?)"));
	/* the port taken */
	CU_ASSERT_EQUAL_FATAL(ping_chan_listen("127.0.0.1", 0, &lfd, &port, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ping_chan_listen("127.0.0.1", port, &lfd2, NULL, err, sizeof(err)),
			-EADDRINUSE);
	CU_ASSERT_TRUE(
	    ping_test_has(err, "another nanosm-ping --server? choose one with --tcp-port"));
	close(lfd);
}

/* ---- loopback: a client peer and a server session over 127.0.0.1 --------- */

struct lb_client {
	struct ping_test_peer fake; /* recording, and the QP the fake verbs layer opens */
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
    .qp_open = ping_test_peer_qp_open, /* struct ping_test_peer is the first member */
    .qp_connect = ping_test_peer_qp_connect,
    .send_ping = lb_send_ping,
    .start_bw = lb_start_bw,
    .close = lb_close,
    .trace = ping_test_peer_trace,
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

static int lb_server_io(struct ping_serve *s, struct ping_test_serve *f,
			struct ping_proto_linebuf *lb)
{
	char line[PING_PROTO_LINE_MAX];
	char err[256];
	int rc;

	if (ping_proto_linebuf_take(lb, line, sizeof(line)) == 1) {
		ping_test_serve_ev(s, PING_SERVE_EV_LINE, 0, line);
		return 1;
	}
	if (f->fd < 0 || ping_chan_wait(f->fd, 0) != 1)
		return 0;
	rc = ping_chan_read(f->fd, lb, err, sizeof(err));
	if (rc == 0)
		ping_test_serve_ev(s, PING_SERVE_EV_CLOSED, 0, NULL);
	return 1;
}

/* Run one client peer against one server session over 127.0.0.1. */
static void lb_run(struct ping_peer *p, struct lb_client *c, struct ping_serve *s,
		   struct ping_test_serve *f)
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
	ping_serve_init(s, name, 10000, &ping_test_serve_ops, f);
	ping_test_serve_ev(s, PING_SERVE_EV_ACCEPTED, 0, NULL);
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
	ping_test_info_fill(&c->fake.qp_info, cfg->mode, 3, 0x12a, ping_test_gid_a);
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
	struct ping_test_serve f;
	char line[PING_REPORT_LINE_MAX];

	ping_test_peer_cfg(&cfg, PING_MODE_RC, 20);
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
	struct ping_test_serve f;

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 10);
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
	struct ping_test_serve f;
	char line[PING_REPORT_LINE_MAX];

	ping_test_peer_cfg(&cfg, PING_MODE_UD, 10);
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

void test_ping_chan_register(void)
{
	CU_pSuite s = CU_add_suite("ping_chan (127.0.0.1)", NULL, NULL);

	if (!s)
		return;
	CU_add_test(s, "lines both ways, EOF, EPIPE", test_ping_chan_lines);
	CU_add_test(s, "refused, port in use", test_ping_chan_refused);
	CU_add_test(s, "overlong lines", test_ping_chan_limits);
	CU_add_test(s, "client+server, RC with bandwidth", test_ping_loopback_rc_bw);
	CU_add_test(s, "client+server, UD with a lost ping", test_ping_loopback_ud_loss);
	CU_add_test(s, "client+server, port not ACTIVE", test_ping_loopback_refused);
}
