/*
 * test_lid_alloc.c - unit tests for routing/lid_alloc.c: stability, reservations,
 * tie-breaking, the 0xBFFF ceiling, max_lid changes, release and the hash,
 * last-seen times and the reclaiming of absent ports' LIDs.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/lid_alloc.h"
#include "tests/unit/unit.h"

#define G(n) (0x0002c90300000000ULL + (n))
#define LID_TOP 0xBFFF

static void req_set(struct lid_req *r, uint64_t guid, uint16_t current_lid)
{
	memset(r, 0, sizeof(*r));
	r->guid = guid;
	r->current_lid = current_lid;
	r->lid = 0xdead; /* must be overwritten */
	r->err = 1;
}

static void test_lid_alloc_init_clamps(void)
{
	struct lid_alloc a;

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0xFFFF), 0);
	CU_ASSERT_EQUAL(a.max_lid, LID_TOP);
	lid_alloc_set_max(&a, 0);
	CU_ASSERT_EQUAL(a.max_lid, 1);
	lid_alloc_fini(&a);
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0), 0);
	CU_ASSERT_EQUAL(a.max_lid, 1);
	CU_ASSERT_EQUAL(lid_alloc_count(&a), 0);
	lid_alloc_fini(&a);
}

static void test_lid_alloc_stable(void)
{
	struct lid_alloc a;
	struct lid_req r[3];

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, LID_TOP), 0);
	req_set(&r[0], G(30), 0);
	req_set(&r[1], G(10), 0);
	req_set(&r[2], G(20), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 3), 0);
	/* lowest free LIDs handed out in GUID order */
	CU_ASSERT_EQUAL(r[1].lid, 1);
	CU_ASSERT_EQUAL(r[2].lid, 2);
	CU_ASSERT_EQUAL(r[0].lid, 3);
	CU_ASSERT_EQUAL(r[0].err, 0);
	/* a second sweep, other order, ports now carry other LIDs: no change */
	req_set(&r[0], G(20), 7);
	req_set(&r[1], G(30), 1);
	req_set(&r[2], G(10), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 3), 0);
	CU_ASSERT_EQUAL(r[0].lid, 2);
	CU_ASSERT_EQUAL(r[1].lid, 3);
	CU_ASSERT_EQUAL(r[2].lid, 1);
	CU_ASSERT_EQUAL(lid_alloc_count(&a), 3);
	CU_ASSERT_EQUAL(lid_alloc_owner(&a, 3), G(30));
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(20)), 2);
	lid_alloc_fini(&a);
}

static void test_lid_alloc_reserve_errors(void)
{
	struct lid_alloc a;

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0x100), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 0), -ERANGE);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 0x101), -ERANGE);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 0xC000), -ERANGE);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, 0, 5), -EINVAL);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 0x100), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 0x100), 0); /* same again: fine */
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(2), 0x100), -EEXIST);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 0x20), -EALREADY);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(1)), 0x100);
	CU_ASSERT_EQUAL(lid_alloc_owner(&a, 0x20), 0);
	CU_ASSERT_EQUAL(lid_alloc_owner(&a, 0xC000), 0);
	CU_ASSERT_EQUAL(lid_alloc_count(&a), 1);
	lid_alloc_fini(&a);
}

static void test_lid_alloc_reserved_honored(void)
{
	struct lid_alloc a;
	struct lid_req r[3];

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, LID_TOP), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 0x10), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(9), 1), 0); /* port absent this sweep */
	req_set(&r[0], G(2), 0x10);			    /* carries G(1)'s LID */
	req_set(&r[1], G(1), 0x5);			    /* carries some other LID */
	req_set(&r[2], G(3), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 3), 0);
	CU_ASSERT_EQUAL(r[1].lid, 0x10);
	CU_ASSERT_EQUAL(r[0].lid, 2); /* 1 stays reserved for G(9) */
	CU_ASSERT_EQUAL(r[2].lid, 3);
	CU_ASSERT_EQUAL(lid_alloc_owner(&a, 1), G(9));
	CU_ASSERT_EQUAL(lid_alloc_owner(&a, 5), 0);
	lid_alloc_fini(&a);
}

static void test_lid_alloc_keeps_current(void)
{
	struct lid_alloc a;
	struct lid_req r[4];

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0x200), 0);
	req_set(&r[0], G(1), 0x42);
	req_set(&r[1], G(2), 0);
	req_set(&r[2], G(3), 0x300); /* above max_lid: not kept */
	req_set(&r[3], G(4), 1);
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 4), 0);
	CU_ASSERT_EQUAL(r[0].lid, 0x42);
	CU_ASSERT_EQUAL(r[3].lid, 1);
	CU_ASSERT_EQUAL(r[1].lid, 2); /* lowest free after phase 2 */
	CU_ASSERT_EQUAL(r[2].lid, 3);
	lid_alloc_fini(&a);
}

/* Two ports carrying the same LID: the lower GUID keeps it, whatever the
 * order of the request array. */
static void test_lid_alloc_duplicate_current(void)
{
	for (int order = 0; order < 2; order++) {
		struct lid_alloc a;
		struct lid_req r[3];

		CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, LID_TOP), 0);
		req_set(&r[order ? 0 : 1], G(0x20), 7);
		req_set(&r[order ? 1 : 0], G(0x10), 7);
		req_set(&r[2], G(0x05), 0);
		CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 3), 0);
		CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(0x10)), 7);
		CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(0x05)), 1);
		CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(0x20)), 2);
		CU_ASSERT_EQUAL(r[order ? 1 : 0].lid, 7);
		CU_ASSERT_EQUAL(r[order ? 0 : 1].lid, 2);
		lid_alloc_fini(&a);
	}
}

static void test_lid_alloc_duplicate_guid(void)
{
	struct lid_alloc a;
	struct lid_req r[4];

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, LID_TOP), 0);
	req_set(&r[0], G(1), 0x30);
	req_set(&r[1], G(1), 0x20);
	req_set(&r[2], G(2), 0);
	req_set(&r[3], G(2), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 4), 0);
	CU_ASSERT_EQUAL(r[0].lid, 0x20); /* lower current LID of the two */
	CU_ASSERT_EQUAL(r[1].lid, 0x20);
	CU_ASSERT_EQUAL(r[2].lid, 1);
	CU_ASSERT_EQUAL(r[3].lid, 1);
	CU_ASSERT_EQUAL(lid_alloc_count(&a), 2);
	CU_ASSERT_EQUAL(lid_alloc_owner(&a, 0x30), 0);
	lid_alloc_fini(&a);
}

static void test_lid_alloc_guid_zero(void)
{
	struct lid_alloc a;
	struct lid_req r[2];

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, LID_TOP), 0);
	req_set(&r[0], 0, 3);
	req_set(&r[1], G(1), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 2), 1);
	CU_ASSERT_EQUAL(r[0].err, -EINVAL);
	CU_ASSERT_EQUAL(r[0].lid, 0);
	CU_ASSERT_EQUAL(r[1].lid, 1);
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, NULL, 0), 0);
	lid_alloc_fini(&a);
}

/* The whole unicast space: 49151 ports get 1..0xBFFF, the 49152nd none. */
static void test_lid_alloc_full_space(void)
{
	size_t n = LID_TOP + 1;
	struct lid_req *r = calloc(n, sizeof(*r));
	unsigned char *seen = calloc(LID_TOP + 1, 1);
	size_t failed = 0, failed_at = 0;
	struct lid_alloc a;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(seen);
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 0xFFFF), 0);
	for (size_t i = 0; i < n; i++) /* descending GUIDs, half carry a LID */
		req_set(&r[i], G(n - i), (uint16_t)(i % 2 ? (i * 7) % 0xC000 : 0));
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, n), 1);
	for (size_t i = 0; i < n; i++) {
		if (r[i].lid == 0) {
			failed++;
			failed_at = i;
			CU_ASSERT_EQUAL(r[i].err, -ENOSPC);
			continue;
		}
		CU_ASSERT_EQUAL(r[i].err, 0);
		CU_ASSERT_FATAL(r[i].lid <= LID_TOP);
		CU_ASSERT_EQUAL(seen[r[i].lid], 0);
		seen[r[i].lid] = 1;
	}
	CU_ASSERT_EQUAL(failed, 1);
	CU_ASSERT_EQUAL(failed_at, 0); /* the highest GUID lost */
	CU_ASSERT_EQUAL(lid_alloc_count(&a), LID_TOP);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(n + 1), 0xC000), -ERANGE);
	/* the same fabric again: the same answer, still one short */
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, n), 1);
	CU_ASSERT_EQUAL(r[0].err, -ENOSPC);
	/* freeing one LID lets the last port in */
	lid_alloc_release(&a, G(1));
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 1), 0);
	CU_ASSERT(r[0].lid >= 1 && r[0].lid <= LID_TOP);
	lid_alloc_fini(&a);
	free(r);
	free(seen);
}

static void test_lid_alloc_lower_max(void)
{
	struct lid_alloc a;
	struct lid_req r[10];
	size_t missing = 0;

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, LID_TOP), 0);
	for (int i = 0; i < 10; i++)
		req_set(&r[i], G(i + 1), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 10), 0);
	lid_alloc_set_max(&a, 5);
	CU_ASSERT_EQUAL(lid_alloc_count(&a), 5);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(5)), 5);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(6)), 0);
	CU_ASSERT_EQUAL(lid_alloc_owner(&a, 6), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(20), 6), -ERANGE);
	for (int i = 0; i < 10; i++)
		req_set(&r[i], G(i + 1), (uint16_t)(i + 1)); /* ports still carry old LIDs */
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 10), 5);
	for (int i = 0; i < 10; i++) {
		CU_ASSERT(r[i].lid <= 5);
		missing += r[i].lid == 0;
	}
	CU_ASSERT_EQUAL(missing, 5);
	CU_ASSERT_EQUAL(r[9].err, -ENOSPC);
	/* raised again: the dropped ports get LIDs, their old ones when free */
	lid_alloc_set_max(&a, LID_TOP);
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 10), 0);
	CU_ASSERT_EQUAL(r[9].lid, 10);
	CU_ASSERT_EQUAL(r[0].lid, 1);
	lid_alloc_fini(&a);
}

static void test_lid_alloc_release(void)
{
	struct lid_alloc a;
	struct lid_req r[2];

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, LID_TOP), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 1), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(2), 2), 0);
	lid_alloc_release(&a, G(1));
	lid_alloc_release(&a, G(77)); /* unknown: no-op */
	lid_alloc_release(&a, 0);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(1)), 0);
	CU_ASSERT_EQUAL(lid_alloc_owner(&a, 1), 0);
	CU_ASSERT_EQUAL(lid_alloc_count(&a), 1);
	req_set(&r[0], G(3), 0);
	req_set(&r[1], G(1), 2); /* its old LID went to nobody, 2 is G(2)'s */
	CU_ASSERT_EQUAL(lid_alloc_assign(&a, r, 2), 0);
	CU_ASSERT_EQUAL(r[1].lid, 1);
	CU_ASSERT_EQUAL(r[0].lid, 3);
	lid_alloc_fini(&a);
}

/* Many inserts and deletions with colliding GUIDs: the hash stays exact. */
static void test_lid_alloc_hash_churn(void)
{
	enum { N = 20000 };
	struct lid_alloc a;
	uint64_t state = 12345;

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, LID_TOP), 0);
	for (uint16_t i = 1; i <= N; i++)
		CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G((uint64_t)i << 32), i), 0);
	for (int round = 0; round < 3 * N; round++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		uint16_t lid = (uint16_t)(1 + (state >> 33) % N);
		if (lid_alloc_owner(&a, lid))
			lid_alloc_release(&a, G((uint64_t)lid << 32));
		else
			CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G((uint64_t)lid << 32), lid), 0);
	}
	size_t count = 0;
	for (uint16_t i = 1; i <= N; i++) {
		uint64_t owner = lid_alloc_owner(&a, i);
		uint16_t got = lid_alloc_lookup(&a, G((uint64_t)i << 32));
		if (owner) {
			count++;
			CU_ASSERT_EQUAL(owner, G((uint64_t)i << 32));
			CU_ASSERT_EQUAL(got, i);
		} else {
			CU_ASSERT_EQUAL(got, 0);
		}
	}
	CU_ASSERT_EQUAL(count, lid_alloc_count(&a));
	lid_alloc_fini(&a);
}

struct collect {
	uint16_t lids[8];
	int n, stop_at;
};

static int collect_one(void *ctx, uint64_t guid, uint16_t lid)
{
	struct collect *c = ctx;

	(void)guid;
	c->lids[c->n++] = lid;
	return c->n == c->stop_at ? 42 : 0;
}

static void test_lid_alloc_foreach(void)
{
	struct lid_alloc a;
	struct collect c = {{0}, 0, 0};

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, LID_TOP), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 0x30), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(2), 0x2), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(3), LID_TOP), 0);
	CU_ASSERT_EQUAL(lid_alloc_foreach(&a, collect_one, &c), 0);
	CU_ASSERT_EQUAL(c.n, 3);
	CU_ASSERT_EQUAL(c.lids[0], 0x2);
	CU_ASSERT_EQUAL(c.lids[1], 0x30);
	CU_ASSERT_EQUAL(c.lids[2], LID_TOP);
	c.n = 0;
	c.stop_at = 2;
	CU_ASSERT_EQUAL(lid_alloc_foreach(&a, collect_one, &c), 42);
	CU_ASSERT_EQUAL(c.n, 2);
	lid_alloc_fini(&a);
}

static void test_lid_alloc_seen(void)
{
	struct lid_alloc a;
	struct lid_req r[2];
	struct lid_aging ag = {.now = 1000, .age = 0};

	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, LID_TOP), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 5), 0);
	CU_ASSERT_EQUAL(lid_alloc_seen(&a, G(1)), 0); /* unknown */
	lid_alloc_set_seen(&a, G(1), 77);
	CU_ASSERT_EQUAL(lid_alloc_seen(&a, G(1)), 77);
	lid_alloc_set_seen(&a, G(2), 99); /* no mapping: ignored */
	CU_ASSERT_EQUAL(lid_alloc_seen(&a, G(2)), 0);
	/* a sweep stamps every port present, and only those */
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(3), 6), 0);
	req_set(&r[0], G(1), 0);
	req_set(&r[1], G(2), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign_aged(&a, r, 2, &ag), 0);
	CU_ASSERT_EQUAL(lid_alloc_seen(&a, G(1)), 1000);
	CU_ASSERT_EQUAL(lid_alloc_seen(&a, G(2)), 1000);
	CU_ASSERT_EQUAL(lid_alloc_seen(&a, G(3)), 0);
	CU_ASSERT_PTR_NULL(ag.reclaimed);
	/* release forgets the time; the LID's next owner starts unknown */
	lid_alloc_release(&a, G(1));
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(4), 5), 0);
	CU_ASSERT_EQUAL(lid_alloc_seen(&a, G(4)), 0);
	lid_alloc_fini(&a);
}

/* max LID 4, all four held by absent ports last seen at 100, 200, 300, 0. */
static void aged_full(struct lid_alloc *a)
{
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(a, 4), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(a, G(1), 1), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(a, G(2), 2), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(a, G(3), 3), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(a, G(4), 4), 0);
	lid_alloc_set_seen(a, G(1), 300);
	lid_alloc_set_seen(a, G(2), 100);
	lid_alloc_set_seen(a, G(3), 200);
	/* G(4): never stamped (0 = unknown): never reclaimed */
}

static void test_lid_alloc_reclaim(void)
{
	struct lid_alloc a;
	struct lid_req r[3];
	struct lid_aging ag = {.now = 1000, .age = 750};

	/* two new ports, space full: the two absent longest beyond the age go
	 * (G(2), 900 s; G(3), 800 s), not G(1) (700 s) nor G(4) (unknown) */
	aged_full(&a);
	req_set(&r[0], G(10), 0);
	req_set(&r[1], G(11), 3); /* carries LID 3: keeps it once free */
	CU_ASSERT_EQUAL(lid_alloc_assign_aged(&a, r, 2, &ag), 0);
	CU_ASSERT_EQUAL_FATAL(ag.n_reclaimed, 2);
	CU_ASSERT_EQUAL(ag.reclaimed[0].guid, G(2));
	CU_ASSERT_EQUAL(ag.reclaimed[0].lid, 2);
	CU_ASSERT_EQUAL(ag.reclaimed[0].seen, 100);
	CU_ASSERT_EQUAL(ag.reclaimed[1].guid, G(3));
	CU_ASSERT_EQUAL(r[1].lid, 3);
	CU_ASSERT_EQUAL(r[0].lid, 2);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(1)), 1);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(4)), 4);
	CU_ASSERT_EQUAL(lid_alloc_seen(&a, G(10)), 1000);
	free(ag.reclaimed);
	lid_alloc_fini(&a);

	/* only as many as needed: one new port, one reclaim (the oldest) */
	aged_full(&a);
	req_set(&r[0], G(10), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign_aged(&a, r, 1, &ag), 0);
	CU_ASSERT_EQUAL_FATAL(ag.n_reclaimed, 1);
	CU_ASSERT_EQUAL(ag.reclaimed[0].guid, G(2));
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(3)), 3);
	free(ag.reclaimed);
	lid_alloc_fini(&a);

	/* more ports than stale LIDs: the rest still get ENOSPC */
	aged_full(&a);
	req_set(&r[0], G(10), 0);
	req_set(&r[1], G(11), 0);
	req_set(&r[2], G(12), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign_aged(&a, r, 3, &ag), 1);
	CU_ASSERT_EQUAL(ag.n_reclaimed, 2);
	CU_ASSERT_EQUAL(r[2].err, -ENOSPC);
	free(ag.reclaimed);
	lid_alloc_fini(&a);
}

static void test_lid_alloc_reclaim_never(void)
{
	struct lid_alloc a;
	struct lid_req r[4];
	struct lid_aging ag = {.now = 1000, .age = 10};

	/* while the space has room: nothing reclaimed, however old */
	CU_ASSERT_EQUAL_FATAL(lid_alloc_init(&a, 4), 0);
	CU_ASSERT_EQUAL(lid_alloc_reserve(&a, G(1), 1), 0);
	lid_alloc_set_seen(&a, G(1), 1);
	req_set(&r[0], G(10), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign_aged(&a, r, 1, &ag), 0);
	CU_ASSERT_EQUAL(ag.n_reclaimed, 0);
	CU_ASSERT_EQUAL(lid_alloc_lookup(&a, G(1)), 1);
	lid_alloc_fini(&a);
	/* age 0 (the default): never */
	aged_full(&a);
	ag.age = 0;
	req_set(&r[0], G(10), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign_aged(&a, r, 1, &ag), 1);
	CU_ASSERT_EQUAL(ag.n_reclaimed, 0);
	lid_alloc_fini(&a);
	/* no clock (now 0): never, and nothing stamped */
	aged_full(&a);
	ag = (struct lid_aging){.now = 0, .age = 10};
	CU_ASSERT_EQUAL(lid_alloc_assign_aged(&a, r, 1, &ag), 1);
	CU_ASSERT_EQUAL(ag.n_reclaimed, 0);
	lid_alloc_fini(&a);
	/* ports present now are never reclaimed, even with old stamps */
	aged_full(&a);
	ag = (struct lid_aging){.now = 1000, .age = 10};
	req_set(&r[0], G(1), 0);
	req_set(&r[1], G(2), 0);
	req_set(&r[2], G(3), 0);
	req_set(&r[3], G(10), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign_aged(&a, r, 4, &ag), 1);
	CU_ASSERT_EQUAL(ag.n_reclaimed, 0); /* G(4) is absent but unknown */
	CU_ASSERT_EQUAL(r[3].err, -ENOSPC);
	lid_alloc_fini(&a);
	/* a stamp in the future (clock stepped back) is not stale */
	aged_full(&a);
	lid_alloc_set_seen(&a, G(2), 5000);
	lid_alloc_set_seen(&a, G(1), 5000);
	lid_alloc_set_seen(&a, G(3), 5000);
	req_set(&r[0], G(10), 0);
	CU_ASSERT_EQUAL(lid_alloc_assign_aged(&a, r, 1, &ag), 1);
	CU_ASSERT_EQUAL(ag.n_reclaimed, 0);
	lid_alloc_fini(&a);
}

void test_lid_alloc_register(void)
{
	CU_pSuite s = CU_add_suite("lid_alloc", NULL, NULL);

	if (!s)
		return;
	CU_add_test(s, "init clamps max_lid", test_lid_alloc_init_clamps);
	CU_add_test(s, "stable across sweeps", test_lid_alloc_stable);
	CU_add_test(s, "reserve errors", test_lid_alloc_reserve_errors);
	CU_add_test(s, "reserved mappings honored", test_lid_alloc_reserved_honored);
	CU_add_test(s, "current LID kept when free", test_lid_alloc_keeps_current);
	CU_add_test(s, "duplicate current LID: lower GUID wins", test_lid_alloc_duplicate_current);
	CU_add_test(s, "duplicate GUID gets one LID", test_lid_alloc_duplicate_guid);
	CU_add_test(s, "GUID 0 rejected", test_lid_alloc_guid_zero);
	CU_add_test(s, "full space to 0xBFFF then ENOSPC", test_lid_alloc_full_space);
	CU_add_test(s, "lowering max_lid drops mappings", test_lid_alloc_lower_max);
	CU_add_test(s, "release", test_lid_alloc_release);
	CU_add_test(s, "hash insert/delete churn", test_lid_alloc_hash_churn);
	CU_add_test(s, "foreach in LID order", test_lid_alloc_foreach);
	CU_add_test(s, "last-seen times", test_lid_alloc_seen);
	CU_add_test(s, "full space: absent ports' LIDs reclaimed, oldest first",
		    test_lid_alloc_reclaim);
	CU_add_test(s, "never reclaimed: room left, age 0, no clock, present, unknown",
		    test_lid_alloc_reclaim_never);
}
