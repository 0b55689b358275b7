/*
 * sm/core/guid2lid.c - owns the guid2lid file: its text format (pure parse/format,
 * the whole-file check) and its load with fallback to <path>.bak and its
 * atomic save with backup rotation.  Never decides LIDs: it only reserves
 * into, or reads from, a struct lid_alloc; never logs (messages go back).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mad/text.h"
#include "routing/fabric.h"
#include "sm/core/atomic_file.h"
#include "sm/core/guid2lid.h"

#define GUID2LID_MAX_FILE (64u << 20) /* far above 48K lines of 60 bytes */
#define GUID2LID_EXPECTED "expected \"0x<guid> 0x<lid> 0x<lid>\""

/* ---- text format (pure) ---- */

/* One line being parsed: [p, end) with no newline inside. */
struct guid2lid_cursor {
	const char *p, *end;
};

/* A mapping line while the parse runs. */
struct guid2lid_work {
	struct guid2lid_entry e;
	int drop;  /* 0 kept; 1 exact repeat; 2 conflicting */
	int other; /* the line it repeats or conflicts with */
};

/* The parse's working state. */
struct guid2lid_parser {
	const char *name;
	struct guid2lid_map *m;
	struct guid2lid_work *w;
	size_t n, cap;
	int end_line;	/* line of the end line, 0 = none */
	size_t end_off; /* its offset in the text */
	int end_ok;	/* it parsed and ended with a newline */
	unsigned long long end_count;
	uint32_t end_crc;
	int after_end; /* a non-blank line follows it */
	size_t diag_seq;
};

static void guid2lid_diag(struct guid2lid_parser *ps, int line, const char *id, const char *fmt,
			  ...) __attribute__((format(printf, 4, 5)));

/* Keep one message (the first GUID2LID_MAX_DIAG; the rest are counted). */
static void guid2lid_diag(struct guid2lid_parser *ps, int line, const char *id, const char *fmt,
			  ...)
{
	struct guid2lid_map *m = ps->m;
	struct guid2lid_diag *d;
	va_list ap;
	int n;

	if (m->n_diag == GUID2LID_MAX_DIAG) {
		m->more_diag++;
		return;
	}
	d = &m->diag[m->n_diag++];
	d->line = line;
	n = snprintf(d->msg, sizeof(d->msg), "%s %s:%d: ", id, ps->name, line);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(d->msg))
		vsnprintf(d->msg + n, sizeof(d->msg) - (size_t)n, fmt, ap);
	va_end(ap);
}

static void guid2lid_skip_blanks(struct guid2lid_cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
		c->p++;
}

static int guid2lid_ends_word(const struct guid2lid_cursor *c)
{
	return c->p == c->end || *c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '#';
}

/* A hex number, "0x" optional, any number of leading zeros.  Returns 0 or
 * -EINVAL (no digits, overflow, or not followed by a blank / line end). */
static int guid2lid_hex(struct guid2lid_cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0, d;

	guid2lid_skip_blanks(c);
	if (c->end - c->p >= 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X'))
		c->p += 2;
	for (; c->p < c->end && (d = text_hexval(*c->p)) >= 0; c->p++, digits++) {
		if (v >> 60)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	if (digits == 0 || !guid2lid_ends_word(c))
		return -EINVAL;
	*out = v;
	return 0;
}

/* A decimal number up to max.  Returns 0 or -EINVAL. */
static int guid2lid_dec(struct guid2lid_cursor *c, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	int digits = 0;

	guid2lid_skip_blanks(c);
	for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++, digits++) {
		if (v > (max - (unsigned)(*c->p - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (unsigned)(*c->p - '0');
	}
	if (digits == 0 || !guid2lid_ends_word(c))
		return -EINVAL;
	*out = v;
	return 0;
}

/* Does the cursor start with word w (then a blank or the line end)? */
static int guid2lid_word(struct guid2lid_cursor *c, const char *w)
{
	size_t n = strlen(w);

	guid2lid_skip_blanks(c);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
		return 0;
	c->p += n;
	if (!guid2lid_ends_word(c)) {
		c->p -= n;
		return 0;
	}
	return 1;
}

/* After the LIDs: the line end, or a comment, maybe "# seen <seconds>". */
static int guid2lid_tail(struct guid2lid_cursor *c, uint64_t *seen)
{
	unsigned long long v;

	guid2lid_skip_blanks(c);
	if (c->p == c->end)
		return 0;
	if (*c->p != '#')
		return -EINVAL;
	c->p++;
	if (guid2lid_word(c, "seen") && guid2lid_dec(c, UINT64_MAX, &v) == 0)
		*seen = v;
	return 0;
}

/* The first byte that is not printable ASCII or a blank, or NULL. */
static const char *guid2lid_binary(struct guid2lid_cursor c)
{
	for (; c.p < c.end; c.p++) {
		unsigned char ch = (unsigned char)*c.p;

		if ((ch < 0x20 && ch != '\t' && ch != '\r') || ch > 0x7e)
			return c.p;
	}
	return NULL;
}

/* Parse one mapping line.  Returns 0, or -EINVAL with why filled in. */
static int guid2lid_parse_line(struct guid2lid_cursor *c, int line, struct guid2lid_entry *e,
			       char *why, size_t whylen)
{
	uint64_t g, base, top, seen = 0;

	if (guid2lid_hex(c, &g) < 0 || guid2lid_hex(c, &base) < 0 || guid2lid_hex(c, &top) < 0 ||
	    guid2lid_tail(c, &seen) < 0) {
		snprintf(why, whylen, GUID2LID_EXPECTED);
		return -EINVAL;
	}
	if (g == 0) {
		snprintf(why, whylen, "port GUID 0 is invalid");
		return -EINVAL;
	}
	if (base < LID_UNICAST_MIN || base > LID_UNICAST_MAX || top > LID_UNICAST_MAX) {
		snprintf(why, whylen, "LID 0x%04" PRIx64 " out of unicast range",
			 base < LID_UNICAST_MIN || base > LID_UNICAST_MAX ? base : top);
		return -EINVAL;
	}
	if (top < base) {
		snprintf(why, whylen, "top LID 0x%04" PRIx64 " below base LID 0x%04" PRIx64, top,
			 base);
		return -EINVAL;
	}
	*e = (struct guid2lid_entry){g, (uint16_t)base, seen, line};
	return 0;
}

static int guid2lid_push(struct guid2lid_parser *ps, const struct guid2lid_entry *e)
{
	if (ps->n == ps->cap) {
		size_t ncap = ps->cap ? 2 * ps->cap : 64;
		struct guid2lid_work *nw = realloc(ps->w, ncap * sizeof(*nw));

		if (!nw)
			return -ENOMEM;
		ps->w = nw;
		ps->cap = ncap;
	}
	ps->w[ps->n++] = (struct guid2lid_work){*e, 0, 0};
	return 0;
}

/* "# nanosm end <entries> <crc32>" at the start of a line? */
static int guid2lid_is_end(struct guid2lid_cursor c)
{
	size_t n = strlen(GUID2LID_END);

	return (size_t)(c.end - c.p) >= n && memcmp(c.p, GUID2LID_END, n) == 0;
}

static void guid2lid_end_line(struct guid2lid_parser *ps, struct guid2lid_cursor c, int line,
			      size_t off, int has_nl)
{
	unsigned long long count;
	uint64_t crc;

	ps->m->signed_file = 1;
	if (ps->end_line) {
		ps->after_end = 1;
		return;
	}
	ps->end_line = line;
	ps->end_off = off;
	c.p += strlen(GUID2LID_END);
	if (guid2lid_dec(&c, UINT32_MAX, &count) == 0 && guid2lid_hex(&c, &crc) == 0 &&
	    crc <= UINT32_MAX) {
		guid2lid_skip_blanks(&c);
		ps->end_ok = c.p == c.end && has_nl;
		ps->end_count = count;
		ps->end_crc = (uint32_t)crc;
	}
}

/* One line of the file: [c.p, c.end), starting at byte off. */
static int guid2lid_one_line(struct guid2lid_parser *ps, struct guid2lid_cursor c, int line,
			     size_t off, int has_nl)
{
	struct guid2lid_entry e;
	const char *bin = guid2lid_binary(c);
	struct guid2lid_cursor blank = c;
	char why[128];

	guid2lid_skip_blanks(&blank);
	if (!bin && blank.p == blank.end)
		return 0;
	if (!bin && *blank.p == '#') {
		if (line == 1 && (size_t)(c.end - c.p) >= strlen(GUID2LID_HEADER) &&
		    !memcmp(c.p, GUID2LID_HEADER, strlen(GUID2LID_HEADER)))
			ps->m->signed_file = 1;
		else if (guid2lid_is_end(c))
			guid2lid_end_line(ps, c, line, off, has_nl);
		return 0;
	}
	ps->m->lines++;
	if (ps->end_line)
		ps->after_end = 1;
	if (bin) {
		ps->m->bad++;
		guid2lid_diag(ps, line, "NSM-W111", "binary data (byte 0x%02x at column %d)",
			      (unsigned char)*bin, (int)(bin - c.p) + 1);
		return 0;
	}
	if (guid2lid_parse_line(&c, line, &e, why, sizeof(why)) < 0) {
		ps->m->bad++;
		if (has_nl)
			guid2lid_diag(ps, line, "NSM-W111", "%s", why);
		else /* the writer died mid-line */
			guid2lid_diag(ps, line, "NSM-W111",
				      "truncated last line (no newline at end of file)");
		return 0;
	}
	if (!has_nl)
		guid2lid_diag(ps, line, "NSM-W111", "no newline at end of file (line kept)");
	return guid2lid_push(ps, &e);
}

/* ---- duplicates ---- */

static int guid2lid_by_guid(const void *pa, const void *pb)
{
	const struct guid2lid_work *x = pa, *y = pb;

	if (x->e.guid != y->e.guid)
		return x->e.guid < y->e.guid ? -1 : 1;
	return x->e.line - y->e.line;
}

static int guid2lid_by_lid(const void *pa, const void *pb)
{
	const struct guid2lid_work *x = pa, *y = pb;

	if (x->e.lid != y->e.lid)
		return x->e.lid < y->e.lid ? -1 : 1;
	return x->e.line - y->e.line;
}

static int guid2lid_by_line(const void *pa, const void *pb)
{
	const struct guid2lid_work *x = pa, *y = pb;

	return x->e.line - y->e.line;
}

/* Sorted by GUID: a line repeating an earlier one exactly is dropped. */
static void guid2lid_mark_repeats(struct guid2lid_work *w, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		for (size_t j = i; j-- > 0 && w[j].e.guid == w[i].e.guid;) {
			if (w[j].drop == 0 && w[j].e.lid == w[i].e.lid) {
				w[i].drop = 1;
				w[i].other = w[j].e.line;
				break;
			}
		}
	}
}

/* Sorted by key (GUID or LID): every line of a run of two or more kept
 * lines with the same key is dropped as conflicting. */
static void guid2lid_mark_conflicts(struct guid2lid_work *w, size_t n, int by_lid)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i + 1, kept = w[i].drop != 1;
		int first = w[i].drop != 1 ? w[i].e.line : 0;

		for (; j < n && (by_lid ? w[j].e.lid == w[i].e.lid : w[j].e.guid == w[i].e.guid);
		     j++) {
			if (w[j].drop == 1)
				continue;
			kept++;
			if (!first)
				first = w[j].e.line;
		}
		for (size_t k = i; kept > 1 && k < j; k++) {
			if (w[k].drop != 0)
				continue;
			w[k].drop = 2 + by_lid;
			w[k].other = w[k].e.line == first ? 0 : first;
		}
		i = j;
	}
}

/* For a conflicting line: the other line involved (the first of the run,
 * or for the first itself the next one). */
static int guid2lid_partner(const struct guid2lid_work *w, size_t n, size_t i)
{
	int lid = w[i].drop == 3;

	if (w[i].other)
		return w[i].other;
	for (size_t k = 0; k < n; k++) {
		if (k != i && w[k].drop != 1 &&
		    (lid ? w[k].e.lid == w[i].e.lid : w[k].e.guid == w[i].e.guid))
			return w[k].e.line;
	}
	return 0;
}

static void guid2lid_report_dups(struct guid2lid_parser *ps)
{
	struct guid2lid_work *w = ps->w;

	for (size_t i = 0; i < ps->n; i++) {
		const struct guid2lid_entry *e = &w[i].e;
		int other = guid2lid_partner(w, ps->n, i);

		if (w[i].drop == 1)
			guid2lid_diag(ps, e->line, "NSM-W112",
				      "repeats line %d (0x%016" PRIx64 " 0x%04x), skipped", other,
				      e->guid, e->lid);
		else if (w[i].drop == 2)
			guid2lid_diag(ps, e->line, "NSM-W112",
				      "duplicate GUID 0x%016" PRIx64 " (also line %d) with another "
				      "LID: dropped, the port's own LID decides",
				      e->guid, other);
		else if (w[i].drop == 3)
			guid2lid_diag(
			    ps, e->line, "NSM-W112",
			    "duplicate LID 0x%04x (also line %d) for another GUID: dropped, "
			    "the ports' own LIDs decide",
			    e->lid, other);
	}
}

/* Drop repeated and conflicting lines; the rest stay in file order. */
static void guid2lid_dedup(struct guid2lid_parser *ps)
{
	size_t kept = 0;

	qsort(ps->w, ps->n, sizeof(*ps->w), guid2lid_by_guid);
	guid2lid_mark_repeats(ps->w, ps->n);
	guid2lid_mark_conflicts(ps->w, ps->n, 0);
	qsort(ps->w, ps->n, sizeof(*ps->w), guid2lid_by_lid);
	guid2lid_mark_conflicts(ps->w, ps->n, 1);
	qsort(ps->w, ps->n, sizeof(*ps->w), guid2lid_by_line);
	guid2lid_report_dups(ps);
	for (size_t i = 0; i < ps->n; i++) {
		if (ps->w[i].drop)
			ps->m->bad++;
		else
			ps->m->e[kept++] = ps->w[i].e;
	}
	ps->m->n = kept;
}

/* ---- the whole file ---- */

/* CRC-32 (IEEE 802.3, as zlib's crc32). */
static uint32_t guid2lid_crc32(const char *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < len; i++) {
		crc ^= (unsigned char)p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static void guid2lid_refuse(struct guid2lid_map *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void guid2lid_refuse(struct guid2lid_map *m, const char *fmt, ...)
{
	va_list ap;

	if (m->unusable)
		return;
	m->unusable = 1;
	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
}

/* nanosm's own files: the end line must be last and agree with the rest. */
static void guid2lid_check_signed(struct guid2lid_parser *ps, const char *text)
{
	struct guid2lid_map *m = ps->m;

	if (!ps->end_line)
		guid2lid_refuse(m, "no end line: the file was cut short");
	else if (!ps->end_ok)
		guid2lid_refuse(m, "line %d: damaged end line", ps->end_line);
	else if (ps->after_end)
		guid2lid_refuse(m, "data after the end line (line %d)", ps->end_line);
	else if (ps->end_count != m->lines)
		guid2lid_refuse(m, "the end line counts %llu mapping(s), the file holds %zu",
				ps->end_count, m->lines);
	else if (guid2lid_crc32(text, ps->end_off) != ps->end_crc)
		guid2lid_refuse(m, "checksum mismatch: damaged, or edited by hand (to edit it, "
				   "delete its first and last lines)");
}

static void guid2lid_check_file(struct guid2lid_parser *ps, const char *text, size_t len)
{
	struct guid2lid_map *m = ps->m;

	if (len == 0)
		guid2lid_refuse(m, "empty file");
	else if (!m->signed_file && m->lines == 0)
		guid2lid_refuse(m, "no mappings and no nanosm end line");
	if (m->signed_file)
		guid2lid_check_signed(ps, text);
	if (m->bad > 0 && m->bad * 4 > m->lines)
		guid2lid_refuse(m, "%zu of %zu mapping line(s) are bad", m->bad, m->lines);
}

static int guid2lid_lines(struct guid2lid_parser *ps, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int line = 0, rc = 0;

	while (p < end && rc == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct guid2lid_cursor c = {p, nl ? nl : end};
		size_t off = (size_t)(p - text);

		line++;
		p = nl ? nl + 1 : end;
		rc = guid2lid_one_line(ps, c, line, off, nl != NULL);
	}
	return rc;
}

int guid2lid_parse_map(const char *text, size_t len, const char *name, struct guid2lid_map *m)
{
	struct guid2lid_parser ps = {.name = name ? name : "guid2lid", .m = m};
	int rc;

	memset(m, 0, sizeof(*m));
	rc = guid2lid_lines(&ps, text, len);
	if (rc == 0 && ps.n > 0 && !(m->e = malloc(ps.n * sizeof(*m->e))))
		rc = -ENOMEM;
	if (rc < 0) {
		free(ps.w);
		memset(m, 0, sizeof(*m));
		return rc;
	}
	if (ps.n > 0)
		guid2lid_dedup(&ps);
	free(ps.w);
	guid2lid_check_file(&ps, text, len);
	return 0;
}

void guid2lid_map_fini(struct guid2lid_map *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

/* ---- format ---- */

struct guid2lid_out {
	struct text_sink o;
	const struct lid_alloc *a;
	size_t entries;
};

static int guid2lid_format_one(void *ctx, uint64_t guid, uint16_t lid)
{
	struct guid2lid_out *o = ctx;
	uint64_t seen = lid_alloc_seen(o->a, guid);

	if (seen)
		text_sinkf(&o->o, "0x%016" PRIx64 " 0x%04x 0x%04x # seen %" PRIu64 "\n", guid, lid,
			   lid, seen);
	else
		text_sinkf(&o->o, "0x%016" PRIx64 " 0x%04x 0x%04x\n", guid, lid, lid);
	o->entries++;
	return 0;
}

size_t guid2lid_format(const struct lid_alloc *a, char *buf, size_t len)
{
	struct guid2lid_out o = {{buf, buf ? len : 0, 0}, a, 0};
	uint32_t crc = 0;

	if (o.o.len > 0)
		buf[0] = '\0';
	text_sinkf(&o.o, "%s\n", GUID2LID_HEADER);
	lid_alloc_foreach(a, guid2lid_format_one, &o);
	if (o.o.off < o.o.len) /* the body is all there: sum it */
		crc = guid2lid_crc32(buf, o.o.off);
	text_sinkf(&o.o, "%s %zu %08x\n", GUID2LID_END, o.entries, crc);
	return o.o.off;
}

/* ---- file I/O ---- */

/* Read all of fd into a malloc'd buffer.  Returns 0 or -errno. */
static int guid2lid_read_fd(int fd, char **out, size_t *outlen)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *nbuf;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			nbuf = cap < GUID2LID_MAX_FILE ? realloc(buf, 2 * cap) : NULL;
			if (!nbuf) {
				free(buf);
				return cap < GUID2LID_MAX_FILE ? -ENOMEM : -EFBIG;
			}
			buf = nbuf;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

static int guid2lid_read_file(const char *path, char **out, size_t *outlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -errno;
	rc = guid2lid_read_fd(fd, out, outlen);
	close(fd);
	return rc;
}

/* ---- load ---- */

static void guid2lid_say(struct guid2lid_report *r, int warn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Add one message to the report (dropped when out of memory). */
static void guid2lid_say(struct guid2lid_report *r, int warn, const char *fmt, ...)
{
	struct guid2lid_msg *nm = realloc(r->msg, (r->n_msg + 1) * sizeof(*nm));
	va_list ap;

	if (!nm)
		return;
	r->msg = nm;
	nm[r->n_msg].warn = warn;
	va_start(ap, fmt);
	vsnprintf(nm[r->n_msg].text, sizeof(nm->text), fmt, ap);
	va_end(ap);
	r->n_msg++;
}

enum guid2lid_verdict { GUID2LID_MISSING, GUID2LID_BAD, GUID2LID_GOOD };

/* Read and parse one file into m, reporting its line messages.  Returns
 * its verdict, or -ENOMEM. */
static int guid2lid_examine(const char *path, struct guid2lid_map *m, struct guid2lid_report *r)
{
	char *text = NULL;
	size_t len = 0;
	int rc = guid2lid_read_file(path, &text, &len);

	memset(m, 0, sizeof(*m));
	if (rc == -ENOENT)
		return GUID2LID_MISSING;
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		guid2lid_say(r, 1, "NSM-E110 %s: %s", path, strerror(-rc));
		return GUID2LID_BAD;
	}
	rc = guid2lid_parse_map(text, len, path, m);
	free(text);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < m->n_diag; i++)
		guid2lid_say(r, 1, "%s", m->diag[i].msg);
	if (m->more_diag)
		guid2lid_say(r, 1, "NSM-W111 %s: %zu more bad line(s) not shown", path,
			     m->more_diag);
	return m->unusable ? GUID2LID_BAD : GUID2LID_GOOD;
}

/* Reserve m's mappings in a, stamped; conflicts with a's are skipped. */
static void guid2lid_apply(const char *path, const struct guid2lid_map *m, struct lid_alloc *a,
			   uint64_t now, struct guid2lid_report *r)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct guid2lid_entry *e = &m->e[i];
		int rc = lid_alloc_reserve(a, e->guid, e->lid);

		if (rc == 0) {
			lid_alloc_set_seen(a, e->guid, e->seen ? e->seen : now);
			r->loaded++;
		} else if (rc == -EEXIST) {
			guid2lid_say(r, 1,
				     "NSM-W115 %s:%d: LID 0x%04x is reserved for 0x%016" PRIx64
				     " (a static LID): 0x%016" PRIx64 " skipped",
				     path, e->line, e->lid, lid_alloc_owner(a, e->lid), e->guid);
		} else if (rc == -EALREADY) {
			guid2lid_say(r, 1,
				     "NSM-W115 %s:%d: 0x%016" PRIx64 " has the static LID 0x%04x: "
				     "LID 0x%04x skipped",
				     path, e->line, e->guid, lid_alloc_lookup(a, e->guid), e->lid);
		} else {
			guid2lid_say(r, 1, "NSM-W115 %s:%d: 0x%016" PRIx64 " 0x%04x skipped: %s",
				     path, e->line, e->guid, e->lid, strerror(-rc));
		}
	}
}

static char *guid2lid_bak_path(const char *path)
{
	char *bak = malloc(strlen(path) + sizeof(".bak"));

	if (bak)
		sprintf(bak, "%s.bak", path);
	return bak;
}

/* <path> was unusable or missing (main_v is its verdict): try <path>.bak. */
static int guid2lid_fallback(const char *path, int main_v, struct lid_alloc *a, uint64_t now,
			     struct guid2lid_report *r)
{
	char *bak = guid2lid_bak_path(path);
	struct guid2lid_map m;
	int v;

	if (!bak)
		return -ENOMEM;
	v = guid2lid_examine(bak, &m, r);
	if (v == GUID2LID_GOOD) {
		guid2lid_say(r, 1, "NSM-E113 %s %s: using %s", path,
			     main_v == GUID2LID_MISSING ? "is missing" : "is unusable", bak);
		guid2lid_apply(bak, &m, a, now, r);
		r->source = GUID2LID_BAK;
		guid2lid_say(r, 0, "loaded %zu LID(s) from %s", r->loaded, bak);
	} else if (v == GUID2LID_BAD || main_v == GUID2LID_BAD) {
		if (v == GUID2LID_BAD && m.unusable)
			guid2lid_say(r, 1, "NSM-E113 %s unusable: %s", bak, m.why);
		guid2lid_say(r, 1,
			     "NSM-E114 %s and %s: no usable LID map; starting without one: "
			     "each port keeps the LID it carries when that LID is free",
			     path, bak);
		r->source = GUID2LID_EMPTY;
	} else {
		guid2lid_say(r, 0, "%s: no LID map yet (first start)", path);
	}
	guid2lid_map_fini(&m);
	free(bak);
	return v < 0 ? v : 0;
}

int guid2lid_load(const char *path, struct lid_alloc *a, uint64_t now, struct guid2lid_report *r)
{
	struct guid2lid_map m;
	int v;

	memset(r, 0, sizeof(*r));
	v = guid2lid_examine(path, &m, r);
	if (v == GUID2LID_GOOD) {
		guid2lid_apply(path, &m, a, now, r);
		r->source = GUID2LID_MAIN;
		guid2lid_say(r, 0, "loaded %zu LID(s) from %s", r->loaded, path);
	} else if (v == GUID2LID_BAD && m.unusable) {
		guid2lid_say(r, 1, "NSM-E113 %s unusable: %s; trying %s.bak", path, m.why, path);
	}
	guid2lid_map_fini(&m);
	if (v < 0)
		return v;
	return v == GUID2LID_GOOD ? 0 : guid2lid_fallback(path, v, a, now, r);
}

void guid2lid_report_fini(struct guid2lid_report *r)
{
	free(r->msg);
	memset(r, 0, sizeof(*r));
}

/* ---- save ---- */

/* Copy the file about to be replaced to <path>.bak, if it is usable.
 * Returns 0 (copied, or no file yet) or 1 with note saying why not. */
static int guid2lid_rotate(const char *path, char *note, size_t notelen)
{
	char *text = NULL, *bak = guid2lid_bak_path(path);
	size_t len = 0;
	struct guid2lid_map m;
	int rc = bak ? guid2lid_read_file(path, &text, &len) : -ENOMEM;

	memset(&m, 0, sizeof(m));
	if (rc == -ENOENT) {
		free(bak);
		return 0;
	}
	if (rc == 0)
		rc = guid2lid_parse_map(text, len, path, &m);
	if (rc < 0) {
		snprintf(note, notelen, "%s: %s: %s.bak not refreshed", path, strerror(-rc), path);
	} else if (m.unusable) {
		snprintf(note, notelen, "%s is unusable (%s): not copied over %s, which is kept",
			 path, m.why, bak);
		rc = 1;
	} else if ((rc = atomic_file_replace(bak, text, len, note, notelen)) < 0) {
		size_t used = strlen(note);
		snprintf(note + used, notelen - used, " (%s not refreshed)", bak);
	}
	guid2lid_map_fini(&m);
	free(text);
	free(bak);
	return rc == 0 ? 0 : 1;
}

int guid2lid_save(const char *path, const struct lid_alloc *a, char *err, size_t errlen)
{
	size_t len = guid2lid_format(a, NULL, 0);
	char *text = malloc(len + 1);
	char note[512] = "";
	int rc = -ENOMEM, rotated = 0;

	if (err && errlen > 0)
		err[0] = '\0';
	if (text) {
		guid2lid_format(a, text, len + 1);
		rc = atomic_file_prepare_dir(path, err, errlen);
		if (rc == 0)
			rotated = guid2lid_rotate(path, note, sizeof(note));
		if (rc == 0)
			rc = atomic_file_write(path, text, len, err, errlen);
	}
	if (rc == -ENOMEM && err && errlen > 0 && !err[0])
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	if (rc == 0 && rotated) {
		if (err && errlen > 0) /* a success leaves err empty */
			snprintf(err, errlen, "%s", note);
		rc = 1;
	}
	free(text);
	return rc;
}
