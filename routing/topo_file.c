/*
 * topo_file.c - parse ibnetdiscover output and ibsim "net" files into a
 * struct fabric.  Owns the text format only: it reads no sockets, keeps no
 * globals, and (apart from topo_load's one file read) does no I/O.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mad/smp.h"
#include "mad/text.h"
#include "routing/topo_file.h"

#define TOPO_LINE_MAX 2048
#define TOPO_ID_MAX 256
#define TOPO_SW_GUID_BASE 0x0002000000000001ULL
#define TOPO_CA_GUID_BASE 0x0001000000000001ULL

/* Defaults for what a file does not describe (what ibsim presents). */
#define TOPO_WIDTH_4X 2
#define TOPO_SPEED_SDR 1
#define TOPO_MTU_2048 4
#define TOPO_VL_0_7 4

/* key=value lines seen since the last header; they describe the next node. */
struct topo_attrs {
	bool has_guid, has_port_guid, has_sys_guid;
	uint64_t guid, port_guid, sys_guid;
	uint32_t vendor_id;
	uint16_t device_id;
};

/* One node record: its id as written and which port GUIDs were given. */
struct topo_rec {
	char *id;
	int line;
	uint8_t *guid_given; /* [port]: 1 when a (portguid) named it */
};

/* One port line, joined once every record has been read. */
struct topo_link {
	int node, line;
	uint8_t port, rport, width;
	uint64_t rguid; /* 0 when not given */
	char *rid;
};

/* What a trailing "# ..." comment says (ibnetdiscover puts LIDs there). */
struct topo_note {
	char desc[sizeof(((struct fabric_node *)0)->desc)];
	bool has_desc, has_lid, has_lmc;
	unsigned long lid, lmc;
};

struct topo_parser {
	const char *name;
	char *err;
	size_t errlen;
	int line;
	struct fabric *f;
	struct topo_attrs attrs;
	uint64_t next_sw_guid, next_ca_guid;
	struct topo_rec *recs; /* recs[i] describes f->nodes[i] */
	size_t n_recs, cap_recs;
	int *id_index; /* id -> node hash, open addressing */
	size_t id_cap;
	struct topo_link *links;
	size_t n_links, cap_links;
};

struct topo_cur {
	const char *p;
};

/* ---- Errors ------------------------------------------------------------ */

__attribute__((format(printf, 3, 4))) static int topo_fail_at(struct topo_parser *p, int line,
							      const char *fmt, ...)
{
	char what[TOPO_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (p->errlen)
		snprintf(p->err, p->errlen, "%s:%d: %s", p->name, line, what);
	return -EINVAL;
}

#define topo_fail(p, ...) topo_fail_at((p), (p)->line, __VA_ARGS__)

/* ---- Lexing ------------------------------------------------------------ */

static void topo_skip_ws(struct topo_cur *c)
{
	while (*c->p == ' ' || *c->p == '\t')
		c->p++;
}

static bool topo_eat(struct topo_cur *c, char ch)
{
	if (*c->p != ch)
		return false;
	c->p++;
	return true;
}

/* At the end of the useful text: end of line or a comment. */
static bool topo_at_end(struct topo_cur *c)
{
	topo_skip_ws(c);
	return *c->p == '\0' || *c->p == '#';
}

static bool topo_number(struct topo_cur *c, int base, unsigned long long *out)
{
	char *end;

	if (!isxdigit((unsigned char)*c->p))
		return false;
	errno = 0;
	*out = strtoull(c->p, &end, base);
	if (errno || end == c->p)
		return false;
	c->p = end;
	return true;
}

static bool topo_decimal(struct topo_cur *c, unsigned long *out)
{
	unsigned long long v;

	if (!isdigit((unsigned char)*c->p) || !topo_number(c, 10, &v) || v > 0xFFFFFFFFUL)
		return false;
	*out = (unsigned long)v;
	return true;
}

/* Hex with or without 0x, as ibnetdiscover prints GUIDs. */
static bool topo_hex(struct topo_cur *c, uint64_t *out)
{
	unsigned long long v;

	if (c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X'))
		c->p += 2;
	if (!topo_number(c, 16, &v))
		return false;
	*out = v;
	return true;
}

/* "text" into buf; returns false on a missing quote or an overlong string. */
static bool topo_quoted(struct topo_cur *c, char *buf, size_t size)
{
	const char *end;
	size_t len;

	if (*c->p != '"')
		return false;
	end = strchr(c->p + 1, '"');
	if (!end)
		return false;
	len = (size_t)(end - c->p - 1);
	if (len >= size)
		return false;
	memcpy(buf, c->p + 1, len);
	buf[len] = '\0';
	c->p = end + 1;
	return true;
}

static size_t topo_word(struct topo_cur *c, char *buf, size_t size)
{
	size_t n = 0;

	while ((isalnum((unsigned char)c->p[n]) || c->p[n] == '_') && n + 1 < size) {
		buf[n] = c->p[n];
		n++;
	}
	buf[n] = '\0';
	c->p += n;
	return n;
}

/* "(hexguid)" if present; *out stays 0 when absent. */
static bool topo_opt_guid(struct topo_cur *c, uint64_t *out)
{
	*out = 0;
	if (!topo_eat(c, '('))
		return true;
	return topo_hex(c, out) && topo_eat(c, ')');
}

/* ---- Comments: description, LID and LMC ------------------------------ */

/* NodeDescription is 64 bytes on the wire: longer text is cut. */
static void topo_copy_desc(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void topo_note_word(struct topo_cur *c, struct topo_note *n)
{
	char word[16];
	unsigned long v;

	topo_word(c, word, sizeof(word));
	topo_skip_ws(c);
	if (!strcmp(word, "lid") && !n->has_lid && topo_decimal(c, &v)) {
		n->lid = v;
		n->has_lid = true;
	} else if (!strcmp(word, "lmc") && !n->has_lmc && topo_decimal(c, &v)) {
		n->lmc = v;
		n->has_lmc = true;
	}
}

/* Scan "# ..." at c.  A leading quoted string is the node description
 * (ibsim uses it as NodeDescription).  With stop_at_quote, only what comes
 * before the first quoted string counts: on a port line that is the local
 * port; the rest describes the remote end. */
static void topo_note_parse(struct topo_cur c, bool stop_at_quote, struct topo_note *n)
{
	char scratch[TOPO_LINE_MAX];

	memset(n, 0, sizeof(*n));
	if (!topo_eat(&c, '#'))
		return;
	topo_skip_ws(&c);
	if (!stop_at_quote && topo_quoted(&c, scratch, sizeof(scratch))) {
		topo_copy_desc(n->desc, sizeof(n->desc), scratch);
		n->has_desc = true;
	}
	while (*c.p) {
		topo_skip_ws(&c);
		if (*c.p == '"' && (stop_at_quote || !topo_quoted(&c, scratch, sizeof(scratch))))
			return;
		if (isalpha((unsigned char)*c.p))
			topo_note_word(&c, n);
		else if (*c.p)
			c.p++;
	}
}

/* ---- Node ids ---------------------------------------------------------- */

static size_t topo_id_hash(const char *s, size_t cap)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return (size_t)h & (cap - 1);
}

static int topo_id_find(const struct topo_parser *p, const char *id)
{
	size_t h;

	if (!p->id_cap)
		return FABRIC_NONE;
	for (h = topo_id_hash(id, p->id_cap); p->id_index[h] != FABRIC_NONE;
	     h = (h + 1) & (p->id_cap - 1))
		if (!strcmp(p->recs[p->id_index[h]].id, id))
			return p->id_index[h];
	return FABRIC_NONE;
}

static void topo_id_put(struct topo_parser *p, int node)
{
	size_t h = topo_id_hash(p->recs[node].id, p->id_cap);

	while (p->id_index[h] != FABRIC_NONE)
		h = (h + 1) & (p->id_cap - 1);
	p->id_index[h] = node;
}

/* Room for one more record and its id in the hash (kept half empty). */
static int topo_recs_reserve(struct topo_parser *p, size_t n)
{
	size_t cap = p->id_cap ? p->id_cap : 64;

	if (TEXT_GROW(p->recs, p->cap_recs, n, 32) < 0)
		return -ENOMEM;
	while (cap < n * 2)
		cap *= 2;
	if (cap == p->id_cap)
		return 0;
	free(p->id_index);
	p->id_cap = 0;
	p->id_index = malloc(cap * sizeof(*p->id_index));
	if (!p->id_index)
		return -ENOMEM;
	p->id_cap = cap;
	for (size_t i = 0; i < cap; i++)
		p->id_index[i] = FABRIC_NONE;
	for (size_t i = 0; i < p->n_recs; i++)
		topo_id_put(p, (int)i);
	return 0;
}

/* ---- key=value lines --------------------------------------------------- */

static int topo_attr_guid(struct topo_parser *p, struct topo_cur *c, const char *key)
{
	if (!topo_hex(c, &p->attrs.guid))
		return topo_fail(p, "bad GUID for '%s'", key);
	p->attrs.has_guid = true;
	if (*c->p != '(')
		return 0;
	if (!topo_opt_guid(c, &p->attrs.port_guid))
		return topo_fail(p, "bad port GUID for '%s'", key);
	p->attrs.has_port_guid = true;
	return 0;
}

static int topo_attr_number(struct topo_parser *p, struct topo_cur *c, const char *key,
			    uint64_t max, uint64_t *out)
{
	if (!topo_hex(c, out) || *out > max)
		return topo_fail(p, "bad value for '%s'", key);
	return 0;
}

static int topo_attr_line(struct topo_parser *p, struct topo_cur *c, const char *key)
{
	uint64_t v = 0;
	int rc;

	if (!strcmp(key, "switchguid") || !strcmp(key, "caguid") || !strcmp(key, "rtguid"))
		rc = topo_attr_guid(p, c, key);
	else if (!strcmp(key, "sysimgguid")) {
		rc = topo_attr_number(p, c, key, UINT64_MAX, &p->attrs.sys_guid);
		p->attrs.has_sys_guid = true;
	} else if (!strcmp(key, "vendid")) {
		rc = topo_attr_number(p, c, key, 0xFFFFFF, &v);
		p->attrs.vendor_id = (uint32_t)v;
	} else if (!strcmp(key, "devid")) {
		rc = topo_attr_number(p, c, key, 0xFFFF, &v);
		p->attrs.device_id = (uint16_t)v;
	} else
		return topo_fail(p, "unknown key '%s'", key);
	if (!rc && !topo_at_end(c))
		return topo_fail(p, "unexpected text after '%s'", key);
	return rc;
}

/* ---- Node headers ------------------------------------------------------ */

static int topo_type(const char *word)
{
	if (!strcmp(word, "Switch"))
		return NODE_TYPE_SWITCH;
	if (!strcmp(word, "Hca") || !strcmp(word, "Ca"))
		return NODE_TYPE_CA;
	if (!strcmp(word, "Rt"))
		return NODE_TYPE_ROUTER;
	return 0;
}

/* The NodeGUID: given on a switchguid=/caguid= line, else the next one of
 * the made-up series (a CA's series skips its port GUIDs). */
static uint64_t topo_node_guid(struct topo_parser *p, int type, unsigned nports)
{
	uint64_t guid;

	if (p->attrs.has_guid)
		return p->attrs.guid;
	if (type == NODE_TYPE_SWITCH)
		return p->next_sw_guid++;
	guid = p->next_ca_guid;
	p->next_ca_guid += nports + 1;
	return guid;
}

static void topo_init_ports(struct fabric_node *n, uint64_t port_guid)
{
	for (unsigned i = 0; i <= n->num_ports; i++) {
		struct fabric_port *port = &n->ports[i];

		port->guid = fabric_is_switch(n) ? port_guid : n->guid + i;
		port->width_active = TOPO_WIDTH_4X;
		port->speed_active = TOPO_SPEED_SDR;
		port->mtu_cap = TOPO_MTU_2048;
		port->vl_cap = TOPO_VL_0_7;
		port->state = PORT_STATE_DOWN;
		port->phys_state = PORT_PHYS_POLLING;
	}
}

static void topo_apply_header_note(struct fabric_node *n, const struct topo_note *note)
{
	if (note->has_desc)
		topo_copy_desc(n->desc, sizeof(n->desc), note->desc);
	if (!fabric_is_switch(n))
		return;
	if (note->has_lid && note->lid <= LID_UNICAST_MAX)
		n->ports[0].lid = (uint16_t)note->lid;
	if (note->has_lmc && note->lmc <= 7)
		n->ports[0].lmc = (uint8_t)note->lmc;
}

static int topo_new_record(struct topo_parser *p, int node, const char *id)
{
	struct topo_rec *rec = &p->recs[node];

	rec->id = strdup(id);
	rec->line = p->line;
	rec->guid_given = calloc((size_t)p->f->nodes[node].num_ports + 1, 1);
	if (!rec->id || !rec->guid_given) {
		free(rec->id);
		free(rec->guid_given);
		return -ENOMEM;
	}
	topo_id_put(p, node);
	return 0;
}

static int topo_add_node(struct topo_parser *p, int type, unsigned long nports, const char *id)
{
	uint64_t guid = topo_node_guid(p, type, (unsigned)nports);
	int node, dup;

	if (topo_recs_reserve(p, p->f->n_nodes + 1))
		return -ENOMEM;
	node = fabric_add_node(p->f, guid, (uint8_t)type, (uint8_t)nports);
	if (node == -EEXIST) {
		dup = fabric_find(p->f, guid);
		return topo_fail(p, "duplicate node GUID 0x%016" PRIx64 " (node \"%s\", line %d)",
				 guid, p->recs[dup].id, p->recs[dup].line);
	}
	if (node < 0)
		return node;
	if (topo_new_record(p, node, id))
		return -ENOMEM;
	p->n_recs++;
	return node;
}

static void topo_fill_node(struct topo_parser *p, struct fabric_node *n, const char *id)
{
	topo_copy_desc(n->desc, sizeof(n->desc), id);
	n->system_guid = p->attrs.has_sys_guid ? p->attrs.sys_guid : n->guid;
	n->vendor_id = p->attrs.vendor_id;
	n->device_id = p->attrs.device_id;
	if (fabric_is_switch(n))
		n->lft_cap = LID_UNICAST_MAX + 1; /* a file does not limit it */
	topo_init_ports(n, p->attrs.has_port_guid ? p->attrs.port_guid : n->guid);
}

/* Switch|Hca|Ca|Rt <nports> "<id>" [# comment] */
static int topo_header_line(struct topo_parser *p, struct topo_cur *c, int type, int *cur)
{
	char id[TOPO_ID_MAX];
	unsigned long nports;
	struct topo_note note;
	int node;

	topo_skip_ws(c);
	if (!topo_decimal(c, &nports) || nports < 1 || nports > FABRIC_MAX_PORTS)
		return topo_fail(p, "bad port count (1-%d)", FABRIC_MAX_PORTS);
	topo_skip_ws(c);
	if (!topo_quoted(c, id, sizeof(id)) || !id[0])
		return topo_fail(p, "missing or bad node id (a quoted string)");
	if (!topo_at_end(c))
		return topo_fail(p, "unexpected text after node id \"%s\"", id);
	node = topo_id_find(p, id);
	if (node != FABRIC_NONE)
		return topo_fail(p, "duplicate node id \"%s\" (first at line %d)", id,
				 p->recs[node].line);
	node = topo_add_node(p, type, nports, id);
	if (node < 0)
		return node;
	topo_fill_node(p, &p->f->nodes[node], id);
	topo_note_parse(*c, false, &note);
	topo_apply_header_note(&p->f->nodes[node], &note);
	memset(&p->attrs, 0, sizeof(p->attrs));
	*cur = node;
	return 0;
}

/* ---- Port lines -------------------------------------------------------- */

static int topo_port_range(struct topo_parser *p, int line, int node, unsigned long port)
{
	const struct fabric_node *n = &p->f->nodes[node];

	if (port >= 1 && port <= n->num_ports)
		return 0;
	return topo_fail_at(p, line, "port %lu out of range (node \"%s\" has %u ports)", port,
			    p->recs[node].id, n->num_ports);
}

static int topo_push_link(struct topo_parser *p, const struct topo_link *l, const char *rid)
{
	if (TEXT_GROW(p->links, p->cap_links, p->n_links + 1, 64) < 0)
		return -ENOMEM;
	p->links[p->n_links] = *l;
	p->links[p->n_links].rid = strdup(rid);
	if (!p->links[p->n_links].rid)
		return -ENOMEM;
	p->n_links++;
	return 0;
}

/* A (portguid) after the local port names that CA/router port's GUID. */
static void topo_set_port_guid(struct topo_parser *p, int node, uint8_t port, uint64_t guid)
{
	p->f->nodes[node].ports[port].guid = guid;
	p->recs[node].guid_given[port] = 1;
}

/* Options after the remote port: ibsim's w=<1|2|4|8|12> link width. */
static int topo_port_options(struct topo_parser *p, struct topo_cur *c, struct topo_link *l)
{
	static const uint8_t width_code[13] = { [1] = 1, [2] = 16, [4] = 2, [8] = 4, [12] = 8 };
	unsigned long w;

	while (!topo_at_end(c)) {
		if (strncmp(c->p, "w=", 2))
			return topo_fail(p, "unexpected text after remote port");
		c->p += 2;
		if (!topo_decimal(c, &w) || w > 12 || !width_code[w])
			return topo_fail(p, "bad link width (w=1, 2, 4, 8 or 12)");
		l->width = width_code[w];
	}
	return 0;
}

static void topo_apply_port_note(struct topo_parser *p, int node, uint8_t port,
				 const struct topo_note *note)
{
	struct fabric_port *fp = &p->f->nodes[node].ports[port];

	if (fabric_is_switch(&p->f->nodes[node]))
		return;
	if (note->has_lid && note->lid <= LID_UNICAST_MAX)
		fp->lid = (uint16_t)note->lid;
	if (note->has_lmc && note->lmc <= 7)
		fp->lmc = (uint8_t)note->lmc;
}

/* [<port>][(<portguid>)] "<remote id>"[<rport>][(<rportguid>)] [w=N] [# ...] */
static int topo_port_line(struct topo_parser *p, struct topo_cur *c, int cur)
{
	struct topo_link l = { .node = cur, .line = p->line };
	char rid[TOPO_ID_MAX];
	unsigned long port, rport;
	uint64_t lguid;
	struct topo_note note;
	int rc;

	if (cur == FABRIC_NONE)
		return topo_fail(p, "port line before any node header");
	if (!topo_eat(c, '[') || !topo_decimal(c, &port) || !topo_eat(c, ']'))
		return topo_fail(p, "bad local port (expected [<number>])");
	rc = topo_port_range(p, p->line, cur, port);
	if (rc)
		return rc;
	if (!topo_opt_guid(c, &lguid))
		return topo_fail(p, "bad port GUID");
	topo_skip_ws(c);
	if (!topo_quoted(c, rid, sizeof(rid)))
		return topo_fail(p, "missing or bad remote id (a quoted string)");
	if (!topo_eat(c, '[') || !topo_decimal(c, &rport) || !topo_eat(c, ']') || rport > 255)
		return topo_fail(p, "bad remote port after \"%s\" (expected [<number>])", rid);
	if (!topo_opt_guid(c, &l.rguid))
		return topo_fail(p, "bad remote port GUID");
	l.port = (uint8_t)port;
	l.rport = (uint8_t)rport;
	rc = topo_port_options(p, c, &l);
	if (rc)
		return rc;
	if (lguid && !fabric_is_switch(&p->f->nodes[cur]))
		topo_set_port_guid(p, cur, l.port, lguid);
	topo_note_parse(*c, true, &note);
	topo_apply_port_note(p, cur, l.port, &note);
	return topo_push_link(p, &l, rid);
}

/* ---- Lines ------------------------------------------------------------- */

static int topo_line(struct topo_parser *p, char *s, int *cur)
{
	struct topo_cur c = { s };
	char word[32];
	int type;

	if (topo_at_end(&c))
		return 0;
	if (*c.p == '[')
		return topo_port_line(p, &c, *cur);
	if (!topo_word(&c, word, sizeof(word)))
		return topo_fail(p, "unexpected '%c'", *c.p);
	if (topo_eat(&c, '='))
		return topo_attr_line(p, &c, word);
	type = topo_type(word);
	if (type && (*c.p == ' ' || *c.p == '\t'))
		return topo_header_line(p, &c, type, cur);
	if (!strcmp(word, "include") || !strcmp(word, "do"))
		return topo_fail(p, "'%s' is not supported", word);
	return topo_fail(p, "unknown record '%s'", word);
}

static int topo_read_lines(struct topo_parser *p, const char *text, size_t len)
{
	char buf[TOPO_LINE_MAX];
	int cur = FABRIC_NONE, rc;
	size_t at = 0;

	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - text - at) : len - at;

		p->line++;
		if (n >= sizeof(buf))
			return topo_fail(p, "line too long (max %zu)", sizeof(buf) - 1);
		memcpy(buf, text + at, n);
		buf[n] = '\0';
		if (n && buf[n - 1] == '\r')
			buf[--n] = '\0';
		if (strlen(buf) + 1 < n)
			return topo_fail(p, "NUL byte in line");
		rc = topo_line(p, buf, &cur);
		if (rc)
			return rc;
		at += n + 1;
	}
	return 0;
}

/* ---- Joining the links ------------------------------------------------- */

static int topo_check_free(struct topo_parser *p, int line, int node, uint8_t port, int peer,
			   uint8_t peer_port)
{
	const struct fabric_port *fp = &p->f->nodes[node].ports[port];

	if (fp->remote_node == FABRIC_NONE ||
	    (fp->remote_node == peer && fp->remote_port == peer_port))
		return 0;
	return topo_fail_at(p, line,
			    "contradicting link: \"%s\"[%u] is already linked to \"%s\"[%u]",
			    p->recs[node].id, port, p->recs[fp->remote_node].id, fp->remote_port);
}

/* A (portguid) after the remote port must agree with what the remote's
 * own line says; if that line said nothing, it names the port. */
static int topo_check_remote_guid(struct topo_parser *p, const struct topo_link *l, int r)
{
	const struct fabric_port *rp = &p->f->nodes[r].ports[l->rport];

	if (!l->rguid || fabric_is_switch(&p->f->nodes[r]))
		return 0;
	if (!p->recs[r].guid_given[l->rport]) {
		topo_set_port_guid(p, r, l->rport, l->rguid);
		return 0;
	}
	if (rp->guid == l->rguid)
		return 0;
	return topo_fail_at(p, l->line,
			    "contradicting port GUID for \"%s\"[%u]: 0x%016" PRIx64
			    " here, 0x%016" PRIx64 " elsewhere",
			    p->recs[r].id, l->rport, l->rguid, rp->guid);
}

static void topo_set_width(struct fabric *f, int node, uint8_t port, uint8_t width)
{
	struct fabric_port *fp = &f->nodes[node].ports[port];

	if (!width)
		return;
	fp->width_active = width;
	f->nodes[fp->remote_node].ports[fp->remote_port].width_active = width;
}

static int topo_join(struct topo_parser *p, const struct topo_link *l)
{
	int r = topo_id_find(p, l->rid), rc;

	if (r == FABRIC_NONE)
		return topo_fail_at(p, l->line, "unknown remote id \"%s\"", l->rid);
	rc = topo_port_range(p, l->line, r, l->rport);
	if (!rc && r == l->node && l->rport == l->port)
		rc = topo_fail_at(p, l->line, "port %u of \"%s\" is linked to itself", l->port,
				  l->rid);
	if (!rc)
		rc = topo_check_free(p, l->line, l->node, l->port, r, l->rport);
	if (!rc)
		rc = topo_check_free(p, l->line, r, l->rport, l->node, l->port);
	if (!rc)
		rc = topo_check_remote_guid(p, l, r);
	if (!rc)
		rc = fabric_link(p->f, l->node, l->port, r, l->rport);
	if (!rc)
		topo_set_width(p->f, l->node, l->port, l->width);
	return rc;
}

static int topo_join_all(struct topo_parser *p)
{
	for (size_t i = 0; i < p->n_links; i++) {
		int rc = topo_join(p, &p->links[i]);

		if (rc)
			return rc;
	}
	return 0;
}

/* ---- Port states and the SM's attach point ---------------------------- */

/* Cabled ports come up to INIT (no SM yet); a switch's port 0 is ACTIVE. */
static void topo_port_states(struct fabric *f)
{
	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fabric_node *n = &f->nodes[i];

		for (unsigned pn = 0; pn <= n->num_ports; pn++) {
			struct fabric_port *port = &n->ports[pn];
			bool linked = port->remote_node != FABRIC_NONE;

			port->present = fabric_is_switch(n) || linked;
			if (linked || (pn == 0 && fabric_is_switch(n))) {
				port->state = pn ? PORT_STATE_INIT : PORT_STATE_ACTIVE;
				port->phys_state = PORT_PHYS_LINKUP;
			}
		}
	}
}

/* The first node in the file hosts the SM: on a switch port 0, on a CA its
 * lowest cabled port (port 1 when none is). */
static void topo_sm_attach(struct fabric *f)
{
	const struct fabric_node *n;

	if (!f->n_nodes)
		return;
	f->sm_node = 0;
	n = &f->nodes[0];
	f->sm_port = fabric_is_switch(n) ? 0 : 1;
	if (fabric_is_switch(n))
		return;
	for (unsigned pn = 1; pn <= n->num_ports; pn++) {
		if (n->ports[pn].remote_node != FABRIC_NONE) {
			f->sm_port = (uint8_t)pn;
			return;
		}
	}
}

/* ---- Entry points ------------------------------------------------------ */

static void topo_parser_fini(struct topo_parser *p)
{
	for (size_t i = 0; i < p->n_recs; i++) {
		free(p->recs[i].id);
		free(p->recs[i].guid_given);
	}
	for (size_t i = 0; i < p->n_links; i++)
		free(p->links[i].rid);
	free(p->recs);
	free(p->id_index);
	free(p->links);
}

int topo_parse(const char *text, size_t len, const char *name, struct fabric *f, char *err,
	       size_t errlen)
{
	struct topo_parser p = {
		.name = name ? name : "<topology>",
		.err = err,
		.errlen = errlen,
		.f = f,
		.next_sw_guid = TOPO_SW_GUID_BASE,
		.next_ca_guid = TOPO_CA_GUID_BASE,
	};
	int rc;

	if (errlen)
		err[0] = '\0';
	if (f->n_nodes) {
		snprintf(err, errlen, "%s: fabric is not empty", p.name);
		return -EINVAL;
	}
	rc = topo_read_lines(&p, text, len);
	if (!rc)
		rc = topo_join_all(&p);
	if (rc == -ENOMEM)
		topo_fail(&p, "out of memory");
	if (!rc) {
		topo_port_states(f);
		topo_sm_attach(f);
	}
	topo_parser_fini(&p);
	if (rc)
		fabric_fini(f);
	return rc;
}

static int topo_read_file(int fd, char **text, size_t *len)
{
	struct stat st;
	ssize_t got;
	size_t have = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	*text = malloc((size_t)st.st_size + 1);
	if (!*text)
		return -ENOMEM;
	while (have < (size_t)st.st_size) {
		got = read(fd, *text + have, (size_t)st.st_size - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		have += (size_t)got;
	}
	*len = have;
	return 0;
}

int topo_load(const char *path, struct fabric *f, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = topo_read_file(fd, &text, &len);
	close(fd);
	if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	else
		rc = topo_parse(text, len, path, f, err, errlen);
	free(text);
	return rc;
}
