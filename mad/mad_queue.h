/*
 * mad_queue.h - outstanding-MAD window, TID matching, timeouts and retries.
 *
 * DOC: Pure bookkeeping between the SM and a transport: the SM submits
 * MADs with a completion callback; the queue keeps at most `window` on the
 * wire, stamps TIDs, matches responses by TID, retries on timeout and
 * finally completes with -ETIMEDOUT.  It never reads a clock or an fd: the
 * caller passes `now` (milliseconds, monotonic) and delivers received MADs
 * with mad_queue_recv.  A response answers a request when its TID,
 * attribute and class match and, for a directed-route SMP, it comes back
 * (D bit) along the request's path; anything else counts as unmatched.
 * Unsolicited MADs (requests, traps) go to the request hook.  Sending goes
 * through struct mad_xmit, so tests plug in a fake fabric and the daemon
 * plugs in libibumad.
 */
#ifndef NANOSM_MAD_MAD_QUEUE_H
#define NANOSM_MAD_MAD_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"

/* Where a MAD goes / came from. For directed-route SMPs dlid is 0xffff
 * (permissive); for LID-routed ones the destination LID. */
struct mad_addr {
	uint16_t lid; /* dlid on send, slid on receive */
	uint8_t sl;
	uint32_t qpn; /* 0 for SMPs */
};

struct mad_xmit {
	/* Put one MAD on the wire. Returns 0 or a negative errno. */
	int (*send)(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len);
	void *ctx;
};

/* Completion, called exactly once per submitted MAD: status 0 with the
 * decoded response; -EREMOTEIO when the responder set a MAD status (resp
 * given, resp->status tells which); or -ETIMEDOUT (after all retries), -EIO
 * (send failed), -ECANCELED (queue freed) with resp NULL. */
typedef void (*mad_done_fn)(void *arg, int status, const struct smp *resp);

/* Unsolicited MAD (not a response to us): a Get/Set/Trap to the SM. */
typedef void (*mad_request_fn)(void *arg, const struct mad_addr *from, const struct smp *req);

struct mad_queue_opts {
	unsigned window;     /* max MADs on the wire (default 16) */
	unsigned timeout_ms; /* per attempt (default 200) */
	unsigned retries;    /* extra attempts after the first (default 3; up to
			      * 4x that while most attempts are lost) */
};

struct mad_counters {
	uint64_t sent;       /* every transmission, retries included */
	uint64_t received;   /* responses matched to a request */
	uint64_t timeouts;   /* requests that failed after all retries */
	uint64_t retries;    /* retransmissions */
	uint64_t unmatched;  /* responses with no outstanding TID */
	uint64_t malformed;  /* received buffers that did not decode */
	uint64_t requests;   /* unsolicited MADs handed to the request hook */
	uint64_t send_errors;
};

struct mad_queue;

struct mad_queue *mad_queue_new(const struct mad_queue_opts *opts, const struct mad_xmit *xmit,
				mad_request_fn on_request, void *request_arg);
/* Pending callbacks are completed with -ECANCELED. */
void mad_queue_free(struct mad_queue *q);

/* Queue an SMP (tid is assigned here) to `to`.  It goes on the wire now if
 * the window has room, else when a slot frees.  Returns 0 or -ENOMEM. */
int mad_queue_submit(struct mad_queue *q, const struct mad_addr *to, const struct smp *smp,
		     mad_done_fn done, void *arg, uint64_t now_ms);
/* Send a MAD that expects no answer (e.g. our GetResp to a request). */
int mad_queue_send_oneway(struct mad_queue *q, const struct mad_addr *to, const struct smp *smp);

/* Hand in a received MAD. */
void mad_queue_recv(struct mad_queue *q, const struct mad_addr *from, const uint8_t *mad,
		    size_t len, uint64_t now_ms);
/* Expire/retry; returns the next deadline in ms (0 = nothing pending). */
uint64_t mad_queue_tick(struct mad_queue *q, uint64_t now_ms);

/* Extra attempts a request gets now: the configured retries, or, while
 * adapting is on and many attempts go unanswered, more (up to 4x). */
unsigned mad_queue_retries_now(const struct mad_queue *q);
/* Allow (1) or stop (0, the default) more attempts under loss.  The SM
 * allows them during heavy sweeps only: a poll of one dead SM must not
 * read as a lossy fabric and take four times as long to give up. */
void mad_queue_adapt(struct mad_queue *q, int on);
size_t mad_queue_outstanding(const struct mad_queue *q); /* on wire + waiting */
const struct mad_counters *mad_queue_counters(const struct mad_queue *q);

#endif
