/*
 * sm/core/standby.c - the SM state machine's decisions (see standby.h): who wins,
 * what to do next.  Pure: no MADs, no clock, no logging, no globals.
 */
#include "sm/core/standby.h"
#include "mad/smp.h"

int standby_better(const struct standby_sm *a, const struct standby_sm *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority;
	return a->guid < b->guid;
}

/* Index of the best peer in one of the states of mask (bit = state) that
 * also beats self when must_beat; n when there is none. */
static size_t standby_best(const struct standby_sm *self, const struct standby_sm *peers, size_t n,
			   unsigned mask, int must_beat)
{
	size_t best = n;

	for (size_t i = 0; i < n; i++) {
		const struct standby_sm *p = &peers[i];

		if (p->guid == self->guid || p->state > SM_STATE_MASTER || !(mask & 1u << p->state))
			continue;
		if (must_beat && !standby_better(p, self))
			continue;
		if (best == n || standby_better(p, &peers[best]))
			best = i;
	}
	return best;
}

#define STANDBY_BIT(s) (1u << (s))

static enum standby_act standby_pick(enum standby_act act, size_t i, size_t *which)
{
	if (which)
		*which = i;
	return act;
}

enum standby_act standby_decide(const struct standby_sm *self, const struct standby_sm *peers,
				size_t n, size_t *which)
{
	const unsigned waiting = STANDBY_BIT(SM_STATE_DISCOVERING) | STANDBY_BIT(SM_STATE_STANDBY);
	size_t i;

	if (self->state == SM_STATE_MASTER) {
		i = standby_best(self, peers, n, STANDBY_BIT(SM_STATE_MASTER), 1);
		if (i < n)
			return standby_pick(STANDBY_ACT_STANDBY, i, which);
		i = standby_best(self, peers, n, STANDBY_BIT(SM_STATE_STANDBY), 1);
		if (i < n)
			return standby_pick(STANDBY_ACT_HANDOVER, i, which);
		return STANDBY_ACT_MASTER;
	}
	/* discovering: any master rules; it hands over if we are better */
	i = standby_best(self, peers, n, STANDBY_BIT(SM_STATE_MASTER), 0);
	if (i < n)
		return standby_pick(STANDBY_ACT_STANDBY, i, which);
	i = standby_best(self, peers, n, waiting, 1);
	if (i < n)
		return standby_pick(STANDBY_ACT_STANDBY, i, which);
	return STANDBY_ACT_MASTER;
}

int standby_poll_count(struct standby_poll *p, int answered, uint8_t state)
{
	if (answered && state == SM_STATE_MASTER) {
		p->misses = 0;
		return 0;
	}
	p->misses++;
	return p->misses >= STANDBY_MISSES;
}

const char *standby_act_name(enum standby_act a)
{
	switch (a) {
	case STANDBY_ACT_MASTER:
		return "master";
	case STANDBY_ACT_STANDBY:
		return "standby";
	case STANDBY_ACT_HANDOVER:
		return "handover";
	}
	return "unknown";
}
