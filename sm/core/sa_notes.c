/*
 * sm/core/sa_notes.c - logs what the SA refused or gave up on (struct
 * sa_note: no MLID under the switches' cap, a port over its quota, a
 * subscriber that never answered its Reports), at most one line a second
 * per kind with the count of those not said; and the SA limits the policy
 * sets.  Owns struct sm_sa_notes; the SA itself never logs.
 */
#include <inttypes.h>

#include "sm/core/log.h"
#include "sm/core/sm_priv.h"
#include "sm/sa/server.h"

#define SA_NOTES_EVERY_MS 1000

void sm_set_sa_limits(struct sm *sm, const struct sa_limits *lim)
{
	sa_set_limits(sm->sa, lim);
}

static void sa_notes_say(const struct sa_note *n, uint64_t quiet)
{
	switch (n->kind) {
	case SA_NOTE_MLID_FULL:
		log_warnx("NSM-W470 multicast join from port 0x%016" PRIx64 " (LID %u) refused "
			  "(0x0100): every MLID the switches hold is in use (%u from 0xC000, the "
			  "smallest MulticastFDBCap); %" PRIu64 " more refused since the last line",
			  n->port_guid, n->lid, n->limit, quiet);
		break;
	case SA_NOTE_QUOTA:
		log_warnx("NSM-W471 port 0x%016" PRIx64 " (LID %u) refused (0x0100): it holds its "
			  "quota of %u %s (policy sa:); %" PRIu64
			  " more refused since the last line",
			  n->port_guid, n->lid, n->limit,
			  sa_quota_kind_name((enum sa_quota_kind)n->quota), quiet);
		break;
	case SA_NOTE_SUB_DROPPED:
		log_warnx("NSM-W472 InformInfo subscription of port 0x%016" PRIx64 " (LID %u) "
			  "dropped: no ReportResp after %u tries; %" PRIu64
			  " more dropped since the "
			  "last line",
			  n->port_guid, n->lid, n->tries, quiet);
		break;
	}
}

void sa_notes_hook(void *ctx, const struct sa_note *n)
{
	struct sm *sm = ctx;
	struct sm_sa_notes *s = &sm->sa_notes;
	unsigned k = (unsigned)n->kind;
	uint64_t now = sm_now(sm);

	if (k >= SM_SA_NOTE_KINDS)
		return;
	if (s->said[k] && now < s->said_ms[k] + SA_NOTES_EVERY_MS) {
		s->quiet[k]++;
		return;
	}
	sa_notes_say(n, s->quiet[k]);
	s->said[k] = 1;
	s->said_ms[k] = now;
	s->quiet[k] = 0;
}
