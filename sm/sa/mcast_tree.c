/*
 * sm/sa/mcast_tree.c - the SM's side of the multicast groups (see
 * mcast.h): members whose port left are pruned, ports that cannot carry a
 * group are named, and the groups' members become the input of the
 * spanning trees (routing/mft.c).  Reads the database through
 * mcast_priv.h; answers no request.
 */
#include <errno.h>
#include <stdlib.h>

#include "mad/sa_mcm.h"
#include "sm/sa/mcast.h"
#include "sm/sa/mcast_priv.h"

void mcast_db_prune(struct sa *sa)
{
	struct mcast_db *db = sa->mcast;

	if (!db || !sa->v.f)
		return;
	for (size_t i = db->n; i-- > 0;) {
		struct mcast_group *g = db->g[i];

		for (size_t j = g->n; j-- > 0;)
			if (sa_by_gid(sa, g->m[j].gid).node == FABRIC_NONE) {
				mcast_member_remove(g, &g->m[j]);
				db->gen++;
			}
		mcast_group_reap(db, g);
	}
}

size_t mcast_group_misfits(const struct sa *sa, const struct mcast_group_info *gi,
			   mcast_misfit_fn fn, void *ctx)
{
	const struct fabric *f = sa->v.f;
	size_t n = 0;

	for (size_t i = 0; f && i < f->n_nodes; i++) {
		const struct fabric_node *nd = &f->nodes[i];

		for (unsigned p = 1; !fabric_is_switch(nd) && p <= nd->num_ports; p++) {
			struct sa_port_ref r = {(int)i, (uint8_t)p};

			if (!nd->ports[p].present || !nd->ports[p].lid ||
			    mcast_pkey_member(sa, r, gi->pkey) == 0 ||
			    mcast_port_carries(sa, r, gi))
				continue;
			if (fn)
				fn(ctx, r);
			n++;
		}
	}
	return n;
}

/* Members of every group as mft_compute wants them: *groups and *members
 * are malloc'd (the groups point into members). */
static int mcast_mft_input(const struct sa *sa, struct mft_group **groups, size_t *n_groups,
			   struct mft_member **members)
{
	const struct mcast_db *db = sa->mcast;
	size_t total = 0, k = 0;

	for (size_t i = 0; i < db->n; i++)
		total += db->g[i]->n;
	*groups = calloc(db->n + 1, sizeof(**groups));
	*members = calloc(total + 1, sizeof(**members));
	*n_groups = 0;
	if (!*groups || !*members)
		return -ENOMEM;
	for (size_t i = 0; i < db->n; i++) {
		const struct mcast_group *g = db->g[i];
		struct mft_group *mg = &(*groups)[(*n_groups)++];

		mg->mlid = g->info.mlid;
		mg->m = *members + k;
		for (size_t j = 0; j < g->n; j++) {
			struct sa_port_ref r = sa_by_gid(sa, g->m[j].gid);

			if (r.node == FABRIC_NONE)
				continue;
			(*members)[k].node = r.node;
			(*members)[k].port = r.port;
			(*members)[k].send_only =
			    !(g->m[j].join & (SA_MCM_JOIN_FULL | SA_MCM_JOIN_NON));
			k++, mg->n++;
		}
	}
	return 0;
}

int mcast_mft_compute(const struct sa *sa, struct mft_set *out)
{
	static const struct fabric empty = {.sm_node = FABRIC_NONE};
	struct mft_group *groups = NULL;
	struct mft_member *members = NULL;
	size_t n = 0;
	int rc = 0;

	if (sa->mcast && sa->v.f)
		rc = mcast_mft_input(sa, &groups, &n, &members);
	if (rc == 0)
		rc = mft_compute(sa->v.f ? sa->v.f : &empty, groups, n, out, NULL);
	free(groups);
	free(members);
	return rc;
}
