/*
 * sm/core/lid_static.c - static LIDs a policy reload changes: which ports move,
 * whether they can (checked against the LID map), the map change, and the
 * line each move logs when the next heavy sweep programs it.  Owns
 * sm->static_moves; it sends no SMP (configure.c programs the ports).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/log.h"
#include "sm/core/sm_priv.h"

/* Where port GUID guid is in f: 0 with its node and port, or -ENOENT. */
static int lid_static_port(const struct fabric *f, uint64_t guid, int *node, unsigned *port)
{
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++) {
			if (n->ports[p].present && n->ports[p].guid == guid) {
				*node = (int)i;
				*port = p;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* "port 0x.../1 (host1)", or "port 0x... (not in the fabric)". */
static void lid_static_name(const struct fabric *f, uint64_t guid, char *buf, size_t len)
{
	int node;
	unsigned port;

	if (lid_static_port(f, guid, &node, &port) < 0)
		snprintf(buf, len, "port 0x%016" PRIx64 " (not in the fabric)", guid);
	else
		snprintf(buf, len, "port 0x%016" PRIx64 "/%u (%s)", guid, port,
			 f->nodes[node].desc);
}

/* The ports whose static LID is new or different in next, and not the
 * LID the map gives them already: *out malloc'ed (NULL when none), their
 * count returned, or -ENOMEM. */
static long lid_static_moves(const struct lid_alloc *a, const struct policy_static_lid *old,
			     size_t n_old, const struct policy_static_lid *next, size_t n_next,
			     struct lid_move **out)
{
	struct lid_move *m = n_next ? calloc(n_next, sizeof(*m)) : NULL;
	long n = 0;

	*out = NULL;
	if (n_next && !m)
		return -ENOMEM;
	for (size_t i = 0; i < n_next; i++) {
		size_t j = 0;

		while (j < n_old && old[j].guid != next[i].guid)
			j++;
		if (j < n_old && old[j].lid == next[i].lid)
			continue; /* unchanged: left as it is */
		if (lid_alloc_lookup(a, next[i].guid) == next[i].lid)
			continue;
		m[n++] = (struct lid_move){next[i].guid, next[i].lid};
	}
	if (!n)
		free(m);
	else
		*out = m;
	return n;
}

static void lid_static_text(char *buf, size_t len, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void lid_static_text(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off = *off + (size_t)n < len ? *off + (size_t)n : len - 1;
}

static void lid_static_refusal(const struct sm *sm, const struct lid_move *m, int rc,
			       uint64_t holder, char *text, size_t len)
{
	char who[160], other[160];

	lid_static_name(&sm->cur, m->guid, who, sizeof(who));
	if (rc == -ERANGE) {
		snprintf(text, len,
			 "static LID 0x%04x for %s is above 0x%04x, the highest LID every "
			 "switch's LinearFDBCap takes",
			 m->lid, who, sm->lids.max_lid);
		return;
	}
	lid_static_name(&sm->cur, holder, other, sizeof(other));
	snprintf(text, len,
		 "static LID 0x%04x for %s is in use by %s: give one of them another LID "
		 "(or restart nanosm once that port is gone)",
		 m->lid, who, other);
}

/* Remember the moves for the sweep that programs them; a port moved
 * twice before that sweep keeps the LID it left first. */
static int lid_static_remember(struct sm *sm, const struct lid_move *m, size_t n,
			       const uint16_t *from)
{
	struct sm_static_move *v = realloc(sm->static_moves, (sm->n_static_moves + n) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	sm->static_moves = v;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < sm->n_static_moves && v[j].guid != m[i].guid)
			j++;
		if (j == sm->n_static_moves)
			v[sm->n_static_moves++] = (struct sm_static_move){m[i].guid, from[i], 0};
		v[j].to = m[i].lid;
	}
	return 0;
}

static int lid_static_apply(struct sm *sm, const struct lid_move *m, size_t n)
{
	uint16_t *from = calloc(n, sizeof(*from));
	int rc;

	if (!from)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		from[i] = lid_alloc_lookup(&sm->lids, m[i].guid);
	rc = lid_alloc_moves_apply(&sm->lids, m, n);
	if (rc == 0)
		rc = lid_static_remember(sm, m, n, from);
	free(from);
	return rc;
}

int sm_static_lids(struct sm *sm, const struct policy_static_lid *old, size_t n_old,
		   const struct policy_static_lid *next, size_t n_next, int apply, char *text,
		   size_t textlen)
{
	struct lid_move *m;
	long n = lid_static_moves(&sm->lids, old, n_old, next, n_next, &m);
	size_t bad = 0, off = 0;
	uint64_t holder = 0;
	int rc;

	if (textlen)
		text[0] = '\0';
	if (n <= 0)
		return (int)n;
	rc = lid_alloc_moves_check(&sm->lids, m, (size_t)n, &bad, &holder);
	if (rc < 0) {
		lid_static_refusal(sm, &m[bad], rc, holder, text, textlen);
		free(m);
		return rc;
	}
	for (long i = 0; i < n; i++) {
		char who[160];
		uint16_t from = lid_alloc_lookup(&sm->lids, m[i].guid);

		lid_static_name(&sm->cur, m[i].guid, who, sizeof(who));
		if (from)
			lid_static_text(text, textlen, &off,
					"%s: static LID 0x%04x -> 0x%04x at the next sweep\n", who,
					from, m[i].lid);
		else
			lid_static_text(text, textlen, &off,
					"%s: static LID 0x%04x at the next sweep\n", who, m[i].lid);
	}
	rc = apply ? lid_static_apply(sm, m, (size_t)n) : 0;
	free(m);
	return rc < 0 ? rc : (int)n;
}

/* The request of port guid in reqs, or NULL. */
static const struct lid_req *lid_static_req(const struct lid_req *reqs, size_t n, uint64_t guid)
{
	for (size_t i = 0; i < n; i++)
		if (reqs[i].guid == guid)
			return &reqs[i];
	return NULL;
}

static void lid_static_log_one(const struct sm *sm, const struct sm_static_move *mv,
			       const struct lid_req *rq)
{
	char who[160];
	uint16_t old = mv->from ? mv->from : rq ? rq->current_lid : 0;

	lid_static_name(&sm->next, mv->guid, who, sizeof(who));
	if (!rq) {
		log_info("%s: static LID 0x%04x -> 0x%04x (policy reload): reserved for it; it "
			 "takes it when it comes back",
			 who, old, mv->to);
		return;
	}
	if (rq->lid != mv->to) {
		log_warnx("NSM-W304 %s: static LID 0x%04x (policy reload) not given: the port "
			  "has 0x%04x (a port that kept its LID through a takeover, or a LID above "
			  "a switch's LinearFDBCap)",
			  who, mv->to, rq->lid);
		return;
	}
	if (old && old != mv->to)
		log_info("%s: static LID 0x%04x -> 0x%04x (policy reload); LID 0x%04x is free", who,
			 old, mv->to, old);
	else
		log_info("%s: static LID 0x%04x (policy reload)", who, mv->to);
}

size_t lid_static_sweep(struct sm *sm, const struct lid_req *reqs, size_t n)
{
	size_t done = sm->n_static_moves;

	for (size_t i = 0; i < done; i++)
		lid_static_log_one(sm, &sm->static_moves[i],
				   lid_static_req(reqs, n, sm->static_moves[i].guid));
	lid_static_fini(sm);
	return done;
}

void lid_static_fini(struct sm *sm)
{
	free(sm->static_moves);
	sm->static_moves = NULL;
	sm->n_static_moves = 0;
}
