/*
 * lft_file.c - the dump_fts/ibroute and opensm-lfts.dump text formats of
 * switch LFTs: parse them into an lft_set for a known fabric, print one.
 * Owns the text only: text in, tables out; no files, no globals, no log.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/lft_file.h"

#define LFT_FILE_LINE_MAX 1024
#define LFT_FILE_HEADER "Unicast lids ["
#define LFT_FILE_BLOCK 64 /* LIDs per LinearForwardingTable block */

struct lft_file_parser {
	const char *name;
	char *err;
	size_t errlen;
	int line;
	enum lft_file_format fmt;
	const struct fabric *f;
	struct lft_set *out;
	struct lft_file_info *info;
	uint64_t *lid_guid; /* [lid]: port GUID owning it in the fabric, 0 if none */
	int *record_line;   /* [table]: line of its record, 0 if none yet */
	struct lft *cur;    /* the record being read, NULL before the first */
	uint8_t *seen;	    /* [lid] of cur: an entry was read */
};

/* ---- Errors and notes -------------------------------------------------- */

__attribute__((format(printf, 2, 3))) static int lft_file_fail(struct lft_file_parser *p,
							       const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (p->errlen)
		snprintf(p->err, p->errlen, "%s:%d: %s", p->name, p->line, what);
	return -EINVAL;
}

/* Keep the first note of a kind: "<name>:<line>: <what>". */
__attribute__((format(printf, 4, 5))) static void
lft_file_note(struct lft_file_parser *p, char *note, int line, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	if (note[0])
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(note, sizeof(p->info->top_note), "%s:%d: %s", p->name, line, what);
}

int lft_file_format_from_name(const char *name, enum lft_file_format *fmt)
{
	if (!name)
		return -EINVAL;
	if (!strcmp(name, "dump_fts") || !strcmp(name, "ibroute"))
		*fmt = LFT_FILE_DUMP_FTS;
	else if (!strcmp(name, "opensm"))
		*fmt = LFT_FILE_OPENSM;
	else if (!strcmp(name, "auto"))
		*fmt = LFT_FILE_AUTO;
	else
		return -EINVAL;
	return 0;
}

/* ---- Setup ------------------------------------------------------------- */

/* Every LID of the fabric's LID-owning ports -> that port's GUID. */
static void lft_file_map_lids(struct lft_file_parser *p)
{
	for (size_t i = 0; i < p->f->n_nodes; i++) {
		const struct fabric_node *n = &p->f->nodes[i];
		unsigned first = fabric_is_switch(n) ? 0 : 1,
			 last = fabric_is_switch(n) ? 0 : n->num_ports;

		for (unsigned pn = first; pn <= last; pn++) {
			const struct fabric_port *pt = &n->ports[pn];
			unsigned count = fabric_port_lid_count(pt);

			for (unsigned lid = pt->lid; pt->lid && lid < pt->lid + count; lid++)
				if (lid <= LID_UNICAST_MAX)
					p->lid_guid[lid] = pt->guid;
		}
	}
}

/* One empty table (top 0, dropped) per switch, in fabric order. */
static int lft_file_setup(struct lft_file_parser *p)
{
	size_t n = fabric_count_switches(p->f);
	struct lft_set *s = p->out;

	p->lid_guid = calloc(LID_UNICAST_MAX + 1, sizeof(*p->lid_guid));
	p->record_line = calloc(n ? n : 1, sizeof(*p->record_line));
	p->seen = calloc(LID_UNICAST_MAX + 1, 1);
	s->tables = calloc(n ? n : 1, sizeof(*s->tables));
	if (!p->lid_guid || !p->record_line || !p->seen || !s->tables)
		return -ENOMEM;
	for (size_t i = 0; i < p->f->n_nodes; i++) {
		struct lft *t;

		if (!fabric_is_switch(&p->f->nodes[i]))
			continue;
		t = &s->tables[s->n++];
		t->node = (int)i;
		t->top = 0;
		t->port = malloc(1);
		if (!t->port)
			return -ENOMEM;
		t->port[0] = LFT_DROP;
	}
	lft_file_map_lids(p);
	return 0;
}

/* ---- Lexing ------------------------------------------------------------ */

static const char *lft_file_skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* An unsigned number in base 16 (after an optional 0x when hex) or 10. */
static const char *lft_file_number(const char *s, int base, unsigned long long *out)
{
	char *end;

	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!(base == 16 ? isxdigit((unsigned char)*s) : isdigit((unsigned char)*s)))
		return NULL;
	errno = 0;
	*out = strtoull(s, &end, base);
	return errno ? NULL : end;
}

static bool lft_file_has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* ---- Records ----------------------------------------------------------- */

/* The header's range "[a-b]": hex with 0x (dump_fts), decimal (OpenSM). */
static int lft_file_range(struct lft_file_parser *p, const char *s, unsigned long long *top,
			  enum lft_file_format *seen_fmt)
{
	unsigned long long lo;
	bool hex = lft_file_has_prefix(s, "0x");
	int base = hex ? 16 : 10;

	*seen_fmt = hex ? LFT_FILE_DUMP_FTS : LFT_FILE_OPENSM;
	s = lft_file_number(s, base, &lo);
	if (s && *s == '-')
		s = lft_file_number(s + 1, base, top);
	else
		s = NULL;
	if (!s || *s != ']')
		return lft_file_fail(p, "bad LID range in header (want [0x0-0x1f] or [0-31])");
	if (*top > LID_UNICAST_MAX)
		return lft_file_fail(p, "LID range ends at 0x%llx, above the unicast range 0x%x",
				     *top, LID_UNICAST_MAX);
	return 0;
}

/* The first header fixes the format; later ones must agree. */
static int lft_file_check_format(struct lft_file_parser *p, enum lft_file_format seen)
{
	static const char *const names[] = {"auto", "dump_fts", "opensm"};

	if (p->fmt == LFT_FILE_AUTO)
		p->fmt = seen;
	if (p->fmt != seen)
		return lft_file_fail(
		    p, "header with a %s LID range (%s format) in a file read as %s",
		    seen == LFT_FILE_OPENSM ? "decimal" : "hex", names[seen], names[p->fmt]);
	return 0;
}

/* The switch a header names: " guid 0x<hex> (" near the end of the line. */
static int lft_file_switch(struct lft_file_parser *p, const char *s, size_t *table)
{
	const char *g = strstr(s, " of switch ");
	unsigned long long guid;
	int node;
	const struct lft *t;

	for (const char *next = g; next; next = strstr(next + 1, " guid 0x"))
		g = next;
	if (!g || !lft_file_has_prefix(g, " guid 0x") || !(s = lft_file_number(g + 6, 16, &guid)) ||
	    !lft_file_has_prefix(s, " ("))
		return lft_file_fail(p, "header without \"guid 0x<hex> (<description>):\"");
	node = fabric_find(p->f, guid);
	if (node == FABRIC_NONE)
		return lft_file_fail(p, "switch 0x%016llx is not in the topology", guid);
	if (!fabric_is_switch(&p->f->nodes[node]))
		return lft_file_fail(p, "node 0x%016llx (%s) is not a switch", guid,
				     p->f->nodes[node].desc);
	t = lft_set_find_const(p->out, node);
	*table = (size_t)(t - p->out->tables);
	if (p->record_line[*table])
		return lft_file_fail(p, "switch 0x%016llx (%s) listed twice (first at line %d)",
				     guid, p->f->nodes[node].desc, p->record_line[*table]);
	return 0;
}

/* dump_fts never reads the block holding LinearFDBTop when top is a
 * non-zero multiple of 64: its entry is then absent although routed. */
static void lft_file_close_record(struct lft_file_parser *p)
{
	struct lft *t = p->cur;
	const struct fabric_node *n;

	if (!t)
		return;
	n = &p->f->nodes[t->node];
	if (p->fmt == LFT_FILE_DUMP_FTS && t->top && t->top % LFT_FILE_BLOCK == 0 &&
	    !p->seen[t->top]) {
		p->info->top_skipped++;
		lft_file_note(
		    p, p->info->top_note, p->record_line[t - p->out->tables],
		    "switch 0x%016" PRIx64 " (%s): no entry for LID 0x%04x = LinearFDBTop; "
		    "dump_fts and ibroute skip the block holding it when it is a multiple "
		    "of 64, so that LID counts as dropped",
		    n->guid, n->desc, t->top);
	}
	memset(p->seen, 0, (size_t)t->top + 1);
	p->cur = NULL;
}

/* "Unicast lids [lo-top] of switch ... guid 0x... (desc):" */
static int lft_file_header(struct lft_file_parser *p, const char *s)
{
	enum lft_file_format seen;
	unsigned long long top;
	size_t table = 0;
	uint8_t *port;
	int rc;

	lft_file_close_record(p);
	rc = lft_file_range(p, s + strlen(LFT_FILE_HEADER), &top, &seen);
	if (!rc)
		rc = lft_file_check_format(p, seen);
	if (!rc)
		rc = lft_file_switch(p, s, &table);
	if (rc)
		return rc;
	port = realloc(p->out->tables[table].port, (size_t)top + 1);
	if (!port)
		return -ENOMEM;
	memset(port, LFT_DROP, (size_t)top + 1);
	p->cur = &p->out->tables[table];
	p->cur->port = port;
	p->cur->top = (uint16_t)top;
	p->record_line[table] = p->line;
	p->info->switches++;
	return 0;
}

/* ---- Entries ----------------------------------------------------------- */

/* The entry names the port it reaches ("portguid 0x..."): it must be the
 * one the fabric gives that LID, else the topology is from another run. */
static int lft_file_check_owner(struct lft_file_parser *p, const char *rest, unsigned long long lid)
{
	const char *g = strstr(rest, "portguid 0x");
	unsigned long long guid;
	uint64_t have = p->lid_guid[lid];

	if (!have) {
		p->info->unknown_lids++;
		lft_file_note(p, p->info->lid_note, p->line, "LID 0x%04llx is not in the topology",
			      lid);
		return 0;
	}
	if (!g || !lft_file_number(g + 9, 16, &guid) || guid == have)
		return 0;
	return lft_file_fail(p,
			     "LID 0x%04llx leads to port 0x%016llx here but belongs to port "
			     "0x%016" PRIx64
			     " in the topology (LFTs and topology from different runs?)",
			     lid, guid, have);
}

/* "0x0001 001 : (...)" or "0x0001 001 # ..." */
static int lft_file_entry(struct lft_file_parser *p, const char *s)
{
	unsigned long long lid, port;
	const char *rest;
	char sep = p->fmt == LFT_FILE_OPENSM ? '#' : ':';

	if (!p->cur)
		return lft_file_fail(p, "LID entry before any \"Unicast lids\" header");
	rest = lft_file_number(s, 16, &lid);
	if (rest && (*rest == ' ' || *rest == '\t'))
		rest = lft_file_number(lft_file_skip_ws(rest), 10, &port);
	else
		rest = NULL;
	if (rest)
		rest = lft_file_skip_ws(rest);
	if (!rest || (*rest && *rest != sep))
		return lft_file_fail(p, "bad LID entry (want \"0x<lid> <port> %c ...\")", sep);
	if (lid > p->cur->top)
		return lft_file_fail(p, "LID 0x%04llx above the header's range (top 0x%04x)", lid,
				     p->cur->top);
	if (port > 255)
		return lft_file_fail(p, "port %llu out of range (0-255)", port);
	if (p->seen[lid])
		return lft_file_fail(p, "LID 0x%04llx listed twice for this switch", lid);
	p->seen[lid] = 1;
	p->cur->port[lid] = (uint8_t)port;
	p->info->entries++;
	return lft_file_check_owner(p, rest, lid);
}

/* ---- Lines ------------------------------------------------------------- */

/* "N valid lids dumped" (dump_fts) / "N lids dumped" (OpenSM) */
static bool lft_file_is_footer(const char *s)
{
	unsigned long long n;

	s = lft_file_number(s, 10, &n);
	if (!s)
		return false;
	s = lft_file_skip_ws(s);
	if (lft_file_has_prefix(s, "valid "))
		s += 6;
	return !strcmp(s, "lids dumped");
}

static int lft_file_line(struct lft_file_parser *p, char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	s = (char *)lft_file_skip_ws(s);
	if (!*s || *s == '#')
		return 0;
	if (lft_file_has_prefix(s, LFT_FILE_HEADER))
		return lft_file_header(p, s);
	if (lft_file_has_prefix(s, "0x"))
		return lft_file_entry(p, s);
	if (lft_file_is_footer(s))
		return 0;
	/* dump_fts column titles: "Lid  Out   Destination" / "Port     Info" */
	if (p->fmt == LFT_FILE_DUMP_FTS &&
	    (lft_file_has_prefix(s, "Lid ") || lft_file_has_prefix(s, "Port ")))
		return 0;
	return lft_file_fail(p, "unrecognised line \"%.40s\"", s);
}

static int lft_file_lines(struct lft_file_parser *p, const char *text, size_t len)
{
	char buf[LFT_FILE_LINE_MAX];
	size_t pos = 0;
	int rc = 0;

	while (pos < len && !rc) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, n = end - pos;

		if (n >= sizeof(buf))
			n = sizeof(buf) - 1; /* the tail is description text */
		memcpy(buf, text + pos, n);
		buf[n] = '\0';
		p->line++;
		if (memchr(buf, '\0', n))
			return lft_file_fail(p, "NUL byte in text");
		rc = lft_file_line(p, buf);
		pos = end + 1;
	}
	return rc;
}

/* Switches of the fabric that the file did not mention. */
static void lft_file_count_missing(struct lft_file_parser *p)
{
	for (size_t i = 0; i < p->out->n; i++) {
		if (p->record_line[i])
			continue;
		if (!p->info->missing++)
			p->info->first_missing = p->f->nodes[p->out->tables[i].node].guid;
	}
}

int lft_file_parse(const char *text, size_t len, const char *name, enum lft_file_format fmt,
		   const struct fabric *f, struct lft_set *out, struct lft_file_info *info,
		   char *err, size_t errlen)
{
	struct lft_file_info scratch;
	struct lft_file_parser p = {
	    .name = name ? name : "<text>",
	    .err = err,
	    .errlen = errlen,
	    .fmt = fmt,
	    .f = f,
	    .out = out,
	    .info = info ? info : &scratch,
	};
	int rc;

	memset(p.info, 0, sizeof(*p.info));
	if (errlen)
		err[0] = '\0';
	lft_set_fini(out);
	rc = lft_file_setup(&p);
	if (!rc)
		rc = lft_file_lines(&p, text, len);
	if (!rc) {
		lft_file_close_record(&p);
		lft_file_count_missing(&p);
		p.info->format = p.fmt;
	}
	if (rc == -ENOMEM && errlen)
		snprintf(err, errlen, "%s: out of memory", p.name);
	free(p.lid_guid);
	free(p.record_line);
	free(p.seen);
	if (rc)
		lft_set_fini(out);
	return rc;
}

/* ---- Writer ------------------------------------------------------------ */

/* "(Channel Adapter portguid 0x...: 'host1')", as ibroute describes a LID. */
static void lft_file_describe(struct text_buf *b, const struct fabric *f, const int *owner,
			      unsigned lid)
{
	static const char *const kinds[] = {"Unknown", "Channel Adapter", "Switch", "Router"};
	const struct fabric_node *n;
	unsigned pn;

	if (owner[lid] < 0) {
		text_buf_printf(b, "(no port has this LID in the topology)");
		return;
	}
	n = &f->nodes[owner[lid] / 256];
	pn = (unsigned)owner[lid] % 256;
	text_buf_printf(b, "(%s portguid 0x%016" PRIx64 ": '%s')",
			kinds[n->type <= 3 ? n->type : 0], n->ports[pn].guid, n->desc);
}

/* [lid] -> node * 256 + port owning it, -1 for none. */
static int *lft_file_owners(const struct fabric *f)
{
	int *owner = malloc((LID_UNICAST_MAX + 1) * sizeof(*owner));

	if (!owner)
		return NULL;
	for (size_t i = 0; i <= LID_UNICAST_MAX; i++)
		owner[i] = -1;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];
		unsigned first = fabric_is_switch(n) ? 0 : 1,
			 last = fabric_is_switch(n) ? 0 : n->num_ports;

		for (unsigned pn = first; pn <= last; pn++) {
			const struct fabric_port *pt = &n->ports[pn];
			unsigned count = fabric_port_lid_count(pt);

			for (unsigned lid = pt->lid; pt->lid && lid < pt->lid + count; lid++)
				if (lid <= LID_UNICAST_MAX && owner[lid] < 0)
					owner[lid] = (int)(i * 256 + pn);
		}
	}
	return owner;
}

static void lft_file_write_table(struct text_buf *b, const struct fabric *f, const int *owner,
				 const struct lft *t, unsigned first, unsigned last)
{
	const struct fabric_node *n = &f->nodes[t->node];
	size_t valid = 0;

	text_buf_printf(b, "Unicast lids [0x0-0x%x] of switch Lid %u guid 0x%016" PRIx64 " (%s):\n",
			t->top, n->ports[0].lid, n->guid, n->desc);
	text_buf_printf(b, "  Lid  Out   Destination\n       Port     Info\n");
	for (unsigned lid = first; lid <= t->top && lid <= last; lid++) {
		if (t->port[lid] == LFT_DROP)
			continue;
		text_buf_printf(b, "0x%04x %03u : ", lid, t->port[lid]);
		lft_file_describe(b, f, owner, lid);
		text_buf_printf(b, "\n");
		valid++;
	}
	text_buf_printf(b, "%zu valid lids dumped\n", valid);
}

int lft_file_dump_init(struct lft_file_dump *d, const struct fabric *f)
{
	d->f = f;
	d->owner = lft_file_owners(f);
	return d->owner ? 0 : -ENOMEM;
}

void lft_file_dump_fini(struct lft_file_dump *d)
{
	free(d->owner);
	d->owner = NULL;
}

int lft_file_dump_table(const struct lft_file_dump *d, const struct lft *t, unsigned first,
			unsigned last, struct text_buf *b)
{
	if (t->node < 0 || (size_t)t->node >= d->f->n_nodes ||
	    !fabric_is_switch(&d->f->nodes[t->node]))
		return -EINVAL;
	lft_file_write_table(b, d->f, d->owner, t, first, last);
	return b->failed ? -ENOMEM : 0;
}

int lft_file_write_dump_fts(const struct fabric *f, const struct lft_set *s, char **text,
			    size_t *len)
{
	struct text_buf b;
	struct lft_file_dump d;
	int rc = lft_file_dump_init(&d, f);

	text_buf_init(&b);
	*text = NULL;
	*len = 0;
	for (size_t i = 0; !rc && i < s->n; i++)
		rc = lft_file_dump_table(&d, &s->tables[i], 0, LID_UNICAST_MAX, &b);
	lft_file_dump_fini(&d);
	if (rc) {
		text_buf_fini(&b);
		return rc;
	}
	*text = text_buf_take(&b, len);
	return *text ? 0 : -ENOMEM;
}
