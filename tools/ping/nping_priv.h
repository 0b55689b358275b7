/*
 * tools/ping/nping_priv.h - what the files of the verbs client share
 * (internal to nanosm-ping; the pure ping_*.c never include it): exit
 * statuses and the send-side limits, the stop flag, the clock and
 * warnings (nping.c), the opened port (nping_dev.c), one session's QP
 * (nping_qp.c), and the two drivers (nping_client.c, nping_server.c).
 *
 * DOC: functions taking (char *err, size_t errlen) return 0 or a negative
 * errno with err filled; nping_dev_list_ports and nping_dev_open print
 * their own warning instead.  Nothing here blocks but the drivers' waits,
 * which last at most NPING_WAIT_SLICE_MS so nping_stop is seen.
 */
#ifndef NANOSM_TOOLS_PING_NPING_PRIV_H
#define NANOSM_TOOLS_PING_NPING_PRIV_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "tools/ping/ping_opts.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_report.h"

#define NPING_EXIT_OK 0
#define NPING_EXIT_FAIL 1  /* a path failed */
#define NPING_EXIT_SETUP 2 /* usage, no device, port not usable */
#define NPING_BW_WINDOW 64 /* bandwidth: writes/sends in flight */
#define NPING_SQ_DEPTH (NPING_BW_WINDOW + 8)
#define NPING_POLL_BATCH 16
#define NPING_WAIT_SLICE_MS 200 /* longest sleep, so signals are seen */
#define NPING_WRID_SEND (1ULL << 63)
#define NPING_MAX_PORTS 64

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

/* nping.c: set by SIGINT and SIGTERM once nping_signals has run. */
extern volatile sig_atomic_t nping_stop;
void nping_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* CLOCK_MONOTONIC in ns. */
uint64_t nping_now(void);
void nping_signals(void);
/* Milliseconds until deadline (ns; 0: none), capped at NPING_WAIT_SLICE_MS. */
int nping_slice_ms(uint64_t deadline, uint64_t now);

/* nping_dev.c */
/* Every port of every device (*list_errno: why libibverbs listed none), or
 * -EACCES with a warning printed. */
int nping_dev_list_ports(struct ping_port_desc *ports, size_t *n, int *list_errno);
/* Open pd's device and a protection domain; -ENODEV or -ENOMEM warned. */
int nping_dev_open(struct nping_dev *d, const struct ping_port_desc *pd);
void nping_dev_close(struct nping_dev *d);
/* Query the opened port again: LID, MTU, GID now, or why it cannot be used. */
int nping_dev_refresh(struct nping_dev *d, char *err, size_t errlen);

/* nping_qp.c */
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

/* nping_client.c: every path of plan (n), verdicts on stdout; an exit status. */
int nping_client_run(struct nping_dev *d, const struct ping_opts *o,
		     const struct ping_plan_item *plan, size_t n);
/* nping_server.c: serve sessions until stopped; an exit status. */
int nping_server_run(struct nping_dev *d, const struct ping_opts *o);

#endif
