/*
 * mad/mad_peerq.h - how many of our MADs may still wait, unread, in the
 * peer's receive queue (pure: no I/O, no locks; the caller locks).
 *
 * DOC: Under umad2sim every MAD we send is a datagram on a unix socket to
 * ibsim, and a write blocks while ibsim has max_dgram_qlen (10 by default)
 * of ours unread.  ibsim reads a client's datagrams in order, so the answer
 * to a request tells us it read that request and every datagram written
 * before it.  mad_peerq numbers each datagram written (mad_peerq_sent),
 * remembers the TIDs of the last MAD_PEERQ_RING requests, and on each
 * answer (mad_peerq_answered) moves the "read up to" mark; unread =
 * written - read is an upper bound on what waits at the peer.  The sender
 * uses it to send in the caller's thread only while a write cannot block
 * (mad_port.c); on hardware it is simply a count of unanswered MADs.
 */
#ifndef NANOSM_MAD_MAD_PEERQ_H
#define NANOSM_MAD_MAD_PEERQ_H

#include <stdint.h>

#define MAD_PEERQ_RING 256 /* requests remembered (a window is far smaller) */

struct mad_peerq {
	uint64_t written; /* datagrams written, all kinds */
	uint64_t read;	  /* the peer has read at least this many */
	struct {
		uint64_t seq; /* this request was datagram number seq (1-based) */
		uint32_t tid; /* its TID's low 32 bits (the kernel owns the high ones) */
	} ring[MAD_PEERQ_RING];
};

void mad_peerq_init(struct mad_peerq *q);
/* A datagram was written; request: it expects an answer with this TID. */
void mad_peerq_sent(struct mad_peerq *q, uint64_t tid, int request);
/* An answer with this TID came: the peer read its request and all before. */
void mad_peerq_answered(struct mad_peerq *q, uint64_t tid);
/* Datagrams that may still be unread by the peer. */
uint64_t mad_peerq_unread(const struct mad_peerq *q);

#endif
