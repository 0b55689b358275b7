/*
 * mad/mad_port_priv.h - struct mad_port, shared by the transport
 * (mad_port.c: receiver and sender threads, sends, close) and the opening
 * of a port (mad_port_open.c: selection, agents, issm, the bounded open).
 * Nothing outside these two files includes it.
 */
#ifndef NANOSM_MAD_MAD_PORT_PRIV_H
#define NANOSM_MAD_MAD_PORT_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/mad_ibsim.h"
#include "mad/mad_peerq.h"
#include "mad/mad_port.h"
#include "mad/mad_sender.h"
#include "mad/smp.h"

struct mad_port_rx {
	struct mad_addr from;
	size_t len;
	uint8_t mad[SMP_MAD_SIZE];
};

struct mad_port {
	struct mad_port_info info;
	struct mad_sender tx; /* SM ports only (tx.started): the loop never blocks in a send */
	/* SMP requests the caller writes itself while the peer's queue has
	 * room (mad_port_send_direct); peerq under peer_lock */
	pthread_mutex_t peer_lock;
	struct mad_peerq peerq;
	uint64_t direct_room; /* unread datagrams below which a write cannot block */
	void *direct_send_buf;
	uint64_t sent_direct; /* by the caller (loop) thread */
	/* requests that wait for an answer, and answers read (atomics): under
	 * umad2sim the close first reads what is still due (mad_port_settle) */
	uint64_t asked, answered;
	int fd;
	int issm_fd;
	struct mad_ibsim *sim; /* ibsim's own protocol (mad_port_open_ibsim); NULL: libibumad */
	int client;    /* responses only, no issm (mad_port_open_client) */
	int agent_lid; /* class 0x01 */
	int agent_dr;  /* class 0x81 */
	int agent_sa;  /* class 0x03 (SM only; -1 for a client) */
	int agent_pma; /* class 0x04, answers to the SM's performance manager only */
	void *send_buf;
	size_t umad_len; /* umad_size() depends on the ABI found at open */
	int timeout_ms;	 /* how long the kernel keeps a request waiting for its answer */
	pthread_t thread;
	int thread_started;
	void (*notify)(void *);
	void *notify_arg;
	pthread_mutex_t lock;
	pthread_cond_t rx_cond;	  /* signalled on enqueue and on thread exit */
	pthread_cond_t hold_cond; /* signalled when the loop thread lets go */
	int hold_want;		  /* the loop thread asks to read the fd itself (mad_port_hold) */
	int parked;	  /* the receiver thread is out of umad_recv, waiting for hold_want 0 */
	void *direct_buf; /* mad_port_recv's umad buffer, and its MAD capacity */
	size_t direct_cap;
	struct mad_port_rx *rx; /* ring of rx_cap slots */
	size_t rx_cap, rx_head, rx_count;
	uint64_t rx_dropped;
	int stop;
	int failed;
};

/* umad_open_port, the agents and issm: 0, or a negative errno with err filled. */
int mad_port_open_start(struct mad_port *p, char *err, size_t errlen);
/* Attach to ibsim with its own protocol as the SM on node (NULL:
 * SIM_HOST) and fill info from the port's own NodeInfo and PortInfo: 0,
 * or a negative errno with err filled.  Every wait is bounded. */
int mad_port_open_ibsim_start(struct mad_port *p, const char *node, char *err, size_t errlen);
/* Set method's bit in a umad_register method mask. */
void mad_port_open_mask_set(long *mask, int method);
/* Open the port's issm device (sets info.is_sm when it could). */
void mad_port_open_issm(struct mad_port *p);
/* umad_init, the port selection and mad_port_open_start in an opener
 * thread, waited for at most 10 s: 0, or a negative errno with err
 * filled.  On -ETIMEDOUT the half-open port is the opener's for good. */
int mad_port_open_bounded(struct mad_port *p, const char *ca, int port, uint64_t guid, char *err,
			  size_t errlen);

#endif
