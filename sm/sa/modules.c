/*
 * sm/sa/modules.c - wires the SA modules into server.c: attribute -> handler, and
 * each module's new/free/update/tick.  Owns no state of its own.
 */
#include "sm/sa/modules.h"

#include <errno.h>
#include <stddef.h>

#include "sm/sa/mcast.h"
#include "sm/sa/paths.h"
#include "sm/sa/records.h"
#include "sm/sa/services.h"

struct sa_route {
	uint16_t attr_id;
	sa_handler_fn fn;
};

static const struct sa_route sa_routes[] = {
    {SA_ATTR_CLASS_PORT_INFO, sa_topo_handle}, {SA_ATTR_NODE_RECORD, sa_topo_handle},
    {SA_ATTR_PORTINFO_RECORD, sa_topo_handle}, {SA_ATTR_SWITCHINFO_RECORD, sa_topo_handle},
    {SA_ATTR_LFT_RECORD, sa_topo_handle},      {SA_ATTR_MFT_RECORD, sa_topo_handle},
    {SA_ATTR_SMINFO_RECORD, sa_topo_handle},   {SA_ATTR_LINK_RECORD, sa_topo_handle},
    {SA_ATTR_GUIDINFO_RECORD, sa_topo_handle}, {SA_ATTR_PKEY_TABLE_RECORD, sa_topo_handle},
    {SA_ATTR_PATH_RECORD, sa_path_handle},     {SA_ATTR_MULTIPATH_RECORD, sa_mpath_handle},
    {SA_ATTR_MCMEMBER_RECORD, sa_mcm_handle},  {SA_ATTR_SERVICE_RECORD, sa_svc_handle},
    {SA_ATTR_INFORM_INFO, sa_svc_handle},      {SA_ATTR_INFORM_INFO_RECORD, sa_svc_handle},
};

sa_handler_fn sa_modules_handler(uint16_t attr_id)
{
	for (size_t i = 0; i < sizeof(sa_routes) / sizeof(sa_routes[0]); i++)
		if (sa_routes[i].fn && sa_routes[i].attr_id == attr_id)
			return sa_routes[i].fn;
	return NULL;
}

int sa_modules_new(struct sa *sa)
{
	sa->svc = sa_svc_new();
	sa->paths = sa_paths_new();
	sa->mcast = mcast_db_new();
	sa->quota = sa_quota_new();
	if (!sa->svc || !sa->paths || !sa->mcast || !sa->quota)
		return -ENOMEM;
	mcast_db_set_limits(sa->mcast, 0, sa->quota);
	return 0;
}

void sa_modules_free(struct sa *sa)
{
	sa_svc_free(sa->svc);
	sa_paths_free(sa->paths);
	mcast_db_free(sa->mcast);
	sa_quota_free(sa->quota);
	sa->quota = NULL;
	sa->svc = NULL;
	sa->paths = NULL;
	sa->mcast = NULL;
}

void sa_modules_update(struct sa *sa, int routes_changed)
{
	if (routes_changed)
		sa_paths_flush(sa->paths);
	sa_svc_prune(sa);
	mcast_db_set_limits(sa->mcast, sa->mlid_cap, sa->quota);
	mcast_db_prune(sa);
}

uint64_t sa_modules_tick(struct sa *sa, uint64_t now_ms)
{
	return sa_svc_tick(sa, now_ms);
}

void sa_modules_response(struct sa *sa, const struct sa_mad *m)
{
	if (m->attr_id == SA_ATTR_NOTICE)
		sa_svc_report_resp(sa, m);
}
