/*
 * lid_alloc.h - unicast LID allocation (pure: no I/O, no clock, no globals).
 *
 * DOC: Keeps the port GUID -> LID map the SM hands out.  LIDs are stable:
 * a GUID keeps the LID it had (reserved from the guid2lid file or an
 * earlier sweep); a new port keeps the valid LID it already carries when
 * that LID is free; otherwise it gets the lowest free LID.  Never hands out
 * 0, nor anything above max_lid (<= 0xBFFF, the top of the unicast space).
 */
#ifndef NANOSM_SM_LID_ALLOC_H
#define NANOSM_SM_LID_ALLOC_H

#include <stddef.h>
#include <stdint.h>

struct lid_alloc {
	uint16_t max_lid; /* highest LID it may hand out */
	uint64_t *owner;  /* owner[lid] = port GUID or 0 (LID_UNICAST_MAX+1 entries) */
	/* GUID -> LID hash, open addressing, internal */
	uint64_t *keys;
	uint16_t *vals;
	size_t cap, used;
};

struct lid_req {
	uint64_t guid;        /* port GUID (in) */
	uint16_t current_lid; /* LID found on the port during the sweep, 0 if none (in) */
	uint16_t lid;         /* assigned LID, 0 when none could be given (out) */
	int err;              /* 0, or -ENOSPC when the LID space is full (out) */
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

/* Iterate mappings in LID order: calls fn for each; stops if fn returns
 * non-zero and returns that value. */
int lid_alloc_foreach(const struct lid_alloc *a, int (*fn)(void *ctx, uint64_t guid, uint16_t lid),
		      void *ctx);

#endif
