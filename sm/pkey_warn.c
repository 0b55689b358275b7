/*
 * pkey_warn.c - the SM's side of partition members that match no port
 * (sm/pkey_member.h finds them): each sweep's plan logs every new one once
 * (NSM-W422), and plan and reload get them as text.  Owns sm->pk_unmatched;
 * touches nothing else of the SM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/log.h"
#include "sm/pkey_member.h"
#include "sm/sm_priv.h"

/* FNV-1a of a line: how a problem is told from another. */
static uint64_t pkey_warn_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int pkey_warn_seen(const uint64_t *v, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == h)
			return 1;
	return 0;
}

void pkey_warn_sweep(struct sm *sm, const struct fabric *f)
{
	struct pkey_unmatched *u;
	uint64_t *now;
	size_t n;

	if (pkey_unmatched_find(sm->parts, sm->n_parts, sm->names, sm->n_names, f, &u, &n) < 0)
		return; /* out of memory: say nothing new, forget nothing */
	now = n ? calloc(n, sizeof(*now)) : NULL;
	for (size_t i = 0; i < n; i++) {
		uint64_t h = pkey_warn_hash(u[i].text);

		if (!pkey_warn_seen(sm->pk_unmatched, sm->n_pk_unmatched, h))
			log_warnx("NSM-W422 %s; the port is left out of the partition", u[i].text);
		if (now)
			now[i] = h;
	}
	free(u);
	if (n && !now)
		return;
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
