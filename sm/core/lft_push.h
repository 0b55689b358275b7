/*
 * sm/core/lft_push.h - what lft_push.c tells the rest of sm/ beyond sm_priv.h.
 */
#ifndef NANOSM_SM_CORE_LFT_PUSH_H
#define NANOSM_SM_CORE_LFT_PUSH_H

struct sm;

/* 1 while a push of this SM is still queueing batches of switches (the
 * progress line's "pushing LFTs"). */
int lft_push_busy(const struct sm *sm);

#endif
