/*
 * tools/ping/nanosm-ping.c - the verbs test client and server.  Owns every libibverbs
 * call (devices, ports, PD/CQ/QP/MR/AH, posts, polls), the two drivers that
 * feed tools/ping/ping_peer.c and tools/ping/ping_serve.c with events, output and main().
 * Protocol, statistics, verdicts and option rules live in tools/ping/ping_*.c.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "mad/text.h"
#include "tools/ping/ping_chan.h"
#include "tools/ping/ping_opts.h"
#include "tools/ping/ping_peer.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_report.h"
#include "tools/ping/ping_serve.h"

#define NPING_EXIT_OK 0
#define NPING_EXIT_FAIL 1  /* a path failed */
#define NPING_EXIT_SETUP 2 /* usage, no device, port not usable */
#define NPING_INLINE 64	   /* inline data asked of each QP */
#define NPING_BW_WINDOW 64 /* bandwidth: writes/sends in flight */
#define NPING_SQ_DEPTH (NPING_BW_WINDOW + 8)
#define NPING_CLIENT_RECVS 16
#define NPING_SERVER_UD_RECVS 512 /* a UD stream lands here: no flow control */
#define NPING_SERVER_RC_RECVS 8	  /* pings only: RDMA writes take no receive */
#define NPING_SERVER_SLOTS 4	  /* pong send buffers */
#define NPING_POLL_BATCH 16
#define NPING_WAIT_SLICE_MS 200 /* longest sleep, so signals are seen */
#define NPING_TCP_CHECK_NS 1000000ULL
#define NPING_WRID_SEND (1ULL << 63)
#define NPING_MAX_PORTS 64
#define NPING_HOSTS_MAX (1 << 20)

static volatile sig_atomic_t nping_stop;

/* The local port, opened once. */
struct nping_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char name[64];
	uint8_t port;
	uint16_t lid;
	uint16_t mtu; /* bytes */
	enum ibv_mtu mtu_enum;
	uint8_t gid[16];
	int max_qp_wr, max_cqe;
};

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

/* ---- Small helpers -------------------------------------------------------- */

__attribute__((format(printf, 1, 2))) static void nping_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("nanosm-ping: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t nping_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void nping_on_signal(int sig)
{
	(void)sig;
	nping_stop = 1;
}

static void nping_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nping_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static uint32_t nping_random_psn(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = (uint32_t)nping_now() ^ (uint32_t)getpid();
	return v & 0xffffff;
}

/* Milliseconds until deadline (ns), capped at NPING_WAIT_SLICE_MS. */
static int nping_slice_ms(uint64_t deadline, uint64_t now)
{
	uint64_t ms;

	if (!deadline)
		return NPING_WAIT_SLICE_MS;
	if (now >= deadline)
		return 0;
	ms = (deadline - now + 999999) / 1000000;
	return ms > NPING_WAIT_SLICE_MS ? NPING_WAIT_SLICE_MS : (int)ms;
}

/* ---- Verbs: devices and ports --------------------------------------------- */

static uint16_t nping_mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? (uint16_t)(128u << m) : 0;
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

/* The port GUID: GID 0's interface ID (0 when it cannot be read). */
static uint64_t nping_port_guid(struct ibv_context *ctx, uint8_t port)
{
	union ibv_gid gid;
	uint64_t guid = 0;

	if (ibv_query_gid(ctx, port, 0, &gid) != 0)
		return 0;
	for (int i = 8; i < 16; i++)
		guid = guid << 8 | gid.raw[i];
	return guid;
}

static void nping_port_desc(const char *dev, uint8_t port, const struct ibv_port_attr *pa,
			    struct ping_port_desc *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->dev, sizeof(d->dev), "%s", dev);
	d->port = port;
	d->state = (enum ping_port_state)pa->state;
	d->link = pa->link_layer == IBV_LINK_LAYER_ETHERNET	? PING_LINK_ETHERNET
		  : pa->link_layer == IBV_LINK_LAYER_INFINIBAND ? PING_LINK_IB
								: PING_LINK_UNSPEC;
	d->lid = pa->lid;
	d->mtu = nping_mtu_bytes(pa->active_mtu);
}

/* Append every port of one device to ports. */
static void nping_list_device(struct ibv_device *dev, struct ping_port_desc *ports, size_t *n,
			      char *open_err, size_t cap)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibv_device_attr da;

	if (!ctx) {
		if (!open_err[0])
			snprintf(open_err, cap, "cannot open %s: %s", ibv_get_device_name(dev),
				 strerror(errno));
		return;
	}
	if (ibv_query_device(ctx, &da) == 0) {
		for (uint8_t p = 1; p <= da.phys_port_cnt && *n < NPING_MAX_PORTS; p++) {
			struct ibv_port_attr pa;
			if (ibv_query_port(ctx, p, &pa) != 0)
				continue;
			nping_port_desc(ibv_get_device_name(dev), p, &pa, &ports[*n]);
			ports[(*n)++].guid = nping_port_guid(ctx, p);
		}
	}
	ibv_close_device(ctx);
}

/* Every port of every device (*list_errno: why libibverbs listed none), or
 * a setup error printed. */
static int nping_list_ports(struct ping_port_desc *ports, size_t *n, int *list_errno)
{
	int count = 0;
	struct ibv_device **devs;
	char open_err[256] = "";

	errno = 0;
	devs = ibv_get_device_list(&count);
	*list_errno = devs ? 0 : errno;
	*n = 0;
	for (int i = 0; devs && i < count; i++)
		nping_list_device(devs[i], ports, n, open_err, sizeof(open_err));
	if (devs)
		ibv_free_device_list(devs);
	if (*n == 0 && open_err[0]) {
		nping_warn("%s (permissions on /dev/infiniband/uverbs*?)", open_err);
		return -EACCES;
	}
	return 0;
}

static void nping_dev_close(struct nping_dev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	memset(d, 0, sizeof(*d));
}

static int nping_dev_open(struct nping_dev *d, const struct ping_port_desc *pd)
{
	int count = 0;
	struct ibv_device **devs = ibv_get_device_list(&count);
	struct ibv_device_attr da;

	memset(d, 0, sizeof(*d));
	for (int i = 0; devs && i < count && !d->ctx; i++)
		if (strcmp(ibv_get_device_name(devs[i]), pd->dev) == 0)
			d->ctx = ibv_open_device(devs[i]);
	if (devs)
		ibv_free_device_list(devs);
	if (!d->ctx) {
		nping_warn("cannot open %s: %s", pd->dev, strerror(errno));
		return -ENODEV;
	}
	snprintf(d->name, sizeof(d->name), "%s", pd->dev);
	d->port = (uint8_t)pd->port;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd || ibv_query_device(d->ctx, &da) != 0) {
		nping_warn("%s: cannot allocate a protection domain: %s", d->name, strerror(errno));
		nping_dev_close(d);
		return -ENOMEM;
	}
	d->max_qp_wr = da.max_qp_wr;
	d->max_cqe = da.max_cqe;
	return 0;
}

/* Query the opened port again: LID, MTU, GID now, or why it cannot be used. */
static int nping_dev_refresh(struct nping_dev *d, char *err, size_t errlen)
{
	struct ibv_port_attr pa;
	struct ping_port_desc desc;
	union ibv_gid gid;
	int rc;

	if ((rc = ibv_query_port(d->ctx, d->port, &pa)) != 0)
		return text_err(err, errlen, -EIO, "ibv_query_port %s/%u: %s", d->name, d->port,
				strerror(rc));
	nping_port_desc(d->name, d->port, &pa, &desc);
	if ((rc = ping_report_port_usable(&desc, err, errlen)) < 0)
		return rc;
	if ((rc = ibv_query_gid(d->ctx, d->port, 0, &gid)) != 0)
		return text_err(err, errlen, -EIO, "ibv_query_gid %s/%u: %s", d->name, d->port,
				strerror(rc));
	d->lid = pa.lid;
	d->mtu = nping_mtu_bytes(pa.active_mtu);
	d->mtu_enum = pa.active_mtu;
	memcpy(d->gid, gid.raw, sizeof(d->gid));
	return 0;
}

/* ---- Verbs: one session's QP ---------------------------------------------- */

static void nping_qp_destroy(struct nping_qp *q)
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

static int nping_post_recv(struct nping_qp *q, unsigned slot, char *err, size_t errlen)
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
static int nping_qp_open(struct nping_dev *d, struct nping_qp *q, int server,
			 struct ping_info *local, char *err, size_t errlen)
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
		if (nping_post_recv(q, i, err, errlen) < 0)
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
static int nping_qp_connect(struct nping_qp *q, const struct ping_info *r, char *err, size_t errlen)
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
static int nping_post_send(struct nping_qp *q, unsigned slot, uint32_t len, int rdma_write,
			   char *err, size_t errlen)
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

static void nping_wc_error(const struct ibv_wc *wc, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s completion error: %s (vendor error 0x%x)",
		 (wc->wr_id & NPING_WRID_SEND) ? "send" : "receive", ibv_wc_status_str(wc->status),
		 wc->vendor_err);
}

/* A successful receive: its payload header. */
static int nping_wc_payload(const struct nping_qp *q, const struct ibv_wc *wc,
			    enum ping_payload_kind *kind, uint32_t *seq, uint8_t **data,
			    uint32_t *len)
{
	uint8_t *slot = q->buf + (size_t)wc->wr_id * q->recv_slot;
	uint32_t skip = q->mode == PING_MODE_UD ? PING_PROTO_UD_GRH : 0;

	if (wc->byte_len < skip)
		return -EBADMSG;
	*data = slot + skip;
	*len = wc->byte_len - skip;
	return ping_proto_payload_get(*data, *len, kind, seq);
}

/* ---- Client driver ---------------------------------------------------------- */

struct nping_client {
	struct nping_dev *dev;
	const struct ping_opts *opts;
	struct nping_qp qp;
	int fd;
	struct ping_proto_linebuf lb;
	struct ping_peer_event pending; /* set by an op, fed after it returns */
	int has_pending;
	char what[320];
	unsigned chan_timeout_ms;
};

static void nping_client_post(struct nping_client *c, enum ping_peer_ev_type type, const char *what)
{
	memset(&c->pending, 0, sizeof(c->pending));
	c->pending.type = type;
	if (what) {
		snprintf(c->what, sizeof(c->what), "%s", what);
		c->pending.what = c->what;
	}
	c->has_pending = 1;
}

static int nping_client_connect(struct ping_peer *p, char *err, size_t errlen)
{
	struct nping_client *c = p->ctx;
	int rc = ping_chan_connect(p->target.host, p->target.port, (int)c->chan_timeout_ms, &c->fd,
				   err, errlen);

	if (rc < 0)
		return rc;
	ping_proto_linebuf_init(&c->lb);
	nping_client_post(c, PING_PEER_EV_CONNECTED, NULL);
	return 0;
}

static int nping_client_send_line(struct ping_peer *p, const char *line, char *err, size_t errlen)
{
	struct nping_client *c = p->ctx;

	if (c->opts->verbose > 1)
		fprintf(stderr, "%s <- %s\n", p->result.name, line);
	return ping_chan_send_line(c->fd, line, (int)c->chan_timeout_ms, err, errlen);
}

static int nping_client_qp_open(struct ping_peer *p, struct ping_info *local, char *err,
				size_t errlen)
{
	struct nping_client *c = p->ctx;

	return nping_qp_open(c->dev, &c->qp, 0, local, err, errlen);
}

static int nping_client_qp_connect(struct ping_peer *p, const struct ping_info *remote, char *err,
				   size_t errlen)
{
	struct nping_client *c = p->ctx;

	if (c->opts->verbose)
		fprintf(stderr,
			"%s: local lid %u qpn 0x%06x psn 0x%06x, remote lid %u qpn 0x%06x psn "
			"0x%06x mtu %u\n",
			p->result.name, p->local.lid, p->local.qpn, p->local.psn, remote->lid,
			remote->qpn, remote->psn, remote->mtu);
	return nping_qp_connect(&c->qp, remote, err, errlen);
}

static int nping_client_send_ping(struct ping_peer *p, uint32_t seq, char *err, size_t errlen)
{
	struct nping_client *c = p->ctx;

	ping_proto_payload_put(c->qp.send_buf, PING_PAYLOAD_PING, seq);
	return nping_post_send(&c->qp, 0, c->opts->ping_size, 0, err, errlen);
}

/* Reap send completions of the stream; 0, or -EIO with what set. */
static int nping_client_bw_reap(struct nping_client *c, uint64_t *done, char *what, size_t cap)
{
	struct ibv_wc wc[NPING_POLL_BATCH];
	int n = ibv_poll_cq(c->qp.cq, NPING_POLL_BATCH, wc);

	if (n < 0) {
		snprintf(what, cap, "bandwidth test: ibv_poll_cq failed");
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			char e[200];
			nping_wc_error(&wc[i], e, sizeof(e));
			snprintf(what, cap, "bandwidth test: %s", e);
			return -EIO;
		}
		if (wc[i].wr_id & NPING_WRID_SEND) {
			c->qp.sq_out--;
			(*done)++;
		} else {
			char err[256];
			nping_post_recv(&c->qp, (unsigned)wc[i].wr_id, err,
					sizeof(err)); /* a late pong */
		}
	}
	return 0;
}

static void nping_client_quiesce(struct nping_client *c);

/* Run the whole stream here; BW_DONE or ERROR is posted for the machine. */
static int nping_client_start_bw(struct ping_peer *p, uint32_t size, unsigned count, char *err,
				 size_t errlen)
{
	struct nping_client *c = p->ctx;
	uint64_t posted = 0, done = 0, t0, deadline;
	char what[256];
	int rdma = c->qp.mode == PING_MODE_RC;

	nping_client_quiesce(c);
	ping_proto_payload_put(c->qp.send_buf, PING_PAYLOAD_BW, 0);
	t0 = nping_now();
	deadline = t0 + PING_PEER_BW_TIMEOUT_MS * 1000000ULL;
	while (done < count) {
		while (posted < count && posted - done < NPING_BW_WINDOW) {
			if (nping_post_send(&c->qp, 0, size, rdma, err, errlen) < 0)
				return -EIO;
			posted++;
		}
		if (nping_client_bw_reap(c, &done, what, sizeof(what)) < 0) {
			nping_client_post(c, PING_PEER_EV_ERROR, what);
			return 0;
		}
		if (nping_stop || nping_now() > deadline) {
			nping_client_post(c, PING_PEER_EV_ERROR,
					  nping_stop ? "interrupted" : "bandwidth test timed out");
			return 0;
		}
	}
	nping_client_post(c, PING_PEER_EV_BW_DONE, NULL);
	c->pending.ns = nping_now() - t0;
	c->pending.bytes = (uint64_t)size * count;
	c->pending.msgs = count;
	return 0;
}

static void nping_client_close(struct ping_peer *p)
{
	struct nping_client *c = p->ctx;

	nping_qp_destroy(&c->qp);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static void nping_client_trace(struct ping_peer *p, enum ping_peer_state from,
			       enum ping_peer_state to)
{
	struct nping_client *c = p->ctx;

	if (c->opts->verbose)
		fprintf(stderr, "%s: %s -> %s\n", p->result.name, ping_peer_state_name(from),
			ping_peer_state_name(to));
}

static const struct ping_peer_ops nping_client_ops = {
    .connect = nping_client_connect,
    .send_line = nping_client_send_line,
    .qp_open = nping_client_qp_open,
    .qp_connect = nping_client_qp_connect,
    .send_ping = nping_client_send_ping,
    .start_bw = nping_client_start_bw,
    .close = nping_client_close,
    .trace = nping_client_trace,
};

static void nping_client_feed(struct ping_peer *p, struct ping_peer_event *ev)
{
	ev->now = nping_now();
	ping_peer_event(p, ev);
}

static void nping_client_feed_type(struct ping_peer *p, enum ping_peer_ev_type type,
				   const char *what)
{
	struct ping_peer_event ev = {.type = type, .what = what};

	nping_client_feed(p, &ev);
}

/* One completion seen by the client: its bookkeeping (send queue, receive
 * re-post) is done at once; what it means for the machine is returned in
 * ev (type PONG or ERROR), or 0 when it means nothing. */
static int nping_client_wc(struct nping_client *c, const struct ibv_wc *wc,
			   struct ping_peer_event *ev, char *what, size_t cap)
{
	enum ping_payload_kind kind;
	uint8_t *data;
	uint32_t len;
	char err[256];
	int pong;

	memset(ev, 0, sizeof(*ev));
	if (wc->status != IBV_WC_SUCCESS) {
		nping_wc_error(wc, what, cap);
		ev->type = PING_PEER_EV_ERROR;
		return 1;
	}
	if (wc->wr_id & NPING_WRID_SEND) {
		c->qp.sq_out--;
		return 0;
	}
	pong = nping_wc_payload(&c->qp, wc, &kind, &ev->seq, &data, &len) == 0 &&
	       kind == PING_PAYLOAD_PONG;
	if (nping_post_recv(&c->qp, (unsigned)wc->wr_id, err, sizeof(err)) < 0) {
		snprintf(what, cap, "%s", err);
		ev->type = PING_PEER_EV_ERROR;
		return 1;
	}
	ev->type = PING_PEER_EV_PONG;
	return pong;
}

/* Busy-poll the CQ once.  Every completion is accounted for first (feeding
 * may end the phase, or the peer and its QP), then the pongs and errors are
 * fed in order while the peer is still pinging. */
static void nping_client_poll_pongs(struct nping_client *c, struct ping_peer *p)
{
	struct ibv_wc wc[NPING_POLL_BATCH];
	struct ping_peer_event ev[NPING_POLL_BATCH];
	char what[NPING_POLL_BATCH][256];
	int n = ibv_poll_cq(c->qp.cq, NPING_POLL_BATCH, wc), n_ev = 0;

	if (n < 0) {
		nping_client_feed_type(p, PING_PEER_EV_ERROR, "ibv_poll_cq failed");
		return;
	}
	for (int i = 0; i < n; i++) {
		if (nping_client_wc(c, &wc[i], &ev[n_ev], what[n_ev], sizeof(what[n_ev]))) {
			if (ev[n_ev].type == PING_PEER_EV_ERROR)
				ev[n_ev].what = what[n_ev];
			n_ev++;
		}
	}
	for (int i = 0; i < n_ev && p->state == PING_PEER_PINGING; i++)
		nping_client_feed(p, &ev[i]);
}

/* Before the stream: wait (briefly) for the last ping's send completion,
 * so the stream's count starts from an empty send queue. */
static void nping_client_quiesce(struct nping_client *c)
{
	uint64_t until = nping_now() + 100 * 1000000ULL;
	struct ibv_wc wc[NPING_POLL_BATCH];
	struct ping_peer_event ev;
	char what[256];

	while (c->qp.sq_out > 0 && nping_now() < until) {
		int n = ibv_poll_cq(c->qp.cq, NPING_POLL_BATCH, wc);
		for (int i = 0; i < n; i++)
			nping_client_wc(c, &wc[i], &ev, what, sizeof(what));
	}
}

/* Feed the lines already buffered; 1 if any was fed. */
static int nping_client_lines(struct nping_client *c, struct ping_peer *p)
{
	char line[PING_PROTO_LINE_MAX];
	int rc, fed = 0;

	while (!ping_peer_finished(p) &&
	       (rc = ping_proto_linebuf_take(&c->lb, line, sizeof(line))) != 0) {
		struct ping_peer_event ev = {.type = PING_PEER_EV_LINE, .line = line};
		if (rc < 0) {
			nping_client_feed_type(p, PING_PEER_EV_ERROR,
					       rc == -EMSGSIZE
						   ? "side channel: line too long"
						   : "side channel: NUL byte in a line");
			return 1;
		}
		if (c->opts->verbose > 1)
			fprintf(stderr, "%s -> %s\n", p->result.name, line);
		nping_client_feed(p, &ev);
		fed = 1;
	}
	return fed;
}

/* Wait for the side channel (or the deadline) and feed what comes. */
static void nping_client_wait_line(struct nping_client *c, struct ping_peer *p)
{
	char err[256];
	int rc;

	if (nping_client_lines(c, p))
		return;
	rc = ping_chan_wait(c->fd, nping_slice_ms(p->deadline, nping_now()));
	if (rc <= 0)
		return; /* timeout or signal: the loop checks both */
	rc = ping_chan_read(c->fd, &c->lb, err, sizeof(err));
	if (rc == 0)
		nping_client_feed_type(p, PING_PEER_EV_CLOSED, NULL);
	else if (rc < 0 && rc != -EAGAIN)
		nping_client_feed_type(p, PING_PEER_EV_ERROR, err);
	else
		nping_client_lines(c, p);
}

static void nping_client_step(struct nping_client *c, struct ping_peer *p)
{
	if (c->has_pending) {
		struct ping_peer_event ev = c->pending;
		c->has_pending = 0;
		nping_client_feed(p, &ev);
	} else if (nping_stop) {
		nping_client_feed_type(p, PING_PEER_EV_ERROR, "interrupted");
	} else if (p->deadline && nping_now() >= p->deadline) {
		nping_client_feed_type(p, PING_PEER_EV_TIMEOUT, NULL);
	} else if (p->state == PING_PEER_PINGING) {
		nping_client_poll_pongs(c, p);
	} else if (c->fd >= 0) {
		nping_client_wait_line(c, p);
	} else {
		nping_client_feed_type(p, PING_PEER_EV_ERROR,
				       "internal error: nothing to wait for");
	}
}

static void nping_client_run_peer(struct nping_client *c, struct ping_peer *p)
{
	struct ping_peer_event start = {.type = PING_PEER_EV_START};

	c->fd = -1;
	c->has_pending = 0;
	nping_client_feed(p, &start);
	while (!ping_peer_finished(p))
		nping_client_step(c, p);
}

static void nping_client_header(const struct nping_dev *d, const struct ping_opts *o,
				const struct ping_peer_cfg *cfg, size_t n)
{
	char t[16];

	printf(
	    "nanosm-ping: %s port %u lid %u -> %zu host%s: %s ping-pong %u x %u bytes, timeout %s",
	    d->name, d->port, d->lid, n, n == 1 ? "" : "s", o->mode == PING_MODE_RC ? "RC" : "UD",
	    o->iters, o->ping_size, ping_report_duration(o->timeout_ms, t, sizeof(t)));
	if (o->bw)
		printf("; bw %s %u x %u bytes", o->mode == PING_MODE_RC ? "RC write" : "UD send",
		       o->bw_count, ping_peer_bw_size(cfg));
	printf("\n");
	fflush(stdout);
}

static void nping_client_cfg(const struct ping_opts *o, const struct nping_dev *d,
			     const uint16_t *want, size_t n_want, struct ping_peer_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = o->mode;
	cfg->iters = o->iters;
	cfg->ping_size = o->ping_size;
	cfg->bw = o->bw;
	cfg->bw_size = o->bw_size;
	cfg->bw_count = o->bw_count;
	cfg->timeout_ms = o->timeout_ms;
	cfg->chan_timeout_ms = PING_PEER_CHAN_TIMEOUT_MS;
	cfg->local_mtu = d->mtu;
	cfg->want_lids = want;
	cfg->n_want = n_want;
}

static void nping_print_result(const struct ping_result *r, int verbose)
{
	char line[PING_REPORT_LINE_MAX];

	if (r->verdict == PING_VERDICT_SKIPPED && !verbose)
		return;
	if (ping_report_format(r, line, sizeof(line)) < 0)
		snprintf(line, sizeof(line), "%s %s: (verdict too long to print)",
			 r->verdict == PING_VERDICT_OK ? "OK" : "FAIL", r->name);
	printf("%s\n", line);
	fflush(stdout);
}

/* LID targets no server reported; prints them.  Returns how many. */
static size_t nping_client_missing(const struct ping_opts *o, const struct ping_result *res,
				   size_t n)
{
	char line[PING_REPORT_LINE_MAX];
	size_t missing = 0;

	for (size_t i = 0; i < o->n_targets; i++) {
		uint16_t lid = o->targets[i].lid;
		int found = 0;
		for (size_t j = 0; lid && j < n && !found; j++)
			found = res[j].lid == lid && res[j].verdict != PING_VERDICT_SKIPPED;
		if (!lid || found)
			continue;
		ping_report_lid_missing(lid, o->hosts_file ? o->hosts_file : o->all_file, res, n,
					line, sizeof(line));
		printf("%s\n", line);
		missing++;
	}
	return missing;
}

/* A resolve-only host whose side channel failed before it told its LID. */
static int nping_unresolved(const struct ping_plan_item *item, const struct ping_result *r)
{
	return item->resolve_only && r->verdict == PING_VERDICT_FAIL && !r->lid;
}

static int nping_client_run(struct nping_dev *d, const struct ping_opts *o,
			    const struct ping_plan_item *plan, size_t n)
{
	struct nping_client c = {
	    .dev = d, .opts = o, .fd = -1, .chan_timeout_ms = PING_PEER_CHAN_TIMEOUT_MS};
	struct ping_result *res = calloc(n + 1, sizeof(*res));
	uint16_t *want = calloc(o->n_targets + 1, sizeof(*want));
	struct ping_peer_cfg cfg;
	size_t n_want = 0, missing, fails = 0;
	char line[PING_REPORT_LINE_MAX];

	if (!res || !want) {
		free(res);
		free(want);
		nping_warn("out of memory");
		return NPING_EXIT_SETUP;
	}
	for (size_t i = 0; i < o->n_targets; i++)
		if (o->targets[i].lid)
			want[n_want++] = o->targets[i].lid;
	nping_client_cfg(o, d, want, n_want, &cfg);
	nping_client_header(d, o, &cfg, n);
	for (size_t i = 0; i < n && !nping_stop; i++) {
		struct ping_peer p;
		char name[PING_REPORT_NAME_MAX];

		ping_opts_target_name(&plan[i].target, o->tcp_port, name, sizeof(name));
		if (ping_peer_init(&p, &cfg, &plan[i].target, name, plan[i].resolve_only,
				   &nping_client_ops, &c) < 0) {
			nping_warn("out of memory");
			break;
		}
		nping_client_run_peer(&c, &p);
		res[i] = p.result;
		ping_peer_fini(&p);
		if (!nping_unresolved(&plan[i], &res[i]) || o->verbose)
			nping_print_result(&res[i], o->verbose);
	}
	missing = nping_client_missing(o, res, n);
	/* a host asked only for its LID that never answered is named in the
	 * lines above, not counted as a path */
	for (size_t i = 0; i < n; i++) {
		if (nping_unresolved(&plan[i], &res[i]))
			res[i].verdict = PING_VERDICT_SKIPPED;
		fails += res[i].verdict == PING_VERDICT_FAIL;
	}
	ping_report_summary(res, n, missing, line, sizeof(line));
	printf("nanosm-ping: %s%s\n", line, nping_stop ? " (interrupted)" : "");
	free(res);
	free(want);
	return fails || missing || nping_stop ? NPING_EXIT_FAIL : NPING_EXIT_OK;
}

/* ---- Server driver ---------------------------------------------------------- */

struct nping_server {
	struct nping_dev *dev;
	const struct ping_opts *opts;
	struct nping_qp qp;
	int fd;
	struct ping_proto_linebuf lb;
	char what[256];
};

static int nping_server_port_check(struct ping_serve *s, uint16_t *lid, uint8_t gid[16],
				   uint16_t *mtu, char *err, size_t errlen)
{
	struct nping_server *sv = s->ctx;

	if (nping_dev_refresh(sv->dev, err, errlen) < 0)
		return -ENETDOWN;
	*lid = sv->dev->lid;
	memcpy(gid, sv->dev->gid, 16);
	*mtu = sv->dev->mtu;
	return 0;
}

static int nping_server_send_line(struct ping_serve *s, const char *line, char *err, size_t errlen)
{
	struct nping_server *sv = s->ctx;

	if (sv->opts->verbose > 1)
		fprintf(stderr, "%s <- %s\n", s->client_name, line);
	return ping_chan_send_line(sv->fd, line, PING_PEER_CHAN_TIMEOUT_MS, err, errlen);
}

static int nping_server_qp_open(struct ping_serve *s, const struct ping_info *client,
				struct ping_info *local, char *err, size_t errlen)
{
	struct nping_server *sv = s->ctx;

	if (nping_qp_open(sv->dev, &sv->qp, 1, local, err, errlen) < 0)
		return -EIO;
	if (nping_qp_connect(&sv->qp, client, err, errlen) < 0) {
		nping_qp_destroy(&sv->qp);
		return -EIO;
	}
	return 0;
}

static void nping_server_drain(struct nping_server *sv);

/* Count what is still in the CQ too: the last UD messages may have landed
 * after the echo loop's last poll but before DONE was read. */
static uint64_t nping_server_rx_count(struct ping_serve *s)
{
	struct nping_server *sv = s->ctx;

	nping_server_drain(sv);
	return sv->qp.rx_bw;
}

static void nping_server_close(struct ping_serve *s)
{
	struct nping_server *sv = s->ctx;

	nping_qp_destroy(&sv->qp);
	if (sv->fd >= 0)
		close(sv->fd);
	sv->fd = -1;
}

static const struct ping_serve_ops nping_server_ops = {
    .port_check = nping_server_port_check,
    .send_line = nping_server_send_line,
    .qp_open = nping_server_qp_open,
    .rx_count = nping_server_rx_count,
    .close = nping_server_close,
};

static void nping_server_feed(struct ping_serve *s, enum ping_serve_ev_type type, const char *line,
			      const char *what)
{
	struct ping_serve_event ev = {.type = type, .now = nping_now(), .line = line, .what = what};

	ping_serve_event(s, &ev);
}

/* Answer a ping with a pong of the same length from a send slot. */
static int nping_server_pong(struct nping_server *sv, const uint8_t *data, uint32_t len,
			     uint32_t seq, char *err, size_t errlen)
{
	struct nping_qp *q = &sv->qp;
	unsigned slot = q->send_next++ % q->n_send;
	uint8_t *out = q->send_buf + (size_t)slot * q->size;

	if (len > q->size)
		len = q->size;
	memcpy(out, data, len);
	ping_proto_payload_put(out, PING_PAYLOAD_PONG, seq);
	return nping_post_send(q, slot, len, 0, err, errlen);
}

static int nping_server_wc(struct nping_server *sv, const struct ibv_wc *wc, char *err,
			   size_t errlen)
{
	enum ping_payload_kind kind;
	uint32_t seq, len;
	uint8_t *data;
	int rc = 0;

	if (wc->status != IBV_WC_SUCCESS) {
		nping_wc_error(wc, err, errlen);
		return -EIO;
	}
	if (wc->wr_id & NPING_WRID_SEND) {
		sv->qp.sq_out--;
		return 0;
	}
	if (nping_wc_payload(&sv->qp, wc, &kind, &seq, &data, &len) == 0) {
		if (kind == PING_PAYLOAD_PING)
			rc = nping_server_pong(sv, data, len, seq, err, errlen);
		else if (kind == PING_PAYLOAD_BW)
			sv->qp.rx_bw++;
	}
	if (rc == 0)
		rc = nping_post_recv(&sv->qp, (unsigned)wc->wr_id, err, errlen);
	return rc;
}

/* Poll until the CQ stays empty for a while (errors are ignored here). */
static void nping_server_drain(struct nping_server *sv)
{
	uint64_t quiet_until = nping_now() + NPING_TCP_CHECK_NS;
	struct ibv_wc wc[NPING_POLL_BATCH];
	char err[256];

	while (sv->qp.cq && nping_now() < quiet_until) {
		int n = ibv_poll_cq(sv->qp.cq, NPING_POLL_BATCH, wc);
		if (n <= 0)
			continue;
		quiet_until = nping_now() + NPING_TCP_CHECK_NS;
		for (int i = 0; i < n; i++)
			nping_server_wc(sv, &wc[i], err, sizeof(err));
	}
}

/* Echo pings for about NPING_TCP_CHECK_NS, then look at the side channel. */
static void nping_server_echo(struct nping_server *sv, struct ping_serve *s)
{
	uint64_t until = nping_now() + NPING_TCP_CHECK_NS;
	struct ibv_wc wc[NPING_POLL_BATCH];
	char err[256];

	while (nping_now() < until && !nping_stop) {
		int n = ibv_poll_cq(sv->qp.cq, NPING_POLL_BATCH, wc);
		if (n < 0) {
			nping_server_feed(s, PING_SERVE_EV_ERROR, NULL, "ibv_poll_cq failed");
			return;
		}
		for (int i = 0; i < n; i++) {
			if (nping_server_wc(sv, &wc[i], err, sizeof(err)) < 0) {
				snprintf(sv->what, sizeof(sv->what), "%s", err);
				nping_server_feed(s, PING_SERVE_EV_ERROR, NULL, sv->what);
				return;
			}
		}
	}
}

static void nping_server_lines(struct nping_server *sv, struct ping_serve *s)
{
	char line[PING_PROTO_LINE_MAX];
	int rc;

	while (!ping_serve_finished(s) &&
	       (rc = ping_proto_linebuf_take(&sv->lb, line, sizeof(line))) != 0) {
		if (rc < 0) {
			nping_server_feed(s, PING_SERVE_EV_ERROR, NULL, "side channel: bad line");
			return;
		}
		if (sv->opts->verbose > 1)
			fprintf(stderr, "%s -> %s\n", s->client_name, line);
		nping_server_feed(s, PING_SERVE_EV_LINE, line, NULL);
	}
}

/* Read the side channel (waiting up to wait_ms) and feed what came. */
static void nping_server_read(struct nping_server *sv, struct ping_serve *s, int wait_ms)
{
	char err[256];
	int rc = ping_chan_wait(sv->fd, wait_ms);

	if (rc <= 0)
		return;
	rc = ping_chan_read(sv->fd, &sv->lb, err, sizeof(err));
	if (rc == 0) {
		nping_server_feed(s, PING_SERVE_EV_CLOSED, NULL, NULL);
	} else if (rc < 0 && rc != -EAGAIN) {
		snprintf(sv->what, sizeof(sv->what), "%s", err);
		nping_server_feed(s, PING_SERVE_EV_ERROR, NULL, sv->what);
	} else {
		nping_server_lines(sv, s);
	}
}

static void nping_server_session(struct nping_server *sv, int fd, const char *name)
{
	struct ping_serve s;

	sv->fd = fd;
	ping_proto_linebuf_init(&sv->lb);
	ping_serve_init(&s, name, PING_PEER_CHAN_TIMEOUT_MS, &nping_server_ops, sv);
	nping_server_feed(&s, PING_SERVE_EV_ACCEPTED, NULL, NULL);
	while (!ping_serve_finished(&s)) {
		uint64_t now = nping_now();
		if (nping_stop)
			nping_server_feed(&s, PING_SERVE_EV_ERROR, NULL, "server stopping");
		else if (s.deadline && now >= s.deadline)
			nping_server_feed(&s, PING_SERVE_EV_TIMEOUT, NULL, NULL);
		else if (s.state == PING_SERVE_SERVING) {
			nping_server_echo(sv, &s);
			if (!ping_serve_finished(&s))
				nping_server_read(sv, &s, 0);
		} else {
			nping_server_read(sv, &s, nping_slice_ms(s.deadline, now));
		}
	}
	printf("nanosm-ping: session %s: %s: %s\n", name, ping_serve_state_name(s.state), s.reason);
	fflush(stdout);
}

static int nping_server_run(struct nping_dev *d, const struct ping_opts *o)
{
	struct nping_server sv = {.dev = d, .opts = o, .fd = -1};
	char err[256];
	char lid[24];
	uint16_t bound = 0;
	int lfd;

	if (nping_dev_refresh(d, err, sizeof(err)) < 0)
		nping_warn("warning: %s; serving anyway: clients are told until it is fixed", err);
	if (ping_chan_listen(NULL, o->tcp_port, &lfd, &bound, err, sizeof(err)) < 0) {
		nping_warn("%s", err);
		return NPING_EXIT_SETUP;
	}
	snprintf(lid, sizeof(lid), d->lid ? "lid %u" : "no LID yet", d->lid);
	printf("nanosm-ping: server on %s port %u (%s), TCP port %u, protocol %s/%d\n", d->name,
	       d->port, lid, bound, PING_PROTO_NAME, PING_PROTO_VERSION);
	fflush(stdout);
	while (!nping_stop) {
		char name[80];
		int fd, rc = ping_chan_accept(lfd, NPING_WAIT_SLICE_MS, &fd, name, sizeof(name),
					      err, sizeof(err));
		if (rc == 0)
			nping_server_session(&sv, fd, name);
		else if (rc != -ETIMEDOUT && rc != -EINTR && rc != -EAGAIN)
			nping_warn("%s", err);
	}
	close(lfd);
	return NPING_EXIT_OK;
}

/* ---- main -------------------------------------------------------------------- */

static void nping_usage(FILE *to)
{
	fprintf(
	    to,
	    "usage: nanosm-ping --server [--tcp-port N] [-g PORTGUID | -d CA [-p PORT]] [-v]\n"
	    "       nanosm-ping [options] HOST[:TCPPORT]|LID ...\n"
	    "       nanosm-ping [options] --all HOSTS_FILE\n"
	    "Ping-pong over InfiniBand (UD, or RC with --rc) to every host, after swapping\n"
	    "QP numbers over TCP with its \"nanosm-ping --server\".  One verdict line per path.\n"
	    "  -d, --ca CA         RDMA device, e.g. mlx5_0 (default: first usable IB port)\n"
	    "  -p, --port N        port number on that CA\n"
	    "  -g, --guid GUID     the local port with this port GUID\n"
	    "      --tcp-port N    TCP port of the side channel, both ends (default %d)\n"
	    "      --rc            reliable connected QPs (default: UD)\n"
	    "  -n, --iters N       round trips per path (default %d)\n"
	    "      --ping-size B   ping message size (default %d)\n"
	    "      --bw            bandwidth test after the pings (RC write / UD send stream)\n"
	    "  -s, --size B        bandwidth message size (default RC 64k, UD the path MTU)\n"
	    "      --bw-count N    bandwidth messages (default %d)\n"
	    "  -t, --timeout T     per-ping timeout: seconds or e.g. 250ms (default 1)\n"
	    "      --all FILE      test every host in FILE (one HOST[:PORT] per line)\n"
	    "      --hosts FILE    where to look for LID targets\n"
	    "  -v, --verbose       state changes (-vv: side-channel lines)\n"
	    "  -h, --help          this text;  --version  the protocol version\n"
	    "Exit status: 0 every path OK, 1 a path failed, 2 usage or local setup error.\n",
	    PING_PROTO_TCP_PORT, PING_OPTS_ITERS, PING_OPTS_PING_SIZE, PING_OPTS_BW_COUNT);
}

static int nping_read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return -errno;
	buf = malloc(NPING_HOSTS_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, NPING_HOSTS_MAX + 1, f);
	fclose(f);
	if (n > NPING_HOSTS_MAX) {
		free(buf);
		return -EFBIG;
	}
	*text = buf;
	*len = n;
	return 0;
}

/* The hosts file, if any, parsed into *file. */
static int nping_load_hosts(const struct ping_opts *o, struct ping_target **file, size_t *n)
{
	const char *path = o->all_file ? o->all_file : o->hosts_file;
	char err[256];
	char *text = NULL;
	size_t len = 0;
	int rc;

	*file = NULL;
	*n = 0;
	if (!path)
		return 0;
	if ((rc = nping_read_file(path, &text, &len)) < 0) {
		nping_warn("%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = ping_opts_parse_hosts(text, len, path, o->tcp_port, file, n, err, sizeof(err));
	free(text);
	if (rc < 0)
		nping_warn("%s", rc == -ENOMEM ? "out of memory" : err);
	return rc;
}

/* Find and open the local port, or print why not. */
static int nping_open_local(const struct ping_opts *o, struct nping_dev *d)
{
	struct ping_port_desc ports[NPING_MAX_PORTS];
	char err[256];
	size_t n = 0, idx = 0;
	int rc, list_errno;

	if (nping_list_ports(ports, &n, &list_errno) < 0)
		return -ENODEV;
	rc = ping_report_pick_port(ports, n, o->dev, o->ib_port, o->port_guid, &idx, err,
				   sizeof(err));
	if (rc < 0 && !(o->server && rc != -ENODEV && rc != -EPROTONOSUPPORT)) {
		nping_warn("%s", err);
		if (n == 0 && list_errno == ENOSYS)
			nping_warn(
			    "libibverbs: %s (no kernel RDMA support: /sys/class/infiniband_verbs "
			    "is missing; load the HCA driver, e.g. modprobe mlx5_ib)",
			    strerror(list_errno));
		return rc;
	}
	if (rc < 0) /* a server may start before the SM: take the port it named */
		for (idx = 0; idx < n; idx++)
			if ((!o->dev[0] || strcmp(ports[idx].dev, o->dev) == 0) &&
			    (!o->ib_port || ports[idx].port == o->ib_port) &&
			    (!o->port_guid || ports[idx].guid == o->port_guid) &&
			    ports[idx].link != PING_LINK_ETHERNET)
				break;
	if (idx >= n || nping_dev_open(d, &ports[idx]) < 0)
		return -ENODEV;
	if (!o->server && nping_dev_refresh(d, err, sizeof(err)) < 0) {
		nping_warn("%s", err);
		nping_dev_close(d);
		return -ENETDOWN;
	}
	return 0;
}

static int nping_client_main(const struct ping_opts *o)
{
	struct ping_target *file;
	struct ping_plan_item *plan = NULL;
	struct nping_dev d;
	size_t n_file, n_plan = 0;
	int rc;

	if (nping_load_hosts(o, &file, &n_file) < 0)
		return NPING_EXIT_SETUP;
	if (ping_opts_plan(o, file, n_file, &plan, &n_plan) < 0) {
		free(file);
		nping_warn("out of memory");
		return NPING_EXIT_SETUP;
	}
	free(file);
	if (nping_open_local(o, &d) < 0) {
		free(plan);
		return NPING_EXIT_SETUP;
	}
	rc = nping_client_run(&d, o, plan, n_plan);
	nping_dev_close(&d);
	free(plan);
	return rc;
}

int main(int argc, char **argv)
{
	struct ping_opts o;
	char err[256];
	struct nping_dev d;
	int rc;

	rc = ping_opts_parse(&o, argc, argv, err, sizeof(err));
	if (rc < 0) {
		nping_warn("%s", rc == -ENOMEM ? "out of memory" : err);
		return NPING_EXIT_SETUP;
	}
	if (o.help || o.version) {
		if (o.help)
			nping_usage(stdout);
		else
			printf("nanosm-ping (nanosm), side-channel protocol %s/%d\n",
			       PING_PROTO_NAME, PING_PROTO_VERSION);
		ping_opts_fini(&o);
		return NPING_EXIT_OK;
	}
	nping_signals();
	if (o.server) {
		rc = nping_open_local(&o, &d) < 0 ? NPING_EXIT_SETUP : nping_server_run(&d, &o);
		if (rc != NPING_EXIT_SETUP)
			nping_dev_close(&d);
	} else {
		rc = nping_client_main(&o);
	}
	ping_opts_fini(&o);
	return rc;
}
