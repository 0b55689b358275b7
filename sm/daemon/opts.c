/*
 * sm/daemon/opts.c - merge the policy (config/) into the daemon's settings, leaving
 * alone whatever the command line fixed.  No I/O.
 */
#include <stdio.h>

#include "sm/daemon/opts.h"
#include "sm/sa/server.h"

static void opts_apply_port(struct loop_opts *o, const struct policy_sm *s)
{
	o->port_guid = s->guid;
	o->ca = s->ca[0] ? s->ca : NULL;
	o->port = (int)s->port;
}

static void opts_apply_mad(struct loop_opts *o, const struct policy_sm *s)
{
	if (!(o->cli_set & OPTS_CLI_WINDOW))
		o->sm.mad.window = s->window;
	if (!(o->cli_set & OPTS_CLI_TIMEOUT))
		o->sm.mad.timeout_ms = s->mad_timeout_ms;
	if (!(o->cli_set & OPTS_CLI_RETRIES))
		o->sm.mad.retries = s->mad_retries;
}

/* Keys come from the policy only (no flag: they stay out of `ps`).  The
 * SM copies them when it starts, so a reload changes them in o but not on
 * the running SM. */
static void opts_apply_keys(struct loop_opts *o, const struct policy_sm *s)
{
	o->sm.m_key = s->m_key;
	o->sm.m_key_protect = (uint8_t)s->m_key_protect;
	o->sm.m_key_lease = (uint16_t)s->m_key_lease;
	o->sm.sm_key = s->sm_key;
}

void opts_apply_policy(struct loop_opts *o, const struct policy *p)
{
	if (!(o->cli_set & OPTS_CLI_PORT))
		opts_apply_port(o, &p->sm);
	if (!(o->cli_set & OPTS_CLI_INTERVAL))
		o->sweep_interval = p->sm.sweep_interval;
	if (!(o->cli_set & OPTS_CLI_GUID2LID))
		o->sm.guid2lid = p->sm.guid2lid;
	o->sm.lid_reclaim_age = p->lids.reclaim_age;
	o->topology = p->sm.topology;
	if (!(o->cli_set & OPTS_CLI_ENGINE)) {
		policy_engine_list(p, o->engines, sizeof(o->engines));
		o->sm.engine = o->engines;
	}
	if (!(o->cli_set & OPTS_CLI_ROOTS)) {
		o->sm.roots = p->routing.roots;
		o->sm.n_roots = p->routing.n_roots;
	}
	if (!(o->cli_set & OPTS_CLI_PRIORITY))
		o->sm.priority = (uint8_t)p->sm.priority;
	if (!(o->cli_set & OPTS_CLI_VERBOSE))
		o->verbosity = (int)p->sm.log_level;
	opts_apply_mad(o, &p->sm);
	opts_apply_keys(o, &p->sm);
	o->policy = p;
}

void opts_sa_limits(const struct policy *p, struct sa_limits *out)
{
	struct policy_sa d;
	const struct policy_sa *s = p ? &p->sa : &d;

	policy_sa_init(&d);
	*out =
	    (struct sa_limits){s->groups_per_port, s->services_per_port, s->subscriptions_per_port,
			       s->reports_per_second, s->report_retries};
}
