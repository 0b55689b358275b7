/*
 * test_gate.c - the SM never pushes tables that fail the routing gate, and
 * falls back along its engine list to the first engine whose tables pass.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sm/core/log.h"
#include "sm/core/sm_priv.h"
#include "tests/unit/sm_rig.h"
#include "tests/unit/unit.h"

/* five switches in a ring, one host each: min-hop routes make a credit loop */
static const char gate_ring[] = "Hca 1 \"h0\"\n[1] \"s0\"[1]\n\n"
				"Hca 1 \"h1\"\n[1] \"s1\"[1]\n\n"
				"Hca 1 \"h2\"\n[1] \"s2\"[1]\n\n"
				"Hca 1 \"h3\"\n[1] \"s3\"[1]\n\n"
				"Hca 1 \"h4\"\n[1] \"s4\"[1]\n\n"
				"Switch 4 \"s0\"\n[1] \"h0\"[1]\n[2] \"s1\"[3]\n[3] \"s4\"[2]\n\n"
				"Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"s2\"[3]\n[3] \"s0\"[2]\n\n"
				"Switch 4 \"s2\"\n[1] \"h2\"[1]\n[2] \"s3\"[3]\n[3] \"s1\"[2]\n\n"
				"Switch 4 \"s3\"\n[1] \"h3\"[1]\n[2] \"s4\"[3]\n[3] \"s2\"[2]\n\n"
				"Switch 4 \"s4\"\n[1] \"h4\"[1]\n[2] \"s0\"[3]\n[3] \"s3\"[2]\n";

static void gate_assert_nothing_pushed(struct rig *r)
{
	const struct fabric *st = fake_fabric_state(r->ff);

	CU_ASSERT_EQUAL(r->last.lft_blocks_sent, 0);
	CU_ASSERT_EQUAL(fake_fabric_counters(r->ff)->lft_block_sets, 0);
	for (size_t i = 0; i < st->n_nodes; i++)
		for (unsigned p = 1; p <= st->nodes[i].num_ports; p++)
			CU_ASSERT_NOT_EQUAL(st->nodes[i].ports[p].state, PORT_STATE_ACTIVE);
}

static void test_minhop_ring_refused(void)
{
	struct rig r;

	rig_init(&r, gate_ring, NULL, "minhop");
	rig_sweep(&r);
	CU_ASSERT_NOT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.gate_refusals, 1);
	CU_ASSERT_STRING_EQUAL(r.last.engine, "none");
	gate_assert_nothing_pushed(&r);
	rig_fini(&r);
}

static void test_fallback_to_updn(void)
{
	struct rig r;

	rig_init(&r, gate_ring, NULL, "minhop,updn");
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.status, 0);
	CU_ASSERT_EQUAL(r.last.gate_refusals, 1); /* minhop's tables */
	CU_ASSERT_STRING_EQUAL(r.last.engine, "updn");
	rig_check_up(&r);
	rig_fini(&r);
}

/* What the ring's host h2 offers: its port's VLCap (PortInfo encoding,
 * 1 = VL0 only; 0: as the topology says, VL0-7) and, back, its GUID. */
struct gate_h2 {
	uint8_t vl_cap;
	uint64_t guid;
};

static void gate_h2_vl_cap(struct fabric *f, void *ctx)
{
	struct gate_h2 *h = ctx;
	int h2 = rig_node(f, "h2");

	CU_ASSERT_FATAL(h2 != FABRIC_NONE);
	f->nodes[h2].ports[1].vl_cap = h->vl_cap;
	h->guid = f->nodes[h2].guid;
}

/* Log into a scratch file from here on (info level); gate_log_end puts
 * the old level back and reads the text. */
static int gate_log_begin(char *path)
{
	int fd = mkstemp(path), level = log_level_get();

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(log_open_file(path), 0);
	log_init(LOG_LVL_INFO, NULL);
	return level;
}

static void gate_log_end(const char *path, int level, char *text, size_t size)
{
	FILE *f;
	size_t n;

	log_init(level, NULL);
	log_to_stderr();
	f = fopen(path, "r");
	n = f ? fread(text, 1, size - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	unlink(path);
}

/* One sweep of the ring with engines, h2 as h says (NULL: as the topology
 * says), its log (info level) into text. */
static void gate_sweep_logged(const char *engines, struct gate_h2 *h, struct sm_sweep_stats *last,
			      char *text, size_t size)
{
	char path[] = "/tmp/nanosm-gate-log.XXXXXX";
	int level = gate_log_begin(path);
	struct rig r;

	rig_init_edit(&r, gate_ring, h ? gate_h2_vl_cap : NULL, h, NULL, engines);
	rig_sweep(&r);
	*last = r.last;
	rig_fini(&r);
	gate_log_end(path, level, text, size);
}

static void test_engine_error_falls_through(void)
{
	static char text[65536];
	struct sm_sweep_stats last;

	/* ftree refuses a ring (not a tree); updn takes over: the normal
	 * fallback of the default list, one info line without an error ID
	 * that says from what to what and why, names next to the GUIDs */
	gate_sweep_logged("ftree,updn,minhop", NULL, &last, text, sizeof(text));
	CU_ASSERT_EQUAL(last.status, 0);
	CU_ASSERT_STRING_EQUAL(last.engine, "updn");
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "nanosm-unit: routing falls back from ftree to updn: "
					    "routing engine ftree failed: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(last.engine_why, "ftree,updn,minhop: routing engine ftree "
						       "failed: "));
	CU_ASSERT_PTR_NULL(strstr(text, "NSM-E4"));
	CU_ASSERT_PTR_NULL(strstr(text, "error: "));
	CU_ASSERT_PTR_NULL(strstr(text, "warning: "));
	/* the same failure with nothing after it is an error */
	gate_sweep_logged("ftree", NULL, &last, text, sizeof(text));
	CU_ASSERT_NOT_EQUAL(last.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "nanosm-unit: error: NSM-E401 routing engine ftree "
					    "failed: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "nanosm-unit: error: NSM-E403 no routing engine of "
					    "'ftree' produced tables"));
}

/* The default list on the ring: ftree refuses it, vlsp routes it on the
 * VLs the ports offer; when one port offers only VL0, vlsp (with engines
 * after it) is passed over with an info line and updn routes; alone it
 * still runs, on one VL. */
static void test_default_list_vls(void)
{
	static char text[65536];
	struct sm_sweep_stats last;
	struct gate_h2 h2 = {.vl_cap = 1};
	char want[200];

	gate_sweep_logged("ftree,vlsp,updn,minhop", NULL, &last, text, sizeof(text));
	CU_ASSERT_EQUAL(last.status, 0);
	CU_ASSERT_STRING_EQUAL(last.engine, "vlsp");
	/* a ring of five, a host each: shortest paths need 2 VLs, but one VL
	 * with a detour (grown trees) measures more EBB and is kept */
	CU_ASSERT_EQUAL(last.vls, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "routing engine vlsp: 1 VL of 8 offered"));
	CU_ASSERT_PTR_NULL(strstr(text, "routing engine vlsp: paths on"));
	CU_ASSERT_PTR_NULL(strstr(text, "skipped"));
	CU_ASSERT_PTR_NULL(strstr(text, "error: "));

	gate_sweep_logged("ftree,vlsp,updn,minhop", &h2, &last, text, sizeof(text));
	CU_ASSERT_EQUAL(last.status, 0);
	CU_ASSERT_STRING_EQUAL(last.engine, "updn");
	CU_ASSERT_EQUAL(last.vls, 1);
	snprintf(want, sizeof(want),
		 "routing engine vlsp skipped: ports offer 1 data VL "
		 "(0x%016llx (h2)/1: VLCap 1), vlsp wants 2",
		 (unsigned long long)h2.guid);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
	CU_ASSERT_PTR_NULL(strstr(text, "routing engine vlsp:"));
	CU_ASSERT_PTR_NULL(strstr(text, "NSM-"));
	CU_ASSERT_PTR_NULL(strstr(text, "error: "));
	CU_ASSERT_PTR_NULL(strstr(text, "warning: "));

	gate_sweep_logged("ftree,vlsp", &h2, &last, text, sizeof(text));
	CU_ASSERT_EQUAL(last.status, 0);
	CU_ASSERT_STRING_EQUAL(last.engine, "vlsp");
	CU_ASSERT_EQUAL(last.vls, 1);
	CU_ASSERT_PTR_NULL(strstr(text, "skipped"));
}

static size_t gate_count(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* The same fallback sweep after sweep is told once; warnings of one kind
 * are told WARN_GROUP_SHOWN times a sweep, then counted in one line. */
static void test_log_once(void)
{
	static char text[65536];
	char path[] = "/tmp/nanosm-gate-log.XXXXXX";
	int level = gate_log_begin(path);
	struct rig r;

	rig_init(&r, gate_ring, NULL, "ftree,updn,minhop");
	rig_sweep(&r);
	rig_sweep(&r);
	rig_sweep(&r);
	CU_ASSERT_STRING_EQUAL(r.last.engine, "updn");
	for (int i = 0; i < 5; i++)
		sm_warnx_grouped(r.sm, "NSM-W314", "switch %d keeps no enforcement", i);
	sm_warnx_grouped(r.sm, "NSM-W310", "one Set failed");
	sm_warn_groups_flush(r.sm);
	sm_warnx_grouped(r.sm, "NSM-W314", "switch %d keeps no enforcement", 9);
	sm_warn_groups_flush(r.sm);
	rig_fini(&r);
	gate_log_end(path, level, text, sizeof(text));
	CU_ASSERT_EQUAL(gate_count(text, "routing falls back from ftree to updn"), 1);
	CU_ASSERT_EQUAL(gate_count(text, "NSM-W314 switch"), 4); /* 3, then 1 the next time */
	CU_ASSERT_PTR_NULL(strstr(text, "switch 3 keeps"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "NSM-W314: 2 more like the 3 above this sweep"));
	CU_ASSERT_EQUAL(gate_count(text, "NSM-W314:"), 1);
	CU_ASSERT_EQUAL(gate_count(text, "NSM-W310 one Set failed"), 1);
	CU_ASSERT_PTR_NULL(strstr(text, "NSM-W310:"));
}

static void test_plan(void)
{
	struct rig r;
	char *text, refused[256];

	rig_init(&r, gate_ring, NULL, "updn");
	rig_sweep(&r);
	CU_ASSERT_EQUAL_FATAL(r.last.status, 0);
	/* the same routing: nothing would be written */
	text = sm_plan(r.sm, "updn", NULL, 0, 0, refused, sizeof(refused));
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(refused, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "engine that would be used: updn (gate passed)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "LFT: 0 block(s) differ on 0 of 5 switch(es)"));
	free(text);
	/* min-hop on the ring: refused, with the reason */
	text = sm_plan(r.sm, "minhop", NULL, 0, 0, refused, sizeof(refused));
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(refused, "the new routing fails the gate: routing engine "
					       "minhop: tables refused by the gate"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "refused: routing engine minhop: tables refused by the gate"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "credit loop"));
	free(text);
	/* a plan pushes nothing and changes nothing */
	rig_sweep(&r);
	CU_ASSERT_EQUAL(r.last.lft_blocks_sent, 0);
	CU_ASSERT_STRING_EQUAL(r.last.engine, "updn");
	rig_fini(&r);
}

static int gate_suite_init(void)
{
	log_init(getenv("UNIT_LOG") ? atoi(getenv("UNIT_LOG")) : LOG_LVL_ERR, "nanosm-unit");
	return 0;
}

void test_gate_register(void)
{
	CU_pSuite s = CU_add_suite("gate", gate_suite_init, NULL);

	CU_add_test(s, "min-hop on a ring: credit loop, nothing pushed", test_minhop_ring_refused);
	CU_add_test(s, "fallback list: the first engine that passes wins", test_fallback_to_updn);
	CU_add_test(s, "an engine error falls through to the next", test_engine_error_falls_through);
	CU_add_test(s, "default list: vlsp where the ports offer 2 data VLs, else updn",
		    test_default_list_vls);
	CU_add_test(s, "plan: a dry run that pushes nothing", test_plan);
	CU_add_test(s, "a fallback told once; warnings of a kind counted", test_log_once);
}
