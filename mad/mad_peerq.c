/*
 * mad/mad_peerq.c - the bound on our datagrams the peer has not read yet
 * (see mad_peerq.h).
 */
#include "mad/mad_peerq.h"

#include <string.h>

void mad_peerq_init(struct mad_peerq *q)
{
	memset(q, 0, sizeof(*q));
}

void mad_peerq_sent(struct mad_peerq *q, uint64_t tid, int request)
{
	q->written++;
	if (request) {
		q->ring[q->written % MAD_PEERQ_RING].seq = q->written;
		q->ring[q->written % MAD_PEERQ_RING].tid = (uint32_t)tid;
	}
}

/* Only requests after the mark and still in the ring can move it; the
 * oldest match wins: a retry reuses its TID, and an answer to the first
 * try says nothing of the retry written after it. */
void mad_peerq_answered(struct mad_peerq *q, uint64_t tid)
{
	uint64_t low = q->written > MAD_PEERQ_RING ? q->written - MAD_PEERQ_RING : 0;

	if (low < q->read)
		low = q->read;
	for (uint64_t s = low + 1; s <= q->written; s++) {
		const __typeof__(q->ring[0]) *e = &q->ring[s % MAD_PEERQ_RING];

		if (e->seq == s && e->tid == (uint32_t)tid) {
			q->read = s;
			return;
		}
	}
}

uint64_t mad_peerq_unread(const struct mad_peerq *q)
{
	return q->written - q->read;
}
