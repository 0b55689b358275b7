/*
 * policy_node_names.c - the policy's node_names: section: a name for a
 * node GUID, each GUID once.  Pure; the walkers are policy_build.c's.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#include "config/policy.h"
#include "config/policy_build_priv.h"
#include "config/policy_doc.h"
#include "config/policy_seen.h"

int policy_node_names_build(struct policy_build *b, const struct policy_key *k,
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
