/*
 * sm/daemon/http.c - request parsing and response heads for the /metrics
 * listener.  Pure: no I/O, no globals.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sm/daemon/http.h"

/* Where the head ends (after its empty line), or 0 when not yet. */
static size_t http_head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] == '\n' && buf[i + 1] == '\n')
			return i + 2;
		if (i + 3 < len && !memcmp(buf + i, "\r\n\r\n", 4))
			return i + 4;
	}
	return 0;
}

/* The request line's three words: method, target, version. */
static int http_words(const char *line, size_t n, const char *w[3], size_t wl[3])
{
	size_t i = 0;

	for (int k = 0; k < 3; k++) {
		if (i >= n || line[i] == ' ')
			return -EINVAL;
		w[k] = line + i;
		while (i < n && line[i] != ' ')
			i++;
		wl[k] = (size_t)(line + i - w[k]);
		if (k < 2 && (i >= n || line[i] != ' '))
			return -EINVAL;
		i++;
	}
	return i - 1 == n ? 0 : -EINVAL;
}

static int http_is(const char *w, size_t wl, const char *s)
{
	return wl == strlen(s) && !memcmp(w, s, wl);
}

static enum http_target http_target_of(const char *w, size_t wl)
{
	const char *q = memchr(w, '?', wl);

	if (q)
		wl = (size_t)(q - w);
	if (http_is(w, wl, "/metrics"))
		return HTTP_TARGET_METRICS;
	if (http_is(w, wl, "/"))
		return HTTP_TARGET_INDEX;
	return HTTP_TARGET_OTHER;
}

int http_parse(const char *buf, size_t len, struct http_request *out)
{
	size_t end = http_head_end(buf, len < HTTP_REQUEST_MAX ? len : HTTP_REQUEST_MAX), n;
	const char *nl, *w[3];
	size_t wl[3];

	if (!end)
		return len >= HTTP_REQUEST_MAX ? -E2BIG : -EAGAIN;
	nl = memchr(buf, '\n', end);
	n = (size_t)(nl - buf);
	if (n && buf[n - 1] == '\r')
		n--;
	if (http_words(buf, n, w, wl) < 0 || wl[2] != 8 || memcmp(w[2], "HTTP/1.", 7) ||
	    (w[2][7] != '0' && w[2][7] != '1') || w[1][0] != '/')
		return -EINVAL;
	for (size_t i = 0; i < wl[0]; i++)
		if (w[0][i] < 'A' || w[0][i] > 'Z')
			return -EINVAL;
	if (!http_is(w[0], wl[0], "GET") && !http_is(w[0], wl[0], "HEAD"))
		return -ENOTSUP;
	out->head = http_is(w[0], wl[0], "HEAD");
	out->target = http_target_of(w[1], wl[1]);
	return 0;
}

static const char *http_reason(int code)
{
	switch (code) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 413:
		return "Request Header Fields Too Large";
	default:
		return "Service Unavailable";
	}
}

size_t http_head(int code, const char *content_type, size_t body_len, char *buf, size_t size)
{
	int n = snprintf(buf, size,
			 "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n%s\r\n",
			 code, http_reason(code), content_type, body_len,
			 code == 405 ? "Allow: GET, HEAD\r\n" : "");

	return n < 0 ? 0 : (size_t)n;
}
