/*
 * sa_modules.c - wires the SA modules into sa.c: attribute -> handler, and
 * each module's new/free/update/tick.  Owns no state of its own.
 */
#include "sa_modules.h"

#include <stddef.h>

struct sa_route {
	uint16_t attr_id;
	sa_handler_fn fn;
};

static const struct sa_route sa_routes[] = {
	{ 0, NULL },
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
	(void)sa;
	return 0;
}

void sa_modules_free(struct sa *sa)
{
	(void)sa;
}

void sa_modules_update(struct sa *sa, int routes_changed)
{
	(void)sa;
	(void)routes_changed;
}

void sa_modules_tick(struct sa *sa, uint64_t now_ms)
{
	(void)sa;
	(void)now_ms;
}

void sa_modules_response(struct sa *sa, const struct sa_mad *m)
{
	(void)sa;
	(void)m;
}
