/*
 * seeds.c - writes the binary seed corpora of the fuzz targets with the
 * repo's own codecs: tests/fuzz/corpus/smp/ (scripts of SMP responses for
 * fuzz_smp.c's queue) and tests/fuzz/corpus/sa/ (scripts of SA requests
 * for fuzz_sa.c's fabric).  `make fuzz-seeds` runs it; the output is
 * checked in.  Only writes files; the formats are described in the targets.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa.h"
#include "mad/sa_mcm.h"
#include "mad/sa_path.h"
#include "mad/sa_svc.h"
#include "mad/sa_topo.h"
#include "mad/smp.h"
#include "sm/sa/server.h"

#define SEEDS_MAX 4096

/* One script being written. */
struct seeds_buf {
	uint8_t b[SEEDS_MAX];
	size_t n;
};

static void seeds_put(struct seeds_buf *s, const uint8_t *p, size_t n)
{
	if (s->n + n > sizeof(s->b)) {
		fprintf(stderr, "seeds: script too long\n");
		exit(1);
	}
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void seeds_op(struct seeds_buf *s, uint8_t op)
{
	seeds_put(s, &op, 1);
}

static void seeds_write(const char *dir, const char *name, const struct seeds_buf *s)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->n, f) != s->n || fclose(f) != 0) {
		fprintf(stderr, "seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* ---- fuzz_smp: responses to the four SMPs on the wire -------------------- */

/* fuzz_smp.c submits, in order (TIDs 1..4): DR NodeInfo 0 hops, DR
 * PortInfo along 1,3, DR SwitchInfo along 1,3,5,8, LID-routed NodeDesc. */
static const uint8_t seeds_smp_path[] = { 0, 1, 3, 5, 8 };

static void seeds_smp_resp(struct seeds_buf *s, uint64_t tid, uint16_t attr, uint8_t hops,
			   const uint8_t *payload, uint16_t status)
{
	uint8_t mad[SMP_MAD_SIZE];
	struct smp smp;

	if (hops == 0xff)
		smp_init_lid(&smp, SMP_METHOD_GET, attr, 0);
	else
		smp_init_dr(&smp, SMP_METHOD_GET, attr, 0, seeds_smp_path, hops);
	smp.tid = tid;
	smp_make_response(&smp);
	smp.status = status;
	memcpy(smp.data, payload, SMP_DATA_SIZE);
	smp_encode(&smp, mad, sizeof(mad));
	seeds_op(s, 0);
	seeds_put(s, mad, sizeof(mad));
}

static void seeds_smp_payloads(uint8_t ni[SMP_DATA_SIZE], uint8_t pi[SMP_DATA_SIZE],
			       uint8_t si[SMP_DATA_SIZE], uint8_t nd[SMP_DATA_SIZE])
{
	struct smp_node_info n = { 1, 1, NODE_TYPE_SWITCH, 36, 0x0002c90300b00100ull,
				   0x0002c90300b00101ull, 0x0002c90300b00101ull, 8, 0xc738,
				   0xa0, 0x2c9, 3 };
	struct smp_port_info p = { 0 };
	struct smp_switch_info w = { 0 };
	struct smp_node_desc d = { "lab-sw MF0;lab-sw:SX6036/U1" };

	smp_node_info_encode(&n, ni);
	p.lid = 5;
	p.sm_lid = 1;
	p.local_port = 3;
	p.state = PORT_STATE_ACTIVE;
	p.phys_state = PORT_PHYS_LINKUP;
	p.link_width_active = 2;
	p.mtu_cap = 5;
	p.neighbor_mtu = 5;
	p.vl_cap = 4;
	p.gid_prefix = 0xfe80000000000000ull;
	smp_port_info_encode(&p, pi);
	w.linear_fdb_cap = 0xc000;
	w.mcast_fdb_cap = 0x200;
	w.linear_fdb_top = 6;
	w.lids_per_port = 1;
	w.partition_enforce_cap = 8;
	smp_switch_info_encode(&w, si);
	smp_node_desc_encode(&d, nd);
}

static void seeds_smp(const char *dir)
{
	uint8_t ni[SMP_DATA_SIZE], pi[SMP_DATA_SIZE], si[SMP_DATA_SIZE], nd[SMP_DATA_SIZE];
	uint8_t zero[SMP_DATA_SIZE] = { 0 };
	struct seeds_buf s = { .n = 0 };
	uint8_t mad[SMP_MAD_SIZE];
	struct smp smp;

	seeds_smp_payloads(ni, pi, si, nd);
	/* every SMP answered, in order */
	seeds_smp_resp(&s, 1, SMP_ATTR_NODE_INFO, 0, ni, 0);
	seeds_smp_resp(&s, 2, SMP_ATTR_PORT_INFO, 2, pi, 0);
	seeds_smp_resp(&s, 3, SMP_ATTR_SWITCH_INFO, 4, si, 0);
	seeds_smp_resp(&s, 4, SMP_ATTR_NODE_DESC, 0xff, nd, 0);
	seeds_write(dir, "all-answered", &s);
	/* a MAD status, a stale TID, another attribute, a late retry answer */
	s.n = 0;
	seeds_smp_resp(&s, 2, SMP_ATTR_PORT_INFO, 2, pi, 0x001c);
	seeds_smp_resp(&s, 9, SMP_ATTR_NODE_INFO, 0, ni, 0);
	seeds_smp_resp(&s, 1, SMP_ATTR_LFT, 0, zero, 0);
	seeds_op(&s, 2 | 4 << 2); /* 100 ms: a retry */
	seeds_smp_resp(&s, 3, SMP_ATTR_SWITCH_INFO, 4, si, 0);
	seeds_op(&s, 2 | 20 << 2); /* the rest times out */
	seeds_write(dir, "status-stale-late", &s);
	/* more SMPs, then a truncated MAD and an unsolicited trap */
	s.n = 0;
	seeds_smp_resp(&s, 1, SMP_ATTR_NODE_INFO, 0, ni, 0);
	seeds_smp_resp(&s, 2, SMP_ATTR_PORT_INFO, 2, pi, 0);
	seeds_op(&s, 3 | 4 << 2); /* LFT, LID-routed */
	seeds_op(&s, 3 | 5 << 2); /* PKeyTable, DR 0 hops */
	seeds_smp_resp(&s, 5, SMP_ATTR_LFT, 0xff, zero, 0);
	seeds_smp_resp(&s, 6, SMP_ATTR_PKEY_TABLE, 0, zero, 0);
	seeds_op(&s, 1);
	seeds_op(&s, 100);
	seeds_put(&s, ni, sizeof(ni));
	seeds_put(&s, pi, 36);
	smp_init_lid(&smp, SMP_METHOD_TRAP, SMP_ATTR_NOTICE, 0);
	smp.tid = 0x1234;
	smp_encode(&smp, mad, sizeof(mad));
	seeds_op(&s, 0);
	seeds_put(&s, mad, sizeof(mad));
	seeds_write(dir, "more-truncated-trap", &s);
}

/* ---- fuzz_sa: requests to the twosw fabric ------------------------------------ */

/* fuzz_sa.c's fabric: LIDs 1..4 host1..host4 port 1, 5 sw1, 6 sw2; the SM
 * on host1; SM_Key 1; partition 0x0010 (host1 full, host2 limited). */
#define SEEDS_GUID(h) (0x0002c90300a00101ull + 0x10 * (h)) /* host h port 1 */

struct seeds_req {
	uint8_t from; /* requester index 0..7 (fuzz_sa.c) */
	uint8_t method;
	uint16_t attr;
	uint64_t mask;
	uint64_t sm_key;
	uint8_t class_version;
	const uint8_t *rec;
	size_t rec_size;
};

static uint64_t seeds_tid = 0x100;

static void seeds_sa(struct seeds_buf *s, const struct seeds_req *q)
{
	uint8_t mad[SA_MAD_SIZE];
	uint8_t rec[SA_DATA_SIZE] = { 0 };
	struct sa_mad h = { 0 };

	h.class_version = q->class_version ? q->class_version : SA_CLASS_VERSION;
	h.method = q->method;
	h.tid = seeds_tid++;
	h.attr_id = q->attr;
	h.comp_mask = q->mask;
	h.sm_key = q->sm_key;
	if (q->rec)
		memcpy(rec, q->rec, q->rec_size);
	sa_encode(&h, rec, 1, q->rec_size ? q->rec_size : 8, mad, sizeof(mad));
	seeds_op(s, (uint8_t)(q->from << 2));
	seeds_put(s, mad, sizeof(mad));
}

static void seeds_gid(uint64_t guid, uint8_t gid[16])
{
	sa_gid_make(0xfe80000000000000ull, guid, gid);
}

static void seeds_sa_topo(const char *dir)
{
	static const uint16_t attrs[] = { SA_ATTR_NODE_RECORD,	   SA_ATTR_PORTINFO_RECORD,
					  SA_ATTR_SWITCHINFO_RECORD, SA_ATTR_LFT_RECORD,
					  SA_ATTR_MFT_RECORD,	   SA_ATTR_SMINFO_RECORD,
					  SA_ATTR_LINK_RECORD,	   SA_ATTR_GUIDINFO_RECORD,
					  SA_ATTR_PKEY_TABLE_RECORD };
	struct seeds_buf s = { .n = 0 };
	uint8_t rec[SA_DATA_SIZE] = { 0 };
	struct seeds_req q = { 0 };

	q.from = 1;
	q.method = SA_METHOD_GET;
	q.attr = SA_ATTR_CLASS_PORT_INFO;
	seeds_sa(&s, &q);
	q.method = SA_METHOD_GET_TABLE;
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		q.attr = attrs[i];
		q.sm_key = i % 2;
		seeds_sa(&s, &q);
	}
	seeds_write(dir, "topo-tables", &s);
	/* Get by LID: a NodeRecord, a switch's PortInfoRecord, an LFT block */
	s.n = 0;
	q.method = SA_METHOD_GET;
	q.from = 3;
	q.attr = SA_ATTR_NODE_RECORD;
	sa_put(rec, &sa_topo_node_desc.comp[SA_TOPO_NR_LID], 3);
	q.rec = rec;
	q.rec_size = 112;
	q.mask = 1ull << SA_TOPO_NR_LID;
	seeds_sa(&s, &q);
	q.attr = SA_ATTR_PORTINFO_RECORD;
	q.rec_size = 64;
	memset(rec, 0, sizeof(rec));
	rec[1] = 5; /* EndportLID */
	rec[2] = 7; /* PortNum */
	q.mask = 3;
	seeds_sa(&s, &q);
	q.attr = SA_ATTR_LFT_RECORD;
	rec[2] = 0;
	q.mask = 1;
	q.method = SA_METHOD_GET_TABLE;
	seeds_sa(&s, &q);
	seeds_write(dir, "topo-by-lid", &s);
}

static void seeds_sa_path(const char *dir)
{
	struct seeds_buf s = { .n = 0 };
	uint8_t rec[SA_DATA_SIZE] = { 0 };
	struct sa_path_rec p = { 0 };
	struct sa_mpath_req mp = { 0 };
	struct seeds_req q = { 1, SA_METHOD_GET, SA_ATTR_PATH_RECORD, 0, 0, 0, rec,
			       SA_PATH_REC_SIZE };

	seeds_gid(SEEDS_GUID(1), p.sgid);
	seeds_gid(SEEDS_GUID(3), p.dgid);
	p.numb_path = 1;
	sa_path_encode(&p, rec);
	q.mask = SA_PR_CM(SA_PR_SGID) | SA_PR_CM(SA_PR_DGID) | SA_PR_CM(SA_PR_NUMB_PATH);
	seeds_sa(&s, &q);
	memset(&p, 0, sizeof(p));
	p.slid = 2;
	p.pkey = 0x0010;
	sa_path_encode(&p, rec);
	q.from = 2;
	q.method = SA_METHOD_GET_TABLE;
	q.mask = SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_PKEY);
	seeds_sa(&s, &q);
	seeds_op(&s, 3 | 1 << 2); /* a new route generation: the cache goes */
	seeds_sa(&s, &q);
	seeds_write(dir, "path", &s);
	/* MultiPathRecord: host1 to host3 and host4 */
	s.n = 0;
	mp.sgid_count = 1;
	mp.dgid_count = 2;
	seeds_gid(SEEDS_GUID(1), mp.gid[0]);
	seeds_gid(SEEDS_GUID(3), mp.gid[1]);
	seeds_gid(SEEDS_GUID(4), mp.gid[2]);
	mp.numb_path = 4;
	memset(rec, 0, sizeof(rec));
	sa_mpath_encode(&mp, rec);
	q.from = 1;
	q.method = SA_METHOD_GET_MULTI;
	q.attr = SA_ATTR_MULTIPATH_RECORD;
	q.rec_size = SA_DATA_SIZE;
	q.mask = SA_MPR_CM(SA_MPR_SGID_COUNT) | SA_MPR_CM(SA_MPR_DGID_COUNT) |
		 SA_MPR_CM(SA_MPR_NUMB_PATH);
	seeds_sa(&s, &q);
	seeds_write(dir, "multipath", &s);
}

static void seeds_sa_mcm(const char *dir)
{
	static const uint8_t ipoib[16] = { 0xff, 0x12, 0x40, 0x1b, 0x80, 0x10, 0, 0,
					   0,	 0,    0,    0,	   0xff, 0xff, 0xff, 0xff };
	struct seeds_buf s = { .n = 0 };
	uint8_t rec[SA_DATA_SIZE] = { 0 };
	/* the first group the SA creates: ff12:a01b:<P_Key>::1 */
	static const uint8_t created[16] = { 0xff, 0x12, 0xa0, 0x1b, 0xff, 0xff, 0, 0,
					     0,	   0,	 0,    0,    0,	   0,	 0, 1 };
	const uint64_t create_mask =
	    SA_MCM_BIT(SA_MCM_COMP_MGID) | SA_MCM_BIT(SA_MCM_COMP_PORT_GID) |
	    SA_MCM_BIT(SA_MCM_COMP_QKEY) | SA_MCM_BIT(SA_MCM_COMP_PKEY) |
	    SA_MCM_BIT(SA_MCM_COMP_MTU_SEL) | SA_MCM_BIT(SA_MCM_COMP_MTU) |
	    SA_MCM_BIT(SA_MCM_COMP_RATE_SEL) | SA_MCM_BIT(SA_MCM_COMP_RATE) |
	    SA_MCM_BIT(SA_MCM_COMP_SL) | SA_MCM_BIT(SA_MCM_COMP_FLOW_LABEL) |
	    SA_MCM_BIT(SA_MCM_COMP_TCLASS) | SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE);
	struct sa_mcm m = { 0 }, create;
	struct seeds_req q = { 1, SA_METHOD_SET, SA_ATTR_MCMEMBER_RECORD, 0, 0, 0, rec,
			       SA_MCM_SIZE };

	/* host1 joins the IPoIB group of 0x0010, then creates a group in the
	 * default partition (it is the only full member of 0x7fff) */
	memcpy(m.mgid, ipoib, 16);
	seeds_gid(SEEDS_GUID(1), m.port_gid);
	m.join_state = SA_MCM_JOIN_FULL;
	sa_mcm_encode(&m, rec);
	q.mask = SA_MCM_BIT(SA_MCM_COMP_MGID) | SA_MCM_BIT(SA_MCM_COMP_PORT_GID) |
		 SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE);
	seeds_sa(&s, &q);
	memset(&m, 0, sizeof(m));
	seeds_gid(SEEDS_GUID(1), m.port_gid);
	m.qkey = 0x1234;
	m.pkey = 0xffff;
	m.mtu_sel = SA_SEL_EXACT;
	m.mtu = 4;
	m.rate_sel = SA_SEL_EXACT;
	m.rate = 3;
	m.sl = 0;
	m.flow_label = 0;
	m.tclass = 0;
	m.join_state = SA_MCM_JOIN_FULL;
	sa_mcm_encode(&m, rec);
	q.mask = create_mask;
	seeds_sa(&s, &q);
	create = m;
	seeds_op(&s, 3); /* trees recomputed, MFTRecords to show */
	q.method = SA_METHOD_GET_TABLE;
	q.mask = 0;
	seeds_sa(&s, &q);
	q.attr = SA_ATTR_MFT_RECORD;
	seeds_sa(&s, &q);
	/* host1 leaves */
	memset(&m, 0, sizeof(m));
	memcpy(m.mgid, ipoib, 16);
	seeds_gid(SEEDS_GUID(1), m.port_gid);
	m.join_state = SA_MCM_JOIN_FULL;
	sa_mcm_encode(&m, rec);
	q.from = 1;
	q.attr = SA_ATTR_MCMEMBER_RECORD;
	q.method = SA_METHOD_DELETE;
	q.mask = SA_MCM_BIT(SA_MCM_COMP_MGID) | SA_MCM_BIT(SA_MCM_COMP_PORT_GID) |
		 SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE);
	seeds_sa(&s, &q);
	seeds_write(dir, "mcmember", &s);
	/* host1 creates a group and leaves it (the group goes, its MLID is
	 * freed); host2 joins the IPoIB group for host1 (a proxy join) */
	s.n = 0;
	sa_mcm_encode(&create, rec);
	q.method = SA_METHOD_SET;
	q.mask = create_mask;
	seeds_sa(&s, &q);
	memset(&m, 0, sizeof(m));
	memcpy(m.mgid, created, 16);
	seeds_gid(SEEDS_GUID(1), m.port_gid);
	m.join_state = SA_MCM_JOIN_FULL;
	sa_mcm_encode(&m, rec);
	q.method = SA_METHOD_DELETE;
	q.mask = SA_MCM_BIT(SA_MCM_COMP_MGID) | SA_MCM_BIT(SA_MCM_COMP_PORT_GID) |
		 SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE);
	seeds_sa(&s, &q);
	memcpy(m.mgid, ipoib, 16);
	m.join_state = SA_MCM_JOIN_NON;
	sa_mcm_encode(&m, rec);
	q.from = 2;
	q.method = SA_METHOD_SET;
	seeds_sa(&s, &q);
	q.method = SA_METHOD_DELETE;
	seeds_sa(&s, &q);
	seeds_write(dir, "mcmember-leave-proxy", &s);
}

static void seeds_sa_svc(const char *dir)
{
	struct seeds_buf s = { .n = 0 };
	uint8_t rec[SA_DATA_SIZE] = { 0 };
	struct sa_svc_rec r = { 0 };
	struct sa_svc_inform ii = { 0 };
	struct seeds_req q = { 2, SA_METHOD_SET, SA_ATTR_SERVICE_RECORD, 0, 0, 0, rec,
			       SA_SVC_REC_SIZE };

	r.id = 0x1000000000000001ull;
	seeds_gid(SEEDS_GUID(2), r.gid);
	r.pkey = 0xffff;
	r.lease = 5;
	memcpy(r.name, "fuzz-service", 12);
	sa_svc_rec_encode(&r, rec);
	q.mask = (1ull << SA_SVC_REC_C_ID) | (1ull << SA_SVC_REC_C_GID) |
		 (1ull << SA_SVC_REC_C_PKEY) | (1ull << SA_SVC_REC_C_LEASE) |
		 (1ull << SA_SVC_REC_C_NAME);
	seeds_sa(&s, &q);
	q.method = SA_METHOD_DELETE;
	seeds_sa(&s, &q);
	q.method = SA_METHOD_SET;
	seeds_sa(&s, &q);
	q.method = SA_METHOD_GET;
	q.from = 3;
	q.mask = 1ull << SA_SVC_REC_C_ID;
	seeds_sa(&s, &q);
	seeds_op(&s, 2 | 6 << 2); /* 6 s: the lease ends */
	seeds_sa(&s, &q);
	seeds_write(dir, "service", &s);
	/* host1 subscribes to traps 64/65 (trusted), a port event, the report's
	 * answer, and the subscriptions listed */
	s.n = 0;
	ii.lid_begin = 0xffff;
	ii.is_generic = 1;
	ii.subscribe = 1;
	ii.type = 0xffff;
	ii.trap_num = 64;
	ii.qpn = 1;
	ii.producer = 0xffffff;
	memset(rec, 0, sizeof(rec));
	sa_svc_inform_encode(&ii, rec);
	q.from = 1;
	q.method = SA_METHOD_SET;
	q.attr = SA_ATTR_INFORM_INFO;
	q.rec_size = SA_SVC_INFORM_SIZE;
	q.mask = 0;
	q.sm_key = 1;
	seeds_sa(&s, &q);
	seeds_op(&s, 3 | 3 << 2 | 3 << 4); /* trap 64 for host3 */
	q.method = SA_METHOD_GET_TABLE;
	q.attr = SA_ATTR_INFORM_INFO_RECORD;
	q.rec_size = SA_SVC_IIR_SIZE;
	memset(rec, 0, sizeof(rec));
	seeds_sa(&s, &q);
	q.method = SA_METHOD_REPORT_RESP;
	q.attr = SA_ATTR_NOTICE;
	q.rec_size = 80;
	seeds_sa(&s, &q);
	seeds_write(dir, "inform", &s);
}

static void seeds_sa_bad(const char *dir)
{
	struct seeds_buf s = { .n = 0 };
	struct seeds_req q = { 0, SA_METHOD_GET, SA_ATTR_NODE_RECORD, 0, 0, 1, NULL, 0 };

	seeds_sa(&s, &q); /* class version 1, from an unknown LID */
	q.class_version = 0;
	q.method = 0x7f;
	seeds_sa(&s, &q);
	q.method = SA_METHOD_GET_MULTI; /* GetMulti is for MultiPathRecord only */
	q.attr = SA_ATTR_PATH_RECORD;
	seeds_sa(&s, &q);
	q.method = SA_METHOD_GET;
	q.attr = 0x1234;
	seeds_sa(&s, &q);
	q.attr = SA_ATTR_NODE_RECORD;
	q.mask = ~0ull;
	q.from = 7; /* LID 0 */
	seeds_sa(&s, &q);
	seeds_op(&s, 3 | 2 << 2); /* no fabric, then back */
	seeds_op(&s, 1);	  /* a cut MAD: the header only */
	seeds_op(&s, SA_HDR_SIZE);
	seeds_put(&s, s.b + 1, SA_HDR_SIZE);
	seeds_write(dir, "bad", &s);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: seeds SMP-DIR SA-DIR\n");
		return 2;
	}
	seeds_smp(argv[1]);
	seeds_sa_topo(argv[2]);
	seeds_sa_path(argv[2]);
	seeds_sa_mcm(argv[2]);
	seeds_sa_svc(argv[2]);
	seeds_sa_bad(argv[2]);
	return 0;
}
