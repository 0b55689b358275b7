/*
 * sm/core/pkey_push.h - the SM phase that programs partition plans into ports.
 *
 * DOC: pkey_push_start writes P_KeyTable block 0 (the plan's table padded
 * with zeros) of every port of a struct pkey_plan built for sm->next: CA
 * and router ports through their own directed route (a CA takes a Set
 * only on the port the SMP arrived on), switch ports through the switch's
 * route with attribute modifier (port << 16) | 0.  A struct pkey_cache
 * remembers, per node GUID and port number, the block each port last
 * answered with; a port whose cached block is the wanted one gets no SMP.
 * A port not in the cache (first sweep, restart) is read first and only
 * set when it differs, so a restarted SM does not rewrite correct tables.
 * Sets are counted in sm->st.pkey_blocks_sent, failures (Get or Set) in
 * sm->st.set_errors with an NSM-W42x log line naming the port; the cache
 * changes only on success.  Not for use outside sm/.
 */
#ifndef NANOSM_SM_CORE_PKEY_PUSH_H
#define NANOSM_SM_CORE_PKEY_PUSH_H

#include "config/pkey.h"
#include "sm/core/sm_priv.h"

struct pkey_cache;

/* An empty cache (nothing known: every port is read first), or NULL. */
struct pkey_cache *pkey_cache_new(void);
void pkey_cache_free(struct pkey_cache *c);
/* Forget everything (the next push reads every port again). */
void pkey_cache_clear(struct pkey_cache *c);
/* Distinct blocks the cache keeps (ports holding the same table share
 * one; blocks no port holds are dropped once they outnumber the ports). */
size_t pkey_cache_blocks(const struct pkey_cache *c);

/* Push pp (built for sm->next, indices into sm->next.nodes) using and
 * updating c, then sm_phase_wait(sm, then).  pp and c are borrowed until
 * then runs (or until sm_free cancels the phase); the phase does not
 * change sm->next.  The push's SMPs carry c as their context (c keeps pp
 * for them), so one push per cache at a time; a cancelled push leaves
 * nothing to free.  Ports are queued SM_FEED_BATCH SMPs at a time. */
void pkey_push_start(struct sm *sm, const struct pkey_plan *pp, struct pkey_cache *c,
		     sm_phase_fn then);

#endif
