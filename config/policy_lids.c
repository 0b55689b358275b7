/*
 * policy_lids.c - the policy's lids: section: the LMC (0 only), how long
 * an absent port keeps its LID, and static LIDs by port GUID, each GUID
 * and each LID once.  Pure; the walkers are policy_build.c's.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#include "config/policy.h"
#include "config/policy_build_priv.h"
#include "config/policy_doc.h"
#include "config/policy_seen.h"

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

const struct policy_key policy_lids_keys[] = {
    {"lmc", policy_build_lmc, 0, POLICY_LMC_MAX, 0},
    {"reclaim_age", policy_build_set_uint, 0, POLICY_RECLAIM_AGE_MAX,
     offsetof(struct policy_lids, reclaim_age)},
    {"static", policy_build_static, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};

int policy_lids_build(struct policy_build *b, const struct policy_key *k,
		      const struct policy_doc *val, void *obj)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL};

	return policy_build_map(b, val, k->key, policy_lids_keys, &((struct policy *)obj)->lids,
				at);
}
