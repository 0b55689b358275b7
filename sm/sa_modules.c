/*
 * sa_modules.c - wires the SA modules into sa.c: attribute -> handler, and
 * each module's new/free/update/tick.  Owns no state of its own.
 */
#include "sa_modules.h"

#include <errno.h>
#include <stddef.h>

#include "sa_svc.h"

struct sa_route {
	uint16_t attr_id;
	sa_handler_fn fn;
};

static const struct sa_route sa_routes[] = {
	{ SA_ATTR_SERVICE_RECORD, sa_svc_handle },
	{ SA_ATTR_INFORM_INFO, sa_svc_handle },
	{ SA_ATTR_INFORM_INFO_RECORD, sa_svc_handle },
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
	if (!sa->svc)
		return -ENOMEM;
	return 0;
}

void sa_modules_free(struct sa *sa)
{
	sa_svc_free(sa->svc);
	sa->svc = NULL;
}

void sa_modules_update(struct sa *sa, int routes_changed)
{
	(void)routes_changed;
	sa_svc_prune(sa);
}

void sa_modules_tick(struct sa *sa, uint64_t now_ms)
{
	sa_svc_tick(sa, now_ms);
}

void sa_modules_response(struct sa *sa, const struct sa_mad *m)
{
	if (m->attr_id == SA_ATTR_NOTICE)
		sa_svc_report_resp(sa, m);
}
