/*
 * config/policy_sa.c - the policy's sa: section (the SA's per-port quotas
 * and Report limits): its keys and ranges, defaults, comparison,
 * canonical print and diff.  Pure; the walkers are policy_build.c's.
 */
#include <stddef.h>

#include "config/policy.h"
#include "config/policy_build_priv.h"
#include "config/policy_doc.h"
#include "mad/text.h"

#define POLICY_SA_AT(f) offsetof(struct policy_sa, f)

static const struct policy_key policy_sa_keys[] = {
    {"groups_per_port", policy_build_set_uint, 0, POLICY_SA_QUOTA_MAX,
     POLICY_SA_AT(groups_per_port)},
    {"services_per_port", policy_build_set_uint, 0, POLICY_SA_QUOTA_MAX,
     POLICY_SA_AT(services_per_port)},
    {"subscriptions_per_port", policy_build_set_uint, 0, POLICY_SA_QUOTA_MAX,
     POLICY_SA_AT(subscriptions_per_port)},
    {"reports_per_second", policy_build_set_uint, 0, POLICY_SA_RATE_MAX,
     POLICY_SA_AT(reports_per_second)},
    {"report_retries", policy_build_set_uint, 0, POLICY_SA_RETRIES_MAX,
     POLICY_SA_AT(report_retries)},
    {NULL, NULL, 0, 0, 0},
};

int policy_sa_build(struct policy_build *b, const struct policy_key *k,
		    const struct policy_doc *val, void *obj)
{
	const struct policy_doc *at[sizeof(policy_sa_keys) / sizeof(policy_sa_keys[0])] = {NULL};

	return policy_build_map(b, val, k->key, policy_sa_keys, &((struct policy *)obj)->sa, at);
}

void policy_sa_init(struct policy_sa *s)
{
	s->groups_per_port = POLICY_SA_GROUPS;
	s->services_per_port = POLICY_SA_SERVICES;
	s->subscriptions_per_port = POLICY_SA_SUBSCRIPTIONS;
	s->reports_per_second = POLICY_SA_REPORTS_PER_SECOND;
	s->report_retries = POLICY_SA_REPORT_RETRIES;
}

/* The fields in key order, for print and diff. */
static void policy_sa_values(const struct policy_sa *s, unsigned v[5])
{
	v[0] = s->groups_per_port;
	v[1] = s->services_per_port;
	v[2] = s->subscriptions_per_port;
	v[3] = s->reports_per_second;
	v[4] = s->report_retries;
}

int policy_sa_equal(const struct policy_sa *a, const struct policy_sa *b)
{
	unsigned va[5], vb[5];

	policy_sa_values(a, va);
	policy_sa_values(b, vb);
	for (int i = 0; i < 5; i++)
		if (va[i] != vb[i])
			return 0;
	return 1;
}

void policy_sa_print(struct text_sink *o, const struct policy_sa *s)
{
	struct policy_sa d;
	unsigned v[5];

	policy_sa_init(&d);
	if (policy_sa_equal(s, &d))
		return;
	policy_sa_values(s, v);
	text_sinkf(o, "sa:\n");
	for (int i = 0; i < 5; i++)
		text_sinkf(o, "  %s: %u\n", policy_sa_keys[i].key, v[i]);
}

void policy_sa_diff(struct text_sink *o, const struct policy_sa *a, const struct policy_sa *b)
{
	unsigned va[5], vb[5];

	policy_sa_values(a, va);
	policy_sa_values(b, vb);
	for (int i = 0; i < 5; i++)
		if (va[i] != vb[i])
			text_sinkf(o, "sa.%s: %u -> %u\n", policy_sa_keys[i].key, va[i], vb[i]);
}
