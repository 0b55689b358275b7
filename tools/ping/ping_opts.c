/*
 * tools/ping/ping_opts.c - owns nanosm-ping's option table, target syntax, hosts-file
 * syntax and the run plan.  Pure: never opens a file, resolves a name or
 * touches a device; no getopt (its state is global).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mad/port_args.h"
#include "mad/text.h"
#include "tools/ping/ping_opts.h"

enum ping_opts_id {
	PING_OPT_SERVER,
	PING_OPT_TCP_PORT,
	PING_OPT_DEV,
	PING_OPT_IBPORT,
	PING_OPT_GUID,
	PING_OPT_RC,
	PING_OPT_UD,
	PING_OPT_ITERS,
	PING_OPT_PING_SIZE,
	PING_OPT_BW,
	PING_OPT_SIZE,
	PING_OPT_BW_COUNT,
	PING_OPT_TIMEOUT,
	PING_OPT_ALL,
	PING_OPT_HOSTS,
	PING_OPT_VERBOSE,
	PING_OPT_HELP,
	PING_OPT_VERSION,
	PING_OPT_COUNT
};

struct ping_opts_def {
	const char *name; /* long, without "--" */
	char letter;	  /* short, or 0 */
	int has_arg;
	int client_only;
	enum ping_opts_id id;
};

static const struct ping_opts_def ping_opts_table[] = {
    {"server", 0, 0, 0, PING_OPT_SERVER},
    {"tcp-port", 0, 1, 0, PING_OPT_TCP_PORT},
    /* -d, -p, -g: the CA, its port and the port GUID, as in nanosm */
    {"ca", 'd', 1, 0, PING_OPT_DEV},
    {"port", 'p', 1, 0, PING_OPT_IBPORT},
    {"guid", 'g', 1, 0, PING_OPT_GUID},
    {"rc", 0, 0, 1, PING_OPT_RC},
    {"ud", 0, 0, 1, PING_OPT_UD},
    {"iters", 'n', 1, 1, PING_OPT_ITERS},
    {"ping-size", 0, 1, 1, PING_OPT_PING_SIZE},
    {"bw", 0, 0, 1, PING_OPT_BW},
    {"size", 's', 1, 1, PING_OPT_SIZE},
    {"bw-count", 0, 1, 1, PING_OPT_BW_COUNT},
    {"timeout", 't', 1, 1, PING_OPT_TIMEOUT},
    {"all", 0, 1, 1, PING_OPT_ALL},
    {"hosts", 0, 1, 1, PING_OPT_HOSTS},
    {"verbose", 'v', 0, 0, PING_OPT_VERBOSE},
    {"help", 'h', 0, 0, PING_OPT_HELP},
    {"version", 0, 0, 0, PING_OPT_VERSION},
};

#define PING_OPTS_NDEFS (sizeof(ping_opts_table) / sizeof(ping_opts_table[0]))

/* Parser state: what was seen, positional words kept for the end. */
struct ping_opts_scan {
	unsigned seen[PING_OPT_COUNT];
	const char **words;
	size_t n_words;
};

/* ---- Numbers ------------------------------------------------------------- */

/* Decimal (or 0x hex when hex_ok) in min..max; unit is the multiplier of a
 * k/m suffix base (0: no suffix allowed). */
static int ping_opts_number(const char *opt, const char *s, int hex_ok, int suffix_ok,
			    unsigned long long min, unsigned long long max, unsigned long long *out,
			    char *err, size_t errlen)
{
	unsigned long long v = 0, mult = 1;
	int base = 10;
	size_t i = 0, digits = 0;

	if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	for (; s[i]; i++, digits++) {
		int d = isdigit((unsigned char)s[i]) ? s[i] - '0'
			: (base == 16 && isxdigit((unsigned char)s[i]))
			    ? tolower((unsigned char)s[i]) - 'a' + 10
			    : -1;
		if (d < 0)
			break;
		if (v > (ULLONG_MAX - (unsigned)d) / (unsigned)base)
			return text_err(err, errlen, -EINVAL, "%s: %s is too large (at most %llu)",
					opt, s, max);
		v = v * (unsigned)base + (unsigned)d;
	}
	if (suffix_ok && digits && (s[i] == 'k' || s[i] == 'K') && !s[i + 1])
		mult = 1024, i++;
	else if (suffix_ok && digits && (s[i] == 'm' || s[i] == 'M') && !s[i + 1])
		mult = 1024 * 1024, i++;
	if (!digits || s[i])
		return text_err(err, errlen, -EINVAL, "%s: \"%s\" is not a number", opt, s);
	if (v > max / mult || v * mult < min)
		return text_err(err, errlen, -EINVAL, "%s: %s is out of range %llu..%llu", opt, s,
				min, max);
	*out = v * mult;
	return 0;
}

/* "1", "0.25" (seconds, up to 3 decimals) or "250ms". */
static int ping_opts_timeout(const char *opt, const char *s, unsigned *ms, char *err, size_t errlen)
{
	unsigned long long whole = 0, frac = 0, scale = 1000;
	size_t i = 0, digits = 0;

	for (; isdigit((unsigned char)s[i]) && digits < 10; i++, digits++)
		whole = whole * 10 + (unsigned)(s[i] - '0');
	if (digits && strcmp(s + i, "ms") == 0) {
		frac = whole;
		whole = 0;
		i += 2;
	} else if (digits && s[i] == '.') {
		for (i++, scale = 100; isdigit((unsigned char)s[i]) && scale; i++, scale /= 10)
			frac += scale * (unsigned)(s[i] - '0');
		if (s[i - 1] == '.')
			digits = 0;
		if (s[i] == 's')
			i++;
	} else if (digits && s[i] == 's') {
		i++;
	}
	if (!digits || s[i])
		return text_err(err, errlen, -EINVAL,
				"%s: \"%s\" is not a duration (e.g. 1, 0.5, 250ms)", opt, s);
	if (whole * 1000 + frac < 1 || whole * 1000 + frac > PING_OPTS_TIMEOUT_MS_MAX)
		return text_err(err, errlen, -EINVAL, "%s: %s is out of range 1ms..%us", opt, s,
				PING_OPTS_TIMEOUT_MS_MAX / 1000);
	*ms = (unsigned)(whole * 1000 + frac);
	return 0;
}

/* ---- Targets ------------------------------------------------------------- */

/* A LID: digits only, or 0x and hex digits only. */
static int ping_opts_all_digits(const char *s)
{
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	for (s += hex ? 2 : 0; *s; s++)
		if (!(hex ? isxdigit((unsigned char)*s) : isdigit((unsigned char)*s)))
			return 0;
	return 1;
}

static int ping_opts_host_chars(const char *host, size_t len, int ipv6, const char *word, char *err,
				size_t errlen)
{
	if (len == 0)
		return text_err(err, errlen, -EINVAL, "target \"%s\": empty host name", word);
	if (len > PING_OPTS_HOST_MAX)
		return text_err(err, errlen, -EINVAL,
				"target \"%.40s...\": host name longer than %d", word,
				PING_OPTS_HOST_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)host[i];
		if (isalnum(c) || c == '.' || c == '-' || c == '_' ||
		    (ipv6 && (c == ':' || c == '%')))
			continue;
		return text_err(err, errlen, -EINVAL,
				"target \"%s\": '%c' is not allowed in a host name", word,
				isprint(c) ? c : '?');
	}
	return 0;
}

static int ping_opts_target_port(const char *word, const char *s, uint16_t *port, char *err,
				 size_t errlen)
{
	unsigned long long v;
	char opt[PING_OPTS_HOST_MAX + 16];

	snprintf(opt, sizeof(opt), "target \"%s\": port", word);
	if (ping_opts_number(opt, s, 0, 0, 1, 65535, &v, err, errlen) < 0)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

static int ping_opts_target_lid(const char *s, struct ping_target *t, char *err, size_t errlen)
{
	unsigned long long v;

	if (ping_opts_number("LID target", s, 1, 0, 0, ULLONG_MAX, &v, err, errlen) < 0)
		return -EINVAL;
	if (v < 1 || v > PING_PROTO_LID_MAX)
		return text_err(err, errlen, -EINVAL, "LID target %s: not a unicast LID (1..49151)",
				s);
	t->lid = (uint16_t)v;
	return 0;
}

int ping_opts_parse_target(const char *s, uint16_t default_port, struct ping_target *t, char *err,
			   size_t errlen)
{
	const char *host = s, *colon = strchr(s, ':'), *port = NULL;
	size_t len = strlen(s);
	int ipv6 = 0;

	memset(t, 0, sizeof(*t));
	t->port = default_port;
	if (!*s)
		return text_err(err, errlen, -EINVAL, "empty target");
	if (ping_opts_all_digits(s))
		return ping_opts_target_lid(s, t, err, errlen);
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end || (end[1] && end[1] != ':'))
			return text_err(err, errlen, -EINVAL,
					"target \"%s\": expected [IPV6] or [IPV6]:PORT", s);
		host = s + 1;
		len = (size_t)(end - host);
		port = end[1] ? end + 2 : NULL;
		ipv6 = 1;
	} else if (colon && strchr(colon + 1, ':')) {
		ipv6 = 1; /* a bare IPv6 address: no port */
	} else if (colon) {
		len = (size_t)(colon - s);
		port = colon + 1;
	}
	if (ping_opts_host_chars(host, len, ipv6, s, err, errlen) < 0)
		return -EINVAL;
	if (port && ping_opts_target_port(s, port, &t->port, err, errlen) < 0)
		return -EINVAL;
	memcpy(t->host, host, len);
	t->host[len] = '\0';
	return 0;
}

static int ping_opts_same_host(const struct ping_target *a, const struct ping_target *b)
{
	return a->port == b->port && strcasecmp(a->host, b->host) == 0;
}

const char *ping_opts_target_name(const struct ping_target *t, uint16_t default_port, char *buf,
				  size_t cap)
{
	int ipv6 = strchr(t->host, ':') != NULL;

	if (!t->host[0])
		snprintf(buf, cap, "lid %u", t->lid);
	else if (t->port == default_port)
		snprintf(buf, cap, "%s", t->host);
	else
		snprintf(buf, cap, ipv6 ? "[%s]:%u" : "%s:%u", t->host, t->port);
	return buf;
}

size_t ping_opts_lid_targets(const struct ping_opts *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->n_targets; i++)
		n += o->targets[i].lid != 0;
	return n;
}

/* ---- Command line ------------------------------------------------------- */

static void ping_opts_defaults(struct ping_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tcp_port = PING_PROTO_TCP_PORT;
	o->mode = PING_MODE_UD;
	o->iters = PING_OPTS_ITERS;
	o->ping_size = PING_OPTS_PING_SIZE;
	o->bw_count = PING_OPTS_BW_COUNT;
	o->timeout_ms = PING_OPTS_TIMEOUT_MS;
}

static int ping_opts_uint(const char *opt, const char *val, int suffix_ok, unsigned long long min,
			  unsigned long long max, unsigned long long *out, char *err, size_t errlen)
{
	return ping_opts_number(opt, val, 0, suffix_ok, min, max, out, err, errlen);
}

/* The local port as mad/port_args sees it. */
static void ping_opts_port_args(const struct ping_opts *o, struct port_args *pa)
{
	snprintf(pa->ca, sizeof(pa->ca), "%s", o->dev);
	pa->port = o->ib_port;
	pa->guid = o->port_guid;
}

/* -d CA, -p N, -g GUID: the local port, parsed as for nanosm (mad/port_args).
 * A TCP-sized -p is the old meaning of -p, so say where that went. */
static int ping_opts_local_port(struct ping_opts *o, char letter, const char *opt, const char *val,
				char *err, size_t errlen)
{
	struct port_args pa;
	unsigned long long v;
	char msg[256];

	ping_opts_port_args(o, &pa);
	if (port_args_set(&pa, letter, opt, val, msg, sizeof(msg)) == 0) {
		snprintf(o->dev, sizeof(o->dev), "%s", pa.ca);
		o->ib_port = pa.port;
		o->port_guid = pa.guid;
		return 0;
	}
	if (letter == 'p' && ping_opts_uint(opt, val, 0, 255, 65535, &v, NULL, 0) == 0)
		return text_err(err, errlen, -EINVAL,
				"%s: %s is not an InfiniBand port (1..254): -p/--port is the "
				"IB port, as in nanosm; the side channel's TCP port is "
				"--tcp-port",
				opt, val);
	return text_err(err, errlen, -EINVAL, "%s", msg);
}

static int ping_opts_apply(struct ping_opts *o, enum ping_opts_id id, const char *opt,
			   const char *val, char *err, size_t errlen)
{
	unsigned long long v = 0;
	int rc = 0;

	switch (id) {
	case PING_OPT_SERVER:
		o->server = 1;
		break;
	case PING_OPT_TCP_PORT:
		rc = ping_opts_uint(opt, val, 0, 1, 65535, &v, err, errlen);
		o->tcp_port = (uint16_t)v;
		break;
	case PING_OPT_DEV:
		rc = ping_opts_local_port(o, 'd', opt, val, err, errlen);
		break;
	case PING_OPT_IBPORT:
		rc = ping_opts_local_port(o, 'p', opt, val, err, errlen);
		break;
	case PING_OPT_GUID:
		rc = ping_opts_local_port(o, 'g', opt, val, err, errlen);
		break;
	case PING_OPT_RC:
		o->mode = PING_MODE_RC;
		break;
	case PING_OPT_UD:
		o->mode = PING_MODE_UD;
		break;
	case PING_OPT_ITERS:
		rc = ping_opts_uint(opt, val, 0, 1, PING_OPTS_ITERS_MAX, &v, err, errlen);
		o->iters = (unsigned)v;
		break;
	case PING_OPT_PING_SIZE:
		rc = ping_opts_uint(opt, val, 1, PING_PROTO_SIZE_MIN, PING_PROTO_SIZE_MAX, &v, err,
				    errlen);
		o->ping_size = (uint32_t)v;
		break;
	case PING_OPT_BW:
		o->bw = 1;
		break;
	case PING_OPT_SIZE:
		rc = ping_opts_uint(opt, val, 1, PING_PROTO_SIZE_MIN, PING_PROTO_SIZE_MAX, &v, err,
				    errlen);
		o->bw_size = (uint32_t)v;
		break;
	case PING_OPT_BW_COUNT:
		rc = ping_opts_uint(opt, val, 0, 1, PING_OPTS_BW_COUNT_MAX, &v, err, errlen);
		o->bw_count = (unsigned)v;
		break;
	case PING_OPT_TIMEOUT:
		rc = ping_opts_timeout(opt, val, &o->timeout_ms, err, errlen);
		break;
	case PING_OPT_ALL:
		o->all_file = val;
		break;
	case PING_OPT_HOSTS:
		o->hosts_file = val;
		break;
	case PING_OPT_VERBOSE:
		o->verbose++;
		break;
	case PING_OPT_HELP:
		o->help = 1;
		break;
	case PING_OPT_VERSION:
		o->version = 1;
		break;
	case PING_OPT_COUNT:
		break;
	}
	return rc;
}

static const struct ping_opts_def *ping_opts_find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < PING_OPTS_NDEFS; i++)
		if (strlen(ping_opts_table[i].name) == len &&
		    strncmp(ping_opts_table[i].name, name, len) == 0)
			return &ping_opts_table[i];
	return NULL;
}

static const struct ping_opts_def *ping_opts_find_short(char letter)
{
	for (size_t i = 0; i < PING_OPTS_NDEFS; i++)
		if (ping_opts_table[i].letter && ping_opts_table[i].letter == letter)
			return &ping_opts_table[i];
	return NULL;
}

/* An unknown "--name": the names nanosm-ping had before its port options
 * took nanosm's letters say what replaced them. */
static int ping_opts_unknown_long(const char *word, size_t len, char *err, size_t errlen)
{
	static const char *const renamed[][2] = {{"--ib-dev", "-d/--ca"},
						 {"--ib-port", "-p/--port"}};

	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (strlen(renamed[i][0]) == len && !strncmp(word, renamed[i][0], len))
			return text_err(err, errlen, -EINVAL, "%s is now %s, as in nanosm",
					renamed[i][0], renamed[i][1]);
	return text_err(err, errlen, -EINVAL, "unknown option \"%.*s\" (try --help)",
			(int)(len < 40 ? len : 40), word);
}

/* "-vv": a bundle of short options that take no value. */
static int ping_opts_flags(struct ping_opts *o, struct ping_opts_scan *sc, const char *word,
			   char *err, size_t errlen)
{
	for (const char *c = word + 1; *c; c++) {
		const struct ping_opts_def *def = ping_opts_find_short(*c);
		char opt[4] = {'-', *c, 0, 0};
		if (!def)
			return text_err(err, errlen, -EINVAL,
					"unknown option \"-%c\" in \"%s\" (try --help)", *c, word);
		if (def->has_arg)
			return text_err(err, errlen, -EINVAL,
					"-%c needs a value: give it on its own, not in \"%s\"", *c,
					word);
		sc->seen[def->id]++;
		if (ping_opts_apply(o, def->id, opt, NULL, err, errlen) < 0)
			return -EINVAL;
	}
	return 0;
}

/* One option word at argv[*i] (and maybe its value in the next word). */
static int ping_opts_one(struct ping_opts *o, struct ping_opts_scan *sc, int argc,
			 char *const argv[], int *i, char *err, size_t errlen)
{
	const char *word = argv[*i], *val = NULL, *eq = NULL;
	const struct ping_opts_def *def;
	char opt[48];

	if (word[1] == '-') {
		eq = strchr(word + 2, '=');
		def =
		    ping_opts_find_long(word + 2, eq ? (size_t)(eq - word - 2) : strlen(word + 2));
		if (!def)
			return ping_opts_unknown_long(word, eq ? (size_t)(eq - word) : strlen(word),
						      err, errlen);
		snprintf(opt, sizeof(opt), "--%s", def->name);
		if (eq && !def->has_arg)
			return text_err(err, errlen, -EINVAL, "%s takes no value", opt);
		val = eq ? eq + 1 : NULL;
	} else {
		def = ping_opts_find_short(word[1]);
		if (!def && word[1] == 'i')
			return text_err(err, errlen, -EINVAL,
					"-i is gone: the IB port is -p/--port, as in "
					"nanosm (the TCP port is --tcp-port)");
		if (!def)
			return text_err(err, errlen, -EINVAL, "unknown option \"-%c\" (try --help)",
					word[1]);
		snprintf(opt, sizeof(opt), "-%c", def->letter);
		if (word[2] && !def->has_arg)
			return ping_opts_flags(o, sc, word, err, errlen);
		val = word[2] ? word + 2 : NULL;
	}
	if (def->has_arg && !val) {
		if (*i + 1 >= argc)
			return text_err(err, errlen, -EINVAL, "%s needs a value", opt);
		val = argv[++*i];
	}
	sc->seen[def->id]++;
	return ping_opts_apply(o, def->id, opt, val, err, errlen);
}

static int ping_opts_check_server(const struct ping_opts_scan *sc, char *err, size_t errlen)
{
	for (size_t i = 0; i < PING_OPTS_NDEFS; i++) {
		const struct ping_opts_def *d = &ping_opts_table[i];
		if (d->client_only && sc->seen[d->id])
			return text_err(err, errlen, -EINVAL,
					"--%s is a client option (the client chooses the test)",
					d->name);
	}
	if (sc->n_words)
		return text_err(err, errlen, -EINVAL, "--server takes no targets (\"%s\")",
				sc->words[0]);
	return 0;
}

static int ping_opts_check_client(const struct ping_opts *o, char *err, size_t errlen)
{
	size_t lids = ping_opts_lid_targets(o);

	if (o->all_file && o->hosts_file)
		return text_err(
		    err, errlen, -EINVAL,
		    "--all FILE already lists the hosts: give --all or --hosts, not both");
	if (!o->n_targets && !o->all_file)
		return text_err(err, errlen, -EINVAL,
				"no target: give HOST, LID or --all HOSTS_FILE (or --server)");
	if (lids && !o->all_file && !o->hosts_file) {
		for (size_t i = 0; i < o->n_targets; i++)
			if (o->targets[i].lid)
				return text_err(
				    err, errlen, -EINVAL,
				    "LID target %u needs --hosts FILE: the side channel is TCP, "
				    "and a LID alone gives no address",
				    o->targets[i].lid);
	}
	if (o->bw_size && !o->bw)
		return text_err(err, errlen, -EINVAL,
				"--size sets the bandwidth message size: add --bw");
	if (o->mode == PING_MODE_UD && o->ping_size > 4096)
		return text_err(
		    err, errlen, -EINVAL,
		    "--ping-size %u: a UD message must fit in one packet (at most the MTU, 4096)",
		    o->ping_size);
	if (o->mode == PING_MODE_UD && o->bw_size > 4096)
		return text_err(err, errlen, -EINVAL,
				"--size %u: a UD message must fit in one packet (at most the "
				"MTU, 4096); use --rc for larger",
				o->bw_size);
	return 0;
}

static int ping_opts_targets(struct ping_opts *o, const struct ping_opts_scan *sc, char *err,
			     size_t errlen)
{
	if (!sc->n_words)
		return 0;
	o->targets = calloc(sc->n_words, sizeof(*o->targets));
	if (!o->targets)
		return -ENOMEM;
	for (size_t i = 0; i < sc->n_words; i++)
		if (ping_opts_parse_target(sc->words[i], o->tcp_port, &o->targets[i], err, errlen) <
		    0)
			return -EINVAL;
	o->n_targets = sc->n_words;
	return 0;
}

static int ping_opts_scan_argv(struct ping_opts *o, struct ping_opts_scan *sc, int argc,
			       char *const argv[], char *err, size_t errlen)
{
	int only_words = 0;

	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (!only_words && strcmp(w, "--") == 0) {
			only_words = 1;
		} else if (!only_words && w[0] == '-' && w[1]) {
			if (ping_opts_one(o, sc, argc, argv, &i, err, errlen) < 0)
				return -EINVAL;
		} else {
			sc->words[sc->n_words++] = w;
		}
	}
	return 0;
}

/* -g excludes -d/-p. */
static int ping_opts_check_port(const struct ping_opts *o, char *err, size_t errlen)
{
	struct port_args pa;
	char msg[256];

	ping_opts_port_args(o, &pa);
	if (port_args_check(&pa, msg, sizeof(msg)) < 0)
		return text_err(err, errlen, -EINVAL, "%s", msg);
	return 0;
}

int ping_opts_parse(struct ping_opts *o, int argc, char *const argv[], char *err, size_t errlen)
{
	struct ping_opts_scan sc;
	int rc;

	ping_opts_defaults(o);
	memset(&sc, 0, sizeof(sc));
	sc.words = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*sc.words));
	if (!sc.words)
		return -ENOMEM;
	rc = ping_opts_scan_argv(o, &sc, argc, argv, err, errlen);
	if (rc == 0)
		rc = ping_opts_check_port(o, err, errlen);
	if (rc == 0 && !o->help && !o->version)
		rc = o->server ? ping_opts_check_server(&sc, err, errlen)
			       : ping_opts_targets(o, &sc, err, errlen);
	if (rc == 0 && !o->help && !o->version && !o->server)
		rc = ping_opts_check_client(o, err, errlen);
	free(sc.words);
	if (rc < 0)
		ping_opts_fini(o);
	return rc;
}

void ping_opts_fini(struct ping_opts *o)
{
	free(o->targets);
	o->targets = NULL;
	o->n_targets = 0;
}

/* ---- Hosts file ---------------------------------------------------------- */

/* Trim a line in place: drop the comment and surrounding blanks. */
static char *ping_opts_trim(char *line)
{
	char *hash = strchr(line, '#'), *end;

	if (hash)
		*hash = '\0';
	while (*line == ' ' || *line == '\t' || *line == '\r')
		line++;
	end = line + strlen(line);
	while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return line;
}

static int ping_opts_hosts_line(char *word, const char *name, int lineno, uint16_t default_port,
				struct ping_target *list, size_t n, char *err, size_t errlen)
{
	char inner[256];

	if (word[strcspn(word, " \t")])
		return text_err(err, errlen, -EINVAL, "%s:%d: one host per line, found \"%.60s\"",
				name, lineno, word);
	if (ping_opts_parse_target(word, default_port, &list[n], inner, sizeof(inner)) < 0)
		return text_err(err, errlen, -EINVAL, "%s:%d: %.200s", name, lineno, inner);
	if (list[n].lid)
		return text_err(err, errlen, -EINVAL,
				"%s:%d: %s is a LID; a hosts file lists hosts (HOST[:PORT])", name,
				lineno, word);
	for (size_t i = 0; i < n; i++)
		if (ping_opts_same_host(&list[i], &list[n]))
			return text_err(err, errlen, -EINVAL, "%s:%d: %s is listed twice", name,
					lineno, word);
	return 0;
}

int ping_opts_parse_hosts(const char *text, size_t len, const char *name, uint16_t default_port,
			  struct ping_target **out, size_t *n, char *err, size_t errlen)
{
	char line[PING_OPTS_HOST_MAX + 64];
	struct ping_target *list;
	size_t pos = 0, count = 0, lines = 1;
	int lineno = 0, rc = 0;

	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	list = calloc(lines, sizeof(*list));
	if (!list)
		return -ENOMEM;
	while (pos < len && rc == 0) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - text - pos) : len - pos;
		char *word;

		lineno++;
		if (l >= sizeof(line) || memchr(text + pos, '\0', l)) {
			rc = text_err(err, errlen, -EINVAL, "%s:%d: line too long or not text",
				      name, lineno);
			break;
		}
		memcpy(line, text + pos, l);
		line[l] = '\0';
		pos += l + 1;
		word = ping_opts_trim(line);
		if (*word && (rc = ping_opts_hosts_line(word, name, lineno, default_port, list,
							count, err, errlen)) == 0)
			count++;
	}
	if (rc == 0 && count == 0)
		rc = text_err(err, errlen, -EINVAL, "%s: no hosts in the file", name);
	if (rc < 0) {
		free(list);
		return rc;
	}
	*out = list;
	*n = count;
	return 0;
}

/* ---- Plan ----------------------------------------------------------------- */

static int ping_opts_plan_has(const struct ping_plan_item *items, size_t n,
			      const struct ping_target *t)
{
	for (size_t i = 0; i < n; i++)
		if (ping_opts_same_host(&items[i].target, t))
			return 1;
	return 0;
}

static void ping_opts_plan_add(struct ping_plan_item *items, size_t *n, const struct ping_target *t,
			       int resolve_only)
{
	if (ping_opts_plan_has(items, *n, t))
		return;
	items[*n].target = *t;
	items[*n].resolve_only = resolve_only;
	(*n)++;
}

int ping_opts_plan(const struct ping_opts *o, const struct ping_target *file, size_t n_file,
		   struct ping_plan_item **items, size_t *n)
{
	struct ping_plan_item *list = calloc(o->n_targets + n_file + 1, sizeof(*list));
	size_t count = 0;

	if (!list)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_targets; i++)
		if (!o->targets[i].lid)
			ping_opts_plan_add(list, &count, &o->targets[i], 0);
	if (o->all_file)
		for (size_t i = 0; i < n_file; i++)
			ping_opts_plan_add(list, &count, &file[i], 0);
	if (ping_opts_lid_targets(o))
		for (size_t i = 0; i < n_file; i++)
			ping_opts_plan_add(list, &count, &file[i], 1);
	*items = list;
	*n = count;
	return 0;
}
