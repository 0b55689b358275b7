/*
 * sm/core/lft_reuse.c - routing only when what it reads changed: the key
 * of the fabric and options a set of tables was routed from
 * (routing/fabric.h fabric_key), kept with lfts_cur, so that a sweep that
 * finds the same fabric uses those tables again.  The engines and the
 * gate are pure functions of that key: running them again would give the
 * same tables and the same verdict, and at 48K LIDs cost seconds of CPU
 * per heavy sweep.  Owns sm->routed and sm->routed_next.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/sm_priv.h"

void lft_routed_fini(struct lft_routed *r)
{
	free(r->key);
	memset(r, 0, sizeof(*r));
}

void lft_routed_commit(struct sm *sm)
{
	lft_routed_fini(&sm->routed);
	sm->routed = sm->routed_next;
	memset(&sm->routed_next, 0, sizeof(sm->routed_next));
}

static uint8_t *lft_routed_put(uint8_t *at, const void *v, size_t n)
{
	memcpy(at, v, n);
	return at + n;
}

/* The key of the running sweep's routing: sm->next and everything
 * lft_push_compute gives the engines.  NULL when there is no memory. */
uint8_t *lft_routed_key(const struct sm *sm, size_t *len)
{
	uint8_t *key = NULL, *k, *at;
	const char *engines = sm->opts.engine ? sm->opts.engine : "";
	size_t n_roots = sm->opts.roots ? sm->opts.n_roots : 0;
	size_t opts = sizeof(sm->max_lid) + sizeof(n_roots) + n_roots * sizeof(uint64_t) +
		      strlen(engines) + 1 + sizeof(sm->opts.test_vl_switch);

	*len = 0;
	if (fabric_key(&sm->next, &key, len) < 0)
		return NULL;
	k = realloc(key, *len + opts);
	if (!k) {
		free(key);
		return NULL;
	}
	at = lft_routed_put(k + *len, &sm->max_lid, sizeof(sm->max_lid));
	at = lft_routed_put(at, &n_roots, sizeof(n_roots));
	if (n_roots)
		at = lft_routed_put(at, sm->opts.roots, n_roots * sizeof(uint64_t));
	at = lft_routed_put(at, engines, strlen(engines) + 1);
	lft_routed_put(at, &sm->opts.test_vl_switch, sizeof(sm->opts.test_vl_switch));
	*len += opts;
	return k;
}

/* When key is what lfts_cur was routed from: lfts becomes a copy of
 * lfts_cur and the engine that made them is returned; else NULL. */
const char *lft_routed_reuse(struct sm *sm, const uint8_t *key, size_t len)
{
	const struct lft_routed *r = &sm->routed;

	if (!key || !r->key || r->len != len || memcmp(r->key, key, len) || !sm->lfts_cur.n)
		return NULL;
	if (lft_set_copy(&sm->lfts, &sm->lfts_cur) < 0)
		return NULL; /* no memory for the copy: route as usual */
	log_info("routing: sweep %u found the fabric sweep %u routed: its tables (engine %s) "
		 "are used again, without running the engine and the gate",
		 sm->st.number, r->sweep, r->engine);
	return r->engine;
}

/* lfts were routed (or reused) from key (taken: freed later): recorded
 * with what the routing said, committed with them. */
void lft_routed_keep(struct sm *sm, uint8_t *key, size_t len, const char *engine, int reused)
{
	unsigned sweep = reused ? sm->routed.sweep : sm->st.number;

	lft_routed_fini(&sm->routed_next);
	if (!key)
		return;
	sm->routed_next.key = key;
	sm->routed_next.len = len;
	sm->routed_next.engine = engine;
	sm->routed_next.sweep = sweep;
	snprintf(sm->routed_next.why, sizeof(sm->routed_next.why), "%s", sm->st.engine_why);
}
