/*
 * policy_sm.c - the policy's sm: section: the SM port (guid, or ca and
 * port), priority, sweep and MAD settings, files, log level, and the
 * M_Key/SM_Key rules that tie its keys together.  Pure; the walkers are
 * policy_build.c's.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config/policy.h"
#include "config/policy_build_priv.h"
#include "config/policy_doc.h"

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

const struct policy_key policy_sm_keys[] = {
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

int policy_sm_build(struct policy_build *b, const struct policy_key *k,
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
