/*
 * test_ping_report.c - unit tests for what nanosm-ping prints
 * (tools/ping/ping_report.c): latency statistics, verdict lines, durations and
 * the summary, local port problems and the choice of a port.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/ping_test.h"
#include "tests/unit/unit.h"
#include "tools/ping/ping_report.h"

static void test_ping_report_stats(void)
{
	uint64_t one[] = {1500};
	uint64_t two[] = {3000, 1000};
	uint64_t five[] = {3400, 1900, 2100, 2000, 2100};
	uint64_t many[1000];
	struct ping_stats st;

	CU_ASSERT_EQUAL(ping_report_stats(one, 0, &st), -EINVAL);
	CU_ASSERT_EQUAL(ping_report_stats(one, 1, &st), 0);
	CU_ASSERT_EQUAL(st.min, 1500);
	CU_ASSERT_EQUAL(st.median, 1500);
	CU_ASSERT_EQUAL(st.p99, 1500);
	CU_ASSERT_EQUAL(ping_report_stats(two, 2, &st), 0);
	CU_ASSERT_EQUAL(st.median, 2000); /* mean of the middle two */
	CU_ASSERT_EQUAL(st.p99, 3000);
	CU_ASSERT_EQUAL(ping_report_stats(five, 5, &st), 0);
	CU_ASSERT_EQUAL(st.n, 5);
	CU_ASSERT_EQUAL(st.min, 1900);
	CU_ASSERT_EQUAL(st.median, 2100);
	CU_ASSERT_EQUAL(st.p99, 3400);
	CU_ASSERT_EQUAL(st.max, 3400);
	/* 1000 samples, 1..1000 us in scrambled order: p99 is the 990th */
	for (unsigned i = 0; i < 1000; i++)
		many[i] = ((i * 7919u) % 1000 + 1) * US;
	CU_ASSERT_EQUAL(ping_report_stats(many, 1000, &st), 0);
	CU_ASSERT_EQUAL(st.min, 1 * US);
	CU_ASSERT_EQUAL(st.max, 1000 * US);
	CU_ASSERT_EQUAL(st.median, 500 * US + 500); /* (500 + 501) / 2 us */
	CU_ASSERT_EQUAL(st.p99, 990 * US);
	/* 100 samples: rank 99 */
	for (unsigned i = 0; i < 100; i++)
		many[i] = 100 - i;
	CU_ASSERT_EQUAL(ping_report_stats(many, 100, &st), 0);
	CU_ASSERT_EQUAL(st.p99, 99);
	/* 101 samples: rank ceil(99.99) = 100 */
	for (unsigned i = 0; i < 101; i++)
		many[i] = i + 1;
	CU_ASSERT_EQUAL(ping_report_stats(many, 101, &st), 0);
	CU_ASSERT_EQUAL(st.p99, 100);
	CU_ASSERT_EQUAL(st.median, 51);
}

static void result_ok(struct ping_result *r, const char *name, uint16_t lid)
{
	uint64_t s[] = {1900, 2100, 3400, 2050, 2100};

	memset(r, 0, sizeof(*r));
	r->verdict = PING_VERDICT_OK;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->lid = lid;
	r->sent = 5;
	ping_report_stats(s, 5, &r->rtt);
}

static void test_ping_report_format(void)
{
	struct ping_result r;
	char line[PING_REPORT_LINE_MAX], small[10];

	result_ok(&r, "host2", 4);
	CU_ASSERT_EQUAL(ping_report_format(&r, line, sizeof(line)), (int)strlen(line));
	CU_ASSERT_STRING_EQUAL(line, "OK lid 4 (host2): rtt min 1.9 median 2.1 p99 3.4 us");
	r.have_bw = 1;
	r.bw_bytes = 268435456;
	r.bw_ns = 191739611;
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line,
			       "OK lid 4 (host2): rtt min 1.9 median 2.1 p99 3.4 us, bw 11.2 Gb/s");
	/* UD: messages that did not arrive are shown */
	r.bw_sent = 4096;
	r.bw_rx = 4000;
	r.bw_bytes = 4000ULL * 4096;
	r.bw_ns = 20 * MS;
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_TRUE(ping_test_has(line, ", bw 6.6 Gb/s (4000 of 4096 messages arrived)"));
	r.bw_bytes = 1000;
	r.bw_ns = 1 * MS;
	r.bw_sent = 0;
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_TRUE(ping_test_has(line, ", bw 8.0 Mb/s"));
	r.loopback = 1;
	r.have_bw = 0;
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line,
			       "OK lid 4 (host2, loopback): rtt min 1.9 median 2.1 p99 3.4 us");

	memset(&r, 0, sizeof(r));
	r.verdict = PING_VERDICT_FAIL;
	strcpy(r.name, "host3");
	r.lid = 6;
	strcpy(r.reason, "no response (timeout 1s)");
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "FAIL lid 6 (host3): no response (timeout 1s)");
	r.name[0] = '\0';
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "FAIL lid 6: no response (timeout 1s)");
	r.lid = 0;
	strcpy(r.name, "host3:19000");
	strcpy(r.reason, "side channel: connect to host3:19000: Connection refused");
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(
	    line, "FAIL host3:19000: side channel: connect to host3:19000: Connection refused");

	/* a failure with measurements keeps them */
	result_ok(&r, "host2", 4);
	r.verdict = PING_VERDICT_FAIL;
	strcpy(r.reason, "1 of 5 pings lost (timeout 1s)");
	ping_report_format(&r, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "FAIL lid 4 (host2): 1 of 5 pings lost (timeout 1s); rtt min "
				     "1.9 median 2.1 p99 3.4 us");
	CU_ASSERT_EQUAL(ping_report_format(&r, small, sizeof(small)), -ENOSPC);
}

static void test_ping_report_misc(void)
{
	char buf[200];
	struct ping_result res[4];

	CU_ASSERT_STRING_EQUAL(ping_report_duration(1000, buf, sizeof(buf)), "1s");
	CU_ASSERT_STRING_EQUAL(ping_report_duration(500, buf, sizeof(buf)), "0.5s");
	CU_ASSERT_STRING_EQUAL(ping_report_duration(1250, buf, sizeof(buf)), "1.25s");
	CU_ASSERT_STRING_EQUAL(ping_report_duration(1, buf, sizeof(buf)), "0.001s");
	CU_ASSERT_STRING_EQUAL(ping_report_duration(60000, buf, sizeof(buf)), "60s");
	CU_ASSERT_TRUE(ping_report_gbps(125, 100) == 10.0);
	CU_ASSERT_TRUE(ping_report_gbps(125, 0) == 0.0);

	result_ok(&res[0], "host1", 3);
	result_ok(&res[1], "host2", 4);
	memset(&res[2], 0, sizeof(res[2]));
	res[2].verdict = PING_VERDICT_FAIL;
	strcpy(res[2].name, "host3");
	memset(&res[3], 0, sizeof(res[3]));
	res[3].verdict = PING_VERDICT_SKIPPED;
	res[3].lid = 9;
	CU_ASSERT_TRUE(ping_report_lid_missing(6, "hosts.txt", res, 4, buf, sizeof(buf)) > 0);
	CU_ASSERT_STRING_EQUAL(
	    buf,
	    "FAIL lid 6: no server listed in hosts.txt reports this LID (could not ask host3)");
	res[2].verdict = PING_VERDICT_OK;
	ping_report_lid_missing(6, "hosts.txt", res, 4, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "FAIL lid 6: no server listed in hosts.txt reports this LID");
	res[2].verdict = PING_VERDICT_FAIL;
	ping_report_summary(res, 4, 1, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "4 paths: 2 OK, 2 FAIL");
	ping_report_summary(res, 1, 0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1 path: 1 OK, 0 FAIL");
}

static struct ping_port_desc port_desc(const char *dev, unsigned port, enum ping_port_state st,
				       enum ping_link_layer link, uint16_t lid)
{
	struct ping_port_desc d;

	memset(&d, 0, sizeof(d));
	snprintf(d.dev, sizeof(d.dev), "%s", dev);
	d.port = port;
	d.state = st;
	d.link = link;
	d.lid = lid;
	d.mtu = 4096;
	return d;
}

static void port_problem(struct ping_port_desc d, int rc, const char *exact)
{
	char err[256] = "";

	CU_ASSERT_EQUAL(ping_report_port_usable(&d, err, sizeof(err)), rc);
	CU_ASSERT_STRING_EQUAL(err, exact);
}

static void test_ping_report_port(void)
{
	char err[256] = "";
	struct ping_port_desc d = port_desc("mlx5_0", 1, PING_PORT_ACTIVE, PING_LINK_IB, 3);

	CU_ASSERT_EQUAL(ping_report_port_usable(&d, err, sizeof(err)), 0);
	d.state = PING_PORT_ACTIVE_DEFER;
	CU_ASSERT_EQUAL(ping_report_port_usable(&d, err, sizeof(err)), 0);
	port_problem(port_desc("mlx5_0", 1, PING_PORT_INIT, PING_LINK_IB, 0), -ENETDOWN,
		     "port 1 of mlx5_0 is INIT: is a subnet manager running? (run nanosm)");
	port_problem(port_desc("mlx5_0", 1, PING_PORT_DOWN, PING_LINK_IB, 0), -ENETDOWN,
		     "port 1 of mlx5_0 is DOWN: no link (is the cable plugged in? see ibstat)");
	port_problem(port_desc("mlx5_0", 2, PING_PORT_ARMED, PING_LINK_IB, 7), -ENETDOWN,
		     "port 2 of mlx5_0 is ARMED: the subnet manager has not activated it yet (is "
		     "nanosm still sweeping?)");
	port_problem(port_desc("mlx5_0", 1, PING_PORT_NOP, PING_LINK_IB, 0), -ENETDOWN,
		     "port 1 of mlx5_0 is in state NOP (0), not ACTIVE");
	port_problem(
	    port_desc("mlx5_0", 1, PING_PORT_ACTIVE, PING_LINK_IB, 0), -EADDRNOTAVAIL,
	    "port 1 of mlx5_0 has LID 0: no subnet manager has assigned it a LID (run nanosm)");
	port_problem(port_desc("mlx5_2", 1, PING_PORT_ACTIVE, PING_LINK_ETHERNET, 0),
		     -EPROTONOSUPPORT,
		     "port 1 of mlx5_2 is Ethernet (RoCE): nanosm-ping tests InfiniBand ports "
		     "(choose one with -d/-p or -g)");
	CU_ASSERT_STRING_EQUAL(ping_report_port_state_name((enum ping_port_state)9), "UNKNOWN");
}

static void pick_fails(const struct ping_port_desc *ports, size_t n, const char *dev, unsigned port,
		       int rc, const char *exact)
{
	char err[256] = "";
	size_t idx = 99;

	CU_ASSERT_EQUAL(ping_report_pick_port(ports, n, dev, port, 0, &idx, err, sizeof(err)), rc);
	CU_ASSERT_STRING_EQUAL(err, exact);
	CU_ASSERT_EQUAL(idx, 99);
}

static void test_ping_report_pick(void)
{
	struct ping_port_desc ports[4] = {
	    port_desc("mlx5_0", 1, PING_PORT_ACTIVE, PING_LINK_ETHERNET, 0),
	    port_desc("mlx5_1", 1, PING_PORT_INIT, PING_LINK_IB, 0),
	    port_desc("mlx5_1", 2, PING_PORT_ACTIVE, PING_LINK_IB, 9),
	    port_desc("mlx5_2", 1, PING_PORT_ACTIVE, PING_LINK_IB, 4),
	};
	char err[256];
	size_t idx = 99;

	pick_fails(ports, 0, "", 0, -ENODEV, "no RDMA device found: is the HCA driver loaded?");
	/* default: the first usable InfiniBand port */
	CU_ASSERT_EQUAL(ping_report_pick_port(ports, 4, "", 0, 0, &idx, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(idx, 2);
	CU_ASSERT_EQUAL(ping_report_pick_port(ports, 4, NULL, 1, 0, &idx, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(idx, 3);
	CU_ASSERT_EQUAL(ping_report_pick_port(ports, 4, "mlx5_2", 0, 0, &idx, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(idx, 3);
	/* -g: the port with that GUID */
	ports[3].guid = 0x0002c90300a00021ULL;
	CU_ASSERT_EQUAL(
	    ping_report_pick_port(ports, 4, "", 0, 0x0002c90300a00021ULL, &idx, err, sizeof(err)),
	    0);
	CU_ASSERT_EQUAL(idx, 3);
	{
		char e[256] = "";
		size_t keep = 99;

		CU_ASSERT_EQUAL(ping_report_pick_port(ports, 4, "", 0, 0x99, &keep, e, sizeof(e)),
				-ENODEV);
		CU_ASSERT_STRING_EQUAL(e, "no RDMA port has GUID 0x0000000000000099 (devices: "
					  "mlx5_0, mlx5_1, mlx5_2)");
		CU_ASSERT_EQUAL(keep, 99);
	}
	/* the named port is not usable: say why */
	pick_fails(ports, 4, "mlx5_1", 1, -ENETDOWN,
		   "port 1 of mlx5_1 is INIT: is a subnet manager running? (run nanosm)");
	pick_fails(ports, 4, "mlx5_0", 0, -EPROTONOSUPPORT,
		   "port 1 of mlx5_0 is Ethernet (RoCE): nanosm-ping tests InfiniBand ports "
		   "(choose one with -d/-p or -g)");
	pick_fails(ports, 4, "mlx5_9", 0, -ENODEV,
		   "RDMA device mlx5_9 not found (found: mlx5_0, mlx5_1, mlx5_2)");
	pick_fails(ports, 4, "mlx5_2", 2, -ENODEV, "mlx5_2 has no port 2");
	pick_fails(ports, 4, "", 3, -ENODEV,
		   "no RDMA device has a port 3 (found: mlx5_0, mlx5_1, mlx5_2)");
	/* nothing usable: the first InfiniBand port's problem, not the Ethernet one's */
	ports[2].lid = 0;
	ports[3].state = PING_PORT_DOWN;
	pick_fails(ports, 4, "", 0, -ENETDOWN,
		   "port 1 of mlx5_1 is INIT: is a subnet manager running? (run nanosm)");
	pick_fails(ports, 1, "", 0, -EPROTONOSUPPORT,
		   "port 1 of mlx5_0 is Ethernet (RoCE): nanosm-ping tests InfiniBand ports "
		   "(choose one with -d/-p or -g)");
}

void test_ping_report_register(void)
{
	CU_pSuite s = CU_add_suite("ping_report", NULL, NULL);

	if (!s)
		return;
	CU_add_test(s, "min/median/p99", test_ping_report_stats);
	CU_add_test(s, "verdict lines", test_ping_report_format);
	CU_add_test(s, "durations, missing LIDs, summary", test_ping_report_misc);
	CU_add_test(s, "port problems, exact texts", test_ping_report_port);
	CU_add_test(s, "port choice", test_ping_report_pick);
}
