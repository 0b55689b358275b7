/*
 * vsim_verbs.c - libibverbs as nanosm-ping uses it, simulated under ibsim
 * (LD_PRELOADed next to umad2sim; a test double, never installed): the
 * device list, the context and its ops table, queries answered from the
 * simulator through umad (vsim_smi.c), PD, MR, CQ, AH and QP life and
 * state transitions.  Posting and delivery live in vsim_wire.c.  Verbs
 * nanosm-ping does not call fail with ENOSYS and say so on stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/verbs_sim/vsim_priv.h"

/* the header's inline wrappers end in these exported entry points */
#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr

struct vsim_state vsim;

static void vsim_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void vsim_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, VSIM_TAG ": ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int vsim_enosys(const char *verb)
{
	vsim_say("%s is not simulated (nanosm-ping does not use it): Function not implemented",
		 verb);
	errno = ENOSYS;
	return ENOSYS;
}

/* ---- The device ------------------------------------------------------------ */

/* Sockets live in $TMPDIR/nanosm-verbs-sim.<IBSIM_SOCKNAME>/, one per QP. */
static int vsim_dir_init(void)
{
	const char *tmp = getenv("TMPDIR"), *sock = getenv("IBSIM_SOCKNAME");
	char name[40];
	size_t i;

	snprintf(name, sizeof(name), "%s", sock && *sock ? sock : "default");
	for (i = 0; name[i]; i++)
		if (name[i] == '/')
			name[i] = '_';
	snprintf(vsim.dir, sizeof(vsim.dir), "%s/nanosm-verbs-sim.%s", tmp && *tmp ? tmp : "/tmp",
		 name);
	if (mkdir(vsim.dir, 0700) < 0 && errno != EEXIST) {
		vsim_say("cannot create %s: %s", vsim.dir, strerror(errno));
		return -errno;
	}
	return 0;
}

static int vsim_open_smi(void)
{
	char err[256];

	if (vsim.smi)
		return 0;
	vsim.smi = vsim_smi_open(err, sizeof(err));
	if (!vsim.smi) {
		vsim_say("cannot reach the simulated CA through umad (is umad2sim preloaded, "
			 "IBSIM_SOCKNAME set and ibsim running?): %s",
			 err);
		return -ENODEV;
	}
	if (vsim_smi_node(vsim.smi, &vsim.ni) < 0) {
		vsim_say("the simulated CA does not answer NodeInfo");
		vsim_smi_close(vsim.smi);
		vsim.smi = NULL;
		return -EIO;
	}
	vsim.umad_port = vsim.ni.local_port;
	memset(&vsim.dev, 0, sizeof(vsim.dev));
	vsim.dev.node_type = IBV_NODE_CA;
	vsim.dev.transport_type = IBV_TRANSPORT_IB;
	snprintf(vsim.dev.name, sizeof(vsim.dev.name), "%s", vsim_smi_ca(vsim.smi));
	snprintf(vsim.dev.dev_name, sizeof(vsim.dev.dev_name), "uverbs-sim");
	vsim.next_qpn = ((uint32_t)getpid() & 0xfff) << 12;
	vsim.next_key = 0x100;
	return vsim_dir_init();
}

const struct vsim_port_facts *vsim_verbs_facts(void)
{
	uint64_t now = vsim_smi_now_ms();

	if (!vsim.facts_ms || now - vsim.facts_ms > VSIM_FABRIC_AGE_MS) {
		if (vsim_smi_port(vsim.smi, vsim.umad_port, &vsim.facts) == 0)
			vsim.facts_ms = now;
	}
	return &vsim.facts;
}

void vsim_verbs_sock_path(struct sockaddr_un *a, uint64_t guid, uint32_t qpn)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), "%s/%016" PRIx64 ".%06x", vsim.dir, guid, qpn);
}

struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list;

	if (num)
		*num = 0;
	if (vsim_open_smi() < 0) {
		errno = ENODEV;
		return NULL;
	}
	list = calloc(2, sizeof(*list));
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = &vsim.dev;
	if (num)
		*num = 1;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

static int vsim_req_notify_cq(struct ibv_cq *cq, int solicited)
{
	(void)cq, (void)solicited;
	return vsim_enosys("ibv_req_notify_cq");
}

static struct ibv_mw *vsim_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type t)
{
	(void)pd, (void)t;
	vsim_enosys("ibv_alloc_mw");
	return NULL;
}

static int vsim_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq;
	*bad = wr;
	return vsim_enosys("ibv_post_srq_recv");
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	struct ibv_context *c;

	if (dev != &vsim.dev || !vsim.smi) {
		errno = ENODEV;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	c->device = dev;
	c->cmd_fd = -1;
	c->async_fd = -1;
	c->num_comp_vectors = 1;
	c->ops.poll_cq = vsim_wire_poll_cq;
	c->ops.post_send = vsim_wire_post_send;
	c->ops.post_recv = vsim_wire_post_recv;
	c->ops.req_notify_cq = vsim_req_notify_cq;
	c->ops.alloc_mw = vsim_alloc_mw;
	c->ops.post_srq_recv = vsim_post_srq_recv;
	pthread_mutex_init(&c->mutex, NULL);
	return c;
}

int ibv_close_device(struct ibv_context *c)
{
	pthread_mutex_destroy(&c->mutex);
	free(c);
	return 0;
}

int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	(void)c;
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "nanosm-verbs-sim");
	a->node_guid = htobe64(vsim.ni.node_guid);
	a->sys_image_guid = htobe64(vsim.ni.system_guid);
	a->vendor_id = vsim.ni.vendor_id;
	a->vendor_part_id = vsim.ni.device_id;
	a->max_mr_size = 1ull << 32;
	a->max_qp = 1024;
	a->max_qp_wr = VSIM_MAX_RECV;
	a->max_sge = 4;
	a->max_cq = 1024;
	a->max_cqe = 65536;
	a->max_mr = 1024;
	a->max_pd = 64;
	a->max_ah = 1024;
	a->max_pkeys = VSIM_PKEYS;
	a->phys_port_cnt = vsim.ni.num_ports;
	return 0;
}

int ibv_query_port(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *out)
{
	struct ibv_port_attr *a = (struct ibv_port_attr *)out;
	struct vsim_port_facts f;
	int rc;

	(void)c;
	if (port < 1 || port > vsim.ni.num_ports)
		return EINVAL;
	if ((rc = vsim_smi_port(vsim.smi, port, &f)) < 0)
		return -rc;
	a->state = (enum ibv_port_state)f.pi.state;
	a->max_mtu = (enum ibv_mtu)f.pi.mtu_cap;
	a->active_mtu = (enum ibv_mtu)(f.pi.neighbor_mtu ? f.pi.neighbor_mtu : f.pi.mtu_cap);
	a->gid_tbl_len = 1;
	a->port_cap_flags = f.pi.cap_mask;
	a->max_msg_sz = VSIM_MAX_MSG;
	a->pkey_tbl_len = VSIM_PKEYS;
	a->lid = f.pi.lid;
	a->sm_lid = f.pi.sm_lid;
	a->lmc = f.pi.lmc;
	a->max_vl_num = f.pi.vl_cap;
	a->sm_sl = f.pi.master_sm_sl;
	a->subnet_timeout = f.pi.subnet_timeout;
	a->active_width = f.pi.link_width_active;
	a->active_speed = f.pi.link_speed_active;
	a->phys_state = f.pi.phys_state;
	a->link_layer = IBV_LINK_LAYER_INFINIBAND;
	return 0;
}

int ibv_query_gid(struct ibv_context *c, uint8_t port, int index, union ibv_gid *gid)
{
	struct vsim_port_facts f;
	uint64_t prefix, guid;
	int rc;

	(void)c;
	if (index != 0 || port < 1 || port > vsim.ni.num_ports)
		return -1;
	if ((rc = vsim_smi_port(vsim.smi, port, &f)) < 0) {
		errno = -rc;
		return -1;
	}
	prefix = htobe64(f.pi.gid_prefix);
	guid = htobe64(f.port_guid);
	memcpy(gid->raw, &prefix, 8);
	memcpy(gid->raw + 8, &guid, 8);
	return 0;
}

/* ---- PD, MR, CQ, AH -------------------------------------------------------- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *c)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->context = c;
	pd->handle = vsim.next_key++;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	struct vsim_mr *m = calloc(1, sizeof(*m));

	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = length;
	m->mr.lkey = m->mr.rkey = vsim.next_key++;
	m->access = access;
	m->next = vsim.mrs;
	vsim.mrs = m;
	return &m->mr;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	for (struct vsim_mr **p = &vsim.mrs; *p; p = &(*p)->next)
		if (&(*p)->mr == mr) {
			struct vsim_mr *m = *p;

			*p = m->next;
			free(m);
			return 0;
		}
	return EINVAL;
}

struct vsim_mr *vsim_verbs_mr_by_rkey(uint32_t rkey)
{
	for (struct vsim_mr *m = vsim.mrs; m; m = m->next)
		if (m->mr.rkey == rkey)
			return m;
	return NULL;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *c, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int vector)
{
	struct vsim_cq *q;

	(void)vector;
	if (channel) {
		vsim_enosys("a completion channel (ibv_create_cq with a channel)");
		return NULL;
	}
	if (cqe < 1 || cqe > 65536 || !(q = calloc(1, sizeof(*q)))) {
		errno = cqe < 1 || cqe > 65536 ? EINVAL : ENOMEM;
		return NULL;
	}
	q->ring = calloc((size_t)cqe, sizeof(*q->ring));
	if (!q->ring) {
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	q->cap = cqe;
	q->cq.context = c;
	q->cq.cq_context = cq_context;
	q->cq.cqe = cqe;
	pthread_mutex_init(&q->cq.mutex, NULL);
	pthread_cond_init(&q->cq.cond, NULL);
	return &q->cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct vsim_cq *q = (struct vsim_cq *)cq;

	for (struct vsim_qp *p = vsim.qps; p; p = p->next)
		if (p->qp.send_cq == cq || p->qp.recv_cq == cq)
			return EBUSY;
	free(q->ring);
	free(q);
	return 0;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct vsim_ah *a;

	if (attr->is_global) {
		vsim_enosys("a GRH in an address handle (one subnet only)");
		return NULL;
	}
	if (!attr->dlid || !(a = calloc(1, sizeof(*a)))) {
		errno = attr->dlid ? ENOMEM : EINVAL;
		return NULL;
	}
	a->ah.context = pd->context;
	a->ah.pd = pd;
	a->dlid = attr->dlid;
	return &a->ah;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	return 0;
}

/* ---- QPs -------------------------------------------------------------------- */

static int vsim_qp_bind(struct vsim_qp *q)
{
	struct sockaddr_un a;
	int buf = 4 << 20;

	q->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (q->fd < 0)
		return -errno;
	setsockopt(q->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(q->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	vsim_verbs_sock_path(&a, vsim_verbs_facts()->port_guid, q->qp.qp_num);
	unlink(a.sun_path);
	mkdir(vsim.dir, 0700); /* again: the last QP to go removes it */
	if (bind(q->fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int e = errno;

		vsim_say("cannot bind %s: %s", a.sun_path, strerror(e));
		close(q->fd);
		return -e;
	}
	return 0;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	struct vsim_qp *q;
	int rc;

	if (ia->qp_type != IBV_QPT_UD && ia->qp_type != IBV_QPT_RC) {
		vsim_enosys("QP types other than UD and RC");
		return NULL;
	}
	if (ia->srq || !ia->send_cq || !ia->recv_cq || ia->cap.max_recv_wr > VSIM_MAX_RECV ||
	    ia->cap.max_send_sge > 4 || ia->cap.max_recv_sge > 1 || ia->cap.max_inline_data > 256) {
		errno = EINVAL;
		return NULL;
	}
	if (!(q = calloc(1, sizeof(*q))) ||
	    !(q->rq = calloc(ia->cap.max_recv_wr + 1, sizeof(*q->rq)))) {
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	q->rq_cap = ia->cap.max_recv_wr + 1;
	q->qp.context = pd->context;
	q->qp.pd = pd;
	q->qp.send_cq = ia->send_cq;
	q->qp.recv_cq = ia->recv_cq;
	q->qp.qp_context = ia->qp_context;
	q->qp.qp_type = ia->qp_type;
	q->qp.state = IBV_QPS_RESET;
	q->qp.qp_num = ++vsim.next_qpn & 0xffffff;
	if (q->qp.qp_num < 2)
		q->qp.qp_num = (vsim.next_qpn += 2) & 0xffffff;
	q->pending_tail = &q->pending;
	pthread_mutex_init(&q->qp.mutex, NULL);
	pthread_cond_init(&q->qp.cond, NULL);
	if ((rc = vsim_qp_bind(q)) < 0) {
		free(q->rq);
		free(q);
		errno = -rc;
		return NULL;
	}
	q->next = vsim.qps;
	vsim.qps = q;
	return &q->qp;
}

/* The attributes a transition needs (IBA 11.2.4.2's table, for UD and RC). */
static int vsim_qp_needs(enum ibv_qp_type t, enum ibv_qp_state from, enum ibv_qp_state to)
{
	if (to == IBV_QPS_RESET || to == IBV_QPS_ERR)
		return IBV_QP_STATE;
	if (from == IBV_QPS_RESET && to == IBV_QPS_INIT)
		return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       (t == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	if (from == IBV_QPS_INIT && to == IBV_QPS_RTR)
		return t == IBV_QPT_UD
			   ? IBV_QP_STATE
			   : IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	if (from == IBV_QPS_RTR && to == IBV_QPS_RTS)
		return t == IBV_QPT_UD
			   ? IBV_QP_STATE | IBV_QP_SQ_PSN
			   : IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	return -1; /* not a transition nanosm-ping makes */
}

static void vsim_qp_take(struct vsim_qp *q, const struct ibv_qp_attr *a, int mask)
{
	if (mask & IBV_QP_PKEY_INDEX)
		q->pkey_index = a->pkey_index;
	if (mask & IBV_QP_PORT)
		q->port = a->port_num;
	if (mask & IBV_QP_QKEY)
		q->qkey = a->qkey;
	if (mask & IBV_QP_ACCESS_FLAGS)
		q->access = a->qp_access_flags;
	if (mask & IBV_QP_AV)
		q->dlid = a->ah_attr.dlid;
	if (mask & IBV_QP_PATH_MTU)
		q->path_mtu = a->path_mtu;
	if (mask & IBV_QP_DEST_QPN)
		q->dest_qpn = a->dest_qp_num;
	if (mask & IBV_QP_TIMEOUT)
		q->timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		q->retry_cnt = a->retry_cnt;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	struct vsim_qp *q = (struct vsim_qp *)qp;
	enum ibv_qp_state to = (mask & IBV_QP_STATE) ? a->qp_state : qp->state;
	int need = vsim_qp_needs(qp->qp_type, qp->state, to);

	if (need < 0 || (mask & need) != need) {
		vsim_say("ibv_modify_qp of QP 0x%06x from state %d to %d: %s", qp->qp_num,
			 qp->state, to,
			 need < 0 ? "not a transition the simulation knows"
				  : "a required attribute is missing from the mask");
		return EINVAL;
	}
	if ((mask & IBV_QP_PORT) && (a->port_num < 1 || a->port_num > vsim.ni.num_ports))
		return EINVAL;
	if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index >= VSIM_PKEYS)
		return EINVAL;
	vsim_qp_take(q, a, mask);
	if (to == IBV_QPS_RTR)
		q->rx_seq = 0;
	qp->state = to;
	if (to == IBV_QPS_RESET || to == IBV_QPS_ERR)
		vsim_wire_qp_flush(q);
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct vsim_qp *q = (struct vsim_qp *)qp;
	struct sockaddr_un a;

	for (struct vsim_qp **p = &vsim.qps; *p; p = &(*p)->next)
		if (*p == q) {
			*p = q->next;
			break;
		}
	q->qp.state = IBV_QPS_RESET;
	vsim_wire_qp_flush(q);
	vsim_verbs_sock_path(&a, vsim.facts.port_guid, qp->qp_num);
	unlink(a.sun_path);
	rmdir(vsim.dir); /* fails while another QP (of any process) is there */
	close(q->fd);
	free(q->rq);
	free(q);
	return 0;
}

/* ---- Verbs nanosm-ping does not use ------------------------------------------ */

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *c)
{
	(void)c;
	vsim_enosys("ibv_create_comp_channel");
	return NULL;
}

int ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **ctx)
{
	(void)ch, (void)cq, (void)ctx;
	vsim_enosys("ibv_get_cq_event");
	return -1;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, struct ibv_qp_init_attr *ia)
{
	(void)qp, (void)a, (void)mask, (void)ia;
	return vsim_enosys("ibv_query_qp");
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *ia)
{
	(void)pd, (void)ia;
	vsim_enosys("ibv_create_srq");
	return NULL;
}

int ibv_get_async_event(struct ibv_context *c, struct ibv_async_event *ev)
{
	(void)c, (void)ev;
	vsim_enosys("ibv_get_async_event");
	return -1;
}

int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	(void)cq, (void)cqe;
	return vsim_enosys("ibv_resize_cq");
}

int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp, (void)gid, (void)lid;
	return vsim_enosys("ibv_attach_mcast");
}

int ibv_query_pkey(struct ibv_context *c, uint8_t port, int index, __be16 *pkey)
{
	(void)c, (void)port, (void)index, (void)pkey;
	return vsim_enosys("ibv_query_pkey");
}
