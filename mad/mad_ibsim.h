/*
 * mad/mad_ibsim.h - ibsim's own socket protocol, spoken directly: the
 * transport `nanosm --ibsim` uses instead of libibumad under the umad2sim
 * preload.
 *
 * DOC: ibsim serves its clients over unix datagram sockets in the abstract
 * namespace named after IBSIM_SOCKNAME: a control socket ("NAME:ctl") that
 * attaches a client to a node (SIM_HOST) and says whether it is the SM, and
 * one data socket per client ("NAME:outID" on ibsim's side, "NAME:inPID"
 * on ours) that carries one MAD per datagram, with its LIDs and QPs in a
 * fixed header.  Under umad2sim every MAD also passes through the preload's
 * own receiver thread (a poll, a read, allocations and a condition variable
 * per MAD) before umad_recv sees it; here the data socket is a plain kernel
 * socket read by whichever thread waits for answers.  The transport knows
 * nothing of ports' ownership or threads: mad_port.c drives it.
 */
#ifndef NANOSM_MAD_MAD_IBSIM_H
#define NANOSM_MAD_MAD_IBSIM_H

#include <stddef.h>
#include <stdint.h>

#include "mad/mad_queue.h"

struct mad_ibsim {
	int ctl_fd;	 /* control requests, answered one at a time */
	int data_fd;	 /* MADs both ways, connected to ibsim's socket for us */
	uint32_t client; /* ibsim's number for us (0-9) */
	int issm;
	char node[32]; /* the node ibsim attached us to */
};

/* Attach to ibsim: sockname NULL means IBSIM_SOCKNAME or "sim", node NULL
 * means SIM_HOST or ibsim's default node.  issm asks to receive the
 * requests sent to the node's SM (QP0/QP1 requests) and sets IsSM in the
 * port's CapabilityMask.  Waits at most wait_ms for ibsim's socket to
 * appear and for each control answer.
 * 0, or a negative errno with err filled (no simulator on that name, no
 * such node, ibsim's 10 clients taken). */
int mad_ibsim_open(struct mad_ibsim *s, const char *sockname, const char *node, int issm,
		   unsigned wait_ms, char *err, size_t errlen);
/* Give up IsSM (if held) and detach; closes both sockets. */
void mad_ibsim_close(struct mad_ibsim *s);
/* Send one MAD (at most 256 bytes are carried; ibsim has no RMPP) to
 * to->lid (0xffff for a directed-route SMP from us) on to->qpn.  Blocks
 * while ibsim's socket for us is full.  0 or a negative errno. */
int mad_ibsim_send(struct mad_ibsim *s, const struct mad_addr *to, const uint8_t *mad, size_t len);
/* Wait up to timeout_ms (0: do not wait) for one MAD: 1 with from, mad
 * (256 bytes room) and *len filled; 0 when none came, or it was a runt or
 * carried ibsim's error status (its timeout when it could not deliver);
 * a negative errno when the socket failed. */
int mad_ibsim_recv(struct mad_ibsim *s, int timeout_ms, struct mad_addr *from, uint8_t *mad,
		   size_t *len);

#endif
