/*
 * mad_port.c - libibumad transport: port selection, SM or client agents,
 * issm, and the receiver thread.  Owns the umad fd and the rx queue; knows
 * nothing of sweeps or the event loop (it only calls notify or signals a
 * waiter).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "mad/mad_peerq.h"
#include "mad/mad_port.h"
#include "mad/mad_sender.h"
#include "mad/pma.h"
#include "mad/sa.h"

#define MAD_PORT_RX_POLL_MS 200
#define MAD_PORT_MIN_LEN 24	   /* the common MAD header */
#define MAD_PORT_RX_MAX 4096	   /* queued MADs before new ones are dropped */
#define MAD_PORT_RX_FIRST 256	   /* the ring starts this size and doubles when full */
#define MAD_PORT_OPEN_TIMEOUT_S 10 /* bound on opening the port (mad_port_open_bounded) */
#define MAD_PORT_STOP_MS 300	   /* close waits this long for a sender or closer that is stuck */
#define MAD_PORT_QLEN_PATH "/proc/sys/net/unix/max_dgram_qlen"
#define MAD_PORT_QLEN_DEFAULT 10 /* Linux's default max_dgram_qlen */

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
	int fd;
	int issm_fd;
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

/* sysfs says "InfiniBand"; ibsim's umad2sim says "IB"; old kernels nothing. */
static int mad_port_is_ib(const char *link_layer)
{
	return !link_layer[0] || !strcmp(link_layer, "InfiniBand") || !strcmp(link_layer, "IB");
}

static int mad_port_pick_in_ca(const char *ca_name, int want_port, uint64_t guid,
			       struct mad_port_info *out)
{
	umad_ca_t ca;
	int found = 0;

	if (umad_get_ca(ca_name, &ca) < 0)
		return 0;
	for (int i = 1; i <= ca.numports && i < UMAD_CA_MAX_PORTS && !found; i++) {
		umad_port_t *pt = ca.ports[i];

		if (!pt)
			continue;
		if (guid && be64toh(pt->port_guid) != guid)
			continue;
		if (!guid && want_port && pt->portnum != want_port)
			continue;
		if (!guid && !want_port && !mad_port_is_ib(pt->link_layer))
			continue; /* never pick an Ethernet/RoCE port by default */
		snprintf(out->ca, sizeof(out->ca), "%.*s", (int)sizeof(out->ca) - 1, ca_name);
		out->port = pt->portnum;
		out->port_guid = be64toh(pt->port_guid);
		out->node_guid = be64toh(ca.node_guid);
		out->lid = (uint16_t)pt->base_lid;
		out->sm_lid = (uint16_t)pt->sm_lid;
		out->state = (uint8_t)pt->state;
		found = 1;
	}
	umad_release_ca(&ca);
	return found;
}

static int mad_port_select(const char *ca, int port, uint64_t guid, struct mad_port_info *out,
			   char *err, size_t errlen)
{
	char names[32][UMAD_CA_NAME_LEN];
	int n = umad_get_cas_names(names, 32);

	if (n <= 0) {
		snprintf(err, errlen, "no RDMA device found (is the ib_umad module loaded?)");
		return -ENODEV;
	}
	for (int i = 0; i < n; i++) {
		if (ca && strcmp(ca, names[i]) != 0)
			continue;
		if (mad_port_pick_in_ca(names[i], port, guid, out))
			return 0;
	}
	if (guid)
		snprintf(err, errlen, "no local port with GUID 0x%016llx",
			 (unsigned long long)guid);
	else if (ca)
		snprintf(err, errlen, "no InfiniBand port %d on CA %s", port, ca);
	else
		snprintf(err, errlen, "no InfiniBand link-layer port on this host");
	return -ENODEV;
}

/* A client registers with no method mask: it receives only the responses
 * to its own requests, so it can share a port with a running SM. */
static int mad_port_register_client(struct mad_port *p, char *err, size_t errlen)
{
	p->agent_lid = umad_register(p->fd, SMP_CLASS_LID, 1, 0, NULL);
	p->agent_dr = umad_register(p->fd, SMP_CLASS_DR, 1, 0, NULL);
	/* an SA client (nanosm-sa): answers to its own queries only */
	p->agent_sa = umad_register(p->fd, SA_CLASS, SA_CLASS_VERSION, 1, NULL);
	p->agent_pma = -1;
	if (p->agent_lid < 0 || p->agent_dr < 0) {
		snprintf(err, errlen, "cannot register SMP agents on %s/%d (not root?)", p->info.ca,
			 p->info.port);
		return -EACCES;
	}
	return 0;
}

static void mad_port_mask_set(long *mask, int method)
{
	mask[method / (8 * (int)sizeof(long))] |= 1L << (method % (8 * (int)sizeof(long)));
}

/* The SA: class 0x03 version 2, with RMPP (the kernel segments our long
 * GetTable answers on hardware; umad2sim has no RMPP and cuts them at 256
 * bytes). */
static int mad_port_register_sa(struct mad_port *p, char *err, size_t errlen)
{
	static const int methods[] = {SA_METHOD_GET, SA_METHOD_SET, SA_METHOD_GET_TABLE,
				      SA_METHOD_GET_MULTI, SA_METHOD_DELETE};
	long mask[16 / sizeof(long)];

	memset(mask, 0, sizeof(mask));
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		mad_port_mask_set(mask, methods[i]);
	p->agent_sa = umad_register(p->fd, SA_CLASS, SA_CLASS_VERSION, 1, mask);
	if (p->agent_sa < 0) {
		snprintf(err, errlen, "cannot register as SA on %s/%d (another SA running?)",
			 p->info.ca, p->info.port);
		return -EBUSY;
	}
	return 0;
}

static int mad_port_register(struct mad_port *p, char *err, size_t errlen)
{
	long mask[16 / sizeof(long)];

	if (p->client)
		return mad_port_register_client(p, err, errlen);
	memset(mask, 0, sizeof(mask));
	/* unsolicited methods the SM receives: Get, Set (SMInfo), Trap */
	for (int m = SMP_METHOD_GET; m <= SMP_METHOD_TRAP; m++) {
		if (m == SMP_METHOD_GET || m == SMP_METHOD_SET || m == SMP_METHOD_TRAP)
			mask[m / (8 * sizeof(long))] |= 1L << (m % (8 * sizeof(long)));
	}
	p->agent_lid = umad_register(p->fd, SMP_CLASS_LID, 1, 0, mask);
	p->agent_dr = umad_register(p->fd, SMP_CLASS_DR, 1, 0, mask);
	if (p->agent_lid < 0 || p->agent_dr < 0) {
		snprintf(err, errlen,
			 "cannot register as SM on %s/%d (another SM running? not root?)",
			 p->info.ca, p->info.port);
		return -EBUSY;
	}
	/* the performance manager's GMPs: no method mask, answers only */
	p->agent_pma = umad_register(p->fd, PMA_CLASS, PMA_CLASS_VERSION, 0, NULL);
	return mad_port_register_sa(p, err, errlen);
}

static void mad_port_open_issm(struct mad_port *p)
{
	char path[256];

	p->issm_fd = -1;
	if (umad_get_issm_path(p->info.ca, p->info.port, path, sizeof(path)) < 0)
		return;
	p->issm_fd = open(path, O_RDWR);
	p->info.is_sm = p->issm_fd >= 0;
}

/* A full ring doubles (up to MAD_PORT_RX_MAX slots), oldest first again:
 * a small fabric keeps a small ring, a burst still finds room.  Called
 * with the lock held; 0 or -ENOSPC / -ENOMEM. */
static int mad_port_rx_grow(struct mad_port *p)
{
	size_t cap = p->rx_cap * 2;
	struct mad_port_rx *n;

	if (cap > MAD_PORT_RX_MAX)
		return -ENOSPC;
	n = malloc(cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < p->rx_count; i++)
		n[i] = p->rx[(p->rx_head + i) % p->rx_cap];
	free(p->rx);
	p->rx = n;
	p->rx_cap = cap;
	p->rx_head = 0;
	return 0;
}

static void mad_port_enqueue(struct mad_port *p, const struct mad_port_rx *one)
{
	pthread_mutex_lock(&p->lock);
	if (p->rx_count == p->rx_cap && mad_port_rx_grow(p) < 0) {
		p->rx_dropped++;
		pthread_mutex_unlock(&p->lock);
		return;
	}
	p->rx[(p->rx_head + p->rx_count) % p->rx_cap] = *one;
	p->rx_count++;
	pthread_cond_signal(&p->rx_cond);
	pthread_mutex_unlock(&p->lock);
}

static uint64_t mad_port_tid(const uint8_t *mad)
{
	uint64_t tid = 0;

	for (int i = 8; i < 16; i++)
		tid = tid << 8 | mad[i];
	return tid;
}

static void mad_port_peer_answered(struct mad_port *p, const uint8_t *mad)
{
	pthread_mutex_lock(&p->peer_lock);
	mad_peerq_answered(&p->peerq, mad_port_tid(mad));
	pthread_mutex_unlock(&p->peer_lock);
}

/* One umad_recv into *umad (grown for a long RMPP answer; only its first
 * 256 bytes are kept): 1 and *out filled, 0 if nothing came within
 * timeout_ms (or it was a send completion or a runt), or a negative errno
 * on a failed device. */
static int mad_port_read(struct mad_port *p, void **umad, size_t *cap, int timeout_ms,
			 struct mad_port_rx *out)
{
	for (;;) {
		int len = (int)*cap;
		int rc = umad_recv(p->fd, *umad, &len, timeout_ms);
		const ib_mad_addr_t *addr;

		if (rc == -ETIMEDOUT || rc == -EINTR || rc == -EAGAIN)
			return 0;
		if (rc == -ENOSPC && len > (int)*cap && len <= (1 << 20)) {
			/* a multi-segment (RMPP) MAD: grow and read it again */
			void *big = realloc(*umad, p->umad_len - SMP_MAD_SIZE + (size_t)len);

			if (!big)
				return -ENOMEM;
			*umad = big;
			*cap = (size_t)len;
			continue;
		}
		if (rc < 0)
			return rc;
		/* a send completion, or shorter than a MAD header; shorter than
		 * 256 bytes is a legal single-packet RMPP answer (OpenSM sends
		 * those), decoders judge the rest */
		if (umad_status(*umad) != 0 || len < MAD_PORT_MIN_LEN)
			return 0;
		addr = umad_get_mad_addr(*umad);
		out->from.lid = be16toh(addr->lid);
		out->from.sl = addr->sl;
		out->from.qpn = be32toh(addr->qpn);
		out->len = (size_t)len > SMP_MAD_SIZE ? SMP_MAD_SIZE : (size_t)len;
		memcpy(out->mad, umad_get_mad(*umad), out->len);
		if (out->mad[3] & 0x80) /* an answer: the peer read its request */
			mad_port_peer_answered(p, out->mad);
		return 1;
	}
}

/* The loop thread asked for the fd (mad_port_hold): say so (notify, so
 * the loop sees it may read now) and wait, out of umad_recv, until it
 * gives the fd back or the port closes.  Never two readers at once: the
 * loop reads only while parked is set, which only this thread clears. */
static void mad_port_rx_park(struct mad_port *p)
{
	if (!__atomic_load_n(&p->hold_want, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&p->lock);
	if (p->hold_want) {
		p->parked = 1;
		pthread_mutex_unlock(&p->lock);
		if (p->notify)
			p->notify(p->notify_arg);
		pthread_mutex_lock(&p->lock);
	}
	while (p->hold_want && !__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		struct timespec until;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += MAD_PORT_RX_POLL_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->hold_cond, &p->lock, &until);
	}
	p->parked = 0;
	pthread_mutex_unlock(&p->lock);
}

static void *mad_port_rx_thread(void *arg)
{
	struct mad_port *p = arg;
	void *umad = calloc(1, p->umad_len);
	size_t cap = SMP_MAD_SIZE;
	struct mad_port_rx *one = malloc(sizeof(*one));
	int rc = umad && one ? 0 : -ENOMEM;

	while (rc >= 0 && !__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		mad_port_rx_park(p);
		if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
			break; /* woken from its park by mad_port_close */
		rc = mad_port_read(p, &umad, &cap, MAD_PORT_RX_POLL_MS, one);
		if (rc <= 0)
			continue;
		mad_port_enqueue(p, one);
		if (p->notify)
			p->notify(p->notify_arg);
	}
	if (rc < 0)
		__atomic_store_n(&p->failed, rc, __ATOMIC_RELEASE);
	free(one);
	free(umad);
	pthread_mutex_lock(&p->lock);
	pthread_cond_signal(&p->rx_cond); /* wake a waiter to see the failure */
	pthread_mutex_unlock(&p->lock);
	if (p->notify)
		p->notify(p->notify_arg); /* let the loop see the failure */
	return NULL;
}

static int mad_port_agent(const struct mad_port *p, uint8_t mgmt_class)
{
	switch (mgmt_class) {
	case SMP_CLASS_DR:
		return p->agent_dr;
	case SMP_CLASS_LID:
		return p->agent_lid;
	case SA_CLASS:
		return p->agent_sa;
	case PMA_CLASS:
		return p->agent_pma;
	default:
		return -1;
	}
}

/* umad_send of one MAD from umad buffer buf (umad_len bytes) in the
 * caller's thread (may block under umad2sim); counted in peerq first, so
 * an answer that comes before umad_send returns finds its request. */
static int mad_port_send_buf(struct mad_port *p, void *send_buf, const struct mad_addr *to,
			     const uint8_t *mad, size_t len)
{
	int agent = len >= 4 ? mad_port_agent(p, mad[1]) : -1;
	void *buf = send_buf;
	int rc;

	if (agent < 0 || len < 24 || (mad[1] != SA_CLASS && len > SMP_MAD_SIZE))
		return -EINVAL;
	if (len > SMP_MAD_SIZE) /* a long SA answer: the kernel's RMPP segments it */
		buf = calloc(1, p->umad_len - SMP_MAD_SIZE + len);
	if (!buf)
		return -ENOMEM;
	memset(buf, 0, p->umad_len);
	memcpy(umad_get_mad(buf), mad, len);
	/* GSI (QP1) traffic carries the well-known Q_Key; SMPs on QP0 none */
	umad_set_addr(buf, to->lid, (int)to->qpn, to->sl, to->qpn ? SA_QKEY : 0);
	/* The kernel delivers a response only to a send that waits for one
	 * (timeout > 0); retries stay with mad_queue, so the kernel makes none.
	 * Our own responses (GetResp, TrapRepress) expect no answer. */
	int wait_ms = (mad[3] & 0x80) || mad[3] == SMP_METHOD_TRAP_REPRESS ? 0 : p->timeout_ms;

	pthread_mutex_lock(&p->peer_lock);
	mad_peerq_sent(&p->peerq, mad_port_tid(mad), wait_ms > 0);
	pthread_mutex_unlock(&p->peer_lock);
	rc = umad_send(p->fd, agent, buf, (int)len, wait_ms, 0);
	if (buf != send_buf)
		free(buf);
	return rc < 0 ? -EIO : 0;
}

static int mad_port_send_now(struct mad_port *p, const struct mad_addr *to, const uint8_t *mad,
			     size_t len)
{
	return mad_port_send_buf(p, p->send_buf, to, mad, len);
}

/* ---- the sender thread (SM ports) ----------------------------------------------- */

static int mad_port_send_cb(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	return mad_port_send_now(ctx, to, mad, len);
}

/* An SMP request may skip the sender thread (one hand-off and two thread
 * wake-ups fewer) when nothing is queued before it and the peer has room
 * for it: under umad2sim the write blocks only once ibsim has
 * max_dgram_qlen of our datagrams unread, and peerq bounds those.  Answers,
 * Reports and GMPs always go through the thread (their peers may stop
 * reading). */
static int mad_port_direct_ok(struct mad_port *p, const uint8_t *mad)
{
	uint64_t unread;

	if ((mad[1] != SMP_CLASS_LID && mad[1] != SMP_CLASS_DR) || (mad[3] & 0x80) ||
	    mad[3] == SMP_METHOD_TRAP_REPRESS || !p->direct_send_buf)
		return 0;
	pthread_mutex_lock(&p->peer_lock);
	unread = mad_peerq_unread(&p->peerq);
	pthread_mutex_unlock(&p->peer_lock);
	return unread < p->direct_room && mad_sender_idle(&p->tx);
}

static int mad_port_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct mad_port *p = ctx;

	if (len < 24 || len > (1u << 20) || mad_port_agent(p, mad[1]) < 0 ||
	    (mad[1] != SA_CLASS && len > SMP_MAD_SIZE))
		return -EINVAL;
	if (p->tx.started && !mad_port_direct_ok(p, mad))
		return mad_sender_queue(&p->tx, to, mad, len);
	if (p->tx.started) {
		p->sent_direct++;
		return mad_port_send_buf(p, p->direct_send_buf, to, mad, len);
	}
	return mad_port_send_now(p, to, mad, len);
}

uint64_t mad_port_tx_dropped(struct mad_port *p)
{
	return mad_sender_dropped(&p->tx);
}

uint64_t mad_port_tx_direct(const struct mad_port *p)
{
	return p->sent_direct;
}

uint64_t mad_port_tx_failed(struct mad_port *p)
{
	return mad_sender_failed(&p->tx);
}

static int mad_port_start(struct mad_port *p, char *err, size_t errlen)
{
	p->fd = umad_open_port(p->info.ca, p->info.port);
	if (p->fd < 0) {
		snprintf(err, errlen, "cannot open umad device of %s/%d: %s", p->info.ca,
			 p->info.port, strerror(-p->fd));
		return p->fd;
	}
	p->umad_len = umad_size() + SMP_MAD_SIZE;
	p->send_buf = calloc(1, p->umad_len);
	if (!p->send_buf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (mad_port_register(p, err, errlen) < 0)
		return -EBUSY;
	if (!p->client)
		mad_port_open_issm(p);
	return 0;
}

/* The receiver thread: started by the caller of mad_port_new once the
 * port is its own, so a late opener (mad_port_open_bounded) never has one
 * calling notify. */
static int mad_port_start_rx(struct mad_port *p, char *err, size_t errlen)
{
	if (pthread_create(&p->thread, NULL, mad_port_rx_thread, p) != 0) {
		snprintf(err, errlen, "cannot start the MAD receiver thread");
		return -EAGAIN;
	}
	p->thread_started = 1;
	return 0;
}

static int mad_port_init_sync(struct mad_port *p)
{
	pthread_condattr_t attr;
	int rc;

	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->peer_lock, NULL);
	mad_peerq_init(&p->peerq);
	if (pthread_condattr_init(&attr) != 0)
		return -ENOMEM;
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&p->rx_cond, &attr);
	if (rc == 0 && (rc = pthread_cond_init(&p->hold_cond, &attr)) != 0)
		pthread_cond_destroy(&p->rx_cond);
	pthread_condattr_destroy(&attr);
	return rc ? -rc : 0;
}

/* Opening a port can block for ever: under umad2sim, libibumad's first look at the devices
 * connects to ibsim and retries every 2 s while no simulator answers on IBSIM_SOCKNAME.  So
 * the open (umad_init, the port selection, mad_port_start; the receiver thread comes after)
 * runs in an opener thread and the caller waits at most MAD_PORT_OPEN_TIMEOUT_S for it.  On
 * time-out the caller returns an error and the opener, still stuck, owns the half-open port:
 * if it ever finishes it closes the port and frees itself.  Whoever sees the other one's flag
 * last (done / abandoned, under lock) frees. */
struct mad_port_opener {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done, abandoned;
	struct mad_port *p;
	/* copies: the caller's may be gone by the time a late opener reads them */
	char ca[UMAD_CA_NAME_LEN];
	int has_ca;
	int port;
	uint64_t guid;
	int rc;
	char err[256];
};

static void mad_port_opener_free(struct mad_port_opener *o)
{
	pthread_cond_destroy(&o->cond);
	pthread_mutex_destroy(&o->lock);
	free(o);
}

static void *mad_port_opener_thread(void *arg)
{
	struct mad_port_opener *o = arg;
	int rc = umad_init() < 0 ? -EIO : 0;
	int abandoned;

	if (rc < 0)
		snprintf(o->err, sizeof(o->err), "libibumad init failed");
	else if ((rc = mad_port_select(o->has_ca ? o->ca : NULL, o->port, o->guid, &o->p->info,
				       o->err, sizeof(o->err))) == 0)
		rc = mad_port_start(o->p, o->err, sizeof(o->err));
	pthread_mutex_lock(&o->lock);
	o->rc = rc;
	o->done = 1;
	abandoned = o->abandoned;
	pthread_cond_signal(&o->cond);
	pthread_mutex_unlock(&o->lock);
	if (abandoned) {
		mad_port_close(o->p);
		mad_port_opener_free(o);
	}
	return NULL;
}

/* Why the open took too long, with a hint when umad2sim is preloaded. */
static void mad_port_open_late(char *err, size_t errlen)
{
	const char *pre = getenv("LD_PRELOAD");
	const char *sock = getenv("IBSIM_SOCKNAME");

	if (pre && strstr(pre, "umad2sim"))
		snprintf(err, errlen,
			 "cannot open the umad port: no answer within %d s (under umad2sim: "
			 "is ibsim running with IBSIM_SOCKNAME=%s?)",
			 MAD_PORT_OPEN_TIMEOUT_S, sock ? sock : "(unset: ibsim's default 'sim')");
	else
		snprintf(err, errlen,
			 "cannot open the umad port: no answer within %d s (libibumad blocked)",
			 MAD_PORT_OPEN_TIMEOUT_S);
}

/* Run the opener and wait for it, bounded: 0, or a negative errno with
 * err filled.  On 0 or an error the port is the caller's again; on
 * -ETIMEDOUT it is the opener's (the caller must not touch it). */
static int mad_port_open_bounded(struct mad_port *p, const char *ca, int port, uint64_t guid,
				 char *err, size_t errlen)
{
	struct mad_port_opener *o = calloc(1, sizeof(*o));
	struct timespec until;
	pthread_condattr_t attr;
	pthread_t t;
	int rc = 0;

	if (!o || pthread_condattr_init(&attr) != 0) {
		free(o);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->cond, &attr);
	pthread_condattr_destroy(&attr);
	o->p = p;
	o->has_ca = ca != NULL;
	snprintf(o->ca, sizeof(o->ca), "%s", ca ? ca : "");
	o->port = port;
	o->guid = guid;
	if (pthread_create(&t, NULL, mad_port_opener_thread, o) != 0) {
		mad_port_opener_free(o);
		snprintf(err, errlen, "cannot start the port opener thread");
		return -EAGAIN;
	}
	pthread_detach(t);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += MAD_PORT_OPEN_TIMEOUT_S;
	pthread_mutex_lock(&o->lock);
	while (!o->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&o->cond, &o->lock, &until);
	if (!o->done) {
		o->abandoned = 1;
		pthread_mutex_unlock(&o->lock);
		mad_port_open_late(err, errlen);
		return -ETIMEDOUT;
	}
	pthread_mutex_unlock(&o->lock);
	rc = o->rc;
	if (rc < 0)
		snprintf(err, errlen, "%s", o->err);
	mad_port_opener_free(o);
	return rc;
}

/* Room for direct SMP sends: two datagrams under the socket queue limit
 * the system gives new unix datagram sockets (ibsim's too). */
static void mad_port_direct_start(struct mad_port *p)
{
	FILE *f = fopen(MAD_PORT_QLEN_PATH, "r");
	unsigned long qlen = MAD_PORT_QLEN_DEFAULT;

	if (f) {
		if (fscanf(f, "%lu", &qlen) != 1)
			qlen = MAD_PORT_QLEN_DEFAULT;
		fclose(f);
	}
	p->direct_room = qlen > 3 ? qlen - 2 : 1;
	p->direct_send_buf = calloc(1, p->umad_len);
}

static struct mad_port *mad_port_new(const char *ca, int port, uint64_t guid, int client,
				     void (*notify)(void *), void *notify_arg, char *err,
				     size_t errlen)
{
	struct mad_port *p;
	int rc;

	p = calloc(1, sizeof(*p));
	if (p) {
		p->fd = -1;
		p->issm_fd = -1;
	}
	if (!p || !(p->rx = calloc(MAD_PORT_RX_FIRST, sizeof(*p->rx)))) {
		snprintf(err, errlen, "out of memory");
		mad_port_close(p);
		return NULL;
	}
	p->rx_cap = MAD_PORT_RX_FIRST;
	p->client = client;
	p->timeout_ms = 200;
	p->notify = notify;
	p->notify_arg = notify_arg;
	if (mad_port_init_sync(p) < 0) {
		snprintf(err, errlen, "cannot initialise the MAD receiver's lock");
		free(p->rx);
		free(p);
		return NULL;
	}
	rc = mad_port_open_bounded(p, ca, port, guid, err, errlen);
	if (rc == -ETIMEDOUT)
		return NULL; /* the stuck opener owns p now */
	if (rc == 0)
		rc = mad_port_start_rx(p, err, errlen);
	if (rc == 0 && !client && (rc = mad_sender_start(&p->tx, mad_port_send_cb, p)) < 0)
		snprintf(err, errlen, "cannot start the MAD sender thread");
	if (rc == 0 && !client)
		mad_port_direct_start(p);
	if (rc < 0) {
		mad_port_close(p);
		return NULL;
	}
	return p;
}

struct mad_port *mad_port_open(const char *ca, int port, uint64_t guid, void (*notify)(void *),
			       void *notify_arg, char *err, size_t errlen)
{
	return mad_port_new(ca, port, guid, 0, notify, notify_arg, err, errlen);
}

struct mad_port *mad_port_open_client(const char *ca, int port, uint64_t guid,
				      void (*notify)(void *), void *notify_arg, char *err,
				      size_t errlen)
{
	return mad_port_new(ca, port, guid, 1, notify, notify_arg, err, errlen);
}

static void mad_port_close_fds(struct mad_port *p)
{
	if (p->issm_fd >= 0)
		close(p->issm_fd);
	if (p->fd >= 0)
		umad_close_port(p->fd);
	p->issm_fd = p->fd = -1;
}

/* Closing can block too: under umad2sim, giving up issm is a request to
 * ibsim that waits for its answer. */
static void mad_port_close_fds_cb(void *p)
{
	mad_port_close_fds(p);
}

void mad_port_close(struct mad_port *p)
{
	(void)mad_port_close_bounded(p);
}

int mad_port_close_bounded(struct mad_port *p)
{
	if (!p)
		return 0;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	if (mad_sender_stop(&p->tx, MAD_PORT_STOP_MS) < 0)
		return -EBUSY; /* the sender is stuck in a send: leave the port to it */
	if (p->thread_started) {
		pthread_mutex_lock(&p->lock);
		pthread_cond_signal(&p->hold_cond); /* a parked thread sees stop now */
		pthread_mutex_unlock(&p->lock);
	}
	if (p->thread_started)
		pthread_join(p->thread, NULL);
	/* an SM port's closing may wait for ibsim's answer: at most MAD_PORT_STOP_MS */
	if (!p->client && mad_sender_run_bounded(mad_port_close_fds_cb, p, MAD_PORT_STOP_MS) < 0)
		return -EBUSY; /* the closer is stuck: leave the port to it */
	mad_port_close_fds(p);
	if (p->rx) {
		pthread_cond_destroy(&p->rx_cond);
		pthread_cond_destroy(&p->hold_cond);
		pthread_mutex_destroy(&p->lock);
		pthread_mutex_destroy(&p->peer_lock);
	}
	free(p->rx);
	free(p->send_buf);
	free(p->direct_send_buf);
	free(p->direct_buf);
	free(p);
	return 0;
}

const struct mad_port_info *mad_port_info(const struct mad_port *p)
{
	return &p->info;
}

struct mad_xmit mad_port_xmit(struct mad_port *p)
{
	struct mad_xmit x = {.send = mad_port_send, .ctx = p};

	return x;
}

size_t mad_port_drain(struct mad_port *p, mad_port_rx_fn fn, void *ctx)
{
	size_t n = 0;

	for (;;) {
		struct mad_port_rx one;

		pthread_mutex_lock(&p->lock);
		if (p->rx_count == 0) {
			pthread_mutex_unlock(&p->lock);
			return n;
		}
		one = p->rx[p->rx_head];
		p->rx_head = (p->rx_head + 1) % p->rx_cap;
		p->rx_count--;
		pthread_mutex_unlock(&p->lock);
		fn(ctx, &one.from, one.mad, one.len);
		n++;
	}
}

int mad_port_hold(struct mad_port *p, int on)
{
	int parked;

	pthread_mutex_lock(&p->lock);
	if (p->hold_want != !!on) {
		__atomic_store_n(&p->hold_want, !!on, __ATOMIC_RELEASE);
		if (!on)
			pthread_cond_signal(&p->hold_cond);
	}
	parked = on && p->parked;
	pthread_mutex_unlock(&p->lock);
	return parked;
}

size_t mad_port_recv(struct mad_port *p, unsigned timeout_ms, size_t max, mad_port_rx_fn fn,
		     void *ctx)
{
	struct mad_port_rx one;
	size_t n = 0;

	if (!p->direct_buf) {
		p->direct_buf = calloc(1, p->umad_len);
		p->direct_cap = SMP_MAD_SIZE;
		if (!p->direct_buf)
			return 0;
	}
	while (n < max && !mad_port_failed(p)) {
		int rc =
		    mad_port_read(p, &p->direct_buf, &p->direct_cap, n ? 0 : (int)timeout_ms, &one);

		if (rc < 0)
			__atomic_store_n(&p->failed, rc, __ATOMIC_RELEASE);
		if (rc <= 0)
			break;
		fn(ctx, &one.from, one.mad, one.len);
		n++;
	}
	return n;
}

void mad_port_set_timeout(struct mad_port *p, unsigned timeout_ms)
{
	p->timeout_ms = timeout_ms ? (int)timeout_ms : 200;
}

int mad_port_failed(const struct mad_port *p)
{
	return __atomic_load_n(&p->failed, __ATOMIC_ACQUIRE);
}

int mad_port_wait(struct mad_port *p, unsigned timeout_ms)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&p->lock);
	while (p->rx_count == 0 && !mad_port_failed(p) && rc == 0)
		rc = pthread_cond_timedwait(&p->rx_cond, &p->lock, &until);
	rc = p->rx_count ? 1 : 0;
	pthread_mutex_unlock(&p->lock);
	return rc ? rc : mad_port_failed(p);
}

int mad_port_listen_reports(struct mad_port *p, int issm)
{
	long mask[16 / sizeof(long)];

	if (!p->client)
		return -EINVAL;
	if (issm && p->issm_fd < 0)
		mad_port_open_issm(p);
	memset(mask, 0, sizeof(mask));
	mad_port_mask_set(mask, SA_METHOD_REPORT);
	if (p->agent_sa >= 0)
		umad_unregister(p->fd, p->agent_sa);
	p->agent_sa = umad_register(p->fd, SA_CLASS, SA_CLASS_VERSION, 1, mask);
	return p->agent_sa < 0 ? -EBUSY : 0;
}

uint64_t mad_port_rx_dropped(struct mad_port *p)
{
	uint64_t n;

	pthread_mutex_lock(&p->lock);
	n = p->rx_dropped;
	pthread_mutex_unlock(&p->lock);
	return n;
}
