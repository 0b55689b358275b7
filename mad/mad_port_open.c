/*
 * mad/mad_port_open.c - opening a port: the port's selection (by GUID, by
 * CA and port, or the first InfiniBand one), umad_open_port, the SM's or a
 * client's agents, the issm device, and the bounded open in an opener
 * thread (libibumad can block for ever under umad2sim).
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

#include "mad/mad_port_priv.h"
#include "mad/pma.h"
#include "mad/sa.h"

#define MAD_PORT_OPEN_TIMEOUT_S 10 /* bound on opening the port (mad_port_open_bounded) */

/* sysfs says "InfiniBand"; ibsim's umad2sim says "IB"; old kernels nothing. */
static int mad_port_open_is_ib(const char *link_layer)
{
	return !link_layer[0] || !strcmp(link_layer, "InfiniBand") || !strcmp(link_layer, "IB");
}

static int mad_port_open_pick_in_ca(const char *ca_name, int want_port, uint64_t guid,
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
		if (!guid && !want_port && !mad_port_open_is_ib(pt->link_layer))
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

static int mad_port_open_select(const char *ca, int port, uint64_t guid, struct mad_port_info *out,
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
		if (mad_port_open_pick_in_ca(names[i], port, guid, out))
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
static int mad_port_open_register_client(struct mad_port *p, char *err, size_t errlen)
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

void mad_port_open_mask_set(long *mask, int method)
{
	mask[method / (8 * (int)sizeof(long))] |= 1L << (method % (8 * (int)sizeof(long)));
}

/* The SA: class 0x03 version 2, with RMPP (the kernel segments our long
 * GetTable answers on hardware; umad2sim has no RMPP and cuts them at 256
 * bytes). */
static int mad_port_open_register_sa(struct mad_port *p, char *err, size_t errlen)
{
	static const int methods[] = {SA_METHOD_GET, SA_METHOD_SET, SA_METHOD_GET_TABLE,
				      SA_METHOD_GET_MULTI, SA_METHOD_DELETE};
	long mask[16 / sizeof(long)];

	memset(mask, 0, sizeof(mask));
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		mad_port_open_mask_set(mask, methods[i]);
	p->agent_sa = umad_register(p->fd, SA_CLASS, SA_CLASS_VERSION, 1, mask);
	if (p->agent_sa < 0) {
		snprintf(err, errlen, "cannot register as SA on %s/%d (another SA running?)",
			 p->info.ca, p->info.port);
		return -EBUSY;
	}
	return 0;
}

static int mad_port_open_register(struct mad_port *p, char *err, size_t errlen)
{
	long mask[16 / sizeof(long)];

	if (p->client)
		return mad_port_open_register_client(p, err, errlen);
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
	return mad_port_open_register_sa(p, err, errlen);
}

void mad_port_open_issm(struct mad_port *p)
{
	char path[256];

	p->issm_fd = -1;
	if (umad_get_issm_path(p->info.ca, p->info.port, path, sizeof(path)) < 0)
		return;
	p->issm_fd = open(path, O_RDWR);
	p->info.is_sm = p->issm_fd >= 0;
}

int mad_port_open_start(struct mad_port *p, char *err, size_t errlen)
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
	if (mad_port_open_register(p, err, errlen) < 0)
		return -EBUSY;
	if (!p->client)
		mad_port_open_issm(p);
	return 0;
}

/* Opening a port can block for ever: under umad2sim, libibumad's first look at the devices
 * connects to ibsim and retries every 2 s while no simulator answers on IBSIM_SOCKNAME.  So
 * the open (umad_init, the port selection, mad_port_start; the receiver thread comes after)
 * runs in an opener thread and the caller waits at most MAD_PORT_OPEN_TIMEOUT_S for it.  On
 * time-out the caller returns an error and the opener, still stuck, owns the half-open port:
 * if it ever finishes it closes the port and frees itself.  Whoever sees the other one's flag
 * last (done / abandoned, under lock) frees. */
struct mad_port_open_opener {
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

static void mad_port_open_opener_free(struct mad_port_open_opener *o)
{
	pthread_cond_destroy(&o->cond);
	pthread_mutex_destroy(&o->lock);
	free(o);
}

static void *mad_port_open_opener_thread(void *arg)
{
	struct mad_port_open_opener *o = arg;
	int rc = umad_init() < 0 ? -EIO : 0;
	int abandoned;

	if (rc < 0)
		snprintf(o->err, sizeof(o->err), "libibumad init failed");
	else if ((rc = mad_port_open_select(o->has_ca ? o->ca : NULL, o->port, o->guid, &o->p->info,
					    o->err, sizeof(o->err))) == 0)
		rc = mad_port_open_start(o->p, o->err, sizeof(o->err));
	pthread_mutex_lock(&o->lock);
	o->rc = rc;
	o->done = 1;
	abandoned = o->abandoned;
	pthread_cond_signal(&o->cond);
	pthread_mutex_unlock(&o->lock);
	if (abandoned) {
		mad_port_close(o->p);
		mad_port_open_opener_free(o);
	}
	return NULL;
}

/* Why the open took too long, with a hint when umad2sim is preloaded. */
static void mad_port_open_open_late(char *err, size_t errlen)
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
int mad_port_open_bounded(struct mad_port *p, const char *ca, int port, uint64_t guid, char *err,
			  size_t errlen)
{
	struct mad_port_open_opener *o = calloc(1, sizeof(*o));
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
	if (pthread_create(&t, NULL, mad_port_open_opener_thread, o) != 0) {
		mad_port_open_opener_free(o);
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
		mad_port_open_open_late(err, errlen);
		return -ETIMEDOUT;
	}
	pthread_mutex_unlock(&o->lock);
	rc = o->rc;
	if (rc < 0)
		snprintf(err, errlen, "%s", o->err);
	mad_port_open_opener_free(o);
	return rc;
}

/* ---- ibsim's own protocol (mad_port_open_ibsim) ------------------------------------ */

#define MAD_PORT_IBSIM_CTL_MS 2000 /* each control answer from ibsim */
#define MAD_PORT_IBSIM_SMP_MS 2000 /* the port's own NodeInfo and PortInfo */

/* A directed-route Get of our own port's attribute (no hops), its answer
 * waited for: 0 with data filled, or a negative errno.  Runs before the
 * receiver thread, so nothing else reads the socket. */
static int mad_port_ibsim_get(struct mad_port *p, uint16_t attr, uint32_t mod, uint64_t tid,
			      uint8_t *data)
{
	struct mad_addr to = {.lid = 0xffff, .qpn = 0};
	struct timespec t0, t;
	struct smp smp;
	uint8_t buf[SMP_MAD_SIZE];
	int rc;

	smp_init_dr(&smp, SMP_METHOD_GET, attr, mod, NULL, 0);
	smp.tid = tid;
	if ((rc = smp_encode(&smp, buf, sizeof(buf))) < 0 ||
	    (rc = mad_ibsim_send(p->sim, &to, buf, sizeof(buf))) < 0)
		return rc;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct mad_addr from;
		size_t len;
		long ms;

		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms >= MAD_PORT_IBSIM_SMP_MS)
			return -ETIMEDOUT;
		rc = mad_ibsim_recv(p->sim, (int)(MAD_PORT_IBSIM_SMP_MS - ms), &from, buf, &len);
		if (rc < 0)
			return rc;
		if (rc == 0 || smp_decode(buf, len, &smp) < 0 ||
		    smp.method != SMP_METHOD_GET_RESP || (uint32_t)smp.tid != (uint32_t)tid ||
		    smp.attr_id != attr)
			continue; /* not ours (a trap, a stray answer): the sweep sees traps again
				   */
		if (smp.status & 0x7fff)
			return -EPROTO;
		memcpy(data, smp.data, SMP_DATA_SIZE);
		return 0;
	}
}

int mad_port_open_ibsim_start(struct mad_port *p, const char *node, char *err, size_t errlen)
{
	struct smp_node_info ni;
	struct smp_port_info pi;
	uint8_t data[SMP_DATA_SIZE];
	int rc;

	p->sim = calloc(1, sizeof(*p->sim));
	p->umad_len = SMP_MAD_SIZE; /* no umad header: the buffers only need to exist */
	p->send_buf = calloc(1, p->umad_len);
	if (!p->sim || !p->send_buf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = mad_ibsim_open(p->sim, NULL, node, 1, MAD_PORT_IBSIM_CTL_MS, err, errlen);
	if (rc < 0) {
		free(p->sim);
		p->sim = NULL;
		return rc;
	}
	p->agent_lid = p->agent_dr = p->agent_sa = p->agent_pma = 0; /* every class goes */
	rc = mad_port_ibsim_get(p, SMP_ATTR_NODE_INFO, 0, 0x4e53000000000001ull, data);
	if (rc == 0) {
		smp_node_info_decode(data, &ni);
		rc = mad_port_ibsim_get(p, SMP_ATTR_PORT_INFO, ni.local_port, 0x4e53000000000002ull,
					data);
	}
	if (rc < 0) {
		snprintf(err, errlen, "ibsim node \"%s\" did not answer for its own port: %s",
			 p->sim->node, strerror(-rc));
		return rc;
	}
	smp_port_info_decode(data, &pi);
	snprintf(p->info.ca, sizeof(p->info.ca), "ibsim:%.25s", p->sim->node);
	p->info.port = ni.local_port;
	p->info.port_guid = ni.port_guid;
	p->info.node_guid = ni.node_guid;
	p->info.lid = pi.lid;
	p->info.sm_lid = pi.sm_lid;
	p->info.state = pi.state;
	p->info.is_sm = 1;
	return 0;
}
