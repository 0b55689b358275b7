/*
 * tools/ping/nping_qp.h - one session's queue pair (nping_qp.c) on a port
 * nping_dev.c opened: the drivers read its CQ, buffers and counters and
 * post through it.
 *
 * DOC: functions taking (char *err, size_t errlen) return 0 or a negative
 * errno with err filled.  Nothing here waits: the drivers poll q->cq.
 */
#ifndef NANOSM_TOOLS_PING_NPING_QP_H
#define NANOSM_TOOLS_PING_NPING_QP_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "tools/ping/nping_dev.h"
#include "tools/ping/ping_proto.h"

#define NPING_BW_WINDOW 64 /* bandwidth: writes/sends in flight */
#define NPING_SQ_DEPTH (NPING_BW_WINDOW + 8)
#define NPING_WRID_SEND (1ULL << 63) /* in a send's wr_id; a receive's is its slot */

/* One session's QP and buffers: [recv slots][send slots][RC write area]. */
struct nping_qp {
	struct nping_dev *dev;
	enum ping_mode mode;
	int server;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	uint8_t *buf;
	size_t buf_len;
	uint32_t size;	  /* largest message */
	size_t recv_slot; /* bytes per receive slot (UD: + GRH) */
	unsigned n_recv, n_send;
	uint8_t *send_buf; /* n_send slots of size bytes */
	uint8_t *rdma;	   /* RC server: size bytes others write into */
	uint32_t max_inline;
	unsigned send_next, sq_out;
	uint32_t psn;
	uint32_t remote_qpn, remote_rkey;
	uint64_t remote_addr;
	uint64_t rx_bw; /* server: bandwidth messages received */
};

/* Create, bring to INIT (UD: to RTS), post every receive; fill local. */
int nping_qp_open(struct nping_dev *d, struct nping_qp *q, int server, struct ping_info *local,
		  char *err, size_t errlen);
/* Point the QP at the peer: UD an address handle, RC RTR and RTS. */
int nping_qp_connect(struct nping_qp *q, const struct ping_info *r, char *err, size_t errlen);
void nping_qp_destroy(struct nping_qp *q);
int nping_qp_post_recv(struct nping_qp *q, unsigned slot, char *err, size_t errlen);
/* Post one signaled send (or RDMA write) of len bytes from send slot. */
int nping_qp_post_send(struct nping_qp *q, unsigned slot, uint32_t len, int rdma_write, char *err,
		       size_t errlen);
/* A failed completion in words, into buf. */
void nping_qp_wc_error(const struct ibv_wc *wc, char *buf, size_t cap);
/* A successful receive: its payload header. */
int nping_qp_wc_payload(const struct nping_qp *q, const struct ibv_wc *wc,
			enum ping_payload_kind *kind, uint32_t *seq, uint8_t **data, uint32_t *len);

#endif
