/*
 * sm/core/warn_group.c - warnings of one kind told once per sweep with a
 * count: the first WARN_GROUP_SHOWN of an ID in a sweep are logged as they
 * come, the others only at debug level (nanosm -v), and the sweep's end
 * adds one line per ID that had more ("NSM-W314: 125 more like the 3
 * above this sweep").  So a fabric of 128 switches that all keep no P_Key
 * enforcement says so in 4 lines, not 128.  Owns sm->warn_groups.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/sm_priv.h"

static struct warn_group *warn_group_find(struct sm *sm, const char *id)
{
	for (size_t i = 0; i < sm->n_warn_groups; i++)
		if (!strcmp(sm->warn_groups[i].id, id))
			return &sm->warn_groups[i];
	if (sm->n_warn_groups == WARN_GROUPS)
		return NULL; /* more kinds than slots: those are not grouped */
	snprintf(sm->warn_groups[sm->n_warn_groups].id, sizeof(sm->warn_groups[0].id), "%s", id);
	sm->warn_groups[sm->n_warn_groups].count = 0;
	return &sm->warn_groups[sm->n_warn_groups++];
}

void sm_warnx_grouped(struct sm *sm, const char *id, const char *fmt, ...)
{
	struct warn_group *g = warn_group_find(sm, id);
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* (a line that starts with an ID is logged at its level at least:
	 * the debug copies start otherwise) */
	if (g && ++g->count > WARN_GROUP_SHOWN)
		log_debug("more of %s: %s", id, msg);
	else
		log_warnx("%s %s", id, msg);
}

void sm_warn_groups_flush(struct sm *sm)
{
	for (size_t i = 0; i < sm->n_warn_groups; i++) {
		const struct warn_group *g = &sm->warn_groups[i];

		if (g->count > WARN_GROUP_SHOWN)
			log_warnx("%s: %u more like the %d above this sweep (each at debug level: "
				  "nanosm -v)",
				  g->id, g->count - WARN_GROUP_SHOWN, WARN_GROUP_SHOWN);
	}
	sm->n_warn_groups = 0;
}
