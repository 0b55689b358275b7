/*
 * tools/ping/ping_chan.h - nanosm-ping's TCP side channel: listen, accept, connect
 * with a timeout, send a line, read into a line buffer.
 *
 * DOC: Plain POSIX sockets, nothing InfiniBand: this is the only ping_*
 * file with file descriptors, and it never blocks without a timeout except
 * where asked to (timeout_ms < 0).  Every fd it hands out is non-blocking
 * and close-on-exec, with TCP_NODELAY (accepted ones also with keepalive:
 * a vanished client is noticed in about 25 s); the caller closes it.  Sends use
 * MSG_NOSIGNAL, so a vanished peer is -EPIPE, never SIGPIPE.  Messages name
 * the peer ("connect to host2:18555: Connection refused (...)").
 */
#ifndef NANOSM_TOOLS_PING_PING_CHAN_H
#define NANOSM_TOOLS_PING_PING_CHAN_H

#include <stddef.h>
#include <stdint.h>

#include "tools/ping/ping_proto.h"

/* Listen on host (NULL: every local address, IPv6 and IPv4) and port (0: a
 * free one).  *bound gets the port.  Returns 0 or -errno with err set. */
int ping_chan_listen(const char *host, uint16_t port, int *fd, uint16_t *bound, char *err,
		     size_t errlen);
/* Wait up to timeout_ms (< 0: forever) for a client.  Returns 0 with *fd and
 * name ("10.0.0.3:51234"), -ETIMEDOUT, -EINTR, or -errno with err set. */
int ping_chan_accept(int lfd, int timeout_ms, int *fd, char *name, size_t cap, char *err,
		     size_t errlen);
/* Connect to host:port within timeout_ms, trying each address the name
 * resolves to.  Returns 0 with *fd, or -errno with err set (-ETIMEDOUT,
 * -ECONNREFUSED, -EHOSTUNREACH, -ENOENT for an unknown host...). */
int ping_chan_connect(const char *host, uint16_t port, int timeout_ms, int *fd, char *err,
		      size_t errlen);
/* Write line and a newline within timeout_ms.  Returns 0 or -errno. */
int ping_chan_send_line(int fd, const char *line, int timeout_ms, char *err, size_t errlen);
/* Read what is available into lb.  Returns the byte count, 0 at end of
 * stream, -EAGAIN when nothing is there yet, -EMSGSIZE when lb is full, or
 * -errno with err set. */
int ping_chan_read(int fd, struct ping_proto_linebuf *lb, char *err, size_t errlen);
/* Wait up to timeout_ms (< 0: forever) until fd is readable.  Returns 1, 0
 * on timeout, or -errno (-EINTR on a signal). */
int ping_chan_wait(int fd, int timeout_ms);

#endif
