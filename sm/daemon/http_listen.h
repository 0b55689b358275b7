/*
 * sm/daemon/http_listen.h - the optional HTTP /metrics listener (policy
 * monitor.listen): one listening socket on the daemon's libev loop, no
 * thread per client.
 *
 * DOC: Each client gets a fixed buffer of HTTP_REQUEST_MAX bytes and
 * HTTP_LISTEN_TIMEOUT_S to send its request head and read the answer;
 * at most HTTP_LISTEN_CLIENTS at once (one more is accepted and closed at
 * once).  The answer (sm/daemon/http.h) is made by the render callback
 * when the request is complete and written without blocking as the
 * client reads it; the connection closes after it.  Besides loop.c, the
 * one file that includes <ev.h>.
 */
#ifndef NANOSM_SM_DAEMON_HTTP_LISTEN_H
#define NANOSM_SM_DAEMON_HTTP_LISTEN_H

#include <stddef.h>

#define HTTP_LISTEN_CLIENTS 16
#define HTTP_LISTEN_TIMEOUT_S 10.0

struct ev_loop;
struct http_listen;

/* The metrics text, malloc'ed (the listener frees it); NULL when out of
 * memory (the client gets 503). */
typedef char *(*http_render_fn)(void *ctx, size_t *len);

/* Listen on addr ("IPv4:port", policy_listen_parse's form).  NULL with
 * err set ("monitor.listen 127.0.0.1:9683: Address already in use"). */
struct http_listen *http_listen_start(struct ev_loop *ev, const char *addr, http_render_fn render,
				      void *ctx, char *err, size_t errlen);
/* Close the socket and every client. */
void http_listen_stop(struct http_listen *h);
/* The address it listens on ("" when h is NULL). */
const char *http_listen_addr(const struct http_listen *h);

#endif
