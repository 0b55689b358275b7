/*
 * sm/core/plan.c - what a routing change would do, without doing it: routes the
 * last good fabric with the new engines/roots, runs the gate, and compares
 * the tables block by block and score by score with the ones in force
 * (sm_plan for `nanosmctl plan`, sm_routing_check for reload's verdict).
 * Pushes nothing, changes no SM state.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/score.h"
#include "sm/core/sm_priv.h"

#define PLAN_SWITCH_LINES 10 /* per-switch lines shown before "... N more" */

/* Blocks and LIDs that differ between the table in force and the new one;
 * a line for the first PLAN_SWITCH_LINES switches that change (all with
 * verbose). */
/* The push's count: the Sets for the blocks that differ, in loop-free
 * steps (lft_push.c), tallied in plan_count. */
struct plan_count {
	const struct fabric *f;
	const struct lft_set *next;
	size_t planned, writes;
};

static void plan_switch(struct text_buf *t, struct plan_count *pc, const struct lft *old,
			const struct lft *new, int verbose, size_t *blocks, size_t *moved,
			size_t *touched)
{
	const struct fabric *f = pc->f;
	unsigned nb = (unsigned)new->top / LFT_BLOCK_SIZE + 1, b_changed = 0, l_moved = 0;

	for (unsigned b = 0; b < nb; b++) {
		uint8_t o[LFT_BLOCK_SIZE], n[LFT_BLOCK_SIZE];
		unsigned diff = 0;

		for (unsigned i = 0; i < LFT_BLOCK_SIZE; i++) {
			unsigned lid = b * LFT_BLOCK_SIZE + i;

			o[i] = old && lid <= old->top ? old->port[lid] : LFT_DROP;
			n[i] = lid <= new->top ? new->port[lid] : LFT_DROP;
			diff += o[i] != n[i];
		}
		b_changed += diff != 0;
		l_moved += diff;
		if (diff)
			pc->writes +=
			    lft_push_block_writes(f, pc->next, new->node, b, o, n, &pc->planned);
	}
	if (!b_changed)
		return;
	if (verbose || *touched < PLAN_SWITCH_LINES)
		text_buf_printf(t,
				"  switch 0x%016llx (%s): %u LFT block(s) change, %u LID(s) move\n",
				(unsigned long long)f->nodes[new->node].guid,
				f->nodes[new->node].desc, b_changed, l_moved);
	*blocks += b_changed;
	*moved += l_moved;
	(*touched)++;
}

void sm_routing_scores_str(const struct sm_routing_verdict *v, char *out, size_t size)
{
	if (!v->scored) {
		snprintf(out, size, "no tables in force to compare with");
		return;
	}
	snprintf(out, size, "EBB %.4f -> %.4f, worst link load %" PRIu64 " -> %" PRIu64, v->ebb_old,
		 v->ebb_new, v->worst_old, v->worst_new);
}

void sm_plan_worse(const struct sm_routing_verdict *v, char *out, size_t size)
{
	char scores[160];

	sm_routing_scores_str(v, scores, sizeof(scores));
	snprintf(out, size,
		 "the new routing (engine %s) scores much worse than the one in force: %s "
		 "(reload --force applies it anyway)",
		 v->engine, scores);
}

/* Score the tables in force and the new ones on the last good fabric. */
static int plan_scores(struct sm *sm, const struct lft_set *next, struct sm_routing_verdict *v)
{
	struct score_opts o = {.shifts = 256, .bisections = 100, .seed = 1};
	struct route_score a, b;

	if (!sm->lfts_cur.n)
		return 0;
	if (score_run(&sm->cur, &sm->lfts_cur, &o, &a) < 0 || score_run(&sm->cur, next, &o, &b) < 0)
		return -ENOMEM;
	v->scored = 1;
	v->shifts = b.shifts;
	v->bisections = o.bisections;
	v->ebb_old = a.ebb_mean;
	v->ebb_new = b.ebb_mean;
	v->worst_old = a.shift_load_worst;
	v->worst_new = b.shift_load_worst;
	v->efi_old = a.efi.max;
	v->efi_new = b.efi.max;
	v->worse = v->ebb_new < v->ebb_old * (1.0 - SM_WORSE_EBB) || v->worst_new > v->worst_old;
	return 0;
}

int sm_routing_check(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
		     struct lft_set *keep, struct sm_routing_verdict *v)
{
	struct lft_set scratch;
	char why[768];
	int rc;

	memset(v, 0, sizeof(*v));
	lft_set_init(&scratch);
	rc = lft_push_dry_run(sm, engines, roots, n_roots, keep ? keep : &scratch, why, sizeof(why),
			      v->why, sizeof(v->why));
	if (rc == 0) {
		snprintf(v->engine, sizeof(v->engine), "%.31s", why);
		rc = plan_scores(sm, keep ? keep : &scratch, v);
	} else if (rc == -EINVAL) {
		snprintf(v->why, sizeof(v->why), "%s", why);
	} else if (rc == -EAGAIN) {
		snprintf(v->why, sizeof(v->why), "%s", why);
	}
	lft_set_fini(&scratch);
	return rc;
}

static void plan_verdict(struct text_buf *t, const struct sm_routing_verdict *v)
{
	text_buf_printf(t, "engine that would be used: %s (gate passed)\n", v->engine);
	if (v->why[0])
		text_buf_printf(t, "engines passed over: %s\n", v->why);
	if (!v->scored) {
		text_buf_printf(t, "scores: no tables in force to compare with\n");
		return;
	}
	text_buf_printf(t, "scores (in force -> planned; %zu shifts, %zu bisections):\n", v->shifts,
			v->bisections);
	text_buf_printf(t, "  effective bisection bandwidth     %.4f -> %.4f\n", v->ebb_old,
			v->ebb_new);
	text_buf_printf(t, "  shift all-to-all worst link load  %" PRIu64 " -> %" PRIu64 "\n",
			v->worst_old, v->worst_new);
	text_buf_printf(t, "  edge forwarding index max         %" PRIu64 " -> %" PRIu64 "\n",
			v->efi_old, v->efi_new);
	if (v->worse)
		text_buf_printf(t,
				"much worse than the routing in force (EBB down more than %.0f%% "
				"or worst link load up): a reload is refused unless forced "
				"(nanosmctl reload --force)\n",
				SM_WORSE_EBB * 100);
}

char *sm_plan(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
	      int verbose, char *refused, size_t refusedlen)
{
	struct text_buf t, detail;
	struct lft_set next;
	struct sm_routing_verdict v;
	struct plan_count pc = {0};
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
	rc = sm_routing_check(sm, engines, roots, n_roots, &next, &v);
	text_buf_printf(&t, "routing: %s (in force: %s) -> %s\n", sm->opts.engine,
			sm->engine_used ? sm->engine_used : "none", engines);
	if (rc == -EAGAIN) { /* no fabric yet: a reload would not be refused */
		text_buf_printf(&t, "not checked: %s (the next sweep's gate decides)\n", v.why);
		lft_set_fini(&next);
		return text_buf_take(&t, NULL);
	}
	if (rc < 0) {
		text_buf_printf(&t, "refused: %s\nnothing would change\n",
				rc == -ENOMEM ? "out of memory" : v.why);
		snprintf(refused, refusedlen, "the new routing fails the gate: %s",
			 rc == -ENOMEM ? "out of memory" : v.why);
		lft_set_fini(&next);
		return text_buf_take(&t, NULL);
	}
	plan_verdict(&t, &v);
	if (v.worse)
		sm_plan_worse(&v, refused, refusedlen);
	text_buf_init(&detail);
	pc.f = &sm->cur;
	pc.next = &next;
	for (size_t i = 0; i < next.n; i++)
		plan_switch(&detail, &pc, lft_set_find_const(&sm->lfts_cur, next.tables[i].node),
			    &next.tables[i], verbose, &blocks, &moved, &touched);
	text_buf_printf(&t,
			"LFT: %zu block(s) differ on %zu of %zu switch(es), %zu route(s) move; "
			"the push sends %zu LFT block Set(s) (a block is written once per "
			"loop-free step its changed entries need)\n",
			blocks, touched, next.n, moved, pc.writes);
	if (touched)
		text_buf_printf(&t, "switches that change%s:\n%s",
				touched > PLAN_SWITCH_LINES && !verbose ? " (the first 10)" : "",
				detail.s ? detail.s : "");
	if (touched > PLAN_SWITCH_LINES && !verbose)
		text_buf_printf(&t, "  ... and %zu more (plan -v lists them all)\n",
				touched - PLAN_SWITCH_LINES);
	text_buf_fini(&detail);
	lft_set_fini(&next);
	return text_buf_take(&t, NULL);
}
