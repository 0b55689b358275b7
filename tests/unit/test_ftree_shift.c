/*
 * test_ftree_shift.c - unit tests for ftree's shift all-to-all on degraded
 * fat trees: 3-level trees cabled as nanosm-gen cables them, a few cables
 * cut, the tables scored by routing/score.c (every shift, the gate).
 */
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/route.h"
#include "routing/score.h"
#include "routing/topo_file.h"
#include "tests/unit/route_test.h"
#include "tests/unit/unit.h"

#define SHIFT_MAX_CUTS 8

/* A 3-level tree of `pods` pods of m leaves (m hosts each) and m
 * aggregation switches, and m * m cores: leaf l's port m + a goes to its
 * pod's agg a (port l), agg a's port m + c to core (a - 1) * m + c (port
 * pod): nanosm-gen fattree --levels 3 --radix 2m.  Cables in cut ("agg"
 * or "leaf" name, slash, port) are left out. */
struct shift_tree {
	int pods, m;
	const char *cut[SHIFT_MAX_CUTS];
};

static int shift_is_cut(const struct shift_tree *sp, const char *name, int port)
{
	char want[48];

	snprintf(want, sizeof(want), "%s/%d", name, port);
	for (int i = 0; i < SHIFT_MAX_CUTS && sp->cut[i]; i++)
		if (!strcmp(sp->cut[i], want))
			return 1;
	return 0;
}

/* One cable from one end, unless cut from either end. */
static void shift_cable(FILE *fp, const struct shift_tree *sp, const char *a, int pa, const char *b,
			int pb)
{
	if (!shift_is_cut(sp, a, pa) && !shift_is_cut(sp, b, pb))
		fprintf(fp, "[%d]\t\"%s\"[%d]\n", pa, b, pb);
}

static void shift_switches(FILE *fp, const struct shift_tree *sp)
{
	int m = sp->m, guid = 1;
	char me[32], peer[32];

	for (int p = 1; p <= sp->pods; p++)
		for (int l = 1; l <= m; l++, guid++) {
			snprintf(me, sizeof(me), "pod%d-leaf%d", p, l);
			fprintf(fp, "switchguid=0x%016x\nSwitch\t%d \"%s\"\n", 0x100000 + guid,
				2 * m, me);
			for (int h = 1; h <= m; h++)
				fprintf(fp, "[%d]\t\"h%d\"[1]\n", h, ((p - 1) * m + l - 1) * m + h);
			for (int a = 1; a <= m; a++) {
				snprintf(peer, sizeof(peer), "pod%d-agg%d", p, a);
				shift_cable(fp, sp, me, m + a, peer, l);
			}
			fputc('\n', fp);
		}
	for (int p = 1; p <= sp->pods; p++)
		for (int a = 1; a <= m; a++, guid++) {
			snprintf(me, sizeof(me), "pod%d-agg%d", p, a);
			fprintf(fp, "switchguid=0x%016x\nSwitch\t%d \"%s\"\n", 0x200000 + guid,
				2 * m, me);
			for (int l = 1; l <= m; l++) {
				snprintf(peer, sizeof(peer), "pod%d-leaf%d", p, l);
				shift_cable(fp, sp, me, l, peer, m + a);
			}
			for (int c = 1; c <= m; c++) {
				snprintf(peer, sizeof(peer), "core%02d", (a - 1) * m + c);
				shift_cable(fp, sp, me, m + c, peer, p);
			}
			fputc('\n', fp);
		}
	for (int c = 1; c <= m * m; c++, guid++) {
		snprintf(me, sizeof(me), "core%02d", c);
		fprintf(fp, "switchguid=0x%016x\nSwitch\t%d \"%s\"\n", 0x300000 + guid, sp->pods,
			me);
		for (int p = 1; p <= sp->pods; p++) {
			snprintf(peer, sizeof(peer), "pod%d-agg%d", p, (c - 1) / m + 1);
			shift_cable(fp, sp, me, p, peer, m + (c - 1) % m + 1);
		}
		fputc('\n', fp);
	}
}

/* The tree as topology text, parsed into f with LIDs (hosts first). */
static uint16_t shift_build(const struct shift_tree *sp, struct fabric *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	int hosts = sp->pods * sp->m * sp->m;

	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	for (int h = 1; h <= hosts; h++) {
		int leaf = (h - 1) / sp->m;

		fprintf(fp, "caguid=0x%016x\nHca\t1 \"h%d\"\n[1]\t\"pod%d-leaf%d\"[%d]\n\n",
			0x10000 + h * 0x10, h, leaf / sp->m + 1, leaf % sp->m + 1,
			(h - 1) % sp->m + 1);
	}
	shift_switches(fp, sp);
	fclose(fp);
	route_test_parse(text, f);
	free(text);
	return route_test_assign_lids(f, ROUTE_TEST_SWITCH_GUID);
}

/* ftree's tables on the tree, scored over every shift: the worst load
 * (0: not routed, or refused by the gate). */
static uint64_t shift_worst(const struct shift_tree *sp)
{
	struct fabric f;
	struct lft_set lft;
	struct score_opts o;
	struct route_score res;
	uint16_t max_lid = shift_build(sp, &f);
	uint64_t worst = 0;

	lft_set_init(&lft);
	if (route_test_run(&route_engine_ftree, &f, max_lid, NULL, 0, &lft, NULL) == 0) {
		score_opts_default(&o);
		o.shifts = SIZE_MAX;
		o.bisections = 0;
		CU_ASSERT_EQUAL_FATAL(score_run(&f, &lft, &o, &res), 0);
		CU_ASSERT_EQUAL(res.gate_rc, 0);
		worst = res.gate_rc ? 0 : res.shift_load_worst;
	}
	lft_set_fini(&lft);
	fabric_fini(&f);
	return worst;
}

/* The intact tree: contention-free, as on every full tree. */
static void test_ftree_shift_intact(void)
{
	struct shift_tree t = {.pods = 8, .m = 4};

	CU_ASSERT_EQUAL(shift_worst(&t), 1);
}

/* Pod 6's first aggregation switch lost its cable to the first core
 * (nanosm-gen --radix 8 --missing-links 2 --seed 5, and a leaf of pod 4
 * lost its second agg).  A breadth-first walk from the cores met pod 6
 * last, after pod 8, so d-mod-k numbered its leaves out of place and a
 * shift all-to-all put 3 flows on a link; numbered by their ways down
 * from a core the pods stay in order: 2. */
static void test_ftree_shift_pod_order(void)
{
	struct shift_tree t = {.pods = 8, .m = 4, .cut = {"core01/6", "pod4-agg2/3"}};

	CU_ASSERT_EQUAL(shift_worst(&t), 2);
}

/* nanosm-gen --radix 8 --missing-links 4 --seed 2: pod 1's agg 3 lost
 * its cable to core 10, pod 6's leaf 2 its cable to agg 4, and pods 7
 * and 8 their agg 1's to core 3.  Aggs that take a LID of another column
 * (sent up by a leaf that lost one) kept its column above, and a shift
 * all-to-all put 3 flows on core 9's link down into pod 1's agg 3, which
 * carries main paths of LIDs in a row already.  Such an agg now weighs
 * the link down from each core into the LID's pod too: 2. */
static void test_ftree_shift_link_down(void)
{
	struct shift_tree t = {
	    .pods = 8, .m = 4, .cut = {"core03/7", "core03/8", "core10/1", "pod6-agg4/2"}};

	CU_ASSERT_EQUAL(shift_worst(&t), 2);
}

/* nanosm-gen --radix 8 --missing-links 3 --seed 3 and seed 4: leaves
 * that lost an agg send LIDs up to aggs of other columns, and aggs in
 * different pods each move a LID off its main path's core onto the same
 * core, whose link down then carries them in the same shifts: every
 * choice looked alike to each agg (3 flows up, main paths down alike).
 * The moves are now recorded per core's link down, with the shifts
 * each agg's CAs send to the LID in, and the next agg breaks such a tie
 * by the fewest there: 2 (3 without). */
static void test_ftree_shift_moved(void)
{
	struct shift_tree s3 = {
	    .pods = 8, .m = 4, .cut = {"pod1-leaf3/5", "pod3-leaf3/7", "pod2-agg2/8"}};
	struct shift_tree s4 = {
	    .pods = 8, .m = 4, .cut = {"pod2-leaf3/8", "pod2-agg3/6", "pod3-agg2/8"}};

	CU_ASSERT_EQUAL(shift_worst(&s3), 2);
	CU_ASSERT_EQUAL(shift_worst(&s4), 2);
}

void test_ftree_shift_register(void)
{
	CU_pSuite s = CU_add_suite("ftree_shift", NULL, NULL);

	CU_add_test(s, "intact 3-level tree: shift load 1", test_ftree_shift_intact);
	CU_add_test(s, "a pod cut off its first core keeps its place (shift 3 -> 2)",
		    test_ftree_shift_pod_order);
	CU_add_test(s, "an agg weighs the link down into the LID's pod (shift 3 -> 2)",
		    test_ftree_shift_link_down);
	CU_add_test(s, "aggs see the LIDs others moved onto a core's link down (shift 3 -> 2)",
		    test_ftree_shift_moved);
}
