/*
 * vlsp_polish_priv.h - one polish's state, shared by routing/vlsp_polish.c
 * (the paths, the layers, the moves and the passes) and
 * vlsp_polish_est.c (the estimate: each channel's law, the memo of hops,
 * each path's value).  Private to those two: no other file includes it.
 * Pure: no I/O, no globals.
 */
#ifndef NANOSM_ROUTING_VLSP_POLISH_PRIV_H
#define NANOSM_ROUTING_VLSP_POLISH_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "routing/swgraph.h"
#include "routing/vlsp_again.h"
#include "routing/vlsp_layer.h"
#include "routing/vlsp_polish.h"

#define VLSP_POLISH_K VLSP_POLISH_LOADS
/* Memo slots per channel (vlsp_polish_est_hop; on the 64-switch meshes 8
 * to 128 hit alike, 95-96%). */
#define VLSP_POLISH_MEMO 16

/* What a memo slot's sums were made from: channel c's law at version
 * ver, without the yes/no of a source with count ca and one with cb. */
struct vlsp_polish_key {
	uint32_t c, ver, ca, cb;
};

struct vlsp_polish {
	struct lft_set *out;
	struct swgraph g;
	struct vlsp_again idx; /* its chan_of: (switch, port) -> channel */
	size_t n_chan;
	int *tail; /* channel -> the switch it leaves */
	/* CA ports (base LIDs), in the scorer's order: by switch, then port */
	size_t n_end;
	uint16_t *end_lid;
	int *end_sw;
	/* switches with CAs: the sources */
	size_t n_src;
	int *src_of; /* switch -> source index, -1 */
	int *src_sw;
	uint32_t *h;	  /* source -> its CAs */
	size_t *first;	  /* source -> its first CA */
	uint16_t *shl;	  /* [k * n_chan + c]: flows over c when CA i sends to i + k */
	uint32_t shl_max; /* ... the most over every k and c: no move goes past it */
	int *dist;	  /* [t * n_sw + s]: hops from s to t */
	/* paths, id = source * n_end + CA */
	size_t maxlen;
	uint32_t *pch; /* [id * maxlen + i] */
	uint16_t *plen;
	double *val;	/* expected 1 / the most loaded, per path */
	uint32_t *cnt;	/* [c * n_src + source]: its paths to CAs over c */
	uint64_t *load; /* channel -> ordered CA pairs over it */
	double *pmf;	/* [c * (K + 1) + k]: P(k flows over c) */
	uint8_t *top;	/* channel -> the most flows its law counts */
	/* channel -> the paths over it */
	uint32_t **lst;
	size_t *lst_n, *lst_cap;
	/* scratch */
	uint32_t *newc;
	int *dcnt; /* channel -> change of a move */
	uint32_t *touched;
	size_t n_touched;
	uint32_t *mark, gen; /* path -> last move that valued it */
	uint64_t work;	     /* paths valued by the moves so far */
	uint32_t *jid;	     /* the paths a move valued anew ... */
	double *jval;	     /* ... and their values before, to undo it */
	size_t n_j;
	uint32_t *aff;	/* sources a move reroutes */
	uint16_t *apre; /* ... and their hops before the switch moved */
	uint32_t *walk; /* a path followed */
	/* the paths a move's switch is on (vlsp_polish_turns): their layers,
	 * the channels they come in on (UINT32_MAX: none) */
	unsigned *cross_l;
	uint32_t *cross_in;
	/* with out->path_sl: each path's layer, kept acyclic */
	int layered;
	struct vlsp_layers ls;
	size_t row;	/* out->sl_top + 1 */
	uint32_t *tuse; /* [l * turn_bits + bit]: paths on layer l making the turn */
	/* a move's changes to tuse, to undo it: layer, in, out, +1 or -1 */
	int32_t (*added)[4];
	size_t n_added, cap_added;
	double inv; /* 1 / (CAs - 1) */
	/* the memo of hops (vlsp_polish_est_hop): per slot, what it was made
	 * from and its sums */
	struct vlsp_polish_key *memo_key;
	double *memo;
	size_t memo_mask;
	/* channel -> its law's version (from 1; a law made per channel at
	 * setup, at most two per hop of a move tried: 2 x 64 x 16 M under
	 * the engine's bound, short of a wrap) */
	uint32_t *ver;
	uint32_t n_ver;
	/* channel -> its law, top and version before the move being tried */
	double *pmf_was;
	uint8_t *top_was;
	uint32_t *ver_was;
};

/* The memo of hops (VLSP_POLISH_MEMO slots per channel, a power of 2 in
 * all) and the laws' versions, for chans channels.  0, -ENOMEM (then
 * vlsp_polish_est_fini frees what there is). */
int vlsp_polish_est_init(struct vlsp_polish *v, size_t chans);
void vlsp_polish_est_fini(struct vlsp_polish *v);

/* Channel c's law into pmf from the counts, its top set, a new version. */
void vlsp_polish_est_chan(struct vlsp_polish *v, size_t c);

/* Channel c's law, top and version kept before a move is tried, and put
 * back when it is undone (the counts back as they were: the same law,
 * bit for bit, whose memo entries hold again). */
void vlsp_polish_est_keep(struct vlsp_polish *v, size_t c);
void vlsp_polish_est_back(struct vlsp_polish *v, size_t c);

/* Path id's expected 1 / the load of its most loaded channel, under the
 * current laws and counts; a twin's (same source, same destination
 * switch, same channels) when one is marked v->gen: valued since the
 * laws and counts last changed. */
double vlsp_polish_est_path(struct vlsp_polish *v, size_t id);

/* The estimate from the paths' values: the mean over ordered CA pairs. */
double vlsp_polish_est_ebb(const struct vlsp_polish *v);

#endif
