/*
 * tools/ping/nping_server.c - the server driver: accepts side-channel
 * connections one at a time and runs each session's ping_serve state
 * machine (ping_serve.c), fed with lines, deadlines and signals; echoes
 * pings as pongs and counts the bandwidth stream from its QP (nping_qp.c).
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/ping/nping.h"
#include "tools/ping/nping_dev.h"
#include "tools/ping/nping_qp.h"
#include "tools/ping/nping_server.h"
#include "tools/ping/ping_chan.h"
#include "tools/ping/ping_opts.h"
#include "tools/ping/ping_peer.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_serve.h"

#define NPING_TCP_CHECK_NS 1000000ULL

struct nping_server {
	struct nping_dev *dev;
	const struct ping_opts *opts;
	struct nping_qp qp;
	int fd;
	struct ping_proto_linebuf lb;
	char what[256];
};

static int nping_server_port_check(struct ping_serve *s, uint16_t *lid, uint8_t gid[16],
				   uint16_t *mtu, char *err, size_t errlen)
{
	struct nping_server *sv = s->ctx;

	if (nping_dev_refresh(sv->dev, err, errlen) < 0)
		return -ENETDOWN;
	*lid = sv->dev->lid;
	memcpy(gid, sv->dev->gid, 16);
	*mtu = sv->dev->mtu;
	return 0;
}

static int nping_server_send_line(struct ping_serve *s, const char *line, char *err, size_t errlen)
{
	struct nping_server *sv = s->ctx;

	if (sv->opts->verbose > 1)
		fprintf(stderr, "%s <- %s\n", s->client_name, line);
	return ping_chan_send_line(sv->fd, line, PING_PEER_CHAN_TIMEOUT_MS, err, errlen);
}

static int nping_server_qp_open(struct ping_serve *s, const struct ping_info *client,
				struct ping_info *local, char *err, size_t errlen)
{
	struct nping_server *sv = s->ctx;

	if (nping_qp_open(sv->dev, &sv->qp, 1, local, err, errlen) < 0)
		return -EIO;
	if (nping_qp_connect(&sv->qp, client, err, errlen) < 0) {
		nping_qp_destroy(&sv->qp);
		return -EIO;
	}
	return 0;
}

static void nping_server_drain(struct nping_server *sv);

/* Count what is still in the CQ too: the last UD messages may have landed
 * after the echo loop's last poll but before DONE was read. */
static uint64_t nping_server_rx_count(struct ping_serve *s)
{
	struct nping_server *sv = s->ctx;

	nping_server_drain(sv);
	return sv->qp.rx_bw;
}

static void nping_server_close(struct ping_serve *s)
{
	struct nping_server *sv = s->ctx;

	nping_qp_destroy(&sv->qp);
	if (sv->fd >= 0)
		close(sv->fd);
	sv->fd = -1;
}

static const struct ping_serve_ops nping_server_ops = {
    .port_check = nping_server_port_check,
    .send_line = nping_server_send_line,
    .qp_open = nping_server_qp_open,
    .rx_count = nping_server_rx_count,
    .close = nping_server_close,
};

static void nping_server_feed(struct ping_serve *s, enum ping_serve_ev_type type, const char *line,
			      const char *what)
{
	struct ping_serve_event ev = {.type = type, .now = nping_now(), .line = line, .what = what};

	ping_serve_event(s, &ev);
}

/* Answer a ping with a pong of the same length from a send slot. */
static int nping_server_pong(struct nping_server *sv, const uint8_t *data, uint32_t len,
			     uint32_t seq, char *err, size_t errlen)
{
	struct nping_qp *q = &sv->qp;
	unsigned slot = q->send_next++ % q->n_send;
	uint8_t *out = q->send_buf + (size_t)slot * q->size;

	if (len > q->size)
		len = q->size;
	memcpy(out, data, len);
	ping_proto_payload_put(out, PING_PAYLOAD_PONG, seq);
	return nping_qp_post_send(q, slot, len, 0, err, errlen);
}

static int nping_server_wc(struct nping_server *sv, const struct ibv_wc *wc, char *err,
			   size_t errlen)
{
	enum ping_payload_kind kind;
	uint32_t seq, len;
	uint8_t *data;
	int rc = 0;

	if (wc->status != IBV_WC_SUCCESS) {
		nping_qp_wc_error(wc, err, errlen);
		return -EIO;
	}
	if (wc->wr_id & NPING_WRID_SEND) {
		sv->qp.sq_out--;
		return 0;
	}
	if (nping_qp_wc_payload(&sv->qp, wc, &kind, &seq, &data, &len) == 0) {
		if (kind == PING_PAYLOAD_PING)
			rc = nping_server_pong(sv, data, len, seq, err, errlen);
		else if (kind == PING_PAYLOAD_BW)
			sv->qp.rx_bw++;
	}
	if (rc == 0)
		rc = nping_qp_post_recv(&sv->qp, (unsigned)wc->wr_id, err, errlen);
	return rc;
}

/* Poll until the CQ stays empty for a while (errors are ignored here). */
static void nping_server_drain(struct nping_server *sv)
{
	uint64_t quiet_until = nping_now() + NPING_TCP_CHECK_NS;
	struct ibv_wc wc[NPING_POLL_BATCH];
	char err[256];

	while (sv->qp.cq && nping_now() < quiet_until) {
		int n = ibv_poll_cq(sv->qp.cq, NPING_POLL_BATCH, wc);
		if (n <= 0)
			continue;
		quiet_until = nping_now() + NPING_TCP_CHECK_NS;
		for (int i = 0; i < n; i++)
			nping_server_wc(sv, &wc[i], err, sizeof(err));
	}
}

/* Echo pings for about NPING_TCP_CHECK_NS, then look at the side channel. */
static void nping_server_echo(struct nping_server *sv, struct ping_serve *s)
{
	uint64_t until = nping_now() + NPING_TCP_CHECK_NS;
	struct ibv_wc wc[NPING_POLL_BATCH];
	char err[256];

	while (nping_now() < until && !nping_stop) {
		int n = ibv_poll_cq(sv->qp.cq, NPING_POLL_BATCH, wc);
		if (n < 0) {
			nping_server_feed(s, PING_SERVE_EV_ERROR, NULL, "ibv_poll_cq failed");
			return;
		}
		for (int i = 0; i < n; i++) {
			if (nping_server_wc(sv, &wc[i], err, sizeof(err)) < 0) {
				snprintf(sv->what, sizeof(sv->what), "%s", err);
				nping_server_feed(s, PING_SERVE_EV_ERROR, NULL, sv->what);
				return;
			}
		}
	}
}

static void nping_server_lines(struct nping_server *sv, struct ping_serve *s)
{
	char line[PING_PROTO_LINE_MAX];
	int rc;

	while (!ping_serve_finished(s) &&
	       (rc = ping_proto_linebuf_take(&sv->lb, line, sizeof(line))) != 0) {
		if (rc < 0) {
			nping_server_feed(s, PING_SERVE_EV_ERROR, NULL, "side channel: bad line");
			return;
		}
		if (sv->opts->verbose > 1)
			fprintf(stderr, "%s -> %s\n", s->client_name, line);
		nping_server_feed(s, PING_SERVE_EV_LINE, line, NULL);
	}
}

/* Read the side channel (waiting up to wait_ms) and feed what came. */
static void nping_server_read(struct nping_server *sv, struct ping_serve *s, int wait_ms)
{
	char err[256];
	int rc = ping_chan_wait(sv->fd, wait_ms);

	if (rc <= 0)
		return;
	rc = ping_chan_read(sv->fd, &sv->lb, err, sizeof(err));
	if (rc == 0) {
		nping_server_feed(s, PING_SERVE_EV_CLOSED, NULL, NULL);
	} else if (rc < 0 && rc != -EAGAIN) {
		snprintf(sv->what, sizeof(sv->what), "%s", err);
		nping_server_feed(s, PING_SERVE_EV_ERROR, NULL, sv->what);
	} else {
		nping_server_lines(sv, s);
	}
}

static void nping_server_session(struct nping_server *sv, int fd, const char *name)
{
	struct ping_serve s;

	sv->fd = fd;
	ping_proto_linebuf_init(&sv->lb);
	ping_serve_init(&s, name, PING_PEER_CHAN_TIMEOUT_MS, &nping_server_ops, sv);
	nping_server_feed(&s, PING_SERVE_EV_ACCEPTED, NULL, NULL);
	while (!ping_serve_finished(&s)) {
		uint64_t now = nping_now();
		if (nping_stop)
			nping_server_feed(&s, PING_SERVE_EV_ERROR, NULL, "server stopping");
		else if (s.deadline && now >= s.deadline)
			nping_server_feed(&s, PING_SERVE_EV_TIMEOUT, NULL, NULL);
		else if (s.state == PING_SERVE_SERVING) {
			nping_server_echo(sv, &s);
			if (!ping_serve_finished(&s))
				nping_server_read(sv, &s, 0);
		} else {
			nping_server_read(sv, &s, nping_slice_ms(s.deadline, now));
		}
	}
	printf("nanosm-ping: session %s: %s: %s\n", name, ping_serve_state_name(s.state), s.reason);
	fflush(stdout);
}

int nping_server_run(struct nping_dev *d, const struct ping_opts *o)
{
	struct nping_server sv = {.dev = d, .opts = o, .fd = -1};
	char err[256];
	char lid[24];
	uint16_t bound = 0;
	int lfd;

	if (nping_dev_refresh(d, err, sizeof(err)) < 0)
		nping_warn("warning: %s; serving anyway: clients are told until it is fixed", err);
	if (ping_chan_listen(NULL, o->tcp_port, &lfd, &bound, err, sizeof(err)) < 0) {
		nping_warn("%s", err);
		return NPING_EXIT_SETUP;
	}
	snprintf(lid, sizeof(lid), d->lid ? "lid %u" : "no LID yet", d->lid);
	printf("nanosm-ping: server on %s port %u (%s), TCP port %u, protocol %s/%d\n", d->name,
	       d->port, lid, bound, PING_PROTO_NAME, PING_PROTO_VERSION);
	fflush(stdout);
	while (!nping_stop) {
		char name[80];
		int fd, rc = ping_chan_accept(lfd, NPING_WAIT_SLICE_MS, &fd, name, sizeof(name),
					      err, sizeof(err));
		if (rc == 0)
			nping_server_session(&sv, fd, name);
		else if (rc != -ETIMEDOUT && rc != -EINTR && rc != -EAGAIN)
			nping_warn("%s", err);
	}
	close(lfd);
	return NPING_EXIT_OK;
}
