/*
 * policy_seen.c - a set of 64-bit keys, each with the document node that
 * first had it: how the policy's schema files find a GUID, LID, name or
 * P_Key given twice and say where the first one stood.  Pure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy_doc.h"
#include "config/policy_seen.h"

void policy_seen_fini(struct policy_seen *s)
{
	free(s->keys);
	free(s->at);
	memset(s, 0, sizeof(*s));
}

static size_t policy_seen_slot(const struct policy_seen *s, uint64_t key,
			       const struct policy_doc *at)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (s->cap - 1);

	while (s->keys[i] &&
	       (s->keys[i] != key || (s->by_text && strcmp(s->at[i]->text, at->text))))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int policy_seen_grow(struct policy_seen *s)
{
	struct policy_seen big = {.by_text = s->by_text, .cap = s->cap ? s->cap * 2 : 64};

	big.keys = calloc(big.cap, sizeof(*big.keys));
	big.at = calloc(big.cap, sizeof(*big.at));
	if (!big.keys || !big.at) {
		policy_seen_fini(&big);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		if (s->keys[i]) {
			size_t j = policy_seen_slot(&big, s->keys[i], s->at[i]);

			big.keys[j] = s->keys[i];
			big.at[j] = s->at[i];
			big.used++;
		}
	}
	policy_seen_fini(s);
	*s = big;
	return 0;
}

/* Record key (non-zero) first seen at at.  Returns 0 when new, 1 when seen
 * before (*first = where), -ENOMEM. */
int policy_seen_add(struct policy_seen *s, uint64_t key, const struct policy_doc *at,
		    const struct policy_doc **first)
{
	size_t i;

	if ((s->used + 1) * 2 > s->cap && policy_seen_grow(s) < 0)
		return -ENOMEM;
	i = policy_seen_slot(s, key, at);
	if (s->keys[i]) {
		*first = s->at[i];
		return 1;
	}
	s->keys[i] = key;
	s->at[i] = at;
	s->used++;
	return 0;
}

/* FNV-1a of a string, never 0 (a key for policy_seen with by_text). */
uint64_t policy_seen_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h | 1;
}
