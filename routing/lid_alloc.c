/*
 * routing/lid_alloc.c - owns the GUID -> unicast LID map: the owner[] and seen[]
 * tables, the GUID hash, and the aging of absent ports' LIDs.  Pure: no
 * I/O, no clock (the caller passes now), no globals; never touches the fabric.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/fabric.h"
#include "routing/lid_alloc.h"

#define LID_ALLOC_MIN_CAP 64 /* hash slots; always a power of two */

/* One request still waiting for a LID after phase 1, sortable by GUID. */
struct lid_alloc_pending {
	uint64_t guid;
	uint16_t current_lid;
	size_t idx; /* into the caller's request array */
};

static uint16_t lid_alloc_clamp(uint16_t max_lid)
{
	if (max_lid < LID_UNICAST_MIN)
		return LID_UNICAST_MIN;
	if (max_lid > LID_UNICAST_MAX)
		return LID_UNICAST_MAX;
	return max_lid;
}

/* splitmix64 finaliser: GUIDs share long vendor prefixes. */
static size_t lid_alloc_home(uint64_t guid, size_t mask)
{
	guid ^= guid >> 30;
	guid *= 0xbf58476d1ce4e5b9ULL;
	guid ^= guid >> 27;
	guid *= 0x94d049bb133111ebULL;
	guid ^= guid >> 31;
	return (size_t)guid & mask;
}

/* Slot holding guid, or the empty slot where it would go. */
static size_t lid_alloc_slot(const struct lid_alloc *a, uint64_t guid)
{
	size_t mask = a->cap - 1;
	size_t i = lid_alloc_home(guid, mask);

	while (a->keys[i] != 0 && a->keys[i] != guid)
		i = (i + 1) & mask;
	return i;
}

static int lid_alloc_rehash(struct lid_alloc *a, size_t cap)
{
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint16_t *vals = calloc(cap, sizeof(*vals));
	uint64_t *old_keys = a->keys;
	uint16_t *old_vals = a->vals;
	size_t old_cap = a->cap;

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	a->keys = keys;
	a->vals = vals;
	a->cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		if (old_keys[i] == 0)
			continue;
		size_t s = lid_alloc_slot(a, old_keys[i]);
		keys[s] = old_keys[i];
		vals[s] = old_vals[i];
	}
	free(old_keys);
	free(old_vals);
	return 0;
}

/* Make room for extra more mappings, keeping the load factor <= 1/2. */
static int lid_alloc_reserve_room(struct lid_alloc *a, size_t extra)
{
	size_t room = LID_UNICAST_MAX - a->used; /* each mapping owns a LID */
	size_t need, cap = a->cap;

	if (extra > room)
		extra = room;
	need = 2 * (a->used + extra + 1);
	if (need <= cap)
		return 0;
	while (cap < need)
		cap *= 2;
	return lid_alloc_rehash(a, cap);
}

/* Record guid -> lid; the caller checked both are free and made room. */
static void lid_alloc_map(struct lid_alloc *a, uint64_t guid, uint16_t lid)
{
	size_t s = lid_alloc_slot(a, guid);

	a->keys[s] = guid;
	a->vals[s] = lid;
	a->used++;
	a->owner[lid] = guid;
	a->seen[lid] = 0;
}

/* Backward-shift deletion: no tombstones, probe chains stay short. */
static void lid_alloc_unmap_slot(struct lid_alloc *a, size_t hole)
{
	size_t mask = a->cap - 1;
	size_t j = hole;

	a->owner[a->vals[hole]] = 0;
	a->seen[a->vals[hole]] = 0;
	a->keys[hole] = 0;
	a->vals[hole] = 0;
	a->used--;
	for (;;) {
		j = (j + 1) & mask;
		if (a->keys[j] == 0)
			return;
		size_t home = lid_alloc_home(a->keys[j], mask);
		/* move it back if its home is at or before the hole */
		if (((j - home) & mask) >= ((j - hole) & mask)) {
			a->keys[hole] = a->keys[j];
			a->vals[hole] = a->vals[j];
			a->keys[j] = 0;
			a->vals[j] = 0;
			hole = j;
		}
	}
}

int lid_alloc_init(struct lid_alloc *a, uint16_t max_lid)
{
	memset(a, 0, sizeof(*a));
	a->max_lid = lid_alloc_clamp(max_lid);
	a->owner = calloc((size_t)LID_UNICAST_MAX + 1, sizeof(*a->owner));
	a->seen = calloc((size_t)LID_UNICAST_MAX + 1, sizeof(*a->seen));
	a->keys = calloc(LID_ALLOC_MIN_CAP, sizeof(*a->keys));
	a->vals = calloc(LID_ALLOC_MIN_CAP, sizeof(*a->vals));
	a->cap = LID_ALLOC_MIN_CAP;
	if (!a->owner || !a->seen || !a->keys || !a->vals) {
		lid_alloc_fini(a);
		return -ENOMEM;
	}
	return 0;
}

void lid_alloc_fini(struct lid_alloc *a)
{
	free(a->owner);
	free(a->seen);
	free(a->keys);
	free(a->vals);
	memset(a, 0, sizeof(*a));
}

void lid_alloc_set_max(struct lid_alloc *a, uint16_t max_lid)
{
	a->max_lid = lid_alloc_clamp(max_lid);
	for (uint32_t lid = (uint32_t)a->max_lid + 1; lid <= LID_UNICAST_MAX; lid++) {
		if (a->owner[lid] != 0)
			lid_alloc_release(a, a->owner[lid]);
	}
}

int lid_alloc_reserve(struct lid_alloc *a, uint64_t guid, uint16_t lid)
{
	uint16_t had;
	int rc;

	if (guid == 0)
		return -EINVAL;
	if (lid < LID_UNICAST_MIN || lid > a->max_lid)
		return -ERANGE;
	if (a->owner[lid] == guid)
		return 0;
	if (a->owner[lid] != 0)
		return -EEXIST;
	had = lid_alloc_lookup(a, guid);
	if (had != 0)
		return -EALREADY;
	rc = lid_alloc_reserve_room(a, 1);
	if (rc < 0)
		return rc;
	lid_alloc_map(a, guid, lid);
	return 0;
}

void lid_alloc_release(struct lid_alloc *a, uint64_t guid)
{
	size_t s;

	if (guid == 0 || a->cap == 0)
		return;
	s = lid_alloc_slot(a, guid);
	if (a->keys[s] == guid)
		lid_alloc_unmap_slot(a, s);
}

uint16_t lid_alloc_lookup(const struct lid_alloc *a, uint64_t guid)
{
	size_t s;

	if (guid == 0 || a->cap == 0)
		return 0;
	s = lid_alloc_slot(a, guid);
	return a->keys[s] == guid ? a->vals[s] : 0;
}

uint64_t lid_alloc_owner(const struct lid_alloc *a, uint16_t lid)
{
	if (lid > LID_UNICAST_MAX || !a->owner)
		return 0;
	return a->owner[lid];
}

size_t lid_alloc_count(const struct lid_alloc *a)
{
	return a->used;
}

static int lid_alloc_pending_cmp(const void *pa, const void *pb)
{
	const struct lid_alloc_pending *x = pa, *y = pb;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->current_lid != y->current_lid)
		return x->current_lid < y->current_lid ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Phase 1: GUIDs already mapped keep their LID.  Returns how many remain. */
static size_t lid_alloc_keep_mapped(const struct lid_alloc *a, struct lid_req *reqs, size_t n)
{
	size_t pending = 0;

	for (size_t i = 0; i < n; i++) {
		reqs[i].err = reqs[i].guid == 0 ? -EINVAL : 0;
		reqs[i].lid = lid_alloc_lookup(a, reqs[i].guid);
		if (reqs[i].lid == 0 && reqs[i].err == 0)
			pending++;
	}
	return pending;
}

/* Phase 2, in GUID order: keep the LID the port carries when it is free. */
static void lid_alloc_keep_current(struct lid_alloc *a, const struct lid_alloc_pending *p,
				   size_t np)
{
	for (size_t i = 0; i < np; i++) {
		uint16_t lid = p[i].current_lid;

		if (lid < LID_UNICAST_MIN || lid > a->max_lid || a->owner[lid] != 0)
			continue;
		if (lid_alloc_lookup(a, p[i].guid) != 0)
			continue; /* same GUID twice: the first one took a LID */
		lid_alloc_map(a, p[i].guid, lid);
	}
}

/* Phase 3, in GUID order: the lowest free LID, one pass of a cursor. */
static void lid_alloc_take_lowest(struct lid_alloc *a, const struct lid_alloc_pending *p, size_t np)
{
	uint32_t cursor = LID_UNICAST_MIN;

	for (size_t i = 0; i < np; i++) {
		if (lid_alloc_lookup(a, p[i].guid) != 0)
			continue;
		while (cursor <= a->max_lid && a->owner[cursor] != 0)
			cursor++;
		if (cursor > a->max_lid)
			return;
		lid_alloc_map(a, p[i].guid, (uint16_t)cursor);
	}
}

static void lid_alloc_fail_pending(struct lid_req *reqs, size_t n, int err)
{
	for (size_t i = 0; i < n; i++) {
		if (reqs[i].lid == 0 && reqs[i].err == 0)
			reqs[i].err = err;
	}
}

static size_t lid_alloc_count_missing(const struct lid_req *reqs, size_t n)
{
	size_t missing = 0;

	for (size_t i = 0; i < n; i++)
		missing += reqs[i].lid == 0;
	return missing;
}

size_t lid_alloc_assign(struct lid_alloc *a, struct lid_req *reqs, size_t n)
{
	size_t np = lid_alloc_keep_mapped(a, reqs, n);
	struct lid_alloc_pending *p;

	if (np == 0)
		return lid_alloc_count_missing(reqs, n);
	p = malloc(np * sizeof(*p));
	if (!p || lid_alloc_reserve_room(a, np) < 0) {
		free(p);
		lid_alloc_fail_pending(reqs, n, -ENOMEM);
		return lid_alloc_count_missing(reqs, n);
	}
	np = 0;
	for (size_t i = 0; i < n; i++) {
		if (reqs[i].lid == 0 && reqs[i].err == 0)
			p[np++] = (struct lid_alloc_pending){reqs[i].guid, reqs[i].current_lid, i};
	}
	if (np)
		qsort(p, np, sizeof(*p), lid_alloc_pending_cmp);
	lid_alloc_keep_current(a, p, np);
	lid_alloc_take_lowest(a, p, np);
	for (size_t i = 0; i < np; i++)
		reqs[p[i].idx].lid = lid_alloc_lookup(a, p[i].guid);
	free(p);
	lid_alloc_fail_pending(reqs, n, -ENOSPC);
	return lid_alloc_count_missing(reqs, n);
}

uint64_t lid_alloc_seen(const struct lid_alloc *a, uint64_t guid)
{
	uint16_t lid = lid_alloc_lookup(a, guid);

	return lid ? a->seen[lid] : 0;
}

void lid_alloc_set_seen(struct lid_alloc *a, uint64_t guid, uint64_t when)
{
	uint16_t lid = lid_alloc_lookup(a, guid);

	if (lid)
		a->seen[lid] = when;
}

/* ---- aging ---- */

static int lid_alloc_guid_cmp(const void *pa, const void *pb)
{
	uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;

	return (x > y) - (x < y);
}

static int lid_alloc_reclaim_cmp(const void *pa, const void *pb)
{
	const struct lid_reclaim *x = pa, *y = pb;

	if (x->seen != y->seen)
		return x->seen < y->seen ? -1 : 1;
	return (x->lid > y->lid) - (x->lid < y->lid);
}

/* The GUIDs of reqs, sorted (for "is this mapping's port present?"). */
static uint64_t *lid_alloc_present(const struct lid_req *reqs, size_t n)
{
	uint64_t *g = malloc((n ? n : 1) * sizeof(*g));

	if (!g)
		return NULL;
	for (size_t i = 0; i < n; i++)
		g[i] = reqs[i].guid;
	if (n)
		qsort(g, n, sizeof(*g), lid_alloc_guid_cmp);
	return g;
}

static int lid_alloc_is_stale(const struct lid_alloc *a, uint16_t lid, const struct lid_aging *ag)
{
	uint64_t seen = a->seen[lid];

	return seen != 0 && seen < ag->now && ag->now - seen > ag->age;
}

/* Append one candidate; 0 or -ENOMEM. */
static int lid_alloc_push(struct lid_reclaim **c, size_t *nc, size_t *cap, struct lid_reclaim r)
{
	if (*nc == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct lid_reclaim *nb = realloc(*c, ncap * sizeof(**c));

		if (!nb)
			return -ENOMEM;
		*c = nb;
		*cap = ncap;
	}
	(*c)[(*nc)++] = r;
	return 0;
}

/* Mappings of absent ports last seen more than ag->age ago, oldest first,
 * in *out (malloc'd).  Returns how many, or -ENOMEM. */
static long lid_alloc_stale(const struct lid_alloc *a, const struct lid_req *reqs, size_t n,
			    const struct lid_aging *ag, struct lid_reclaim **out)
{
	uint64_t *present = lid_alloc_present(reqs, n);
	struct lid_reclaim *c = NULL;
	size_t nc = 0, cap = 0;
	int rc = present ? 0 : -ENOMEM;

	for (uint32_t lid = LID_UNICAST_MIN; rc == 0 && lid <= a->max_lid; lid++) {
		uint64_t g = a->owner[lid];

		if (g == 0 || !lid_alloc_is_stale(a, (uint16_t)lid, ag) ||
		    (n && bsearch(&g, present, n, sizeof(*present), lid_alloc_guid_cmp)))
			continue;
		rc = lid_alloc_push(&c, &nc, &cap,
				    (struct lid_reclaim){g, (uint16_t)lid, a->seen[lid]});
	}
	free(present);
	if (rc < 0) {
		free(c);
		return rc;
	}
	if (nc) /* qsort's array may not be NULL, even empty */
		qsort(c, nc, sizeof(*c), lid_alloc_reclaim_cmp);
	*out = c;
	return (long)nc;
}

static void lid_alloc_stamp(struct lid_alloc *a, const struct lid_req *reqs, size_t n, uint64_t now)
{
	for (size_t i = 0; now && i < n; i++) {
		if (reqs[i].lid)
			a->seen[reqs[i].lid] = now;
	}
}

/* Release up to want stale mappings into ag->reclaimed.  Returns how many. */
static size_t lid_alloc_reclaim(struct lid_alloc *a, const struct lid_req *reqs, size_t n,
				size_t want, struct lid_aging *ag)
{
	struct lid_reclaim *c = NULL;
	long nc = lid_alloc_stale(a, reqs, n, ag, &c);

	if (nc <= 0) {
		free(c);
		return 0;
	}
	if ((size_t)nc > want)
		nc = (long)want;
	for (long i = 0; i < nc; i++)
		lid_alloc_release(a, c[i].guid);
	ag->reclaimed = c;
	ag->n_reclaimed = (size_t)nc;
	return (size_t)nc;
}

size_t lid_alloc_assign_aged(struct lid_alloc *a, struct lid_req *reqs, size_t n,
			     struct lid_aging *ag)
{
	size_t missing = lid_alloc_assign(a, reqs, n);
	size_t full = 0;

	ag->reclaimed = NULL;
	ag->n_reclaimed = 0;
	for (size_t i = 0; i < n; i++)
		full += reqs[i].err == -ENOSPC;
	if (full && ag->age && ag->now && lid_alloc_reclaim(a, reqs, n, full, ag))
		missing = lid_alloc_assign(a, reqs, n);
	lid_alloc_stamp(a, reqs, n, ag->now);
	return missing;
}

int lid_alloc_foreach(const struct lid_alloc *a, int (*fn)(void *ctx, uint64_t guid, uint16_t lid),
		      void *ctx)
{
	if (!a->owner)
		return 0;
	for (uint32_t lid = LID_UNICAST_MIN; lid <= a->max_lid; lid++) {
		if (a->owner[lid] == 0)
			continue;
		int rc = fn(ctx, a->owner[lid], (uint16_t)lid);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* ---- moves by hand (static LIDs a reload changed) ---- */

static int lid_alloc_moving(const struct lid_move *m, size_t n, uint64_t guid)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].guid == guid)
			return 1;
	return 0;
}

int lid_alloc_moves_check(const struct lid_alloc *a, const struct lid_move *m, size_t n,
			  size_t *bad, uint64_t *holder)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t owner;

		*bad = i;
		if (!m[i].lid || m[i].lid > a->max_lid)
			return -ERANGE;
		owner = lid_alloc_owner(a, m[i].lid);
		if (owner && owner != m[i].guid && !lid_alloc_moving(m, n, owner)) {
			*holder = owner;
			return -EEXIST;
		}
	}
	return 0;
}

int lid_alloc_moves_apply(struct lid_alloc *a, const struct lid_move *m, size_t n)
{
	uint64_t *seen = calloc(n ? n : 1, sizeof(*seen));
	int rc = 0;

	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		seen[i] = lid_alloc_seen(a, m[i].guid);
		lid_alloc_release(a, m[i].guid);
	}
	for (size_t i = 0; i < n; i++) {
		int r = lid_alloc_reserve(a, m[i].guid, m[i].lid);

		if (r < 0 && !rc)
			rc = r;
		if (r == 0)
			lid_alloc_set_seen(a, m[i].guid, seen[i]);
	}
	free(seen);
	return rc;
}
