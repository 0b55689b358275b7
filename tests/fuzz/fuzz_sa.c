/*
 * fuzz_sa.c - libFuzzer target for the SA request path: sa_recv (sm/sa/server.c)
 * and every handler behind it (sa_topo.c, sa_path.c, mcast.c, sa_svc.c)
 * on a small fabric: tests/fabrics/twosw.topo (two switches joined by two
 * cables, two hosts each), LIDs 1..6, LFTs from the minhop engine, one
 * IPoIB partition 0x0010 (host1 full, host2 limited) besides the default
 * one, the SM on host1 with SM_Key 1, switches that hold 8 MLIDs, and
 * quotas of 4 groups, services and subscriptions per port, 2 Reports a
 * second and 1 retry, so every SA limit is met.  Each input starts from
 * the same SA:
 * its modules (groups, services, subscriptions, path cache) are made anew
 * and its view is the first one.  The SA and its lookup maps are kept
 * between inputs (rebuilding the 48K-entry LID map for each input cost
 * half the speed).
 *
 * The bytes are a script, one op after another (the last MAD may be cut):
 *   op % 4 == 0  a 256-byte SA MAD follows, from requester (op >> 2) % 8
 *                (0: an unknown LID, 1..6: the fabric's LIDs, 7: LID 0)
 *   op % 4 == 1  a MAD of (next byte) bytes follows, from LID 3
 *   op % 4 == 2  (op >> 2) seconds pass, then sa_tick
 *   op % 4 == 3  (op >> 2) % 4: 0 the multicast trees are recomputed and
 *                the SA gets a view with them; 1 a new route generation;
 *                2 a view without a fabric (before the first sweep) and
 *                back; 3 a port event (trap 64/65) for port (op >> 4) % 8
 * Every answer must decode, answer the request (TID, attribute, method)
 * and carry whole records; every MAD is counted exactly once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey.h"
#include "mad/sa.h"
#include "mad/smp.h"
#include "routing/route.h"
#include "routing/topo_file.h"
#include "sm/sa/mcast.h"
#include "sm/sa/modules.h"
#include "sm/sa/server.h"
#include "sm/sa/services.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_SA_CHECK(cond)                                                                    \
	do {                                                                                   \
		if (!(cond))                                                                   \
			__builtin_trap();                                                      \
	} while (0)

#define FUZZ_SA_SM_KEY 0x1ull

static const char fuzz_sa_topo[] = "vendid=0x2c9\n"
				   "devid=0x1013\n"
				   "caguid=0x0002c90300a00110\n"
				   "Hca\t2 \"host1\"\n"
				   "[1]\t\"sw1\"[1]\n"
				   "\n"
				   "caguid=0x0002c90300a00120\n"
				   "Hca\t2 \"host2\"\n"
				   "[1]\t\"sw1\"[2]\n"
				   "\n"
				   "caguid=0x0002c90300a00130\n"
				   "Hca\t2 \"host3\"\n"
				   "[1]\t\"sw2\"[1]\n"
				   "\n"
				   "caguid=0x0002c90300a00140\n"
				   "Hca\t2 \"host4\"\n"
				   "[1]\t\"sw2\"[2]\n"
				   "\n"
				   "switchguid=0x0002c90300b00101\n"
				   "Switch\t8 \"sw1\"\n"
				   "[1]\t\"host1\"[1]\n"
				   "[2]\t\"host2\"[1]\n"
				   "[7]\t\"sw2\"[7]\n"
				   "[8]\t\"sw2\"[8]\n"
				   "\n"
				   "switchguid=0x0002c90300b00102\n"
				   "Switch\t8 \"sw2\"\n"
				   "[1]\t\"host3\"[1]\n"
				   "[2]\t\"host4\"[1]\n"
				   "[7]\t\"sw1\"[7]\n"
				   "[8]\t\"sw1\"[8]\n";

/* The fabric every input is answered from: built once, read-only after. */
struct fuzz_sa_world {
	struct fabric f;
	struct lft_set lfts;
	struct pkey_plan pk;
	struct policy_partition part;
	struct policy_member members[2];
	uint16_t lids[7];	/* [1..6] the LIDs in use */
	struct sa_port_ref ports[8];
	uint16_t max_lid;
	int sm_node;
	/* kept between inputs */
	struct sa *sa;
	struct mft_set mfts;
	int view_moved; /* an input changed the view: restore it */
};

/* One input's SA and what went out of it. */
struct fuzz_sa_rig {
	struct sa *sa;
	struct mft_set *mfts;
	uint64_t now, gen;
	const struct sa_mad *req; /* the request being answered, NULL otherwise */
	unsigned answers;	   /* to req */
};

static struct fuzz_sa_world fuzz_sa_w;
static int fuzz_sa_trace; /* FUZZ_SA_TRACE=1: one line per MAD sent */

/* ---- the world -------------------------------------------------------------- */

/* Switch port 0 and every cabled CA port get LIDs 1.. in file order. */
static void fuzz_sa_assign_lids(struct fuzz_sa_world *w)
{
	unsigned k = 0;

	for (size_t i = 0; i < w->f.n_nodes; i++) {
		struct fabric_node *n = &w->f.nodes[i];
		unsigned first = fabric_is_switch(n) ? 0 : 1;
		unsigned last = fabric_is_switch(n) ? 0 : n->num_ports;

		for (unsigned p = first; p <= last && k < 6; p++) {
			if (!n->ports[p].present)
				continue;
			n->ports[p].lid = (uint16_t)++k;
			w->lids[k] = n->ports[p].lid;
			w->ports[k] = (struct sa_port_ref){ (int)i, (uint8_t)p };
		}
	}
	FUZZ_SA_CHECK(k == 6);
	w->max_lid = (uint16_t)k;
	w->ports[0] = (struct sa_port_ref){ FABRIC_NONE, 0 };
	w->ports[7] = (struct sa_port_ref){ 0, 2 }; /* host1's uncabled port */
}

static int fuzz_sa_node(const struct fabric *f, const char *desc)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		if (!strcmp(f->nodes[i].desc, desc))
			return (int)i;
	__builtin_trap();
}

static void fuzz_sa_partitions(struct fuzz_sa_world *w)
{
	char err[256];
	int h1 = fuzz_sa_node(&w->f, "host1"), h2 = fuzz_sa_node(&w->f, "host2");

	w->members[0] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
					       .guid = w->f.nodes[h1].ports[1].guid,
					       .membership = POLICY_FULL};
	w->members[1] = (struct policy_member){.kind = POLICY_MEMBER_GUID,
					       .guid = w->f.nodes[h2].ports[1].guid,
					       .membership = POLICY_LIMITED};
	strcpy(w->part.name, "storage");
	w->part.pkey = 0x0010;
	w->part.ipoib = 1;
	w->part.mtu = 2048;
	w->part.members = w->members;
	w->part.n_members = 2;
	w->sm_node = h1;
	pkey_plan_init(&w->pk);
	FUZZ_SA_CHECK(
	    pkey_plan_build(&w->pk, &w->part, 1, NULL, 0, &w->f, h1, 1, err, sizeof(err)) == 0);
}

static void fuzz_sa_world_init(struct fuzz_sa_world *w)
{
	struct route_opts opts = {0};
	char err[256];

	fabric_init(&w->f);
	FUZZ_SA_CHECK(topo_parse(fuzz_sa_topo, sizeof(fuzz_sa_topo) - 1, "twosw.topo", &w->f, err,
				 sizeof(err)) == 0);
	fuzz_sa_assign_lids(w);
	/* switches that hold 8 MLIDs, so joins run out of them (0x0100) */
	for (size_t i = 0; i < w->f.n_nodes; i++) {
		struct smp_switch_info si = {0};

		if (!fabric_is_switch(&w->f.nodes[i]))
			continue;
		si.mcast_fdb_cap = 8;
		smp_switch_info_encode(&si, w->f.nodes[i].si_raw);
	}
	opts.max_lid = w->max_lid;
	lft_set_init(&w->lfts);
	FUZZ_SA_CHECK(route_engine_minhop.compute(&w->f, &opts, &w->lfts, NULL, err, sizeof(err)) ==
		      0);
	fuzz_sa_partitions(w);
}

/* ---- views ------------------------------------------------------------------- */

static void fuzz_sa_view(struct fuzz_sa_rig *r, int with_fabric)
{
	const struct fuzz_sa_world *w = &fuzz_sa_w;
	struct sa_view v = { 0 };

	if (with_fabric) {
		v.f = &w->f;
		v.lfts = &w->lfts;
		v.pk = &w->pk;
		v.mfts = r->mfts;
	}
	v.subnet_prefix = 0xfe80000000000000ull;
	v.sm_lid = w->f.nodes[w->sm_node].ports[1].lid;
	v.sm_guid = w->f.nodes[w->sm_node].ports[1].guid;
	v.sm_key = FUZZ_SA_SM_KEY;
	v.sm_priority = 5;
	v.sm_state = 3;
	v.sm_act_count = 42;
	v.subnet_timeout = 18;
	v.route_gen = r->gen;
	FUZZ_SA_CHECK(sa_update(r->sa, &v) == 0);
	fuzz_sa_w.view_moved = 1;
}

static void fuzz_sa_event(struct fuzz_sa_rig *r, unsigned op)
{
	const struct fuzz_sa_world *w = &fuzz_sa_w;
	uint8_t gid[16];

	switch ((op >> 2) % 4) {
	case 0:
		FUZZ_SA_CHECK(mcast_mft_compute(r->sa, r->mfts) == 0);
		fuzz_sa_view(r, 1);
		break;
	case 1:
		r->gen++;
		fuzz_sa_view(r, 1);
		break;
	case 2:
		fuzz_sa_view(r, 0);
		fuzz_sa_view(r, 1);
		break;
	default:
		sa_port_gid(r->sa, w->ports[(op >> 4) % 8], gid);
		sa_svc_port_event(r->sa, gid, op & 0x80 ? 65 : 64, r->now);
		break;
	}
}

/* ---- answers ----------------------------------------------------------------- */

/* An answer to r->req: a response to it, whole records only. */
static void fuzz_sa_check_answer(const struct fuzz_sa_rig *r, const struct sa_mad *m, size_t len)
{
	const struct sa_mad *q = r->req;
	size_t body = len - SA_HDR_SIZE;

	FUZZ_SA_CHECK(m->method & SA_METHOD_RESP);
	FUZZ_SA_CHECK(m->tid == q->tid && m->attr_id == q->attr_id);
	FUZZ_SA_CHECK((m->method & ~SA_METHOD_RESP) ==
		      (q->method == SA_METHOD_SET ? SA_METHOD_GET : q->method));
	if (!(m->rmpp_flags & SA_RMPP_FLAG_ACTIVE)) {
		FUZZ_SA_CHECK(len == SA_MAD_SIZE);
		return;
	}
	if (m->attr_offset)
		FUZZ_SA_CHECK(body % ((size_t)m->attr_offset * 8) == 0);
	else
		FUZZ_SA_CHECK(body == 0);
	if (m->status)
		FUZZ_SA_CHECK(body == 0);
}

/* A Report to a subscriber: a Notice, never a response. */
static void fuzz_sa_check_report(const struct sa_mad *m, size_t len)
{
	FUZZ_SA_CHECK(m->method == SA_METHOD_REPORT);
	FUZZ_SA_CHECK(m->attr_id == SA_ATTR_NOTICE);
	FUZZ_SA_CHECK(len == SA_MAD_SIZE);
}

static int fuzz_sa_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct fuzz_sa_rig *r = ctx;
	struct sa_mad m;

	FUZZ_SA_CHECK(len >= SA_HDR_SIZE);
	FUZZ_SA_CHECK(sa_decode(mad, len, &m) == 0);
	FUZZ_SA_CHECK(m.class_version == SA_CLASS_VERSION);
	if (fuzz_sa_trace)
		fprintf(stderr, "sa: %s %s to %u: %s, %zu bytes\n", sa_method_name(m.method),
			sa_attr_name(m.attr_id), to->lid, sa_status_name(m.status), len);
	if (r->req && (m.method & SA_METHOD_RESP)) {
		r->answers++;
		fuzz_sa_check_answer(r, &m, len);
	} else {
		fuzz_sa_check_report(&m, len);
	}
	return 0;
}

/* ---- requests ---------------------------------------------------------------- */

static void fuzz_sa_recv(struct fuzz_sa_rig *r, uint16_t from_lid, const uint8_t *mad, size_t len)
{
	struct sa_counters before = r->sa->counters;
	const struct sa_counters *after = &r->sa->counters;
	struct mad_addr from = { from_lid, 0, 1 };
	struct sa_mad m;
	int rc = sa_decode(mad, len, &m);

	r->req = rc == 0 ? &m : NULL;
	r->answers = 0;
	sa_recv(r->sa, &from, mad, len, r->now);
	r->req = NULL;
	FUZZ_SA_CHECK(after->requests == before.requests + 1);
	FUZZ_SA_CHECK(after->malformed == before.malformed + (rc < 0));
	/* a request gets one answer; a response (ReportResp) none */
	FUZZ_SA_CHECK(r->answers == (rc == 0 && !(m.method & SA_METHOD_RESP)));
}

static size_t fuzz_sa_step(struct fuzz_sa_rig *r, const uint8_t *data, size_t size)
{
	const struct fuzz_sa_world *w = &fuzz_sa_w;
	uint8_t op = data[0];
	uint16_t lid;
	size_t len, skip = 1;

	switch (op % 4) {
	case 0:
		len = SA_MAD_SIZE;
		lid = (op >> 2) % 8 == 0 ? 0x77 : (op >> 2) % 8 == 7 ? 0 : w->lids[(op >> 2) % 8];
		break;
	case 1:
		len = size > 1 ? data[1] : 0;
		skip = size > 1 ? 2 : 1;
		lid = w->lids[3];
		break;
	case 2:
		r->now += (uint64_t)(op >> 2) * 1000;
		sa_tick(r->sa, r->now);
		return 1;
	default:
		fuzz_sa_event(r, op);
		return 1;
	}
	if (len > size - skip)
		len = size - skip;
	fuzz_sa_recv(r, lid, data + skip, len);
	return skip + len;
}

/* The SA as a fresh one would be after its first sweep. */
static void fuzz_sa_reset(struct fuzz_sa_rig *r)
{
	struct fuzz_sa_world *w = &fuzz_sa_w;
	struct mad_xmit x = { fuzz_sa_send, r };

	if (!w->sa) {
		fuzz_sa_world_init(w);
		fuzz_sa_trace = getenv("FUZZ_SA_TRACE") != NULL;
		mft_set_init(&w->mfts);
		w->sa = sa_new(&x);
		FUZZ_SA_CHECK(w->sa);
		w->view_moved = 1;
	}
	r->sa = w->sa;
	r->mfts = &w->mfts;
	r->gen = 1;
	r->now = 1000;
	r->sa->xmit = x;
	sa_modules_free(r->sa);
	FUZZ_SA_CHECK(sa_modules_new(r->sa) == 0);
	/* small quotas and Report limits, so the fuzzer meets every refusal */
	r->sa->lim = (struct sa_limits){4, 4, 4, 2, 1};
	mcast_db_set_limits(r->sa->mcast, r->sa->mlid_cap, r->sa->quota);
	memset(&r->sa->counters, 0, sizeof(r->sa->counters));
	mft_set_fini(r->mfts);
	mft_set_init(r->mfts);
	FUZZ_SA_CHECK(mcast_db_set_partitions(r->sa->mcast, &w->part, 1, NULL, NULL) == 0);
	if (w->view_moved)
		fuzz_sa_view(r, 1);
	w->view_moved = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_sa_rig r = { 0 };

	fuzz_sa_reset(&r);
	while (size) {
		size_t used = fuzz_sa_step(&r, data, size);

		data += used;
		size -= used;
	}
	return 0;
}
