/*
 * test_perfmgr.c - the performance manager (sm/core/perfmgr.c) inside the
 * SM core: the fake fabric answers the SMPs, a small PMA model here
 * answers the PerfMgt GMPs by LID.  A pass reads every ACTIVE port once
 * (ClassPortInfo once per node, PortCountersExtended only where the
 * node's CapabilityMask has it) with at most 16 GMPs on the wire; no GMP
 * starts while a heavy sweep runs; a counter past half its range is
 * cleared (PortCounters Set) and the 64-bit total goes on; a silent port
 * is retried, then counted missing, and the pass still ends.
 */
#include <CUnit/CUnit.h>
#include <string.h>

#include "mad/pma.h"
#include "sm/core/perfmgr.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

static const char tpm_topo[] = "Hca 1 \"h1\"\n[1] \"s1\"[1]\n\n"
			       "Hca 1 \"h2\"\n[1] \"s2\"[1]\n\n"
			       "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[2]\n\n"
			       "Switch 4 \"s2\"\n[1] \"h2\"[1]\n[2] \"s1\"[2]\n";

#define TPM_MAX_Q 256

/* The PMA model: what each GMP asked, and the answers waiting. */
struct tpm {
	struct rig r;
	struct mad_xmit fake; /* the fake fabric's own send, for the SMPs */
	uint8_t q[TPM_MAX_Q][PMA_MAD_SIZE];
	uint16_t q_lid[TPM_MAX_Q];
	size_t q_n;
	unsigned cpi, pc, ext, sets, sent_busy, max_out, out;
	uint16_t silent_lid;	/* GMPs to this LID vanish */
	uint64_t symbol_errors; /* what every PortCounters read says */
};

static uint64_t tpm_now(void *ctx)
{
	return ((struct rig *)ctx)->now;
}

/* Is lid a switch's (port 0) in the SM's model? */
static int tpm_switch_lid(const struct tpm *t, uint16_t lid)
{
	const struct fabric *f = sm_fabric(t->r.sm);

	for (size_t i = 0; i < f->n_nodes; i++)
		if (fabric_is_switch(&f->nodes[i]) && f->nodes[i].ports[0].lid == lid)
			return 1;
	return 0;
}

static int tpm_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct tpm *t = ctx;
	struct pma_mad m;
	struct pma_counters pc = {0};

	if (len < 2 || mad[1] != PMA_CLASS)
		return t->fake.send(t->fake.ctx, to, mad, len);
	CU_ASSERT_EQUAL_FATAL(pma_decode(mad, len, &m), 0);
	CU_ASSERT_EQUAL(to->qpn, 1);
	if (sm_busy(t->r.sm))
		t->sent_busy++;
	t->cpi += m.attr_id == PMA_ATTR_CLASS_PORT_INFO;
	t->pc += m.attr_id == PMA_ATTR_PORT_COUNTERS && m.method == PMA_METHOD_GET;
	t->ext += m.attr_id == PMA_ATTR_PORT_COUNTERS_EXT;
	if (m.method == PMA_METHOD_SET) {
		t->sets++;
		t->symbol_errors = 0; /* cleared */
	}
	if (to->lid == t->silent_lid || t->q_n == TPM_MAX_Q)
		return 0;
	if (m.attr_id == PMA_ATTR_CLASS_PORT_INFO) {
		/* switches have the extended counters, CAs not */
		struct pma_class_port_info cpi = {1, 1, 0, 0, 18};

		cpi.cap_mask = tpm_switch_lid(t, to->lid) ? PMA_CAP_EXT_WIDTH : 0;
		pma_cpi_encode(&cpi, m.data);
	} else if (m.attr_id == PMA_ATTR_PORT_COUNTERS) {
		pc.port_select = m.data[1];
		pc.v[PMA_SYMBOL_ERRORS] = t->symbol_errors;
		pc.v[PMA_XMIT_DATA] = 100;
		pma_counters_encode(&pc, m.data);
	}
	m.method = PMA_METHOD_GET_RESP;
	pma_encode(&m, t->q[t->q_n], PMA_MAD_SIZE);
	t->q_lid[t->q_n++] = to->lid;
	if (++t->out > t->max_out)
		t->max_out = t->out;
	return 0;
}

static void tpm_done(void *arg, const struct sm_sweep_stats *st)
{
	struct rig *r = arg;

	r->last = *st;
	r->sweeps_done++;
}

/* Hand over one waiting PMA answer (oldest first); 0 when none. */
static int tpm_deliver(struct tpm *t)
{
	struct mad_addr from = {.lid = t->q_lid[0], .qpn = 1};
	uint8_t mad[PMA_MAD_SIZE];

	if (!t->q_n)
		return 0;
	memcpy(mad, t->q[0], sizeof(mad));
	memmove(t->q, t->q + 1, (t->q_n - 1) * sizeof(t->q[0]));
	memmove(t->q_lid, t->q_lid + 1, (t->q_n - 1) * sizeof(t->q_lid[0]));
	t->q_n--;
	t->out--;
	sm_recv(t->r.sm, &from, mad, sizeof(mad));
	return 1;
}

static void tpm_init(struct tpm *t, unsigned interval_s)
{
	struct sm_opts o = {.port_guid = 1, .engine = "minhop"};
	struct sm_clock c = {.now_ms = tpm_now, .ctx = &t->r};
	struct perfmgr_opts po = {1, interval_s, PERF_THRESHOLDS_DEFAULT};
	struct mad_xmit x = {.send = tpm_send, .ctx = t};

	memset(t, 0, sizeof(*t));
	rig_init(&t->r, tpm_topo, NULL, "minhop");
	sm_free(t->r.sm); /* the rig's SM sends straight to the fake: one of ours instead */
	t->fake = fake_fabric_xmit(t->r.ff);
	o.mad.window = 8;
	o.mad.timeout_ms = 50;
	o.mad.retries = 2;
	t->r.sm = sm_new(&o, &x, &c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->r.sm);
	sm_set_sweep_done(t->r.sm, tpm_done, &t->r);
	CU_ASSERT_EQUAL(sm_set_monitor(t->r.sm, &po), 0);
	rig_sweep(&t->r);
}

/* Run until a pass more than before has ended (bounded). */
static void tpm_pass(struct tpm *t)
{
	uint64_t before = sm_perf_stats(t->r.sm)->passes;
	uint8_t mad[SMP_MAD_SIZE];
	struct mad_addr from = {.lid = 0xffff};

	sm_perf_now(t->r.sm);
	for (int guard = 0; guard < 100000 && sm_perf_stats(t->r.sm)->passes == before; guard++) {
		if (tpm_deliver(t))
			continue;
		if (fake_fabric_pop(t->r.ff, mad) == 1) {
			sm_recv(t->r.sm, &from, mad, sizeof(mad));
			continue;
		}
		t->r.now += 10;
		sm_tick(t->r.sm);
	}
	CU_ASSERT_EQUAL(sm_perf_stats(t->r.sm)->passes, before + 1);
}

static void test_perfmgr_pass(void)
{
	struct tpm t;
	const struct perf_table *tab;

	tpm_init(&t, 3600);
	tpm_pass(&t);
	tab = sm_perf_table(t.r.sm);
	CU_ASSERT_EQUAL(tab->n, 6); /* h1/1, h2/1, s1/1-2, s2/1-2 */
	CU_ASSERT_EQUAL(t.cpi, 4);  /* once per node */
	CU_ASSERT_EQUAL(t.pc, 6);
	CU_ASSERT_EQUAL(t.ext, 4); /* the switch ports only */
	CU_ASSERT(t.max_out <= PERFMGR_WINDOW);
	for (size_t i = 0; i < tab->n; i++) {
		CU_ASSERT(tab->p[i].have);
		CU_ASSERT_EQUAL(tab->p[i].ext, tab->p[i].is_switch);
	}
	tpm_pass(&t); /* the second pass: no ClassPortInfo again */
	CU_ASSERT_EQUAL(t.cpi, 4);
	CU_ASSERT_EQUAL(t.pc, 12);
	CU_ASSERT_EQUAL(sm_perf_stats(t.r.sm)->ports, 6);
	rig_fini(&t.r);
}

static void test_perfmgr_not_during_sweep(void)
{
	struct tpm t;
	uint8_t mad[SMP_MAD_SIZE];
	struct mad_addr from = {.lid = 0xffff};
	unsigned gmps;

	tpm_init(&t, 3600);
	sm_perf_now(t.r.sm);
	t.r.now += 10;
	sm_tick(t.r.sm); /* the pass starts: a window of ClassPortInfo Gets */
	CU_ASSERT(t.q_n > 0);
	CU_ASSERT_EQUAL(sm_sweep_request(t.r.sm), 0);
	CU_ASSERT(sm_busy(t.r.sm));
	gmps = t.cpi + t.pc + t.ext;
	/* answers to what is on the wire come in; nothing new goes out */
	while (sm_busy(t.r.sm)) {
		if (tpm_deliver(&t))
			continue;
		if (fake_fabric_pop(t.r.ff, mad) == 1) {
			sm_recv(t.r.sm, &from, mad, sizeof(mad));
			continue;
		}
		t.r.now += 10;
		sm_tick(t.r.sm);
	}
	CU_ASSERT_EQUAL(t.sent_busy, 0);
	CU_ASSERT_EQUAL(t.cpi + t.pc + t.ext, gmps);
	tpm_pass(&t); /* and the pass goes on after the sweep */
	CU_ASSERT_EQUAL(sm_perf_table(t.r.sm)->n, 6);
	rig_fini(&t.r);
}

static void test_perfmgr_clear_and_silence(void)
{
	struct tpm t;
	const struct perf_table *tab;
	const struct perf_port *p;

	tpm_init(&t, 3600);
	tpm_pass(&t);
	t.symbol_errors = 40000; /* past half of 65535 */
	tpm_pass(&t);
	CU_ASSERT(t.sets >= 1);
	tab = sm_perf_table(t.r.sm);
	p = &tab->p[0];
	CU_ASSERT_EQUAL(p->total[PMA_SYMBOL_ERRORS], 40000);
	CU_ASSERT_EQUAL(p->raw[PMA_SYMBOL_ERRORS], 0); /* read from 0 after the clear */
	CU_ASSERT(sm_perf_stats(t.r.sm)->clears >= 1);
	t.symbol_errors = 30000;
	tpm_pass(&t);
	CU_ASSERT_EQUAL(tab->p[0].total[PMA_SYMBOL_ERRORS], 70000); /* beyond 16 bits */
	/* a silent port: retried, then counted missing; the pass ends */
	t.silent_lid = tab->p[0].lid;
	tpm_pass(&t);
	CU_ASSERT(sm_perf_stats(t.r.sm)->timeouts >= 1);
	CU_ASSERT(sm_perf_stats(t.r.sm)->last_missed >= 1);
	rig_fini(&t.r);
}

void test_perfmgr_register(void)
{
	CU_pSuite s = CU_add_suite("perfmgr", NULL, NULL);

	CU_add_test(s, "a pass reads every ACTIVE port", test_perfmgr_pass);
	CU_add_test(s, "no GMP starts while a sweep runs", test_perfmgr_not_during_sweep);
	CU_add_test(s, "clear past half range, silent ports", test_perfmgr_clear_and_silence);
}
