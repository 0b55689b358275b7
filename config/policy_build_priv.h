/*
 * config/policy_build_priv.h - what the schema files of config/ share
 * (internal): the builder's state, a key of a section's table, the
 * generic walkers and checks of policy_build.c, and each section's entry
 * point and key table (policy_sm.c, policy_routing.c, policy_lids.c,
 * policy_node_names.c, policy_partitions.c, policy_sa.c).
 *
 * DOC: every walker returns 0, or a negative errno with b->err set to
 * "file:line:col: message" (-EINVAL) or left as it is (-ENOMEM); the
 * container checks (policy_build_is_map, _is_list) return 1 for a mapping
 * or list, 0 for null (an empty section).  A setter stores only a value it
 * has accepted.
 */
#ifndef NANOSM_CONFIG_POLICY_BUILD_PRIV_H
#define NANOSM_CONFIG_POLICY_BUILD_PRIV_H

#include <stddef.h>
#include <stdint.h>

#define POLICY_BUILD_MAX_KEYS 16       /* keys in one schema table */
#define POLICY_BUILD_MEMBER "a member" /* an unknown key there lists the keys */

struct policy;
struct policy_doc;

struct policy_build {
	const char *name; /* file name for messages */
	char *err;
	size_t errlen;
	struct policy *p;
};

/* One key of a mapping with a fixed set of keys.  min/max/offset serve
 * the generic number and string setters. */
struct policy_key {
	const char *key;
	int (*set)(struct policy_build *b, const struct policy_key *k, const struct policy_doc *val,
		   void *obj);
	unsigned long long min, max;
	size_t offset; /* of the field in obj */
};

/* What policy_build_text accepts besides no control characters. */
enum policy_text {
	POLICY_TEXT_ANY,
	POLICY_TEXT_WORD, /* letters, digits, '_', '-', '.' */
	POLICY_TEXT_PATH  /* absolute */
};

/* Errors and hints.  "name:line:col: <fmt>" into b->err; returns -EINVAL. */
int policy_build_fail(struct policy_build *b, const struct policy_doc *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The one of cands (n) a mistyped word most likely meant, or NULL. */
const char *policy_build_suggest(const char *word, const char *const *cands, size_t n);
/* " (did you mean 'x'?)" or "", in buf. */
const char *policy_build_hint(char *buf, size_t len, const char *word, const char *const *cands,
			      size_t n);
/* "a, b or c", in buf. */
const char *policy_build_alternatives(char *buf, size_t len, const char *const *names, size_t n);

/* Scalars; what names the key in messages. */
int policy_build_scalar(struct policy_build *b, const char *what, const struct policy_doc *d);
/* A plain whole number in [k->min, k->max] (hex: ranges shown in hex). */
int policy_build_uint(struct policy_build *b, const struct policy_key *k,
		      const struct policy_doc *d, int hex, unsigned long long *out);
/* A GUID: 0x and 1..16 hex digits, not 0. */
int policy_build_guid(struct policy_build *b, const char *what, const struct policy_doc *d,
		      uint64_t *out);
int policy_build_bool(struct policy_build *b, const char *what, const struct policy_doc *d,
		      int *out);
/* One of names (n of them); *out = its index. */
int policy_build_enum(struct policy_build *b, const char *what, const struct policy_doc *d,
		      const char *const *names, size_t n, int *out);
/* Text up to size - 1 bytes into out, checked as kind says. */
int policy_build_text(struct policy_build *b, const char *what, const struct policy_doc *d,
		      enum policy_text kind, char *out, size_t size);

/* Containers and positions. */
int policy_build_is_map(struct policy_build *b, const char *what, const struct policy_doc *d);
int policy_build_is_list(struct policy_build *b, const char *what, const struct policy_doc *d);
/* A key must be a scalar word. */
int policy_build_key(struct policy_build *b, const struct policy_doc *key);
/* Walk mapping map (named where in messages) with the keys' setters into
 * obj; at[] (one slot per key, NULL-initialised) catches duplicates.
 * 0, -EINVAL with err set, or -ENOMEM. */
int policy_build_map(struct policy_build *b, const struct policy_doc *map, const char *where,
		     const struct policy_key *keys, void *obj, const struct policy_doc **at);
/* The first n keys of keys, all present in at[] (as policy_build_map left
 * it), or an error naming the one missing from map (called what). */
int policy_build_require(struct policy_build *b, const struct policy_doc *map, const char *what,
			 const struct policy_key *keys, const struct policy_doc *const *at,
			 size_t n);
/* The value that follows key in map (for positions in messages). */
const struct policy_doc *policy_build_value_of(const struct policy_doc *map,
					       const struct policy_doc *key);
/* The later of two nodes in the file. */
const struct policy_doc *policy_build_later(const struct policy_doc *x, const struct policy_doc *y);

/* Generic setters: a whole number in [k->min, k->max] into the unsigned
 * (set_uint) or uint64_t (set_u64) at k->offset in obj. */
int policy_build_set_uint(struct policy_build *b, const struct policy_key *k,
			  const struct policy_doc *val, void *obj);
int policy_build_set_u64(struct policy_build *b, const struct policy_key *k,
			 const struct policy_doc *val, void *obj);

/* The sections, each into its part of the struct policy obj; the key
 * tables of sm, routing and lids name a key misplaced in another. */
extern const struct policy_key policy_sm_keys[], policy_routing_keys[], policy_lids_keys[];
int policy_sm_build(struct policy_build *b, const struct policy_key *k,
		    const struct policy_doc *val, void *obj);
int policy_routing_build(struct policy_build *b, const struct policy_key *k,
			 const struct policy_doc *val, void *obj);
int policy_lids_build(struct policy_build *b, const struct policy_key *k,
		      const struct policy_doc *val, void *obj);
int policy_node_names_build(struct policy_build *b, const struct policy_key *k,
			    const struct policy_doc *val, void *obj);
int policy_partitions_build(struct policy_build *b, const struct policy_key *k,
			    const struct policy_doc *val, void *obj);
int policy_sa_build(struct policy_build *b, const struct policy_key *k,
		    const struct policy_doc *val, void *obj);

#endif
