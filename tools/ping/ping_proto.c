/*
 * tools/ping/ping_proto.c - owns nanosm-ping's side-channel line format (encode, parse,
 * field rules), the data-path payload header and the line buffer.  Pure: no
 * sockets, no verbs, no clock; callers do the reading and writing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mad/text.h"
#include "tools/ping/ping_proto.h"

#define PING_PROTO_GID_TEXT 39 /* 8 groups of 4 hex digits and 7 colons */
#define PING_PROTO_QUOTE_MAX 32
#define PING_PROTO_MAGIC 0x4e534d50u /* "NSMP" */

/* Walks a line being parsed. */
struct ping_proto_cursor {
	const char *p;
};

/* Copy at most PING_PROTO_QUOTE_MAX chars of s (up to a space if stop_at_space)
 * into out, for an error message. */
static const char *ping_proto_quote(const char *s, int stop_at_space, char *out, size_t cap)
{
	size_t n = 0;

	while (s[n] && n + 1 < cap && n < PING_PROTO_QUOTE_MAX && !(stop_at_space && s[n] == ' ')) {
		unsigned char c = (unsigned char)s[n];
		out[n] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
		n++;
	}
	out[n] = '\0';
	if (s[n] && !(stop_at_space && s[n] == ' ') && n + 4 < cap)
		strcat(out, "...");
	return out;
}

const char *ping_proto_mode_name(enum ping_mode mode)
{
	return mode == PING_MODE_RC ? "rc" : "ud";
}

const char *ping_proto_msg_name(enum ping_msg_type type)
{
	switch (type) {
	case PING_MSG_HELLO:
		return "HELLO";
	case PING_MSG_INFO:
		return "INFO";
	case PING_MSG_ERROR:
		return "ERROR";
	case PING_MSG_DONE:
		return "DONE";
	case PING_MSG_BYE:
		return "BYE";
	}
	return "?";
}

int ping_proto_mtu_valid(uint32_t mtu)
{
	return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

/* ---- Field rules, shared by encode and parse ---------------------------- */

static int ping_proto_gid_zero(const uint8_t gid[16])
{
	for (int i = 0; i < 16; i++)
		if (gid[i])
			return 0;
	return 1;
}

static int ping_proto_lid_valid(uint16_t lid, char *err, size_t errlen)
{
	if (lid >= 1 && lid <= PING_PROTO_LID_MAX)
		return 0;
	return text_err(err, errlen, -EBADMSG, "field 'lid': %u is not a unicast LID (1..49151)",
			lid);
}

static int ping_proto_gid_valid(const uint8_t gid[16], char *err, size_t errlen)
{
	if (!ping_proto_gid_zero(gid))
		return 0;
	return text_err(err, errlen, -EBADMSG, "field 'gid': all zero (the port has no GID)");
}

static int ping_proto_info_valid(const struct ping_info *in, char *err, size_t errlen)
{
	if (in->mode != PING_MODE_UD && in->mode != PING_MODE_RC)
		return text_err(err, errlen, -EBADMSG, "field 'mode': %d is neither ud nor rc",
				(int)in->mode);
	if (ping_proto_lid_valid(in->lid, err, errlen) < 0)
		return -EBADMSG;
	if (in->qpn < 2 || in->qpn > 0xffffff)
		return text_err(err, errlen, -EBADMSG,
				"field 'qpn': 0x%x is not a 24-bit QP number above 1", in->qpn);
	if (in->psn > 0xffffff)
		return text_err(err, errlen, -EBADMSG, "field 'psn': 0x%x is not a 24-bit PSN",
				in->psn);
	if (ping_proto_gid_valid(in->gid, err, errlen) < 0)
		return -EBADMSG;
	if (!ping_proto_mtu_valid(in->mtu))
		return text_err(err, errlen, -EBADMSG,
				"field 'mtu': %u is not 256, 512, 1024, 2048 or 4096", in->mtu);
	if (in->size < PING_PROTO_SIZE_MIN || in->size > PING_PROTO_SIZE_MAX)
		return text_err(err, errlen, -EBADMSG, "field 'size': %u is out of range %u..%u",
				in->size, PING_PROTO_SIZE_MIN, PING_PROTO_SIZE_MAX);
	return 0;
}

static int ping_proto_text_valid(const char *text, char *err, size_t errlen)
{
	size_t n = strlen(text);

	if (n == 0 || n > PING_PROTO_TEXT_MAX)
		return text_err(err, errlen, -EBADMSG,
				"ERROR text must be 1..%d characters, not %zu", PING_PROTO_TEXT_MAX,
				n);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c < 0x20 || c >= 0x7f)
			return text_err(err, errlen, -EBADMSG,
					"ERROR text: non-printable byte 0x%02x at %zu", c, i);
	}
	return 0;
}

/* ---- Encode -------------------------------------------------------------- */

static void ping_proto_gid_text(const uint8_t gid[16], char out[PING_PROTO_GID_TEXT + 1])
{
	for (int i = 0; i < 8; i++)
		sprintf(out + 5 * i, "%02x%02x%s", gid[2 * i], gid[2 * i + 1], i < 7 ? ":" : "");
}

static int ping_proto_encode_info(const struct ping_info *in, char *buf, size_t cap, char *err,
				  size_t errlen)
{
	char gid[PING_PROTO_GID_TEXT + 1];

	if (ping_proto_info_valid(in, err, errlen) < 0)
		return -EINVAL;
	ping_proto_gid_text(in->gid, gid);
	return snprintf(buf, cap,
			"%s/%d INFO mode=%s lid=%u qpn=0x%06x psn=0x%06x gid=%s mtu=%u size=%u "
			"rkey=0x%08x addr=0x%016llx",
			PING_PROTO_NAME, PING_PROTO_VERSION, ping_proto_mode_name(in->mode),
			in->lid, in->qpn, in->psn, gid, in->mtu, in->size, in->rkey,
			(unsigned long long)in->addr);
}

static int ping_proto_encode_hello(const struct ping_msg *m, char *buf, size_t cap, char *err,
				   size_t errlen)
{
	char gid[PING_PROTO_GID_TEXT + 1];

	if (ping_proto_lid_valid(m->lid, err, errlen) < 0 ||
	    ping_proto_gid_valid(m->gid, err, errlen) < 0)
		return -EINVAL;
	ping_proto_gid_text(m->gid, gid);
	return snprintf(buf, cap, "%s/%d HELLO lid=%u gid=%s", PING_PROTO_NAME, PING_PROTO_VERSION,
			m->lid, gid);
}

int ping_proto_encode(const struct ping_msg *m, char *buf, size_t cap, char *err, size_t errlen)
{
	int n;

	switch (m->type) {
	case PING_MSG_HELLO:
		n = ping_proto_encode_hello(m, buf, cap, err, errlen);
		break;
	case PING_MSG_INFO:
		n = ping_proto_encode_info(&m->info, buf, cap, err, errlen);
		break;
	case PING_MSG_ERROR:
		if (ping_proto_text_valid(m->text, err, errlen) < 0)
			return -EINVAL;
		n = snprintf(buf, cap, "%s/%d ERROR %s", PING_PROTO_NAME, PING_PROTO_VERSION,
			     m->text);
		break;
	case PING_MSG_DONE:
		n = snprintf(buf, cap, "%s/%d DONE", PING_PROTO_NAME, PING_PROTO_VERSION);
		break;
	case PING_MSG_BYE:
		n = snprintf(buf, cap, "%s/%d BYE rx=%llu", PING_PROTO_NAME, PING_PROTO_VERSION,
			     (unsigned long long)m->rx);
		break;
	default:
		return text_err(err, errlen, -EINVAL, "unknown message type %d", (int)m->type);
	}
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= cap || n >= PING_PROTO_LINE_MAX)
		return text_err(err, errlen, -ENOSPC, "%s line does not fit in %zu bytes",
				ping_proto_msg_name(m->type), cap);
	return n;
}

/* ---- Parse --------------------------------------------------------------- */

static int ping_proto_line_clean(const char *line, char *err, size_t errlen)
{
	size_t n = strlen(line);

	if (n >= PING_PROTO_LINE_MAX)
		return text_err(err, errlen, -EBADMSG, "line of %zu bytes (at most %d)", n,
				PING_PROTO_LINE_MAX - 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c < 0x20 || c >= 0x7f)
			return text_err(err, errlen, -EBADMSG,
					"non-printable byte 0x%02x at column %zu", c, i + 1);
	}
	return 0;
}

/* "NSMPING/<version> ": -EPROTO if it is not our protocol at all. */
static int ping_proto_parse_version(struct ping_proto_cursor *c, char *err, size_t errlen)
{
	const char *name = PING_PROTO_NAME "/";
	char q[PING_PROTO_QUOTE_MAX + 4];
	unsigned long version = 0;
	const char *p;

	if (strncmp(c->p, name, strlen(name)) != 0)
		return text_err(err, errlen, -EPROTO, "not a nanosm-ping peer (line starts \"%s\")",
				ping_proto_quote(c->p, 0, q, sizeof(q)));
	p = c->p + strlen(name);
	if (*p < '0' || *p > '9')
		return text_err(err, errlen, -EPROTO, "no protocol version after %s/",
				PING_PROTO_NAME);
	for (; *p >= '0' && *p <= '9' && version < 1000000; p++)
		version = version * 10 + (unsigned long)(*p - '0');
	if (*p != ' ' && *p != '\0')
		return text_err(err, errlen, -EPROTO, "bad protocol version \"%s\"",
				ping_proto_quote(c->p, 1, q, sizeof(q)));
	if (version != PING_PROTO_VERSION)
		return text_err(err, errlen, -EPROTONOSUPPORT,
				"peer speaks %s/%lu, this nanosm-ping speaks %s/%d",
				PING_PROTO_NAME, version, PING_PROTO_NAME, PING_PROTO_VERSION);
	c->p = p;
	return 0;
}

static int ping_proto_parse_type(struct ping_proto_cursor *c, enum ping_msg_type *type, char *err,
				 size_t errlen)
{
	static const enum ping_msg_type all[] = {PING_MSG_HELLO, PING_MSG_INFO, PING_MSG_ERROR,
						 PING_MSG_DONE, PING_MSG_BYE};
	char q[PING_PROTO_QUOTE_MAX + 4];
	size_t len;

	if (*c->p != ' ' || c->p[1] == '\0' || c->p[1] == ' ')
		return text_err(err, errlen, -EBADMSG, "no message type after %s/%d",
				PING_PROTO_NAME, PING_PROTO_VERSION);
	c->p++;
	len = strcspn(c->p, " ");
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const char *name = ping_proto_msg_name(all[i]);
		if (len == strlen(name) && strncmp(c->p, name, len) == 0) {
			*type = all[i];
			c->p += len;
			return 0;
		}
	}
	return text_err(err, errlen, -EBADMSG, "unknown message \"%s\"",
			ping_proto_quote(c->p, 1, q, sizeof(q)));
}

/* " key=value": points *val at the value and *len at its length. */
static int ping_proto_field(struct ping_proto_cursor *c, const char *key, const char **val,
			    size_t *len, char *err, size_t errlen)
{
	size_t klen = strlen(key);
	char q[PING_PROTO_QUOTE_MAX + 4];

	if (*c->p == '\0')
		return text_err(err, errlen, -EBADMSG, "missing field '%s'", key);
	if (*c->p != ' ' || strncmp(c->p + 1, key, klen) != 0 || c->p[1 + klen] != '=')
		return text_err(err, errlen, -EBADMSG, "expected field '%s', found \"%s\"", key,
				ping_proto_quote(c->p + (*c->p == ' '), 1, q, sizeof(q)));
	*val = c->p + 1 + klen + 1;
	*len = strcspn(*val, " ");
	if (*len == 0)
		return text_err(err, errlen, -EBADMSG, "field '%s' is empty", key);
	c->p = *val + *len;
	return 0;
}

static int ping_proto_bad_value(const char *key, const char *val, const char *want, char *err,
				size_t errlen)
{
	char q[PING_PROTO_QUOTE_MAX + 4];

	return text_err(err, errlen, -EBADMSG, "field '%s': \"%s\" is not %s", key,
			ping_proto_quote(val, 1, q, sizeof(q)), want);
}

static int ping_proto_dec(struct ping_proto_cursor *c, const char *key, uint64_t max, uint64_t *out,
			  char *err, size_t errlen)
{
	const char *val;
	size_t len;
	uint64_t v = 0;

	if (ping_proto_field(c, key, &val, &len, err, errlen) < 0)
		return -EBADMSG;
	if (len > 20)
		return ping_proto_bad_value(key, val, "a decimal number", err, errlen);
	for (size_t i = 0; i < len; i++) {
		if (val[i] < '0' || val[i] > '9')
			return ping_proto_bad_value(key, val, "a decimal number", err, errlen);
		if (v > (max - (uint64_t)(val[i] - '0')) / 10)
			return text_err(err, errlen, -EBADMSG, "field '%s': %.*s is above %llu",
					key, (int)len, val, (unsigned long long)max);
		v = v * 10 + (uint64_t)(val[i] - '0');
	}
	*out = v;
	return 0;
}

/* "0x" and exactly digits hex digits. */
static int ping_proto_hex(struct ping_proto_cursor *c, const char *key, size_t digits,
			  uint64_t *out, char *err, size_t errlen)
{
	char want[40];
	const char *val;
	size_t len;
	uint64_t v = 0;

	if (ping_proto_field(c, key, &val, &len, err, errlen) < 0)
		return -EBADMSG;
	snprintf(want, sizeof(want), "0x and %zu hex digits", digits);
	if (len != digits + 2 || val[0] != '0' || val[1] != 'x')
		return ping_proto_bad_value(key, val, want, err, errlen);
	for (size_t i = 2; i < len; i++) {
		int d = text_hexval(val[i]);
		if (d < 0)
			return ping_proto_bad_value(key, val, want, err, errlen);
		v = (v << 4) | (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int ping_proto_gid(struct ping_proto_cursor *c, uint8_t gid[16], char *err, size_t errlen)
{
	const char *want = "a GID (8 groups of 4 hex digits)";
	const char *val;
	size_t len;

	if (ping_proto_field(c, "gid", &val, &len, err, errlen) < 0)
		return -EBADMSG;
	if (len != PING_PROTO_GID_TEXT)
		return ping_proto_bad_value("gid", val, want, err, errlen);
	for (int g = 0; g < 8; g++) {
		const char *s = val + 5 * g;
		int d[4];
		for (int i = 0; i < 4; i++)
			if ((d[i] = text_hexval(s[i])) < 0)
				return ping_proto_bad_value("gid", val, want, err, errlen);
		if (g < 7 && s[4] != ':')
			return ping_proto_bad_value("gid", val, want, err, errlen);
		gid[2 * g] = (uint8_t)(d[0] << 4 | d[1]);
		gid[2 * g + 1] = (uint8_t)(d[2] << 4 | d[3]);
	}
	return ping_proto_gid_valid(gid, err, errlen);
}

static int ping_proto_mode(struct ping_proto_cursor *c, enum ping_mode *mode, char *err,
			   size_t errlen)
{
	const char *val;
	size_t len;

	if (ping_proto_field(c, "mode", &val, &len, err, errlen) < 0)
		return -EBADMSG;
	if (len == 2 && strncmp(val, "ud", 2) == 0)
		*mode = PING_MODE_UD;
	else if (len == 2 && strncmp(val, "rc", 2) == 0)
		*mode = PING_MODE_RC;
	else
		return ping_proto_bad_value("mode", val, "ud or rc", err, errlen);
	return 0;
}

static int ping_proto_parse_hello(struct ping_proto_cursor *c, struct ping_msg *m, char *err,
				  size_t errlen)
{
	uint64_t lid;

	if (ping_proto_dec(c, "lid", 0xffff, &lid, err, errlen) < 0)
		return -EBADMSG;
	m->lid = (uint16_t)lid;
	if (ping_proto_lid_valid(m->lid, err, errlen) < 0)
		return -EBADMSG;
	return ping_proto_gid(c, m->gid, err, errlen);
}

static int ping_proto_parse_info(struct ping_proto_cursor *c, struct ping_info *in, char *err,
				 size_t errlen)
{
	uint64_t lid, qpn, psn, mtu, size, rkey, addr;

	if (ping_proto_mode(c, &in->mode, err, errlen) < 0 ||
	    ping_proto_dec(c, "lid", 0xffff, &lid, err, errlen) < 0 ||
	    ping_proto_hex(c, "qpn", 6, &qpn, err, errlen) < 0 ||
	    ping_proto_hex(c, "psn", 6, &psn, err, errlen) < 0 ||
	    ping_proto_gid(c, in->gid, err, errlen) < 0 ||
	    ping_proto_dec(c, "mtu", 0xffff, &mtu, err, errlen) < 0 ||
	    ping_proto_dec(c, "size", UINT32_MAX, &size, err, errlen) < 0 ||
	    ping_proto_hex(c, "rkey", 8, &rkey, err, errlen) < 0 ||
	    ping_proto_hex(c, "addr", 16, &addr, err, errlen) < 0)
		return -EBADMSG;
	in->lid = (uint16_t)lid;
	in->qpn = (uint32_t)qpn;
	in->psn = (uint32_t)psn;
	in->mtu = (uint16_t)mtu;
	in->size = (uint32_t)size;
	in->rkey = (uint32_t)rkey;
	in->addr = addr;
	return ping_proto_info_valid(in, err, errlen);
}

static int ping_proto_parse_body(struct ping_proto_cursor *c, struct ping_msg *m, char *err,
				 size_t errlen)
{
	switch (m->type) {
	case PING_MSG_HELLO:
		return ping_proto_parse_hello(c, m, err, errlen);
	case PING_MSG_INFO:
		return ping_proto_parse_info(c, &m->info, err, errlen);
	case PING_MSG_ERROR:
		if (*c->p != ' ')
			return text_err(err, errlen, -EBADMSG, "ERROR without a text");
		if (ping_proto_text_valid(c->p + 1, err, errlen) < 0)
			return -EBADMSG;
		strcpy(m->text, c->p + 1);
		c->p += strlen(c->p);
		return 0;
	case PING_MSG_BYE:
		return ping_proto_dec(c, "rx", UINT64_MAX, &m->rx, err, errlen);
	case PING_MSG_DONE:
		return 0;
	}
	return -EBADMSG;
}

int ping_proto_parse(const char *line, struct ping_msg *m, char *err, size_t errlen)
{
	struct ping_proto_cursor c = {line};
	char q[PING_PROTO_QUOTE_MAX + 4];
	int rc;

	memset(m, 0, sizeof(*m));
	/* the name first: a wrong service (an SSH banner) is named as such */
	if ((rc = ping_proto_parse_version(&c, err, errlen)) < 0)
		return rc;
	if ((rc = ping_proto_line_clean(line, err, errlen)) < 0)
		return rc;
	if ((rc = ping_proto_parse_type(&c, &m->type, err, errlen)) < 0)
		return rc;
	if ((rc = ping_proto_parse_body(&c, m, err, errlen)) < 0) {
		char inner[256];

		snprintf(inner, sizeof(inner), "%s", err && errlen ? err : "");
		return text_err(err, errlen, rc, "%s: %.200s", ping_proto_msg_name(m->type), inner);
	}
	if (*c.p != '\0')
		return text_err(
		    err, errlen, -EBADMSG, "%s: unexpected text after the last field: \"%s\"",
		    ping_proto_msg_name(m->type), ping_proto_quote(c.p, 0, q, sizeof(q)));
	return 0;
}

/* ---- Checks across both ends --------------------------------------------- */

static int ping_proto_ud_size_ok(uint32_t size, uint16_t mtu_a, uint16_t mtu_b, char *err,
				 size_t errlen)
{
	uint16_t mtu = mtu_a < mtu_b ? mtu_a : mtu_b;

	if (size <= mtu)
		return 0;
	return text_err(err, errlen, -EBADMSG,
			"message size %u is above the path MTU %u (a UD message fits in one "
			"packet: use --size/--ping-size)",
			size, mtu);
}

int ping_proto_check_server(const struct ping_info *client, const struct ping_info *server,
			    char *err, size_t errlen)
{
	if (server->mode != client->mode)
		return text_err(
		    err, errlen, -EBADMSG, "server answered in %s mode, we asked for %s",
		    ping_proto_mode_name(server->mode), ping_proto_mode_name(client->mode));
	if (server->size != client->size)
		return text_err(err, errlen, -EBADMSG,
				"server accepted message size %u, we asked for %u", server->size,
				client->size);
	if (server->mode == PING_MODE_UD) {
		if (server->rkey || server->addr)
			return text_err(err, errlen, -EBADMSG,
					"server sent an RDMA buffer (rkey/addr) in UD mode");
		return ping_proto_ud_size_ok(client->size, client->mtu, server->mtu, err, errlen);
	}
	if (!server->rkey || !server->addr)
		return text_err(err, errlen, -EBADMSG,
				"server sent no RDMA write buffer (rkey/addr zero) in RC mode");
	return 0;
}

int ping_proto_check_client(const struct ping_info *client, uint16_t server_mtu, char *err,
			    size_t errlen)
{
	if (client->rkey || client->addr)
		return text_err(err, errlen, -EBADMSG,
				"client INFO carries rkey/addr (only a server offers a buffer)");
	if (client->mode == PING_MODE_UD)
		return ping_proto_ud_size_ok(client->size, client->mtu, server_mtu, err, errlen);
	return 0;
}

/* ---- Data-path header ---------------------------------------------------- */

static void ping_proto_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t ping_proto_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void ping_proto_payload_put(uint8_t *buf, enum ping_payload_kind kind, uint32_t seq)
{
	ping_proto_put32(buf, PING_PROTO_MAGIC);
	ping_proto_put32(buf + 4, (uint32_t)kind << 24 | (seq & 0xffffff));
}

int ping_proto_payload_get(const uint8_t *buf, size_t len, enum ping_payload_kind *kind,
			   uint32_t *seq)
{
	uint32_t w;

	if (len < PING_PROTO_HDR_LEN || ping_proto_get32(buf) != PING_PROTO_MAGIC)
		return -EBADMSG;
	w = ping_proto_get32(buf + 4);
	if ((w >> 24) < PING_PAYLOAD_PING || (w >> 24) > PING_PAYLOAD_BW)
		return -EBADMSG;
	*kind = (enum ping_payload_kind)(w >> 24);
	*seq = w & 0xffffff;
	return 0;
}

/* ---- Line buffer --------------------------------------------------------- */

void ping_proto_linebuf_init(struct ping_proto_linebuf *lb)
{
	lb->len = 0;
}

char *ping_proto_linebuf_room(struct ping_proto_linebuf *lb, size_t *room)
{
	*room = sizeof(lb->buf) - lb->len;
	return lb->buf + lb->len;
}

void ping_proto_linebuf_commit(struct ping_proto_linebuf *lb, size_t n)
{
	lb->len += n;
}

int ping_proto_linebuf_take(struct ping_proto_linebuf *lb, char *line, size_t cap)
{
	char *nl = memchr(lb->buf, '\n', lb->len);
	size_t n;

	if (!nl)
		return lb->len >= PING_PROTO_LINE_MAX ? -EMSGSIZE : 0;
	n = (size_t)(nl - lb->buf);
	if (n >= PING_PROTO_LINE_MAX || n >= cap)
		return -EMSGSIZE;
	if (memchr(lb->buf, '\0', n))
		return -EBADMSG;
	memcpy(line, lb->buf, n);
	line[n] = '\0';
	lb->len -= n + 1;
	memmove(lb->buf, nl + 1, lb->len);
	return 1;
}
