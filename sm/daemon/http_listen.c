/*
 * sm/daemon/http_listen.c - the /metrics listener's sockets on the libev
 * loop: accept, bounded reads into a fixed buffer, nonblocking writes,
 * timeouts.  Owns its fds and watchers; what it answers comes from the
 * render callback and sm/daemon/http.c.
 */
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config/policy.h"
#include "sm/core/log.h"
#include "sm/daemon/http.h"
#include "sm/daemon/http_listen.h"

struct http_client {
	struct http_listen *h;
	int fd;
	ev_io io;
	ev_timer timer;
	char req[HTTP_REQUEST_MAX];
	size_t have;
	char head[256];
	size_t head_len;
	char *body; /* malloc'ed, or a static text (owned 0) */
	int owned;
	size_t body_len, sent; /* of head + body */
	int draining;	       /* answered: reading what is left until EOF */
};

struct http_listen {
	struct ev_loop *ev;
	int fd;
	ev_io io;
	char addr[POLICY_LISTEN_MAX];
	http_render_fn render;
	void *ctx;
	struct http_client *client[HTTP_LISTEN_CLIENTS];
};

static const char http_index[] = "<html><body>nanosm: <a href=\"/metrics\">/metrics</a>"
				 "</body></html>\n";

static void http_client_close(struct http_client *c)
{
	for (int i = 0; i < HTTP_LISTEN_CLIENTS; i++)
		if (c->h->client[i] == c)
			c->h->client[i] = NULL;
	ev_io_stop(c->h->ev, &c->io);
	ev_timer_stop(c->h->ev, &c->timer);
	close(c->fd);
	if (c->owned)
		free(c->body);
	free(c);
}

static void http_client_on_timer(struct ev_loop *ev, ev_timer *w, int revents)
{
	(void)ev;
	(void)revents;
	http_client_close(w->data);
}

/* The answer to a complete (or refused) request: head and body. */
static void http_client_answer(struct http_client *c, int rc, const struct http_request *rq)
{
	int code = rc == -E2BIG ? 413 : rc == -ENOTSUP ? 405 : rc < 0 ? 400 : 200;
	const char *type = "text/plain; charset=utf-8";

	c->body = NULL;
	c->body_len = 0;
	if (code == 200 && rq->target == HTTP_TARGET_METRICS) {
		type = "text/plain; version=0.0.4; charset=utf-8";
		c->body = c->h->render(c->h->ctx, &c->body_len);
		c->owned = 1;
		if (!c->body)
			code = 503;
	} else if (code == 200 && rq->target == HTTP_TARGET_INDEX) {
		type = "text/html; charset=utf-8";
		c->body = (char *)http_index;
		c->body_len = sizeof(http_index) - 1;
	} else if (code == 200) {
		code = 404;
	}
	c->head_len = http_head(code, type, c->body_len, c->head, sizeof(c->head));
	if (rq && rq->head && code == 200)
		c->body_len = 0; /* HEAD: the length is said, nothing follows */
	c->sent = 0;
}

static void http_client_write(struct http_client *c)
{
	while (c->sent < c->head_len + c->body_len) {
		const char *p =
		    c->sent < c->head_len ? c->head + c->sent : c->body + (c->sent - c->head_len);
		size_t n = c->sent < c->head_len ? c->head_len - c->sent
						 : c->body_len - (c->sent - c->head_len);
		ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			return; /* the io watcher calls again */
		if (w <= 0) {
			http_client_close(c);
			return;
		}
		c->sent += (size_t)w;
	}
	/* closing with unread bytes would reset the connection and could
	 * drop the answer: say we are done, read to the client's EOF */
	shutdown(c->fd, SHUT_WR);
	c->draining = 1;
	ev_io_stop(c->h->ev, &c->io);
	ev_io_set(&c->io, c->fd, EV_READ);
	ev_io_start(c->h->ev, &c->io);
}

/* Discard what the client still sends; close at its EOF. */
static void http_client_drain(struct http_client *c)
{
	char sink[1024];
	ssize_t n = recv(c->fd, sink, sizeof(sink), 0);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		http_client_close(c);
}

static void http_client_on_io(struct ev_loop *ev, ev_io *w, int revents)
{
	struct http_client *c = w->data;
	struct http_request rq = {0};
	ssize_t n;
	int rc;

	(void)revents;
	if (c->draining) {
		http_client_drain(c);
		return;
	}
	if (c->head_len) {
		http_client_write(c);
		return;
	}
	n = recv(c->fd, c->req + c->have, sizeof(c->req) - c->have, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		http_client_close(c);
		return;
	}
	c->have += (size_t)n;
	rc = http_parse(c->req, c->have, &rq);
	if (rc == -EAGAIN)
		return;
	http_client_answer(c, rc, &rq);
	ev_io_stop(ev, &c->io);
	ev_io_set(&c->io, c->fd, EV_WRITE);
	ev_io_start(ev, &c->io);
	http_client_write(c);
}

static void http_on_accept(struct ev_loop *ev, ev_io *w, int revents)
{
	struct http_listen *h = w->data;
	int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), slot = 0;
	struct http_client *c;

	(void)revents;
	if (fd < 0)
		return;
	while (slot < HTTP_LISTEN_CLIENTS && h->client[slot])
		slot++;
	c = slot < HTTP_LISTEN_CLIENTS ? calloc(1, sizeof(*c)) : NULL;
	if (!c) { /* too many at once: this one is turned away */
		close(fd);
		return;
	}
	c->h = h;
	c->fd = fd;
	h->client[slot] = c;
	ev_io_init(&c->io, http_client_on_io, fd, EV_READ);
	c->io.data = c;
	ev_timer_init(&c->timer, http_client_on_timer, HTTP_LISTEN_TIMEOUT_S, 0.0);
	c->timer.data = c;
	ev_io_start(ev, &c->io);
	ev_timer_start(ev, &c->timer);
}

static int http_socket(const char *addr, char *err, size_t errlen)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	uint16_t port;
	int fd, one = 1;

	if (policy_listen_parse(addr, &sin.sin_addr.s_addr, &port) < 0) {
		snprintf(err, errlen, "monitor.listen %s: not IPv4-address:port", addr);
		return -EINVAL;
	}
	sin.sin_port = htons(port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(fd, 16) < 0) {
		int e = errno;

		snprintf(err, errlen, "monitor.listen %s: %s", addr, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	return fd;
}

struct http_listen *http_listen_start(struct ev_loop *ev, const char *addr, http_render_fn render,
				      void *ctx, char *err, size_t errlen)
{
	struct http_listen *h = calloc(1, sizeof(*h));

	if (!h) {
		snprintf(err, errlen, "monitor.listen %s: out of memory", addr);
		return NULL;
	}
	h->fd = http_socket(addr, err, errlen);
	if (h->fd < 0) {
		free(h);
		return NULL;
	}
	h->ev = ev;
	h->render = render;
	h->ctx = ctx;
	snprintf(h->addr, sizeof(h->addr), "%s", addr);
	ev_io_init(&h->io, http_on_accept, h->fd, EV_READ);
	h->io.data = h;
	ev_io_start(ev, &h->io);
	return h;
}

void http_listen_stop(struct http_listen *h)
{
	if (!h)
		return;
	for (int i = 0; i < HTTP_LISTEN_CLIENTS; i++)
		if (h->client[i])
			http_client_close(h->client[i]);
	ev_io_stop(h->ev, &h->io);
	close(h->fd);
	free(h);
}

const char *http_listen_addr(const struct http_listen *h)
{
	return h ? h->addr : "";
}
