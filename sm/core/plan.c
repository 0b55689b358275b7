/*
 * sm/core/plan.c - what a routing change would do, without doing it: routes the
 * last good fabric with the new engines/roots, runs the gate, and compares
 * the tables block by block and score by score with the ones in force.
 * Pushes nothing, changes no SM state.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/score.h"
#include "sm/core/sm_priv.h"

struct plan_text {
	char *buf;
	size_t len, cap;
};

static void plan_printf(struct plan_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void plan_printf(struct plan_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = (t->cap ? t->cap * 2 : 4096) + (size_t)n;
		char *b = realloc(t->buf, cap);

		if (!b)
			return;
		t->buf = b;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* Blocks and LIDs that differ between the table in force and the new one. */
static void plan_switch(struct plan_text *t, const struct fabric *f, const struct lft *old,
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
	plan_printf(t, "  switch 0x%016llx (%s): %u LFT block(s) change, %u LID(s) move\n",
		    (unsigned long long)f->nodes[new->node].guid, f->nodes[new->node].desc,
		    b_changed, l_moved);
	*blocks += b_changed;
	*moved += l_moved;
	(*touched)++;
}

static void plan_score(struct plan_text *t, const struct fabric *f, const struct lft_set *old,
		       const struct lft_set *new)
{
	struct score_opts o = {.shifts = 256, .bisections = 100, .seed = 1};
	struct route_score a, b;

	if (score_run(f, old, &o, &a) < 0 || score_run(f, new, &o, &b) < 0) {
		plan_printf(t, "scores: not computed (out of memory)\n");
		return;
	}
	plan_printf(t, "scores (in force -> planned; %zu shifts, %zu bisections):\n", b.shifts,
		    o.bisections);
	plan_printf(t, "  shift all-to-all worst link load  %llu -> %llu\n",
		    (unsigned long long)a.shift_load_worst, (unsigned long long)b.shift_load_worst);
	plan_printf(t, "  edge forwarding index max         %llu -> %llu\n",
		    (unsigned long long)a.efi.max, (unsigned long long)b.efi.max);
	plan_printf(t, "  effective bisection bandwidth     %.4f -> %.4f\n", a.ebb_mean,
		    b.ebb_mean);
}

char *sm_plan(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
	      char *refused, size_t refusedlen)
{
	struct plan_text t = {0};
	struct lft_set next;
	char why[768];
	size_t blocks = 0, moved = 0, touched = 0;
	int rc;

	if (refusedlen)
		refused[0] = '\0';
	if (sm->lfts_ahead) {
		plan_printf(&t, "a sweep is routing right now: try again when it ends\n");
		return t.buf;
	}
	lft_set_init(&next);
	rc = lft_push_dry_run(sm, engines, roots, n_roots, &next, why, sizeof(why));
	plan_printf(&t, "routing: %s -> %s\n", sm->opts.engine, engines);
	if (rc == -EAGAIN) { /* no fabric yet: a reload would not be refused */
		plan_printf(&t, "not checked: %s (the next sweep's gate decides)\n", why);
		lft_set_fini(&next);
		return t.buf;
	}
	if (rc < 0) {
		plan_printf(&t, "refused: %s\nnothing would change\n", why);
		snprintf(refused, refusedlen, "%s", why);
		lft_set_fini(&next);
		return t.buf;
	}
	plan_printf(&t, "engine that would be used: %s (gate passed)\n", why);
	for (size_t i = 0; i < next.n; i++)
		plan_switch(&t, &sm->cur, lft_set_find_const(&sm->lfts, next.tables[i].node),
			    &next.tables[i], &blocks, &moved, &touched);
	plan_printf(
	    &t, "LFT: %zu block(s) on %zu of %zu switch(es) would be written, %zu route(s) move\n",
	    blocks, touched, next.n, moved);
	plan_score(&t, &sm->cur, &sm->lfts, &next);
	lft_set_fini(&next);
	return t.buf;
}
