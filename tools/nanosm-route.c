/*
 * nanosm-route.c - offline routing scorer: reads a topology, gives it LIDs
 * if it has none, computes LFTs with an engine or loads them from a dump,
 * and prints routing/score.c's report as text or JSON (the report's format
 * is tools/lib/route_report.c).  Owns the command line and the file reads
 * and writes; measures nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "mad/port_args.h"
#include "routing/lft_file.h"
#include "routing/lid_alloc.h"
#include "routing/route.h"
#include "routing/score.h"
#include "routing/topo_file.h"
#include "tools/lib/draw_cli.h"
#include "tools/lib/route_report.h"

#define ROUTE_EXIT_PASS 0
#define ROUTE_EXIT_FAIL 1
#define ROUTE_EXIT_USAGE 2
#define ROUTE_ERR_MAX 1024
#define ROUTE_DUMP_FLUSH (1u << 20) /* --dump-lfts writes out every 1 MiB or so */

__attribute__((format(printf, 1, 2))) static int route_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("nanosm-route: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return ROUTE_EXIT_USAGE;
}

/* ---- Command line ------------------------------------------------------ */

static void route_usage(FILE *out)
{
	const struct route_engine *const *all = route_engines();

	fprintf(out, "usage: nanosm-route TOPO [-R ENGINE] [--roots FILE]\n"
		     "                    [--lfts FILE [--format auto|dump_fts|ibroute|opensm]]\n"
		     "                    [--json] [--bisections N] [--seed S] [--shifts N]\n"
		     "                    [--no-credit-loops] [--dump-lfts OUT] [--timing]\n"
		     "                    [--vl-cap 1-5]\n"
		     "       nanosm-route TOPO [-R ENGINE | --lfts FILE] --draw svg|html\n"
		     "                    [--expand] [--expand-switch NAME]... [--reference TOPO]\n"
		     "                    [--width PX]\n"
		     "Scores the routing of TOPO (ibnetdiscover output or an ibsim net file):\n"
		     "LFTs computed by ENGINE (default minhop) or loaded from a dump.\n"
		     "--draw prints a picture of TOPO instead (html: with its routes).\n"
		     "Exit status: 0 the routing gate passes, 1 it fails, 2 usage or input error.\n"
		     "engines:");
	for (size_t i = 0; all[i]; i++)
		fprintf(out, " %s", all[i]->name);
	fputc('\n', out);
}

/* A number (mad/port_args parses it: decimal or 0x hex). */
static int route_number(const char *opt, const char *s, uint64_t *out)
{
	char err[256];

	if (port_args_number(opt, s, 0, UINT64_MAX, out, err, sizeof(err)) < 0)
		return route_fail("%s", err);
	return 0;
}

enum {
	OPT_LFTS = 256,
	OPT_FORMAT,
	OPT_ROOTS,
	OPT_JSON,
	OPT_BISECT,
	OPT_SEED,
	OPT_SHIFTS,
	OPT_DUMP,
	OPT_NO_CDG,
	OPT_TIMING,
	OPT_VL_CAP,
	OPT_DRAW,
	OPT_EXPAND,
	OPT_EXPAND_SW,
	OPT_REFERENCE,
	OPT_WIDTH
};

static const struct option route_long_opts[] = {
    {"lfts", required_argument, NULL, OPT_LFTS},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"roots", required_argument, NULL, OPT_ROOTS},
    {"json", no_argument, NULL, OPT_JSON},
    {"bisections", required_argument, NULL, OPT_BISECT},
    {"seed", required_argument, NULL, OPT_SEED},
    {"shifts", required_argument, NULL, OPT_SHIFTS},
    {"dump-lfts", required_argument, NULL, OPT_DUMP},
    {"no-credit-loops", no_argument, NULL, OPT_NO_CDG},
    {"timing", no_argument, NULL, OPT_TIMING},
    {"vl-cap", required_argument, NULL, OPT_VL_CAP},
    {"draw", required_argument, NULL, OPT_DRAW},
    {"expand", no_argument, NULL, OPT_EXPAND},
    {"expand-switch", required_argument, NULL, OPT_EXPAND_SW},
    {"reference", required_argument, NULL, OPT_REFERENCE},
    {"width", required_argument, NULL, OPT_WIDTH},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The options of --draw. */
static int route_draw_option(struct route_args *a, int c, const char *val)
{
	static const char *const names[] = {
	    [OPT_EXPAND - OPT_DRAW] = "--expand",
	    [OPT_EXPAND_SW - OPT_DRAW] = "--expand-switch",
	    [OPT_REFERENCE - OPT_DRAW] = "--reference",
	    [OPT_WIDTH - OPT_DRAW] = "--width",
	};
	char err[256];

	if (c == OPT_DRAW) {
		if (strcmp(val, "svg") && strcmp(val, "html"))
			return route_fail("--draw: '%s' is no picture format (svg or html)", val);
		a->draw.format = val;
		return 0;
	}
	if (c < OPT_EXPAND || c > OPT_WIDTH)
		return ROUTE_EXIT_USAGE;
	if (draw_cli_option(&a->draw, names[c - OPT_DRAW], val, err, sizeof(err)) < 0)
		return route_fail("%s", err);
	return 0;
}

/* One option; returns 0, ROUTE_EXIT_USAGE, or -1 for --help. */
static int route_option(struct route_args *a, int c, const char *val)
{
	uint64_t n;

	switch (c) {
	case 'R':
		a->engine = val;
		return 0;
	case OPT_LFTS:
		a->lfts = val;
		return 0;
	case OPT_ROOTS:
		a->roots = val;
		return 0;
	case OPT_DUMP:
		a->dump = val;
		return 0;
	case OPT_JSON:
		a->json = 1;
		return 0;
	case OPT_NO_CDG:
		a->score.check.skip_credit_loops = 1;
		return 0;
	case OPT_TIMING:
		a->timing = 1;
		return 0;
	case OPT_FORMAT:
		if (lft_file_format_from_name(val, &a->format))
			return route_fail(
			    "--format: unknown format '%s' (auto, dump_fts, ibroute, opensm)", val);
		return 0;
	case OPT_BISECT:
		if (route_number("--bisections", val, &n))
			return ROUTE_EXIT_USAGE;
		a->score.bisections = (size_t)n;
		return 0;
	case OPT_SHIFTS:
		if (route_number("--shifts", val, &n))
			return ROUTE_EXIT_USAGE;
		a->score.shifts = (size_t)n;
		return 0;
	case OPT_SEED:
		return route_number("--seed", val, &a->score.seed) ? ROUTE_EXIT_USAGE : 0;
	case OPT_VL_CAP:
		if (route_number("--vl-cap", val, &n))
			return ROUTE_EXIT_USAGE;
		if (n < 1 || n > 5)
			return route_fail(
			    "--vl-cap: %s is no VLCap (1 = VL0, 2 = VL0-1, 3 = VL0-3, "
			    "4 = VL0-7, 5 = VL0-14)",
			    val);
		a->vl_cap = (uint8_t)n;
		return 0;
	case 'h':
		return -1;
	default:
		return route_draw_option(a, c, val);
	}
}

/* Returns 0, ROUTE_EXIT_USAGE, or -1 when --help was printed. */
static int route_parse_args(struct route_args *a, int argc, char **argv)
{
	int c, rc;

	score_opts_default(&a->score);
	a->score.check.allow_down_ports = 1; /* a file's port states are made up */
	while ((c = getopt_long(argc, argv, "R:h", route_long_opts, NULL)) != -1) {
		rc = route_option(a, c, optarg);
		if (rc < 0) {
			route_usage(stdout);
			return -1;
		}
		if (rc) {
			route_usage(stderr);
			return rc;
		}
	}
	if (optind != argc - 1) {
		route_usage(stderr);
		return ROUTE_EXIT_USAGE;
	}
	a->topo = argv[optind];
	if (a->engine && a->lfts)
		return route_fail("-R and --lfts exclude each other: compute tables or load them");
	if (a->roots && a->lfts)
		return route_fail("--roots is for an engine, not for --lfts");
	if (!a->lfts && a->format != LFT_FILE_AUTO)
		return route_fail("--format needs --lfts");
	if (!a->lfts && !a->engine && !a->draw.format)
		a->engine = "minhop"; /* a picture has routes only when asked */
	if (!a->draw.format && draw_cli_has_options(&a->draw))
		return route_fail("--expand, --expand-switch, --reference and --width need --draw");
	return 0;
}

/* ---- Files ------------------------------------------------------------- */

/* Whole file into a NUL-terminated buffer (caller frees). */
static int route_read_file(const char *path, char **text, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	if (!fp || !buf) {
		int e = fp ? ENOMEM : errno;

		if (fp)
			fclose(fp);
		free(buf);
		return route_fail("%s: %s", path, strerror(e));
	}
	for (size_t got; (got = fread(buf + n, 1, cap - n - 1, fp)) > 0;) {
		n += got;
		if (cap - n - 1 == 0) {
			char *more = realloc(buf, cap *= 2);

			if (!more) {
				fclose(fp);
				free(buf);
				return route_fail("%s: out of memory", path);
			}
			buf = more;
		}
	}
	if (ferror(fp)) {
		fclose(fp);
		free(buf);
		return route_fail("%s: read error", path);
	}
	fclose(fp);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* A roots line: a switch NodeGUID (hex, 0x optional), '#' starts a comment. */
static int route_root_line(struct route_run *r, char *line, int lineno, const char *path)
{
	char *hash = strchr(line, '#'), *end;
	unsigned long long guid;
	int node;

	if (hash)
		*hash = '\0';
	line += strspn(line, " \t\r");
	if (!*line)
		return 0;
	errno = 0;
	guid = strtoull(line, &end, 16);
	end += strspn(end, " \t\r");
	if (errno || end == line || *end)
		return route_fail("%s:%d: not a GUID: '%s'", path, lineno, line);
	node = fabric_find(&r->f, guid);
	if (node == FABRIC_NONE || !fabric_is_switch(&r->f.nodes[node]))
		return route_fail("%s:%d: 0x%016llx is not a switch of the topology", path, lineno,
				  guid);
	r->roots[r->n_roots++] = guid;
	return 0;
}

static int route_load_roots(struct route_run *r)
{
	char *text, *line, *save = NULL;
	size_t len;
	int lineno = 0, rc = 0;

	if (!r->args.roots)
		return 0;
	if (route_read_file(r->args.roots, &text, &len))
		return ROUTE_EXIT_USAGE;
	r->roots = malloc((len / 2 + 1) * sizeof(*r->roots));
	if (!r->roots) {
		free(text);
		return route_fail("out of memory");
	}
	/* count lines ourselves: strtok_r would skip empty ones */
	for (line = text; line && !rc; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		rc = route_root_line(r, line, ++lineno, r->args.roots);
	}
	free(text);
	if (!rc && !r->n_roots)
		rc = route_fail("%s: no switch GUID in the file", r->args.roots);
	return rc;
}

/* ---- LIDs -------------------------------------------------------------- */

/* LID-owning ports: a switch's port 0, each present CA/router port. */
static size_t route_lid_ports(struct fabric *f, struct fabric_port **ports)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fabric_node *nd = &f->nodes[i];

		for (unsigned p = 0; p <= nd->num_ports; p++) {
			if (fabric_is_switch(nd) ? p != 0 : p == 0 || !nd->ports[p].present)
				continue;
			if (ports)
				ports[n] = &nd->ports[p];
			n++;
		}
	}
	return n;
}

/* Keep the LIDs the topology carries; two ports with one LID is an error. */
static int route_reserve_carried(const char *topo, struct lid_alloc *a, struct fabric_port **ports,
				 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc;

		if (!ports[i]->lid)
			continue;
		rc = lid_alloc_reserve(a, ports[i]->guid, ports[i]->lid);
		if (rc == -EEXIST)
			return route_fail("%s: LID %u of port 0x%016" PRIx64
					  " is also used by port 0x%016" PRIx64,
					  topo, ports[i]->lid, ports[i]->guid,
					  lid_alloc_owner(a, ports[i]->lid));
		if (rc)
			return route_fail("%s: port 0x%016" PRIx64 ": bad LID %u (%s)", topo,
					  ports[i]->guid, ports[i]->lid, strerror(-rc));
	}
	return 0;
}

/* Ports without a LID get one: hints 1, 2, 3... in fabric order when the
 * topology carries none, else the lowest free LIDs (port GUID order). */
static int route_assign_missing(struct route_run *r, struct lid_alloc *a,
				struct fabric_port **ports, size_t n, size_t carried)
{
	struct lid_req *reqs = calloc(n ? n : 1, sizeof(*reqs));
	size_t k = 0;

	if (!reqs)
		return route_fail("out of memory");
	for (size_t i = 0; i < n; i++)
		if (!ports[i]->lid)
			reqs[k++] = (struct lid_req){
			    .guid = ports[i]->guid, .current_lid = carried ? 0 : (uint16_t)(i + 1)};
	if (lid_alloc_assign(a, reqs, k)) {
		free(reqs);
		return route_fail("%s: %zu LID-owning ports: more than the %u unicast LIDs",
				  r->args.topo, n, LID_UNICAST_MAX);
	}
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (!ports[i]->lid)
			ports[i]->lid = reqs[k++].lid;
	free(reqs);
	return 0;
}

static void route_note_max_lid(struct route_run *r, struct fabric_port **ports, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned last = ports[i]->lid + (1u << (ports[i]->lmc > 7 ? 7 : ports[i]->lmc)) - 1;

		if (last > LID_UNICAST_MAX)
			last = LID_UNICAST_MAX;
		if (last > r->max_lid)
			r->max_lid = (uint16_t)last;
	}
}

/* With --lfts every LID must come from the topology: the tables are
 * indexed by the LIDs of the fabric they were dumped from. */
static int route_need_carried(const struct route_run *r, struct fabric_port **ports, size_t n,
			      size_t carried)
{
	if (!r->args.lfts || carried == n)
		return 0;
	if (!carried)
		return route_fail(
		    "%s: the topology carries no LIDs; --lfts needs an ibnetdiscover dump "
		    "of the fabric the tables were read from",
		    r->args.topo);
	for (size_t i = 0; i < n; i++)
		if (!ports[i]->lid)
			return route_fail("%s: port 0x%016" PRIx64
					  " has no LID; --lfts needs every LID "
					  "from the fabric the tables were read from",
					  r->args.topo, ports[i]->guid);
	return 0;
}

static int route_assign_lids(struct route_run *r)
{
	size_t n = route_lid_ports(&r->f, NULL), carried = 0;
	struct fabric_port **ports = malloc((n ? n : 1) * sizeof(*ports));
	struct lid_alloc a;
	int rc;

	if (!ports || lid_alloc_init(&a, LID_UNICAST_MAX)) {
		free(ports);
		return route_fail("out of memory");
	}
	route_lid_ports(&r->f, ports);
	for (size_t i = 0; i < n; i++)
		carried += ports[i]->lid != 0;
	r->lid_mode = !carried	     ? ROUTE_LIDS_FABRIC_ORDER
		      : carried == n ? ROUTE_LIDS_TOPOLOGY
				     : ROUTE_LIDS_MIXED;
	rc = route_need_carried(r, ports, n, carried);
	if (!rc)
		rc = route_reserve_carried(r->args.topo, &a, ports, n);
	if (!rc && carried < n)
		rc = route_assign_missing(r, &a, ports, n, carried);
	if (!rc)
		route_note_max_lid(r, ports, n);
	lid_alloc_fini(&a);
	free(ports);
	return rc;
}

/* ---- Tables ------------------------------------------------------------ */

/* ms[0] wall, ms[1] this process's CPU (user + system); a second call
 * turns the start into the time since. */
static void route_clock(uint64_t ms[2], int stop)
{
	static const clockid_t id[2] = {CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID};

	for (int i = 0; i < 2; i++) {
		struct timespec ts;
		uint64_t now;

		clock_gettime(id[i], &ts);
		now = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
		ms[i] = stop ? now - ms[i] : now;
	}
}

static int route_compute(struct route_run *r)
{
	const struct route_engine *e = route_engine_find(r->args.engine);
	char err[256] = "";
	int rc;
	struct route_opts opts = {.max_lid = r->max_lid, .roots = r->roots, .n_roots = r->n_roots};

	if (!e) {
		route_fail("unknown routing engine '%s'", r->args.engine);
		route_usage(stderr);
		return ROUTE_EXIT_USAGE;
	}
	r->args.engine = e->name;
	route_clock(r->engine_ms, 0);
	rc = e->compute(&r->f, &opts, &r->lfts, &r->engine_note, err, sizeof(err));
	route_clock(r->engine_ms, 1);
	if (rc)
		return route_fail("engine %s failed: %s", e->name, err);
	return 0;
}

static void route_file_warnings(const struct route_run *r)
{
	const struct lft_file_info *i = &r->file_info;

	if (i->missing)
		fprintf(stderr,
			"nanosm-route: warning: %s: %zu switch(es) of the topology have no "
			"table (first 0x%016" PRIx64 "); their routes count as dropped\n",
			r->args.lfts, i->missing, i->first_missing);
	if (i->top_skipped)
		fprintf(stderr, "nanosm-route: warning: %s (%zu switch(es) like this)\n",
			i->top_note, i->top_skipped);
	if (i->unknown_lids)
		fprintf(stderr,
			"nanosm-route: warning: %s (%zu entries for such LIDs; topology and "
			"tables from different runs?)\n",
			i->lid_note, i->unknown_lids);
}

static int route_load_lfts(struct route_run *r)
{
	char err[ROUTE_ERR_MAX], *text;
	size_t len;
	int rc;

	if (route_read_file(r->args.lfts, &text, &len))
		return ROUTE_EXIT_USAGE;
	rc = lft_file_parse(text, len, r->args.lfts, r->args.format, &r->f, &r->lfts, &r->file_info,
			    err, sizeof(err));
	free(text);
	if (rc)
		return route_fail("%s", err);
	route_file_warnings(r);
	return 0;
}

/* Write b's text to fp and empty b: 0, or -EIO / -ENOMEM (b failed). */
static int route_dump_flush(struct text_buf *b, FILE *fp)
{
	int rc = b->failed ? -ENOMEM : 0;

	if (!rc && b->len && fwrite(b->s, 1, b->len, fp) != b->len)
		rc = errno ? -errno : -EIO;
	text_buf_fini(b);
	text_buf_init(b);
	return rc;
}

/* The tables to fp in the dump_fts format, one switch at a time, written
 * out whenever ROUTE_DUMP_FLUSH bytes are waiting: what is held is that
 * plus one switch's record, never the whole dump (278 MB for a 3-level
 * tree of 4096 hosts).  0 or a negative errno. */
static int route_dump_stream(const struct route_run *r, const struct lft_file_dump *d, FILE *fp)
{
	struct text_buf b;
	int rc = 0;

	text_buf_init(&b);
	for (size_t i = 0; !rc && i < r->lfts.n; i++) {
		rc = lft_file_dump_table(d, &r->lfts.tables[i], 0, LID_UNICAST_MAX, &b);
		if (!rc && b.len >= ROUTE_DUMP_FLUSH)
			rc = route_dump_flush(&b, fp);
	}
	if (!rc)
		rc = route_dump_flush(&b, fp);
	text_buf_fini(&b);
	if (!rc && (fp != stdout ? fclose(fp) : fflush(fp)))
		return errno ? -errno : -EIO;
	if (rc && fp != stdout)
		fclose(fp);
	return rc;
}

static int route_dump_lfts(const struct route_run *r)
{
	struct lft_file_dump d;
	FILE *fp;
	int rc;

	if (!r->args.dump)
		return 0;
	rc = lft_file_dump_init(&d, &r->f);
	if (rc)
		return route_fail("--dump-lfts: %s", strerror(-rc));
	fp = strcmp(r->args.dump, "-") ? fopen(r->args.dump, "w") : stdout;
	if (!fp) {
		lft_file_dump_fini(&d);
		return route_fail("%s: %s", r->args.dump, strerror(errno));
	}
	errno = 0;
	rc = route_dump_stream(r, &d, fp);
	lft_file_dump_fini(&d);
	if (rc)
		return route_fail("--dump-lfts %s: %s (the file is incomplete)", r->args.dump,
				  strerror(-rc));
	return 0;
}

/* ---- Main -------------------------------------------------------------- */

static int route_prepare(struct route_run *r)
{
	char err[ROUTE_ERR_MAX];
	int rc;

	rc = topo_load(r->args.topo, &r->f, err, sizeof(err));
	if (rc == -EINVAL)
		return route_fail("%s", err);
	if (rc)
		return route_fail("%s: %s", r->args.topo, strerror(-rc));
	if (!r->f.n_nodes)
		return route_fail("%s: no nodes in the topology", r->args.topo);
	for (size_t i = 0; i < r->f.n_nodes && r->args.vl_cap; i++)
		for (unsigned p = 0; p <= r->f.nodes[i].num_ports; p++)
			r->f.nodes[i].ports[p].vl_cap = r->args.vl_cap;
	rc = route_assign_lids(r);
	if (!rc)
		rc = route_load_roots(r);
	if (!rc)
		rc = r->args.lfts ? route_load_lfts(r) : r->args.engine ? route_compute(r) : 0;
	if (!rc)
		rc = route_dump_lfts(r);
	return rc;
}

/* --draw: the picture of the fabric (and, in HTML, its routes) on stdout. */
static int route_draw(const struct route_run *r)
{
	char err[ROUTE_ERR_MAX];

	if (draw_cli_draw(&r->args.draw, &r->f, &r->lfts, NULL, 0, r->args.topo, stdout, err,
			  sizeof(err)) < 0)
		return route_fail("%s", err);
	return ROUTE_EXIT_PASS;
}

int main(int argc, char **argv)
{
	struct route_run r = {0};
	int rc;

	fabric_init(&r.f);
	lft_set_init(&r.lfts);
	rc = route_parse_args(&r.args, argc, argv);
	if (!rc)
		rc = route_prepare(&r);
	if (!rc && r.args.draw.format) {
		rc = route_draw(&r);
		goto out;
	}
	route_clock(r.score_ms, 0);
	if (!rc) {
		/* the gate alone first (what nanosm runs before a push), timed */
		route_clock(r.gate_ms, 0);
		r.score.gate_rc =
		    route_check_run(&r.f, &r.lfts, &r.args.score.check, &r.score.check);
		route_clock(r.gate_ms, 1);
		r.args.score.gate_given = 1;
	}
	if (!rc && score_run(&r.f, &r.lfts, &r.args.score, &r.score))
		rc = route_fail("out of memory scoring the tables");
	route_clock(r.score_ms, 1);
	if (!rc) {
		if (r.args.json)
			route_report_json(&r);
		else
			route_report_text(&r);
		if (r.args.timing && !r.args.json)
			printf("\ntiming (wall, CPU)\n"
			       "  engine                   %" PRIu64 " ms  cpu %" PRIu64 " ms\n"
			       "  gate                     %" PRIu64 " ms  cpu %" PRIu64 " ms\n"
			       "  gate and scores          %" PRIu64 " ms  cpu %" PRIu64 " ms\n",
			       r.engine_ms[0], r.engine_ms[1], r.gate_ms[0], r.gate_ms[1],
			       r.score_ms[0], r.score_ms[1]);
		rc = r.score.gate_rc ? ROUTE_EXIT_FAIL : ROUTE_EXIT_PASS;
	}
out:
	free(r.roots);
	lft_set_fini(&r.lfts);
	fabric_fini(&r.f);
	return rc < 0 ? ROUTE_EXIT_PASS : rc;
}
