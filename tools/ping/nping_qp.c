/*
 * tools/ping/nping_qp.c - one session's queue pair (UD or RC) on an opened
 * port: its CQ, buffers and memory region, the state changes to RTS, the
 * posts, and what a work completion says.  Knows no peer protocol beyond
 * the payload header (ping_proto.c) and never waits: the drivers poll.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "mad/text.h"
#include "tools/ping/nping.h"
#include "tools/ping/nping_dev.h"
#include "tools/ping/nping_qp.h"
#include "tools/ping/ping_proto.h"

#define NPING_INLINE 64 /* inline data asked of each QP */
#define NPING_CLIENT_RECVS 16
#define NPING_SERVER_UD_RECVS 512 /* a UD stream lands here: no flow control */
#define NPING_SERVER_RC_RECVS 8	  /* pings only: RDMA writes take no receive */
#define NPING_SERVER_SLOTS 4	  /* pong send buffers */

static uint32_t nping_random_psn(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = (uint32_t)nping_now() ^ (uint32_t)getpid();
	return v & 0xffffff;
}

static enum ibv_mtu nping_mtu_enum(uint16_t bytes)
{
	switch (bytes) {
	case 256:
		return IBV_MTU_256;
	case 512:
		return IBV_MTU_512;
	case 1024:
		return IBV_MTU_1024;
	case 2048:
		return IBV_MTU_2048;
	default:
		return IBV_MTU_4096;
	}
}

void nping_qp_destroy(struct nping_qp *q)
{
	if (q->qp)
		ibv_destroy_qp(q->qp);
	if (q->ah)
		ibv_destroy_ah(q->ah);
	if (q->cq)
		ibv_destroy_cq(q->cq);
	if (q->mr)
		ibv_dereg_mr(q->mr);
	free(q->buf);
	memset(q, 0, sizeof(*q));
}

static int nping_qp_buffers(struct nping_qp *q, char *err, size_t errlen)
{
	size_t recv_bytes, send_bytes;
	int access = IBV_ACCESS_LOCAL_WRITE;

	q->recv_slot = q->size + (q->mode == PING_MODE_UD ? PING_PROTO_UD_GRH : 0);
	recv_bytes = q->recv_slot * q->n_recv;
	send_bytes = (size_t)q->size * q->n_send;
	q->buf_len = recv_bytes + send_bytes + (q->server && q->mode == PING_MODE_RC ? q->size : 0);
	if (posix_memalign((void **)&q->buf, 4096, q->buf_len) != 0)
		return text_err(err, errlen, -EIO, "cannot allocate %zu bytes of buffers",
				q->buf_len);
	memset(q->buf, 0, q->buf_len);
	q->send_buf = q->buf + recv_bytes;
	if (q->server && q->mode == PING_MODE_RC) {
		q->rdma = q->send_buf + send_bytes;
		access |= IBV_ACCESS_REMOTE_WRITE;
	}
	q->mr = ibv_reg_mr(q->dev->pd, q->buf, q->buf_len, access);
	if (!q->mr)
		return text_err(err, errlen, -EIO, "ibv_reg_mr of %zu bytes: %s", q->buf_len,
				strerror(errno));
	return 0;
}

static int nping_qp_make(struct nping_qp *q, char *err, size_t errlen)
{
	struct ibv_qp_init_attr ia;
	int cqe = (int)(q->n_recv + NPING_SQ_DEPTH + 8);

	if (q->dev->max_cqe > 0 && cqe > q->dev->max_cqe)
		cqe = q->dev->max_cqe;
	q->cq = ibv_create_cq(q->dev->ctx, cqe, NULL, NULL, 0);
	if (!q->cq)
		return text_err(err, errlen, -EIO, "ibv_create_cq(%d): %s", cqe, strerror(errno));
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = q->cq;
	ia.recv_cq = q->cq;
	ia.cap.max_send_wr = NPING_SQ_DEPTH;
	ia.cap.max_recv_wr = q->n_recv;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = NPING_INLINE;
	ia.qp_type = q->mode == PING_MODE_UD ? IBV_QPT_UD : IBV_QPT_RC;
	q->qp = ibv_create_qp(q->dev->pd, &ia);
	if (!q->qp) {
		ia.cap.max_inline_data = 0; /* some providers have no inline sends */
		q->qp = ibv_create_qp(q->dev->pd, &ia);
	}
	if (!q->qp)
		return text_err(err, errlen, -EIO, "ibv_create_qp(%s): %s",
				q->mode == PING_MODE_UD ? "UD" : "RC", strerror(errno));
	q->max_inline = ia.cap.max_inline_data;
	return 0;
}

static int nping_qp_modify(struct nping_qp *q, struct ibv_qp_attr *a, int mask, const char *to,
			   char *err, size_t errlen)
{
	int rc = ibv_modify_qp(q->qp, a, mask);

	if (rc)
		return text_err(err, errlen, -EIO, "ibv_modify_qp to %s: %s", to, strerror(rc));
	return 0;
}

static int nping_qp_init(struct nping_qp *q, char *err, size_t errlen)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = q->dev->port;
	if (q->mode == PING_MODE_UD) {
		a.qkey = PING_PROTO_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = q->server ? IBV_ACCESS_REMOTE_WRITE : 0;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return nping_qp_modify(q, &a, mask, "INIT", err, errlen);
}

/* UD needs nothing from the peer to reach RTS. */
static int nping_qp_ud_rts(struct nping_qp *q, char *err, size_t errlen)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (nping_qp_modify(q, &a, IBV_QP_STATE, "RTR", err, errlen) < 0)
		return -EIO;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = q->psn;
	return nping_qp_modify(q, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS", err, errlen);
}

int nping_qp_post_recv(struct nping_qp *q, unsigned slot, char *err, size_t errlen)
{
	struct ibv_sge sge = {
	    .addr = (uintptr_t)(q->buf + (size_t)slot * q->recv_slot),
	    .length = (uint32_t)q->recv_slot,
	    .lkey = q->mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = slot, .sg_list = &sge, .num_sge = 1}, *bad;
	int rc = ibv_post_recv(q->qp, &wr, &bad);

	if (rc)
		return text_err(err, errlen, -EIO, "ibv_post_recv: %s", strerror(rc));
	return 0;
}

/* Create, bring to INIT (UD: to RTS), post every receive; fill local. */
int nping_qp_open(struct nping_dev *d, struct nping_qp *q, int server, struct ping_info *local,
		  char *err, size_t errlen)
{
	memset(q, 0, sizeof(*q));
	q->dev = d;
	q->mode = local->mode;
	q->server = server;
	q->size = local->size;
	q->psn = nping_random_psn();
	q->n_recv = !server		      ? NPING_CLIENT_RECVS
		    : q->mode == PING_MODE_UD ? NPING_SERVER_UD_RECVS
					      : NPING_SERVER_RC_RECVS;
	if (d->max_qp_wr > 0 && q->n_recv > (unsigned)d->max_qp_wr)
		q->n_recv = (unsigned)d->max_qp_wr;
	q->n_send = server ? NPING_SERVER_SLOTS : 1;
	if (nping_qp_buffers(q, err, errlen) < 0 || nping_qp_make(q, err, errlen) < 0 ||
	    nping_qp_init(q, err, errlen) < 0 ||
	    (q->mode == PING_MODE_UD && nping_qp_ud_rts(q, err, errlen) < 0))
		goto fail;
	for (unsigned i = 0; i < q->n_recv; i++)
		if (nping_qp_post_recv(q, i, err, errlen) < 0)
			goto fail;
	local->lid = d->lid;
	local->qpn = q->qp->qp_num;
	local->psn = q->psn;
	memcpy(local->gid, d->gid, sizeof(local->gid));
	local->mtu = d->mtu;
	local->rkey = q->rdma ? q->mr->rkey : 0;
	local->addr = q->rdma ? (uint64_t)(uintptr_t)q->rdma : 0;
	return 0;
fail:
	nping_qp_destroy(q);
	return -EIO;
}

static int nping_qp_rc_connect(struct nping_qp *q, const struct ping_info *r, char *err,
			       size_t errlen)
{
	struct ibv_qp_attr a;
	uint16_t mtu = r->mtu < q->dev->mtu ? r->mtu : q->dev->mtu;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = nping_mtu_enum(mtu);
	a.dest_qp_num = r->qpn;
	a.rq_psn = r->psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = r->lid;
	a.ah_attr.port_num = q->dev->port;
	if (nping_qp_modify(q, &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
			    "RTR", err, errlen) < 0)
		return -EIO;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14; /* 4.096 us * 2^14 = 67 ms per try */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = q->psn;
	a.max_rd_atomic = 1;
	return nping_qp_modify(q, &a,
			       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
			       "RTS", err, errlen);
}

/* Point the QP at the peer: UD an address handle, RC RTR and RTS. */
int nping_qp_connect(struct nping_qp *q, const struct ping_info *r, char *err, size_t errlen)
{
	struct ibv_ah_attr aa;

	q->remote_qpn = r->qpn;
	q->remote_rkey = r->rkey;
	q->remote_addr = r->addr;
	if (q->mode == PING_MODE_RC)
		return nping_qp_rc_connect(q, r, err, errlen);
	memset(&aa, 0, sizeof(aa));
	aa.dlid = r->lid;
	aa.port_num = q->dev->port;
	q->ah = ibv_create_ah(q->dev->pd, &aa);
	if (!q->ah)
		return text_err(err, errlen, -EIO, "ibv_create_ah to lid %u: %s", r->lid,
				strerror(errno));
	return 0;
}

/* Post one signaled send (or RDMA write) of len bytes from send slot. */
int nping_qp_post_send(struct nping_qp *q, unsigned slot, uint32_t len, int rdma_write, char *err,
		       size_t errlen)
{
	struct ibv_sge sge = {
	    .addr = (uintptr_t)(q->send_buf + (size_t)slot * q->size),
	    .length = len,
	    .lkey = q->mr->lkey,
	};
	struct ibv_send_wr wr, *bad;
	int rc;

	if (q->sq_out >= NPING_SQ_DEPTH)
		return text_err(err, errlen, -EIO, "send queue full (%u sends without completion)",
				q->sq_out);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = NPING_WRID_SEND | slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = rdma_write ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | (len <= q->max_inline ? IBV_SEND_INLINE : 0);
	if (q->mode == PING_MODE_UD) {
		wr.wr.ud.ah = q->ah;
		wr.wr.ud.remote_qpn = q->remote_qpn;
		wr.wr.ud.remote_qkey = PING_PROTO_QKEY;
	} else if (rdma_write) {
		wr.wr.rdma.remote_addr = q->remote_addr;
		wr.wr.rdma.rkey = q->remote_rkey;
	}
	if ((rc = ibv_post_send(q->qp, &wr, &bad)) != 0)
		return text_err(err, errlen, -EIO, "ibv_post_send: %s", strerror(rc));
	q->sq_out++;
	return 0;
}

void nping_qp_wc_error(const struct ibv_wc *wc, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s completion error: %s (vendor error 0x%x)",
		 (wc->wr_id & NPING_WRID_SEND) ? "send" : "receive", ibv_wc_status_str(wc->status),
		 wc->vendor_err);
}

/* A successful receive: its payload header. */
int nping_qp_wc_payload(const struct nping_qp *q, const struct ibv_wc *wc,
			enum ping_payload_kind *kind, uint32_t *seq, uint8_t **data, uint32_t *len)
{
	uint8_t *slot = q->buf + (size_t)wc->wr_id * q->recv_slot;
	uint32_t skip = q->mode == PING_MODE_UD ? PING_PROTO_UD_GRH : 0;

	if (wc->byte_len < skip)
		return -EBADMSG;
	*data = slot + skip;
	*len = wc->byte_len - skip;
	return ping_proto_payload_get(*data, *len, kind, seq);
}
