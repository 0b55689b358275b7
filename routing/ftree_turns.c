/*
 * ftree_turns.c - the down-up turns ftree takes on a degraded fat tree,
 * kept free of credit loops (see ftree_turns.h).  Owns the graph of turns;
 * knows nothing of ports, LIDs or tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/ftree_turns.h"

int ftree_turns_init(struct ftree_turns *t, size_t n_sw, size_t n_roots)
{
	size_t roots = n_roots ? n_roots : 1;

	memset(t, 0, sizeof(*t));
	t->n_sw = n_sw;
	t->n_roots = n_roots;
	t->words = (n_roots + 63) / 64 ? (n_roots + 63) / 64 : 1;
	t->above = calloc((n_sw ? n_sw : 1) * t->words, sizeof(*t->above));
	t->root_head = malloc(roots * sizeof(*t->root_head));
	t->root_gen = calloc(roots, sizeof(*t->root_gen));
	t->root_scans = calloc(roots, sizeof(*t->root_scans));
	if (!t->above || !t->root_head || !t->root_gen || !t->root_scans) {
		ftree_turns_fini(t);
		return -ENOMEM;
	}
	for (size_t r = 0; r < roots; r++)
		t->root_head[r] = -1;
	return 0;
}

int ftree_turns_init_copy(struct ftree_turns *t, const struct ftree_turns *from)
{
	int rc = ftree_turns_init(t, from->n_sw, from->n_roots);

	if (rc)
		return rc;
	memcpy(t->above, from->above, (from->n_sw ? from->n_sw : 1) * t->words * sizeof(*t->above));
	t->diamond = from->diamond;
	return 0;
}

void ftree_turns_fini(struct ftree_turns *t)
{
	void *bufs[] = {t->above,     t->turn, t->hash,	    t->root_head,  t->link_turn,
			t->link_next, t->seen, t->root_gen, t->root_scans, t->stack};

	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		free(bufs[i]);
	memset(t, 0, sizeof(*t));
}

static uint64_t *ftree_turns_above(const struct ftree_turns *t, int s)
{
	return &t->above[(size_t)s * t->words];
}

void ftree_turns_mark_root(struct ftree_turns *t, int s, size_t r)
{
	ftree_turns_above(t, s)[r / 64] |= 1ULL << (r % 64);
}

void ftree_turns_inherit(struct ftree_turns *t, int s, int parent)
{
	uint64_t *dst = ftree_turns_above(t, s);
	const uint64_t *src = ftree_turns_above(t, parent);

	for (size_t w = 0; w < t->words; w++)
		dst[w] |= src[w];
}

int ftree_turns_common(const struct ftree_turns *t, int a, int b)
{
	const uint64_t *x = ftree_turns_above(t, a), *y = ftree_turns_above(t, b);

	for (size_t w = 0; w < t->words; w++)
		if (x[w] & y[w])
			return 1;
	return 0;
}

size_t ftree_turns_count_above(const struct ftree_turns *t, int s)
{
	const uint64_t *row = ftree_turns_above(t, s);
	size_t n = 0;

	for (size_t w = 0; w < t->words; w++)
		n += (size_t)__builtin_popcountll(row[w]);
	return n;
}

int ftree_turns_sees_all(const struct ftree_turns *t, int s, const uint64_t *all)
{
	const uint64_t *row = ftree_turns_above(t, s);

	for (size_t w = 0; w < t->words; w++)
		if ((row[w] & all[w]) != all[w])
			return 0;
	return 1;
}

/* ---- The turns taken: a hash --------------------------------------------- */

static size_t ftree_turns_slot(const struct ftree_turns *t, int p, int x, int q)
{
	uint64_t h = ((uint64_t)(uint32_t)p * 0x9E3779B97F4A7C15ULL) ^
		     ((uint64_t)(uint32_t)x * 0xC2B2AE3D27D4EB4FULL) ^
		     ((uint64_t)(uint32_t)q * 0x165667B19E3779F9ULL);

	return (size_t)(h ^ h >> 29) & (t->hash_size - 1);
}

/* The index of turn (p, x, q), or -1. */
static int ftree_turns_find(const struct ftree_turns *t, int p, int x, int q)
{
	if (!t->hash_size)
		return -1;
	for (size_t i = ftree_turns_slot(t, p, x, q);; i = (i + 1) & (t->hash_size - 1)) {
		int k = t->hash[i];

		if (k < 0)
			return -1;
		if (t->turn[k].p == p && t->turn[k].x == x && t->turn[k].q == q)
			return k;
	}
}

int ftree_turns_has(const struct ftree_turns *t, int p, int x, int q)
{
	return ftree_turns_find(t, p, x, q) >= 0;
}

static void ftree_turns_hash_put(struct ftree_turns *t, int k)
{
	const struct ftree_turn *u = &t->turn[k];
	size_t i = ftree_turns_slot(t, u->p, u->x, u->q);

	while (t->hash[i] >= 0)
		i = (i + 1) & (t->hash_size - 1);
	t->hash[i] = k;
}

/* Keep the hash at most half full. */
static int ftree_turns_hash_grow(struct ftree_turns *t)
{
	size_t size = t->hash_size ? t->hash_size * 2 : 64;
	int *h;

	if (2 * (t->n_turns + 1) <= t->hash_size)
		return 0;
	h = malloc(size * sizeof(*h));
	if (!h)
		return -ENOMEM;
	free(t->hash);
	t->hash = h;
	t->hash_size = size;
	memset(h, 0xff, size * sizeof(*h));
	for (size_t k = 0; k < t->n_turns; k++)
		ftree_turns_hash_put(t, (int)k);
	return 0;
}

/* ---- Does one turn lead to another? --------------------------------------- */

/* Turn a leads to turn b when a root is above a's q and b's p (the caller
 * knows it is) and the walk from a's x up through q, down through b's p
 * to b's x passes no switch twice (without a diamond it cannot). */
static int ftree_turns_walk_ok(const struct ftree_turns *t, const struct ftree_turn *a,
			       const struct ftree_turn *b)
{
	return t->diamond || (b->x != a->x && b->x != a->q && b->p != a->x);
}

static int ftree_turns_leads(const struct ftree_turns *t, const struct ftree_turn *a,
			     const struct ftree_turn *b)
{
	return ftree_turns_common(t, a->q, b->p) && ftree_turns_walk_ok(t, a, b);
}

/* ---- Would a new turn close a cycle? -------------------------------------- */

static int ftree_turns_grow_scratch(struct ftree_turns *t)
{
	uint32_t *seen;
	int *stack;

	if (t->cap_turns <= 0)
		return 0;
	seen = realloc(t->seen, t->cap_turns * sizeof(*seen));
	if (seen)
		t->seen = seen;
	stack = realloc(t->stack, t->cap_turns * sizeof(*stack));
	if (stack)
		t->stack = stack;
	return seen && stack ? 0 : -ENOMEM;
}

/* Reach turn k: 1 when it leads back to the new turn `to`. */
static int ftree_turns_reach(struct ftree_turns *t, int k, const struct ftree_turn *to, size_t *sp)
{
	if (t->seen[k] == t->gen)
		return 0;
	t->seen[k] = t->gen;
	t->stack[(*sp)++] = k;
	return ftree_turns_leads(t, &t->turn[k], to);
}

/* Scan the turns below root r from turn `from`; a root's list is scanned
 * twice at most per search, the third time all it holds counts as
 * reached.  Returns 1 when a cycle back to `to` is found. */
static int ftree_turns_scan_root(struct ftree_turns *t, size_t r, const struct ftree_turn *from,
				 const struct ftree_turn *to, size_t *sp)
{
	int all;

	if (t->root_gen[r] != t->gen) {
		t->root_gen[r] = t->gen;
		t->root_scans[r] = 0;
	}
	if (t->root_scans[r] > 2)
		return 0;
	all = ++t->root_scans[r] > 2;
	for (int e = t->root_head[r]; e >= 0; e = t->link_next[e]) {
		int k = t->link_turn[e];

		if (t->seen[k] == t->gen || (!all && !ftree_turns_walk_ok(t, from, &t->turn[k])))
			continue;
		if (ftree_turns_reach(t, k, to, sp))
			return 1;
	}
	return 0;
}

/* Depth first from the new turn over the turns taken: does any lead back
 * to it? */
static int ftree_turns_cycle(struct ftree_turns *t, const struct ftree_turn *nt)
{
	size_t sp = 0;
	const struct ftree_turn *from = nt;

	if (ftree_turns_leads(t, nt, nt))
		return 1;
	if (!t->n_turns)
		return 0;
	t->gen++;
	for (;;) {
		const uint64_t *above = ftree_turns_above(t, from->q);

		for (size_t w = 0; w < t->words; w++)
			for (uint64_t bits = above[w]; bits; bits &= bits - 1)
				if (ftree_turns_scan_root(t, w * 64 + (size_t)__builtin_ctzll(bits),
							  from, nt, &sp))
					return 1;
		if (!sp)
			return 0;
		from = &t->turn[t->stack[--sp]];
	}
}

int ftree_turns_allowed(struct ftree_turns *t, int p, int x, int q)
{
	struct ftree_turn nt = {p, x, q};

	if (ftree_turns_find(t, p, x, q) >= 0)
		return 1;
	return !ftree_turns_cycle(t, &nt);
}

/* ---- Taking a turn -------------------------------------------------------- */

static int ftree_turns_index(struct ftree_turns *t, int k)
{
	const uint64_t *above = ftree_turns_above(t, t->turn[k].p);

	for (size_t w = 0; w < t->words; w++)
		for (uint64_t bits = above[w]; bits; bits &= bits - 1) {
			size_t r = w * 64 + (size_t)__builtin_ctzll(bits), cap = t->cap_links;

			if (TEXT_GROW(t->link_turn, cap, t->n_links + 1, 256) < 0 ||
			    TEXT_GROW(t->link_next, t->cap_links, t->n_links + 1, 256) < 0)
				return -ENOMEM;
			t->link_turn[t->n_links] = k;
			t->link_next[t->n_links] = t->root_head[r];
			t->root_head[r] = (int)t->n_links++;
		}
	return 0;
}

int ftree_turns_take(struct ftree_turns *t, int p, int x, int q)
{
	size_t cap = t->cap_turns;
	int k;

	if (ftree_turns_find(t, p, x, q) >= 0)
		return 0;
	if (ftree_turns_hash_grow(t) || TEXT_GROW(t->turn, t->cap_turns, t->n_turns + 1, 64) < 0)
		return -ENOMEM;
	if (cap != t->cap_turns && ftree_turns_grow_scratch(t))
		return -ENOMEM;
	k = (int)t->n_turns++;
	t->turn[k] = (struct ftree_turn){p, x, q};
	t->seen[k] = 0;
	ftree_turns_hash_put(t, k);
	return ftree_turns_index(t, k);
}
