/*
 * ftree_turns.h - the down-up turns ftree takes on a degraded fat tree,
 * kept free of credit loops.  Used by routing/ftree.c alone.
 *
 * DOC: Why a graph of turns is enough.  On a tree every route ftree
 * builds is up then down, except where cables are gone so that a switch
 * has no ancestor in common with a destination: there the route comes
 * down into a switch X from a parent p and leaves it up to another parent
 * q, a down-up turn (p, X, q).  Up-then-down routes alone close no credit
 * loop, so a cycle of channel dependencies passes through turns, and from
 * one turn (p1, X1, q1) to the next (p2, X2, p2) it climbs from q1 and
 * descends to p2: q1 and p2 have a root (a switch with no up-link) above
 * both.  The walk X1, q1, ..., p2, X2 never comes back to a switch it
 * passed (that takes a U-turn, which no route makes, or a diamond: two
 * parents of one switch with a common ancestor), so X2 is neither X1 nor
 * q1 and p2 is not X1.  Turn t1 leads to turn t2 when all that holds;
 * where the tree has a diamond the rule falls back to "a root above both".
 * If the graph of turns has no cycle, neither has the channel dependency
 * graph.  Turns at one switch between its parents (a hub) lead nowhere
 * among themselves, which is why ftree gathers its turns at a hub.
 *
 * The caller says which roots lie above each switch (top rank first) and
 * whether the tree has a diamond.  A new turn is checked by a depth-first
 * search over the turns taken, indexed by the roots above their p, each
 * root's list scanned at most twice per search (a third time everything
 * left on it counts as reached: never less safe).  Pure: no I/O, no
 * globals.
 */
#ifndef NANOSM_ROUTING_FTREE_TURNS_H
#define NANOSM_ROUTING_FTREE_TURNS_H

#include <stddef.h>
#include <stdint.h>

struct ftree_turn {
	int p, x, q;
};

struct ftree_turns {
	size_t n_sw, n_roots, words; /* words per bitset over the roots */
	uint64_t *above;	     /* n_sw rows: the roots at or above each switch */
	int diamond;		     /* 1: some switch has a diamond above it */
	/* the turns taken, a hash of them, and per root the turns whose p it
	 * is above (a list through `link`) */
	struct ftree_turn *turn;
	size_t n_turns, cap_turns;
	int *hash; /* open addressing, -1 empty; size a power of two */
	size_t hash_size;
	int *root_head;		    /* per root: first entry, -1 none */
	int *link_turn, *link_next; /* entries */
	size_t n_links, cap_links;
	/* search scratch */
	uint32_t gen, *seen; /* per turn */
	uint32_t *root_gen;  /* per root: gen of its scans */
	uint8_t *root_scans; /* per root: scans this search */
	int *stack;
};

/* Room for n_sw switches and n_roots roots, no root above any switch,
 * no turn.  Returns 0 or -ENOMEM (t then holds nothing; ftree_turns_fini
 * is safe on it, as on a zeroed one). */
int ftree_turns_init(struct ftree_turns *t, size_t n_sw, size_t n_roots);
void ftree_turns_fini(struct ftree_turns *t);
/* Room as in from, the same roots above each switch and diamond, no turn
 * (the graph of another VL).  0 or -ENOMEM as ftree_turns_init. */
int ftree_turns_init_copy(struct ftree_turns *t, const struct ftree_turns *from);

/* Switch s is root number r (< n_roots). */
void ftree_turns_mark_root(struct ftree_turns *t, int s, size_t r);
/* Every root above parent is above s too. */
void ftree_turns_inherit(struct ftree_turns *t, int s, int parent);
/* Do a and b have a root (an ancestor, or each other) above both? */
int ftree_turns_common(const struct ftree_turns *t, int a, int b);
/* How many roots are above s. */
size_t ftree_turns_count_above(const struct ftree_turns *t, int s);
/* Is every root in `all` above s? */
int ftree_turns_sees_all(const struct ftree_turns *t, int s, const uint64_t *all);

/* Is the turn (p, x, q) taken already? */
int ftree_turns_has(const struct ftree_turns *t, int p, int x, int q);
/* Would taking it close a cycle?  1: it may be taken (or is), 0: not. */
int ftree_turns_allowed(struct ftree_turns *t, int p, int x, int q);
/* Take it (the caller checked ftree_turns_allowed).  0 or -ENOMEM. */
int ftree_turns_take(struct ftree_turns *t, int p, int x, int q);

#endif
