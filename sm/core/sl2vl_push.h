/*
 * sm/core/sl2vl_push.h - the SM phase that programs SLtoVLMappingTables
 * (IBA 14.2.5.8), so that the service levels the routing engine gave the
 * paths (struct lft_set's sl[], n_vls) ride the virtual lanes it planned.
 *
 * DOC: The convention of routing/fabric.h: SL s rides VL s at every hop.
 * With the winning tables using n_vls VLs, every linked CA port (attribute
 * modifier 0, through the port's own directed route) and every pair of a
 * switch's input port (port 0, the switch's own agents, included) and a
 * different linked output port (modifier (in << 8) | out) should hold
 *
 *   SL s -> VL s   for s < n_vls, when the output port's OperationalVLs
 *                  carries VL s;
 *   SL s -> VL 0   otherwise: the SLs no path uses (IBA would drop SL s
 *                  on VL 15; nanosm keeps such traffic flowing on VL 0,
 *                  as a port's default table does), and an SL the output
 *                  port cannot carry - harmless on a link to or from a CA
 *                  (no dependency cycle passes through one), logged as
 *                  NSM-W451 on a link between two switches (the engine
 *                  asked for more VLs than that cable has).
 *
 * configure.c already sets OperationalVLs to the most both ends' VLCap
 * allow, before the routes are computed.  With n_vls 1 (every engine but
 * a VL-aware one) the phase sends nothing at all: any table keeps SL 0 on
 * one VL per hop, which cannot close a cycle the single-VL gate did not
 * see.
 *
 * Only tables that differ from what the port holds are written.  A
 * struct sl2vl_cache remembers, per node GUID and port pair, the table
 * each port last answered with (an index into a small pool of distinct
 * tables: one byte per pair); a pair the cache does not know (the first
 * sweep, a restart, a new switch) is read first (SLtoVLMappingTable Get)
 * and set only when it differs, so a restarted SM rewrites nothing that is
 * already right.  The cache forgets a switch whose LFT was lost (a reboot,
 * lft_push.c tells it) and a CA port that is not ACTIVE when the phase
 * runs (a host that came back), and a pair whose Set failed.  Sets are
 * counted in sm->st.sl2vl_sets, Gets in sl2vl_reads, failures in
 * set_errors with NSM-W450 naming the port pair.  Not for use outside sm/.
 */
#ifndef NANOSM_SM_CORE_SL2VL_PUSH_H
#define NANOSM_SM_CORE_SL2VL_PUSH_H

#include "mad/smp.h"
#include "sm/core/sm_priv.h"

struct sl2vl_cache;

/* An empty cache (every pair is read first), or NULL. */
struct sl2vl_cache *sl2vl_cache_new(void);
void sl2vl_cache_free(struct sl2vl_cache *c);
/* Forget every table of one node (it was reset): 0 or -ENOENT. */
int sl2vl_cache_forget(struct sl2vl_cache *c, uint64_t node_guid);

/* The table a port should hold when the paths use n_vls VLs and its
 * OperationalVLs encoding is oper_vls.  Returns the number of SLs below
 * n_vls the port cannot carry (they ride VL 0). */
unsigned sl2vl_want(unsigned n_vls, uint8_t oper_vls, struct smp_sl2vl *t);

/* Push the tables for n_vls (sm->lfts.n_vls) to the ports of sm->next
 * using and updating c, then sm_phase_wait(sm, then).  c is borrowed
 * until then runs (the push's SMPs carry it as their context, so one
 * push per cache at a time; a push cancelled by sm_free leaves nothing
 * to free).  Pairs are queued SM_FEED_BATCH SMPs at a time.  With n_vls
 * 1 nothing is sent and then runs from this call. */
void sl2vl_push_start(struct sm *sm, struct sl2vl_cache *c, unsigned n_vls, sm_phase_fn then);

#endif
