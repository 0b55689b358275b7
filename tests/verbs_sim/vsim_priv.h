/*
 * vsim_priv.h - the simulated verbs layer's objects, shared by its two
 * files (vsim_verbs.c: devices, contexts and object life; vsim_wire.c:
 * posting, packets between processes, completions).  Included only here.
 */
#ifndef NANOSM_TESTS_VERBS_SIM_VSIM_PRIV_H
#define NANOSM_TESTS_VERBS_SIM_VSIM_PRIV_H

#include <infiniband/verbs.h>
#include <stdint.h>
#include <sys/un.h>

#include "tests/verbs_sim/vsim_smi.h"

#define VSIM_TAG "nanosm-verbs-sim"
#define VSIM_FABRIC_AGE_MS 300 /* a snapshot older than this is read again */
#define VSIM_MAX_RECV 4096     /* posted receives per QP */
#define VSIM_MAX_MSG (1u << 20)

struct vsim_mr {
	struct ibv_mr mr;
	int access;
	struct vsim_mr *next;
};

struct vsim_cq {
	struct ibv_cq cq;
	struct ibv_wc *ring;
	int cap, head, n;
	int overflowed;
};

struct vsim_ah {
	struct ibv_ah ah;
	uint16_t dlid;
};

struct vsim_recv {
	uint64_t wr_id;
	uintptr_t addr;
	uint32_t length;
};

/* An RC send waiting for its acknowledgement.  ACKs are cumulative, as on
 * the wire: an ACK of seq N ends every send up to N. */
struct vsim_pending {
	uint64_t wr_id;
	int signaled;
	enum ibv_wc_opcode opcode;
	uint32_t len;
	uint64_t seq;
	int sent;	 /* on its way (or lost on it): waiting for the ACK */
	unsigned tries;	 /* transmissions that timed out (IBA: retry_cnt) */
	uint64_t due_ms; /* !sent: when to (re)send; sent: when this try times out */
	void *pkt;
	size_t pkt_len;
	struct vsim_pending *next;
};

struct vsim_qp {
	struct ibv_qp qp;
	int fd; /* bound UNIX datagram socket: where this QP receives */
	uint8_t port;
	uint16_t pkey_index;
	uint32_t qkey;
	int access;
	/* RC: the connected peer */
	uint16_t dlid;
	uint32_t dest_qpn;
	enum ibv_mtu path_mtu;
	uint8_t timeout, retry_cnt;
	uint64_t seq;	 /* RC: the last sequence number sent */
	uint64_t rx_seq; /* RC: the last one received in order */
	struct vsim_recv *rq;
	unsigned rq_head, rq_n, rq_cap;
	struct vsim_pending *pending, **pending_tail;
	struct vsim_qp *next;
};

/* The process's one simulated device (vsim_verbs.c owns it). */
struct vsim_state {
	struct vsim_smi *smi;
	struct ibv_device dev;
	struct smp_node_info ni;
	struct vsim_port_facts facts; /* of the umad port, read at facts_ms */
	uint64_t facts_ms;
	uint8_t umad_port;
	char dir[80]; /* the sockets' directory */
	struct vsim_mr *mrs;
	struct vsim_qp *qps;
	uint32_t next_qpn, next_key;
};

extern struct vsim_state vsim;

/* vsim_verbs.c */
const struct vsim_port_facts *vsim_verbs_facts(void);
void vsim_verbs_sock_path(struct sockaddr_un *a, uint64_t guid, uint32_t qpn);
struct vsim_mr *vsim_verbs_mr_by_rkey(uint32_t rkey);
/* vsim_wire.c */
int vsim_wire_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int vsim_wire_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int vsim_wire_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
void vsim_wire_qp_flush(struct vsim_qp *q);

#endif
