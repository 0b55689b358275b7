/*
 * nanosm-verify.c - live path verification from any host, without the SM:
 * reads the fabric by directed route and the switches' LFTs, then probes
 * every destination LID with a LID-routed NodeInfo Get and compares what
 * came back with the LFT walk; then compares the fabric with the expected
 * topology (nanosm's file of its last SUBNET UP, or --topo FILE).  Owns the
 * command line, the run over a client MAD port and the output.  Sends Gets only:
 * it never configures anything.  The directed-route walk is the sweep's own
 * (routing/dr_walk.c), sent here over the client port; path logic and
 * reports: routing/verify.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/policy.h"
#include "mad/mad_port.h"
#include "mad/mad_queue.h"
#include "mad/port_args.h"
#include "mad/smp.h"
#include "routing/dr_walk.h"
#include "routing/fabric.h"
#include "routing/topo_file.h"
#include "routing/verify.h"
#include "routing/verify_expect.h"
#include "sm/core/log.h"

#define VFY_EXIT_OK 0
#define VFY_EXIT_FAILED 1
#define VFY_EXIT_USAGE 2
#define VFY_PERMISSIVE_LID 0xffff
#define VFY_RECV_SLICE_MS 50 /* longest single wait for a MAD */

struct vfy_args {
	struct port_args local; /* -g, -d, -p */
	const char *topo;
	const char *lids;
	int json;
	unsigned timeout_ms;
	unsigned retries;
	int verbose;
};

/* ---- The run ------------------------------------------------------------- */

struct vfy {
	struct vfy_args args;
	struct mad_port *port; /* a client port: responses only, no issm */
	struct mad_queue *q;
	struct fabric f;
	struct dr_walk walk; /* discovery, building f */
	struct lft_set lfts;
	struct verify_index ix;
	int local_node;
	uint8_t local_port;
	uint16_t local_lid;
	struct fabric want;	 /* the expected topology */
	const char *expect_path; /* its file, NULL when none was loaded */
	char expect_why[300];	 /* why none was loaded */
	struct verify_expect ex; /* want vs. f */
	int expect_done;	 /* ex holds the comparison */
	size_t dr_failures;
	struct verify_lids lids; /* destinations: --lids, else every LID owned */
	struct verify_result *res;
	size_t n_res;
};

/* One outstanding SMP's context (freed by its completion). */
struct vfy_req {
	struct vfy *v;
	int node;
	uint8_t port;
	uint16_t attr; /* discovery: what the walk asked */
	uint32_t mod;
	uint8_t hops;
	uint8_t path[FABRIC_MAX_HOPS + 1];
	size_t res; /* probes: index into v->res */
};

static uint64_t vfy_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *vfy_path_str(const uint8_t *path, uint8_t hops, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "0");

	for (unsigned i = 1; i <= hops && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, ",%u", path[i]);
	return buf;
}

static void vfy_rx(void *ctx, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	struct vfy *v = ctx;

	mad_queue_recv(v->q, from, mad, len, vfy_now_ms());
}

/* Run the MAD queue until every submitted SMP has completed. */
static int vfy_drain(struct vfy *v)
{
	while (mad_queue_outstanding(v->q)) {
		uint64_t now = vfy_now_ms(), next = mad_queue_tick(v->q, now);
		int wait = next > now ? (int)(next - now) : 1;
		int rc;

		if (!mad_queue_outstanding(v->q))
			break;
		rc = mad_port_wait(v->port,
				   wait < VFY_RECV_SLICE_MS ? (unsigned)wait : VFY_RECV_SLICE_MS);
		if (rc < 0) {
			log_warnx("NSV-E004 the MAD port failed: %s", strerror(-rc));
			return rc;
		}
		mad_port_drain(v->port, vfy_rx, v);
	}
	return 0;
}

static void vfy_submit(struct vfy *v, const struct vfy_req *tmpl, const struct mad_addr *to,
		       const struct smp *smp, mad_done_fn done)
{
	struct vfy_req *r = malloc(sizeof(*r));

	if (r) {
		*r = *tmpl;
		r->v = v;
	}
	/* a send error completes r at once, inside mad_queue_submit */
	if (!r || mad_queue_submit(v->q, to, smp, done, r, vfy_now_ms()) < 0) {
		free(r);
		log_warnx("NSV-E005 out of memory queuing %s", smp_attr_name(smp->attr_id));
	}
}

/* A directed-route Get along tmpl's path. */
static void vfy_get_dr(struct vfy *v, const struct vfy_req *tmpl, uint16_t attr, uint32_t mod,
		       mad_done_fn done)
{
	struct mad_addr to = {.lid = VFY_PERMISSIVE_LID};
	struct smp smp;
	struct vfy_req r = *tmpl;

	r.mod = mod;
	smp_init_dr(&smp, SMP_METHOD_GET, attr, mod, r.path, r.hops);
	vfy_submit(v, &r, &to, &smp, done);
}

/* ---- Discovery by directed route (the walk: routing/dr_walk.c) ------------ */

static void vfy_walk_answer(void *arg, int status, const struct smp *resp)
{
	struct vfy_req *r = arg;
	struct dr_walk_get g = {
	    .node = r->node, .port = r->port, .attr = r->attr, .mod = r->mod, .hops = r->hops};

	memcpy(g.path, r->path, sizeof(g.path));
	dr_walk_answer(&r->v->walk, &g, status, status < 0 ? NULL : resp->data);
	free(r);
}

static void vfy_walk_get(void *ctx, const struct dr_walk_get *g)
{
	struct vfy_req r = {.node = g->node, .port = g->port, .attr = g->attr, .hops = g->hops};

	memcpy(r.path, g->path, sizeof(r.path));
	vfy_get_dr(ctx, &r, g->attr, g->mod, vfy_walk_answer);
}

static void vfy_dr_failed(struct vfy *v, const uint8_t *path, uint8_t hops, int status,
			  const char *what)
{
	char buf[200];

	v->dr_failures++;
	log_warnx("NSV-W011 %s failed (%s) via DR path %s", what, strerror(-status),
		  vfy_path_str(path, hops, buf, sizeof(buf)));
}

/* A Get without an answer counts as a failure (the NodeDescription is
 * cosmetic); nothing stands in for it. */
static const uint8_t *vfy_walk_lost(void *ctx, const struct dr_walk_get *g, int status)
{
	if (g->attr != SMP_ATTR_NODE_DESC)
		vfy_dr_failed(ctx, g->path, g->hops, status, smp_attr_name(g->attr));
	return NULL;
}

/* What the walk found wrong; a GUID seen as two nodes and a route not
 * kept for want of memory are left out silently. */
static void vfy_walk_problem(void *ctx, const struct dr_walk_problem *p)
{
	struct vfy *v = ctx;

	switch (p->kind) {
	case DR_WALK_TOO_FAR:
		log_warnx("NSV-W010 node 0x%016" PRIx64 " port %u: beyond %u hops, "
			  "not explored",
			  v->f.nodes[p->get->node].guid, p->get->port, FABRIC_MAX_HOPS);
		break;
	case DR_WALK_BAD_NODE_INFO:
		log_warnx("NSV-W015 NodeInfo of 0x%016" PRIx64 " rejected: %s", p->ni->node_guid,
			  p->why);
		break;
	case DR_WALK_TWO_LINKS:
		log_warnx("NSV-W012 node 0x%016" PRIx64 " port %u answers from two links: "
			  "duplicate GUID?",
			  p->ni->node_guid, p->port);
		break;
	case DR_WALK_TWO_NODES:
	case DR_WALK_NO_MEMORY:
		break;
	}
}

static const struct dr_walk_ops vfy_walk_ops = {
    .get = vfy_walk_get, .lost = vfy_walk_lost, .problem = vfy_walk_problem};

/* The walk found the local node (f.sm_node): its port (0 on a switch)
 * and that port's LID. */
static void vfy_local(struct vfy *v)
{
	const struct fabric_node *n = &v->f.nodes[v->f.sm_node];

	v->local_node = v->f.sm_node;
	v->local_port = fabric_is_switch(n) ? 0 : v->f.sm_port;
	v->f.sm_port = v->local_port;
	v->local_lid = n->ports[v->local_port].lid;
}

static int vfy_discover(struct vfy *v)
{
	v->local_node = FABRIC_NONE;
	dr_walk_init(&v->walk, &v->f, &vfy_walk_ops, v);
	dr_walk_start(&v->walk);
	if (vfy_drain(v) < 0)
		return -EIO;
	if (v->f.sm_node == FABRIC_NONE) {
		log_warnx("NSV-E002 the local port does not answer NodeInfo");
		return -EIO;
	}
	vfy_local(v);
	log_info("discovered %zu nodes (%zu switches) by directed route", v->f.n_nodes,
		 fabric_count_switches(&v->f));
	return 0;
}

/* ---- The expected topology ------------------------------------------------ */

/* Load what should be there: --topo FILE, else the file nanosm writes at
 * SUBNET UP.  A missing default file is a warning (NSV-W016: only what is
 * reachable gets verified); an unusable file that was named or exists is a
 * setup error. */
static int vfy_expect_load(struct vfy *v)
{
	const char *path = v->args.topo ? v->args.topo : POLICY_DEFAULT_TOPOLOGY;
	char err[512];
	int rc;

	if (v->args.topo && !strcmp(v->args.topo, "none")) {
		snprintf(v->expect_why, sizeof(v->expect_why), "--topo none");
		return 0;
	}
	rc = topo_load(path, &v->want, err, sizeof(err));
	if (rc == -ENOENT && !v->args.topo) {
		snprintf(v->expect_why, sizeof(v->expect_why), "no file %s", path);
		log_warnx("NSV-W016 no expected topology (%s: %s): missing nodes, hosts and "
			  "cables cannot be seen; give --topo FILE",
			  path, strerror(ENOENT));
		return 0;
	}
	if (rc < 0) {
		log_warnx("NSV-E003 %s", err);
		return rc;
	}
	v->expect_path = path;
	log_info("expected topology %s: %zu nodes", path, v->want.n_nodes);
	return 0;
}

static int vfy_expect_compare(struct vfy *v)
{
	if (!v->expect_path)
		return 0;
	if (verify_expect_compare(&v->ex, &v->want, &v->f) < 0)
		return -ENOMEM;
	v->expect_done = 1;
	return 0;
}

/* ---- LFTs ------------------------------------------------------------------ */

static void vfy_lft_done(void *arg, int status, const struct smp *resp)
{
	struct vfy_req *r = arg;
	struct lft *t = lft_set_find(&r->v->lfts, r->node);
	struct smp_lft_block blk;

	if (status < 0) {
		vfy_dr_failed(r->v, r->path, r->hops, status, "LinearForwardingTable");
		free(t->port); /* the walk reports this switch as unknown */
		t->port = NULL;
	} else if (t->port) {
		smp_lft_decode(resp->data, &blk);
		lft_put_block(t, r->mod, blk.port);
	}
	free(r);
}

static int vfy_read_lfts(struct vfy *v)
{
	size_t blocks = 0;

	if (lft_set_alloc(&v->lfts, &v->f, fabric_max_lft_top(&v->f)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < v->lfts.n; i++) {
		struct lft *t = &v->lfts.tables[i];
		const struct fabric_node *n = &v->f.nodes[t->node];
		struct vfy_req q = {.node = t->node, .hops = n->dr_hops};

		t->top = n->lft_top > LID_UNICAST_MAX ? LID_UNICAST_MAX : n->lft_top;
		if (!n->lft_cap) { /* SwitchInfo not read: nothing known */
			free(t->port);
			t->port = NULL;
			continue;
		}
		memcpy(q.path, n->dr_path, sizeof(q.path));
		for (uint32_t b = 0; t->top && b <= t->top / LFT_BLOCK_SIZE; b++, blocks++)
			vfy_get_dr(v, &q, SMP_ATTR_LFT, b, vfy_lft_done);
	}
	if (vfy_drain(v) < 0)
		return -EIO;
	log_info("read %zu LFT blocks from %zu switches", blocks, v->lfts.n);
	return 0;
}

/* ---- Probes ---------------------------------------------------------------- */

static void vfy_probe_done(void *arg, int status, const struct smp *resp)
{
	struct vfy_req *r = arg;
	struct verify_probe *pr = &r->v->res[r->res].probe;
	struct smp_node_info ni;

	if (status == 0) {
		smp_node_info_decode(resp->data, &ni);
		pr->status = VERIFY_PROBE_ANSWERED;
		pr->node_type = ni.node_type;
		pr->local_port = ni.local_port;
		pr->node_guid = ni.node_guid;
		pr->port_guid = ni.port_guid;
	} else if (status == -EREMOTEIO) {
		pr->status = VERIFY_PROBE_REFUSED;
		pr->mad_status = resp->status;
	} else {
		pr->status = status == -ETIMEDOUT ? VERIFY_PROBE_TIMEOUT : VERIFY_PROBE_ERROR;
		pr->err = status;
	}
	free(r);
}

static int vfy_probe_all(struct vfy *v, const struct verify_lids *lids)
{
	v->res = calloc(lids->n ? lids->n : 1, sizeof(*v->res));
	if (!v->res)
		return -ENOMEM;
	v->n_res = lids->n;
	for (size_t i = 0; i < lids->n; i++) {
		struct mad_addr to = {.lid = lids->lid[i]};
		struct vfy_req r = {.node = FABRIC_NONE, .res = i};
		struct smp smp;

		verify_plan(&v->ix, v->local_node, v->local_port, v->local_lid, lids->lid[i],
			    &v->res[i]);
		smp_init_lid(&smp, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0);
		vfy_submit(v, &r, &to, &smp, vfy_probe_done);
	}
	if (vfy_drain(v) < 0)
		return -EIO;
	for (size_t i = 0; i < v->n_res; i++)
		verify_judge(&v->ix, &v->res[i]);
	return 0;
}

/* ---- Report ---------------------------------------------------------------- */

static int vfy_report(struct vfy *v)
{
	const struct verify_expect *ex = v->expect_done ? &v->ex : NULL;
	const char *ex_from = ex ? v->expect_path : v->expect_why;
	struct verify_source src = {.node = v->local_node,
				    .port = v->local_port,
				    .lid = v->local_lid,
				    .fabric_from = "directed route",
				    .expect = ex,
				    .expect_from = ex_from};
	struct text_buf out, summary;
	size_t failed = 0;

	text_buf_init(&out);
	text_buf_init(&summary);
	if (v->args.json) {
		verify_format_json(&out, &v->ix, &src, v->res, v->n_res);
	} else {
		size_t quiet = 0;

		/* the failures, and every path only with -v: 1,344 "ok" lines
		 * would bury the one that failed */
		verify_format_header(&out, &v->ix, &src, v->n_res);
		for (size_t i = 0; i < v->n_res; i++)
			if (!v->res[i].ok || v->args.verbose)
				verify_format_result(&out, &v->ix, &v->res[i]);
			else
				quiet++;
		if (quiet)
			text_buf_printf(&out, "(%zu path%s ok, not listed: -v lists every path)\n",
					quiet, quiet == 1 ? "" : "s");
		if (ex)
			verify_expect_format(&out, ex);
	}
	verify_format_summary(&summary, v->res, v->n_res);
	verify_expect_format_summary(&summary, ex, ex_from);
	if (out.len)
		fputs(out.s, stdout);
	fputs(summary.s ? summary.s : "", v->args.json ? stderr : stdout);
	fflush(stdout);
	for (size_t i = 0; i < v->n_res; i++)
		failed += !v->res[i].ok;
	if (out.failed || summary.failed)
		log_warnx("NSV-E005 out of memory formatting the report");
	text_buf_fini(&out);
	text_buf_fini(&summary);
	if (v->dr_failures)
		log_warnx("NSV-W011 %zu directed-route Gets failed (see above): what they would "
			  "have read counts as unknown",
			  v->dr_failures);
	return failed || (ex && ex->failures) ? VFY_EXIT_FAILED : VFY_EXIT_OK;
}

/* ---- Command line ---------------------------------------------------------- */

static void vfy_usage(FILE *out)
{
	fprintf(out, "usage: nanosm-verify [-g PORTGUID | -d CA [-p PORT]] [--topo FILE|none]\n"
		     "                     [--lids a,b-c] [--json] [--timeout MS] [-v]\n"
		     "Checks, from this port and without the SM, that every destination LID is\n"
		     "reachable through the switches' LFTs: reads the fabric by directed route,\n"
		     "reads every switch's LFT, walks each LID through them, and sends it a\n"
		     "LID-routed NodeInfo Get.  Gets only.  Then compares the fabric with what\n"
		     "should be there: --topo FILE (an ibnetdiscover dump), by default the\n"
		     "topology nanosm wrote at SUBNET UP (" POLICY_DEFAULT_TOPOLOGY ").\n"
		     "Prints the failed paths and a summary; -v every path (and info lines),\n"
		     "-vv debug lines too.\n"
		     "Exit status: 0 every path ok and nothing missing, 1 a path failed or a\n"
		     "node, host or cable of the topology is missing, 2 usage or setup error.\n");
}

enum { OPT_TOPO = 256, OPT_LIDS, OPT_JSON, OPT_TIMEOUT, OPT_RETRIES };

static const struct option vfy_long_opts[] = {
    PORT_ARGS_LONGOPTS,
    {"topo", required_argument, NULL, OPT_TOPO},
    {"lids", required_argument, NULL, OPT_LIDS},
    {"json", no_argument, NULL, OPT_JSON},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"retries", required_argument, NULL, OPT_RETRIES},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* One option; returns 0, 1 for --help, or -EINVAL with err set (left
 * alone for an option getopt has already complained about). */
static int vfy_option(struct vfy_args *a, int c, const char *val, char *err, size_t errlen)
{
	uint64_t n;

	switch (c) {
	case 'g':
	case 'd':
	case 'p':
		return port_args_set(&a->local, c, NULL, val, err, errlen);
	case OPT_TOPO:
		a->topo = val;
		return 0;
	case OPT_LIDS:
		a->lids = val;
		return 0;
	case OPT_JSON:
		a->json = 1;
		return 0;
	case OPT_TIMEOUT:
		if (port_args_number("--timeout", val, 1, 60000, &n, err, errlen) < 0)
			return -EINVAL;
		a->timeout_ms = (unsigned)n;
		return 0;
	case OPT_RETRIES:
		if (port_args_number("--retries", val, 0, 20, &n, err, errlen) < 0)
			return -EINVAL;
		a->retries = (unsigned)n;
		return 0;
	case 'v':
		a->verbose++;
		return 0;
	case 'h':
		return 1;
	}
	return -EINVAL;
}

static int vfy_parse_args(struct vfy_args *a, int argc, char **argv)
{
	char err[256];
	int c, rc;

	a->timeout_ms = 200;
	a->retries = 3;
	while ((c = getopt_long(argc, argv, PORT_ARGS_OPTSTRING "vh", vfy_long_opts, NULL)) != -1) {
		err[0] = '\0';
		rc = vfy_option(a, c, optarg, err, sizeof(err));
		if (rc == 1) {
			vfy_usage(stdout);
			exit(VFY_EXIT_OK);
		}
		if (rc < 0) {
			if (err[0])
				fprintf(stderr, "nanosm-verify: %s\n", err);
			vfy_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "nanosm-verify: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (port_args_check(&a->local, err, sizeof(err)) < 0) {
		fprintf(stderr, "nanosm-verify: %s\n", err);
		return -EINVAL;
	}
	return 0;
}

static int vfy_parse_lids(struct vfy *v)
{
	char err[256];

	verify_lids_init(&v->lids);
	if (v->args.lids && verify_lids_parse(v->args.lids, &v->lids, err, sizeof(err)) < 0) {
		fprintf(stderr, "nanosm-verify: %s\n", err);
		return -EINVAL;
	}
	return 0;
}

/* ---- main ------------------------------------------------------------------- */

static int vfy_setup(struct vfy *v)
{
	struct mad_queue_opts qo = {
	    .window = 16, .timeout_ms = v->args.timeout_ms, .retries = v->args.retries};
	const struct mad_port_info *pi;
	struct mad_xmit x;
	char err[256];

	lft_set_init(&v->lfts);
	v->local_node = FABRIC_NONE;
	v->port = mad_port_open_client(port_args_ca(&v->args.local), (int)v->args.local.port,
				       v->args.local.guid, NULL, NULL, err, sizeof(err));
	if (!v->port) {
		log_warnx("NSV-E001 %s", err);
		return -ENODEV;
	}
	mad_port_set_timeout(v->port, v->args.timeout_ms);
	x = mad_port_xmit(v->port);
	v->q = mad_queue_new(&qo, &x, NULL, NULL);
	if (!v->q)
		return -ENOMEM;
	pi = mad_port_info(v->port);
	log_info("port %s/%d guid 0x%016" PRIx64 " lid %u", pi->ca, pi->port, pi->port_guid,
		 pi->lid);
	return 0;
}

static int vfy_run(struct vfy *v)
{
	if (vfy_discover(v) < 0 || vfy_read_lfts(v) < 0 || vfy_expect_compare(v) < 0)
		return VFY_EXIT_USAGE;
	if (!v->local_lid) {
		log_warnx("NSV-E002 the local port has no LID (is a subnet manager running?)");
		return VFY_EXIT_USAGE;
	}
	if (verify_index_init(&v->ix, &v->f, &v->lfts) < 0 ||
	    (!v->args.lids && verify_index_lids(&v->ix, &v->lids) < 0) ||
	    vfy_probe_all(v, &v->lids) < 0)
		return VFY_EXIT_USAGE;
	log_info("probed %zu LIDs; %" PRIu64 " SMPs sent, %" PRIu64 " timeouts", v->n_res,
		 mad_queue_counters(v->q)->sent, mad_queue_counters(v->q)->timeouts);
	return vfy_report(v);
}

static void vfy_teardown(struct vfy *v)
{
	mad_queue_free(v->q);
	mad_port_close(v->port);
	verify_index_fini(&v->ix);
	lft_set_fini(&v->lfts);
	fabric_fini(&v->f);
	verify_expect_fini(&v->ex);
	fabric_fini(&v->want);
	verify_lids_fini(&v->lids);
	free(v->res);
}

int main(int argc, char **argv)
{
	struct vfy v;
	int rc;

	memset(&v, 0, sizeof(v));
	fabric_init(&v.want);
	fabric_init(&v.f);
	if (vfy_parse_args(&v.args, argc, argv) < 0 || vfy_parse_lids(&v) < 0)
		return VFY_EXIT_USAGE;
	log_init(v.args.verbose >= 2   ? LOG_LVL_DEBUG
		 : v.args.verbose == 1 ? LOG_LVL_INFO
				       : LOG_LVL_WARN,
		 "nanosm-verify");
	rc = vfy_expect_load(&v) < 0 || vfy_setup(&v) < 0 ? VFY_EXIT_USAGE : vfy_run(&v);
	vfy_teardown(&v);
	return rc;
}
