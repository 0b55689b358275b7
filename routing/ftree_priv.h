/*
 * routing/ftree_priv.h - what the ftree engine's files share: the state of
 * one run (struct ftree) and the steps each calls in another.  ftree.c
 * routes (and has the DOC), ftree_rank.c ranks the tree and splits its
 * links, ftree_order.c numbers the leaves, ftree_bounce.c finds the
 * shortest ways around for switches with no up-then-down route,
 * ftree_exit.c plans the down-up turns of a degraded tree, ftree_moved.c
 * records the LIDs rank-1 switches moved onto a core's link down,
 * ftree_row.c plans, fills and writes out the LIDs' rows of entries,
 * ftree_note.c writes the note.  Not for use outside routing/ftree*.c.
 */
#ifndef NANOSM_ROUTING_FTREE_PRIV_H
#define NANOSM_ROUTING_FTREE_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "routing/ftree_turns.h"
#include "routing/route.h"
#include "routing/swgraph.h"

#define FTREE_INF 0xFF	   /* u: no up-then-down route into R */
#define FTREE_MAX_RANK 62  /* keeps u below FTREE_INF and paths short */
#define FTREE_NOTE_LINKS 4 /* missing links named in the note */
#define FTREE_BATCH 64	   /* LIDs routed before their entries are written out */
#define FTREE_VLS 4	   /* VLs ftree may spread its down-up turns over */
#define FTREE_DETOUR_CROWD 3 /* a leaf's flows on one link before it detours */
#define FTREE_MID_WINDOW 1024 /* LIDs in a row a rank-1 switch looks at, at most */
#define FTREE_HD_CA 1	      /* hd_flags: the switch has CAs */
#define FTREE_HD_DOWN 2	      /* it has links down */
#define FTREE_HD_RUNS 4	      /* some of them are parallel */
#define FTREE_SLOT_BYTES ((FABRIC_MAX_PORTS + 8) / 8) /* a bitmap over ports */

/* A CA/router LID to route: the leaf it hangs off and the port there. */
struct ftree_dest {
	uint16_t lid;
	uint8_t exit_port;
	uint8_t offset; /* LID - base LID (LMC) */
	int leaf;	/* switch ordinal */
	int leaf_pos;	/* the leaf's number in leaf order */
};

struct ftree_move;

/* A candidate exit: p's down-link e, ranked by key (lower first). */
struct ftree_cand {
	int p;
	size_t e;
	uint32_t key;
};

/* A way out for switches with no up-then-down route to a destination:
 * p (one of them) sends the LID down to x, which has one and turns up. */
struct ftree_exit {
	int p, x;
	uint8_t down_port; /* p's port to x */
	uint8_t up_port;   /* switch LIDs: x's port up (planned); CA LIDs: per LID */
};

/* How a switch routes the current leaf's LIDs when no main path hands
 * them to it. */
enum ftree_kind {
	FTREE_DOWN, /* in R: down a link into R */
	FTREE_UP,   /* up a link to a parent one up-hop nearer R */
	FTREE_ANY,  /* no up-then-down route: to an exit (else a shortest path) */
};

struct ftree {
	const struct fabric *f;
	struct route_note *note; /* the caller's, or a scratch one */
	char *err;		 /* the caller's error buffer */
	size_t errlen;
	struct lft_set *out;
	uint16_t max_lid;
	/* switches and cables; a switch with a CA cabled (g.has_ca) is a leaf */
	struct swgraph g;
	/* ranks */
	uint8_t *is_root; /* named in opts->roots */
	int *rank;	  /* 0 at the leaves, -1 unranked (no leaf below) */
	int *order;	  /* ranked switches, top rank first */
	size_t n_ranked;
	int top_rank;
	/* up and down links */
	size_t *up_start, *down_start;
	struct swgraph_link *up;   /* per switch by local port */
	struct swgraph_link *down; /* per switch by (child, child's port) */
	uint32_t *up_load;	   /* main paths descending each up-link */
	uint32_t *reach;	   /* leaves below each switch */
	uint32_t *top_reach;	   /* most leaves below any switch above (or at) it */
	uint8_t *slots;		   /* per component and rank: up-port numbers in use */
	uint32_t *diverted;	   /* per switch port: LIDs sent there off their column */
	/* per switch port (a core's link down): the LIDs rank-1 switches moved
	 * there off their main path's core (ftree_moved.c) */
	uint32_t *move_head;
	struct ftree_move *moves;
	size_t n_moves, cap_moves;
	int *leaf_pos;
	/* CA LIDs: as claimed, then in leaf order */
	struct swgraph_dests lids;
	struct ftree_dest *dests;
	size_t n_dests, cur_dest; /* cur_dest: the one being routed */
	uint8_t *dest_col;	  /* per dest: its main path's column at its leaf */
	uint8_t *dest_col1;	  /* and at rank 1 (LFT_DROP: none) */
	size_t cas_per_leaf;	  /* CA LIDs per leaf, rounded up */
	/* the leaf being routed */
	uint32_t leaf_gen, *in_reach; /* in_reach[s] == leaf_gen: s is in R */
	int entered;		      /* a leaf whose R, u and kinds are current, all switches
				       * with an up-then-down route to it (-1: none) */
	uint8_t *u, *kind;
	int *fill; /* switches of the leaf's component but the leaf */
	size_t n_fill;
	size_t *cand_start;
	uint8_t *cand_n, *cand_port, *rr;
	/* counted by ftree_climb (s in R: its down-links into R) and
	 * ftree_hop_counts (u finite: its up-links one up-hop nearer R), with
	 * the port of one of them, so that a switch whose links all qualify,
	 * or one only, needs no scan for its choices; up[e].port, down[e].port */
	uint8_t *n_ways, *way_port, *up_port, *down_port;
	uint8_t *up_lo, *up_n; /* s's up-links leave by ports up_lo .. up_lo + up_n - 1
				* (up_n 0: not so, or none) */
	int *via;	  /* ftree_bounce_routes: the best neighbour found so far */
	struct ftree_bounce *bounce; /* ftree_bounce.c's, made the first time */
	uint8_t *cand_nx; /* leaves: detours (parents of kind ANY) after the choices */
	/* the LID being routed */
	uint32_t dest_gen, *done; /* done[s] == dest_gen: s has its entry */
	int *det_sw;		  /* leaves that took a detour for the LID */
	uint8_t *det_alt;	  /* per switch: its choice had it not */
	size_t n_det;
	int path[FTREE_MAX_RANK + 2];
	uint8_t bundle_at[FTREE_MAX_RANK + 2]; /* main path's parallel-link index per rank */
	uint8_t column[FTREE_MAX_RANK + 2];    /* main path's up-port per rank */
	int n_columns;			       /* ranks below the main path's top */
	int *stack;
	/* entries of the last LIDs routed, one row of n_sw per LID, written to
	 * the tables a batch at a time (switch by switch, so the writes to a
	 * table stay close together) */
	uint8_t *batch, *row;
	uint16_t batch_lid[FTREE_BATCH];
	size_t n_batch;
	/* the rows of the current leaf's LIDs, planned (ftree_row.c): each
	 * starts from base_row (LFT_DROP, and the one choice of a switch going
	 * down that has one: those switches listed in once); the switches set
	 * in fast_mask's row r (n_sw bytes a rank) take the main path's column
	 * at rank r, when it lies in fast_lo[r] .. fast_lo[r] + fast_n[r] - 1
	 * (segment g: rank seg_rank[g], switches seg_lo[g] .. seg_hi[g]); the
	 * switches of slow are filled one by one */
	uint8_t *base_row, *fast_ok; /* fast_ok: per place in fill, scratch */
	uint8_t *fast_mask;
	int *slow, *once;
	size_t n_slow, n_once, n_seg, seg_lo[FTREE_MAX_RANK + 1], seg_hi[FTREE_MAX_RANK + 1];
	uint8_t seg_rank[FTREE_MAX_RANK + 1];
	uint8_t fast_lo[FTREE_MAX_RANK + 1], fast_n[FTREE_MAX_RANK + 1];
	int row_planned;
	size_t n_up_ca;	     /* switches going up with CAs (leaves): a LID strays
			      * when the hand-down reaches fewer */
	uint32_t *path_hits; /* per switch: the leaf's LIDs whose main path it is on */
	size_t leaf_lids;    /* the leaf's LIDs routed */
	uint8_t *down_run;   /* per down-link: parallel links to its child from it on */
	uint8_t *hd_flags;   /* per switch: FTREE_HD_* */
	int *nb;	     /* per (switch, port) slot: the switch behind it, -1: none */
	/* breadth-first scratch */
	int *dist, *queue;
	uint8_t *bfs_port; /* port toward the switch that discovered it */
	/* degraded trees: the down-up turns taken (only when some leaf does not
	 * see every root of its component), the current destination's exits
	 * and its switches' ways to them */
	int degraded, nomem;
	struct ftree_turns turns;
	/* where every cabled port offers 2 data VLs or more: the CA LIDs whose
	 * turns VL 0 cannot take ride another VL (SL = VL), with a graph of
	 * turns of its own and the exits planned in it (exits, xport and
	 * n_exits are VL vl's: ftree_exit_use_vl switches) */
	unsigned data_vls, n_vls; /* offered, and used by ftree (<= FTREE_VLS) */
	int vl;		      /* the VL the current exits are planned on */
	unsigned planned;     /* bit v: the current leaf's exits on VL v are */
	size_t leaf_stranded; /* switches the leaf's VL 0 exits left out */
	int leaf_off_hub;     /* some exit of the leaf's on VL 0 is outside the hub */
	struct ftree_turns turns_hi[FTREE_VLS - 1]; /* VL 1 and up */
	struct ftree_exit *exits_vl[FTREE_VLS];
	uint8_t *xport_vl[FTREE_VLS];
	size_t n_exits_vl[FTREE_VLS];
	uint8_t *row_save; /* a LID's row before its turns, and the best so far */
	uint8_t *hub; /* a leaf that sees every root of its component, and above it */
	struct ftree_cand *cand;
	struct ftree_exit *exits;
	size_t n_exits;
	uint8_t *xport;	       /* kind ANY: port toward an exit, LFT_DROP: none */
	uint32_t xgen, *xmark; /* xmark[s] == xgen: s has its way to an exit */
	uint32_t cgen, *cmark; /* cmark[s] == cgen: seen looking for an exit */
	int *cq;	       /* queue looking for an exit */
	size_t *sw_exit_start; /* switch LIDs: exits planned for switch s */
	struct ftree_exit *sw_exits;
	size_t n_sw_exits, cap_sw_exits;
	/* for the note */
	size_t rerouted, downup, unknown_roots, stranded, moved, on_vl[FTREE_VLS];
	size_t merged; /* VLs emptied by ftree_merge_vls */
	int downup_from, downup_to;
	uint64_t unknown_root;
};

/* ftree.c: u (up-hops into R) for the leaf's component, R left in
 * queue[0..n_reach) by ftree_climb; the kind of every switch, listed in
 * fill (returns how many have no up-then-down route). */
void ftree_hop_counts(struct ftree *m, int leaf, size_t n_reach);
size_t ftree_kinds(struct ftree *m, int leaf);

/* ftree.c: c's up-link for a main path (an index into up). */
size_t ftree_pick_up(const struct ftree *m, int c, unsigned offset, unsigned spread);

/* ftree_column.c: the leaf column of every CA LID's main path, planned
 * ahead (main path loads back to zero); the up-port of a switch going up
 * that was not handed the current LID, its column lost (or a detour); the
 * LIDs of another column leaves sent up to rank-1 switches spread there
 * (after the fill); the detours taken undone where the VL finally chosen
 * leaves them no exit. */
void ftree_plan_columns(struct ftree *m);
uint8_t ftree_column_choice(struct ftree *m, int s);
void ftree_mid_respread(struct ftree *m);
void ftree_detour_check(struct ftree *m);

/* ftree_row.c: memory for the rows' plan (0 or -ENOMEM; fini frees it);
 * the batch written to the tables; a LID's row started (a copy of start,
 * or all LFT_DROP); s's entry set and s done; the switches of list not
 * handed the LID filled with their choices (returns 1 when a leaf among
 * them had to go up: the LID strays); the port of a switch with no
 * up-then-down route; the plan of the leaf entered (its choices known),
 * the plan's fill of the switches that take the column, for the current
 * LID once its main path (up to rank top) is known (1: done, the others
 * need the switches of slow filled; 0: the whole fill needed), and the
 * plan left when the leaf's LIDs are routed. */
int ftree_row_init(struct ftree *m);
void ftree_row_fini(struct ftree *m);
void ftree_flush(struct ftree *m);
void ftree_begin_lid(struct ftree *m, uint16_t lid, const uint8_t *start);
void ftree_set(struct ftree *m, int s, uint8_t port);
int ftree_fill(struct ftree *m, const int *list, size_t n);
uint8_t ftree_any_port(const struct ftree *m, int s);
void ftree_row_plan(struct ftree *m);
int ftree_row_fast(struct ftree *m, int top);
void ftree_row_leave(struct ftree *m);

/* ftree_moved.c: the record of the LIDs rank-1 switches moved off their
 * main path's core, per core's link down (init: 0 or -ENOMEM; fini frees
 * it); the most of them one shift of the CAs below rank-1 switch s would
 * send through the link down its up-port pn leads to for the current LID,
 * were the LID to take it (0: none, or not known); the current LID's moves
 * recorded (after the fill and the respread). */
int ftree_moved_init(struct ftree *m);
void ftree_moved_fini(struct ftree *m);
unsigned ftree_moved_depth(const struct ftree *m, int s, uint8_t pn);
void ftree_moved_record(struct ftree *m);

/* ftree_rank.c: breadth first over the switch graph (see there); every
 * dist[] set to -1; ranks (0 or -errno, err filled); R of a leaf marked
 * with a new leaf_gen (returns its size); has leaf the parents of leaf p
 * (same R but for the two), and R and the counts moved from p to leaf;
 * roots; up- and down-links and what each switch sees (0 or -ENOMEM, err
 * filled). */
size_t ftree_bfs(struct ftree *m, int *dist, size_t tail);
void ftree_reset(int *dist, size_t n);
int ftree_rank(struct ftree *m, const struct route_opts *opts);
size_t ftree_climb(struct ftree *m, int leaf);
int ftree_sibling(const struct ftree *m, int p, int leaf);
void ftree_swap_leaf(struct ftree *m, int p, int leaf);
int ftree_is_root(const struct ftree *m, size_t s);
int ftree_shape(struct ftree *m);

/* ftree_order.c: the leaves numbered (leaf_pos) by their least way down
 * from a root (the ports, read from the top), then breadth first from the
 * roots.  0 or -ENOMEM. */
int ftree_number_leaves(struct ftree *m);

/* ftree_exit.c: the ways of the switches without an up-then-down route to
 * the exits planned (xport); plan exits (how many switches no exit serves,
 * or -ENOMEM); which roots lie above each switch and whether the tree is
 * degraded (0 or -ENOMEM); the exits of every switch's own LIDs (0 or
 * -ENOMEM); a CA LID's turns at its exits (how many it could not take);
 * the exits and turns of VL vl made the current ones (ftree_exit_select_vl
 * plans the leaf's exits on VL vl > 0 the first time: 0 or -ENOMEM);
 * their memory (0 or -ENOMEM) and its release. */
void ftree_exit_routes(struct ftree *m);
int ftree_plan_exits(struct ftree *m, int cas);
int ftree_prepare_turns(struct ftree *m);
int ftree_plan_switch_exits(struct ftree *m);
size_t ftree_turn_at_exits(struct ftree *m, unsigned spread);
void ftree_exit_use_vl(struct ftree *m, int vl);
int ftree_exit_select_vl(struct ftree *m, int vl);
int ftree_exit_alloc_vls(struct ftree *m, size_t n_sw);
/* ftree_exit.c: the switch behind port pn of switch s (-1: none), from
 * the table ftree_neighbour_init makes (0 or -ENOMEM). */
int ftree_neighbour(const struct ftree *m, int s, uint8_t pn);
int ftree_neighbour_init(struct ftree *m);
void ftree_exit_free_vls(struct ftree *m);

/* ftree_vlmerge.c: the CA LIDs of the highest VL moved to lower VLs
 * whose channel dependency graph stays acyclic with them, while a VL
 * empties (SLs only).  0 or -ENOMEM. */
int ftree_merge_vls(struct ftree *m);

/* ftree_bounce.c: bfs_port of the switches of kind ANY, a shortest way to
 * the leaf (up-links first when up_first); the same toward switch t's own
 * LIDs, as ftree_bounce_routes(m, t, 0) leaves it, found for 64 switches
 * at a time (0 or -ENOMEM); its memory released. */
void ftree_bounce_routes(struct ftree *m, int leaf, int up_first);
int ftree_bounce_switch(struct ftree *m, int t);
void ftree_bounce_free(struct ftree *m);

/* ftree_note.c: the note of a routed tree. */
void ftree_write_note(struct ftree *m);

#endif
