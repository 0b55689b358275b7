/*
 * tools/ping/nanosm-ping.c - the verbs test client and server: main(), the
 * usage, the hosts file, and the choice of the local port; then the client
 * (nping_client.c) or the server (nping_server.c) runs.  The libibverbs
 * calls are nping_dev.c's and nping_qp.c's (each with its header);
 * protocol, statistics, verdicts and option rules live in
 * tools/ping/ping_*.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ping/nping.h"
#include "tools/ping/nping_client.h"
#include "tools/ping/nping_dev.h"
#include "tools/ping/nping_server.h"
#include "tools/ping/ping_opts.h"
#include "tools/ping/ping_proto.h"
#include "tools/ping/ping_report.h"

#define NPING_HOSTS_MAX (1 << 20)

static void nping_usage(FILE *to)
{
	fprintf(
	    to,
	    "usage: nanosm-ping --server [--tcp-port N] [-g PORTGUID | -d CA [-p PORT]] [-v]\n"
	    "       nanosm-ping [options] HOST[:TCPPORT]|LID ...\n"
	    "       nanosm-ping [options] --all HOSTS_FILE\n"
	    "Ping-pong over InfiniBand (UD, or RC with --rc) to every host, after swapping\n"
	    "QP numbers over TCP with its \"nanosm-ping --server\".  One verdict line per path.\n"
	    "  -d, --ca CA         RDMA device, e.g. mlx5_0 (default: first usable IB port)\n"
	    "  -p, --port N        port number on that CA\n"
	    "  -g, --guid GUID     the local port with this port GUID\n"
	    "      --tcp-port N    TCP port of the side channel, both ends (default %d)\n"
	    "      --rc            reliable connected QPs (default: UD)\n"
	    "  -n, --iters N       round trips per path (default %d)\n"
	    "      --ping-size B   ping message size (default %d)\n"
	    "      --bw            bandwidth test after the pings (RC write / UD send stream)\n"
	    "  -s, --size B        bandwidth message size (default RC 64k, UD the path MTU)\n"
	    "      --bw-count N    bandwidth messages (default %d)\n"
	    "  -t, --timeout T     per-ping timeout: seconds or e.g. 250ms (default 1)\n"
	    "      --all FILE      test every host in FILE (one HOST[:PORT] per line)\n"
	    "      --hosts FILE    where to look for LID targets\n"
	    "  -v, --verbose       state changes (-vv: side-channel lines)\n"
	    "  -h, --help          this text;  --version  the protocol version\n"
	    "Exit status: 0 every path OK, 1 a path failed, 2 usage or local setup error.\n",
	    PING_PROTO_TCP_PORT, PING_OPTS_ITERS, PING_OPTS_PING_SIZE, PING_OPTS_BW_COUNT);
}

static int nping_read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return -errno;
	buf = malloc(NPING_HOSTS_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, NPING_HOSTS_MAX + 1, f);
	fclose(f);
	if (n > NPING_HOSTS_MAX) {
		free(buf);
		return -EFBIG;
	}
	*text = buf;
	*len = n;
	return 0;
}

/* The hosts file, if any, parsed into *file. */
static int nping_load_hosts(const struct ping_opts *o, struct ping_target **file, size_t *n)
{
	const char *path = o->all_file ? o->all_file : o->hosts_file;
	char err[256];
	char *text = NULL;
	size_t len = 0;
	int rc;

	*file = NULL;
	*n = 0;
	if (!path)
		return 0;
	if ((rc = nping_read_file(path, &text, &len)) < 0) {
		nping_warn("%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = ping_opts_parse_hosts(text, len, path, o->tcp_port, file, n, err, sizeof(err));
	free(text);
	if (rc < 0)
		nping_warn("%s", rc == -ENOMEM ? "out of memory" : err);
	return rc;
}

/* Find and open the local port, or print why not. */
static int nping_open_local(const struct ping_opts *o, struct nping_dev *d)
{
	struct ping_port_desc ports[NPING_MAX_PORTS];
	char err[256];
	size_t n = 0, idx = 0;
	int rc, list_errno;

	if (nping_dev_list_ports(ports, &n, &list_errno) < 0)
		return -ENODEV;
	rc = ping_report_pick_port(ports, n, o->dev, o->ib_port, o->port_guid, &idx, err,
				   sizeof(err));
	if (rc < 0 && !(o->server && rc != -ENODEV && rc != -EPROTONOSUPPORT)) {
		nping_warn("%s", err);
		if (n == 0 && list_errno == ENOSYS)
			nping_warn(
			    "libibverbs: %s (no kernel RDMA support: /sys/class/infiniband_verbs "
			    "is missing; load the HCA driver, e.g. modprobe mlx5_ib)",
			    strerror(list_errno));
		return rc;
	}
	if (rc < 0) /* a server may start before the SM: take the port it named */
		for (idx = 0; idx < n; idx++)
			if ((!o->dev[0] || strcmp(ports[idx].dev, o->dev) == 0) &&
			    (!o->ib_port || ports[idx].port == o->ib_port) &&
			    (!o->port_guid || ports[idx].guid == o->port_guid) &&
			    ports[idx].link != PING_LINK_ETHERNET)
				break;
	if (idx >= n || nping_dev_open(d, &ports[idx]) < 0)
		return -ENODEV;
	if (!o->server && nping_dev_refresh(d, err, sizeof(err)) < 0) {
		nping_warn("%s", err);
		nping_dev_close(d);
		return -ENETDOWN;
	}
	return 0;
}

static int nping_client_main(const struct ping_opts *o)
{
	struct ping_target *file;
	struct ping_plan_item *plan = NULL;
	struct nping_dev d;
	size_t n_file, n_plan = 0;
	int rc;

	if (nping_load_hosts(o, &file, &n_file) < 0)
		return NPING_EXIT_SETUP;
	if (ping_opts_plan(o, file, n_file, &plan, &n_plan) < 0) {
		free(file);
		nping_warn("out of memory");
		return NPING_EXIT_SETUP;
	}
	free(file);
	if (nping_open_local(o, &d) < 0) {
		free(plan);
		return NPING_EXIT_SETUP;
	}
	rc = nping_client_run(&d, o, plan, n_plan);
	nping_dev_close(&d);
	free(plan);
	return rc;
}

int main(int argc, char **argv)
{
	struct ping_opts o;
	char err[256];
	struct nping_dev d;
	int rc;

	rc = ping_opts_parse(&o, argc, argv, err, sizeof(err));
	if (rc < 0) {
		nping_warn("%s", rc == -ENOMEM ? "out of memory" : err);
		return NPING_EXIT_SETUP;
	}
	if (o.help || o.version) {
		if (o.help)
			nping_usage(stdout);
		else
			printf("nanosm-ping (nanosm), side-channel protocol %s/%d\n",
			       PING_PROTO_NAME, PING_PROTO_VERSION);
		ping_opts_fini(&o);
		return NPING_EXIT_OK;
	}
	nping_signals();
	if (o.server) {
		rc = nping_open_local(&o, &d) < 0 ? NPING_EXIT_SETUP : nping_server_run(&d, &o);
		if (rc != NPING_EXIT_SETUP)
			nping_dev_close(&d);
	} else {
		rc = nping_client_main(&o);
	}
	ping_opts_fini(&o);
	return rc;
}
