/*
 * policy_build.c - the policy's schema: walks a struct policy_doc tree into
 * a struct policy and checks every key, type, range and duplicate on the
 * way, naming file:line:column and a hint.  Stops at the first error.
 * Pure: sees neither libyaml nor files.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"
#include "config/policy_build_priv.h"
#include "config/policy_doc.h"

#define POLICY_BUILD_MAX_KEYS 16       /* keys in one schema table */
#define POLICY_BUILD_TOP "the file"    /* where top-level keys stand */
#define POLICY_BUILD_MEMBER "a member" /* an unknown key there lists the keys */

/* ---- errors ---- */

static int policy_build_fail(struct policy_build *b, const struct policy_doc *at, const char *fmt,
			     ...) __attribute__((format(printf, 3, 4)));

int policy_doc_vfail(const char *name, const struct policy_doc *at, char *err, size_t errlen,
		     const char *fmt, va_list ap)
{
	int n;

	if (!err || !errlen)
		return -EINVAL;
	n = snprintf(err, errlen, "%s:%u:%u: ", name, at->line, at->col);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	for (char *c = err; *c; c++) /* one line, whatever text it quotes */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -EINVAL;
}

/* "name:line:col: <fmt>" into err; returns -EINVAL. */
static int policy_build_fail(struct policy_build *b, const struct policy_doc *at, const char *fmt,
			     ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = policy_doc_vfail(b->name, at, b->err, b->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* What a node is, for "expected X, got Y": a list, a mapping, or the
 * scalar itself in quotes (cut at 40 bytes). */
static const char *policy_build_got(const struct policy_doc *d, char *buf, size_t len)
{
	if (d->kind == POLICY_DOC_LIST)
		return "a list";
	if (d->kind == POLICY_DOC_MAP)
		return "a mapping";
	snprintf(buf, len, "%s%.40s%s%s", d->plain ? "'" : "\"", d->text, d->len > 40 ? "..." : "",
		 d->plain ? "'" : "\"");
	return buf;
}

/* Levenshtein distance (no transpositions), ignoring ASCII case, of two
 * short words (over 63 bytes: "far"). */
static size_t policy_build_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];

	if (la > 63 || lb > 63)
		return 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost =
			    tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* The candidate a mistyped word most likely meant, or NULL: the nearest one
 * within 1 edit (short words) or 2, else the only one containing the word
 * (or contained in it), at least 4 bytes long. */
static const char *policy_build_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL, *sub = NULL;
	size_t best_d = strlen(word) <= 4 ? 2 : 3, subs = 0;

	for (size_t i = 0; i < n; i++) {
		size_t d = policy_build_distance(word, cands[i]);

		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
		if (strlen(word) >= 4 && (strstr(cands[i], word) || strstr(word, cands[i]))) {
			sub = cands[i];
			subs++;
		}
	}
	return best ? best : subs == 1 ? sub : NULL;
}

/* " (did you mean 'x'?)" or "" */
static const char *policy_build_hint(char *buf, size_t len, const char *word,
				     const char *const *cands, size_t n)
{
	const char *s = policy_build_suggest(word, cands, n);

	if (!s)
		return "";
	snprintf(buf, len, " (did you mean '%s'?)", s);
	return buf;
}

/* "a, b or c" */
static const char *policy_build_alternatives(char *buf, size_t len, const char *const *names,
					     size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
		int w = snprintf(buf + off, len - off, "%s%s", sep, names[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

/* ---- scalars ---- */

static int policy_build_is_null(const struct policy_doc *d)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};

	if (d->kind != POLICY_DOC_SCALAR || !d->plain)
		return 0;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (!strcmp(d->text, nulls[i]))
			return 1;
	return 0;
}

/* A scalar that is not null, or an error naming what. */
static int policy_build_scalar(struct policy_build *b, const char *what, const struct policy_doc *d)
{
	char got[64];

	if (d->kind != POLICY_DOC_SCALAR)
		return policy_build_fail(b, d, "%s: expected a single value, got %s", what,
					 policy_build_got(d, got, sizeof(got)));
	if (policy_build_is_null(d))
		return policy_build_fail(b, d, "%s: missing value", what);
	if (strlen(d->text) != d->len)
		return policy_build_fail(b, d, "%s: NUL character not allowed", what);
	return 0;
}

enum policy_number { POLICY_NUM_OK, POLICY_NUM_BAD, POLICY_NUM_OCTAL, POLICY_NUM_RANGE };

static int policy_build_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decimal without a leading zero, or 0x and 1..16 hex digits; a minus sign
 * or too many digits make a valid number out of any range. */
static enum policy_number policy_build_number(const char *s, unsigned long long *out)
{
	int neg = *s == '-', hex, digits = 0, d;
	unsigned long long v = 0, big = 0;

	s += neg;
	hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	s += hex ? 2 : 0;
	for (; (d = policy_build_hexval(*s)) >= 0 && (hex || d < 10); s++, digits++) {
		unsigned long long next = v * (hex ? 16 : 10) + (unsigned long long)d;

		big |= next / (hex ? 16 : 10) != v;
		v = next;
	}
	if (*s || digits == 0)
		return POLICY_NUM_BAD;
	if (!hex && digits > 1 && s[-digits] == '0')
		return POLICY_NUM_OCTAL;
	*out = v;
	return neg || big ? POLICY_NUM_RANGE : POLICY_NUM_OK;
}

static const char *policy_build_range(char *buf, size_t len, const struct policy_key *k, int hex)
{
	if (hex)
		snprintf(buf, len, "0x%04llx..0x%04llx", k->min, k->max);
	else
		snprintf(buf, len, "%llu..%llu", k->min, k->max);
	return buf;
}

/* A plain whole number in k's range (hex: ranges shown in hex). */
static int policy_build_uint(struct policy_build *b, const struct policy_key *k,
			     const struct policy_doc *d, int hex, unsigned long long *out)
{
	char range[48];
	int rc = policy_build_scalar(b, k->key, d);

	if (rc < 0)
		return rc;
	if (!d->plain)
		return policy_build_fail(b, d,
					 "%s: expected a number, got the string \"%s\" "
					 "(remove the quotes)",
					 k->key, d->text);
	switch (policy_build_number(d->text, out)) {
	case POLICY_NUM_BAD:
		return policy_build_fail(b, d, "%s: expected a whole number, got '%s'", k->key,
					 d->text);
	case POLICY_NUM_OCTAL:
		return policy_build_fail(b, d,
					 "%s: '%s' has a leading zero (octal in YAML 1.1): "
					 "write it without, or as 0x...",
					 k->key, d->text);
	case POLICY_NUM_RANGE:
		return policy_build_fail(b, d, "%s: %s is out of range (%s)", k->key, d->text,
					 policy_build_range(range, sizeof(range), k, hex));
	default:
		break;
	}
	if (*out < k->min || *out > k->max)
		return policy_build_fail(b, d, "%s: %s is out of range (%s)", k->key, d->text,
					 policy_build_range(range, sizeof(range), k, hex));
	return 0;
}

/* A GUID: 0x and 1..16 hex digits, not 0; quoted or not. */
static int policy_build_guid(struct policy_build *b, const char *what, const struct policy_doc *d,
			     uint64_t *out)
{
	const char *s = d->text;
	size_t digits = 0;
	int rc = policy_build_scalar(b, what, d);

	if (rc < 0)
		return rc;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		for (digits = 0; policy_build_hexval(s[2 + digits]) >= 0; digits++)
			;
	if (digits == 0 || digits > 16 || s[2 + digits])
		return policy_build_fail(b, d,
					 "%s: bad GUID '%s' (expected 0x and 1 to 16 hex "
					 "digits, e.g. 0x0002c90300a00010)",
					 what, s);
	*out = strtoull(s, NULL, 16);
	if (*out == 0)
		return policy_build_fail(b, d, "%s: GUID 0 is not valid", what);
	return 0;
}

static int policy_build_bool(struct policy_build *b, const char *what, const struct policy_doc *d,
			     int *out)
{
	static const char *const yes[] = {"true", "True", "TRUE"};
	static const char *const no[] = {"false", "False", "FALSE"};
	char got[64];
	int rc = policy_build_scalar(b, what, d);

	if (rc < 0)
		return rc;
	for (size_t i = 0; d->plain && i < 3; i++) {
		if (!strcmp(d->text, yes[i]) || !strcmp(d->text, no[i])) {
			*out = !strcmp(d->text, yes[i]);
			return 0;
		}
	}
	return policy_build_fail(b, d, "%s: expected true or false, got %s", what,
				 policy_build_got(d, got, sizeof(got)));
}

/* One of names (n of them); *out = its index. */
static int policy_build_enum(struct policy_build *b, const char *what, const struct policy_doc *d,
			     const char *const *names, size_t n, int *out)
{
	char alts[128], hint[96];
	int rc = policy_build_scalar(b, what, d);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(d->text, names[i])) {
			*out = (int)i;
			return 0;
		}
	}
	return policy_build_fail(b, d, "%s: unknown value '%s'%s; expected %s", what, d->text,
				 policy_build_hint(hint, sizeof(hint), d->text, names, n),
				 policy_build_alternatives(alts, sizeof(alts), names, n));
}

enum policy_text { POLICY_TEXT_ANY, POLICY_TEXT_WORD, POLICY_TEXT_PATH };

/* Text up to size - 1 bytes, no control characters (C0, DEL, C1); WORD:
 * letters, digits, '_', '-', '.'; PATH: absolute. */
static int policy_build_text(struct policy_build *b, const char *what, const struct policy_doc *d,
			     enum policy_text kind, char *out, size_t size)
{
	int rc = policy_build_scalar(b, what, d);

	if (rc < 0)
		return rc;
	if (d->len == 0)
		return policy_build_fail(b, d, "%s: must not be empty", what);
	if (d->len >= size)
		return policy_build_fail(b, d, "%s: too long (%zu bytes; at most %zu)", what,
					 d->len, size - 1);
	for (size_t i = 0; i < d->len; i++) {
		unsigned char c = (unsigned char)d->text[i];

		unsigned next = i + 1 < d->len ? (unsigned char)d->text[i + 1] : 0;

		if (c < 0x20 || c == 0x7f)
			return policy_build_fail(b, d, "%s: control character 0x%02x not allowed",
						 what, c);
		if (c == 0xc2 && next >= 0x80 && next <= 0x9f) /* UTF-8 of U+0080..U+009F */
			return policy_build_fail(b, d, "%s: control character U+%04X not allowed",
						 what, next);
		if (kind == POLICY_TEXT_WORD && !(c >= '0' && c <= '9') &&
		    !((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && c != '_' && c != '-' && c != '.')
			return policy_build_fail(b, d,
						 "%s: '%s' may hold only letters, digits, "
						 "'_', '-' and '.'",
						 what, d->text);
	}
	if (kind == POLICY_TEXT_PATH && d->text[0] != '/')
		return policy_build_fail(b, d,
					 "%s: '%s' is not an absolute path (start it with "
					 "'/')",
					 what, d->text);
	memcpy(out, d->text, d->len + 1);
	return 0;
}

/* ---- duplicates: a set of 64-bit keys, each with the node that first had it ---- */

struct policy_seen {
	uint64_t *keys;		      /* 0 = empty slot */
	const struct policy_doc **at; /* first node with the key */
	int by_text;		      /* also compare at->text (key is only a hash) */
	size_t cap, used;
};

static void policy_seen_fini(struct policy_seen *s)
{
	free(s->keys);
	free(s->at);
	memset(s, 0, sizeof(*s));
}

static size_t policy_seen_slot(const struct policy_seen *s, uint64_t key,
			       const struct policy_doc *at)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (s->cap - 1);

	while (s->keys[i] &&
	       (s->keys[i] != key || (s->by_text && strcmp(s->at[i]->text, at->text))))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int policy_seen_grow(struct policy_seen *s)
{
	struct policy_seen big = {.by_text = s->by_text, .cap = s->cap ? s->cap * 2 : 64};

	big.keys = calloc(big.cap, sizeof(*big.keys));
	big.at = calloc(big.cap, sizeof(*big.at));
	if (!big.keys || !big.at) {
		policy_seen_fini(&big);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		if (s->keys[i]) {
			size_t j = policy_seen_slot(&big, s->keys[i], s->at[i]);

			big.keys[j] = s->keys[i];
			big.at[j] = s->at[i];
			big.used++;
		}
	}
	policy_seen_fini(s);
	*s = big;
	return 0;
}

/* Record key (non-zero) first seen at at.  Returns 0 when new, 1 when seen
 * before (*first = where), -ENOMEM. */
static int policy_seen_add(struct policy_seen *s, uint64_t key, const struct policy_doc *at,
			   const struct policy_doc **first)
{
	size_t i;

	if ((s->used + 1) * 2 > s->cap && policy_seen_grow(s) < 0)
		return -ENOMEM;
	i = policy_seen_slot(s, key, at);
	if (s->keys[i]) {
		*first = s->at[i];
		return 1;
	}
	s->keys[i] = key;
	s->at[i] = at;
	s->used++;
	return 0;
}

/* FNV-1a of a string, never 0 (a key for policy_seen with by_text). */
static uint64_t policy_seen_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h | 1;
}

/* ---- containers ---- */

/* A mapping, or null (an empty section).  Returns 1 for a mapping, 0 for
 * null, or an error. */
static int policy_build_is_map(struct policy_build *b, const char *what, const struct policy_doc *d)
{
	char got[64];

	if (d->kind == POLICY_DOC_MAP)
		return 1;
	if (policy_build_is_null(d))
		return 0;
	return policy_build_fail(b, d, "%s: expected a mapping (key: value), got %s", what,
				 policy_build_got(d, got, sizeof(got)));
}

/* A list, or null (an empty list).  Returns 1, 0 or an error. */
static int policy_build_is_list(struct policy_build *b, const char *what,
				const struct policy_doc *d)
{
	char got[64];

	if (d->kind == POLICY_DOC_LIST)
		return 1;
	if (policy_build_is_null(d))
		return 0;
	return policy_build_fail(b, d, "%s: expected a list (- item lines or [a, b]), got %s", what,
				 policy_build_got(d, got, sizeof(got)));
}

/* A hint naming another section's key (defined below the key tables). */
static const char *policy_build_elsewhere(char *buf, size_t len, const char *key,
					  const char *where);

static int policy_build_unknown_key(struct policy_build *b, const struct policy_doc *key,
				    const char *where, const struct policy_key *keys)
{
	const char *names[POLICY_BUILD_MAX_KEYS];
	char hint[96], elsewhere[96], in[64] = "", alts[160], valid[192] = "";
	const char *what = "key";
	size_t n = 0;

	for (const struct policy_key *k = keys; k->key && n < POLICY_BUILD_MAX_KEYS; k++)
		names[n++] = k->key;
	if (!strcmp(where, POLICY_BUILD_TOP))
		what = "section";
	else
		snprintf(in, sizeof(in), " in %s", where);
	if (!strcmp(where, POLICY_BUILD_MEMBER)) /* few keys, none from a section */
		snprintf(valid, sizeof(valid), "; expected %s",
			 policy_build_alternatives(alts, sizeof(alts), names, n));
	if (!valid[0] && !policy_build_suggest(key->text, names, n) &&
	    *policy_build_elsewhere(elsewhere, sizeof(elsewhere), key->text, where))
		return policy_build_fail(b, key, "unknown %s '%s'%s%s%s", what, key->text, in,
					 elsewhere, valid);
	return policy_build_fail(b, key, "unknown %s '%s'%s%s%s", what, key->text, in,
				 policy_build_hint(hint, sizeof(hint), key->text, names, n), valid);
}

/* A key must be a scalar word. */
static int policy_build_key(struct policy_build *b, const struct policy_doc *key)
{
	char got[64];

	if (key->kind != POLICY_DOC_SCALAR || policy_build_is_null(key))
		return policy_build_fail(b, key, "a key must be a name, got %s",
					 key->kind == POLICY_DOC_SCALAR
					     ? "an empty key"
					     : policy_build_got(key, got, sizeof(got)));
	if (strlen(key->text) != key->len)
		return policy_build_fail(b, key, "a key must be a name, got one with a NUL");
	return 0;
}

/* Walk a mapping with a fixed set of keys (map may be null: no keys).
 * at[i] = the key node of keys[i] or NULL, for the caller's cross-checks. */
int policy_build_map(struct policy_build *b, const struct policy_doc *map, const char *where,
		     const struct policy_key *keys, void *obj, const struct policy_doc **at)
{
	int rc = policy_build_is_map(b, where, map);

	for (size_t i = 0; rc > 0 && i + 1 < map->n; i += 2) {
		const struct policy_doc *key = map->kids[i];
		size_t k = 0;

		rc = policy_build_key(b, key);
		if (rc < 0)
			return rc;
		while (keys[k].key && strcmp(keys[k].key, key->text))
			k++;
		if (!keys[k].key)
			return policy_build_unknown_key(b, key, where, keys);
		if (at[k])
			return policy_build_fail(b, key, "duplicate key '%s' (first at %u:%u)",
						 key->text, at[k]->line, at[k]->col);
		at[k] = key;
		rc = keys[k].set(b, &keys[k], map->kids[i + 1], obj);
		rc = rc < 0 ? rc : 1;
	}
	return rc < 0 ? rc : 0;
}

/* The value that follows key in map (for positions in messages). */
static const struct policy_doc *policy_build_value_of(const struct policy_doc *map,
						      const struct policy_doc *key)
{
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (map->kids[i] == key)
			return map->kids[i + 1];
	return key;
}

/* The later of two nodes in the file. */
static const struct policy_doc *policy_build_later(const struct policy_doc *x,
						   const struct policy_doc *y)
{
	return x->line > y->line || (x->line == y->line && x->col > y->col) ? x : y;
}

/* ---- generic setters (k->offset into obj) ---- */

int policy_build_set_uint(struct policy_build *b, const struct policy_key *k,
			  const struct policy_doc *val, void *obj)
{
	unsigned long long v;
	int rc = policy_build_uint(b, k, val, 0, &v);

	if (rc == 0)
		*(unsigned *)((char *)obj + k->offset) = (unsigned)v;
	return rc;
}

static int policy_build_set_u64(struct policy_build *b, const struct policy_key *k,
				const struct policy_doc *val, void *obj)
{
	unsigned long long v;
	int rc = policy_build_uint(b, k, val, 1, &v);

	if (rc == 0)
		*(uint64_t *)((char *)obj + k->offset) = (uint64_t)v;
	return rc;
}

/* ---- sm ---- */

static int policy_build_sm_guid(struct policy_build *b, const struct policy_key *k,
				const struct policy_doc *val, void *obj)
{
	return policy_build_guid(b, k->key, val, &((struct policy_sm *)obj)->guid);
}

static int policy_build_sm_ca(struct policy_build *b, const struct policy_key *k,
			      const struct policy_doc *val, void *obj)
{
	struct policy_sm *sm = obj;

	return policy_build_text(b, k->key, val, POLICY_TEXT_WORD, sm->ca, sizeof(sm->ca));
}

static int policy_build_sm_guid2lid(struct policy_build *b, const struct policy_key *k,
				    const struct policy_doc *val, void *obj)
{
	struct policy_sm *sm = obj;

	return policy_build_text(b, k->key, val, POLICY_TEXT_PATH, sm->guid2lid,
				 sizeof(sm->guid2lid));
}

/* An absolute path or "none". */
static int policy_build_sm_topology(struct policy_build *b, const struct policy_key *k,
				    const struct policy_doc *val, void *obj)
{
	struct policy_sm *sm = obj;

	if (val->text && !strcmp(val->text, "none")) {
		snprintf(sm->topology, sizeof(sm->topology), "none");
		return 0;
	}
	return policy_build_text(b, k->key, val, POLICY_TEXT_PATH, sm->topology,
				 sizeof(sm->topology));
}

/* The words nanosm --log-level takes too (policy_log_level_parse). */
static int policy_build_sm_log_level(struct policy_build *b, const struct policy_key *k,
				     const struct policy_doc *val, void *obj)
{
	static const char *const names[] = {"error", "warning", "info", "debug", "err", "warn"};
	char hint[96];
	int rc = policy_build_scalar(b, k->key, val);

	if (rc < 0)
		return rc;
	if (policy_log_level_parse(val->text, &((struct policy_sm *)obj)->log_level) == 0)
		return 0;
	return policy_build_fail(b, val, "%s: unknown value '%s'%s; expected %s", k->key, val->text,
				 policy_build_hint(hint, sizeof(hint), val->text, names, 6),
				 POLICY_LOG_LEVEL_WORDS);
}

#define POLICY_SM_AT(f) offsetof(struct policy_sm, f)

static const struct policy_key policy_sm_keys[] = {
    {"guid", policy_build_sm_guid, 0, 0, 0},
    {"ca", policy_build_sm_ca, 0, 0, 0},
    {"port", policy_build_set_uint, 1, POLICY_PORT_MAX, POLICY_SM_AT(port)},
    {"priority", policy_build_set_uint, 0, POLICY_PRIORITY_MAX, POLICY_SM_AT(priority)},
    {"sweep_interval", policy_build_set_uint, 1, POLICY_SWEEP_MAX, POLICY_SM_AT(sweep_interval)},
    {"window", policy_build_set_uint, 1, POLICY_WINDOW_MAX, POLICY_SM_AT(window)},
    {"mad_timeout_ms", policy_build_set_uint, 1, POLICY_TIMEOUT_MAX, POLICY_SM_AT(mad_timeout_ms)},
    {"mad_retries", policy_build_set_uint, 0, POLICY_RETRIES_MAX, POLICY_SM_AT(mad_retries)},
    {"guid2lid", policy_build_sm_guid2lid, 0, 0, 0},
    {"topology", policy_build_sm_topology, 0, 0, 0},
    {"log_level", policy_build_sm_log_level, 0, 0, 0},
    {"m_key", policy_build_set_u64, 0, UINT64_MAX, POLICY_SM_AT(m_key)},
    {"m_key_protect", policy_build_set_uint, 0, POLICY_MKEY_PROTECT_MAX,
     POLICY_SM_AT(m_key_protect)},
    {"m_key_lease", policy_build_set_uint, 0, POLICY_MKEY_LEASE_MAX, POLICY_SM_AT(m_key_lease)},
    {"sm_key", policy_build_set_u64, 0, UINT64_MAX, POLICY_SM_AT(sm_key)},
    {NULL, NULL, 0, 0, 0},
};

/* The value given for key name in map (at as policy_build_map left it),
 * or NULL when the key is absent. */
static const struct policy_doc *policy_build_given(const struct policy_doc *map,
						   const struct policy_key *keys,
						   const struct policy_doc *const *at,
						   const char *name)
{
	for (size_t i = 0; keys[i].key; i++)
		if (!strcmp(keys[i].key, name))
			return at[i] ? policy_build_value_of(map, at[i]) : NULL;
	return NULL;
}

/* The keys belong together: protection and lease need an M_Key, an M_Key
 * needs an SM_Key (the SA shows M_Keys to requests that carry nanosm's
 * SM_Key: with 0 that would be every request), and a lease must outlast
 * the gap between two sweeps, whose SMPs stop the lease timer. */
static int policy_build_sm_keys(struct policy_build *b, const struct policy_doc *map,
				const struct policy_doc *const *at, const struct policy_sm *sm)
{
	const struct policy_doc *protect =
	    policy_build_given(map, policy_sm_keys, at, "m_key_protect");
	const struct policy_doc *lease = policy_build_given(map, policy_sm_keys, at, "m_key_lease");
	const struct policy_doc *mkey = policy_build_given(map, policy_sm_keys, at, "m_key");

	if (sm->m_key_protect && !sm->m_key)
		return policy_build_fail(b, protect,
					 "m_key_protect: %u needs an m_key (the protection "
					 "bits guard the port's M_Key): set m_key, or leave "
					 "m_key_protect at 0",
					 sm->m_key_protect);
	if (sm->m_key_lease && !sm->m_key)
		return policy_build_fail(b, lease,
					 "m_key_lease: %u needs an m_key (the lease times "
					 "M_Key protection): set m_key, or leave m_key_lease at 0",
					 sm->m_key_lease);
	if (sm->m_key && !sm->sm_key)
		return policy_build_fail(b, mkey,
					 "m_key: an M_Key needs an sm_key too: the SA shows "
					 "M_Keys to requests that carry nanosm's SM_Key, and "
					 "with sm_key 0 that is every request");
	if (sm->m_key_protect && sm->m_key_lease && sm->m_key_lease <= sm->sweep_interval)
		return policy_build_fail(b, lease,
					 "m_key_lease: %u s is not longer than sweep_interval "
					 "(%u s): a port's protection could lapse between two "
					 "sweeps; make it longer, or 0 (never expires)",
					 sm->m_key_lease, sm->sweep_interval);
	return 0;
}

static int policy_build_sm(struct policy_build *b, const struct policy_key *k,
			   const struct policy_doc *val, void *obj)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL};
	const struct policy_doc *guid, *other;
	struct policy_sm *sm = &((struct policy *)obj)->sm;
	int rc = policy_build_map(b, val, k->key, policy_sm_keys, sm, at);

	if (rc < 0)
		return rc;
	guid = at[0]; /* policy_sm_keys: guid, ca, port first */
	other = at[1] ? at[1] : at[2];
	if (guid && other)
		return policy_build_fail(b, policy_build_later(guid, other),
					 "sm: 'guid' and '%s' both choose the SM port: give guid "
					 "alone, or ca and/or port",
					 other->text);
	return policy_build_sm_keys(b, val, at, sm);
}

/* ---- routing ---- */

/* An engine by name (what: where the name stands, for the message). */
static int policy_build_engine_find(struct policy_build *b, const char *what,
				    const struct policy_doc *d, const struct route_engine **out)
{
	const struct route_engine *const *all = route_engines();
	const char *names[POLICY_MAX_ENGINES];
	char alts[128], hint[96];
	size_t n = 0;
	int rc = policy_build_scalar(b, what, d);

	if (rc < 0)
		return rc;
	*out = route_engine_find(d->text);
	if (*out)
		return 0;
	while (all[n] && n < POLICY_MAX_ENGINES) {
		names[n] = all[n]->name;
		n++;
	}
	if (strchr(d->text, ','))
		return policy_build_fail(b, d, "%s: '%s' is not one name: write a list, [a, b]",
					 what, d->text);
	return policy_build_fail(b, d, "%s: unknown routing engine '%s'%s; expected %s", what,
				 d->text, policy_build_hint(hint, sizeof(hint), d->text, names, n),
				 policy_build_alternatives(alts, sizeof(alts), names, n));
}

/* One name of the engine list, not a repeat (seen holds those before). */
static int policy_build_engine_one(struct policy_build *b, const struct policy_doc *d,
				   struct policy_seen *seen)
{
	struct policy_routing *r = &b->p->routing;
	const struct policy_doc *first;
	const struct route_engine *e;
	int rc = policy_build_engine_find(b, "engine", d, &e);

	if (rc == 0)
		rc = policy_seen_add(seen, policy_seen_hash(e->name), d, &first);
	if (rc == 1)
		return policy_build_fail(b, d, "engine: '%s' is listed twice (first at %u:%u)",
					 e->name, first->line, first->col);
	if (rc == 0 && r->n_engine == POLICY_MAX_ENGINES)
		return policy_build_fail(b, d, "engine: more than %d engines", POLICY_MAX_ENGINES);
	if (rc == 0)
		r->engine[r->n_engine++] = e;
	return rc;
}

/* A name or a list of names: the fallback order. */
static int policy_build_engine(struct policy_build *b, const struct policy_key *k,
			       const struct policy_doc *val, void *obj)
{
	struct policy_seen seen = {.by_text = 1};
	int rc = 0;

	(void)obj;
	b->p->routing.n_engine = 0;
	if (val->kind != POLICY_DOC_LIST) {
		rc = policy_build_engine_one(b, val, &seen);
	} else if (val->n == 0) {
		rc = policy_build_fail(b, val, "%s: the list is empty: name at least one engine",
				       k->key);
	}
	for (size_t i = 0; rc == 0 && val->kind == POLICY_DOC_LIST && i < val->n; i++)
		rc = policy_build_engine_one(b, val->kids[i], &seen);
	policy_seen_fini(&seen);
	return rc;
}

static int policy_build_roots(struct policy_build *b, const struct policy_key *k,
			      const struct policy_doc *val, void *obj)
{
	struct policy_seen seen = {0};
	int rc = policy_build_is_list(b, k->key, val);

	(void)obj;
	for (size_t i = 0; rc > 0 && i < val->n; i++) {
		const struct policy_doc *d = val->kids[i], *first;
		uint64_t guid;

		rc = policy_build_guid(b, k->key, d, &guid);
		if (rc == 0)
			rc = policy_seen_add(&seen, guid, d, &first);
		if (rc == 1)
			rc = policy_build_fail(b, d,
					       "roots: 0x%016" PRIx64 " is listed twice "
					       "(first at %u:%u)",
					       guid, first->line, first->col);
		if (rc == 0)
			rc = policy_root_add(b->p, guid);
		rc = rc < 0 ? rc : 1;
	}
	policy_seen_fini(&seen);
	return rc < 0 ? rc : 0;
}

/* routing.options: engine name -> mapping of that engine's options.  No
 * engine takes an option yet, so every such mapping must be empty; an
 * option is added by giving it a key table here and a field in struct
 * policy_routing. */
static int policy_build_engine_options(struct policy_build *b, const struct policy_doc *key,
				       const struct policy_doc *val)
{
	char what[96];
	int rc;

	snprintf(what, sizeof(what), "options.%s", key->text);
	rc = policy_build_is_map(b, what, val);
	if (rc > 0 && val->n > 0 && policy_build_key(b, val->kids[0]) < 0)
		return -EINVAL;
	if (rc > 0 && val->n > 0)
		return policy_build_fail(b, val->kids[0],
					 "unknown option '%s' for engine %s "
					 "(%s takes no options yet)",
					 val->kids[0]->text, key->text, key->text);
	return rc < 0 ? rc : 0;
}

static int policy_build_options(struct policy_build *b, const struct policy_key *k,
				const struct policy_doc *val, void *obj)
{
	struct policy_seen seen = {.by_text = 1};
	int rc = policy_build_is_map(b, k->key, val);

	(void)obj;
	for (size_t i = 0; rc > 0 && i + 1 < val->n; i += 2) {
		const struct policy_doc *key = val->kids[i], *first;
		const struct route_engine *e;

		rc = policy_build_key(b, key);
		if (rc == 0)
			rc = policy_build_engine_find(b, k->key, key, &e);
		if (rc == 0)
			rc = policy_seen_add(&seen, policy_seen_hash(key->text), key, &first);
		if (rc == 1)
			rc = policy_build_fail(b, key, "duplicate key '%s' (first at %u:%u)",
					       key->text, first->line, first->col);
		if (rc == 0)
			rc = policy_build_engine_options(b, key, val->kids[i + 1]);
		rc = rc < 0 ? rc : 1;
	}
	policy_seen_fini(&seen);
	return rc < 0 ? rc : 0;
}

static const struct policy_key policy_routing_keys[] = {
    {"engine", policy_build_engine, 0, 0, 0},
    {"roots", policy_build_roots, 0, 0, 0},
    {"options", policy_build_options, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};

static int policy_build_routing(struct policy_build *b, const struct policy_key *k,
				const struct policy_doc *val, void *obj)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL};

	return policy_build_map(b, val, k->key, policy_routing_keys, obj, at);
}

/* ---- lids ---- */

static int policy_build_lmc(struct policy_build *b, const struct policy_key *k,
			    const struct policy_doc *val, void *obj)
{
	unsigned long long v;
	int rc = policy_build_uint(b, k, val, 0, &v);

	if (rc == 0 && v != 0)
		return policy_build_fail(b, val,
					 "lmc: LMC %llu is not supported yet: nanosm "
					 "gives each port one LID (LMC 0); use 0",
					 v);
	if (rc == 0)
		((struct policy_lids *)obj)->lmc = (unsigned)v;
	return rc;
}

/* One {guid, lid} entry being read. */
struct policy_static_entry {
	uint64_t guid;
	uint16_t lid;
};

static int policy_build_static_guid(struct policy_build *b, const struct policy_key *k,
				    const struct policy_doc *val, void *obj)
{
	return policy_build_guid(b, k->key, val, &((struct policy_static_entry *)obj)->guid);
}

static int policy_build_static_lid(struct policy_build *b, const struct policy_key *k,
				   const struct policy_doc *val, void *obj)
{
	unsigned long long v;
	int rc = policy_build_uint(b, k, val, 1, &v);

	if (rc == 0)
		((struct policy_static_entry *)obj)->lid = (uint16_t)v;
	return rc;
}

static const struct policy_key policy_static_keys[] = {
    {"guid", policy_build_static_guid, 0, 0, 0},
    {"lid", policy_build_static_lid, LID_UNICAST_MIN, LID_UNICAST_MAX, 0},
    {NULL, NULL, 0, 0, 0},
};

/* The keys of a fixed-key mapping that are missing from it. */
static int policy_build_require(struct policy_build *b, const struct policy_doc *map,
				const char *what, const struct policy_key *keys,
				const struct policy_doc *const *at, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!at[i])
			return policy_build_fail(b, map, "%s needs '%s'", what, keys[i].key);
	return 0;
}

/* The port a static LID went to (for a message). */
static uint64_t policy_build_lid_owner(const struct policy *p, uint16_t lid)
{
	for (size_t i = 0; i < p->lids.n_statics; i++)
		if (p->lids.statics[i].lid == lid)
			return p->lids.statics[i].guid;
	return 0;
}

/* Each GUID and each LID once: guids/lids hold the entries before. */
static int policy_build_static_one(struct policy_build *b, const struct policy_doc *d,
				   struct policy_seen *guids, struct policy_seen *lids)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL}, *first;
	struct policy_static_entry e = {0, 0};
	int rc;

	if (d->kind != POLICY_DOC_MAP)
		return policy_build_fail(b, d,
					 "static: each entry is a mapping {guid: 0x..., "
					 "lid: N}");
	rc = policy_build_map(b, d, "a static entry", policy_static_keys, &e, at);
	if (rc == 0)
		rc = policy_build_require(b, d, "a static entry", policy_static_keys, at, 2);
	if (rc < 0)
		return rc;
	at[0] = policy_build_value_of(d, at[0]);
	at[1] = policy_build_value_of(d, at[1]);
	rc = policy_seen_add(guids, e.guid, at[0], &first);
	if (rc == 1)
		return policy_build_fail(b, at[0],
					 "static: port 0x%016" PRIx64 " already has a "
					 "static LID (first at %u:%u)",
					 e.guid, first->line, first->col);
	if (rc == 0)
		rc = policy_seen_add(lids, e.lid, at[1], &first);
	if (rc == 1)
		return policy_build_fail(b, at[1],
					 "static: LID 0x%04x is already given to "
					 "0x%016" PRIx64 " (first at %u:%u)",
					 e.lid, policy_build_lid_owner(b->p, e.lid), first->line,
					 first->col);
	return rc < 0 ? rc : policy_static_add(b->p, e.guid, e.lid);
}

static int policy_build_static(struct policy_build *b, const struct policy_key *k,
			       const struct policy_doc *val, void *obj)
{
	struct policy_seen guids = {0}, lids = {0};
	int rc = policy_build_is_list(b, k->key, val);

	(void)obj;
	for (size_t i = 0; rc > 0 && i < val->n; i++) {
		rc = policy_build_static_one(b, val->kids[i], &guids, &lids);
		rc = rc < 0 ? rc : 1;
	}
	policy_seen_fini(&guids);
	policy_seen_fini(&lids);
	return rc < 0 ? rc : 0;
}

static const struct policy_key policy_lids_keys[] = {
    {"lmc", policy_build_lmc, 0, POLICY_LMC_MAX, 0},
    {"reclaim_age", policy_build_set_uint, 0, POLICY_RECLAIM_AGE_MAX,
     offsetof(struct policy_lids, reclaim_age)},
    {"static", policy_build_static, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};

static int policy_build_lids(struct policy_build *b, const struct policy_key *k,
			     const struct policy_doc *val, void *obj)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL};

	return policy_build_map(b, val, k->key, policy_lids_keys, &((struct policy *)obj)->lids,
				at);
}

/* ---- node_names ---- */

static int policy_build_node_names(struct policy_build *b, const struct policy_key *k,
				   const struct policy_doc *val, void *obj)
{
	struct policy_seen seen = {0};
	int rc = policy_build_is_map(b, k->key, val);

	(void)obj;
	for (size_t i = 0; rc > 0 && i + 1 < val->n; i += 2) {
		const struct policy_doc *key = val->kids[i], *first;
		char name[POLICY_NAME_MAX + 1];
		uint64_t guid;

		rc = policy_build_guid(b, k->key, key, &guid);
		if (rc == 0)
			rc = policy_build_text(b, k->key, val->kids[i + 1], POLICY_TEXT_ANY, name,
					       sizeof(name));
		if (rc == 0)
			rc = policy_seen_add(&seen, guid, key, &first);
		if (rc == 1)
			rc = policy_build_fail(b, key,
					       "node_names: 0x%016" PRIx64 " is named "
					       "twice (first at %u:%u)",
					       guid, first->line, first->col);
		if (rc == 0)
			rc = policy_node_name_add(b->p, guid, name);
		rc = rc < 0 ? rc : 1;
	}
	policy_seen_fini(&seen);
	return rc < 0 ? rc : 0;
}

/* ---- partitions ---- */

static const char *const policy_groups[] = {"ALL", "ALL_CAS", "ALL_SWITCHES", "SELF"};

static int policy_build_member_guid(struct policy_build *b, const struct policy_key *k,
				    const struct policy_doc *val, void *obj)
{
	struct policy_member *m = obj;
	int group;

	for (group = 0; group < 4; group++)
		if (val->kind == POLICY_DOC_SCALAR && !strcmp(val->text, policy_groups[group]))
			return policy_build_fail(b, val,
						 "guid: %s is a group of ports: write "
						 "'group: %s'",
						 val->text, val->text);
	m->kind = POLICY_MEMBER_GUID;
	return policy_build_guid(b, k->key, val, &m->guid);
}

static int policy_build_member_group(struct policy_build *b, const struct policy_key *k,
				     const struct policy_doc *val, void *obj)
{
	struct policy_member *m = obj;
	int group = 0;
	int rc = policy_build_enum(b, k->key, val, policy_groups, 4, &group);

	if (rc == 0)
		m->kind = (enum policy_member_kind)(POLICY_MEMBER_ALL + group);
	return rc;
}

/* A node's name: matched against node_names and NodeDescriptions only
 * once the fabric is known (config/pkey.c). */
static int policy_build_member_name(struct policy_build *b, const struct policy_key *k,
				    const struct policy_doc *val, void *obj)
{
	struct policy_member *m = obj;

	m->kind = POLICY_MEMBER_NAME;
	return policy_build_text(b, k->key, val, POLICY_TEXT_ANY, m->name, sizeof(m->name));
}

static int policy_build_membership(struct policy_build *b, const struct policy_key *k,
				   const struct policy_doc *val, void *obj)
{
	static const char *const names[] = {"limited", "full"};
	int full = 0;
	int rc = policy_build_enum(b, k->key, val, names, 2, &full);

	if (rc == 0)
		((struct policy_member *)obj)->membership = full ? POLICY_FULL : POLICY_LIMITED;
	return rc;
}

/* The order of at[] in policy_build_member_one. */
enum policy_member_key { POLICY_MK_GUID, POLICY_MK_NAME, POLICY_MK_PORT, POLICY_MK_GROUP };

static const struct policy_key policy_member_keys[] = {
    {"guid", policy_build_member_guid, 0, 0, 0},
    {"name", policy_build_member_name, 0, 0, 0},
    {"port", policy_build_set_uint, 1, POLICY_PORT_MAX, offsetof(struct policy_member, port)},
    {"group", policy_build_member_group, 0, 0, 0},
    {"membership", policy_build_membership, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};

/* Exactly one of guid, name and group; port only with name.  Returns the
 * key node of the one given, or NULL with the error set. */
static const struct policy_doc *policy_build_member_selector(struct policy_build *b,
							     const struct policy_doc *d,
							     const struct policy_doc **at)
{
	static const enum policy_member_key sel[] = {POLICY_MK_GUID, POLICY_MK_NAME,
						     POLICY_MK_GROUP};
	const struct policy_doc *one = NULL;

	for (size_t i = 0; i < 3; i++) {
		const struct policy_doc *k = at[sel[i]];

		if (k && one) {
			policy_build_fail(b, policy_build_later(one, k),
					  "a member has one of 'guid', 'name' or 'group', not both "
					  "'%s' and '%s'",
					  one->text, k->text);
			return NULL;
		}
		one = k ? k : one;
	}
	if (!one)
		policy_build_fail(b, d, "a member needs 'guid', 'name' or 'group'");
	else if (at[POLICY_MK_PORT] && one != at[POLICY_MK_NAME])
		policy_build_fail(b, at[POLICY_MK_PORT],
				  "port: only a member given by name takes a port ({name: host2, "
				  "port: 1}); a %s names its port(s) already",
				  one->text);
	else
		return one;
	return NULL;
}

/* How a member is told apart from the others of its partition. */
static void policy_build_member_label(const struct policy_member *m, char *buf, size_t len)
{
	if (m->kind == POLICY_MEMBER_GUID)
		snprintf(buf, len, "0x%016" PRIx64, m->guid);
	else if (m->kind == POLICY_MEMBER_NAME && m->port)
		snprintf(buf, len, "name '%s' port %u", m->name, m->port);
	else if (m->kind == POLICY_MEMBER_NAME)
		snprintf(buf, len, "name '%s'", m->name);
	else
		snprintf(buf, len, "group %s", policy_member_group_name(m->kind));
}

/* Members seen before in one partition: by GUID, by name and port, by group. */
struct policy_member_seen {
	struct policy_seen guids, names, groups;
};

static int policy_build_member_add(struct policy_partition *part, const struct policy_member *m)
{
	if (m->kind == POLICY_MEMBER_NAME)
		return policy_member_add_name(part, m->name, m->port, m->membership);
	return policy_member_add(part, m->kind, m->guid, m->membership);
}

static int policy_build_member_one(struct policy_build *b, const struct policy_doc *d,
				   struct policy_partition *part, struct policy_member_seen *seen)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL}, *first, *by;
	struct policy_member m = {.kind = POLICY_MEMBER_GUID, .membership = POLICY_LIMITED};
	struct policy_seen *set = &seen->groups;
	uint64_t key;
	char label[POLICY_NAME_MAX + 32];
	int rc;

	if (d->kind != POLICY_DOC_MAP)
		return policy_build_fail(b, d,
					 "members: each member is a mapping {guid: 0x..., "
					 "membership: full}, {name: host2, port: 1} or {group: "
					 "ALL, membership: limited}");
	rc = policy_build_map(b, d, POLICY_BUILD_MEMBER, policy_member_keys, &m, at);
	if (rc < 0)
		return rc;
	by = policy_build_member_selector(b, d, at);
	if (!by)
		return -EINVAL;
	by = policy_build_value_of(d, by);
	if (m.kind == POLICY_MEMBER_GUID) {
		set = &seen->guids;
		key = m.guid;
	} else if (m.kind == POLICY_MEMBER_NAME) {
		set = &seen->names; /* compares by->text too */
		key = policy_seen_hash(m.name) ^ ((uint64_t)m.port << 40);
	} else {
		key = (uint64_t)m.kind;
	}
	rc = policy_seen_add(set, key, by, &first);
	policy_build_member_label(&m, label, sizeof(label));
	if (rc == 1)
		return policy_build_fail(b, by,
					 "partition '%s': %s is listed twice (first at "
					 "%u:%u)",
					 part->name, label, first->line, first->col);
	return rc < 0 ? rc : policy_build_member_add(part, &m);
}

static int policy_build_members(struct policy_build *b, const struct policy_doc *val,
				struct policy_partition *part)
{
	struct policy_member_seen seen = {.names = {.by_text = 1}};
	int rc = policy_build_is_list(b, "members", val);

	for (size_t i = 0; rc > 0 && i < val->n; i++) {
		rc = policy_build_member_one(b, val->kids[i], part, &seen);
		rc = rc < 0 ? rc : 1;
	}
	policy_seen_fini(&seen.guids);
	policy_seen_fini(&seen.names);
	policy_seen_fini(&seen.groups);
	return rc < 0 ? rc : 0;
}

/* One partition being read; members are read once its name is known. */
struct policy_partition_entry {
	char name[POLICY_NAME_MAX + 1];
	uint16_t pkey;
	int ipoib;
	unsigned mtu, rate;
	const struct policy_doc *name_at, *pkey_at, *members;
};

static int policy_build_part_name(struct policy_build *b, const struct policy_key *k,
				  const struct policy_doc *val, void *obj)
{
	struct policy_partition_entry *e = obj;

	e->name_at = val;
	return policy_build_text(b, k->key, val, POLICY_TEXT_WORD, e->name, sizeof(e->name));
}

/* The base P_Key; the full-membership bit (0x8000) belongs to members. */
static int policy_build_part_pkey(struct policy_build *b, const struct policy_key *k,
				  const struct policy_doc *val, void *obj)
{
	struct policy_key any = {k->key, NULL, 0, 0xffff, 0};
	struct policy_partition_entry *e = obj;
	unsigned long long v;
	int rc = policy_build_uint(b, &any, val, 1, &v);

	if (rc < 0)
		return rc;
	if ((v & 0x8000) && (v & 0x7fff))
		return policy_build_fail(b, val,
					 "pkey: 0x%04llx has the full-membership bit "
					 "(0x8000) set: write 0x%04llx and give each member "
					 "'membership: full' or 'limited'",
					 v, v & 0x7fff);
	if (v < k->min || v > k->max)
		return policy_build_fail(b, val,
					 "pkey: %s is not a valid P_Key (0x%04llx.."
					 "0x%04llx)",
					 val->text, k->min, k->max);
	e->pkey = (uint16_t)v;
	e->pkey_at = val;
	return 0;
}

static int policy_build_part_ipoib(struct policy_build *b, const struct policy_key *k,
				   const struct policy_doc *val, void *obj)
{
	return policy_build_bool(b, k->key, val, &((struct policy_partition_entry *)obj)->ipoib);
}

static int policy_build_part_mtu(struct policy_build *b, const struct policy_key *k,
				 const struct policy_doc *val, void *obj)
{
	struct policy_key any = {k->key, NULL, 0, ~0ULL, 0};
	unsigned long long v;
	int rc = policy_build_uint(b, &any, val, 0, &v);

	if (rc == 0 && (v < 256 || v > 4096 || (v & (v - 1))))
		return policy_build_fail(b, val,
					 "mtu: %s is not an InfiniBand MTU (256, 512, "
					 "1024, 2048 or 4096)",
					 val->text);
	if (rc == 0)
		((struct policy_partition_entry *)obj)->mtu = (unsigned)v;
	return rc;
}

/* The IPoIB group's rate in Gb/s (IBA 15.2.5.16 Rate); 2.5 (1x SDR)
 * is not offered: a whole number keeps the file simple. */
static int policy_build_part_rate(struct policy_build *b, const struct policy_key *k,
				  const struct policy_doc *val, void *obj)
{
	struct policy_key any = {k->key, NULL, 0, ~0ULL, 0};
	unsigned long long v;
	int rc = policy_build_uint(b, &any, val, 0, &v);

	if (rc == 0 && !policy_rate_valid(v))
		return policy_build_fail(b, val,
					 "rate: %s is not an InfiniBand rate in Gb/s (5, 10, "
					 "14, 20, 25, 28, 30, 40, 50, 56, 60, 80, 100, 112, "
					 "120, 168, 200, 300, 400 or 600)",
					 val->text);
	if (rc == 0)
		((struct policy_partition_entry *)obj)->rate = (unsigned)v;
	return rc;
}

static int policy_build_part_members(struct policy_build *b, const struct policy_key *k,
				     const struct policy_doc *val, void *obj)
{
	(void)b;
	(void)k;
	((struct policy_partition_entry *)obj)->members = val;
	return 0;
}

static const struct policy_key policy_partition_keys[] = {
    {"name", policy_build_part_name, 0, 0, 0},
    {"pkey", policy_build_part_pkey, POLICY_PKEY_MIN, POLICY_PKEY_MAX, 0},
    {"ipoib", policy_build_part_ipoib, 0, 0, 0},
    {"mtu", policy_build_part_mtu, 0, 0, 0},
    {"rate", policy_build_part_rate, 0, 0, 0},
    {"members", policy_build_part_members, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};

/* Names and P_Keys once each: names/pkeys hold the partitions before. */
static int policy_build_partition_one(struct policy_build *b, const struct policy_doc *d,
				      struct policy_seen *names, struct policy_seen *pkeys)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL}, *first;
	struct policy_partition_entry e = {.mtu = 2048, .rate = POLICY_RATE_DEFAULT};
	struct policy_partition *part;
	int rc;

	if (d->kind != POLICY_DOC_MAP)
		return policy_build_fail(b, d,
					 "partitions: each partition is a mapping (name, "
					 "pkey, ipoib, mtu, rate, members)");
	rc = policy_build_map(b, d, "a partition", policy_partition_keys, &e, at);
	if (rc == 0)
		rc = policy_build_require(b, d, "a partition", policy_partition_keys, at, 2);
	if (rc == 0)
		rc = policy_seen_add(names, policy_seen_hash(e.name), e.name_at, &first);
	if (rc == 1)
		return policy_build_fail(b, e.name_at,
					 "partitions: name '%s' is used twice "
					 "(first at %u:%u)",
					 e.name, first->line, first->col);
	if (rc == 0)
		rc = policy_seen_add(pkeys, e.pkey, e.pkey_at, &first);
	if (rc == 1)
		return policy_build_fail(b, e.pkey_at,
					 "partitions: pkey 0x%04x is used twice "
					 "(first at %u:%u)",
					 e.pkey, first->line, first->col);
	if (rc < 0)
		return rc;
	part = policy_partition_add(b->p, e.name, e.pkey, e.ipoib, e.mtu);
	if (!part)
		return -ENOMEM;
	part->rate = e.rate;
	return e.members ? policy_build_members(b, e.members, part) : 0;
}

static int policy_build_partitions(struct policy_build *b, const struct policy_key *k,
				   const struct policy_doc *val, void *obj)
{
	struct policy_seen names = {.by_text = 1}, pkeys = {0};
	int rc = policy_build_is_list(b, k->key, val);

	(void)obj;
	for (size_t i = 0; rc > 0 && i < val->n; i++) {
		rc = policy_build_partition_one(b, val->kids[i], &names, &pkeys);
		rc = rc < 0 ? rc : 1;
	}
	policy_seen_fini(&names);
	policy_seen_fini(&pkeys);
	return rc < 0 ? rc : 0;
}

/* ---- the file ---- */

/* Keys of the sections, to say where a key misplaced in another belongs:
 * " ('key' belongs in sec)" for a key of another section, else " (did you
 * mean 'k' in sec?)" for a near one, else "". */
static const char *policy_build_elsewhere(char *buf, size_t len, const char *key, const char *where)
{
	static const struct {
		const char *name;
		const struct policy_key *keys;
	} sections[] = {
	    {"sm", policy_sm_keys}, {"routing", policy_routing_keys}, {"lids", policy_lids_keys}};
	const char *near = NULL, *near_in = NULL;

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		const char *names[POLICY_BUILD_MAX_KEYS];
		size_t n = 0;

		if (!strcmp(sections[i].name, where))
			continue;
		for (const struct policy_key *k = sections[i].keys; k->key; k++)
			names[n++] = k->key;
		for (size_t j = 0; j < n; j++) {
			if (!strcmp(names[j], key)) {
				snprintf(buf, len, " ('%s' belongs in %s)", key, sections[i].name);
				return buf;
			}
		}
		if (!near && (near = policy_build_suggest(key, names, n)))
			near_in = sections[i].name;
	}
	if (!near)
		return "";
	snprintf(buf, len, " (did you mean '%s' in %s?)", near, near_in);
	return buf;
}

static int policy_build_monitor(struct policy_build *b, const struct policy_key *k,
				const struct policy_doc *val, void *obj)
{
	(void)k;
	return policy_monitor_build(val, b->name, &((struct policy *)obj)->monitor, b->err,
				    b->errlen);
}

static const struct policy_key policy_top_keys[] = {
    {"sm", policy_build_sm, 0, 0, 0},
    {"routing", policy_build_routing, 0, 0, 0},
    {"lids", policy_build_lids, 0, 0, 0},
    {"node_names", policy_build_node_names, 0, 0, 0},
    {"partitions", policy_build_partitions, 0, 0, 0},
    {"monitor", policy_build_monitor, 0, 0, 0},
    {"sa", policy_build_sa, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};

int policy_build(const struct policy_doc *root, const char *name, struct policy *out, char *err,
		 size_t errlen)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL};
	struct policy_build b = {
	    .name = name ? name : "policy", .err = err, .errlen = errlen, .p = out};
	char got[64];

	if (err && errlen)
		err[0] = '\0';
	if (!root || policy_build_is_null(root))
		return 0;
	if (root->kind != POLICY_DOC_MAP)
		return policy_build_fail(&b, root,
					 "expected sections (sm:, routing:, lids:, "
					 "node_names:, partitions:, sa:), got %s",
					 policy_build_got(root, got, sizeof(got)));
	return policy_build_map(&b, root, POLICY_BUILD_TOP, policy_top_keys, out, at);
}
