/*
 * sm/core/mft_push.h - program the multicast forwarding tables: an SM phase that
 * writes only the MulticastForwardingTable blocks a switch does not hold.
 *
 * DOC: struct mft_cache remembers, per switch GUID, every MFT block
 * (32 MLIDs x 16 ports) a switch accepted.  mft_push_start compares the
 * wanted tables (routing/mft.h, from mcast_mft_compute) with it and sends
 * a directed-route Set for each block that differs; a block that became
 * empty is written as zeros once, so a leave clears the switch's entries,
 * while blocks the cache knows nothing about and that should be empty are
 * left alone (a switch's MFT starts empty).  The cache is updated only
 * from successful answers, so a failed Set is retried by the next push.
 * Blocks past a switch's MulticastFDBCap (SwitchInfo; 0 = not reported)
 * are not written.  Counts sm->st.mft_blocks_sent and set_errors, then
 * runs `then` through sm_phase_wait.  Do not start a push while another
 * phase of the same SM has SMPs in flight.
 */
#ifndef NANOSM_SM_CORE_MFT_PUSH_H
#define NANOSM_SM_CORE_MFT_PUSH_H

#include "routing/mft.h"
#include "sm/core/sm_priv.h"

struct mft_cache;

struct mft_cache *mft_cache_new(void);
void mft_cache_free(struct mft_cache *c);
/* Forget one switch (e.g. it was replaced or rebooted): 0 or -ENOENT. */
int mft_cache_forget(struct mft_cache *c, uint64_t switch_guid);

/* f: the model whose switches are written (borrowed until `then` runs);
 * want: their tables, matched by switch GUID (a switch with no table
 * wants every block empty); c: the cache, borrowed likewise.  The push's
 * SMPs carry c as their context (c keeps f for them), so one push per
 * cache at a time; a push cancelled by sm_free leaves nothing to free. */
void mft_push_start(struct sm *sm, const struct fabric *f, const struct mft_set *want,
		    struct mft_cache *c, sm_phase_fn then);

#endif
