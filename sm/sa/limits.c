/*
 * sm/sa/limits.c - the SA's limits: the MLIDs the switches can hold, the
 * per-port quotas in force, what is held against them, and the notes the
 * SA's owner logs when a limit refuses something.  Reads the view and the
 * modules' counts; the modules enforce the limits themselves.
 */
#include <string.h>

#include "mad/smp.h"
#include "routing/mft.h"
#include "sm/sa/mcast.h"
#include "sm/sa/server.h"
#include "sm/sa/services.h"

void sa_set_limits(struct sa *sa, const struct sa_limits *lim)
{
	sa->lim = *lim;
}

void sa_note(const struct sa *sa, const struct sa_note *n)
{
	if (sa->note)
		sa->note(sa->note_ctx, n);
}

/* MLIDs every switch of f can hold, counted from 0xC000: the smallest
 * MulticastFDBCap, bounded by MulticastFDBTop where a switch reports one
 * (a switch drops MLIDs above its top).  Switches that report neither do
 * not limit; no switch at all: the whole multicast range. */
unsigned sa_limits_mlid_cap(const struct fabric *f)
{
	unsigned cap = MFT_MLID_MAX - MFT_MLID_BASE + 1;

	for (size_t i = 0; f && i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];
		struct smp_switch_info si;

		if (!fabric_is_switch(n))
			continue;
		smp_switch_info_decode(n->si_raw, &si);
		if (si.mcast_fdb_cap && si.mcast_fdb_cap < cap)
			cap = si.mcast_fdb_cap;
		if (si.mcast_fdb_top >= MFT_MLID_BASE &&
		    si.mcast_fdb_top - MFT_MLID_BASE + 1u < cap)
			cap = si.mcast_fdb_top - MFT_MLID_BASE + 1u;
	}
	return cap;
}

static void sa_usage_top(const struct sa *sa, enum sa_quota_kind k, struct sa_usage *u)
{
	struct sa_quota_user top[SA_USAGE_TOP];
	size_t n = sa_quota_top(sa->quota, k, top, SA_USAGE_TOP);

	for (size_t i = 0; i < n; i++) {
		u->top[k][i].guid = top[i].guid;
		u->top[k][i].used = top[i].used;
	}
}

void sa_get_usage(const struct sa *sa, struct sa_usage *u)
{
	struct sa_svc_stats st;

	memset(u, 0, sizeof(*u));
	u->mlid_cap = sa->mlid_cap;
	u->mlids_used = mcast_db_mlids_used(sa->mcast);
	sa_svc_get_stats(sa->svc, &st);
	u->held[SA_QUOTA_GROUPS] = mcast_db_count(sa->mcast);
	u->held[SA_QUOTA_SERVICES] = st.services;
	u->held[SA_QUOTA_SUBS] = st.subscriptions;
	u->limit[SA_QUOTA_GROUPS] = sa->lim.groups_per_port;
	u->limit[SA_QUOTA_SERVICES] = sa->lim.services_per_port;
	u->limit[SA_QUOTA_SUBS] = sa->lim.subs_per_port;
	for (int k = 0; k < SA_QUOTA_KINDS; k++)
		sa_usage_top(sa, (enum sa_quota_kind)k, u);
}
