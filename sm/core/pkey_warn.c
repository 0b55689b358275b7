/*
 * sm/core/pkey_warn.c - the SM's side of partition members that match no port
 * (config/pkey_member.h finds them): each sweep's plan logs every new one once
 * (NSM-W422), and plan and reload get them as text.  Owns sm->pk_unmatched;
 * touches nothing else of the SM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey_member.h"
#include "sm/core/log.h"
#include "sm/core/sm_priv.h"

#define PKEY_WARN_SAID 20 /* new problems logged one per line per sweep */

/* FNV-1a of a line: how a problem is told from another. */
static uint64_t pkey_warn_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int pkey_warn_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Log the lines of u whose hash is not in sm->pk_unmatched (sorted): the
 * first PKEY_WARN_SAID one by one, the rest counted in one line. */
static void pkey_warn_new(const struct sm *sm, const struct pkey_unmatched *u, const uint64_t *hash,
			  size_t n)
{
	size_t said = 0, more = 0;

	for (size_t i = 0; i < n; i++) {
		if (sm->n_pk_unmatched && bsearch(&hash[i], sm->pk_unmatched, sm->n_pk_unmatched,
						  sizeof(*hash), pkey_warn_cmp))
			continue;
		if (said++ < PKEY_WARN_SAID)
			log_warnx("NSM-W422 %s; the port is left out of the partition", u[i].text);
		else
			more++;
	}
	if (more)
		log_warnx("NSM-W422 ... and %zu more partition members match no port "
			  "(nanosmctl plan FILE lists them all)",
			  more);
}

void pkey_warn_sweep(struct sm *sm, const struct fabric *f)
{
	struct pkey_unmatched *u;
	uint64_t *now;
	size_t n;

	if (pkey_unmatched_find(sm->parts, sm->n_parts, sm->names, sm->n_names, f, &u, &n) < 0)
		return; /* out of memory: say nothing new, forget nothing */
	now = n ? calloc(n, sizeof(*now)) : NULL;
	if (n && !now) {
		free(u);
		return;
	}
	for (size_t i = 0; i < n; i++)
		now[i] = pkey_warn_hash(u[i].text);
	pkey_warn_new(sm, u, now, n);
	free(u);
	if (n)
		qsort(now, n, sizeof(*now), pkey_warn_cmp);
	free(sm->pk_unmatched);
	sm->pk_unmatched = now;
	sm->n_pk_unmatched = n;
}

void pkey_warn_forget(struct sm *sm)
{
	free(sm->pk_unmatched);
	sm->pk_unmatched = NULL;
	sm->n_pk_unmatched = 0;
}

char *sm_partition_unmatched(const struct sm *sm, const struct policy_partition *parts,
			     size_t n_parts, const struct policy_node_name *names, size_t n_names)
{
	static const char head[] = "partition members that match no port (NSM-W422; left out):\n";
	struct pkey_unmatched *u;
	size_t n, len = sizeof(head), off;
	char *out;

	if (pkey_unmatched_find(parts, n_parts, names, n_names, &sm->cur, &u, &n) < 0 || !n)
		return NULL;
	for (size_t i = 0; i < n; i++)
		len += strlen(u[i].text) + 4;
	out = malloc(len);
	if (out) {
		off = (size_t)snprintf(out, len, "%s", head);
		for (size_t i = 0; i < n; i++)
			off += (size_t)snprintf(out + off, len - off, "  %s\n", u[i].text);
	}
	free(u);
	return out;
}
