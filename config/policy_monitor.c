/*
 * config/policy_monitor.c - the policy's monitor section: the performance
 * manager's switch and interval, the HTTP /metrics address, the link
 * health thresholds.  Its schema, canonical print, diff and defaults live
 * here so policy_build.c only names the section.  Pure: no I/O.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"
#include "config/policy_doc.h"
#include "mad/text.h"

#define POLICY_MONITOR_SWEEP_MAX 86400u
#define POLICY_MONITOR_COUNT_MAX 1000000000u
#define POLICY_MONITOR_RECOVER_MAX 100u

struct policy_monitor_ctx {
	const char *name;
	char *err;
	size_t errlen;
};

static int policy_monitor_fail(struct policy_monitor_ctx *c, const struct policy_doc *at,
			       const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int policy_monitor_say(struct policy_monitor_ctx *c, const struct policy_doc *at,
			      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* policy_doc_vfail with this file's name and buffer. */
static int policy_monitor_say(struct policy_monitor_ctx *c, const struct policy_doc *at,
			      const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = policy_doc_vfail(c->name, at, c->err, c->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* "name:line:col: monitor.<fmt>" into err, one line; returns -EINVAL. */
static int policy_monitor_fail(struct policy_monitor_ctx *c, const struct policy_doc *at,
			       const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return policy_monitor_say(c, at, "monitor.%s", what);
}

void policy_monitor_init(struct policy_monitor *m)
{
	memset(m, 0, sizeof(*m));
	m->enabled = 1;
	m->interval = POLICY_MONITOR_INTERVAL_DEFAULT;
	m->degrading = 10;
	m->failing = 1000;
	m->flapping = 1;
	m->recover = 2;
}

int policy_monitor_equal(const struct policy_monitor *a, const struct policy_monitor *b)
{
	return a->enabled == b->enabled && a->interval == b->interval &&
	       !strcmp(a->listen, b->listen) && a->degrading == b->degrading &&
	       a->failing == b->failing && a->flapping == b->flapping && a->recover == b->recover;
}

int policy_listen_parse(const char *text, uint32_t *addr, uint16_t *port)
{
	const char *colon = strrchr(text, ':');
	char host[32];
	struct in_addr in;
	unsigned long v;
	char *end;

	if (!colon || colon == text || (size_t)(colon - text) >= sizeof(host) || !colon[1])
		return -EINVAL;
	memcpy(host, text, (size_t)(colon - text));
	host[colon - text] = '\0';
	if (inet_pton(AF_INET, host, &in) != 1)
		return -EINVAL;
	if (colon[1] < '1' || colon[1] > '9')
		return -EINVAL;
	v = strtoul(colon + 1, &end, 10);
	if (*end || v > 65535)
		return -EINVAL;
	*addr = in.s_addr;
	*port = (uint16_t)v;
	return 0;
}

/* ---- the schema ---- */

static int policy_monitor_scalar(struct policy_monitor_ctx *c, const char *key,
				 const struct policy_doc *d)
{
	if (d->kind != POLICY_DOC_SCALAR)
		return policy_monitor_fail(c, d, "%s: expected a single value, got a %s", key,
					   d->kind == POLICY_DOC_LIST ? "list" : "mapping");
	if (strlen(d->text) != d->len)
		return policy_monitor_fail(c, d, "%s: a value with a NUL", key);
	return 0;
}

static int policy_monitor_uint(struct policy_monitor_ctx *c, const char *key,
			       const struct policy_doc *d, unsigned min, unsigned max,
			       unsigned *out)
{
	int rc = policy_monitor_scalar(c, key, d);
	unsigned long long v;
	char *end;

	if (rc < 0)
		return rc;
	if (!d->plain || d->text[0] < '0' || d->text[0] > '9' || (d->text[0] == '0' && d->text[1]))
		return policy_monitor_fail(c, d, "%s: expected a whole number, got '%s'", key,
					   d->text);
	errno = 0;
	v = strtoull(d->text, &end, 10);
	if (*end || errno || v < min || v > max)
		return policy_monitor_fail(c, d, "%s: '%s' is out of range (%u..%u)", key, d->text,
					   min, max);
	*out = (unsigned)v;
	return 0;
}

static int policy_monitor_bool(struct policy_monitor_ctx *c, const char *key,
			       const struct policy_doc *d, int *out)
{
	int rc = policy_monitor_scalar(c, key, d);

	if (rc < 0)
		return rc;
	if (d->plain && (!strcmp(d->text, "true") || !strcmp(d->text, "false"))) {
		*out = !strcmp(d->text, "true");
		return 0;
	}
	return policy_monitor_fail(c, d, "%s: expected true or false, got '%s'", key, d->text);
}

static int policy_monitor_listen(struct policy_monitor_ctx *c, const struct policy_doc *d,
				 struct policy_monitor *m)
{
	int rc = policy_monitor_scalar(c, "listen", d);
	uint32_t addr;
	uint16_t port;

	if (rc < 0)
		return rc;
	if (d->len >= sizeof(m->listen) || policy_listen_parse(d->text, &addr, &port) < 0)
		return policy_monitor_fail(c, d,
					   "listen: expected IPv4-address:port "
					   "(127.0.0.1:9683), got '%s'",
					   d->text);
	snprintf(m->listen, sizeof(m->listen), "%s", d->text);
	return 0;
}

/* The key nodes seen so far: a key given twice is an error. */
static int policy_monitor_once(struct policy_monitor_ctx *c, const struct policy_doc *key,
			       const struct policy_doc **seen, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(seen[i]->text, key->text))
			return policy_monitor_fail(c, key, "%s: duplicate key (first at %u:%u)",
						   key->text, seen[i]->line, seen[i]->col);
	seen[(*n)++] = key;
	return 0;
}

static int policy_monitor_key_ok(struct policy_monitor_ctx *c, const struct policy_doc *key)
{
	if (key->kind != POLICY_DOC_SCALAR || strlen(key->text) != key->len)
		return policy_monitor_fail(c, key, "a key must be a name");
	return 0;
}

static int policy_monitor_thresholds(struct policy_monitor_ctx *c, const struct policy_doc *map,
				     struct policy_monitor *m)
{
	static const char *const keys[] = {"degrading", "failing", "flapping", "recover"};
	unsigned *field[] = {&m->degrading, &m->failing, &m->flapping, &m->recover};
	const struct policy_doc *seen[8];
	size_t n_seen = 0;

	if (map->kind == POLICY_DOC_SCALAR && map->plain && !map->text[0])
		return 0;
	if (map->kind != POLICY_DOC_MAP)
		return policy_monitor_fail(c, map,
					   "thresholds: expected a mapping (degrading, failing, "
					   "flapping, recover)");
	for (size_t i = 0; i + 1 < map->n; i += 2) {
		const struct policy_doc *key = map->kids[i];
		size_t k = 0;
		int rc = policy_monitor_key_ok(c, key);

		while (rc == 0 && k < 4 && strcmp(keys[k], key->text))
			k++;
		if (rc == 0 && k == 4)
			return policy_monitor_fail(c, key,
						   "thresholds: unknown key '%s' (degrading, "
						   "failing, flapping, recover)",
						   key->text);
		if (rc == 0 && n_seen < 8)
			rc = policy_monitor_once(c, key, seen, &n_seen);
		if (rc == 0)
			rc = policy_monitor_uint(c, key->text, map->kids[i + 1], k == 3 ? 1 : 0,
						 k == 3 ? POLICY_MONITOR_RECOVER_MAX
							: POLICY_MONITOR_COUNT_MAX,
						 field[k]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int policy_monitor_one(struct policy_monitor_ctx *c, const struct policy_doc *key,
			      const struct policy_doc *val, struct policy_monitor *m)
{
	if (!strcmp(key->text, "enabled"))
		return policy_monitor_bool(c, "enabled", val, &m->enabled);
	if (!strcmp(key->text, "interval"))
		return policy_monitor_uint(c, "interval", val, 1, POLICY_MONITOR_SWEEP_MAX,
					   &m->interval);
	if (!strcmp(key->text, "listen"))
		return policy_monitor_listen(c, val, m);
	if (!strcmp(key->text, "thresholds"))
		return policy_monitor_thresholds(c, val, m);
	return policy_monitor_fail(
	    c, key, "%s: unknown key (enabled, interval, listen, thresholds)", key->text);
}

int policy_monitor_build(const struct policy_doc *val, const char *name, struct policy_monitor *out,
			 char *err, size_t errlen)
{
	struct policy_monitor_ctx c = {name, err, errlen};
	const struct policy_doc *seen[8];
	size_t n_seen = 0;

	if (!val || (val->kind == POLICY_DOC_SCALAR && val->plain && !val->text[0]))
		return 0;
	if (val->kind != POLICY_DOC_MAP)
		return policy_monitor_say(&c, val,
					  "monitor: expected a mapping (enabled, interval, listen, "
					  "thresholds)");
	for (size_t i = 0; i + 1 < val->n; i += 2) {
		int rc = policy_monitor_key_ok(&c, val->kids[i]);

		if (rc == 0 && n_seen < 8)
			rc = policy_monitor_once(&c, val->kids[i], seen, &n_seen);
		if (rc == 0)
			rc = policy_monitor_one(&c, val->kids[i], val->kids[i + 1], out);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- print and diff ---- */

void policy_monitor_print(struct text_sink *o, const struct policy_monitor *m)
{
	struct policy_monitor def;

	policy_monitor_init(&def);
	if (policy_monitor_equal(m, &def))
		return;
	text_sinkf(o, "monitor:\n  enabled: %s\n  interval: %u\n", m->enabled ? "true" : "false",
		   m->interval);
	if (m->listen[0])
		text_sinkf(o, "  listen: \"%s\"\n", m->listen);
	text_sinkf(o,
		   "  thresholds:\n    degrading: %u\n    failing: %u\n    flapping: %u\n"
		   "    recover: %u\n",
		   m->degrading, m->failing, m->flapping, m->recover);
}

static void policy_monitor_diff_uint(struct text_sink *o, const char *what, unsigned a, unsigned b)
{
	if (a != b)
		text_sinkf(o, "monitor.%s: %u -> %u\n", what, a, b);
}

void policy_monitor_diff(struct text_sink *o, const struct policy_monitor *a,
			 const struct policy_monitor *b)
{
	if (a->enabled != b->enabled)
		text_sinkf(o, "monitor.enabled: %s -> %s\n", a->enabled ? "true" : "false",
			   b->enabled ? "true" : "false");
	policy_monitor_diff_uint(o, "interval", a->interval, b->interval);
	if (strcmp(a->listen, b->listen))
		text_sinkf(o, "monitor.listen: \"%s\" -> \"%s\"\n", a->listen, b->listen);
	policy_monitor_diff_uint(o, "thresholds.degrading", a->degrading, b->degrading);
	policy_monitor_diff_uint(o, "thresholds.failing", a->failing, b->failing);
	policy_monitor_diff_uint(o, "thresholds.flapping", a->flapping, b->flapping);
	policy_monitor_diff_uint(o, "thresholds.recover", a->recover, b->recover);
}
