/*
 * sm/core/mcast_policy.c - the policy's IPoIB broadcast groups as the SM keeps
 * them: a reload that changes a group's MTU or rate asks its members to
 * reregister, and ports that cannot carry a group are said (NSM-W440).
 * The groups themselves live in mcast.c; this file only logs and asks.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "mad/sa_path.h"
#include "mad/smp.h"
#include "sm/core/log.h"
#include "sm/core/sm_priv.h"
#include "sm/sa/mcast.h"

#define MCAST_POLICY_NAMED 4 /* ports named in one NSM-W440 line */

static void mcast_policy_mgid(const uint8_t mgid[16], char out[INET6_ADDRSTRLEN])
{
	if (!inet_ntop(AF_INET6, mgid, out, INET6_ADDRSTRLEN))
		snprintf(out, INET6_ADDRSTRLEN, "?");
}

/* A Rate enum in Gb/s ("2.5", "10", "?" when unknown). */
static const char *mcast_policy_rate(uint8_t rate, char *buf, size_t len)
{
	uint32_t mbps = sa_path_rate_mbps(rate);

	if (!mbps)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%g", mbps / 1000.0);
	return buf;
}

/* The port GUID of a port GID (its low 64 bits). */
static uint64_t mcast_policy_gid_guid(const uint8_t gid[16])
{
	uint64_t g = 0;

	for (int i = 8; i < 16; i++)
		g = g << 8 | gid[i];
	return g;
}

/* A group's MTU or rate changed under its members, who joined with the
 * old figures: each member port is asked to reregister at the next sweep
 * (and joins again, learning the new ones).  Before the SA has a view
 * (our first sweep as master has not ended: at start-up the policy
 * replaces the defaults the SM began with) it has answered nothing, no
 * one joined, and that sweep asks every port anyway: nothing to say. */
static void mcast_policy_retuned(void *ctx, const struct mcast_group_info *was,
				 const struct mcast_group_info *now)
{
	struct sm *sm = ctx;
	char mgid[INET6_ADDRSTRLEN], r0[16], r1[16];
	uint8_t gid[16];

	if (!sm->sa->v.f)
		return;
	for (size_t i = 0; mcast_db_member(sm->sa->mcast, now->mgid, i, gid) == 0; i++)
		configure_rereg_ask(sm, mcast_policy_gid_guid(gid));
	mcast_policy_mgid(now->mgid, mgid);
	log_info("IPoIB group %s (P_Key 0x%04x): MTU %u -> %u, rate %s -> %s Gb/s; %zu member "
		 "port%s asked to re-register (ClientReregister at the next sweep)",
		 mgid, now->pkey, smp_mtu_bytes(was->mtu), smp_mtu_bytes(now->mtu),
		 mcast_policy_rate(was->rate, r0, sizeof(r0)),
		 mcast_policy_rate(now->rate, r1, sizeof(r1)), now->n_members,
		 now->n_members == 1 ? "" : "s");
}

int mcast_policy_apply(struct sm *sm, const struct policy_partition *parts, size_t n)
{
	return mcast_db_set_partitions(sm->sa->mcast, parts, n, mcast_policy_retuned, sm);
}

/* ---- ports that cannot carry a group ---------------------------------- */

/* One group's ports that cannot carry it: a fingerprint, and the first
 * MCAST_POLICY_NAMED of them as text. */
struct mcast_policy_misfits {
	const struct sm *sm;
	uint64_t sig;
	size_t n;
	char text[MCAST_POLICY_NAMED * 96];
	size_t len;
};

static uint64_t mcast_policy_mix(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		h = (h ^ (uint8_t)(v >> (8 * i))) * 0x100000001b3ULL; /* FNV-1a */
	return h;
}

static void mcast_policy_misfit(void *ctx, struct sa_port_ref r)
{
	struct mcast_policy_misfits *m = ctx;
	const struct fabric_node *nd = &m->sm->cur.nodes[r.node];
	const struct fabric_port *p = &nd->ports[r.port];
	char rate[16];

	m->sig = mcast_policy_mix(m->sig, p->guid);
	if (m->n++ >= MCAST_POLICY_NAMED || m->len >= sizeof(m->text))
		return;
	mcast_policy_rate(sa_path_rate_from_port_info(p->pi_raw, p->width_active, p->speed_active),
			  rate, sizeof(rate));
	m->len += (size_t)snprintf(m->text + m->len, sizeof(m->text) - m->len,
				   "%s\"%s\" 0x%016llx/%u (MTUCap %u, %s Gb/s)",
				   m->n > 1 ? ", " : "", nd->desc, (unsigned long long)p->guid,
				   r.port, smp_mtu_bytes(p->mtu_cap), rate);
}

/* The misfits of policy group i, or 0 when it is not a policy group. */
static size_t mcast_policy_group_misfits(const struct sm *sm, size_t i, struct mcast_group_info *gi,
					 struct mcast_policy_misfits *m)
{
	memset(m, 0, sizeof(*m));
	m->sm = sm;
	if (mcast_db_group(sm->sa->mcast, i, gi) < 0 || !gi->policy)
		return 0;
	return mcast_group_misfits(sm->sa, gi, mcast_policy_misfit, m);
}

static void mcast_policy_warn(const struct mcast_group_info *gi,
			      const struct mcast_policy_misfits *m)
{
	char mgid[INET6_ADDRSTRLEN], rate[16], more[32] = "";

	mcast_policy_mgid(gi->mgid, mgid);
	if (m->n > MCAST_POLICY_NAMED)
		snprintf(more, sizeof(more), " and %zu more", m->n - MCAST_POLICY_NAMED);
	log_warnx("NSM-W440 IPoIB group %s (P_Key 0x%04x) has MTU %u and rate %s Gb/s, which "
		  "%zu port%s of its partition cannot carry, so they cannot join it (lower the "
		  "partition's mtu or rate, or fix their links): %s%s",
		  mgid, gi->pkey, smp_mtu_bytes(gi->mtu),
		  mcast_policy_rate(gi->rate, rate, sizeof(rate)), m->n, m->n == 1 ? "" : "s",
		  m->text, more);
}

void mcast_policy_fit_check(struct sm *sm)
{
	size_t n = mcast_db_count(sm->sa->mcast);
	struct mcast_policy_misfits m;
	struct mcast_group_info gi;
	uint64_t sig = 0;

	for (size_t i = 0; i < n; i++)
		if (mcast_policy_group_misfits(sm, i, &gi, &m))
			sig = mcast_policy_mix(mcast_policy_mix(sig, m.sig),
					       (uint64_t)gi.pkey << 16 | gi.mtu << 8 | gi.rate);
	if (sig == sm->mcast_fit_sig)
		return; /* said already (or nothing to say) */
	sm->mcast_fit_sig = sig;
	for (size_t i = 0; i < n; i++)
		if (mcast_policy_group_misfits(sm, i, &gi, &m))
			mcast_policy_warn(&gi, &m);
}
