/*
 * routing/lid_alloc.h - unicast LID allocation (pure: no I/O, no clock, no globals).
 *
 * DOC: Keeps the port GUID -> LID map the SM hands out.  LIDs are stable:
 * a GUID keeps the LID it had (reserved from the guid2lid file or an
 * earlier sweep); a new port keeps the valid LID it already carries when
 * that LID is free; otherwise it gets the lowest free LID.  Never hands out
 * 0, nor anything above max_lid (<= 0xBFFF, the top of the unicast space).
 *
 * Each mapping carries a last-seen time (Unix seconds, given by the caller,
 * 0 = unknown).  lid_alloc_assign_aged reclaims the LIDs of mappings whose
 * port has been absent longer than an age, and only when the LID space is
 * full and a port present now would otherwise get no LID.
 */
#ifndef NANOSM_ROUTING_LID_ALLOC_H
#define NANOSM_ROUTING_LID_ALLOC_H

#include <stddef.h>
#include <stdint.h>

struct lid_alloc {
	uint16_t max_lid; /* highest LID it may hand out */
	uint64_t *owner;  /* owner[lid] = port GUID or 0 (LID_UNICAST_MAX+1 entries) */
	uint64_t *seen;	  /* seen[lid] = owner last seen, Unix seconds, 0 = unknown */
	uint64_t saved_s; /* the caller's (read-write): when the map was last
			   * persisted (configure.c), 0 = never; lid_alloc never
			   * reads it */
	/* GUID -> LID hash, open addressing, internal */
	uint64_t *keys;
	uint16_t *vals;
	size_t cap, used;
};

struct lid_req {
	uint64_t guid;	      /* port GUID (in) */
	uint16_t current_lid; /* LID found on the port during the sweep, 0 if none (in) */
	uint16_t lid;	      /* assigned LID, 0 when none could be given (out) */
	int err;	      /* 0, or -ENOSPC when the LID space is full (out) */
};

/* max_lid is clamped to 1..0xBFFF. Returns 0 or -ENOMEM. */
int lid_alloc_init(struct lid_alloc *a, uint16_t max_lid);
void lid_alloc_fini(struct lid_alloc *a);
/* Lower (or raise, up to 0xBFFF) the ceiling, e.g. to the smallest switch
 * LinearFDBCap - 1.  Existing mappings above it are dropped (their ports get
 * new LIDs on the next lid_alloc_assign). */
void lid_alloc_set_max(struct lid_alloc *a, uint16_t max_lid);

/* Record guid -> lid (e.g. from guid2lid). Returns 0; -ERANGE if lid is 0
 * or above max_lid; -EEXIST if the LID belongs to another GUID (first one
 * wins); -EALREADY if the GUID already has a different LID (kept); -EINVAL
 * for GUID 0; -ENOMEM. */
int lid_alloc_reserve(struct lid_alloc *a, uint64_t guid, uint16_t lid);
/* Forget a GUID's LID (frees the LID). */
void lid_alloc_release(struct lid_alloc *a, uint64_t guid);
/* LID of guid, 0 if none. */
uint16_t lid_alloc_lookup(const struct lid_alloc *a, uint64_t guid);
/* GUID owning lid, 0 if free. */
uint64_t lid_alloc_owner(const struct lid_alloc *a, uint16_t lid);
size_t lid_alloc_count(const struct lid_alloc *a);

/* Assign LIDs to every request (order in the array does not matter: ties
 * such as two ports carrying the same current LID are broken by lower GUID;
 * the same GUID twice gets one LID).  Returns the number of requests left
 * without a LID (err = -ENOSPC; also -EINVAL for GUID 0, -ENOMEM). */
size_t lid_alloc_assign(struct lid_alloc *a, struct lid_req *reqs, size_t n);

/* Last-seen time of guid's mapping (0: unknown or no mapping); set it
 * (ignored when guid has no LID). */
uint64_t lid_alloc_seen(const struct lid_alloc *a, uint64_t guid);
void lid_alloc_set_seen(struct lid_alloc *a, uint64_t guid, uint64_t when);

/* One LID taken back from an absent port (lid_alloc_assign_aged). */
struct lid_reclaim {
	uint64_t guid; /* the absent port that held it */
	uint16_t lid;
	uint64_t seen; /* when that port was last seen */
};

/* Aging for lid_alloc_assign_aged: in now and age, out the reclaims. */
struct lid_aging {
	uint64_t now; /* Unix seconds; 0 = no clock: nothing stamped or reclaimed */
	uint64_t age; /* seconds absent before a LID may be reclaimed; 0 = never */
	struct lid_reclaim *reclaimed; /* out: malloc'd (caller frees), oldest first */
	size_t n_reclaimed;	       /* out */
};

/* lid_alloc_assign, then: if ports are left without a LID because the
 * space is full, and ag->age > 0, the mappings of GUIDs not among reqs whose
 * last-seen time is known and more than ag->age before ag->now are released,
 * longest absent first (ties: lower LID), one per port left over, and
 * those ports are assigned again (their current LID first, else the lowest
 * free).  Every request that ends with a LID is stamped seen = ag->now.
 * Never reclaims while a free LID remains.  Returns as lid_alloc_assign;
 * ag->reclaimed is NULL when nothing was reclaimed (or out of memory: then
 * nothing is reclaimed either). */
size_t lid_alloc_assign_aged(struct lid_alloc *a, struct lid_req *reqs, size_t n,
			     struct lid_aging *ag);

/* A port moved to another LID by hand (a static LID a policy reload
 * changed): guid leaves the LID it holds (0: none) for lid. */
struct lid_move {
	uint64_t guid;
	uint16_t lid;
};

/* Could every move of m[0..n) take effect together?  A move's LID must be
 * free, or guid's already, or held by a GUID that moves away in m too (a
 * swap), and within 1..max_lid.  Returns 0, or -ERANGE (*bad = its index)
 * or -EEXIST (*bad = its index, *holder = the GUID holding the LID). */
int lid_alloc_moves_check(const struct lid_alloc *a, const struct lid_move *m, size_t n,
			  size_t *bad, uint64_t *holder);
/* Apply checked moves: every moving GUID leaves its LID (freed), then
 * each takes its new one, keeping its last-seen time.  Returns 0 or the
 * first lid_alloc_reserve error (none after a passed check, but -ENOMEM). */
int lid_alloc_moves_apply(struct lid_alloc *a, const struct lid_move *m, size_t n);

/* Iterate mappings in LID order: calls fn for each; stops if fn returns
 * non-zero and returns that value. */
int lid_alloc_foreach(const struct lid_alloc *a, int (*fn)(void *ctx, uint64_t guid, uint16_t lid),
		      void *ctx);

#endif
