/*
 * mad/text.h - the text and array primitives every layer shares: a growing
 * text buffer, a snprintf-style counting sink, hex digits, error messages
 * and array growth.  Pure; the lowest layer (includes nothing of nanosm).
 *
 * DOC: one convention for error messages everywhere: a function that can
 * fail with a message takes (char *err, size_t errlen) last and fills it
 * with text_err(); the message names what is wrong and where.  A growing
 * buffer (struct text_buf) collects reports whose size is not known; a
 * counting sink (struct text_sink) writes into a caller's fixed buffer and
 * says how much it would have needed, as snprintf does.
 */
#ifndef NANOSM_MAD_TEXT_H
#define NANOSM_MAD_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* A growing text buffer.  On allocation failure it stops growing and sets
 * failed; the text so far stays valid and NUL-terminated (s is NULL while
 * nothing was written). */
struct text_buf {
	char *s;
	size_t len, cap;
	int failed;
};

void text_buf_init(struct text_buf *b);
void text_buf_fini(struct text_buf *b);
void text_buf_printf(struct text_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void text_buf_putc(struct text_buf *b, char c);
/* Hand the text over (malloc'ed, NUL-terminated, "" when empty; NULL when
 * the buffer failed or memory ran out) and leave b empty. */
char *text_buf_take(struct text_buf *b, size_t *len);

/* A snprintf-style sink into buf[len]: off counts every byte written or
 * that would have been, so off >= len after the fact means "too small". */
struct text_sink {
	char *buf;
	size_t len, off;
};

void text_sinkf(struct text_sink *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of one hex digit (either case), or -1. */
int text_hexval(char ch);

/* Fill err[errlen] (when both are given) with the formatted message and
 * return rc, so that a failing path reads "return text_err(err, errlen,
 * -EINVAL, ...)". */
int text_err(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Room for need elements of elem bytes in *items, whose capacity is *cap:
 * the capacity doubles (starting at first) until it holds need.  0, or
 * -ENOMEM with *items and *cap unchanged. */
int text_grow(void **items, size_t *cap, size_t need, size_t elem, size_t first);

/* In base[0..n) (elements of size bytes, sorted by the uint64_t key at
 * byte offset off), the index of the first element whose key is >= key
 * (n when none): the binary search of every table kept sorted by GUID. */
size_t text_u64_lower_bound(const void *base, size_t n, size_t size, size_t off, uint64_t key);

/* text_grow for a typed array: TEXT_GROW(arr, cap, need, first). */
#define TEXT_GROW(arr, cap, need, first)                                                           \
	text_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)), (first))

#endif
