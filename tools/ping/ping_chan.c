/*
 * tools/ping/ping_chan.c - owns nanosm-ping's TCP sockets: name resolution, connect
 * with a deadline, listen/accept, line writes and reads.  Knows nothing of
 * the protocol above (ping_proto.c) or of InfiniBand.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mad/text.h"
#include "tools/ping/ping_chan.h"

static uint64_t ping_chan_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline (ms), at least 0; -1 if deadline is 0. */
static int ping_chan_left(uint64_t deadline)
{
	uint64_t now;

	if (!deadline)
		return -1;
	now = ping_chan_now_ms();
	return now >= deadline ? 0 : (int)(deadline - now);
}

static const char *ping_chan_where(const char *host, uint16_t port, char *buf, size_t cap)
{
	snprintf(buf, cap, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, port);
	return buf;
}

static void ping_chan_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* A client host that vanishes (no FIN) is noticed in about 25 s. */
static void ping_chan_keepalive(int fd)
{
	int one = 1, idle = 10, intvl = 5, cnt = 3;

	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

static int ping_chan_poll(int fd, short events, int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	int n = poll(&pfd, 1, timeout_ms);

	if (n < 0)
		return -errno;
	return n;
}

int ping_chan_wait(int fd, int timeout_ms)
{
	return ping_chan_poll(fd, POLLIN, timeout_ms);
}

/* ---- Connect ------------------------------------------------------------- */

/* One address: 0 with *fd, or -errno. */
static int ping_chan_try(const struct addrinfo *ai, uint64_t deadline, int *fd)
{
	int s =
	    socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
	int rc = 0, soerr = 0;
	socklen_t len = sizeof(soerr);

	if (s < 0)
		return -errno;
	if (connect(s, ai->ai_addr, ai->ai_addrlen) < 0) {
		rc = errno == EINPROGRESS ? 0 : -errno;
		if (rc == 0) {
			int n = ping_chan_poll(s, POLLOUT, ping_chan_left(deadline));
			if (n == 0)
				rc = -ETIMEDOUT;
			else if (n < 0)
				rc = n;
			else if (getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
				rc = -errno;
			else
				rc = -soerr;
		}
	}
	if (rc < 0) {
		close(s);
		return rc;
	}
	ping_chan_nodelay(s);
	*fd = s;
	return 0;
}

static int ping_chan_connect_error(int rc, const char *where, int timeout_ms, char *err,
				   size_t errlen)
{
	if (rc == -ETIMEDOUT)
		return text_err(
		    err, errlen, rc,
		    "connect to %s: no answer within %d ms (host down or port filtered?)", where,
		    timeout_ms);
	if (rc == -ECONNREFUSED)
		return text_err(err, errlen, rc,
				"connect to %s: %s (is \"nanosm-ping --server\" running there?)",
				where, strerror(-rc));
	return text_err(err, errlen, rc, "connect to %s: %s", where, strerror(-rc));
}

int ping_chan_connect(const char *host, uint16_t port, int timeout_ms, int *fd, char *err,
		      size_t errlen)
{
	struct addrinfo hints, *list = NULL;
	char service[8], where[300];
	uint64_t deadline = ping_chan_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 1);
	int rc = -EHOSTUNREACH, gai;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(service, sizeof(service), "%u", port);
	ping_chan_where(host, port, where, sizeof(where));
	gai = getaddrinfo(host, service, &hints, &list);
	if (gai != 0)
		return text_err(err, errlen, gai == EAI_SYSTEM ? -errno : -ENOENT,
				"cannot resolve %s: %s", host, gai_strerror(gai));
	for (const struct addrinfo *ai = list; ai; ai = ai->ai_next) {
		rc = ping_chan_try(ai, deadline, fd);
		if (rc == 0 || rc == -ETIMEDOUT)
			break;
	}
	freeaddrinfo(list);
	if (rc < 0)
		return ping_chan_connect_error(rc, where, timeout_ms, err, errlen);
	return rc;
}

/* ---- Listen and accept --------------------------------------------------- */

static int ping_chan_bind(const struct addrinfo *ai, int *fd)
{
	int s =
	    socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
	int one = 1, zero = 0;

	if (s < 0)
		return -errno;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ai->ai_family == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(s, ai->ai_addr, ai->ai_addrlen) < 0 || listen(s, 16) < 0) {
		int rc = -errno;
		close(s);
		return rc;
	}
	*fd = s;
	return 0;
}

static uint16_t ping_chan_local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

int ping_chan_listen(const char *host, uint16_t port, int *fd, uint16_t *bound, char *err,
		     size_t errlen)
{
	struct addrinfo hints, *list = NULL;
	char service[8];
	int rc = -EADDRNOTAVAIL, gai;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	snprintf(service, sizeof(service), "%u", port);
	gai = getaddrinfo(host, service, &hints, &list);
	if (gai != 0)
		return text_err(err, errlen, -ENOENT, "cannot resolve %s: %s",
				host ? host : "(any)", gai_strerror(gai));
	/* AF_INET6 first: one dual-stack socket serves both families */
	for (int pass = 0; pass < 2 && rc < 0; pass++)
		for (const struct addrinfo *ai = list; ai && rc < 0; ai = ai->ai_next)
			if ((ai->ai_family == AF_INET6) == (pass == 0))
				rc = ping_chan_bind(ai, fd);
	freeaddrinfo(list);
	if (rc < 0)
		return text_err(err, errlen, rc, "listen on TCP port %u: %s%s", port, strerror(-rc),
				rc == -EADDRINUSE
				    ? " (another nanosm-ping --server? choose one with --tcp-port)"
				    : "");
	if (bound)
		*bound = ping_chan_local_port(*fd);
	return 0;
}

/* "10.0.0.3:51234" (also for an IPv4 client of a dual-stack socket),
 * "[fe80::1]:51234". */
static void ping_chan_peer_name(const char *host, const char *serv, char *name, size_t cap)
{
	const char *v4 = "::ffff:";

	if (strncmp(host, v4, strlen(v4)) == 0 && strchr(host, '.'))
		host += strlen(v4);
	snprintf(name, cap, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, serv);
}

int ping_chan_accept(int lfd, int timeout_ms, int *fd, char *name, size_t cap, char *err,
		     size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[NI_MAXHOST], serv[NI_MAXSERV];
	int n = ping_chan_wait(lfd, timeout_ms), s;

	if (n == 0)
		return -ETIMEDOUT;
	if (n < 0)
		return n;
	s = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (s < 0) {
		int rc = -errno;
		if (rc == -EAGAIN || rc == -EINTR)
			return rc;
		return text_err(err, errlen, rc, "accept: %s", strerror(-rc));
	}
	ping_chan_nodelay(s);
	ping_chan_keepalive(s);
	if (getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		ping_chan_peer_name(host, serv, name, cap);
	else
		snprintf(name, cap, "(unknown)");
	*fd = s;
	return 0;
}

/* ---- Lines --------------------------------------------------------------- */

int ping_chan_send_line(int fd, const char *line, int timeout_ms, char *err, size_t errlen)
{
	char buf[PING_PROTO_LINE_MAX + 1];
	size_t len = strlen(line), off = 0;
	uint64_t deadline = ping_chan_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 1);

	if (len + 1 > PING_PROTO_LINE_MAX)
		return text_err(err, errlen, -EMSGSIZE, "line of %zu bytes is too long to send",
				len);
	memcpy(buf, line, len);
	buf[len++] = '\n';
	while (off < len) {
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);
		if (n >= 0) {
			off += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			int rc = -errno;
			return text_err(err, errlen, rc, "send: %s", strerror(-rc));
		}
		if (ping_chan_poll(fd, POLLOUT, ping_chan_left(deadline)) <= 0)
			return text_err(err, errlen, -ETIMEDOUT, "send: peer not reading for %d ms",
					timeout_ms);
	}
	return 0;
}

int ping_chan_read(int fd, struct ping_proto_linebuf *lb, char *err, size_t errlen)
{
	size_t room;
	char *at = ping_proto_linebuf_room(lb, &room);
	ssize_t n;

	if (room == 0)
		return text_err(err, errlen, -EMSGSIZE, "receive: line longer than %d bytes",
				PING_PROTO_LINE_MAX);
	do
		n = recv(fd, at, room, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int rc = errno == EWOULDBLOCK ? -EAGAIN : -errno;
		if (rc == -EAGAIN)
			return rc;
		return text_err(err, errlen, rc, "receive: %s", strerror(-rc));
	}
	ping_proto_linebuf_commit(lb, (size_t)n);
	return (int)n;
}
