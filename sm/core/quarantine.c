/*
 * sm/core/quarantine.c - keys that keep missing (see quarantine.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "sm/core/quarantine.h"

void quar_init(struct quar *q)
{
	memset(q, 0, sizeof(*q));
}

void quar_fini(struct quar *q)
{
	free(q->e);
	quar_init(q);
}

static struct quar_entry *quar_find(const struct quar *q, uint64_t guid, uint8_t port,
				    uint16_t attr)
{
	for (size_t i = 0; i < q->n; i++)
		if (q->e[i].guid == guid && q->e[i].port == port && q->e[i].attr == attr)
			return &q->e[i];
	return NULL;
}

int quar_miss(struct quar *q, unsigned sweep, uint64_t guid, uint8_t port, uint16_t attr,
	      const uint8_t *path, uint8_t hops)
{
	struct quar_entry *e = quar_find(q, guid, port, attr);

	if (!e) {
		if (TEXT_GROW(q->e, q->cap, q->n + 1, 16) < 0)
			return -ENOMEM;
		e = &q->e[q->n++];
		memset(e, 0, sizeof(*e));
		e->guid = guid;
		e->port = port;
		e->attr = attr;
	}
	if (e->misses && e->last == sweep)
		return 0;			 /* once per sweep */
	if (e->misses && e->last + 1 != sweep) { /* a gap: a new run of misses */
		e->misses = 0;
		e->reported = 0;
	}
	if (!e->misses)
		e->first = sweep;
	e->misses++;
	e->last = sweep;
	if (hops > FABRIC_MAX_HOPS)
		hops = FABRIC_MAX_HOPS;
	e->hops = hops;
	memset(e->path, 0, sizeof(e->path));
	if (path)
		memcpy(e->path, path, (size_t)hops + 1);
	return 0;
}

int quar_held(const struct quar *q, uint64_t guid, uint8_t port, uint16_t attr)
{
	const struct quar_entry *e = quar_find(q, guid, port, attr);

	return e && e->misses >= QUAR_AFTER;
}

int quar_missed_in(const struct quar *q, unsigned sweep, uint64_t guid, uint8_t port, uint16_t attr)
{
	const struct quar_entry *e = quar_find(q, guid, port, attr);

	return e && e->misses && e->last == sweep;
}

void quar_sweep_end(struct quar *q, unsigned sweep, struct quar_entry *fresh, size_t max_fresh,
		    size_t *n_fresh, struct quar_entry *gone, size_t max_gone, size_t *n_gone)
{
	size_t keep = 0;

	*n_fresh = 0;
	*n_gone = 0;
	for (size_t i = 0; i < q->n; i++) {
		struct quar_entry *e = &q->e[i];

		if (e->last != sweep) {
			if (e->reported && *n_gone < max_gone)
				gone[(*n_gone)++] = *e;
			continue;
		}
		if (e->misses >= QUAR_AFTER && !e->reported) {
			e->reported = 1;
			if (*n_fresh < max_fresh)
				fresh[(*n_fresh)++] = *e;
		}
		q->e[keep++] = *e;
	}
	q->n = keep;
}

size_t quar_count(const struct quar *q)
{
	size_t n = 0;

	for (size_t i = 0; i < q->n; i++)
		n += q->e[i].misses >= QUAR_AFTER;
	return n;
}
