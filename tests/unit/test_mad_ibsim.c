/*
 * test_mad_ibsim.c - ibsim's own socket protocol (mad/mad_ibsim.c)
 * against a fake ibsim in a thread: the attach and IsSM requests, the
 * header of each MAD datagram both ways (LIDs and QPs in network order, a
 * directed-route SMP's permissive LIDs, SMPs from QP0 and GMPs from QP1),
 * answers ibsim marks as failed or cut short are dropped, a refused attach
 * and a missing simulator are errors that say why, and closing gives IsSM
 * back before it detaches.  The datagram layouts are written out here
 * again from ibsim's protocol, not taken from the code under test.
 */
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mad/mad_ibsim.h"
#include "mad/mad_port.h"
#include "mad/smp.h"
#include "tests/unit/unit.h"

struct tb_mad {
	uint32_t dlid, slid, dqp, sqp, status;
	uint64_t length;
	uint8_t mad[256];
};

struct tb_ctl {
	uint32_t magic, client, type, len;
	uint8_t data[64];
};

struct tb_attach {
	uint32_t id, qp, issm;
	char node[32];
};

struct tb_sim {
	char name[64];
	int ctl, out;
	int refuse;   /* answer the attach with an error */
	int answer_smps; /* 1: answer the port's own NodeInfo and PortInfo Gets; 2: only read them
			  */
	int smps_seen;
	int types[8]; /* control requests seen, in order */
	int n_types;
	uint32_t issm_asked, issm_value;
	int id; /* the id the client named its socket with */
	char node[32];
	pthread_t thread;
};

static socklen_t tb_name(struct sockaddr_un *a, const char *fmt, const char *base, int n)
{
	int len;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	len = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 2, fmt, base, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 2 + (size_t)len);
}

static int tb_bind(const char *fmt, const char *base, int n)
{
	struct sockaddr_un a;
	socklen_t l = tb_name(&a, fmt, base, n);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, l) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The fake's node: a directed-route Get of NodeInfo or PortInfo with no
 * hops, answered as host1's port 1 (GUID ...11, LID 7, ACTIVE); anything
 * else is only counted. */
static void tb_answer(struct tb_sim *t)
{
	struct tb_mad w;
	struct smp smp;

	if (recv(t->out, &w, sizeof(w), 0) != (ssize_t)sizeof(w) ||
	    smp_decode(w.mad, sizeof(w.mad), &smp) < 0)
		return;
	t->smps_seen++;
	if (t->answer_smps != 1)
		return;
	if (smp.attr_id == SMP_ATTR_NODE_INFO) {
		struct smp_node_info ni = {.base_version = 1,
					   .class_version = 1,
					   .node_type = NODE_TYPE_CA,
					   .num_ports = 2,
					   .node_guid = 0x0002c90300a00010ull,
					   .port_guid = 0x0002c90300a00011ull,
					   .local_port = 1};

		smp_node_info_encode(&ni, smp.data);
	} else if (smp.attr_id == SMP_ATTR_PORT_INFO && smp.attr_mod == 1) {
		struct smp_port_info pi = {.lid = 7, .sm_lid = 7, .local_port = 1, .state = 4};

		smp_port_info_encode(&pi, smp.data);
	} else {
		return;
	}
	smp_make_response(&smp);
	smp_encode(&smp, w.mad, sizeof(w.mad));
	w.slid = htons(0xffff);
	send(t->out, &w, sizeof(w), 0);
}

/* The fake's control side: answer every request until DISCONNECT or 4 s
 * of silence. */
static void *tb_serve(void *arg)
{
	struct tb_sim *t = arg;

	for (;;) {
		struct pollfd pf[2] = {{.fd = t->ctl, .events = POLLIN},
				       {.fd = t->out, .events = POLLIN}};
		struct sockaddr_un from;
		socklen_t fl = sizeof(from);
		struct tb_ctl c;

		if (poll(pf, t->answer_smps ? 2 : 1, 4000) <= 0)
			return NULL;
		if (t->answer_smps && (pf[1].revents & POLLIN)) {
			tb_answer(t);
			continue;
		}
		if (recvfrom(t->ctl, &c, sizeof(c), 0, (struct sockaddr *)&from, &fl) !=
		    (ssize_t)sizeof(c))
			return NULL;
		if (c.magic != 0xdeadbeefu)
			return NULL;
		if (t->n_types < 8)
			t->types[t->n_types++] = (int)c.type;
		if (c.type == 1) { /* attach */
			struct tb_attach at;
			struct sockaddr_un in;
			socklen_t il;

			memcpy(&at, c.data, sizeof(at));
			t->id = (int)at.id;
			t->issm_asked = at.issm;
			memcpy(t->node, at.node, sizeof(t->node));
			t->node[31] = 0;
			if (t->refuse) {
				c.type = 0;
			} else {
				il = tb_name(&in, "%s:in%d", t->name, t->id);
				if (connect(t->out, (struct sockaddr *)&in, il) < 0)
					c.type = 0;
				at.id = 3;
				memcpy(c.data, &at, sizeof(at));
			}
		} else if (c.type == 9) {
			memcpy(&t->issm_value, c.data, sizeof(t->issm_value));
		}
		sendto(t->ctl, &c, sizeof(c), 0, (struct sockaddr *)&from, fl);
		if (c.type == 2 || (c.type == 0 && t->refuse))
			return NULL;
	}
}

static int tb_start(struct tb_sim *t, const char *name, int refuse)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s-%d", name, (int)getpid());
	t->refuse = refuse;
	t->ctl = tb_bind("%s:ctl", t->name, 0);
	t->out = tb_bind("%s:out%d", t->name, 3);
	if (t->ctl < 0 || t->out < 0)
		return -1;
	return pthread_create(&t->thread, NULL, tb_serve, t) == 0 ? 0 : -1;
}

static void tb_stop(struct tb_sim *t)
{
	pthread_join(t->thread, NULL);
	close(t->ctl);
	close(t->out);
}

static int tb_read(struct tb_sim *t, struct tb_mad *w)
{
	struct pollfd pf = {.fd = t->out, .events = POLLIN};

	if (poll(&pf, 1, 2000) <= 0)
		return -1;
	return (int)recv(t->out, w, sizeof(*w), 0);
}

static void test_ibsim_wire(void)
{
	struct tb_sim t;
	struct mad_ibsim s;
	struct tb_mad w;
	struct smp smp;
	uint8_t mad[256], got[256];
	struct mad_addr to = {.lid = 0xffff, .qpn = 0}, from;
	size_t len = 0;
	char err[256] = "";

	CU_ASSERT_FATAL(sizeof(struct tb_mad) == 288);
	CU_ASSERT_FATAL(tb_start(&t, "nsm-ut-ibsim", 0) == 0);
	CU_ASSERT_EQUAL_FATAL(mad_ibsim_open(&s, t.name, "host1", 1, 2000, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(s.client, 3);
	CU_ASSERT_EQUAL(t.issm_asked, 0); /* never in the attach: a killed SM's would refuse it */
	CU_ASSERT_EQUAL(t.issm_value, 1); /* IsSM set right after the attach */
	CU_ASSERT_STRING_EQUAL(t.node, "host1");
	CU_ASSERT_EQUAL(t.id % 4194304, (int)getpid());

	/* a directed-route SMP: permissive LIDs both ways, from QP0 */
	smp_init_dr(&smp, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, 0);
	smp.tid = 0x1234;
	CU_ASSERT_EQUAL_FATAL(smp_encode(&smp, mad, sizeof(mad)), 0);
	CU_ASSERT_EQUAL(mad_ibsim_send(&s, &to, mad, sizeof(mad)), 0);
	CU_ASSERT_EQUAL_FATAL(tb_read(&t, &w), 288);
	CU_ASSERT_EQUAL(ntohs((uint16_t)w.dlid), 0xffff);
	CU_ASSERT_EQUAL(ntohs((uint16_t)w.slid), 0xffff);
	CU_ASSERT_EQUAL(ntohl(w.sqp), 0);
	CU_ASSERT_EQUAL(ntohl(w.dqp), 0);
	CU_ASSERT_EQUAL(be64toh(w.length), 256);
	CU_ASSERT(memcmp(w.mad, mad, 256) == 0);

	/* a GMP to LID 0x0102 on QP1: from QP1, source LID left to ibsim */
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;
	mad[1] = 0x03;
	mad[2] = 2;
	mad[3] = 0x01;
	to.lid = 0x0102;
	to.qpn = 1;
	CU_ASSERT_EQUAL(mad_ibsim_send(&s, &to, mad, 100), 0);
	CU_ASSERT_EQUAL_FATAL(tb_read(&t, &w), 288);
	CU_ASSERT_EQUAL(ntohs((uint16_t)w.dlid), 0x0102);
	CU_ASSERT_EQUAL(w.slid, 0);
	CU_ASSERT_EQUAL(ntohl(w.sqp), 1);
	CU_ASSERT_EQUAL(ntohl(w.dqp), 1);
	CU_ASSERT_EQUAL(be64toh(w.length), 100);

	/* nothing there, no wait: 0 at once */
	CU_ASSERT_EQUAL(mad_ibsim_recv(&s, 0, &from, got, &len), 0);

	/* an answer from LID 7 QP1 */
	memset(&w, 0, sizeof(w));
	w.slid = htons(7);
	w.sqp = htonl(1);
	w.length = htobe64(256);
	w.mad[0] = 0x5a;
	CU_ASSERT_EQUAL(send(t.out, &w, sizeof(w), 0), 288);
	CU_ASSERT_EQUAL(mad_ibsim_recv(&s, 1000, &from, got, &len), 1);
	CU_ASSERT_EQUAL(from.lid, 7);
	CU_ASSERT_EQUAL(from.qpn, 1);
	CU_ASSERT_EQUAL(len, 256);
	CU_ASSERT_EQUAL(got[0], 0x5a);

	/* ibsim's "could not deliver" (status 110) and a runt are dropped */
	w.status = htonl(110);
	CU_ASSERT_EQUAL(send(t.out, &w, sizeof(w), 0), 288);
	CU_ASSERT_EQUAL(mad_ibsim_recv(&s, 1000, &from, got, &len), 0);
	w.status = 0;
	CU_ASSERT_EQUAL(send(t.out, &w, 100, 0), 100);
	CU_ASSERT_EQUAL(mad_ibsim_recv(&s, 1000, &from, got, &len), 0);
	/* and a good one after them still arrives */
	w.mad[0] = 0x6b;
	CU_ASSERT_EQUAL(send(t.out, &w, sizeof(w), 0), 288);
	CU_ASSERT_EQUAL(mad_ibsim_recv(&s, 1000, &from, got, &len), 1);
	CU_ASSERT_EQUAL(got[0], 0x6b);

	mad_ibsim_close(&s);
	tb_stop(&t);
	/* attach, IsSM on; at close IsSM off, then detach */
	CU_ASSERT_EQUAL(t.n_types, 4);
	CU_ASSERT_EQUAL(t.types[0], 1);
	CU_ASSERT_EQUAL(t.types[1], 9);
	CU_ASSERT_EQUAL(t.types[2], 9);
	CU_ASSERT_EQUAL(t.types[3], 2);
	CU_ASSERT_EQUAL(t.issm_value, 0);
	CU_ASSERT_EQUAL(s.ctl_fd, -1);
	CU_ASSERT_EQUAL(s.data_fd, -1);
}

static void test_ibsim_refused(void)
{
	struct tb_sim t;
	struct mad_ibsim s;
	char err[256] = "";

	CU_ASSERT_FATAL(tb_start(&t, "nsm-ut-ibsim-no", 1) == 0);
	CU_ASSERT_EQUAL(mad_ibsim_open(&s, t.name, "nosuchhost", 1, 2000, err, sizeof(err)),
			-ECONNREFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "refused to attach us to node \"nosuchhost\""));
	CU_ASSERT_EQUAL(s.ctl_fd, -1);
	CU_ASSERT_EQUAL(s.data_fd, -1);
	tb_stop(&t);
}

static void test_ibsim_missing(void)
{
	struct mad_ibsim s;
	char err[256] = "", name[64];

	snprintf(name, sizeof(name), "nsm-ut-nobody-%d", (int)getpid());
	CU_ASSERT_EQUAL(mad_ibsim_open(&s, name, NULL, 1, 100, err, sizeof(err)), -ECONNREFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no ibsim on socket name"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, name));
}

/* The whole port over the fake: opened with its own NodeInfo and PortInfo
 * read, or, when the node never answers, closed again (IsSM given back,
 * detached) with an error that says so. */
static void tb_port(int answer, struct tb_sim *t, char *err, size_t errlen,
		    struct mad_port_info *info)
{
	struct mad_port *p;

	CU_ASSERT_FATAL(tb_start(t, answer ? "nsm-ut-ibsim-port" : "nsm-ut-ibsim-mute", 0) == 0);
	t->answer_smps = answer ? 1 : 2; /* 2: read and count, never answer */
	setenv("IBSIM_SOCKNAME", t->name, 1);
	p = mad_port_open_ibsim("host1", NULL, NULL, err, errlen);
	unsetenv("IBSIM_SOCKNAME");
	if (p) {
		*info = *mad_port_info(p);
		mad_port_close(p);
	}
	tb_stop(t);
}

static void test_ibsim_port(void)
{
	struct tb_sim t;
	struct mad_port_info info;
	char err[256] = "";

	memset(&info, 0, sizeof(info));
	tb_port(1, &t, err, sizeof(err), &info);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_STRING_EQUAL(info.ca, "ibsim:host1");
	CU_ASSERT_EQUAL(info.port, 1);
	CU_ASSERT_EQUAL(info.port_guid, 0x0002c90300a00011ull);
	CU_ASSERT_EQUAL(info.node_guid, 0x0002c90300a00010ull);
	CU_ASSERT_EQUAL(info.lid, 7);
	CU_ASSERT_EQUAL(info.state, 4);
	CU_ASSERT_EQUAL(info.is_sm, 1);
	CU_ASSERT_EQUAL(t.smps_seen, 2);
	CU_ASSERT_EQUAL(t.n_types, 4); /* attach, IsSM on, IsSM off, detach */
	CU_ASSERT_EQUAL(t.types[3], 2);
}

static void test_ibsim_port_mute(void)
{
	struct tb_sim t;
	struct mad_port_info info;
	char err[256] = "";

	tb_port(0, &t, err, sizeof(err), &info);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "ibsim node \"host1\" did not answer for its own port"));
	CU_ASSERT_EQUAL(t.smps_seen, 1); /* the NodeInfo Get, never answered */
	/* not left attached: IsSM given back and detached */
	CU_ASSERT_EQUAL_FATAL(t.n_types, 4);
	CU_ASSERT_EQUAL(t.types[2], 9);
	CU_ASSERT_EQUAL(t.types[3], 2);
	CU_ASSERT_EQUAL(t.issm_value, 0);
}

void test_mad_ibsim_register(void)
{
	CU_pSuite s = CU_add_suite("mad_ibsim", NULL, NULL);

	CU_add_test(s, "attach, IsSM, datagram headers both ways, close", test_ibsim_wire);
	CU_add_test(s, "a refused attach says which node", test_ibsim_refused);
	CU_add_test(s, "no simulator on the name: an error, bounded", test_ibsim_missing);
	CU_add_test(s, "a port: its own NodeInfo and PortInfo read", test_ibsim_port);
	CU_add_test(s, "a port whose node never answers: detached again", test_ibsim_port_mute);
}
