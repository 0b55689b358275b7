/*
 * sm/core/plan.c - what a routing change would do, without doing it: routes the
 * last good fabric with the new engines/roots, runs the gate, and compares
 * the tables block by block and score by score with the ones in force.
 * Pushes nothing, changes no SM state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/score.h"
#include "sm/core/sm_priv.h"

/* Blocks and LIDs that differ between the table in force and the new one. */
static void plan_switch(struct text_buf *t, const struct fabric *f, const struct lft *old,
			const struct lft *new, size_t *blocks, size_t *moved, size_t *touched)
{
	unsigned nb = (unsigned)new->top / LFT_BLOCK_SIZE + 1, b_changed = 0, l_moved = 0;

	for (unsigned b = 0; b < nb; b++) {
		unsigned diff = 0;

		for (unsigned i = 0; i < LFT_BLOCK_SIZE; i++) {
			unsigned lid = b * LFT_BLOCK_SIZE + i;
			uint8_t o = old && lid <= old->top ? old->port[lid] : LFT_DROP;
			uint8_t n = lid <= new->top ? new->port[lid] : LFT_DROP;

			diff += o != n;
		}
		b_changed += diff != 0;
		l_moved += diff;
	}
	if (!b_changed)
		return;
	text_buf_printf(t, "  switch 0x%016llx (%s): %u LFT block(s) change, %u LID(s) move\n",
			(unsigned long long)f->nodes[new->node].guid, f->nodes[new->node].desc,
			b_changed, l_moved);
	*blocks += b_changed;
	*moved += l_moved;
	(*touched)++;
}

static void plan_score(struct text_buf *t, const struct fabric *f, const struct lft_set *old,
		       const struct lft_set *new)
{
	struct score_opts o = {.shifts = 256, .bisections = 100, .seed = 1};
	struct route_score a, b;

	if (score_run(f, old, &o, &a) < 0 || score_run(f, new, &o, &b) < 0) {
		text_buf_printf(t, "scores: not computed (out of memory)\n");
		return;
	}
	text_buf_printf(t, "scores (in force -> planned; %zu shifts, %zu bisections):\n", b.shifts,
			o.bisections);
	text_buf_printf(t, "  shift all-to-all worst link load  %llu -> %llu\n",
			(unsigned long long)a.shift_load_worst,
			(unsigned long long)b.shift_load_worst);
	text_buf_printf(t, "  edge forwarding index max         %llu -> %llu\n",
			(unsigned long long)a.efi.max, (unsigned long long)b.efi.max);
	text_buf_printf(t, "  effective bisection bandwidth     %.4f -> %.4f\n", a.ebb_mean,
			b.ebb_mean);
}

char *sm_plan(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
	      char *refused, size_t refusedlen)
{
	struct text_buf t;
	struct lft_set next;
	char why[768];
	size_t blocks = 0, moved = 0, touched = 0;
	int rc;

	text_buf_init(&t);
	if (refusedlen)
		refused[0] = '\0';
	if (sm->lfts_ahead) {
		text_buf_printf(&t, "a sweep is routing right now: try again when it ends\n");
		return text_buf_take(&t, NULL);
	}
	lft_set_init(&next);
	rc = lft_push_dry_run(sm, engines, roots, n_roots, &next, why, sizeof(why));
	text_buf_printf(&t, "routing: %s -> %s\n", sm->opts.engine, engines);
	if (rc == -EAGAIN) { /* no fabric yet: a reload would not be refused */
		text_buf_printf(&t, "not checked: %s (the next sweep's gate decides)\n", why);
		lft_set_fini(&next);
		return text_buf_take(&t, NULL);
	}
	if (rc < 0) {
		text_buf_printf(&t, "refused: %s\nnothing would change\n", why);
		snprintf(refused, refusedlen, "%s", why);
		lft_set_fini(&next);
		return text_buf_take(&t, NULL);
	}
	text_buf_printf(&t, "engine that would be used: %s (gate passed)\n", why);
	for (size_t i = 0; i < next.n; i++)
		plan_switch(&t, &sm->cur, lft_set_find_const(&sm->lfts_cur, next.tables[i].node),
			    &next.tables[i], &blocks, &moved, &touched);
	text_buf_printf(
	    &t, "LFT: %zu block(s) on %zu of %zu switch(es) would be written, %zu route(s) move\n",
	    blocks, touched, next.n, moved);
	plan_score(&t, &sm->cur, &sm->lfts_cur, &next);
	lft_set_fini(&next);
	return text_buf_take(&t, NULL);
}
