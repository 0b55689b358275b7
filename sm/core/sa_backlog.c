/*
 * sm/core/sa_backlog.c - SA requests while a sweep runs: held in a ring
 * (struct sm_sa_backlog) and let through one per SMP answer, the rest when
 * the sweep ends, so a flood of SA answers never queues in front of the
 * sweep's SMPs.  Owns struct sm_sa_backlog; answers through the SA.
 */
#include <stdlib.h>
#include <string.h>

#include "sm/core/sm_priv.h"
#include "sm/sa/server.h"

/* Only the master's SA serves (IBA 15.1): anywhere else the request is
 * dropped, and the client's retries find the master. */
static void sa_backlog_answer(struct sm *sm, const struct mad_addr *from, const uint8_t *mad,
			      size_t len)
{
	if (sm->ha.state != SM_STATE_MASTER) {
		sm->ha.sa_dropped++;
		return;
	}
	sa_recv(sm->sa, from, mad, len, sm_now(sm));
	sweep_mcast_check(sm);
}

/* Hold an SA request until the sweep's SMPs have gone by.  The answers
 * come from the last committed view either way; holding them keeps a
 * flood of answers from queueing in front of the sweep's SMPs (the
 * clients wait for answers, so the flood waits here, not on the wire). */
static void sa_backlog_hold(struct sm *sm, const struct mad_addr *from, const uint8_t *mad,
			    size_t len)
{
	struct sm_sa_pending *e;

	if (!sm->sa_backlog.q)
		sm->sa_backlog.q = calloc(SM_SA_BACKLOG, sizeof(*sm->sa_backlog.q));
	if (!sm->sa_backlog.q || sm->sa_backlog.n == SM_SA_BACKLOG) {
		sm->sa->counters.backlog_dropped++; /* the client retries */
		return;
	}
	e = &sm->sa_backlog.q[(sm->sa_backlog.head + sm->sa_backlog.n) % SM_SA_BACKLOG];
	e->from = *from;
	e->len = len < sizeof(e->mad) ? len : sizeof(e->mad);
	memcpy(e->mad, mad, e->len);
	sm->sa_backlog.n++;
	sm->sa->counters.deferred++;
}

/* Answer up to max held requests (all when max is 0), oldest first; stops
 * early if an answer started a multicast push. */
void sa_backlog_release(struct sm *sm, size_t max)
{
	for (size_t done = 0; sm->sa_backlog.n && (!max || done < max); done++) {
		struct sm_sa_pending e = sm->sa_backlog.q[sm->sa_backlog.head];

		sm->sa_backlog.head = (sm->sa_backlog.head + 1) % SM_SA_BACKLOG;
		sm->sa_backlog.n--;
		sa_backlog_answer(sm, &e.from, e.mad, e.len);
		if (!max && sm->running)
			break;
	}
}

/* An SA MAD: answered now, or held while a sweep runs.  A multicast push
 * between sweeps holds nothing: joins are answered at once (from the
 * groups as they are now) and the groups they change are pushed together
 * when the running push ends (sweep_after_mfts), one push for a burst of
 * joins instead of a wait in the backlog for each. */
void sa_backlog_recv(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	if (sm->running && !sm->sweep.mcast_only)
		sa_backlog_hold(sm, from, mad, len);
	else
		sa_backlog_answer(sm, from, mad, len);
}

void sa_backlog_fini(struct sm *sm)
{
	free(sm->sa_backlog.q);
	sm->sa_backlog.q = NULL;
	sm->sa_backlog.head = sm->sa_backlog.n = 0;
}
