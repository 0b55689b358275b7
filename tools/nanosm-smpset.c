/*
 * nanosm-smpset.c - a test helper that sets one LFT entry on a switch
 * reached by directed route, behind the SM's back: reads the 64-LID block,
 * changes one entry, writes the block back and reads it again to check.
 * Owns its command line and its use of a client MAD port; used by the integration
 * tests to plant black holes (the diags tools cannot set LFTs).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/mad_port.h"
#include "mad/mad_queue.h"
#include "mad/port_args.h"
#include "mad/smp.h"
#include "routing/fabric.h"

#define SMPSET_EXIT_OK 0
#define SMPSET_EXIT_FAILED 1
#define SMPSET_EXIT_USAGE 2
#define SMPSET_PERMISSIVE_LID 0xffff

struct smpset_args {
	struct port_args local; /* -g, -d, -p */
	unsigned timeout_ms;
	uint8_t path[SMP_MAX_HOPS + 1];
	uint8_t hops;
	uint16_t lid;
	uint8_t out_port;
};

/* ---- One synchronous SMP -------------------------------------------------- */

struct smpset_call {
	int done, status;
	struct smp resp;
};

static uint64_t smpset_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void smpset_rx(void *ctx, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	mad_queue_recv(ctx, from, mad, len, smpset_now_ms());
}

static void smpset_done(void *arg, int status, const struct smp *resp)
{
	struct smpset_call *c = arg;

	c->done = 1;
	c->status = status;
	if (resp)
		c->resp = *resp;
}

/* Send one DR SMP along the path and wait for its completion. */
static int smpset_call(struct mad_queue *q, struct mad_port *mp, const struct smpset_args *a,
		       uint8_t method, uint16_t attr, uint32_t mod, const uint8_t *data,
		       struct smp *resp)
{
	struct mad_addr to = {.lid = SMPSET_PERMISSIVE_LID};
	struct smpset_call c = {0};
	struct smp smp;

	smp_init_dr(&smp, method, attr, mod, a->path, a->hops);
	if (data)
		memcpy(smp.data, data, SMP_DATA_SIZE);
	if (mad_queue_submit(q, &to, &smp, smpset_done, &c, smpset_now_ms()) < 0)
		return -ENOMEM;
	while (!c.done) {
		uint64_t now = smpset_now_ms(), next = mad_queue_tick(q, now);
		unsigned wait = next > now ? (unsigned)(next - now) : 1;

		if (c.done)
			break;
		mad_port_wait(mp, wait);
		mad_port_drain(mp, smpset_rx, q);
	}
	if (c.status == 0)
		*resp = c.resp;
	return c.status;
}

/* ---- The LFT change --------------------------------------------------------- */

static const char *smpset_path_str(const struct smpset_args *a, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "0");

	for (unsigned i = 1; i <= a->hops && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, ",%u", a->path[i]);
	return buf;
}

static int smpset_fail(const char *what, int status, const struct smpset_args *a)
{
	char buf[200];

	fprintf(stderr, "nanosm-smpset: %s via DR path %s failed: %s\n", what,
		smpset_path_str(a, buf, sizeof(buf)), strerror(-status));
	return SMPSET_EXIT_FAILED;
}

/* The node at the path must be a switch; prints a warning when the LID lies
 * above its LinearFDBTop (the switch then drops it whatever the entry). */
static int smpset_check_switch(struct mad_queue *q, struct mad_port *mp,
			       const struct smpset_args *a, struct smp_node_info *ni,
			       struct smp_node_desc *nd)
{
	struct smp resp;
	struct smp_switch_info si;
	int rc;

	if ((rc = smpset_call(q, mp, a, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, &resp)) < 0)
		return smpset_fail("NodeInfo", rc, a);
	smp_node_info_decode(resp.data, ni);
	if (ni->node_type != NODE_TYPE_SWITCH) {
		fprintf(stderr, "nanosm-smpset: node 0x%016" PRIx64 " is not a switch\n",
			ni->node_guid);
		return SMPSET_EXIT_FAILED;
	}
	if (smpset_call(q, mp, a, SMP_METHOD_GET, SMP_ATTR_NODE_DESC, 0, NULL, &resp) == 0)
		smp_node_desc_decode(resp.data, nd);
	if ((rc = smpset_call(q, mp, a, SMP_METHOD_GET, SMP_ATTR_SWITCH_INFO, 0, NULL, &resp)) < 0)
		return smpset_fail("SwitchInfo", rc, a);
	smp_switch_info_decode(resp.data, &si);
	if (a->lid > si.linear_fdb_top)
		fprintf(stderr, "nanosm-smpset: warning: lid %u is above LinearFDBTop %u\n", a->lid,
			si.linear_fdb_top);
	return SMPSET_EXIT_OK;
}

static int smpset_lft(struct mad_queue *q, struct mad_port *mp, const struct smpset_args *a)
{
	uint32_t block = a->lid / LFT_BLOCK_SIZE;
	struct smp_node_info ni;
	struct smp_node_desc nd = {.desc = ""};
	struct smp_lft_block blk;
	uint8_t data[SMP_DATA_SIZE];
	struct smp resp;
	uint8_t was;
	char buf[200];
	int rc = smpset_check_switch(q, mp, a, &ni, &nd);

	if (rc != SMPSET_EXIT_OK)
		return rc;
	if ((rc = smpset_call(q, mp, a, SMP_METHOD_GET, SMP_ATTR_LFT, block, NULL, &resp)) < 0)
		return smpset_fail("LFT Get", rc, a);
	smp_lft_decode(resp.data, &blk);
	was = blk.port[a->lid % LFT_BLOCK_SIZE];
	blk.port[a->lid % LFT_BLOCK_SIZE] = a->out_port;
	memset(data, 0, sizeof(data));
	smp_lft_encode(&blk, data);
	if ((rc = smpset_call(q, mp, a, SMP_METHOD_SET, SMP_ATTR_LFT, block, data, &resp)) < 0)
		return smpset_fail("LFT Set", rc, a);
	if ((rc = smpset_call(q, mp, a, SMP_METHOD_GET, SMP_ATTR_LFT, block, NULL, &resp)) < 0)
		return smpset_fail("LFT read-back", rc, a);
	smp_lft_decode(resp.data, &blk);
	if (blk.port[a->lid % LFT_BLOCK_SIZE] != a->out_port) {
		fprintf(stderr, "nanosm-smpset: the switch kept port %u for lid %u\n",
			blk.port[a->lid % LFT_BLOCK_SIZE], a->lid);
		return SMPSET_EXIT_FAILED;
	}
	printf("switch \"%s\" {0x%016" PRIx64 "} at DR path %s: lid %u port %u -> %u\n", nd.desc,
	       ni.node_guid, smpset_path_str(a, buf, sizeof(buf)), a->lid, was, a->out_port);
	return SMPSET_EXIT_OK;
}

/* ---- Command line ------------------------------------------------------------ */

static void smpset_usage(FILE *out)
{
	fprintf(out, "usage: nanosm-smpset [-g PORTGUID | -d CA [-p PORT]] [--timeout MS]\n"
		     "                     --lft DRPATH LID PORT\n"
		     "Sets the LFT entry for LID to PORT (255: drop) on the switch at DRPATH\n"
		     "(\"0,1,3\": leave by local port 1, then switch port 3), by directed-route\n"
		     "Get, change, Set and read-back of its 64-LID block.  A test helper: it\n"
		     "changes the fabric behind the SM's back.\n"
		     "Exit status: 0 set and read back, 1 an SMP failed, 2 usage error.\n");
}

/* A number in min..max (mad/port_args parses it); says what is wrong. */
static int smpset_number(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char err[256];

	if (port_args_number(what, s, min, max, out, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "nanosm-smpset: %s\n", err);
	return -EINVAL;
}

/* "0,1,3" -> hops 2, path[1] = 1, path[2] = 3 (the leading 0 is the origin). */
static int smpset_parse_path(const char *s, struct smpset_args *a)
{
	char *copy = strdup(s), *save = NULL, *tok;
	int rc = copy ? 0 : -ENOMEM;
	unsigned i = 0;
	uint64_t v;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && rc == 0;
	     tok = strtok_r(NULL, ",", &save), i++) {
		if (i > SMP_MAX_HOPS ||
		    smpset_number("DRPATH", tok, i ? 1 : 0, i ? 254 : 0, &v) < 0)
			rc = -EINVAL;
		else
			a->path[i] = (uint8_t)v;
	}
	if (rc == 0 && i == 0)
		rc = -EINVAL;
	a->hops = i ? (uint8_t)(i - 1) : 0;
	free(copy);
	if (rc < 0)
		fprintf(stderr, "nanosm-smpset: bad DR path '%s' (want 0,p1,p2,...)\n", s);
	return rc;
}

static int smpset_parse_lft(struct smpset_args *a, char **argv)
{
	uint64_t lid, port;

	if (smpset_parse_path(argv[0], a) < 0 ||
	    smpset_number("LID", argv[1], 1, LID_UNICAST_MAX, &lid) < 0 ||
	    smpset_number("PORT", argv[2], 0, 255, &port) < 0)
		return -EINVAL;
	a->lid = (uint16_t)lid;
	a->out_port = (uint8_t)port;
	return 0;
}

enum { OPT_LFT = 256, OPT_TIMEOUT };

static const struct option smpset_long_opts[] = {
    PORT_ARGS_LONGOPTS,
    {"lft", no_argument, NULL, OPT_LFT},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int smpset_port_option(struct smpset_args *a, int c, const char *val)
{
	char err[256];

	if (port_args_set(&a->local, c, NULL, val, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "nanosm-smpset: %s\n", err);
	return -EINVAL;
}

/* One option; returns 0, -EINVAL, or 1 for --lft. */
static int smpset_option(struct smpset_args *a, int c, const char *val)
{
	uint64_t n;

	switch (c) {
	case 'g':
	case 'd':
	case 'p':
		return smpset_port_option(a, c, val);
	case OPT_TIMEOUT:
		if (smpset_number("--timeout", val, 1, 60000, &n) < 0)
			return -EINVAL;
		a->timeout_ms = (unsigned)n;
		return 0;
	case OPT_LFT:
		return 1;
	case 'h':
		smpset_usage(stdout);
		exit(SMPSET_EXIT_OK);
	}
	return -EINVAL;
}

static int smpset_parse_args(struct smpset_args *a, int argc, char **argv)
{
	char err[256];
	int c, rc, lft = 0;

	a->timeout_ms = 200;
	while ((c = getopt_long(argc, argv, PORT_ARGS_OPTSTRING "h", smpset_long_opts, NULL)) !=
	       -1) {
		rc = smpset_option(a, c, optarg);
		if (rc < 0)
			return rc;
		lft |= rc;
	}
	if (port_args_check(&a->local, err, sizeof(err)) < 0) {
		fprintf(stderr, "nanosm-smpset: %s\n", err);
		return -EINVAL;
	}
	if (!lft || argc - optind != 3) {
		smpset_usage(stderr);
		return -EINVAL;
	}
	return smpset_parse_lft(a, argv + optind);
}

int main(int argc, char **argv)
{
	struct smpset_args a;
	struct mad_port *mp = NULL;
	struct mad_queue_opts qo = {.window = 1, .retries = 3};
	struct mad_xmit x;
	struct mad_queue *q = NULL;
	char err[256];
	int rc;

	memset(&a, 0, sizeof(a));
	if (smpset_parse_args(&a, argc, argv) < 0)
		return SMPSET_EXIT_USAGE;
	qo.timeout_ms = a.timeout_ms;
	mp = mad_port_open_client(port_args_ca(&a.local), (int)a.local.port, a.local.guid, NULL,
				  NULL, err, sizeof(err));
	if (!mp) {
		fprintf(stderr, "nanosm-smpset: %s\n", err);
		return SMPSET_EXIT_FAILED;
	}
	mad_port_set_timeout(mp, a.timeout_ms);
	x = mad_port_xmit(mp);
	if (!(q = mad_queue_new(&qo, &x, NULL, NULL)))
		rc = SMPSET_EXIT_FAILED;
	else
		rc = smpset_lft(q, mp, &a);
	mad_queue_free(q);
	mad_port_close(mp);
	return rc;
}
