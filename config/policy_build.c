/*
 * policy_build.c - the policy's schema walkers: from a struct policy_doc
 * tree, each key, type, range and duplicate checked on the way, naming
 * file:line:column and a hint; stops at the first error.  Owns the errors
 * and hints, the scalars (numbers, GUIDs, booleans, words, paths), the
 * mappings with a fixed set of keys, and the file's top level.  Each
 * section's keys live in its own file (policy_sm.c, policy_routing.c,
 * policy_lids.c, policy_node_names.c, policy_partitions.c, policy_sa.c,
 * policy_monitor.c), all through config/policy_build_priv.h.
 * Pure: sees neither libyaml nor files.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"
#include "config/policy_build_priv.h"
#include "config/policy_doc.h"

#define POLICY_BUILD_TOP "the file" /* where top-level keys stand */

/* ---- errors ---- */

/* "name:line:col: <fmt>" into err; returns -EINVAL. */
int policy_build_fail(struct policy_build *b, const struct policy_doc *at, const char *fmt, ...)
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
const char *policy_build_suggest(const char *word, const char *const *cands, size_t n)
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
const char *policy_build_hint(char *buf, size_t len, const char *word, const char *const *cands,
			      size_t n)
{
	const char *s = policy_build_suggest(word, cands, n);

	if (!s)
		return "";
	snprintf(buf, len, " (did you mean '%s'?)", s);
	return buf;
}

/* "a, b or c" */
const char *policy_build_alternatives(char *buf, size_t len, const char *const *names, size_t n)
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
int policy_build_scalar(struct policy_build *b, const char *what, const struct policy_doc *d)
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
int policy_build_uint(struct policy_build *b, const struct policy_key *k,
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
int policy_build_guid(struct policy_build *b, const char *what, const struct policy_doc *d,
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

int policy_build_bool(struct policy_build *b, const char *what, const struct policy_doc *d,
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
int policy_build_enum(struct policy_build *b, const char *what, const struct policy_doc *d,
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

/* Text up to size - 1 bytes, no control characters (C0, DEL, C1); WORD:
 * letters, digits, '_', '-', '.'; PATH: absolute. */
int policy_build_text(struct policy_build *b, const char *what, const struct policy_doc *d,
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

/* ---- containers ---- */

/* A mapping, or null (an empty section).  Returns 1 for a mapping, 0 for
 * null, or an error. */
int policy_build_is_map(struct policy_build *b, const char *what, const struct policy_doc *d)
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
int policy_build_is_list(struct policy_build *b, const char *what, const struct policy_doc *d)
{
	char got[64];

	if (d->kind == POLICY_DOC_LIST)
		return 1;
	if (policy_build_is_null(d))
		return 0;
	return policy_build_fail(b, d, "%s: expected a list (- item lines or [a, b]), got %s", what,
				 policy_build_got(d, got, sizeof(got)));
}

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
int policy_build_key(struct policy_build *b, const struct policy_doc *key)
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
const struct policy_doc *policy_build_value_of(const struct policy_doc *map,
					       const struct policy_doc *key)
{
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (map->kids[i] == key)
			return map->kids[i + 1];
	return key;
}

/* The later of two nodes in the file. */
const struct policy_doc *policy_build_later(const struct policy_doc *x, const struct policy_doc *y)
{
	return x->line > y->line || (x->line == y->line && x->col > y->col) ? x : y;
}

/* The keys of a fixed-key mapping that are missing from it. */
int policy_build_require(struct policy_build *b, const struct policy_doc *map, const char *what,
			 const struct policy_key *keys, const struct policy_doc *const *at,
			 size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!at[i])
			return policy_build_fail(b, map, "%s needs '%s'", what, keys[i].key);
	return 0;
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

int policy_build_set_u64(struct policy_build *b, const struct policy_key *k,
			 const struct policy_doc *val, void *obj)
{
	unsigned long long v;
	int rc = policy_build_uint(b, k, val, 1, &v);

	if (rc == 0)
		*(uint64_t *)((char *)obj + k->offset) = (uint64_t)v;
	return rc;
}

/* ---- the file ---- */

static int policy_build_monitor(struct policy_build *b, const struct policy_key *k,
				const struct policy_doc *val, void *obj)
{
	(void)k;
	return policy_monitor_build(val, b->name, &((struct policy *)obj)->monitor, b->err,
				    b->errlen);
}

static const struct policy_key policy_top_keys[] = {
    {"sm", policy_sm_build, 0, 0, 0},
    {"routing", policy_routing_build, 0, 0, 0},
    {"lids", policy_lids_build, 0, 0, 0},
    {"node_names", policy_node_names_build, 0, 0, 0},
    {"partitions", policy_partitions_build, 0, 0, 0},
    {"monitor", policy_build_monitor, 0, 0, 0},
    {"sa", policy_sa_build, 0, 0, 0},
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
