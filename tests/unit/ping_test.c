/*
 * ping_test.c - what the nanosm-ping unit tests share (ping_test.h): two GIDs,
 * an INFO filler, a substring check that says what it missed, and the fake
 * verbs layers of a client peer and of a server session.  Test code only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/ping_test.h"
#include "tools/ping/ping_chan.h"

const uint8_t ping_test_gid_a[16] = {0xfe, 0x80, 0,    0,    0,	   0,	 0,    0,
				     0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3};
const uint8_t ping_test_gid_b[16] = {0xfe, 0x80, 0,    0,    0,	   0,	 0,    0,
				     0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc4};

void ping_test_info_fill(struct ping_info *in, enum ping_mode mode, uint16_t lid, uint32_t qpn,
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

int ping_test_has(const char *hay, const char *needle)
{
	int found = hay && strstr(hay, needle) != NULL;

	if (!found)
		fprintf(stderr, "\n  expected \"%s\" in \"%s\"\n", needle, hay ? hay : "(null)");
	return found;
}

/* ---- a client peer's fake transport and verbs ---- */

static int fake_connect(struct ping_peer *p, char *err, size_t errlen)
{
	struct ping_test_peer *f = p->ctx;

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
	struct ping_test_peer *f = p->ctx;

	if (f->send_rc) {
		snprintf(err, errlen, "send: Broken pipe");
		return f->send_rc;
	}
	if (f->n_lines < PING_TEST_LINES)
		snprintf(f->lines[f->n_lines++], PING_PROTO_LINE_MAX, "%s", line);
	return 0;
}

int ping_test_peer_qp_open(struct ping_peer *p, struct ping_info *local, char *err, size_t errlen)
{
	struct ping_test_peer *f = p->ctx;

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

int ping_test_peer_qp_connect(struct ping_peer *p, const struct ping_info *remote, char *err,
			      size_t errlen)
{
	struct ping_test_peer *f = p->ctx;

	f->qp_connects++;
	f->connected_to = *remote;
	if (f->qp_connect_rc)
		snprintf(err, errlen, "ibv_modify_qp to RTR: Invalid argument");
	return f->qp_connect_rc;
}

static int fake_send_ping(struct ping_peer *p, uint32_t seq, char *err, size_t errlen)
{
	struct ping_test_peer *f = p->ctx;

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
	struct ping_test_peer *f = p->ctx;

	f->bw_starts++;
	f->bw_size = size;
	f->bw_count = count;
	if (f->bw_rc)
		snprintf(err, errlen, "ibv_post_send: Invalid argument");
	return f->bw_rc;
}

static void fake_close(struct ping_peer *p)
{
	struct ping_test_peer *f = p->ctx;

	f->closes++;
}

void ping_test_peer_trace(struct ping_peer *p, enum ping_peer_state from, enum ping_peer_state to)
{
	struct ping_test_peer *f = p->ctx;

	(void)from;
	if (f->n_trace < PING_TEST_TRACE)
		f->trace[f->n_trace++] = to;
}

const struct ping_peer_ops ping_test_peer_ops = {
    .connect = fake_connect,
    .send_line = fake_send_line,
    .qp_open = ping_test_peer_qp_open,
    .qp_connect = ping_test_peer_qp_connect,
    .send_ping = fake_send_ping,
    .start_bw = fake_start_bw,
    .close = fake_close,
    .trace = ping_test_peer_trace,
};

void ping_test_peer_cfg(struct ping_peer_cfg *cfg, enum ping_mode mode, unsigned iters)
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

/* ---- a server session's fake verbs layer ---- */

static int fake_serve_port(struct ping_serve *s, uint16_t *lid, uint8_t gid[16], uint16_t *mtu,
			   char *err, size_t errlen)
{
	struct ping_test_serve *f = s->ctx;

	if (f->port_rc) {
		snprintf(err, errlen,
			 "port 1 of mlx5_0 is INIT: is a subnet manager running? (run nanosm)");
		return f->port_rc;
	}
	*lid = 4;
	memcpy(gid, ping_test_gid_b, 16);
	*mtu = 2048;
	return 0;
}

static int fake_serve_send(struct ping_serve *s, const char *line, char *err, size_t errlen)
{
	struct ping_test_serve *f = s->ctx;

	if (f->n_lines < PING_TEST_LINES)
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
	struct ping_test_serve *f = s->ctx;

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
	memcpy(local->gid, ping_test_gid_b, 16);
	local->mtu = 2048;
	if (local->mode == PING_MODE_RC) {
		local->rkey = 0xabc;
		local->addr = 0x7f0012340000ULL;
	}
	return 0;
}

static uint64_t fake_serve_rx(struct ping_serve *s)
{
	struct ping_test_serve *f = s->ctx;

	return f->rx;
}

static void fake_serve_close(struct ping_serve *s)
{
	struct ping_test_serve *f = s->ctx;

	f->closes++;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

const struct ping_serve_ops ping_test_serve_ops = {
    .port_check = fake_serve_port,
    .send_line = fake_serve_send,
    .qp_open = fake_serve_qp_open,
    .rx_count = fake_serve_rx,
    .close = fake_serve_close,
};

void ping_test_serve_ev(struct ping_serve *s, enum ping_serve_ev_type type, uint64_t now,
			const char *line)
{
	struct ping_serve_event ev = {.type = type, .now = now, .line = line};

	ping_serve_event(s, &ev);
}
