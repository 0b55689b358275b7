/*
 * mad/mad_ibsim.c - ibsim's socket protocol (see mad_ibsim.h): attaching
 * to a node, IsSM, and one MAD per datagram both ways.
 */
#include "mad/mad_ibsim.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mad/smp.h"

#define IBSIM_MAGIC 0xdeadbeefu
#define IBSIM_CTL_DATA 64
#define IBSIM_NAME_DEFAULT "sim"
/* one process may attach more than once (a test's client and its SM):
 * each attachment gets the pid plus a multiple of the largest pid */
#define IBSIM_ID_STRIDE 4194304

enum ibsim_ctl_type {
	IBSIM_CTL_ERROR = 0, /* ibsim's answer when it refused */
	IBSIM_CTL_CONNECT = 1,
	IBSIM_CTL_DISCONNECT = 2,
	IBSIM_CTL_SET_ISSM = 9,
};

/* The datagrams, laid out as ibsim reads them (host order unless said). */
struct ibsim_wire_mad {
	uint32_t dlid;	 /* network-order 16 bits in the low half */
	uint32_t slid;	 /* the same; 0 lets ibsim fill in ours */
	uint32_t dqp;	 /* network order */
	uint32_t sqp;	 /* network order */
	uint32_t status; /* network order; ibsim's errno when it could not deliver */
	uint64_t length; /* big-endian */
	uint8_t mad[SMP_MAD_SIZE];
};

struct ibsim_wire_ctl {
	uint32_t magic;
	uint32_t client;
	uint32_t type;
	uint32_t len;
	uint8_t data[IBSIM_CTL_DATA];
};

struct ibsim_wire_attach {
	uint32_t id; /* ours (names our socket) in the request, ibsim's client number back */
	uint32_t qp;
	uint32_t issm;
	char node[32];
};

_Static_assert(sizeof(struct ibsim_wire_mad) == 288, "ibsim's MAD datagram");
_Static_assert(sizeof(struct ibsim_wire_ctl) == 80, "ibsim's control datagram");
_Static_assert(sizeof(struct ibsim_wire_attach) <= IBSIM_CTL_DATA, "attach fits");

/* An abstract-namespace address: a NUL, then the name and its NUL (ibsim
 * 0.10 counts the terminator in the address; `ss -xl` shows "@NAME:ctl@"). */
static socklen_t ibsim_name(struct sockaddr_un *a, const char *base, const char *what, int n)
{
	int len;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (n >= 0)
		len = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s:%s%d", base, what, n);
	else
		len = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s:%s", base, what);
	if (len < 0 || (size_t)len >= sizeof(a->sun_path) - 1)
		return 0;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 2 + (size_t)len);
}

/* One control request and its answer, waited for at most wait_ms: 0, or
 * -ECONNREFUSED (ibsim said no), -ETIMEDOUT, or the socket's errno. */
static int ibsim_ctl(struct mad_ibsim *s, uint32_t type, void *data, size_t len, unsigned wait_ms)
{
	struct ibsim_wire_ctl c;
	struct pollfd pf = {.fd = s->ctl_fd, .events = POLLIN};
	ssize_t n;

	memset(&c, 0, sizeof(c));
	c.magic = IBSIM_MAGIC;
	c.client = s->client;
	c.type = type;
	c.len = (uint32_t)len;
	if (len)
		memcpy(c.data, data, len);
	if (write(s->ctl_fd, &c, sizeof(c)) != (ssize_t)sizeof(c))
		return -errno;
	n = poll(&pf, 1, (int)wait_ms);
	if (n == 0)
		return -ETIMEDOUT;
	if (n < 0)
		return -errno;
	n = read(s->ctl_fd, &c, sizeof(c));
	if (n != (ssize_t)sizeof(c))
		return n < 0 ? -errno : -EPROTO;
	if (c.type == IBSIM_CTL_ERROR)
		return -ECONNREFUSED;
	if (len)
		memcpy(data, c.data, len);
	return 0;
}

static int ibsim_socket(const char *base, const char *what, int n, char *err, size_t errlen)
{
	struct sockaddr_un a;
	socklen_t alen = ibsim_name(&a, base, what, n);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || !alen || bind(fd, (struct sockaddr *)&a, alen) < 0) {
		snprintf(err, errlen, "cannot bind ibsim socket \"%s:%s%d\": %s", base, what, n,
			 strerror(fd < 0 || !alen ? EINVAL : errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int ibsim_connect(int fd, const char *base, const char *what, int n)
{
	struct sockaddr_un a;
	socklen_t alen = ibsim_name(&a, base, what, n);

	if (!alen)
		return -EINVAL;
	return connect(fd, (struct sockaddr *)&a, alen) < 0 ? -errno : 0;
}

static int ibsim_attach(struct mad_ibsim *s, int id, const char *node, unsigned wait_ms, char *err,
			size_t errlen)
{
	struct ibsim_wire_attach at;
	int rc;

	memset(&at, 0, sizeof(at));
	at.id = (uint32_t)id;
	/* IsSM comes after, by its own request: an attach that asks for it is
	 * refused while a killed SM's attachment still holds the node, and
	 * ibsim forgets that one only once a write to it fails */
	at.issm = 0;
	if (node)
		snprintf(at.node, sizeof(at.node), "%s", node);
	rc = ibsim_ctl(s, IBSIM_CTL_CONNECT, &at, sizeof(at), wait_ms);
	if (rc == -ECONNREFUSED)
		snprintf(err, errlen,
			 "ibsim refused to attach us to node \"%s\" (no such node, or its %d "
			 "clients taken: see ibsim's output)",
			 node ? node : "(default)", 10);
	else if (rc < 0)
		snprintf(err, errlen, "ibsim did not answer the attach request: %s", strerror(-rc));
	if (rc < 0)
		return rc;
	s->client = at.id;
	at.node[sizeof(at.node) - 1] = 0;
	snprintf(s->node, sizeof(s->node), "%s", at.node);
	return 0;
}

int mad_ibsim_open(struct mad_ibsim *s, const char *sockname, const char *node, int issm,
		   unsigned wait_ms, char *err, size_t errlen)
{
	static unsigned opened;
	const char *base = sockname ? sockname : getenv("IBSIM_SOCKNAME");
	int id = (int)getpid() +
		 (int)(__atomic_fetch_add(&opened, 1, __ATOMIC_RELAXED) % 400) * IBSIM_ID_STRIDE;
	int rc;

	memset(s, 0, sizeof(*s));
	s->ctl_fd = s->data_fd = -1;
	s->issm = !!issm;
	if (!base || !*base)
		base = IBSIM_NAME_DEFAULT;
	if (!node || !*node)
		node = getenv("SIM_HOST");
	if ((s->ctl_fd = ibsim_socket(base, "ctl", id, err, errlen)) < 0)
		return -EIO;
	/* ibsim says it is ready a moment before it binds its socket */
	for (unsigned waited = 0;
	     (rc = ibsim_connect(s->ctl_fd, base, "ctl", -1)) == -ECONNREFUSED && waited < wait_ms;
	     waited += 20)
		usleep(20000);
	if (rc < 0) {
		snprintf(err, errlen, "no ibsim on socket name \"%s\" (IBSIM_SOCKNAME): %s", base,
			 strerror(-rc));
		mad_ibsim_close(s);
		return rc;
	}
	if ((s->data_fd = ibsim_socket(base, "in", id, err, errlen)) < 0) {
		mad_ibsim_close(s);
		return -EIO;
	}
	if ((rc = ibsim_attach(s, id, node, wait_ms, err, errlen)) < 0) {
		s->client = 0;
		mad_ibsim_close(s);
		return rc;
	}
	if ((rc = ibsim_connect(s->data_fd, base, "out", (int)s->client)) < 0) {
		snprintf(err, errlen, "cannot reach ibsim's socket \"%s:out%u\": %s", base,
			 s->client, strerror(-rc));
		mad_ibsim_close(s);
		return rc;
	}
	if (s->issm) {
		int one = 1;

		if ((rc = ibsim_ctl(s, IBSIM_CTL_SET_ISSM, &one, sizeof(one), wait_ms)) < 0) {
			snprintf(err, errlen, "ibsim did not set IsSM: %s", strerror(-rc));
			mad_ibsim_close(s);
			return rc;
		}
	}
	return 0;
}

void mad_ibsim_close(struct mad_ibsim *s)
{
	if (s->ctl_fd >= 0 && s->data_fd >= 0) {
		int zero = 0;

		/* bounded: a simulator that is gone answers nothing */
		if (s->issm)
			(void)ibsim_ctl(s, IBSIM_CTL_SET_ISSM, &zero, sizeof(zero), 120);
		(void)ibsim_ctl(s, IBSIM_CTL_DISCONNECT, NULL, 0, 120);
	}
	if (s->ctl_fd >= 0)
		close(s->ctl_fd);
	if (s->data_fd >= 0)
		close(s->data_fd);
	s->ctl_fd = s->data_fd = -1;
}

int mad_ibsim_send(struct mad_ibsim *s, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct ibsim_wire_mad w;
	int smi = len >= 2 && (mad[1] == SMP_CLASS_LID || mad[1] == SMP_CLASS_DR);

	if (len > SMP_MAD_SIZE)
		len = SMP_MAD_SIZE; /* no RMPP: what umad2sim carries too */
	memset(&w, 0, sizeof(w));
	w.dlid = htons(to->lid);
	w.slid = to->lid == 0xffff ? htons(0xffff) : 0;
	w.dqp = htonl(to->qpn);
	w.sqp = htonl(smi ? 0 : 1);
	w.length = htobe64((uint64_t)len);
	memcpy(w.mad, mad, len);
	for (;;) {
		ssize_t n = write(s->data_fd, &w, sizeof(w));

		if (n == (ssize_t)sizeof(w))
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -errno : -EIO;
	}
}

int mad_ibsim_recv(struct mad_ibsim *s, int timeout_ms, struct mad_addr *from, uint8_t *mad,
		   size_t *len)
{
	struct ibsim_wire_mad w;
	ssize_t n;
	uint64_t l;

	/* the answer is often there already: poll only when it is not */
	n = recv(s->data_fd, &w, sizeof(w), MSG_DONTWAIT);
	if (n < 0 && errno == EAGAIN && timeout_ms != 0) {
		struct pollfd pf = {.fd = s->data_fd, .events = POLLIN};
		int rc = poll(&pf, 1, timeout_ms);

		if (rc < 0)
			return errno == EINTR ? 0 : -errno;
		if (rc == 0)
			return 0;
		n = recv(s->data_fd, &w, sizeof(w), MSG_DONTWAIT);
	}
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n != (ssize_t)sizeof(w) || w.status != 0)
		return 0;
	l = be64toh(w.length);
	*len = l > SMP_MAD_SIZE || l == 0 ? SMP_MAD_SIZE : (size_t)l;
	memcpy(mad, w.mad, *len);
	from->lid = ntohs((uint16_t)w.slid);
	from->qpn = ntohl(w.sqp);
	from->sl = 0;
	return 1;
}
