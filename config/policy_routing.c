/*
 * policy_routing.c - the policy's routing: section: the engine or the
 * engines' fallback order, the fat tree's roots by GUID, and per-engine
 * options (none taken yet).  Pure; the walkers are policy_build.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/policy.h"
#include "config/policy_build_priv.h"
#include "config/policy_doc.h"
#include "config/policy_seen.h"
#include "routing/route.h"

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

const struct policy_key policy_routing_keys[] = {
    {"engine", policy_build_engine, 0, 0, 0},
    {"roots", policy_build_roots, 0, 0, 0},
    {"options", policy_build_options, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};

int policy_routing_build(struct policy_build *b, const struct policy_key *k,
			 const struct policy_doc *val, void *obj)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL};

	return policy_build_map(b, val, k->key, policy_routing_keys, obj, at);
}
