/*
 * updn_test.h - the updn unit tests' own checker (updn_test.c): every
 * (source, LID) pair followed through the tables, judged against an
 * up/down order recomputed from the roots and apex the engine's note
 * names, and a credit-loop check of our own.
 */
#ifndef TESTS_UNIT_UPDN_TEST_H
#define TESTS_UNIT_UPDN_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "routing/route.h"

/* What the checker found. */
struct updn_test_verdict {
	unsigned undelivered;  /* CA source, reachable LID, not delivered */
	unsigned illegal;      /* a path that goes down then up */
	unsigned lost;	       /* misdelivered, bad port or looping (any source) */
	unsigned switch_drops; /* switch source, reachable LID, dropped */
	unsigned stray;	       /* unreachable LID not dropped */
};

/* Route f with updn (roots given or detected), then check everything:
 * every switch and CA reaches every LID of its group, nothing is lost, no
 * route goes down then up, no credit loop (CUnit asserts).  *s keeps the
 * tables. */
struct updn_test_verdict updn_test_check(const struct fabric *f, uint16_t max_lid,
					 const uint64_t *given, size_t n_given, struct lft_set *s,
					 struct route_note *note);
/* 1 when the channel dependency graph of the tables has a cycle. */
int updn_test_credit_loop(const struct fabric *f, const struct lft_set *s, uint16_t max_lid);

#endif
