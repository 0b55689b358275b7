/*
 * sm/core/progress.c - when a long sweep says how far it got, and the words it
 * uses.  Pure: no clock, no log, no struct sm (sm.c snapshots, the loop
 * logs).
 */
#include <inttypes.h>
#include <stdio.h>

#include "sm/core/progress.h"

void progress_init(struct progress *p, uint64_t every_ms)
{
	p->every_ms = every_ms ? every_ms : PROGRESS_EVERY_MS;
	p->sweep = 0;
	p->last_ms = 0;
}

int progress_due(struct progress *p, const struct progress_snap *s)
{
	if (!s->running || s->elapsed_ms < p->every_ms)
		return 0;
	if (p->sweep != s->sweep) { /* a new sweep: its first line is due */
		p->sweep = s->sweep;
		p->last_ms = s->elapsed_ms;
		return 1;
	}
	if (s->elapsed_ms < p->last_ms || s->elapsed_ms - p->last_ms < p->every_ms)
		return 0;
	p->last_ms = s->elapsed_ms;
	return 1;
}

const char *progress_phase_name(enum progress_phase ph)
{
	switch (ph) {
	case PROGRESS_DISCOVER:
		return "discovering";
	case PROGRESS_PORTS:
		return "assigning LIDs and configuring ports";
	case PROGRESS_LFTS:
		return "pushing LFTs";
	case PROGRESS_PKEYS:
		return "pushing P_Key tables";
	case PROGRESS_ARM:
		return "arming ports";
	case PROGRESS_ACTIVATE:
		return "activating ports";
	case PROGRESS_MFTS:
		return "pushing MFTs";
	case PROGRESS_OTHER:
		break;
	}
	return "routing";
}

/* "done/queued" of the Sets a phase queued so far, from what is still
 * outstanding (the LFT push and the state walks queue batches of about 4096
 * SMPs, so "queued" grows as they go; the other phases queue all at once). */
static size_t progress_done(size_t queued, size_t outstanding)
{
	return outstanding < queued ? queued - outstanding : 0;
}

int progress_format(const struct progress_snap *s, char *buf, size_t len)
{
	const char *name = progress_phase_name(s->phase);
	unsigned secs = (unsigned)(s->elapsed_ms / 1000u);
	unsigned tenths = (unsigned)(s->elapsed_ms % 1000u / 100u);

	switch (s->phase) {
	case PROGRESS_DISCOVER:
		return snprintf(buf, len,
				"sweep %u in progress: %s: nodes=%zu ports=%zu mads=%" PRIu64
				" elapsed=%u.%us",
				s->sweep, name, s->nodes, s->ports, s->mads, secs, tenths);
	case PROGRESS_LFTS:
		return snprintf(buf, len,
				"sweep %u in progress: %s: blocks=%zu/%zu mads=%" PRIu64
				" elapsed=%u.%us",
				s->sweep, name, progress_done(s->lft_blocks, s->outstanding),
				s->lft_blocks, s->mads, secs, tenths);
	case PROGRESS_PORTS:
		return snprintf(buf, len,
				"sweep %u in progress: %s: sets=%zu/%zu mads=%" PRIu64
				" elapsed=%u.%us",
				s->sweep, name, progress_done(s->port_sets, s->outstanding),
				s->port_sets, s->mads, secs, tenths);
	case PROGRESS_ARM:
	case PROGRESS_ACTIVATE:
		return snprintf(buf, len,
				"sweep %u in progress: %s: outstanding=%zu mads=%" PRIu64
				" elapsed=%u.%us",
				s->sweep, name, s->outstanding, s->mads, secs, tenths);
	default:
		return snprintf(buf, len,
				"sweep %u in progress: %s: mads=%" PRIu64 " elapsed=%u.%us",
				s->sweep, name, s->mads, secs, tenths);
	}
}
