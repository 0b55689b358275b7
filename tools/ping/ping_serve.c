/*
 * tools/ping/ping_serve.c - owns the server side of one nanosm-ping session: greeting,
 * validating the client's INFO, refusing with a reason, the closing BYE.
 * Pure: the echo loop and every socket or verbs call live in the driver.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tools/ping/ping_serve.h"

#define PING_SERVE_MS 1000000ULL

const char *ping_serve_state_name(enum ping_serve_state st)
{
	static const char *const names[] = {"idle", "greeted", "serving", "done", "failed"};

	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

void ping_serve_init(struct ping_serve *s, const char *client_name, unsigned timeout_ms,
		     const struct ping_serve_ops *ops, void *ctx)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->client_name, sizeof(s->client_name), "%s", client_name);
	s->timeout_ms = timeout_ms;
	s->ops = ops;
	s->ctx = ctx;
}

int ping_serve_finished(const struct ping_serve *s)
{
	return s->state == PING_SERVE_DONE || s->state == PING_SERVE_FAILED;
}

__attribute__((format(printf, 3, 4))) static void
ping_serve_end(struct ping_serve *s, enum ping_serve_state st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
	s->state = st;
	s->deadline = 0;
	s->ops->close(s);
}

static int ping_serve_send(struct ping_serve *s, const struct ping_msg *m)
{
	char line[PING_PROTO_LINE_MAX];
	char err[256];

	if (ping_proto_encode(m, line, sizeof(line), err, sizeof(err)) < 0) {
		ping_serve_end(s, PING_SERVE_FAILED, "cannot encode %s: %s",
			       ping_proto_msg_name(m->type), err);
		return -EINVAL;
	}
	if (s->ops->send_line(s, line, err, sizeof(err)) < 0) {
		ping_serve_end(s, PING_SERVE_FAILED, "side channel: %s", err);
		return -EIO;
	}
	return 0;
}

/* Tell the client why (cut to PING_PROTO_TEXT_MAX), then end the session;
 * the reason keeps the whole text. */
__attribute__((format(printf, 2, 3))) static void ping_serve_refuse(struct ping_serve *s,
								    const char *fmt, ...)
{
	struct ping_msg m;
	char why[sizeof(s->reason) - 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_ERROR;
	snprintf(m.text, sizeof(m.text), "%.*s", PING_PROTO_TEXT_MAX, why);
	if (ping_serve_send(s, &m) < 0)
		return;
	ping_serve_end(s, PING_SERVE_FAILED, "refused: %s", why);
}

static void ping_serve_on_accepted(struct ping_serve *s, uint64_t now)
{
	struct ping_msg m;
	char err[256];

	if (s->ops->port_check(s, &s->lid, s->gid, &s->mtu, err, sizeof(err)) < 0) {
		ping_serve_refuse(s, "%s", err);
		return;
	}
	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_HELLO;
	m.lid = s->lid;
	memcpy(m.gid, s->gid, sizeof(m.gid));
	if (ping_serve_send(s, &m) < 0)
		return;
	s->state = PING_SERVE_GREETED;
	s->deadline = now + s->timeout_ms * PING_SERVE_MS;
}

static void ping_serve_bye(struct ping_serve *s, int served)
{
	struct ping_msg m;

	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_BYE;
	m.rx = s->rx = served ? s->ops->rx_count(s) : 0;
	if (ping_serve_send(s, &m) < 0)
		return;
	if (served)
		ping_serve_end(s, PING_SERVE_DONE,
			       "%s, lid %u qpn 0x%06x, %u-byte messages, rx %llu",
			       ping_proto_mode_name(s->client.mode), s->client.lid, s->client.qpn,
			       s->client.size, (unsigned long long)s->rx);
	else
		ping_serve_end(s, PING_SERVE_DONE, "LID query only");
}

static void ping_serve_on_info(struct ping_serve *s, const struct ping_info *client)
{
	struct ping_msg m;
	char err[256];

	if (ping_proto_check_client(client, s->mtu, err, sizeof(err)) < 0) {
		ping_serve_refuse(s, "INFO refused: %s", err);
		return;
	}
	s->client = *client;
	memset(&s->local, 0, sizeof(s->local));
	s->local.mode = client->mode;
	s->local.size = client->size;
	if (s->ops->qp_open(s, client, &s->local, err, sizeof(err)) < 0) {
		ping_serve_refuse(s, "server cannot create a QP: %s", err);
		return;
	}
	s->local.mode = client->mode;
	s->local.size = client->size;
	memset(&m, 0, sizeof(m));
	m.type = PING_MSG_INFO;
	m.info = s->local;
	if (ping_serve_send(s, &m) < 0)
		return;
	s->state = PING_SERVE_SERVING;
	s->deadline = 0;
}

static void ping_serve_on_line(struct ping_serve *s, const char *line)
{
	struct ping_msg m;
	char err[256];

	if (ping_proto_parse(line, &m, err, sizeof(err)) < 0) {
		ping_serve_refuse(s, "malformed line: %s", err);
		return;
	}
	if (m.type == PING_MSG_DONE) {
		ping_serve_bye(s, s->state == PING_SERVE_SERVING);
	} else if (m.type == PING_MSG_INFO && s->state == PING_SERVE_GREETED) {
		ping_serve_on_info(s, &m.info);
	} else if (m.type == PING_MSG_ERROR) {
		ping_serve_end(s, PING_SERVE_FAILED, "client gave up: %s", m.text);
	} else {
		ping_serve_refuse(s, "protocol error: %s while %s", ping_proto_msg_name(m.type),
				  ping_serve_state_name(s->state));
	}
}

void ping_serve_event(struct ping_serve *s, const struct ping_serve_event *ev)
{
	if (ping_serve_finished(s))
		return;
	if (s->state == PING_SERVE_IDLE && ev->type != PING_SERVE_EV_ACCEPTED)
		return;
	switch (ev->type) {
	case PING_SERVE_EV_ACCEPTED:
		if (s->state == PING_SERVE_IDLE)
			ping_serve_on_accepted(s, ev->now);
		break;
	case PING_SERVE_EV_LINE:
		ping_serve_on_line(s, ev->line);
		break;
	case PING_SERVE_EV_TIMEOUT:
		if (s->deadline && ev->now >= s->deadline)
			ping_serve_end(s, PING_SERVE_FAILED, "no INFO from the client within %u ms",
				       s->timeout_ms);
		break;
	case PING_SERVE_EV_ERROR:
		ping_serve_end(s, PING_SERVE_FAILED, "%s", ev->what ? ev->what : "unknown error");
		break;
	case PING_SERVE_EV_CLOSED:
		ping_serve_end(s, PING_SERVE_FAILED, "client closed the side channel while %s",
			       ping_serve_state_name(s->state));
		break;
	}
}
