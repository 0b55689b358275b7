/*
 * sm/sa/quota.c - per-port counts of what the SA holds for each port (see
 * quota.h).  Owns struct sa_quota; knows nothing of records or MADs.
 */
#include "sm/sa/quota.h"

#include <errno.h>
#include <stdlib.h>

struct sa_quota_slot {
	uint64_t guid; /* 0: empty */
	uint32_t used[SA_QUOTA_KINDS];
};

struct sa_quota {
	struct sa_quota_slot *s; /* open addressing, cap a power of two */
	size_t n, cap;
};

struct sa_quota *sa_quota_new(void)
{
	return calloc(1, sizeof(struct sa_quota));
}

void sa_quota_free(struct sa_quota *q)
{
	if (q)
		free(q->s);
	free(q);
}

static size_t sa_quota_hash(uint64_t guid, size_t cap)
{
	return (size_t)((guid * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static struct sa_quota_slot *sa_quota_lookup(const struct sa_quota *q, uint64_t guid)
{
	for (size_t i = q->cap ? sa_quota_hash(guid, q->cap) : 0; q->cap;
	     i = (i + 1) & (q->cap - 1)) {
		if (q->s[i].guid == guid)
			return &q->s[i];
		if (!q->s[i].guid)
			return NULL;
	}
	return NULL;
}

static int sa_quota_grow(struct sa_quota *q)
{
	size_t cap = q->cap ? 2 * q->cap : 64;
	struct sa_quota_slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < q->cap; i++) {
		size_t j = sa_quota_hash(q->s[i].guid, cap);

		if (!q->s[i].guid)
			continue;
		while (s[j].guid)
			j = (j + 1) & (cap - 1);
		s[j] = q->s[i];
	}
	free(q->s);
	q->s = s;
	q->cap = cap;
	return 0;
}

/* The slot of guid, made when missing; NULL on -ENOMEM. */
static struct sa_quota_slot *sa_quota_slot(struct sa_quota *q, uint64_t guid)
{
	struct sa_quota_slot *e = sa_quota_lookup(q, guid);
	size_t i;

	if (e)
		return e;
	if (2 * (q->n + 1) > q->cap && sa_quota_grow(q) < 0)
		return NULL;
	for (i = sa_quota_hash(guid, q->cap); q->s[i].guid; i = (i + 1) & (q->cap - 1))
		;
	q->s[i].guid = guid;
	q->n++;
	return &q->s[i];
}

int sa_quota_take(struct sa_quota *q, uint64_t guid, enum sa_quota_kind kind, uint32_t limit)
{
	struct sa_quota_slot *e;

	if (!q || kind >= SA_QUOTA_KINDS)
		return -ENOMEM;
	e = sa_quota_slot(q, guid ? guid : ~0ull);
	if (!e)
		return -ENOMEM;
	if (limit && e->used[kind] >= limit)
		return -EDQUOT;
	e->used[kind]++;
	return 0;
}

void sa_quota_give(struct sa_quota *q, uint64_t guid, enum sa_quota_kind kind)
{
	struct sa_quota_slot *e =
	    q && kind < SA_QUOTA_KINDS ? sa_quota_lookup(q, guid ? guid : ~0ull) : NULL;

	if (e && e->used[kind])
		e->used[kind]--;
}

uint32_t sa_quota_used(const struct sa_quota *q, uint64_t guid, enum sa_quota_kind kind)
{
	const struct sa_quota_slot *e =
	    q && kind < SA_QUOTA_KINDS ? sa_quota_lookup(q, guid ? guid : ~0ull) : NULL;

	return e ? e->used[kind] : 0;
}

static int sa_quota_before(const struct sa_quota_user *a, const struct sa_quota_user *b)
{
	return a->used > b->used || (a->used == b->used && a->guid < b->guid);
}

size_t sa_quota_top(const struct sa_quota *q, enum sa_quota_kind kind, struct sa_quota_user *out,
		    size_t max)
{
	size_t n = 0;

	for (size_t i = 0; q && kind < SA_QUOTA_KINDS && i < q->cap; i++) {
		struct sa_quota_user u = {q->s[i].guid, q->s[i].used[kind]};
		size_t j;

		if (!u.guid || !u.used)
			continue;
		/* insertion into the sorted first n (max is small) */
		for (j = n < max ? n : max; j > 0 && sa_quota_before(&u, &out[j - 1]); j--)
			if (j < max)
				out[j] = out[j - 1];
		if (j < max) {
			out[j] = u;
			if (n < max)
				n++;
		}
	}
	return n;
}

const char *sa_quota_kind_name(enum sa_quota_kind kind)
{
	static const char *const names[SA_QUOTA_KINDS] = {"groups", "services", "subscriptions"};

	return kind < SA_QUOTA_KINDS ? names[kind] : "?";
}
