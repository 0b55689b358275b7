/*
 * nanosm-sa.c - a small SA client for tests and operators: raw queries,
 * multicast join/leave, PathRecord lookups, deliberately malformed
 * requests and a PathRecord flood.  Owns its command line and its client
 * MAD port; it never changes the fabric except through SA methods
 * (Set/Delete of MCMemberRecords).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/mad_port.h"
#include "mad/port_args.h"
#include "mad/sa.h"
#include "mad/sa_mcm.h"
#include "mad/sa_path.h"
#include "mad/sa_svc.h"

#define SACLI_EXIT_OK 0
#define SACLI_EXIT_FAILED 1
#define SACLI_EXIT_USAGE 2
#define SACLI_LID_MAX 0xbfff /* -l: a unicast LID */
#define SACLI_TIMEOUT_MAX 60000
#define SACLI_RETRIES_MAX 100

struct sacli {
	struct mad_port *port;
	uint16_t sm_lid;
	unsigned timeout_ms, retries;
	uint64_t tid;
	int issm; /* subscribe: hold issm (ibsim delivers Reports only then) */
	size_t no_resources; /* the last flood's answers with status 0x0100 */
};

static uint64_t sacli_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- transport ----------------------------------------------------------- */

struct sacli_wait {
	uint64_t tid;
	int got;
	uint8_t mad[SA_MAD_SIZE];
	size_t len;
	/* flood bookkeeping: every answer counts */
	struct sacli_flood *flood;
};

struct sacli_flood {
	uint64_t tid_base;
	size_t answered, ok, errors, no_resources;
	uint8_t *outstanding; /* one byte per request, 1 while on the wire */
	size_t n;
};

static void sacli_rx(void *ctx, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	struct sacli_wait *w = ctx;
	struct sa_mad m;

	(void)from;
	if (sa_decode(mad, len, &m) < 0)
		return;
	if (w->flood) {
		uint64_t i = (uint32_t)(m.tid - w->flood->tid_base);

		if (i < w->flood->n && w->flood->outstanding[i]) {
			w->flood->outstanding[i] = 0;
			w->flood->answered++;
			w->flood->no_resources += m.status == SA_STATUS_NO_RESOURCES;
			if (m.status)
				w->flood->errors++;
			else
				w->flood->ok++;
		}
		return;
	}
	/* the kernel (and umad2sim) own the TID's upper 32 bits */
	if ((uint32_t)m.tid != (uint32_t)w->tid)
		return;
	w->got = 1;
	w->len = len < sizeof(w->mad) ? len : sizeof(w->mad);
	memcpy(w->mad, mad, w->len);
}

static int sacli_call(struct sacli *c, const uint8_t *mad, size_t len, struct sa_mad *resp)
{
	struct mad_xmit x = mad_port_xmit(c->port);
	struct mad_addr to = { c->sm_lid, 0, 1 };
	struct sacli_wait w = { 0 };
	struct sa_mad req;

	if (sa_decode(mad, len, &req) < 0)
		req.tid = 0; /* a deliberately broken request: wait for any answer */
	w.tid = req.tid;
	for (unsigned attempt = 0; attempt <= c->retries; attempt++) {
		uint64_t end = sacli_now_ms() + c->timeout_ms;

		if (x.send(x.ctx, &to, mad, len) < 0)
			return -EIO;
		while (!w.got && sacli_now_ms() < end) {
			int rc = mad_port_wait(c->port, (unsigned)(end - sacli_now_ms()));

			if (rc < 0)
				return rc;
			mad_port_drain(c->port, sacli_rx, &w);
		}
		if (w.got)
			return sa_decode(w.mad, w.len, resp) < 0 ? -EPROTO : 0;
	}
	return -ETIMEDOUT;
}

static int sacli_query(struct sacli *c, uint8_t method, uint16_t attr, uint64_t comp_mask,
		const uint8_t *rec, size_t rec_len, struct sa_mad *resp)
{
	struct sa_mad h = { 0 };
	uint8_t buf[SA_MAD_SIZE];

	h.class_version = SA_CLASS_VERSION;
	h.method = method;
	h.tid = ++c->tid;
	h.attr_id = attr;
	h.comp_mask = comp_mask;
	sa_encode(&h, NULL, 0, 0, buf, sizeof(buf));
	if (rec && rec_len)
		memcpy(buf + SA_HDR_SIZE, rec, rec_len > SA_DATA_SIZE ? SA_DATA_SIZE : rec_len);
	return sacli_call(c, buf, sizeof(buf), resp);
}

static void sacli_print_status(const char *what, const struct sa_mad *m)
{
	size_t n = m->attr_offset ? SA_DATA_SIZE / (m->attr_offset * 8u) : 0;

	printf("%s: status 0x%04x (%s) method %s attribute %s", what, m->status,
	       sa_status_name(m->status), sa_method_name(m->method), sa_attr_name(m->attr_id));
	if (m->attr_offset)
		printf(" record_bytes %u records_in_first_mad<=%zu", m->attr_offset * 8u, n);
	printf("\n");
}

/* Send n PathRecord Gets (pairs[i % n_pairs]) keeping `window` on the
 * wire; report answers per second. */
static int sacli_flood(struct sacli *c, size_t n, unsigned window,
		void (*build)(void *arg, size_t i, uint8_t *mad), void *arg)
{
	struct mad_xmit x = mad_port_xmit(c->port);
	struct mad_addr to = { c->sm_lid, 0, 1 };
	struct sacli_flood fl = { 0 };
	struct sacli_wait w = { 0 };
	uint64_t start = sacli_now_ms(), last_progress = start;
	size_t sent = 0, inflight;
	uint8_t mad[SA_MAD_SIZE];

	fl.n = n;
	fl.tid_base = c->tid + 1;
	fl.outstanding = calloc(n ? n : 1, 1);
	if (!fl.outstanding)
		return -ENOMEM;
	w.flood = &fl;
	while (fl.answered < n) {
		inflight = sent - fl.answered;
		while (sent < n && inflight < window) {
			build(arg, sent, mad);
			mad[8] = 0; /* TID = tid_base + sent, high byte first */
			for (int b = 0; b < 8; b++)
				mad[8 + b] = (uint8_t)((fl.tid_base + sent) >> (56 - 8 * b));
			fl.outstanding[sent] = 1;
			if (x.send(x.ctx, &to, mad, sizeof(mad)) < 0)
				break;
			sent++;
			inflight++;
		}
		if (mad_port_wait(c->port, 50) < 0)
			break;
		if (mad_port_drain(c->port, sacli_rx, &w))
			last_progress = sacli_now_ms();
		if (sacli_now_ms() - last_progress > c->timeout_ms * (c->retries + 1u))
			break; /* answers stopped coming: report what we have */
	}
	c->tid = fl.tid_base + n;
	c->no_resources = fl.no_resources;
	{
		uint64_t ms = sacli_now_ms() - start;

		printf("flood: sent %zu answered %zu ok %zu errors %zu lost %zu in %" PRIu64
		       " ms: %.0f answers/s\n",
		       sent, fl.answered, fl.ok, fl.errors, sent - fl.answered, ms,
		       ms ? (double)fl.answered * 1000.0 / (double)ms : 0.0);
	}
	free(fl.outstanding);
	return fl.answered == n ? 0 : -ETIMEDOUT;
}

/* ---- commands ------------------------------------------------------------- */

static int sacli_hex_bytes(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (*hex && n < max) {
		unsigned v;

		if (*hex == ':' || *hex == ' ' || *hex == '.') {
			hex++;
			continue;
		}
		if (sscanf(hex, "%2x", &v) != 1 || !hex[1])
			return -EINVAL;
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return (int)n;
}

static int sacli_exit(int rc, const char *what, const struct sa_mad *resp)
{
	if (rc < 0) {
		printf("%s: no answer (%s)\n", what, strerror(-rc));
		return SACLI_EXIT_FAILED;
	}
	sacli_print_status(what, resp);
	return resp->status ? SACLI_EXIT_FAILED : SACLI_EXIT_OK;
}

static void sacli_dump_records(const struct sa_mad *m)
{
	unsigned size = m->attr_offset * 8u;

	for (unsigned off = 0; size && off + size <= SA_DATA_SIZE; off += size) {
		printf("record:");
		for (unsigned i = 0; i < size; i++)
			printf("%s%02x", i % 8 ? "" : " ", m->data[off + i]);
		printf("\n");
	}
}

/* get|gettable ATTR [MASK [HEX]] */
static int sacli_cmd_get(struct sacli *c, int argc, char **argv, uint8_t method)
{
	uint8_t rec[SA_DATA_SIZE] = { 0 };
	struct sa_mad resp;
	int rc, n = 0;

	if (argc < 2)
		return SACLI_EXIT_USAGE;
	if (argc > 3 && (n = sacli_hex_bytes(argv[3], rec, sizeof(rec))) < 0)
		return SACLI_EXIT_USAGE;
	rc = sacli_query(c, method, (uint16_t)strtoul(argv[1], NULL, 0),
			 argc > 2 ? strtoull(argv[2], NULL, 0) : 0, rec, sizeof(rec), &resp);
	rc = sacli_exit(rc, argv[0], &resp);
	if (rc == SACLI_EXIT_OK)
		sacli_dump_records(&resp);
	return rc;
}

/* Deliberately broken requests; each prints the answer's status. */
static int sacli_cmd_bad(struct sacli *c, const char *kind)
{
	struct sa_mad h = { 0 }, resp;
	uint8_t buf[SA_MAD_SIZE];
	size_t len = sizeof(buf);
	int rc;

	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_GET;
	h.tid = ++c->tid;
	h.attr_id = SA_ATTR_NODE_RECORD;
	if (!strcmp(kind, "attr"))
		h.attr_id = 0x7777;
	else if (!strcmp(kind, "version"))
		h.class_version = 1;
	else if (!strcmp(kind, "method"))
		h.method = 0x33;
	else if (!strcmp(kind, "mask")) /* a PathRecord Get naming no end */
		h.attr_id = SA_ATTR_PATH_RECORD;
	else if (!strcmp(kind, "runt"))
		len = 40;
	else
		return SACLI_EXIT_USAGE;
	sa_encode(&h, NULL, 0, 0, buf, sizeof(buf));
	buf[2] = h.class_version;
	rc = sacli_call(c, buf, len, &resp);
	if (len < sizeof(buf)) {
		/* no answer is right for a runt; then prove the SA still answers */
		printf("bad runt: %s\n", rc == -ETIMEDOUT ? "no answer (dropped)" : "answered");
		rc = sacli_query(c, SA_METHOD_GET, SA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, &resp);
		return sacli_exit(rc, "then ClassPortInfo", &resp);
	}
	return sacli_exit(rc, "bad", &resp);
}

static void sacli_gid_str(const uint8_t *g, char *buf, size_t len)
{
	snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12],
		 g[13], g[14], g[15]);
}

/* A GID in full colon form (8 groups of 4 hex digits; "::" shorthand too). */
static int sacli_parse_gid(const char *text, uint8_t *gid)
{
	unsigned v[8] = { 0 };
	const char *dbl = strstr(text, "::");
	int n = 0;

	memset(gid, 0, 16);
	if (!dbl) {
		if (sscanf(text, "%x:%x:%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &v[6], &v[7]) != 8)
			return -EINVAL;
	} else {
		unsigned head[8], tail[8];
		int nh = 0, nt = 0;
		const char *p = text;

		while (p < dbl && nh < 8 && sscanf(p, "%x", &head[nh]) == 1) {
			nh++;
			p = strchr(p, ':');
			if (!p || p >= dbl)
				break;
			p++;
		}
		for (p = dbl + 2; *p && nt < 8 && sscanf(p, "%x", &tail[nt]) == 1;) {
			nt++;
			p = strchr(p, ':');
			if (!p)
				break;
			p++;
		}
		if (nh + nt > 7)
			return -EINVAL;
		for (int i = 0; i < nh; i++)
			v[i] = head[i];
		for (int i = 0; i < nt; i++)
			v[8 - nt + i] = tail[i];
	}
	for (n = 0; n < 8; n++) {
		if (v[n] > 0xffff)
			return -EINVAL;
		gid[2 * n] = (uint8_t)(v[n] >> 8);
		gid[2 * n + 1] = (uint8_t)v[n];
	}
	return 0;
}

static void sacli_print_path(const struct sa_path_rec *r)
{
	char s[64], d[64];

	sacli_gid_str(r->sgid, s, sizeof(s));
	sacli_gid_str(r->dgid, d, sizeof(d));
	printf("path: slid %u dlid %u sgid %s dgid %s pkey 0x%04x sl %u mtu %u (%u bytes) "
	       "rate %u (%u Mb/s) pkt_life %u reversible %u\n",
	       r->slid, r->dlid, s, d, r->pkey, r->sl, r->mtu, 128u << r->mtu, r->rate,
	       sa_path_rate_mbps(r->rate), r->life, r->reversible);
}

/* path SLID DLID [PKEY] */
static int sacli_cmd_path(struct sacli *c, int argc, char **argv)
{
	struct sa_path_rec want = { 0 }, got;
	uint8_t rec[SA_PATH_REC_SIZE];
	uint64_t mask = SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DLID);
	struct sa_mad resp;
	int rc;

	if (argc < 3)
		return SACLI_EXIT_USAGE;
	want.slid = (uint16_t)strtoul(argv[1], NULL, 0);
	want.dlid = (uint16_t)strtoul(argv[2], NULL, 0);
	if (argc > 3) {
		want.pkey = (uint16_t)strtoul(argv[3], NULL, 0);
		mask |= SA_PR_CM(SA_PR_PKEY);
	}
	sa_path_encode(&want, rec);
	rc = sacli_query(c, SA_METHOD_GET, SA_ATTR_PATH_RECORD, mask, rec, sizeof(rec), &resp);
	rc = sacli_exit(rc, "path", &resp);
	if (rc == SACLI_EXIT_OK) {
		sa_path_decode(resp.data, &got);
		sacli_print_path(&got);
	}
	return rc;
}

/* join|leave MGID PORTGID [qkey= pkey= mtu= rate= sl= join_state= tclass= flow=] */
static int sacli_mcm_opt(struct sa_mcm *m, uint64_t *mask, const char *kv)
{
	const char *eq = strchr(kv, '=');
	unsigned long v;

	if (!eq)
		return -EINVAL;
	v = strtoul(eq + 1, NULL, 0);
#define SACLI_OPT(name, field, comp)                          \
	if (!strncmp(kv, name "=", strlen(name) + 1)) {        \
		m->field = (__typeof__(m->field))v;            \
		*mask |= SA_MCM_BIT(comp);                     \
		return 0;                                      \
	}
	SACLI_OPT("qkey", qkey, SA_MCM_COMP_QKEY)
	SACLI_OPT("pkey", pkey, SA_MCM_COMP_PKEY)
	SACLI_OPT("sl", sl, SA_MCM_COMP_SL)
	SACLI_OPT("tclass", tclass, SA_MCM_COMP_TCLASS)
	SACLI_OPT("flow", flow_label, SA_MCM_COMP_FLOW_LABEL)
	SACLI_OPT("join_state", join_state, SA_MCM_COMP_JOIN_STATE)
	SACLI_OPT("mlid", mlid, SA_MCM_COMP_MLID)
#undef SACLI_OPT
	if (!strncmp(kv, "mtu=", 4)) { /* MTU enum, selector "exactly" */
		m->mtu = (uint8_t)v;
		m->mtu_sel = SA_SEL_EXACT;
		*mask |= SA_MCM_BIT(SA_MCM_COMP_MTU) | SA_MCM_BIT(SA_MCM_COMP_MTU_SEL);
		return 0;
	}
	if (!strncmp(kv, "rate=", 5)) {
		m->rate = (uint8_t)v;
		m->rate_sel = SA_SEL_EXACT;
		*mask |= SA_MCM_BIT(SA_MCM_COMP_RATE) | SA_MCM_BIT(SA_MCM_COMP_RATE_SEL);
		return 0;
	}
	return -EINVAL;
}

static int sacli_cmd_mcm(struct sacli *c, int argc, char **argv, uint8_t method)
{
	struct sa_mcm m = { 0 }, got;
	uint64_t mask = SA_MCM_BIT(SA_MCM_COMP_MGID) | SA_MCM_BIT(SA_MCM_COMP_PORT_GID) |
			SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE);
	uint8_t rec[SA_MCM_SIZE];
	struct sa_mad resp;
	char g[64];
	int rc;

	if (argc < 3 || sacli_parse_gid(argv[1], m.mgid) < 0 ||
	    sacli_parse_gid(argv[2], m.port_gid) < 0)
		return SACLI_EXIT_USAGE;
	m.join_state = SA_MCM_JOIN_FULL;
	if (method == SA_METHOD_SET) { /* what creating a group needs */
		m.qkey = 0x0b1b;
		m.pkey = 0xffff;
		mask |= SA_MCM_BIT(SA_MCM_COMP_QKEY) | SA_MCM_BIT(SA_MCM_COMP_PKEY) |
			SA_MCM_BIT(SA_MCM_COMP_SL) | SA_MCM_BIT(SA_MCM_COMP_FLOW_LABEL) |
			SA_MCM_BIT(SA_MCM_COMP_TCLASS);
	}
	for (int i = 3; i < argc; i++)
		if (sacli_mcm_opt(&m, &mask, argv[i]) < 0)
			return SACLI_EXIT_USAGE;
	sa_mcm_encode(&m, rec);
	rc = sacli_query(c, method, SA_ATTR_MCMEMBER_RECORD, mask, rec, sizeof(rec), &resp);
	rc = sacli_exit(rc, argv[0], &resp);
	if (rc == SACLI_EXIT_OK) {
		sa_mcm_decode(resp.data, &got);
		sacli_gid_str(got.mgid, g, sizeof(g));
		printf("%s: mgid %s mlid 0x%04x qkey 0x%08x pkey 0x%04x mtu %u rate %u "
		       "join_state 0x%x\n",
		       argv[0], g, got.mlid, got.qkey, got.pkey, got.mtu, got.rate, got.join_state);
	}
	return rc;
}

/* flood N WINDOW LID... : PathRecord Gets over every ordered LID pair */
struct sacli_pairs {
	uint16_t *lids;
	size_t n;
};

static void sacli_flood_build(void *arg, size_t i, uint8_t *mad)
{
	const struct sacli_pairs *p = arg;
	struct sa_path_rec want = { 0 };
	struct sa_mad h = { 0 };
	size_t pair = i % (p->n * (p->n - 1));

	want.slid = p->lids[pair / (p->n - 1)];
	want.dlid = p->lids[(pair % (p->n - 1) + pair / (p->n - 1) + 1) % p->n];
	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_GET;
	h.attr_id = SA_ATTR_PATH_RECORD;
	h.comp_mask = SA_PR_CM(SA_PR_SLID) | SA_PR_CM(SA_PR_DLID);
	sa_encode(&h, NULL, 0, 0, mad, SA_MAD_SIZE);
	sa_path_encode(&want, mad + SA_HDR_SIZE);
}

static int sacli_cmd_flood(struct sacli *c, int argc, char **argv)
{
	struct sacli_pairs p = { 0 };
	int rc;

	if (argc < 5)
		return SACLI_EXIT_USAGE;
	p.n = (size_t)(argc - 3);
	p.lids = calloc(p.n, sizeof(*p.lids));
	if (!p.lids)
		return SACLI_EXIT_FAILED;
	for (size_t i = 0; i < p.n; i++)
		p.lids[i] = (uint16_t)strtoul(argv[3 + i], NULL, 0);
	rc = sacli_flood(c, strtoul(argv[1], NULL, 0), (unsigned)strtoul(argv[2], NULL, 0),
			 sacli_flood_build, &p);
	free(p.lids);
	return rc < 0 ? SACLI_EXIT_FAILED : SACLI_EXIT_OK;
}

/* crowd KIND N [WINDOW [SECONDS]]: N different creations from this port
 * at once, as a busy or misbehaving host would: groups (full joins of new
 * MGIDs ff12:601b:ffff:c0de:G:G:I:I, G the low half of the port GUID),
 * services (ServiceRecord Sets of IDs
 * 0xc0de0000+I on this port, lease forever) or subs (InformInfo Sets for
 * trap 64 over LIDs 1..0xbfff-I, all different).  subs with SECONDS: take
 * Reports (--issm as for subscribe), say "listening" and stay SECONDS
 * without answering any (stop the process to stop it reading too). */
struct sacli_crowd {
	const char *kind;
	uint8_t gid[16];
};

static void sacli_crowd_build(void *arg, size_t i, uint8_t *mad)
{
	const struct sacli_crowd *k = arg;
	struct sa_mad h = {0};
	uint8_t *rec = mad + SA_HDR_SIZE;

	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_SET;
	if (!strcmp(k->kind, "groups")) {
		struct sa_mcm m = {0};
		static const uint8_t head[8] = {0xff, 0x12, 0x60, 0x1b, 0xff, 0xff, 0xc0, 0xde};

		memcpy(m.mgid, head, 8);
		memcpy(m.mgid + 8, k->gid + 12, 4); /* this port's: its own groups */
		for (int b = 0; b < 4; b++)
			m.mgid[12 + b] = (uint8_t)(i >> (24 - 8 * b));
		memcpy(m.port_gid, k->gid, 16);
		m.qkey = 0x0b1b, m.pkey = 0xffff, m.join_state = SA_MCM_JOIN_FULL;
		h.attr_id = SA_ATTR_MCMEMBER_RECORD;
		h.comp_mask = SA_MCM_BIT(SA_MCM_COMP_MGID) | SA_MCM_BIT(SA_MCM_COMP_PORT_GID) |
			      SA_MCM_BIT(SA_MCM_COMP_JOIN_STATE) | SA_MCM_BIT(SA_MCM_COMP_QKEY) |
			      SA_MCM_BIT(SA_MCM_COMP_PKEY) | SA_MCM_BIT(SA_MCM_COMP_SL) |
			      SA_MCM_BIT(SA_MCM_COMP_FLOW_LABEL) | SA_MCM_BIT(SA_MCM_COMP_TCLASS);
		sa_encode(&h, NULL, 0, 0, mad, SA_MAD_SIZE);
		sa_mcm_encode(&m, rec);
	} else if (!strcmp(k->kind, "services")) {
		const struct sa_field *f = sa_svc_rec_desc.comp;

		h.attr_id = SA_ATTR_SERVICE_RECORD;
		h.comp_mask = 1ull << SA_SVC_REC_C_ID | 1ull << SA_SVC_REC_C_GID;
		sa_encode(&h, NULL, 0, 0, mad, SA_MAD_SIZE);
		sa_put(rec, &f[SA_SVC_REC_C_ID], 0xc0de0000ull + i);
		memcpy(rec + f[SA_SVC_REC_C_GID].bit / 8, k->gid, 16);
		sa_put(rec, &f[SA_SVC_REC_C_LEASE], SA_SVC_LEASE_FOREVER);
	} else {
		struct sa_svc_inform ii = {0};

		ii.is_generic = 1, ii.subscribe = 1, ii.trap_num = SA_SVC_TRAP_GID_IN;
		ii.type = SA_SVC_TYPE_ALL, ii.producer = SA_SVC_PRODUCER_ALL, ii.qpn = 1;
		ii.lid_begin = 1;
		ii.lid_end = (uint16_t)(SACLI_LID_MAX - i % SACLI_LID_MAX);
		h.attr_id = SA_ATTR_INFORM_INFO;
		sa_encode(&h, NULL, 0, 0, mad, SA_MAD_SIZE);
		sa_svc_inform_encode(&ii, rec);
	}
}

static int sacli_cmd_crowd(struct sacli *c, int argc, char **argv)
{
	struct sacli_crowd k = {argc > 1 ? argv[1] : "", {0}};
	uint64_t guid = mad_port_info(c->port)->port_guid, end;
	size_t n;
	int rc;

	if (argc < 3 ||
	    (strcmp(k.kind, "groups") && strcmp(k.kind, "services") && strcmp(k.kind, "subs")))
		return SACLI_EXIT_USAGE;
	n = strtoul(argv[2], NULL, 0);
	k.gid[0] = 0xfe, k.gid[1] = 0x80;
	for (int b = 0; b < 8; b++)
		k.gid[8 + b] = (uint8_t)(guid >> (56 - 8 * b));
	if (argc > 4 && mad_port_listen_reports(c->port, c->issm) < 0) {
		fprintf(stderr, "nanosm-sa: cannot receive Reports on this port\n");
		return SACLI_EXIT_FAILED;
	}
	rc = sacli_flood(c, n, argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 16,
			 sacli_crowd_build, &k);
	printf("crowd: %s no_resources %zu\n", k.kind, c->no_resources);
	if (argc > 4) {
		printf("listening\n");
		fflush(stdout);
		for (end = sacli_now_ms() + 1000u * strtoul(argv[4], NULL, 0);
		     sacli_now_ms() < end;)
			mad_port_wait(c->port, 100); /* never answers a Report */
	}
	return rc < 0 ? SACLI_EXIT_FAILED : SACLI_EXIT_OK;
}

/* One Report: print its Notice and acknowledge it with ReportResp. */
struct sacli_reports {
	struct sacli *c;
	unsigned seen;
};

static void sacli_report_rx(void *ctx, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	struct sacli_reports *r = ctx;
	struct mad_xmit x = mad_port_xmit(r->c->port);
	struct sa_svc_notice n;
	struct sa_mad m, resp;
	uint8_t buf[SA_MAD_SIZE], gid[16];
	char g[64];

	if (sa_decode(mad, len, &m) < 0 || m.method != SA_METHOD_REPORT ||
	    m.attr_id != SA_ATTR_NOTICE)
		return;
	sa_svc_notice_decode(m.data, &n);
	if (sa_svc_notice_gid(&n, gid) < 0)
		memset(gid, 0, sizeof(gid));
	sacli_gid_str(gid, g, sizeof(g));
	printf("report: trap %u issuer_lid %u gid %s\n", n.trap_num, n.issuer_lid, g);
	fflush(stdout);
	r->seen++;
	sa_make_response(&m, 0, &resp);
	sa_encode(&resp, m.data, 1, SA_SVC_NOTICE_SIZE, buf, sizeof(buf));
	x.send(x.ctx, from, buf, sizeof(buf));
}

/* subscribe TRAP SECONDS [COUNT]: InformInfo Set, then print Reports until
 * COUNT arrived or SECONDS passed; unsubscribe at the end. */
static int sacli_inform(struct sacli *c, uint16_t trap, int subscribe)
{
	struct sa_svc_inform ii = { 0 };
	uint8_t rec[SA_SVC_INFORM_SIZE];
	struct sa_mad resp;
	int rc;

	ii.lid_begin = SA_SVC_LID_ALL;
	ii.is_generic = 1;
	ii.subscribe = (uint8_t)subscribe;
	ii.type = SA_SVC_TYPE_ALL;
	ii.trap_num = trap;
	ii.qpn = 1;
	ii.producer = SA_SVC_PRODUCER_ALL;
	sa_svc_inform_encode(&ii, rec);
	rc = sacli_query(c, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0, rec, sizeof(rec), &resp);
	return sacli_exit(rc, subscribe ? "subscribe" : "unsubscribe", &resp);
}

static int sacli_cmd_subscribe(struct sacli *c, int argc, char **argv)
{
	struct sacli_reports r = { c, 0 };
	uint16_t trap;
	uint64_t end;
	unsigned want;

	if (argc < 3)
		return SACLI_EXIT_USAGE;
	trap = (uint16_t)strtoul(argv[1], NULL, 0);
	end = sacli_now_ms() + 1000u * strtoul(argv[2], NULL, 0);
	want = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 0;
	if (mad_port_listen_reports(c->port, c->issm) < 0) {
		fprintf(stderr, "nanosm-sa: cannot receive Reports on this port\n");
		return SACLI_EXIT_FAILED;
	}
	if (sacli_inform(c, trap, 1) != SACLI_EXIT_OK)
		return SACLI_EXIT_FAILED;
	printf("listening\n");
	fflush(stdout);
	while (sacli_now_ms() < end && (!want || r.seen < want)) {
		if (mad_port_wait(c->port, 100) < 0)
			break;
		mad_port_drain(c->port, sacli_report_rx, &r);
	}
	printf("reports: %u\n", r.seen);
	sacli_inform(c, trap, 0);
	return want && r.seen < want ? SACLI_EXIT_FAILED : SACLI_EXIT_OK;
}

static int sacli_run(struct sacli *c, int argc, char **argv)
{
	const char *cmd = argv[0];

	if (!strcmp(cmd, "get"))
		return sacli_cmd_get(c, argc, argv, SA_METHOD_GET);
	if (!strcmp(cmd, "gettable"))
		return sacli_cmd_get(c, argc, argv, SA_METHOD_GET_TABLE);
	if (!strcmp(cmd, "bad") && argc == 2)
		return sacli_cmd_bad(c, argv[1]);
	if (!strcmp(cmd, "path"))
		return sacli_cmd_path(c, argc, argv);
	if (!strcmp(cmd, "join"))
		return sacli_cmd_mcm(c, argc, argv, SA_METHOD_SET);
	if (!strcmp(cmd, "leave"))
		return sacli_cmd_mcm(c, argc, argv, SA_METHOD_DELETE);
	if (!strcmp(cmd, "flood"))
		return sacli_cmd_flood(c, argc, argv);
	if (!strcmp(cmd, "subscribe"))
		return sacli_cmd_subscribe(c, argc, argv);
	if (!strcmp(cmd, "crowd"))
		return sacli_cmd_crowd(c, argc, argv);
	fprintf(stderr, "nanosm-sa: unknown command or arguments: %s\n", cmd);
	return SACLI_EXIT_USAGE;
}

/* ---- command line ---------------------------------------------------------- */

static void sacli_usage(FILE *out)
{
	fprintf(out,
		"usage: nanosm-sa [-g PORTGUID | -d CA [-p PORT]] [--sm-lid LID] [--timeout MS]\n"
		"                 [--retries N] [--issm] COMMAND ...\n"
		"  --issm   (subscribe) hold the port's issm device: ibsim delivers\n"
		"           Reports only to such clients; do not use on hardware\n"
		"Commands:\n"
		"  get ATTR [MASK [HEXBYTES]]   Get (gettable: GetTable) of SA attribute ATTR\n"
		"  gettable ATTR [MASK [HEXBYTES]]  with component mask MASK and record bytes\n"
		"  path SLID DLID [PKEY]        one PathRecord (Get)\n"
		"  join MGID PORTGID [key=value ...]   MCMemberRecord Set (join)\n"
		"  leave MGID PORTGID [join_state=N]   MCMemberRecord Delete (leave)\n"
		"  bad attr|version|method|runt|mask   a deliberately bad request\n"
		"  flood N WINDOW LID...        N PathRecord Gets between the LIDs\n"
		"  subscribe TRAP SECONDS [N]   InformInfo for trap 64/65 (0xffff all); print\n"
		"                               Reports until N came or SECONDS passed\n"
		"  crowd groups|services|subs N [WINDOW [SECONDS]]  N creations at once\n"
		"                               (subs SECONDS: then hold Reports unanswered)\n"
		"Exit status: 0 answered with status 0, 1 error status or no answer, 2 usage.\n");
}

static int sacli_open(struct sacli *c, const struct port_args *local)
{
	char err[256];

	c->port = mad_port_open_client(port_args_ca(local), (int)local->port, local->guid, NULL,
				       NULL, err, sizeof(err));
	if (!c->port) {
		fprintf(stderr, "nanosm-sa: %s\n", err);
		return -ENODEV;
	}
	if (!c->sm_lid)
		c->sm_lid = mad_port_info(c->port)->sm_lid;
	if (!c->sm_lid) {
		fprintf(stderr, "nanosm-sa: the port knows no SM LID (is an SM running?)\n");
		return -EHOSTUNREACH;
	}
	c->tid = (uint32_t)(sacli_now_ms() << 12);
	return 0;
}

/* An unsigned option value in min..max. */
static int sacli_uint(const char *opt, const char *val, unsigned min, unsigned max, unsigned *out,
		      char *err, size_t errlen)
{
	uint64_t n;

	if (port_args_number(opt, val, min, max, &n, err, errlen) < 0)
		return -EINVAL;
	*out = (unsigned)n;
	return 0;
}

/* One option; 0, 1 for --help, or -EINVAL with err set (left alone for an
 * option getopt has already complained about). */
static int sacli_option(struct sacli *c, struct port_args *local, int opt, const char *val,
			char *err, size_t errlen)
{
	uint64_t n;

	switch (opt) {
	case 'g':
	case 'd':
	case 'p':
		return port_args_set(local, opt, NULL, val, err, errlen);
	case 'l':
		if (port_args_number("-l", val, 1, SACLI_LID_MAX, &n, err, errlen) < 0)
			return -EINVAL;
		c->sm_lid = (uint16_t)n;
		return 0;
	case 't':
		return sacli_uint("-t", val, 1, SACLI_TIMEOUT_MAX, &c->timeout_ms, err, errlen);
	case 'r':
		return sacli_uint("-r", val, 0, SACLI_RETRIES_MAX, &c->retries, err, errlen);
	case 'S':
		c->issm = 1;
		return 0;
	case 'h':
		return 1;
	}
	return -EINVAL;
}

static int sacli_usage_error(const char *err)
{
	if (err[0])
		fprintf(stderr, "nanosm-sa: %s\n", err);
	sacli_usage(stderr);
	return SACLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    PORT_ARGS_LONGOPTS,
	    {"sm-lid", required_argument, NULL, 'l'},
	    {"timeout", required_argument, NULL, 't'},
	    {"retries", required_argument, NULL, 'r'},
	    {"issm", no_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sacli c = { .timeout_ms = 1000, .retries = 2 };
	struct port_args local = {.port = 0};
	char err[256];
	int opt, rc;

	while ((opt = getopt_long(argc, argv, PORT_ARGS_OPTSTRING "l:t:r:Sh", longopts, NULL)) !=
	       -1) {
		err[0] = '\0';
		rc = sacli_option(&c, &local, opt, optarg, err, sizeof(err));
		if (rc == 1) {
			sacli_usage(stdout);
			return SACLI_EXIT_OK;
		}
		if (rc < 0)
			return sacli_usage_error(err);
	}
	err[0] = '\0';
	if (port_args_check(&local, err, sizeof(err)) < 0 || optind >= argc)
		return sacli_usage_error(err);
	if (sacli_open(&c, &local) < 0)
		return SACLI_EXIT_FAILED;
	rc = sacli_run(&c, argc - optind, argv + optind);
	mad_port_close(c.port);
	return rc;
}
