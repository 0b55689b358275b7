/*
 * test_ping_opts.c - unit tests for nanosm-ping's command line
 * (tools/ping/ping_opts.c): defaults, client and server options, the port
 * options nanosm takes, targets, the hosts file and the plan built from them.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/ping_test.h"
#include "tests/unit/unit.h"
#include "tools/ping/ping_opts.h"

static int opts_argv(struct ping_opts *o, const char *words, char *err, size_t errlen)
{
	char buf[512], *argv[32], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "nanosm-ping %s", words);
	for (char *w = strtok_r(buf, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	return ping_opts_parse(o, argc, argv, err, errlen);
}

static void opts_fail(const char *words, const char *want)
{
	struct ping_opts o;
	char err[256] = "";

	CU_ASSERT_EQUAL(opts_argv(&o, words, err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(ping_test_has(err, want));
}

static void test_ping_opts_defaults(void)
{
	struct ping_opts o;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "host2", err, sizeof(err)), 0);
	CU_ASSERT_FALSE(o.server);
	CU_ASSERT_EQUAL(o.tcp_port, PING_PROTO_TCP_PORT);
	CU_ASSERT_EQUAL(o.mode, PING_MODE_UD);
	CU_ASSERT_EQUAL(o.iters, 1000);
	CU_ASSERT_EQUAL(o.ping_size, 64);
	CU_ASSERT_FALSE(o.bw);
	CU_ASSERT_EQUAL(o.bw_size, 0);
	CU_ASSERT_EQUAL(o.bw_count, 4096);
	CU_ASSERT_EQUAL(o.timeout_ms, 1000);
	CU_ASSERT_STRING_EQUAL(o.dev, "");
	CU_ASSERT_EQUAL(o.ib_port, 0);
	CU_ASSERT_EQUAL_FATAL(o.n_targets, 1);
	CU_ASSERT_STRING_EQUAL(o.targets[0].host, "host2");
	CU_ASSERT_EQUAL(o.targets[0].port, PING_PROTO_TCP_PORT);
	ping_opts_fini(&o);
}

static void test_ping_opts_client(void)
{
	struct ping_opts o;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(opts_argv(&o,
					"--rc -n 10 --bw -s 1m --bw-count=32 -t 250ms "
					"-d mlx5_1 -p2 --tcp-port 19000 --ping-size=2k -vv "
					"host2 host3:19001 [fe80::1%ib0]:7 fe80::2 4 0x10 "
					"--hosts h.txt",
					err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(o.mode, PING_MODE_RC);
	CU_ASSERT_EQUAL(o.iters, 10);
	CU_ASSERT_TRUE(o.bw);
	CU_ASSERT_EQUAL(o.bw_size, 1 << 20);
	CU_ASSERT_EQUAL(o.bw_count, 32);
	CU_ASSERT_EQUAL(o.timeout_ms, 250);
	CU_ASSERT_STRING_EQUAL(o.dev, "mlx5_1");
	CU_ASSERT_EQUAL(o.ib_port, 2);
	CU_ASSERT_EQUAL(o.tcp_port, 19000);
	CU_ASSERT_EQUAL(o.ping_size, 2048);
	CU_ASSERT_EQUAL(o.verbose, 2);
	CU_ASSERT_STRING_EQUAL(o.hosts_file, "h.txt");
	CU_ASSERT_EQUAL_FATAL(o.n_targets, 6);
	/* the default port applies to targets given before --tcp-port too */
	CU_ASSERT_STRING_EQUAL(o.targets[0].host, "host2");
	CU_ASSERT_EQUAL(o.targets[0].port, 19000);
	CU_ASSERT_STRING_EQUAL(o.targets[1].host, "host3");
	CU_ASSERT_EQUAL(o.targets[1].port, 19001);
	CU_ASSERT_STRING_EQUAL(o.targets[2].host, "fe80::1%ib0");
	CU_ASSERT_EQUAL(o.targets[2].port, 7);
	CU_ASSERT_STRING_EQUAL(o.targets[3].host, "fe80::2");
	CU_ASSERT_EQUAL(o.targets[3].port, 19000);
	CU_ASSERT_EQUAL(o.targets[4].lid, 4);
	CU_ASSERT_STRING_EQUAL(o.targets[4].host, "");
	CU_ASSERT_EQUAL(o.targets[5].lid, 16);
	CU_ASSERT_EQUAL(ping_opts_lid_targets(&o), 2);
	ping_opts_fini(&o);

	CU_ASSERT_EQUAL_FATAL(
	    opts_argv(&o, "--timeout=0.5 --all hosts.txt -- -odd-host", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.timeout_ms, 500);
	CU_ASSERT_STRING_EQUAL(o.all_file, "hosts.txt");
	CU_ASSERT_EQUAL_FATAL(o.n_targets, 1);
	CU_ASSERT_STRING_EQUAL(o.targets[0].host, "-odd-host");
	ping_opts_fini(&o);

	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--rc --ud -t 2 --all h", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.mode, PING_MODE_UD); /* the last one wins */
	CU_ASSERT_EQUAL(o.timeout_ms, 2000);
	ping_opts_fini(&o);
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "-t 1.25s --all h", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.timeout_ms, 1250);
	ping_opts_fini(&o);
}

static void test_ping_opts_server(void)
{
	struct ping_opts o;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(
	    opts_argv(&o, "--server --tcp-port=18600 -d mlx5_0 -p 1 -v", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(o.server);
	CU_ASSERT_EQUAL(o.tcp_port, 18600);
	CU_ASSERT_STRING_EQUAL(o.dev, "mlx5_0");
	CU_ASSERT_EQUAL(o.ib_port, 1);
	CU_ASSERT_EQUAL(o.n_targets, 0);
	ping_opts_fini(&o);
	opts_fail("--server host2", "--server takes no targets (\"host2\")");
	opts_fail("--server --bw", "--bw is a client option");
	opts_fail("--server -n 5", "--iters is a client option");
	opts_fail("--server --all f", "--all is a client option");
	/* --help wins over everything else */
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--server --bw -h", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(o.help);
	ping_opts_fini(&o);
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--version", err, sizeof(err)), 0);
	CU_ASSERT_TRUE(o.version);
	ping_opts_fini(&o);
}

static void test_ping_opts_errors(void)
{
	opts_fail("", "no target: give HOST, LID or --all HOSTS_FILE (or --server)");
	opts_fail("--bogus host2", "unknown option \"--bogus\"");
	opts_fail("--bogus=1 host2", "unknown option \"--bogus\"");
	opts_fail("-x host2", "unknown option \"-x\"");
	opts_fail("-vx host2", "unknown option \"-x\" in \"-vx\"");
	opts_fail("-vn host2", "-n needs a value");
	opts_fail("host2 -n", "-n needs a value");
	opts_fail("--bw=1 host2", "--bw takes no value");
	opts_fail("-n 0 host2", "-n: 0 is out of range 1..10000000");
	opts_fail("-n ten host2", "-n: \"ten\" is not a number");
	opts_fail("-n 99999999999999999999999 host2", "is too large");
	opts_fail("--tcp-port 0 host2", "--tcp-port: 0 is out of range 1..65535");
	opts_fail("-p 0 host2", "-p: 0 is out of range 1..254");
	opts_fail("-d 0123456789012345678901234567890123456789012345678901234567890123 h",
		  "-d: device name must be 1..63 characters");
	opts_fail("--tcp-port 65536 host2", "out of range");
	opts_fail("-p 65536 host2", "-p: 65536 is out of range 1..254");
	opts_fail("--ping-size 4 host2", "--ping-size: 4 is out of range 8..8388608");
	opts_fail("--ping-size 8k host2", "--ping-size 8192: a UD message must fit in one packet");
	opts_fail("--bw -s 9m host2", "-s: 9m is out of range");
	opts_fail("--bw -s 8k host2", "--size 8192: a UD message must fit in one packet");
	opts_fail("-s 4k host2", "--size sets the bandwidth message size: add --bw");
	opts_fail("-t 0 host2", "-t: 0 is out of range 1ms..3600s");
	opts_fail("-t 1.2345 host2", "is not a duration");
	opts_fail("-t 1. host2", "is not a duration");
	opts_fail("-t soon host2", "is not a duration");
	opts_fail("-t 3601 host2", "out of range");
	opts_fail("4", "LID target 4 needs --hosts FILE");
	opts_fail("--all a --hosts b", "give --all or --hosts, not both");
	opts_fail("0", "LID target 0: not a unicast LID");
	opts_fail("49152 --hosts h", "LID target 49152: not a unicast LID");
	opts_fail("0x --hosts h", "LID target: \"0x\" is not a number");
}

/* -d, -p and -g mean the CA, its port and the port GUID, as for nanosm
 * and nanosm-verify; the side channel's TCP port is --tcp-port. */
static void test_ping_opts_port_letters(void)
{
	struct ping_opts o;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--ca mlx5_0 --port 2 host2", err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(o.dev, "mlx5_0");
	CU_ASSERT_EQUAL(o.ib_port, 2);
	CU_ASSERT_EQUAL(o.tcp_port, PING_PROTO_TCP_PORT);
	CU_ASSERT_EQUAL(o.targets[0].port, PING_PROTO_TCP_PORT);
	ping_opts_fini(&o);
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "-g 0x0002c90300a00011 host2", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.port_guid, 0x0002c90300a00011ULL);
	ping_opts_fini(&o);
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--guid=0x21 --server", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(o.port_guid, 0x21);
	ping_opts_fini(&o);
	/* both ends take --tcp-port */
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--tcp-port 7000 host2 host3:7001", err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL(o.tcp_port, 7000);
	CU_ASSERT_EQUAL(o.targets[0].port, 7000);
	CU_ASSERT_EQUAL(o.targets[1].port, 7001);
	CU_ASSERT_EQUAL(o.ib_port, 0);
	ping_opts_fini(&o);
	/* the old meaning of -p (a TCP port) is explained, the old names too */
	opts_fail("-p 18600 host2", "-p: 18600 is not an InfiniBand port (1..254): -p/--port is "
				    "the IB port, as in nanosm; the side channel's TCP port is "
				    "--tcp-port");
	opts_fail("--server --port 18600", "--port: 18600 is not an InfiniBand port");
	opts_fail("-i 1 host2", "-i is gone: the IB port is -p/--port");
	opts_fail("--ib-port 1 host2", "--ib-port is now -p/--port, as in nanosm");
	opts_fail("--ib-dev=mlx5_0 host2", "--ib-dev is now -d/--ca, as in nanosm");
	opts_fail("-g 0 host2", "-g: 0 is out of range 1..");
	opts_fail("-g xyz host2", "-g: \"xyz\" is not a number");
	opts_fail("-g 0x21 -d mlx5_0 host2", "give -g GUID or -d CA [-p PORT], not both");
	opts_fail("-p 1 -g 0x21 host2", "give -g GUID or -d CA [-p PORT], not both");
}

static void target_fail(const char *s, const char *want)
{
	struct ping_target t;
	char err[256] = "";

	CU_ASSERT_EQUAL(ping_opts_parse_target(s, 18555, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT_TRUE(ping_test_has(err, want));
}

static void test_ping_opts_targets(void)
{
	struct ping_target t;
	char err[256];
	char name[300];

	CU_ASSERT_EQUAL(ping_opts_parse_target("10.0.0.2", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(t.host, "10.0.0.2");
	CU_ASSERT_EQUAL(t.lid, 0);
	CU_ASSERT_STRING_EQUAL(ping_opts_target_name(&t, 18555, name, sizeof(name)), "10.0.0.2");
	CU_ASSERT_EQUAL(ping_opts_parse_target("host-2.lab_x:1", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(ping_opts_target_name(&t, 18555, name, sizeof(name)),
			       "host-2.lab_x:1");
	CU_ASSERT_EQUAL(ping_opts_parse_target("[::1]:9", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(t.host, "::1");
	CU_ASSERT_STRING_EQUAL(ping_opts_target_name(&t, 18555, name, sizeof(name)), "[::1]:9");
	CU_ASSERT_EQUAL(ping_opts_parse_target("[::1]", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.port, 18555);
	CU_ASSERT_EQUAL(ping_opts_parse_target("0x2A", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.lid, 42);
	CU_ASSERT_STRING_EQUAL(ping_opts_target_name(&t, 18555, name, sizeof(name)), "lid 42");
	CU_ASSERT_EQUAL(ping_opts_parse_target("49151", 18555, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.lid, 49151);
	target_fail("", "empty target");
	target_fail(":80", "empty host name");
	target_fail("host:", "port: \"\" is not a number");
	target_fail("host:http", "port: \"http\" is not a number");
	target_fail("host:0", "port: 0 is out of range");
	target_fail("[::1", "expected [IPV6] or [IPV6]:PORT");
	target_fail("[::1]x", "expected [IPV6] or [IPV6]:PORT");
	target_fail("[]:5", "empty host name");
	target_fail("ho st", "' ' is not allowed");
	target_fail("host/24", "'/' is not allowed");
	target_fail("99999999999", "not a unicast LID");
}

static void test_ping_opts_hosts(void)
{
	const char *text = "# lab hosts\n"
			   "host1\n"
			   "\n"
			   "  host2:18600   # the odd one\r\n"
			   "\t10.0.0.3\n"
			   "host4";
	struct ping_target *list = NULL;
	char err[256] = "";
	size_t n = 0;

	CU_ASSERT_EQUAL_FATAL(ping_opts_parse_hosts(text, strlen(text), "hosts.txt", 18555, &list,
						    &n, err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT_STRING_EQUAL(list[0].host, "host1");
	CU_ASSERT_STRING_EQUAL(list[1].host, "host2");
	CU_ASSERT_EQUAL(list[1].port, 18600);
	CU_ASSERT_STRING_EQUAL(list[2].host, "10.0.0.3");
	CU_ASSERT_STRING_EQUAL(list[3].host, "host4");
	free(list);

#define HOSTS_FAIL(t, want)                                                                        \
	do {                                                                                       \
		list = NULL;                                                                       \
		CU_ASSERT_EQUAL(ping_opts_parse_hosts(t, strlen(t), "h.txt", 18555, &list, &n,     \
						      err, sizeof(err)),                           \
				-EINVAL);                                                          \
		CU_ASSERT_PTR_NULL(list);                                                          \
		CU_ASSERT_TRUE(ping_test_has(err, want));                                          \
	} while (0)
	HOSTS_FAIL("host1\nhost2 host3\n", "h.txt:2: one host per line, found \"host2 host3\"");
	HOSTS_FAIL("host1\n\nhost1\n", "h.txt:3: host1 is listed twice");
	HOSTS_FAIL("HOST1:18555\nhost1\n", "h.txt:2: host1 is listed twice");
	HOSTS_FAIL("host1\n4\n", "h.txt:2: 4 is a LID; a hosts file lists hosts");
	HOSTS_FAIL("host1\nbad:port\n", "h.txt:2: target \"bad:port\": port");
	HOSTS_FAIL("# nothing\n\n", "h.txt: no hosts in the file");
	HOSTS_FAIL("", "h.txt: no hosts in the file");
	{
		char bin[] = "host1\nho\0st\n";
		list = NULL;
		CU_ASSERT_EQUAL(ping_opts_parse_hosts(bin, sizeof(bin) - 1, "h.txt", 18555, &list,
						      &n, err, sizeof(err)),
				-EINVAL);
		CU_ASSERT_TRUE(ping_test_has(err, "h.txt:2: line too long or not text"));
	}
#undef HOSTS_FAIL
}

static void test_ping_opts_plan(void)
{
	struct ping_opts o;
	char err[256];
	struct ping_target file[3];
	struct ping_plan_item *plan = NULL;
	size_t n = 0;

	CU_ASSERT_EQUAL(ping_opts_parse_target("host1", 18555, &file[0], err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ping_opts_parse_target("host2", 18555, &file[1], err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(ping_opts_parse_target("host3", 18555, &file[2], err, sizeof(err)), 0);

	/* LID targets: hosts named directly first, the rest of the file resolve-only */
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "host2 6 host2 hostX --hosts f", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(ping_opts_plan(&o, file, 3, &plan, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT_STRING_EQUAL(plan[0].target.host, "host2");
	CU_ASSERT_FALSE(plan[0].resolve_only);
	CU_ASSERT_STRING_EQUAL(plan[1].target.host, "hostX");
	CU_ASSERT_FALSE(plan[1].resolve_only);
	CU_ASSERT_STRING_EQUAL(plan[2].target.host, "host1");
	CU_ASSERT_TRUE(plan[2].resolve_only);
	CU_ASSERT_STRING_EQUAL(plan[3].target.host, "host3");
	CU_ASSERT_TRUE(plan[3].resolve_only);
	free(plan);
	ping_opts_fini(&o);

	/* --all: every host tested, none resolve-only, even with LID targets */
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "--all f 4", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(ping_opts_plan(&o, file, 3, &plan, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_FALSE(plan[i].resolve_only);
	free(plan);
	ping_opts_fini(&o);

	/* --hosts without LID targets: the file is not contacted */
	CU_ASSERT_EQUAL_FATAL(opts_argv(&o, "host9 --hosts f", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(ping_opts_plan(&o, file, 3, &plan, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	free(plan);
	ping_opts_fini(&o);
}

void test_ping_opts_register(void)
{
	CU_pSuite s = CU_add_suite("ping_opts", NULL, NULL);

	if (!s)
		return;
	CU_add_test(s, "defaults", test_ping_opts_defaults);
	CU_add_test(s, "client options, all spellings", test_ping_opts_client);
	CU_add_test(s, "server options", test_ping_opts_server);
	CU_add_test(s, "errors", test_ping_opts_errors);
	CU_add_test(s, "-d/-p/-g as in nanosm, --tcp-port", test_ping_opts_port_letters);
	CU_add_test(s, "targets", test_ping_opts_targets);
	CU_add_test(s, "hosts file", test_ping_opts_hosts);
	CU_add_test(s, "plan: order, dedup, resolve-only", test_ping_opts_plan);
}
