/*
 * sm/daemon/http.h - the little HTTP/1.x the /metrics listener speaks:
 * request parsing and the response head.
 *
 * DOC: Pure: bytes in, a decision out; no I/O.  A request is complete at
 * its first empty line (CRLF CRLF, or LF LF); everything after the head
 * (a body, pipelined requests) is ignored, the connection is closed after
 * one answer.  Requests longer than HTTP_REQUEST_MAX bytes before the end
 * of the head are refused.  Only GET and HEAD are served: GET /metrics
 * (a query string is ignored) gets the metrics, / a short page naming
 * /metrics, anything else 404, other methods 405, a malformed line 400.
 * The listener: sm/daemon/http_listen.c.
 */
#ifndef NANOSM_SM_DAEMON_HTTP_H
#define NANOSM_SM_DAEMON_HTTP_H

#include <stddef.h>

#define HTTP_REQUEST_MAX 4096 /* bytes of request head kept */

enum http_target { HTTP_TARGET_METRICS, HTTP_TARGET_INDEX, HTTP_TARGET_OTHER };

struct http_request {
	int head; /* HEAD: the answer carries no body */
	enum http_target target;
};

/* Parse the len bytes received so far.  0: complete, *out set;
 * -EAGAIN: the head is not complete yet; -E2BIG: no end of head within
 * HTTP_REQUEST_MAX bytes; -EINVAL: not an HTTP/1.x request line (400);
 * -ENOTSUP: a method other than GET or HEAD (405). */
int http_parse(const char *buf, size_t len, struct http_request *out);

/* The status line and headers of an answer (code 200, 400, 404, 405, 413,
 * 503), with Content-Length body_len and Connection: close, into buf
 * (NUL-terminated, cut to size); returns the length it needs. */
size_t http_head(int code, const char *content_type, size_t body_len, char *buf, size_t size);

#endif
