/*
 * mad_port.h - the MAD transport over libibumad (the only file that sees
 * <infiniband/umad.h>).
 *
 * DOC: Opens an InfiniBand port (by port GUID, by CA name/port, or the first
 * IB link-layer port), registers as the SM for the SMI classes (0x01
 * LID-routed and 0x81 directed-route), opens the port's issm device so the
 * port advertises IsSM, and runs one receiver thread that blocks in
 * umad_recv and queues MADs.  The thread calls `notify` after queuing (the
 * daemon turns that into ev_async_send); the loop thread then drains the
 * queue with mad_port_drain.  A client port (mad_port_open_client, for the
 * read-only tools) registers for responses only and never opens issm, so it
 * can share a port with a running SM; it may pass notify = NULL and block
 * in mad_port_wait instead.  umad_recv errors (e.g. -EIO when the device
 * or simulator goes away) end the thread; mad_port_failed reports it.
 */
#ifndef NANOSM_MAD_MAD_PORT_H
#define NANOSM_MAD_MAD_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "mad/mad_queue.h"

struct mad_port_info {
	char ca[32];
	int port;
	uint64_t port_guid; /* host order */
	uint64_t node_guid;
	uint16_t lid, sm_lid;
	uint8_t state;
	int is_sm; /* the issm device is held */
};

struct mad_port;

/* Select: guid != 0 picks that port; else ca (may be NULL = any) and port
 * (0 = first InfiniBand link-layer port of that CA).  Returns NULL and
 * writes a reason into err. */
struct mad_port *mad_port_open(const char *ca, int port, uint64_t guid, void (*notify)(void *),
				 void *notify_arg, char *err, size_t errlen);
/* Same selection, as a client: no issm, no unsolicited methods (the
 * kernel hands it only the responses to its own requests).  notify may be
 * NULL. */
struct mad_port *mad_port_open_client(const char *ca, int port, uint64_t guid,
					void (*notify)(void *), void *notify_arg, char *err,
					size_t errlen);
/* An SM port on ibsim without libibumad or the umad2sim preload: speaks
 * ibsim's socket protocol (mad/mad_ibsim.h) on IBSIM_SOCKNAME, attached
 * to node (NULL: SIM_HOST, else ibsim's default node) with IsSM set.
 * Everything else (threads, hold, sends, close) is the same port. */
struct mad_port *mad_port_open_ibsim(const char *node, void (*notify)(void *), void *notify_arg,
				     char *err, size_t errlen);
void mad_port_close(struct mad_port *p);
/* mad_port_close that says whether it could: -EBUSY when an SM port's
 * sender or closer was still stuck after 300 ms (a device or simulator
 * that does not answer: under umad2sim a send blocks while ibsim does not
 * read, and giving up issm waits for its answer).  The port is then left
 * to them, not freed; the caller should leave with _exit, as umad2sim's
 * exit handler would wait for ibsim too. */
int mad_port_close_bounded(struct mad_port *p);
/* A client that subscribed to SA events (InformInfo): also receive the
 * SA's Report MADs (class 0x03 method Report).  issm: hold the port's
 * issm device too (ibsim hands unsolicited MADs on QP1 only to a client
 * that does; on hardware it also marks the port IsSM, so leave it 0
 * there).  0, -EINVAL (not a client) or -EBUSY (someone else on this
 * port takes Reports). */
int mad_port_listen_reports(struct mad_port *p, int issm);

const struct mad_port_info *mad_port_info(const struct mad_port *p);
struct mad_xmit mad_port_xmit(struct mad_port *p);

typedef void (*mad_port_rx_fn)(void *ctx, const struct mad_addr *from, const uint8_t *mad,
				size_t len);
/* Hand every queued MAD to fn, in arrival order; returns how many. */
size_t mad_port_drain(struct mad_port *p, mad_port_rx_fn fn, void *ctx);
/* The loop thread asks to read the fd itself while it has MADs on the wire
 * (on = 1), one thread hand-off fewer per answer: the receiver thread
 * parks after the umad_recv it is in (queuing that MAD as usual, then
 * calling notify).  Returns 1 once it is parked: only then may the caller
 * use mad_port_recv.  on = 0 gives the fd back (returns 0). */
int mad_port_hold(struct mad_port *p, int on);
/* Read MADs in the caller's thread: wait up to timeout_ms for the first,
 * then take what is already there, at most max; fn gets each.  Returns how
 * many; a failed device sets mad_port_failed.  Only while mad_port_hold
 * says parked, and after
 * mad_port_drain (the ring holds older MADs). */
size_t mad_port_recv(struct mad_port *p, unsigned timeout_ms, size_t max, mad_port_rx_fn fn,
		     void *ctx);
/* How long the kernel waits for the answer to each request we send (the
 * MAD queue's per-attempt timeout); the kernel drops answers to requests
 * it is not waiting for. */
void mad_port_set_timeout(struct mad_port *p, unsigned timeout_ms);
/* Block up to timeout_ms until a MAD is queued: 1 if one is, 0 on timeout,
 * a negative errno once the receiver thread failed.  For callers without
 * an event loop (notify = NULL). */
int mad_port_wait(struct mad_port *p, unsigned timeout_ms);
/* MADs dropped because the send queue was full: an SM port sends through
 * a sender thread, so the caller never blocks even when a receiver stops
 * reading (under umad2sim the send itself then blocks); the queue holds
 * 4096 MADs. */
uint64_t mad_port_tx_dropped(struct mad_port *p);
/* SMP requests the caller may write itself at once without risk of
 * blocking: under umad2sim, two under the datagrams ibsim's socket holds
 * (net.unix.max_dgram_qlen); 0 for no such limit (a kernel umad device).
 * A larger window sends the rest through the sender thread. */
unsigned mad_port_room(const struct mad_port *p);
/* SMP requests the caller's thread wrote itself, skipping the sender
 * thread, because nothing was queued before them and the peer had room
 * (mad/mad_peerq.h).  Only the thread that sends may read it. */
uint64_t mad_port_tx_direct(const struct mad_port *p);
/* MADs the sender thread could not send (umad_send failed): an SM port
 * learns of them only here, its callers saw the MAD queued. */
uint64_t mad_port_tx_failed(struct mad_port *p);
/* MADs dropped because the receive ring was full (the loop fell behind). */
uint64_t mad_port_rx_dropped(struct mad_port *p);
/* Non-zero (a negative errno) once the receiver thread stopped on an error. */
int mad_port_failed(const struct mad_port *p);

#endif
