/*
 * config/policy_seen.h - a set of 64-bit keys with the node that first had
 * each (policy_seen.c), for the duplicate checks of the policy's schema
 * files.  Internal to config/.
 */
#ifndef NANOSM_CONFIG_POLICY_SEEN_H
#define NANOSM_CONFIG_POLICY_SEEN_H

#include <stddef.h>
#include <stdint.h>

struct policy_doc;

/* Zero-initialise (with .by_text = 1 to tell keys apart by text too);
 * policy_seen_fini frees it. */
struct policy_seen {
	uint64_t *keys;		      /* 0 = empty slot */
	const struct policy_doc **at; /* first node with the key */
	int by_text;		      /* also compare at->text (key is only a hash) */
	size_t cap, used;
};

void policy_seen_fini(struct policy_seen *s);
/* Record key (non-zero) first seen at at.  Returns 0 when new, 1 when seen
 * before (*first = where), -ENOMEM. */
int policy_seen_add(struct policy_seen *s, uint64_t key, const struct policy_doc *at,
		    const struct policy_doc **first);
/* FNV-1a of a string, never 0 (a key for policy_seen with by_text). */
uint64_t policy_seen_hash(const char *s);

#endif
