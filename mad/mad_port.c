/*
 * mad_port.c - libibumad transport: the receiver thread and its ring, the
 * loop's own reads while it holds the fd, sends (in the caller's thread
 * or through the sender thread), and closing.  Opening (selection, agents,
 * issm) is mad_port_open.c.  Knows nothing of sweeps or the event loop (it
 * only calls notify or signals a waiter).
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "mad/mad_peerq.h"
#include "mad/mad_port.h"
#include "mad/mad_port_priv.h"
#include "mad/mad_sender.h"
#include "mad/pma.h"
#include "mad/sa.h"

#define MAD_PORT_RX_POLL_MS 200
#define MAD_PORT_MIN_LEN 24   /* the common MAD header */
#define MAD_PORT_RX_MAX 4096  /* queued MADs before new ones are dropped */
#define MAD_PORT_RX_FIRST 256 /* the ring starts this size and doubles when full */
#define MAD_PORT_STOP_MS 300  /* close waits this long for a sender or closer that is stuck */
#define MAD_PORT_QLEN_PATH "/proc/sys/net/unix/max_dgram_qlen"
#define MAD_PORT_QLEN_DEFAULT 10 /* Linux's default max_dgram_qlen */

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
	__atomic_add_fetch(&p->answered, 1, __ATOMIC_RELAXED);
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
	if (p->sim) {
		int rc = mad_ibsim_recv(p->sim, timeout_ms, &out->from, out->mad, &out->len);

		if (rc > 0 && out->len < MAD_PORT_MIN_LEN)
			return 0;
		if (rc > 0 && (out->mad[3] & 0x80))
			mad_port_peer_answered(p, out->mad);
		return rc;
	}
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

/* Count a write about to happen (before it, so an answer that comes
 * before the send returns finds its request): in peerq, and as a request
 * an answer is due for. */
static void mad_port_sending(struct mad_port *p, const uint8_t *mad, int answer_due)
{
	pthread_mutex_lock(&p->peer_lock);
	mad_peerq_sent(&p->peerq, mad_port_tid(mad), answer_due);
	pthread_mutex_unlock(&p->peer_lock);
	if (answer_due)
		__atomic_add_fetch(&p->asked, 1, __ATOMIC_RELAXED);
}

/* One MAD written in the caller's thread (may block under umad2sim): from
 * umad buffer buf (umad_len bytes), or on ibsim's socket with --ibsim. */
static int mad_port_send_buf(struct mad_port *p, void *send_buf, const struct mad_addr *to,
			     const uint8_t *mad, size_t len)
{
	int agent = len >= 4 ? mad_port_agent(p, mad[1]) : -1;
	void *buf = send_buf;
	int rc, answer_due;

	if (agent < 0 || len < 24 || (mad[1] != SA_CLASS && len > SMP_MAD_SIZE))
		return -EINVAL;
	/* Our own responses (GetResp, TrapRepress) expect no answer. */
	answer_due = !(mad[3] & 0x80) && mad[3] != SMP_METHOD_TRAP_REPRESS;
	if (p->sim) {
		mad_port_sending(p, mad, answer_due);
		return mad_ibsim_send(p->sim, to, mad, len) < 0 ? -EIO : 0;
	}
	if (len > SMP_MAD_SIZE) /* a long SA answer: the kernel's RMPP segments it */
		buf = calloc(1, p->umad_len - SMP_MAD_SIZE + len);
	if (!buf)
		return -ENOMEM;
	memset(buf, 0, p->umad_len);
	memcpy(umad_get_mad(buf), mad, len);
	/* GSI (QP1) traffic carries the well-known Q_Key; SMPs on QP0 none */
	umad_set_addr(buf, to->lid, (int)to->qpn, to->sl, to->qpn ? SA_QKEY : 0);
	/* The kernel delivers a response only to a send that waits for one
	 * (timeout > 0); retries stay with mad_queue, so the kernel makes none. */
	mad_port_sending(p, mad, answer_due);
	rc = umad_send(p->fd, agent, buf, (int)len, answer_due ? p->timeout_ms : 0, 0);
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
	if (!p->tx.started) /* a client port: the caller's thread sends */
		return mad_port_send_now(p, to, mad, len);
	if (!mad_port_direct_ok(p, mad))
		return mad_sender_queue(&p->tx, to, mad, len);
	p->sent_direct++;
	return mad_port_send_buf(p, p->direct_send_buf, to, mad, len);
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

/* Room for direct SMP sends.  Under umad2sim: two datagrams under the
 * socket queue limit the system gives new unix datagram sockets (ibsim's
 * too).  On a kernel umad device a write queues the MAD and returns: no
 * limit. */
static void mad_port_direct_start(struct mad_port *p)
{
	const char *pre = getenv("LD_PRELOAD");
	unsigned long qlen = MAD_PORT_QLEN_DEFAULT;
	FILE *f;

	p->direct_send_buf = calloc(1, p->umad_len);
	if (!p->sim && (!pre || !strstr(pre, "umad2sim"))) {
		p->direct_room = UINT64_MAX;
		return;
	}
	if ((f = fopen(MAD_PORT_QLEN_PATH, "r"))) {
		if (fscanf(f, "%lu", &qlen) != 1)
			qlen = MAD_PORT_QLEN_DEFAULT;
		fclose(f);
	}
	p->direct_room = qlen > 3 ? qlen - 2 : 1;
}

unsigned mad_port_room(const struct mad_port *p)
{
	return p->direct_room > 4096 ? 0 : (unsigned)p->direct_room;
}

static struct mad_port *mad_port_new(const char *ca, int port, uint64_t guid, int client,
				     const char *const *ibsim_node, void (*notify)(void *),
				     void *notify_arg, char *err, size_t errlen)
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
	if (ibsim_node) /* ibsim's own protocol: answers or refuses within its bound */
		rc = mad_port_open_ibsim_start(p, *ibsim_node, err, errlen);
	else
		rc = mad_port_open_bounded(p, ca, port, guid, err, errlen);
	if (rc == -ETIMEDOUT && !ibsim_node)
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
	return mad_port_new(ca, port, guid, 0, NULL, notify, notify_arg, err, errlen);
}

struct mad_port *mad_port_open_ibsim(const char *node, void (*notify)(void *), void *notify_arg,
				     char *err, size_t errlen)
{
	return mad_port_new(NULL, 0, 0, 0, &node, notify, notify_arg, err, errlen);
}

struct mad_port *mad_port_open_client(const char *ca, int port, uint64_t guid,
				      void (*notify)(void *), void *notify_arg, char *err,
				      size_t errlen)
{
	return mad_port_new(ca, port, guid, 1, NULL, notify, notify_arg, err, errlen);
}

static void mad_port_close_fds(struct mad_port *p)
{
	if (p->issm_fd >= 0)
		close(p->issm_fd);
	if (p->fd >= 0)
		umad_close_port(p->fd);
	p->issm_fd = p->fd = -1;
	if (p->sim) {
		mad_ibsim_close(p->sim);
		free(p->sim);
		p->sim = NULL;
	}
}

/* Under umad2sim, an answer that reaches the preload's receiver thread
 * after its fd was closed crashes that thread (it looks the fd up, gets
 * NULL and locks through it): a SIGTERM in the middle of a sweep left SMPs
 * on the wire.  So before the close, read what is still due: until every
 * request that waits for an answer has one, nothing came for 20 ms, or
 * 200 ms passed.  Requests that timed out earlier never get an answer,
 * hence the quiet bound; on a kernel umad device (and with --ibsim) there
 * is no such thread and no wait. */
#define MAD_PORT_SETTLE_QUIET_MS 20
#define MAD_PORT_SETTLE_MS 200

static void mad_port_settle(struct mad_port *p)
{
	size_t cap = SMP_MAD_SIZE;
	void *umad;
	struct mad_port_rx one;
	struct timespec t0, t;

	if (p->sim || p->client || p->fd < 0 || p->direct_room == UINT64_MAX ||
	    __atomic_load_n(&p->answered, __ATOMIC_RELAXED) >=
		__atomic_load_n(&p->asked, __ATOMIC_RELAXED))
		return;
	if (!(umad = calloc(1, p->umad_len)))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		long ms;

		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms >= MAD_PORT_SETTLE_MS ||
		    __atomic_load_n(&p->answered, __ATOMIC_RELAXED) >=
			__atomic_load_n(&p->asked, __ATOMIC_RELAXED) ||
		    mad_port_read(p, &umad, &cap, MAD_PORT_SETTLE_QUIET_MS, &one) <= 0)
			break;
	}
	free(umad);
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
	mad_port_settle(p);
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
	mad_port_open_mask_set(mask, SA_METHOD_REPORT);
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
