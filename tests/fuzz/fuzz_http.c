/*
 * fuzz_http.c - libFuzzer target for sm/daemon/http.c, the /metrics
 * listener's request parser: any bytes, fed whole and then in two pieces
 * the way recv may cut them, must give the same decision, never read
 * past the buffer, and a complete answer only for a head that ends
 * within HTTP_REQUEST_MAX bytes; the response head is well formed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sm/daemon/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_HTTP_CHECK(cond)                                                                      \
	do {                                                                                       \
		if (!(cond))                                                                       \
			__builtin_trap();                                                          \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size heap copy: ASan catches any read past it */
	char *buf = malloc(size ? size : 1);
	struct http_request a, b;
	char head[512];
	int rc, rc2;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	rc = http_parse(buf, size, &a);
	FUZZ_HTTP_CHECK(rc == 0 || rc == -EAGAIN || rc == -E2BIG || rc == -EINVAL ||
			rc == -ENOTSUP);
	FUZZ_HTTP_CHECK(rc != -E2BIG || size >= HTTP_REQUEST_MAX);
	if (rc == 0) {
		FUZZ_HTTP_CHECK(a.target <= HTTP_TARGET_OTHER && (a.head == 0 || a.head == 1));
		/* more bytes after a complete head change nothing */
		rc2 = http_parse(buf, size, &b);
		FUZZ_HTTP_CHECK(rc2 == 0 && a.head == b.head && a.target == b.target);
	}
	/* a prefix is never complete when the whole is not */
	if (rc == -EAGAIN && size)
		FUZZ_HTTP_CHECK(http_parse(buf, size - 1, &b) == -EAGAIN);
	FUZZ_HTTP_CHECK(http_head(rc == 0 ? 200 : 400, "text/plain", size, head, sizeof(head)) <
			sizeof(head));
	FUZZ_HTTP_CHECK(!memcmp(head, "HTTP/1.0 ", 9) && strstr(head, "\r\n\r\n"));
	free(buf);
	return 0;
}
