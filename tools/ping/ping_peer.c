/*
 * tools/ping/ping_peer.c - owns the client side of one nanosm-ping path: the state
 * walk, the ping bookkeeping and the verdict.  Pure: every effect goes
 * through struct ping_peer_ops, every time arrives in an event.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ping/ping_peer.h"

#define PING_PEER_MS 1000000ULL /* ns per ms */

const char *ping_peer_state_name(enum ping_peer_state s)
{
	static const char *const names[] = {
	    "idle", "connecting", "greeting", "exchanging", "ready",   "pinging",
	    "bw",   "closing",	  "done",     "failed",	    "skipped",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

uint32_t ping_peer_bw_size(const struct ping_peer_cfg *cfg)
{
	if (!cfg->bw)
		return 0;
	if (cfg->bw_size)
		return cfg->bw_size;
	return cfg->mode == PING_MODE_RC ? PING_OPTS_RC_BW_SIZE : cfg->local_mtu;
}

uint32_t ping_peer_msg_size(const struct ping_peer_cfg *cfg)
{
	uint32_t bw = ping_peer_bw_size(cfg);

	return bw > cfg->ping_size ? bw : cfg->ping_size;
}

int ping_peer_init(struct ping_peer *p, const struct ping_peer_cfg *cfg,
		   const struct ping_target *t, const char *name, int resolve_only,
		   const struct ping_peer_ops *ops, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->samples = calloc(cfg->iters ? cfg->iters : 1, sizeof(*p->samples));
	if (!p->samples)
		return -ENOMEM;
	p->cfg = cfg;
	p->ops = ops;
	p->ctx = ctx;
	p->target = *t;
	p->resolve_only = resolve_only;
	p->bw_size = ping_peer_bw_size(cfg);
	snprintf(p->result.name, sizeof(p->result.name), "%s", name);
	return 0;
}

void ping_peer_fini(struct ping_peer *p)
{
	free(p->samples);
	p->samples = NULL;
}

int ping_peer_finished(const struct ping_peer *p)
{
	return p->state == PING_PEER_DONE || p->state == PING_PEER_FAILED ||
	       p->state == PING_PEER_SKIPPED;
}

/* ---- Transitions --------------------------------------------------------- */

static void ping_peer_enter(struct ping_peer *p, enum ping_peer_state to)
{
	enum ping_peer_state from = p->state;

	p->state = to;
	if (p->ops->trace && from != to)
		p->ops->trace(p, from, to);
}

static void ping_peer_wait(struct ping_peer *p, uint64_t now, unsigned ms)
{
	p->deadline = now + ms * PING_PEER_MS;
}

/* The final state: statistics, verdict, ops->close. */
static void ping_peer_end(struct ping_peer *p, enum ping_peer_state to, enum ping_verdict v)
{
	p->deadline = 0;
	p->result.verdict = v;
	if (p->n_samples)
		ping_report_stats(p->samples, p->n_samples, &p->result.rtt);
	ping_peer_enter(p, to);
	p->ops->close(p);
}

__attribute__((format(printf, 2, 3))) static void ping_peer_fail(struct ping_peer *p,
								 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->result.reason, sizeof(p->result.reason), fmt, ap);
	va_end(ap);
	ping_peer_end(p, PING_PEER_FAILED, PING_VERDICT_FAIL);
}

static const char *ping_peer_timeout_text(const struct ping_peer *p, char *buf, size_t cap)
{
	return ping_report_duration(p->cfg->timeout_ms, buf, cap);
}

/* Encode and send one message; fails the peer on error. */
static int ping_peer_send(struct ping_peer *p, const struct ping_msg *m)
{
	char line[PING_PROTO_LINE_MAX];
	char err[256];

	if (ping_proto_encode(m, line, sizeof(line), err, sizeof(err)) < 0) {
		ping_peer_fail(p, "cannot encode %s: %s", ping_proto_msg_name(m->type), err);
		return -EINVAL;
	}
	if (p->ops->send_line(p, line, err, sizeof(err)) < 0) {
		ping_peer_fail(p, "side channel: %s", err);
		return -EIO;
	}
	return 0;
}

static int ping_peer_send_type(struct ping_peer *p, enum ping_msg_type type)
{
	struct ping_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	return ping_peer_send(p, &m);
}

/* Parse a server line; fails the peer on a malformed line or an ERROR. */
static int ping_peer_parse(struct ping_peer *p, const char *line, struct ping_msg *m)
{
	char err[256];

	if (ping_proto_parse(line, m, err, sizeof(err)) < 0) {
		ping_peer_fail(p, "malformed line from the server: %s", err);
		return -EBADMSG;
	}
	if (m->type == PING_MSG_ERROR) {
		ping_peer_fail(p, "server refused: %s", m->text);
		return -ECONNREFUSED;
	}
	return 0;
}

static int ping_peer_expect(struct ping_peer *p, const struct ping_msg *m, enum ping_msg_type want)
{
	if (m->type == want)
		return 0;
	ping_peer_fail(p, "protocol error: the server sent %s, expected %s",
		       ping_proto_msg_name(m->type), ping_proto_msg_name(want));
	return -EBADMSG;
}

/* ---- Pings ---------------------------------------------------------------- */

static void ping_peer_closing(struct ping_peer *p, uint64_t now)
{
	if (ping_peer_send_type(p, PING_MSG_DONE) < 0)
		return;
	ping_peer_enter(p, PING_PEER_CLOSING);
	ping_peer_wait(p, now, p->cfg->chan_timeout_ms);
}

static void ping_peer_start_bw(struct ping_peer *p, uint64_t now)
{
	char err[256];

	ping_peer_enter(p, PING_PEER_BW);
	if (p->ops->start_bw(p, p->bw_size, p->cfg->bw_count, err, sizeof(err)) < 0) {
		ping_peer_fail(p, "bandwidth test: %s", err);
		return;
	}
	ping_peer_wait(p, now, PING_PEER_BW_TIMEOUT_MS);
}

static void ping_peer_send_ping(struct ping_peer *p, uint64_t now)
{
	char err[256];

	p->seq = p->result.sent & 0xffffff;
	if (p->ops->send_ping(p, p->seq, err, sizeof(err)) < 0) {
		ping_peer_fail(p, "ping %u: %s", p->result.sent, err);
		return;
	}
	p->result.sent++;
	p->sent_at = now;
	ping_peer_wait(p, now, p->cfg->timeout_ms);
}

/* The next ping, or the next phase once every ping has been sent. */
static void ping_peer_next(struct ping_peer *p, uint64_t now)
{
	if (p->result.sent < p->cfg->iters)
		ping_peer_send_ping(p, now);
	else if (p->cfg->bw)
		ping_peer_start_bw(p, now);
	else
		ping_peer_closing(p, now);
}

static void ping_peer_on_pong(struct ping_peer *p, const struct ping_peer_event *ev)
{
	if (p->state != PING_PEER_PINGING || ev->seq != p->seq || p->deadline == 0)
		return; /* late: its ping was already counted lost */
	p->samples[p->n_samples++] = ev->now - p->sent_at;
	p->misses = 0;
	p->deadline = 0;
	ping_peer_next(p, ev->now);
}

static void ping_peer_ping_timeout(struct ping_peer *p, uint64_t now)
{
	char t[16];

	p->result.lost++;
	p->misses++;
	p->deadline = 0;
	ping_peer_timeout_text(p, t, sizeof(t));
	if (p->n_samples == 0)
		ping_peer_fail(p, "no response (timeout %s)", t);
	else if (p->misses >= PING_PEER_MAX_MISSES)
		ping_peer_fail(p,
			       "no response after %zu repl%s: %u pings in a row lost (timeout %s)",
			       p->n_samples, p->n_samples == 1 ? "y" : "ies", p->misses, t);
	else
		ping_peer_next(p, now);
}

/* ---- Side channel --------------------------------------------------------- */

static int ping_peer_wanted(const struct ping_peer *p, uint16_t lid)
{
	if (!p->resolve_only)
		return 1;
	for (size_t i = 0; i < p->cfg->n_want; i++)
		if (p->cfg->want_lids[i] == lid)
			return 1;
	return 0;
}

static void ping_peer_skip(struct ping_peer *p)
{
	if (ping_peer_send_type(p, PING_MSG_DONE) < 0)
		return;
	snprintf(p->result.reason, sizeof(p->result.reason), "lid %u was not asked for",
		 p->hello_lid);
	ping_peer_end(p, PING_PEER_SKIPPED, PING_VERDICT_SKIPPED);
}

static void ping_peer_send_info(struct ping_peer *p, uint64_t now)
{
	struct ping_msg m;
	char err[256];

	memset(&p->local, 0, sizeof(p->local));
	p->local.mode = p->cfg->mode;
	p->local.size = ping_peer_msg_size(p->cfg);
	if (p->ops->qp_open(p, &p->local, err, sizeof(err)) < 0) {
		ping_peer_fail(p, "cannot create the local QP: %s", err);
		return;
	}
	p->local.size = ping_peer_msg_size(p->cfg);
	p->local.rkey = 0;
	p->local.addr = 0;
	p->result.loopback = p->local.lid == p->hello_lid &&
			     memcmp(p->local.gid, p->hello_gid, sizeof(p->hello_gid)) == 0;
	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_INFO;
	m.info = p->local;
	if (ping_peer_send(p, &m) < 0)
		return;
	ping_peer_enter(p, PING_PEER_EXCHANGING);
	ping_peer_wait(p, now, p->cfg->chan_timeout_ms);
}

static void ping_peer_on_hello(struct ping_peer *p, const struct ping_msg *m, uint64_t now)
{
	p->hello_lid = m->lid;
	memcpy(p->hello_gid, m->gid, sizeof(p->hello_gid));
	p->result.lid = m->lid;
	if (!ping_peer_wanted(p, m->lid))
		ping_peer_skip(p);
	else
		ping_peer_send_info(p, now);
}

static void ping_peer_on_info(struct ping_peer *p, const struct ping_msg *m, uint64_t now)
{
	char err[256];

	if (ping_proto_check_server(&p->local, &m->info, err, sizeof(err)) < 0) {
		ping_peer_fail(p, "server INFO does not fit: %s", err);
		return;
	}
	if (m->info.lid != p->hello_lid) {
		ping_peer_fail(p, "server INFO says lid %u, its HELLO said lid %u", m->info.lid,
			       p->hello_lid);
		return;
	}
	p->remote = m->info;
	if (p->ops->qp_connect(p, &p->remote, err, sizeof(err)) < 0) {
		ping_peer_fail(p, "cannot connect the QP to lid %u qpn 0x%06x: %s", p->remote.lid,
			       p->remote.qpn, err);
		return;
	}
	ping_peer_enter(p, PING_PEER_READY);
	ping_peer_enter(p, PING_PEER_PINGING);
	ping_peer_next(p, now);
}

static void ping_peer_on_bye(struct ping_peer *p, const struct ping_msg *m)
{
	char t[16];

	if (p->result.have_bw && p->cfg->mode == PING_MODE_UD) {
		p->result.bw_rx = m->rx < p->result.bw_sent ? m->rx : p->result.bw_sent;
		p->result.bw_bytes = p->result.bw_rx * p->bw_size;
	}
	if (p->result.lost == 0) {
		ping_peer_end(p, PING_PEER_DONE, PING_VERDICT_OK);
		return;
	}
	ping_peer_fail(p, "%u of %u pings lost (timeout %s)", p->result.lost, p->result.sent,
		       ping_peer_timeout_text(p, t, sizeof(t)));
}

static void ping_peer_on_line(struct ping_peer *p, const struct ping_peer_event *ev)
{
	struct ping_msg m;
	enum ping_msg_type want;

	switch (p->state) {
	case PING_PEER_GREETING:
		want = PING_MSG_HELLO;
		break;
	case PING_PEER_EXCHANGING:
		want = PING_MSG_INFO;
		break;
	case PING_PEER_CLOSING:
		want = PING_MSG_BYE;
		break;
	default:
		if (ping_peer_parse(p, ev->line, &m) == 0)
			ping_peer_fail(p, "protocol error: the server sent %s while %s",
				       ping_proto_msg_name(m.type), ping_peer_state_name(p->state));
		return;
	}
	if (ping_peer_parse(p, ev->line, &m) < 0 || ping_peer_expect(p, &m, want) < 0)
		return;
	if (want == PING_MSG_HELLO)
		ping_peer_on_hello(p, &m, ev->now);
	else if (want == PING_MSG_INFO)
		ping_peer_on_info(p, &m, ev->now);
	else
		ping_peer_on_bye(p, &m);
}

/* ---- Other events --------------------------------------------------------- */

static void ping_peer_on_start(struct ping_peer *p, uint64_t now)
{
	char err[256];

	if (p->state != PING_PEER_IDLE)
		return;
	ping_peer_enter(p, PING_PEER_CONNECTING);
	ping_peer_wait(p, now, p->cfg->chan_timeout_ms);
	if (p->ops->connect(p, err, sizeof(err)) < 0)
		ping_peer_fail(p, "side channel: %s", err);
}

static void ping_peer_on_connected(struct ping_peer *p, uint64_t now)
{
	if (p->state != PING_PEER_CONNECTING)
		return;
	ping_peer_enter(p, PING_PEER_GREETING);
	ping_peer_wait(p, now, p->cfg->chan_timeout_ms);
}

static void ping_peer_on_bw_done(struct ping_peer *p, const struct ping_peer_event *ev)
{
	if (p->state != PING_PEER_BW)
		return;
	p->result.have_bw = 1;
	p->result.bw_bytes = ev->bytes;
	p->result.bw_ns = ev->ns;
	p->result.bw_sent = p->cfg->mode == PING_MODE_UD ? ev->msgs : 0;
	p->result.bw_rx = p->result.bw_sent;
	ping_peer_closing(p, ev->now);
}

static const char *ping_peer_waiting_for(enum ping_peer_state s)
{
	switch (s) {
	case PING_PEER_CONNECTING:
		return "connection";
	case PING_PEER_GREETING:
		return "HELLO";
	case PING_PEER_EXCHANGING:
		return "INFO";
	case PING_PEER_CLOSING:
		return "BYE";
	default:
		return "answer";
	}
}

static void ping_peer_on_timeout(struct ping_peer *p, uint64_t now)
{
	char t[16];

	if (p->deadline == 0 || now < p->deadline)
		return;
	if (p->state == PING_PEER_PINGING) {
		ping_peer_ping_timeout(p, now);
	} else if (p->state == PING_PEER_BW) {
		ping_peer_fail(p, "bandwidth test did not finish within %s",
			       ping_report_duration(PING_PEER_BW_TIMEOUT_MS, t, sizeof(t)));
	} else if (p->state == PING_PEER_CONNECTING) {
		ping_peer_fail(p, "side channel: connect did not complete within %s",
			       ping_report_duration(p->cfg->chan_timeout_ms, t, sizeof(t)));
	} else {
		ping_peer_fail(p, "side channel: no %s from the server within %s",
			       ping_peer_waiting_for(p->state),
			       ping_report_duration(p->cfg->chan_timeout_ms, t, sizeof(t)));
	}
}

static void ping_peer_on_error(struct ping_peer *p, const char *what)
{
	const char *w = what ? what : "unknown error";

	if (p->state == PING_PEER_PINGING && p->n_samples == 0)
		ping_peer_fail(p, "no response (%s)", w);
	else if (p->state == PING_PEER_CONNECTING)
		ping_peer_fail(p, "side channel: %s", w);
	else
		ping_peer_fail(p, "%s", w);
}

static void ping_peer_on_closed(struct ping_peer *p)
{
	if (p->state == PING_PEER_PINGING || p->state == PING_PEER_BW ||
	    p->state == PING_PEER_READY)
		ping_peer_fail(p, "side channel closed by the server during the %s test",
			       p->state == PING_PEER_BW ? "bandwidth" : "ping");
	else
		ping_peer_fail(p, "side channel closed by the server (waiting for %s)",
			       ping_peer_waiting_for(p->state));
}

void ping_peer_event(struct ping_peer *p, const struct ping_peer_event *ev)
{
	if (ping_peer_finished(p))
		return;
	switch (ev->type) {
	case PING_PEER_EV_START:
		ping_peer_on_start(p, ev->now);
		break;
	case PING_PEER_EV_CONNECTED:
		ping_peer_on_connected(p, ev->now);
		break;
	case PING_PEER_EV_LINE:
		ping_peer_on_line(p, ev);
		break;
	case PING_PEER_EV_PONG:
		ping_peer_on_pong(p, ev);
		break;
	case PING_PEER_EV_BW_DONE:
		ping_peer_on_bw_done(p, ev);
		break;
	case PING_PEER_EV_TIMEOUT:
		ping_peer_on_timeout(p, ev->now);
		break;
	case PING_PEER_EV_ERROR:
		if (p->state != PING_PEER_IDLE)
			ping_peer_on_error(p, ev->what);
		break;
	case PING_PEER_EV_CLOSED:
		if (p->state != PING_PEER_IDLE)
			ping_peer_on_closed(p);
		break;
	}
}
