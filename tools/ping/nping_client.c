/*
 * tools/ping/nping_client.c - the client driver: for each path of the
 * plan, a ping_peer state machine (ping_peer.c) fed with events made of
 * side-channel lines, CQ completions, deadlines and signals, acting
 * through its ops on the side channel (ping_chan.c) and a QP (nping_qp.c);
 * the bandwidth stream; the verdict and summary lines on stdout.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/ping/nping.h"
#include "tools/ping/nping_client.h"
#include "tools/ping/nping_dev.h"
#include "tools/ping/nping_qp.h"
#include "tools/ping/ping_chan.h"
#include "tools/ping/ping_opts.h"
#include "tools/ping/ping_peer.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_report.h"

struct nping_client {
	struct nping_dev *dev;
	const struct ping_opts *opts;
	struct nping_qp qp;
	int fd;
	struct ping_proto_linebuf lb;
	struct ping_peer_event pending; /* set by an op, fed after it returns */
	int has_pending;
	char what[320];
	unsigned chan_timeout_ms;
};

static void nping_client_post(struct nping_client *c, enum ping_peer_ev_type type, const char *what)
{
	memset(&c->pending, 0, sizeof(c->pending));
	c->pending.type = type;
	if (what) {
		snprintf(c->what, sizeof(c->what), "%s", what);
		c->pending.what = c->what;
	}
	c->has_pending = 1;
}

static int nping_client_connect(struct ping_peer *p, char *err, size_t errlen)
{
	struct nping_client *c = p->ctx;
	int rc = ping_chan_connect(p->target.host, p->target.port, (int)c->chan_timeout_ms, &c->fd,
				   err, errlen);

	if (rc < 0)
		return rc;
	ping_proto_linebuf_init(&c->lb);
	nping_client_post(c, PING_PEER_EV_CONNECTED, NULL);
	return 0;
}

static int nping_client_send_line(struct ping_peer *p, const char *line, char *err, size_t errlen)
{
	struct nping_client *c = p->ctx;

	if (c->opts->verbose > 1)
		fprintf(stderr, "%s <- %s\n", p->result.name, line);
	return ping_chan_send_line(c->fd, line, (int)c->chan_timeout_ms, err, errlen);
}

static int nping_client_qp_open(struct ping_peer *p, struct ping_info *local, char *err,
				size_t errlen)
{
	struct nping_client *c = p->ctx;

	return nping_qp_open(c->dev, &c->qp, 0, local, err, errlen);
}

static int nping_client_qp_connect(struct ping_peer *p, const struct ping_info *remote, char *err,
				   size_t errlen)
{
	struct nping_client *c = p->ctx;

	if (c->opts->verbose)
		fprintf(stderr,
			"%s: local lid %u qpn 0x%06x psn 0x%06x, remote lid %u qpn 0x%06x psn "
			"0x%06x mtu %u\n",
			p->result.name, p->local.lid, p->local.qpn, p->local.psn, remote->lid,
			remote->qpn, remote->psn, remote->mtu);
	return nping_qp_connect(&c->qp, remote, err, errlen);
}

static int nping_client_send_ping(struct ping_peer *p, uint32_t seq, char *err, size_t errlen)
{
	struct nping_client *c = p->ctx;

	ping_proto_payload_put(c->qp.send_buf, PING_PAYLOAD_PING, seq);
	return nping_qp_post_send(&c->qp, 0, c->opts->ping_size, 0, err, errlen);
}

/* Reap send completions of the stream; 0, or -EIO with what set. */
static int nping_client_bw_reap(struct nping_client *c, uint64_t *done, char *what, size_t cap)
{
	struct ibv_wc wc[NPING_POLL_BATCH];
	int n = ibv_poll_cq(c->qp.cq, NPING_POLL_BATCH, wc);

	if (n < 0) {
		snprintf(what, cap, "bandwidth test: ibv_poll_cq failed");
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			char e[200];
			nping_qp_wc_error(&wc[i], e, sizeof(e));
			snprintf(what, cap, "bandwidth test: %s", e);
			return -EIO;
		}
		if (wc[i].wr_id & NPING_WRID_SEND) {
			c->qp.sq_out--;
			(*done)++;
		} else {
			char err[256];
			nping_qp_post_recv(&c->qp, (unsigned)wc[i].wr_id, err,
					   sizeof(err)); /* a late pong */
		}
	}
	return 0;
}

static void nping_client_quiesce(struct nping_client *c);

/* Run the whole stream here; BW_DONE or ERROR is posted for the machine. */
static int nping_client_start_bw(struct ping_peer *p, uint32_t size, unsigned count, char *err,
				 size_t errlen)
{
	struct nping_client *c = p->ctx;
	uint64_t posted = 0, done = 0, t0, deadline;
	char what[256];
	int rdma = c->qp.mode == PING_MODE_RC;

	nping_client_quiesce(c);
	ping_proto_payload_put(c->qp.send_buf, PING_PAYLOAD_BW, 0);
	t0 = nping_now();
	deadline = t0 + PING_PEER_BW_TIMEOUT_MS * 1000000ULL;
	while (done < count) {
		while (posted < count && posted - done < NPING_BW_WINDOW) {
			if (nping_qp_post_send(&c->qp, 0, size, rdma, err, errlen) < 0)
				return -EIO;
			posted++;
		}
		if (nping_client_bw_reap(c, &done, what, sizeof(what)) < 0) {
			nping_client_post(c, PING_PEER_EV_ERROR, what);
			return 0;
		}
		if (nping_stop || nping_now() > deadline) {
			nping_client_post(c, PING_PEER_EV_ERROR,
					  nping_stop ? "interrupted" : "bandwidth test timed out");
			return 0;
		}
	}
	nping_client_post(c, PING_PEER_EV_BW_DONE, NULL);
	c->pending.ns = nping_now() - t0;
	c->pending.bytes = (uint64_t)size * count;
	c->pending.msgs = count;
	return 0;
}

static void nping_client_close(struct ping_peer *p)
{
	struct nping_client *c = p->ctx;

	nping_qp_destroy(&c->qp);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static void nping_client_trace(struct ping_peer *p, enum ping_peer_state from,
			       enum ping_peer_state to)
{
	struct nping_client *c = p->ctx;

	if (c->opts->verbose)
		fprintf(stderr, "%s: %s -> %s\n", p->result.name, ping_peer_state_name(from),
			ping_peer_state_name(to));
}

static const struct ping_peer_ops nping_client_ops = {
    .connect = nping_client_connect,
    .send_line = nping_client_send_line,
    .qp_open = nping_client_qp_open,
    .qp_connect = nping_client_qp_connect,
    .send_ping = nping_client_send_ping,
    .start_bw = nping_client_start_bw,
    .close = nping_client_close,
    .trace = nping_client_trace,
};

static void nping_client_feed(struct ping_peer *p, struct ping_peer_event *ev)
{
	ev->now = nping_now();
	ping_peer_event(p, ev);
}

static void nping_client_feed_type(struct ping_peer *p, enum ping_peer_ev_type type,
				   const char *what)
{
	struct ping_peer_event ev = {.type = type, .what = what};

	nping_client_feed(p, &ev);
}

/* One completion seen by the client: its bookkeeping (send queue, receive
 * re-post) is done at once; what it means for the machine is returned in
 * ev (type PONG or ERROR), or 0 when it means nothing. */
static int nping_client_wc(struct nping_client *c, const struct ibv_wc *wc,
			   struct ping_peer_event *ev, char *what, size_t cap)
{
	enum ping_payload_kind kind;
	uint8_t *data;
	uint32_t len;
	char err[256];
	int pong;

	memset(ev, 0, sizeof(*ev));
	if (wc->status != IBV_WC_SUCCESS) {
		nping_qp_wc_error(wc, what, cap);
		ev->type = PING_PEER_EV_ERROR;
		return 1;
	}
	if (wc->wr_id & NPING_WRID_SEND) {
		c->qp.sq_out--;
		return 0;
	}
	pong = nping_qp_wc_payload(&c->qp, wc, &kind, &ev->seq, &data, &len) == 0 &&
	       kind == PING_PAYLOAD_PONG;
	if (nping_qp_post_recv(&c->qp, (unsigned)wc->wr_id, err, sizeof(err)) < 0) {
		snprintf(what, cap, "%s", err);
		ev->type = PING_PEER_EV_ERROR;
		return 1;
	}
	ev->type = PING_PEER_EV_PONG;
	return pong;
}

/* Busy-poll the CQ once.  Every completion is accounted for first (feeding
 * may end the phase, or the peer and its QP), then the pongs and errors are
 * fed in order while the peer is still pinging. */
static void nping_client_poll_pongs(struct nping_client *c, struct ping_peer *p)
{
	struct ibv_wc wc[NPING_POLL_BATCH];
	struct ping_peer_event ev[NPING_POLL_BATCH];
	char what[NPING_POLL_BATCH][256];
	int n = ibv_poll_cq(c->qp.cq, NPING_POLL_BATCH, wc), n_ev = 0;

	if (n < 0) {
		nping_client_feed_type(p, PING_PEER_EV_ERROR, "ibv_poll_cq failed");
		return;
	}
	for (int i = 0; i < n; i++) {
		if (nping_client_wc(c, &wc[i], &ev[n_ev], what[n_ev], sizeof(what[n_ev]))) {
			if (ev[n_ev].type == PING_PEER_EV_ERROR)
				ev[n_ev].what = what[n_ev];
			n_ev++;
		}
	}
	for (int i = 0; i < n_ev && p->state == PING_PEER_PINGING; i++)
		nping_client_feed(p, &ev[i]);
}

/* Before the stream: wait (briefly) for the last ping's send completion,
 * so the stream's count starts from an empty send queue. */
static void nping_client_quiesce(struct nping_client *c)
{
	uint64_t until = nping_now() + 100 * 1000000ULL;
	struct ibv_wc wc[NPING_POLL_BATCH];
	struct ping_peer_event ev;
	char what[256];

	while (c->qp.sq_out > 0 && nping_now() < until) {
		int n = ibv_poll_cq(c->qp.cq, NPING_POLL_BATCH, wc);
		for (int i = 0; i < n; i++)
			nping_client_wc(c, &wc[i], &ev, what, sizeof(what));
	}
}

/* Feed the lines already buffered; 1 if any was fed. */
static int nping_client_lines(struct nping_client *c, struct ping_peer *p)
{
	char line[PING_PROTO_LINE_MAX];
	int rc, fed = 0;

	while (!ping_peer_finished(p) &&
	       (rc = ping_proto_linebuf_take(&c->lb, line, sizeof(line))) != 0) {
		struct ping_peer_event ev = {.type = PING_PEER_EV_LINE, .line = line};
		if (rc < 0) {
			nping_client_feed_type(p, PING_PEER_EV_ERROR,
					       rc == -EMSGSIZE
						   ? "side channel: line too long"
						   : "side channel: NUL byte in a line");
			return 1;
		}
		if (c->opts->verbose > 1)
			fprintf(stderr, "%s -> %s\n", p->result.name, line);
		nping_client_feed(p, &ev);
		fed = 1;
	}
	return fed;
}

/* Wait for the side channel (or the deadline) and feed what comes. */
static void nping_client_wait_line(struct nping_client *c, struct ping_peer *p)
{
	char err[256];
	int rc;

	if (nping_client_lines(c, p))
		return;
	rc = ping_chan_wait(c->fd, nping_slice_ms(p->deadline, nping_now()));
	if (rc <= 0)
		return; /* timeout or signal: the loop checks both */
	rc = ping_chan_read(c->fd, &c->lb, err, sizeof(err));
	if (rc == 0)
		nping_client_feed_type(p, PING_PEER_EV_CLOSED, NULL);
	else if (rc < 0 && rc != -EAGAIN)
		nping_client_feed_type(p, PING_PEER_EV_ERROR, err);
	else
		nping_client_lines(c, p);
}

static void nping_client_step(struct nping_client *c, struct ping_peer *p)
{
	if (c->has_pending) {
		struct ping_peer_event ev = c->pending;
		c->has_pending = 0;
		nping_client_feed(p, &ev);
	} else if (nping_stop) {
		nping_client_feed_type(p, PING_PEER_EV_ERROR, "interrupted");
	} else if (p->deadline && nping_now() >= p->deadline) {
		nping_client_feed_type(p, PING_PEER_EV_TIMEOUT, NULL);
	} else if (p->state == PING_PEER_PINGING) {
		nping_client_poll_pongs(c, p);
	} else if (c->fd >= 0) {
		nping_client_wait_line(c, p);
	} else {
		nping_client_feed_type(p, PING_PEER_EV_ERROR,
				       "internal error: nothing to wait for");
	}
}

static void nping_client_run_peer(struct nping_client *c, struct ping_peer *p)
{
	struct ping_peer_event start = {.type = PING_PEER_EV_START};

	c->fd = -1;
	c->has_pending = 0;
	nping_client_feed(p, &start);
	while (!ping_peer_finished(p))
		nping_client_step(c, p);
}

static void nping_client_header(const struct nping_dev *d, const struct ping_opts *o,
				const struct ping_peer_cfg *cfg, size_t n)
{
	char t[16];

	printf(
	    "nanosm-ping: %s port %u lid %u -> %zu host%s: %s ping-pong %u x %u bytes, timeout %s",
	    d->name, d->port, d->lid, n, n == 1 ? "" : "s", o->mode == PING_MODE_RC ? "RC" : "UD",
	    o->iters, o->ping_size, ping_report_duration(o->timeout_ms, t, sizeof(t)));
	if (o->bw)
		printf("; bw %s %u x %u bytes", o->mode == PING_MODE_RC ? "RC write" : "UD send",
		       o->bw_count, ping_peer_bw_size(cfg));
	printf("\n");
	fflush(stdout);
}

static void nping_client_cfg(const struct ping_opts *o, const struct nping_dev *d,
			     const uint16_t *want, size_t n_want, struct ping_peer_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = o->mode;
	cfg->iters = o->iters;
	cfg->ping_size = o->ping_size;
	cfg->bw = o->bw;
	cfg->bw_size = o->bw_size;
	cfg->bw_count = o->bw_count;
	cfg->timeout_ms = o->timeout_ms;
	cfg->chan_timeout_ms = PING_PEER_CHAN_TIMEOUT_MS;
	cfg->local_mtu = d->mtu;
	cfg->want_lids = want;
	cfg->n_want = n_want;
}

static void nping_print_result(const struct ping_result *r, int verbose)
{
	char line[PING_REPORT_LINE_MAX];

	if (r->verdict == PING_VERDICT_SKIPPED && !verbose)
		return;
	if (ping_report_format(r, line, sizeof(line)) < 0)
		snprintf(line, sizeof(line), "%s %s: (verdict too long to print)",
			 r->verdict == PING_VERDICT_OK ? "OK" : "FAIL", r->name);
	printf("%s\n", line);
	fflush(stdout);
}

/* LID targets no server reported; prints them.  Returns how many. */
static size_t nping_client_missing(const struct ping_opts *o, const struct ping_result *res,
				   size_t n)
{
	char line[PING_REPORT_LINE_MAX];
	size_t missing = 0;

	for (size_t i = 0; i < o->n_targets; i++) {
		uint16_t lid = o->targets[i].lid;
		int found = 0;
		for (size_t j = 0; lid && j < n && !found; j++)
			found = res[j].lid == lid && res[j].verdict != PING_VERDICT_SKIPPED;
		if (!lid || found)
			continue;
		ping_report_lid_missing(lid, o->hosts_file ? o->hosts_file : o->all_file, res, n,
					line, sizeof(line));
		printf("%s\n", line);
		missing++;
	}
	return missing;
}

/* A resolve-only host whose side channel failed before it told its LID. */
static int nping_unresolved(const struct ping_plan_item *item, const struct ping_result *r)
{
	return item->resolve_only && r->verdict == PING_VERDICT_FAIL && !r->lid;
}

int nping_client_run(struct nping_dev *d, const struct ping_opts *o,
		     const struct ping_plan_item *plan, size_t n)
{
	struct nping_client c = {
	    .dev = d, .opts = o, .fd = -1, .chan_timeout_ms = PING_PEER_CHAN_TIMEOUT_MS};
	struct ping_result *res = calloc(n + 1, sizeof(*res));
	uint16_t *want = calloc(o->n_targets + 1, sizeof(*want));
	struct ping_peer_cfg cfg;
	size_t n_want = 0, missing, fails = 0;
	char line[PING_REPORT_LINE_MAX];

	if (!res || !want) {
		free(res);
		free(want);
		nping_warn("out of memory");
		return NPING_EXIT_SETUP;
	}
	for (size_t i = 0; i < o->n_targets; i++)
		if (o->targets[i].lid)
			want[n_want++] = o->targets[i].lid;
	nping_client_cfg(o, d, want, n_want, &cfg);
	nping_client_header(d, o, &cfg, n);
	for (size_t i = 0; i < n && !nping_stop; i++) {
		struct ping_peer p;
		char name[PING_REPORT_NAME_MAX];

		ping_opts_target_name(&plan[i].target, o->tcp_port, name, sizeof(name));
		if (ping_peer_init(&p, &cfg, &plan[i].target, name, plan[i].resolve_only,
				   &nping_client_ops, &c) < 0) {
			nping_warn("out of memory");
			break;
		}
		nping_client_run_peer(&c, &p);
		res[i] = p.result;
		ping_peer_fini(&p);
		if (!nping_unresolved(&plan[i], &res[i]) || o->verbose)
			nping_print_result(&res[i], o->verbose);
	}
	missing = nping_client_missing(o, res, n);
	/* a host asked only for its LID that never answered is named in the
	 * lines above, not counted as a path */
	for (size_t i = 0; i < n; i++) {
		if (nping_unresolved(&plan[i], &res[i]))
			res[i].verdict = PING_VERDICT_SKIPPED;
		fails += res[i].verdict == PING_VERDICT_FAIL;
	}
	ping_report_summary(res, n, missing, line, sizeof(line));
	printf("nanosm-ping: %s%s\n", line, nping_stop ? " (interrupted)" : "");
	free(res);
	free(want);
	return fails || missing || nping_stop ? NPING_EXIT_FAIL : NPING_EXIT_OK;
}
