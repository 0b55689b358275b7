/*
 * vlsp_polish_est.c - the polish's estimate (see vlsp_polish.h): each
 * channel's law of flows, the memo of each hop's sums, each path's value
 * and their mean.  It reads the paths and counts vlsp_polish.c keeps and
 * must not change them.  No I/O, no globals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/vlsp_polish_priv.h"

/* pm: the flows over c, without one yes/no of sources a and b (-1:
 * none), built from the counts. */
static void vlsp_polish_est_law(const struct vlsp_polish *v, size_t c, long a, long b, double *pm)
{
	pm[0] = 1;
	for (size_t k = 1; k <= VLSP_POLISH_K; k++)
		pm[k] = 0;
	for (size_t si = 0; si < v->n_src; si++) {
		uint32_t n = v->cnt[c * v->n_src + si], reps = v->h[si];
		double p = n * v->inv;

		reps -= (long)si == a ? 1u : 0u;
		reps -= (long)si == b && reps ? 1u : 0u;
		for (uint32_t r = 0; n && r < reps; r++) {
			for (size_t k = VLSP_POLISH_K; k > 0; k--)
				pm[k] = pm[k] * (1 - p) + pm[k - 1] * p;
			pm[0] *= 1 - p;
		}
	}
}

/* Channel c's law into pmf, its top set. */
void vlsp_polish_est_chan(struct vlsp_polish *v, size_t c)
{
	double *pm = &v->pmf[c * (VLSP_POLISH_K + 1)], acc = 0;
	size_t k = 0;

	vlsp_polish_est_law(v, c, -1, -1, pm);
	while (k < VLSP_POLISH_K && (acc += pm[k]) < 1 - 1e-12)
		k++;
	v->top[c] = (uint8_t)k;
	v->ver[c] = ++v->n_ver;
}

/* Memo slot for hop c with counts ca, cb (a power of 2 slots). */
static size_t vlsp_polish_est_slot(const struct vlsp_polish *v, uint32_t c, uint32_t ca,
				   uint32_t cb)
{
	uint64_t h = (uint64_t)c * 0x9e3779b97f4a7c15u ^ (uint64_t)ca * 0xc2b2ae3d27d4eb4fu ^
		     (uint64_t)cb * 0x165667b19e3779f9u;

	return (size_t)(h >> 32) & v->memo_mask;
}

/* Channel c as a hop of a path from source a to source b's CAs: for
 * each k up to its top, the chance it carries at most k flows besides
 * the path's own (its law without a's and b's yes/no, summed).  From the
 * memo when c's law and the two counts are those it was made from (the
 * law without two yes/no depends on nothing else); else made into it,
 * or into buf when a or b sends over half its flows over c (then the law
 * is made again without them, which the memo does not key). */
static const double *vlsp_polish_est_hop(struct vlsp_polish *v, uint32_t c, size_t a, size_t b,
					 double *buf)
{
	uint32_t ca = v->cnt[c * v->n_src + a], cb = v->cnt[c * v->n_src + b];
	double pa = ca * v->inv, pb = cb * v->inv, qa, qb;
	double x = 0, xy = 0, acc = 0, *f = buf, pm[VLSP_POLISH_K + 1];
	const double *law = &v->pmf[c * (VLSP_POLISH_K + 1)];
	struct vlsp_polish_key *key = NULL;
	int own = pa > 0.5 || pb > 0.5;

	if (own) {
		vlsp_polish_est_law(v, c, (long)a, (long)b, pm);
	} else {
		size_t slot = vlsp_polish_est_slot(v, c, ca, cb);

		key = &v->memo_key[slot];
		f = &v->memo[slot * (VLSP_POLISH_K + 1)];
		if (key->c == c && key->ver == v->ver[c] && key->ca == ca && key->cb == cb)
			return f;
	}
	qa = 1 / (1 - pa);
	qb = 1 / (1 - pb);
	for (size_t k = 0; k <= v->top[c]; k++) {
		if (own) {
			xy = pm[k];
		} else { /* a's yes/no out, then b's */
			x = (law[k] - pa * x) * qa;
			xy = (x - pb * xy) * qb;
		}
		acc += xy;
		f[k] = acc < 0 ? 0 : acc > 1 ? 1 : acc;
	}
	for (size_t k = (size_t)v->top[c] + 1; k <= VLSP_POLISH_K; k++)
		f[k] = 1; /* times 1: as if not multiplied */
	if (key)
		*key = (struct vlsp_polish_key){.c = c, .ver = v->ver[c], .ca = ca, .cb = cb};
	return f;
}

/* Path id's expected 1 / the load of its most loaded channel.  A
 * channel's law counts only up to its top (the rest below 1e-12; the
 * law without two yes/no has even less there). */
static double vlsp_polish_est_value(struct vlsp_polish *v, size_t id)
{
	size_t si = id / v->n_end, j = id % v->n_end, len = v->plen[id], top = 0;
	size_t b = (size_t)v->src_of[v->end_sw[j]];
	double cdf[VLSP_POLISH_K + 1], buf[VLSP_POLISH_K + 1], e;

	for (size_t k = 0; k <= VLSP_POLISH_K; k++)
		cdf[k] = 1;
	for (size_t i = 0; i < len; i++) {
		uint32_t c = v->pch[id * v->maxlen + i];
		const double *f = vlsp_polish_est_hop(v, c, si, b, buf);
		size_t n = v->top[c];

		top = n > top ? n : top;
		for (size_t k = 0; k < VLSP_POLISH_K; k++)
			cdf[k] *= f[k];
		cdf[VLSP_POLISH_K] *= f[VLSP_POLISH_K];
	}
	/* load 1 + k with chance cdf[k] - cdf[k - 1]; the rest: top + 2 */
	e = cdf[0];
	for (size_t k = 1; k <= top; k++)
		e += (cdf[k] - cdf[k - 1]) / (double)(k + 1);
	return e + (1 - cdf[top]) / (double)(top + 2);
}

/* Path id's value: that of a path valued since the state last changed
 * (mark: gen) from the same source to another CA of the same switch over
 * the same channels, when there is one (a value depends on nothing else:
 * the same double); else vlsp_polish_est_value. */
double vlsp_polish_est_path(struct vlsp_polish *v, size_t id)
{
	size_t si = id / v->n_end, j = id % v->n_end, len = v->plen[id];
	size_t b = (size_t)v->src_of[v->end_sw[j]];
	const uint32_t *ch = &v->pch[id * v->maxlen];

	for (size_t t = si * v->n_end + v->first[b]; t < si * v->n_end + v->first[b] + v->h[b]; t++)
		if (t != id && v->mark[t] == v->gen && v->plen[t] == len &&
		    !memcmp(&v->pch[t * v->maxlen], ch, len * sizeof(*ch)))
			return v->val[t];
	return vlsp_polish_est_value(v, id);
}

/* The memo of hops: VLSP_POLISH_MEMO slots per channel (a power of 2
 * in all), versions.  0, -ENOMEM. */
int vlsp_polish_est_init(struct vlsp_polish *v, size_t chans)
{
	size_t n = 1;

	while (n < chans * VLSP_POLISH_MEMO)
		n *= 2;
	v->memo_mask = n - 1;
	v->memo_key = calloc(n, sizeof(*v->memo_key));
	v->memo = malloc(n * (VLSP_POLISH_K + 1) * sizeof(*v->memo));
	v->ver = calloc(chans, sizeof(*v->ver));
	v->ver_was = calloc(chans, sizeof(*v->ver_was));
	v->pmf_was = malloc(chans * (VLSP_POLISH_K + 1) * sizeof(*v->pmf_was));
	v->top_was = malloc(chans);
	return v->memo_key && v->memo && v->ver && v->ver_was && v->pmf_was && v->top_was ? 0
											  : -ENOMEM;
}

/* The sum over ordered CA pairs (a pair behind one switch: 1). */
static double vlsp_polish_est_sum(const struct vlsp_polish *v)
{
	double sum = 0;

	for (size_t id = 0; id < v->n_src * v->n_end; id++)
		sum += v->h[id / v->n_end] * v->val[id];
	/* a CA is no pair with itself: its own "path" counted 1 above */
	return sum - (double)v->n_end;
}

/* The estimate: the sum's mean over ordered CA pairs. */
double vlsp_polish_est_ebb(const struct vlsp_polish *v)
{
	return vlsp_polish_est_sum(v) / ((double)v->n_end * (double)(v->n_end - 1));
}

/* Channel c's law, top and version, kept before a move is tried ... */
void vlsp_polish_est_keep(struct vlsp_polish *v, size_t c)
{
	memcpy(&v->pmf_was[c * (VLSP_POLISH_K + 1)], &v->pmf[c * (VLSP_POLISH_K + 1)],
	       (VLSP_POLISH_K + 1) * sizeof(*v->pmf));
	v->top_was[c] = v->top[c];
	v->ver_was[c] = v->ver[c];
}

/* ... and back when it is undone: the counts are back as they were, so
 * is the law they make, bit for bit, and the memo's sums for it hold
 * again. */
void vlsp_polish_est_back(struct vlsp_polish *v, size_t c)
{
	memcpy(&v->pmf[c * (VLSP_POLISH_K + 1)], &v->pmf_was[c * (VLSP_POLISH_K + 1)],
	       (VLSP_POLISH_K + 1) * sizeof(*v->pmf));
	v->top[c] = v->top_was[c];
	v->ver[c] = v->ver_was[c];
}

void vlsp_polish_est_fini(struct vlsp_polish *v)
{
	free(v->memo_key);
	free(v->memo);
	free(v->ver);
	free(v->ver_was);
	free(v->pmf_was);
	free(v->top_was);
}
