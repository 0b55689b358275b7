/*
 * vsim_wire.c - the simulated verbs layer's data path: post send/receive,
 * packets carried between the simulated hosts' processes over UNIX
 * datagram sockets (one per QP, in the directory vsim_verbs.c names), the
 * delivery rules of vsim_path.c applied on the way, RC acknowledgements
 * and retries, and completions.  Work happens when the application posts
 * or polls its CQ (nanosm-ping busy-polls); there is no thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mad/text.h"
#include "tests/verbs_sim/vsim_path.h"
#include "tests/verbs_sim/vsim_priv.h"

#define VSIM_MAGIC 0x4e535653u /* "NSVS" */
#define VSIM_UD_GRH 40
#define VSIM_DRAIN_MAX 64 /* packets taken from one QP per poll */
#define VSIM_NOTES 64
#define VSIM_UD_WAIT_TRIES 100
#define VSIM_UD_WAIT_US 50

enum vsim_kind { VSIM_SEND = 1, VSIM_WRITE, VSIM_ACK };
enum vsim_ack { VSIM_ACK_OK = 0, VSIM_ACK_RNR, VSIM_ACK_ACCESS, VSIM_ACK_INVALID };

struct vsim_hdr {
	uint32_t magic;
	uint8_t kind, status;
	uint16_t pkey;
	uint16_t slid, dlid;
	uint32_t src_qpn, dst_qpn, qkey, rkey, len;
	uint64_t src_guid, seq, raddr;
};

/* The last loss said per (source QP, DLID), so each change is said once. */
static struct vsim_note {
	uint16_t dlid;
	uint32_t hash;
} vsim_notes[VSIM_NOTES];

static uint32_t vsim_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h | 1;
}

static struct vsim_note *vsim_note_find(uint16_t dlid)
{
	for (unsigned i = 0; i < VSIM_NOTES; i++)
		if (vsim_notes[i].dlid == dlid)
			return &vsim_notes[i];
	return NULL;
}

/* A packet to dlid was lost (why) or, why NULL, delivered. */
static void vsim_note(uint16_t dlid, const char *why)
{
	struct vsim_note *n = vsim_note_find(dlid);
	uint16_t slid = vsim.facts.pi.lid;

	if (!why) {
		if (n) {
			fprintf(stderr, VSIM_TAG ": lid %u -> lid %u: delivered again\n", slid,
				dlid);
			n->dlid = 0;
		}
		return;
	}
	if (n && n->hash == vsim_hash(why))
		return;
	if (!n)
		n = vsim_note_find(0);
	if (n) {
		n->dlid = dlid;
		n->hash = vsim_hash(why);
	}
	fprintf(stderr, VSIM_TAG ": lid %u -> lid %u: packet lost: %s\n", slid, dlid, why);
}

/* Where a packet of pkt_bytes to dlid arrives (its port GUID), or why not. */
static int vsim_route_to(uint16_t dlid, unsigned pkt_bytes, uint64_t *guid, char *why, size_t len)
{
	char err[256];
	int src_node;
	uint8_t src_port;
	struct vsim_route r;
	const struct verify_index *ix =
	    vsim_smi_fabric(vsim.smi, VSIM_FABRIC_AGE_MS, &src_node, &src_port, err, sizeof(err));

	if (!ix)
		return text_err(why, len, -EIO, "the fabric could not be read: %s", err);
	vsim_path_route(ix, src_node, src_port, dlid, &r);
	if (!r.ok)
		return text_err(why, len, -EHOSTUNREACH, "%s", r.why);
	if (vsim_path_fits(&r, pkt_bytes, why, len) < 0)
		return -EMSGSIZE;
	*guid = r.dest_guid;
	return 0;
}

/* ---- Completions ----------------------------------------------------------- */

static void vsim_cq_push(struct ibv_cq *cq, const struct ibv_wc *wc)
{
	struct vsim_cq *q = (struct vsim_cq *)cq;

	if (q->n == q->cap) {
		if (!q->overflowed++)
			fprintf(stderr, VSIM_TAG ": CQ overrun (%d entries): completions lost\n",
				q->cap);
		return;
	}
	q->ring[(q->head + q->n++) % q->cap] = *wc;
}

static struct ibv_wc vsim_wc(const struct vsim_qp *q, uint64_t wr_id, enum ibv_wc_status st,
			     enum ibv_wc_opcode op, uint32_t len)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr_id;
	wc.status = st;
	wc.opcode = op;
	wc.byte_len = len;
	wc.qp_num = q->qp.qp_num;
	return wc;
}

static void vsim_complete(struct vsim_qp *q, struct ibv_cq *cq, uint64_t wr_id,
			  enum ibv_wc_status st, enum ibv_wc_opcode op, uint32_t len)
{
	struct ibv_wc wc = vsim_wc(q, wr_id, st, op, len);

	vsim_cq_push(cq, &wc);
}

/* Every RC send waiting ends: with status st (the first) then flushed. */
static void vsim_pending_fail(struct vsim_qp *q, enum ibv_wc_status st)
{
	struct vsim_pending *p;

	while ((p = q->pending)) {
		q->pending = p->next;
		vsim_complete(q, q->qp.send_cq, p->wr_id, st, p->opcode, 0);
		st = IBV_WC_WR_FLUSH_ERR;
		free(p->pkt);
		free(p);
	}
	q->pending_tail = &q->pending;
	q->qp.state = IBV_QPS_ERR;
}

void vsim_wire_qp_flush(struct vsim_qp *q)
{
	struct vsim_pending *p;

	if (q->qp.state == IBV_QPS_ERR && q->pending) {
		vsim_pending_fail(q, IBV_WC_WR_FLUSH_ERR);
		return;
	}
	while ((p = q->pending)) {
		q->pending = p->next;
		free(p->pkt);
		free(p);
	}
	q->pending_tail = &q->pending;
	if (q->qp.state == IBV_QPS_RESET)
		q->rq_n = 0;
}

/* ---- Sending ------------------------------------------------------------------ */

static int vsim_sendto(struct vsim_qp *q, const struct sockaddr_un *to, const void *pkt, size_t len)
{
	if (sendto(q->fd, pkt, len, MSG_DONTWAIT, (const struct sockaddr *)to, sizeof(*to)) < 0)
		return -errno;
	return 0;
}

/* RC: how long one try waits for its ACK (4.096 us * 2^timeout; 0 is
 * "forever": 2 s here). */
static uint64_t vsim_try_ms(const struct vsim_qp *q)
{
	return q->timeout ? (4096ull << q->timeout) / 1000000 + 1 : 2000;
}

/* The packet for wr, header and payload gathered, or NULL. */
static void *vsim_packet(struct vsim_qp *q, const struct ibv_send_wr *wr, size_t *len)
{
	size_t n = 0, at = sizeof(struct vsim_hdr);
	struct vsim_hdr *h;
	uint8_t *pkt;

	for (int i = 0; i < wr->num_sge; i++)
		n += wr->sg_list[i].length;
	if (n > VSIM_MAX_MSG) {
		fprintf(stderr,
			VSIM_TAG ": a message of %zu bytes is above the simulation's limit of %u\n",
			n, VSIM_MAX_MSG);
		return NULL;
	}
	if (!(pkt = malloc(at + n)))
		return NULL;
	for (int i = 0; i < wr->num_sge; i++) {
		memcpy(pkt + at, (void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
		at += wr->sg_list[i].length;
	}
	h = (struct vsim_hdr *)pkt;
	memset(h, 0, sizeof(*h));
	h->magic = VSIM_MAGIC;
	h->kind = wr->opcode == IBV_WR_RDMA_WRITE ? VSIM_WRITE : VSIM_SEND;
	h->pkey = vsim_verbs_facts()->pkey[q->pkey_index];
	h->slid = vsim.facts.pi.lid;
	h->src_qpn = q->qp.qp_num;
	h->src_guid = vsim.facts.port_guid;
	h->len = (uint32_t)n;
	h->seq = ++q->seq;
	if (q->qp.qp_type == IBV_QPT_UD) {
		h->dlid = ((struct vsim_ah *)wr->wr.ud.ah)->dlid;
		h->dst_qpn = wr->wr.ud.remote_qpn;
		h->qkey = wr->wr.ud.remote_qkey;
	} else {
		h->dlid = q->dlid;
		h->dst_qpn = q->dest_qpn;
		h->raddr = wr->wr.rdma.remote_addr;
		h->rkey = wr->wr.rdma.rkey;
	}
	*len = at;
	return pkt;
}

/* Route the packet: 0 with *to set, or the loss said and a negative errno. */
static int vsim_packet_route(struct vsim_qp *q, const struct vsim_hdr *h, struct sockaddr_un *to)
{
	unsigned pkt_bytes = h->len;
	unsigned qp_mtu = q->qp.qp_type == IBV_QPT_RC ? 128u << q->path_mtu : 0;
	uint64_t guid;
	char why[512];
	int rc;

	if (qp_mtu && pkt_bytes > qp_mtu)
		pkt_bytes = qp_mtu; /* RC cuts a message into packets of path_mtu */
	if (!(h->pkey & 0x7fff)) {
		snprintf(why, sizeof(why), "this port has no P_Key at index %u", q->pkey_index);
		rc = -EACCES;
	} else {
		rc = vsim_route_to(h->dlid, pkt_bytes, &guid, why, sizeof(why));
	}
	vsim_note(h->dlid, rc < 0 ? why : NULL);
	if (rc == 0)
		vsim_verbs_sock_path(to, guid, h->dst_qpn);
	return rc;
}

/* UD sends and RC ACKs: where an HCA's receive queue holds every posted
 * receive, a UNIX socket's holds net.unix.max_dgram_qlen datagrams (10):
 * give the receiving process a few ms to drain it before the packet is
 * lost. */
static void vsim_send_wait(struct vsim_qp *q, const struct sockaddr_un *to, const void *pkt,
			   size_t len)
{
	int rc = vsim_sendto(q, to, pkt, len);

	for (int i = 0; rc == -EAGAIN && i < VSIM_UD_WAIT_TRIES; i++) {
		usleep(VSIM_UD_WAIT_US);
		rc = vsim_sendto(q, to, pkt, len);
	}
}

static int vsim_send_ud(struct vsim_qp *q, const struct ibv_send_wr *wr)
{
	struct sockaddr_un to;
	size_t len;
	void *pkt = vsim_packet(q, wr, &len);

	if (!pkt)
		return ENOMEM;
	/* UD: lost on the way, or at a port without that QP, without a word */
	if (vsim_packet_route(q, pkt, &to) == 0)
		vsim_send_wait(q, &to, pkt, len);
	free(pkt);
	if (wr->send_flags & IBV_SEND_SIGNALED)
		vsim_complete(q, q->qp.send_cq, wr->wr_id, IBV_WC_SUCCESS, IBV_WC_SEND, 0);
	return 0;
}

static int vsim_send_rc(struct vsim_qp *q, const struct ibv_send_wr *wr)
{
	struct vsim_pending *p = calloc(1, sizeof(*p));

	if (!p || !(p->pkt = vsim_packet(q, wr, &p->pkt_len))) {
		free(p);
		return ENOMEM;
	}
	p->wr_id = wr->wr_id;
	p->signaled = !!(wr->send_flags & IBV_SEND_SIGNALED);
	p->opcode = wr->opcode == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_SEND;
	p->len = ((struct vsim_hdr *)p->pkt)->len;
	p->seq = ((struct vsim_hdr *)p->pkt)->seq;
	p->due_ms = vsim_smi_now_ms();
	*q->pending_tail = p;
	q->pending_tail = &p->next;
	return 0;
}

int vsim_wire_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct vsim_qp *q = (struct vsim_qp *)qp;
	int rc = 0;

	for (; wr && !rc; wr = wr->next) {
		if (qp->state != IBV_QPS_RTS)
			rc = EINVAL;
		else if ((wr->opcode != IBV_WR_SEND &&
			  (wr->opcode != IBV_WR_RDMA_WRITE || qp->qp_type != IBV_QPT_RC)) ||
			 wr->num_sge < 0 || wr->num_sge > 4)
			rc = EINVAL;
		else
			rc = qp->qp_type == IBV_QPT_UD ? vsim_send_ud(q, wr) : vsim_send_rc(q, wr);
		if (rc)
			*bad = wr;
	}
	return rc;
}

int vsim_wire_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct vsim_qp *q = (struct vsim_qp *)qp;

	for (; wr; wr = wr->next) {
		if (qp->state == IBV_QPS_RESET || q->rq_n + 1 >= q->rq_cap || wr->num_sge != 1) {
			*bad = wr;
			return qp->state == IBV_QPS_RESET || wr->num_sge != 1 ? EINVAL : ENOMEM;
		}
		q->rq[(q->rq_head + q->rq_n++) % q->rq_cap] = (struct vsim_recv){
		    wr->wr_id, (uintptr_t)wr->sg_list[0].addr, wr->sg_list[0].length};
	}
	return 0;
}

/* ---- Receiving ------------------------------------------------------------------ */

/* RC: answer the sender's QP (the ACK takes the way back, so a path that
 * is broken that way loses it too). */
static void vsim_ack(struct vsim_qp *q, const struct vsim_hdr *in, enum vsim_ack st)
{
	struct vsim_hdr h;
	struct sockaddr_un to;
	uint64_t guid;
	char why[512];

	if (vsim_route_to(in->slid, 0, &guid, why, sizeof(why)) < 0) {
		vsim_note(in->slid, why);
		return;
	}
	memset(&h, 0, sizeof(h));
	h.magic = VSIM_MAGIC;
	h.kind = VSIM_ACK;
	h.status = (uint8_t)st;
	h.slid = vsim.facts.pi.lid;
	h.dlid = in->slid;
	h.src_qpn = q->qp.qp_num;
	h.dst_qpn = in->src_qpn;
	h.seq = in->seq;
	vsim_verbs_sock_path(&to, guid, in->src_qpn);
	vsim_send_wait(q, &to, &h, sizeof(h));
}

/* Is this packet for this QP, in this state, in a shared partition? */
static int vsim_accept(struct vsim_qp *q, const struct vsim_hdr *h)
{
	const struct vsim_port_facts *f = vsim_verbs_facts();
	char why[160];

	if (q->qp.state != IBV_QPS_RTR && q->qp.state != IBV_QPS_RTS)
		return 0;
	if (!vsim_path_pkey_accepts(h->pkey, f->pkey, VSIM_PKEYS)) {
		snprintf(why, sizeof(why),
			 "P_Key 0x%04x from lid %u: no partition shared with this port", h->pkey,
			 h->slid);
		fprintf(stderr, VSIM_TAG ": lid %u -> lid %u: packet dropped: %s\n", h->slid,
			f->pi.lid, why);
		return 0;
	}
	if (q->qp.qp_type == IBV_QPT_UD)
		return h->kind == VSIM_SEND && h->qkey == q->qkey;
	return h->src_qpn == q->dest_qpn && h->slid == q->dlid;
}

static void vsim_recv_wc(struct vsim_qp *q, const struct vsim_hdr *h, uint64_t wr_id, uint32_t len)
{
	struct ibv_wc wc = vsim_wc(q, wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, len);

	wc.src_qp = h->src_qpn;
	wc.slid = h->slid;
	vsim_cq_push(q->qp.recv_cq, &wc);
}

/* A SEND: into the next posted receive (UD: after the 40-byte GRH gap). */
static enum vsim_ack vsim_input_send(struct vsim_qp *q, const struct vsim_hdr *h,
				     const uint8_t *data)
{
	uint32_t gap = q->qp.qp_type == IBV_QPT_UD ? VSIM_UD_GRH : 0;
	struct vsim_recv r;

	if (!q->rq_n)
		return VSIM_ACK_RNR;
	r = q->rq[q->rq_head];
	q->rq_head = (q->rq_head + 1) % q->rq_cap;
	q->rq_n--;
	if (h->len + gap > r.length) {
		vsim_complete(q, q->qp.recv_cq, r.wr_id, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0);
		return VSIM_ACK_INVALID;
	}
	memset((void *)r.addr, 0, gap);
	memcpy((uint8_t *)r.addr + gap, data, h->len);
	vsim_recv_wc(q, h, r.wr_id, h->len + gap);
	return VSIM_ACK_OK;
}

/* An RDMA write: into a registered region that allows it. */
static enum vsim_ack vsim_input_write(const struct vsim_hdr *h, const uint8_t *data)
{
	struct vsim_mr *m = vsim_verbs_mr_by_rkey(h->rkey);
	uintptr_t at = (uintptr_t)h->raddr, base;

	if (!m || !(m->access & IBV_ACCESS_REMOTE_WRITE))
		return VSIM_ACK_ACCESS;
	base = (uintptr_t)m->mr.addr;
	if (at < base || at + h->len > base + m->mr.length)
		return VSIM_ACK_ACCESS;
	memcpy((void *)at, data, h->len);
	return VSIM_ACK_OK;
}

static struct vsim_pending *vsim_pending_by_seq(struct vsim_qp *q, uint64_t seq)
{
	for (struct vsim_pending *p = q->pending; p; p = p->next)
		if (p->seq == seq)
			return p;
	return NULL;
}

/* Send again from p on (go-back-N), at `when`. */
static void vsim_resend_from(struct vsim_pending *p, uint64_t when)
{
	for (; p; p = p->next) {
		p->sent = 0;
		p->due_ms = when;
	}
}

static void vsim_input_ack(struct vsim_qp *q, const struct vsim_hdr *h)
{
	struct vsim_pending *p = vsim_pending_by_seq(q, h->seq);

	if (!p)
		return; /* a duplicate: that send already ended */
	if (h->status == VSIM_ACK_RNR) {
		vsim_resend_from(p, vsim_smi_now_ms() + 1); /* rnr_retry 7: forever */
		return;
	}
	if (h->status != VSIM_ACK_OK) {
		vsim_pending_fail(q, h->status == VSIM_ACK_ACCESS ? IBV_WC_REM_ACCESS_ERR
								  : IBV_WC_REM_INV_REQ_ERR);
		return;
	}
	while ((p = q->pending) && p->seq <= h->seq) {
		q->pending = p->next;
		if (p->signaled)
			vsim_complete(q, q->qp.send_cq, p->wr_id, IBV_WC_SUCCESS, p->opcode,
				      p->len);
		free(p->pkt);
		free(p);
	}
	if (!q->pending)
		q->pending_tail = &q->pending;
}

static void vsim_input(struct vsim_qp *q, const uint8_t *buf, size_t n)
{
	const struct vsim_hdr *h = (const struct vsim_hdr *)buf;
	enum vsim_ack st;

	if (n < sizeof(*h) || h->magic != VSIM_MAGIC || h->dst_qpn != q->qp.qp_num ||
	    (h->kind != VSIM_ACK && n != sizeof(*h) + h->len))
		return;
	if (h->kind == VSIM_ACK) {
		vsim_input_ack(q, h);
		return;
	}
	if (!vsim_accept(q, h))
		return; /* dropped: RC's sender retries until it gives up */
	if (q->qp.qp_type == IBV_QPT_UD) {
		vsim_input_send(q, h, buf + sizeof(*h));
		return;
	}
	if (h->seq <= q->rx_seq) { /* a retransmission: it was done, ACK again */
		vsim_ack(q, h, VSIM_ACK_OK);
		return;
	}
	if (h->seq != q->rx_seq + 1)
		return; /* one before it was lost: wait for the sender to go back */
	st = h->kind == VSIM_WRITE ? vsim_input_write(h, buf + sizeof(*h))
				   : vsim_input_send(q, h, buf + sizeof(*h));
	if (st == VSIM_ACK_OK)
		q->rx_seq = h->seq;
	vsim_ack(q, h, st);
}

/* ---- Progress ------------------------------------------------------------------- */

/* Transmit p: routed again each time (the fabric may have changed); lost
 * on the way or at the far end alike, it then waits for an ACK that does
 * not come.  -EAGAIN: the far socket is full, try again. */
static int vsim_transmit(struct vsim_qp *q, struct vsim_pending *p, uint64_t now)
{
	struct sockaddr_un to;

	if (vsim_packet_route(q, p->pkt, &to) == 0 &&
	    vsim_sendto(q, &to, p->pkt, p->pkt_len) == -EAGAIN)
		return -EAGAIN;
	p->sent = 1;
	p->due_ms = now + vsim_try_ms(q);
	return 0;
}

/* RC sends: a try of the oldest that timed out sends it and all after it
 * again, retry_cnt times, then the QP gives up (retry exceeded); then send
 * what is due, in order. */
static void vsim_progress_sends(struct vsim_qp *q, uint64_t now)
{
	struct vsim_pending *p = q->pending;

	if (p && p->sent && now >= p->due_ms) {
		if (++p->tries > q->retry_cnt) {
			vsim_pending_fail(q, IBV_WC_RETRY_EXC_ERR);
			return;
		}
		vsim_resend_from(p, now);
	}
	for (; p; p = p->next) {
		if (p->sent)
			continue;
		if (p->due_ms > now || vsim_transmit(q, p, now) == -EAGAIN) {
			if (p->due_ms <= now)
				p->due_ms = now + 1;
			break; /* keep the order */
		}
	}
}

static void vsim_progress(struct vsim_qp *q)
{
	static uint8_t buf[sizeof(struct vsim_hdr) + VSIM_MAX_MSG];

	for (int i = 0; i < VSIM_DRAIN_MAX; i++) {
		ssize_t n = recv(q->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0)
			break;
		vsim_input(q, buf, (size_t)n);
	}
	if (q->qp.state == IBV_QPS_RTS)
		vsim_progress_sends(q, vsim_smi_now_ms());
}

int vsim_wire_poll_cq(struct ibv_cq *cq, int max, struct ibv_wc *wc)
{
	struct vsim_cq *c = (struct vsim_cq *)cq;
	int n = 0;

	for (struct vsim_qp *q = vsim.qps; q; q = q->next)
		if (q->qp.send_cq == cq || q->qp.recv_cq == cq)
			vsim_progress(q);
	while (n < max && c->n) {
		wc[n++] = c->ring[c->head];
		c->head = (c->head + 1) % c->cap;
		c->n--;
	}
	return n;
}
