/*
 * mad/text.c - growing text, counting sinks, hex digits, error messages and
 * array growth (mad/text.h).  Owns no state; touches no fd.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"

void text_buf_init(struct text_buf *b)
{
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
	b->failed = 0;
}

void text_buf_fini(struct text_buf *b)
{
	free(b->s);
	text_buf_init(b);
}

static int text_buf_reserve(struct text_buf *b, size_t more)
{
	size_t cap = b->cap;

	if (b->failed)
		return -ENOMEM;
	if (b->len + more + 1 <= cap)
		return 0;
	if (text_grow((void **)&b->s, &cap, b->len + more + 1, 1, 1024) < 0) {
		b->failed = 1;
		return -ENOMEM;
	}
	b->cap = cap;
	return 0;
}

void text_buf_printf(struct text_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || text_buf_reserve(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void text_buf_putc(struct text_buf *b, char c)
{
	if (text_buf_reserve(b, 1) < 0)
		return;
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

char *text_buf_take(struct text_buf *b, size_t *len)
{
	char *s = b->failed ? NULL : b->s;

	if (b->failed)
		free(b->s);
	else if (!s)
		s = strdup("");
	if (len)
		*len = s ? b->len : 0;
	text_buf_init(b);
	return s;
}

void text_sinkf(struct text_sink *o, const char *fmt, ...)
{
	size_t room = o->off < o->len ? o->len - o->off : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->off : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->off += (size_t)n;
}

int text_hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int text_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

size_t text_u64_lower_bound(const void *base, size_t n, size_t size, size_t off, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, (const char *)base + mid * size + off, sizeof(k));
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int text_grow(void **items, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t c = *cap ? *cap : (first ? first : 1);
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		c *= 2;
	}
	p = realloc(*items, c * elem);
	if (!p)
		return -ENOMEM;
	*items = p;
	*cap = c;
	return 0;
}
