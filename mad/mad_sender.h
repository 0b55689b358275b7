/*
 * mad/mad_sender.h - sending without blocking the caller: a bounded queue
 * of MADs drained by a sender thread, and a bounded wait for work that may
 * block for ever (closing a umad2sim port).  Used by mad_port.c for an
 * SM's port; knows nothing of umad (the send itself is a callback).
 *
 * DOC: mad_sender_queue copies a MAD into a ring (MAD_SENDER_FIRST slots,
 * doubled when full up to MAD_SENDER_MAX, so an idle SM keeps it small) and
 * wakes the thread, which calls send() for each in order; a full ring
 * drops the MAD (counted, -ENOBUFS) instead of waiting, so a receiver that
 * stops reading (under umad2sim the send then blocks) costs MADs, never
 * the caller's time.  mad_sender_stop lets the queued MADs go and waits at
 * most ms for the thread: a thread stuck in a send is left behind
 * (-EBUSY; then nothing it uses may be freed, the process is exiting).
 */
#ifndef NANOSM_MAD_MAD_SENDER_H
#define NANOSM_MAD_MAD_SENDER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/mad_queue.h"

#define MAD_SENDER_MAX 4096  /* MADs queued before new ones are dropped */
#define MAD_SENDER_FIRST 256 /* the ring starts this size and doubles when full */

typedef int (*mad_sender_fn)(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len);

struct mad_sender_item;

struct mad_sender {
	mad_sender_fn send;
	void *ctx;
	pthread_t thread;
	int started, stop, exited;
	int sending; /* the thread is in send() (under lock) */
	pthread_mutex_t lock;
	pthread_cond_t cond;	   /* enqueue, stop and exit */
	struct mad_sender_item *q; /* ring of cap (MAD_SENDER_FIRST .. MAX) */
	size_t head, count, cap;
	uint64_t dropped, errors; /* under lock */
};

/* Start the thread: 0 or a negative errno (nothing to stop then). */
int mad_sender_start(struct mad_sender *s, mad_sender_fn send, void *ctx);
/* Queue a copy of mad (any length): 0, -ENOBUFS (full: dropped, counted)
 * or -ENOMEM. */
int mad_sender_queue(struct mad_sender *s, const struct mad_addr *to, const uint8_t *mad,
		     size_t len);
/* Stop after the queued MADs, waiting at most ms: 0 when the thread
 * exited (s is freed), -EBUSY when it is stuck in a send (s is left). */
int mad_sender_stop(struct mad_sender *s, unsigned ms);
uint64_t mad_sender_dropped(struct mad_sender *s);
/* 1 when nothing is queued and the thread is not in a send: a MAD the
 * caller sends itself now cannot overtake a queued one.  Only the thread
 * that queues may rely on it staying so. */
int mad_sender_idle(struct mad_sender *s);
/* Sends that failed in the thread (send() < 0): nobody else hears of them. */
uint64_t mad_sender_failed(struct mad_sender *s);

/* Run fn(arg) in a thread and wait at most ms for it: 0 when it returned,
 * -EBUSY when it still runs (arg then belongs to it for good). */
int mad_sender_run_bounded(void (*fn)(void *), void *arg, unsigned ms);

#endif
