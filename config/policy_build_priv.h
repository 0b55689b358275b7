/*
 * config/policy_build_priv.h - what the schema files of config/ share
 * (internal): the builder's state, a key of a section's table, and the
 * generic walkers of policy_build.c that a section in its own file
 * (policy_sa.c) uses.
 */
#ifndef NANOSM_CONFIG_POLICY_BUILD_PRIV_H
#define NANOSM_CONFIG_POLICY_BUILD_PRIV_H

#include <stddef.h>

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

/* Walk mapping map (named where in messages) with the keys' setters into
 * obj; at[] (one slot per key, NULL-initialised) catches duplicates.
 * 0, -EINVAL with err set, or -ENOMEM. */
int policy_build_map(struct policy_build *b, const struct policy_doc *map, const char *where,
		     const struct policy_key *keys, void *obj, const struct policy_doc **at);
/* A whole number in [k->min, k->max] into the unsigned at k->offset. */
int policy_build_set_uint(struct policy_build *b, const struct policy_key *k,
			  const struct policy_doc *val, void *obj);

/* policy_sa.c: the sa: section, into ((struct policy *)obj)->sa. */
int policy_build_sa(struct policy_build *b, const struct policy_key *k,
		    const struct policy_doc *val, void *obj);

#endif
