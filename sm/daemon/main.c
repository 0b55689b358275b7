/*
 * sm/daemon/main.c - nanosm's command line: parse options, then hand over to the
 * event loop.  Nothing else.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mad/port_args.h"
#include "routing/route.h"
#include "sm/core/log.h"
#include "sm/daemon/loop.h"
#include "sm/daemon/opts.h"

#define MAIN_DEFAULT_GUID2LID "/var/lib/nanosm/guid2lid"
#define MAIN_DEFAULT_ENGINES "ftree,vlsp,updn,minhop"

static void main_usage(FILE *to)
{
	fprintf(
	    to,
	    "usage: nanosm [-f FILE] [--check] [-g PORTGUID | -d CA [-p PORT] | --ibsim[=NODE]]\n"
	    "              [--once]"
	    "              [--sweep-interval SEC]\n"
	    "              [--guid2lid PATH] [-R ENGINE] [--priority N] [--window N]\n"
	    "              [--mad-timeout MS] [--mad-retries N] [-L FILE]\n"
	    "              [--log-level LEVEL] [--log-syslog-prefix] [-v] [-q] [-h]\n"
	    "  -g, --guid PORTGUID     run on the local port with this GUID\n"
	    "  -d, --ca CA             run on this CA (e.g. mlx5_0)\n"
	    "  -p, --port N            port number on the CA (default: first InfiniBand port)\n"
	    "      --ibsim[=NODE]      run on the ibsim simulator with its own socket protocol\n"
	    "                          (IBSIM_SOCKNAME), as the SM of NODE (default SIM_HOST):\n"
	    "                          no libibumad and no umad2sim preload"
	    "      --once              exit at SUBNET UP (0; 3 if degraded) or a failed sweep (1)\n"
	    "      --sweep-interval S  seconds between light sweeps (default 10)\n"
	    "      --guid2lid PATH     persisted LIDs (default %s)\n"
	    "  -R, --routing LIST      routing engines in fallback order, e.g. ftree,updn,minhop\n"
	    "                          (the first whose tables pass the gate wins). Engines: ",
	    MAIN_DEFAULT_GUID2LID);
	for (const struct route_engine *const *e = route_engines(); *e; e++)
		fprintf(to, "%s%s", (*e)->name, e[1] ? ", " : "\n");
	fprintf(to,
		"                          (default %s)\n"
		"      --roots FILE        root switch GUIDs for updn/ftree, one per line\n",
		MAIN_DEFAULT_ENGINES);
	fprintf(to,
		"  -f, --config FILE       YAML policy (default %s if it exists);\n"
		"                          command-line flags override it\n"
		"      --check             validate the policy, print its canonical form, exit\n"
		"      --socket PATH       control socket for nanosmctl (default\n"
		"                          /run/nanosm/nanosm.sock; \"none\": no socket)\n",
		POLICY_DEFAULT_PATH);
	fprintf(to,
		"      --priority N        SMInfo priority 0-15 (default 0)\n"
		"      --window N          SMPs in flight at once (default 16)\n"
		"      --mad-timeout MS    per-SMP timeout in milliseconds (default 200)\n"
		"      --mad-retries N     retries after a timeout (default 3)\n"
		"  -L, --log-file FILE     log to FILE (appended; SIGUSR1 reopens it) instead\n"
		"                          of stderr\n"
		"      --log-level LEVEL   error, warning, info (default) or debug (err, warn)\n"
		"      --log-syslog-prefix start lines with <N> syslog priorities, without\n"
		"                          timestamps (automatic when stderr is the journal)\n"
		"  -v, --verbose           debug log (--log-level debug)\n"
		"  -q, --quiet             warnings and errors only (--log-level warning)\n"
		"  -h, --help              this text\n"
		"test aid (not for production):\n"
		"      --test-vl-switch GUID  the paths to switch GUID and to the CAs cabled\n"
		"                          to it ride SL 1 (VL 1), whatever the engine says:\n"
		"                          checks SLtoVL tables and PathRecord SLs without a\n"
		"                          VL-aware engine\n");
}

enum {
	OPT_ONCE = 256,
	OPT_INTERVAL,
	OPT_GUID2LID,
	OPT_PRIORITY,
	OPT_WINDOW,
	OPT_TIMEOUT,
	OPT_RETRIES,
	OPT_ROOTS,
	OPT_CHECK,
	OPT_SOCKET,
	OPT_LOG_LEVEL,
	OPT_LOG_SYSLOG_PREFIX,
	OPT_TEST_VL_SWITCH,
	OPT_IBSIM,
};

static const struct option main_longopts[] = {
    PORT_ARGS_LONGOPTS,
    {"once", no_argument, NULL, OPT_ONCE},
    {"ibsim", optional_argument, NULL, OPT_IBSIM},
    {"sweep-interval", required_argument, NULL, OPT_INTERVAL},
    {"guid2lid", required_argument, NULL, OPT_GUID2LID},
    {"routing", required_argument, NULL, 'R'},
    {"priority", required_argument, NULL, OPT_PRIORITY},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"mad-timeout", required_argument, NULL, OPT_TIMEOUT},
    {"mad-retries", required_argument, NULL, OPT_RETRIES},
    {"roots", required_argument, NULL, OPT_ROOTS},
    {"config", required_argument, NULL, 'f'},
    {"check", no_argument, NULL, OPT_CHECK},
    {"socket", required_argument, NULL, OPT_SOCKET},
    {"log-file", required_argument, NULL, 'L'},
    {"log-level", required_argument, NULL, OPT_LOG_LEVEL},
    {"log-syslog-prefix", no_argument, NULL, OPT_LOG_SYSLOG_PREFIX},
    {"test-vl-switch", required_argument, NULL, OPT_TEST_VL_SWITCH},
    {"verbose", no_argument, NULL, 'v'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A usage error: the message, the usage, exit status 2. */
__attribute__((format(printf, 1, 2), noreturn)) static void main_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("nanosm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	main_usage(stderr);
	exit(2);
}

static void main_bad(const char *what, const char *val)
{
	main_fail("invalid %s '%s'", what, val);
}

/* The value of a numeric option, in min..max (mad/port_args parses it). */
static uint64_t main_number(const char *opt, const char *val, uint64_t min, uint64_t max)
{
	char err[256];
	uint64_t v = 0;

	if (port_args_number(opt, val, min, max, &v, err, sizeof(err)) < 0)
		main_fail("%s", err);
	return v;
}

/* -R takes a comma-separated fallback list; every name must exist. */
static void main_engines(const char *list)
{
	char copy[256];
	char *save = NULL;
	int n = 0;

	if (strlen(list) >= sizeof(copy))
		main_bad("routing engine list", list);
	snprintf(copy, sizeof(copy), "%s", list);
	for (char *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save), n++)
		if (!route_engine_find(e))
			main_bad("routing engine", e);
	if (!n)
		main_bad("routing engine list", list);
}

/* --roots FILE: one switch NodeGUID per line, '#' comments (OpenSM's root
 * GUID file format). */
static void main_roots(const char *path, struct loop_opts *o)
{
	static uint64_t roots[4096];
	char line[256];
	size_t n = 0;
	int lineno = 0;
	FILE *fp = fopen(path, "r");

	if (!fp) {
		fprintf(stderr, "nanosm: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), fp)) {
		char *hash = strchr(line, '#'), *end;
		unsigned long long g;

		lineno++;
		if (hash)
			*hash = '\0';
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		errno = 0;
		g = strtoull(line, &end, 16);
		if (errno || !g || strspn(end, " \t\r\n") != strlen(end) || n == 4096) {
			fprintf(stderr, "nanosm: %s:%d: expected one switch GUID (0x...)\n", path,
				lineno);
			exit(2);
		}
		roots[n++] = g;
	}
	fclose(fp);
	o->sm.roots = roots;
	o->sm.n_roots = n;
}

/* What the command line says that is not the SM's business, and the
 * port options (loop_opts.ca points into port). */
struct main_flags {
	int check;	       /* --check */
	const char *log_file;  /* -L */
	int log_syslog_prefix; /* --log-syslog-prefix */
	struct port_args port; /* -g, -d, -p */
};

static void main_port_option(struct main_flags *mf, int c, const char *val)
{
	char err[256];

	if (port_args_set(&mf->port, c, NULL, val, err, sizeof(err)) < 0)
		main_fail("%s", err);
}

/* After the last option: -g excludes -d/-p; the port into o. */
static void main_port(struct loop_opts *o, const struct main_flags *mf)
{
	char err[256];

	if (port_args_check(&mf->port, err, sizeof(err)) < 0)
		main_fail("%s", err);
	o->ca = port_args_ca(&mf->port);
	o->port = (int)mf->port.port;
	o->port_guid = mf->port.guid;
}

static void main_parse(int argc, char **argv, struct loop_opts *o, struct main_flags *mf)
{
	int c;

	while ((c = getopt_long(argc, argv, PORT_ARGS_OPTSTRING "R:f:L:vqh", main_longopts,
				NULL)) != -1) {
		switch (c) {
		case 'g':
		case 'd':
		case 'p':
			main_port_option(mf, c, optarg);
			o->cli_set |= OPTS_CLI_PORT;
			break;
		case OPT_ONCE:
			o->once = 1;
			break;
		case OPT_IBSIM:
			o->ibsim = 1;
			o->ibsim_node = optarg;
			break;
		case OPT_INTERVAL:
			o->sweep_interval =
			    (double)main_number("--sweep-interval", optarg, 1, 86400);
			o->cli_set |= OPTS_CLI_INTERVAL;
			break;
		case OPT_GUID2LID:
			o->sm.guid2lid = optarg;
			o->cli_set |= OPTS_CLI_GUID2LID;
			break;
		case 'R':
			main_engines(optarg);
			o->sm.engine = optarg;
			o->cli_set |= OPTS_CLI_ENGINE;
			break;
		case OPT_ROOTS:
			main_roots(optarg, o);
			o->cli_set |= OPTS_CLI_ROOTS;
			break;
		case OPT_PRIORITY:
			o->sm.priority = (uint8_t)main_number("--priority", optarg, 0, 15);
			o->cli_set |= OPTS_CLI_PRIORITY;
			break;
		case OPT_WINDOW:
			o->sm.mad.window = (unsigned)main_number("--window", optarg, 1, 4096);
			o->cli_set |= OPTS_CLI_WINDOW;
			break;
		case OPT_TIMEOUT:
			o->sm.mad.timeout_ms =
			    (unsigned)main_number("--mad-timeout", optarg, 1, 60000);
			o->cli_set |= OPTS_CLI_TIMEOUT;
			break;
		case OPT_RETRIES:
			o->sm.mad.retries = (unsigned)main_number("--mad-retries", optarg, 0, 100);
			o->cli_set |= OPTS_CLI_RETRIES;
			break;
		case 'v':
			o->verbosity =
			    o->verbosity < LOG_LVL_DEBUG ? o->verbosity + 1 : LOG_LVL_DEBUG;
			o->cli_set |= OPTS_CLI_VERBOSE;
			break;
		case 'q':
			o->verbosity = o->verbosity > LOG_LVL_ERR ? o->verbosity - 1 : LOG_LVL_ERR;
			o->cli_set |= OPTS_CLI_VERBOSE;
			break;
		case OPT_LOG_LEVEL:
			if (log_level_parse(optarg, &o->verbosity) < 0)
				main_bad("log level (" POLICY_LOG_LEVEL_WORDS ")", optarg);
			o->cli_set |= OPTS_CLI_VERBOSE;
			break;
		case 'L':
			mf->log_file = optarg;
			break;
		case OPT_LOG_SYSLOG_PREFIX:
			mf->log_syslog_prefix = 1;
			break;
		case 'f':
			o->policy_path = optarg;
			break;
		case OPT_CHECK:
			mf->check = 1;
			break;
		case OPT_SOCKET:
			o->socket_path = optarg;
			break;
		case OPT_TEST_VL_SWITCH:
			o->sm.test_vl_switch =
			    main_number("--test-vl-switch", optarg, 1, UINT64_MAX);
			break;
		case 'h':
			main_usage(stdout);
			exit(0);
		default:
			main_usage(stderr);
			exit(2);
		}
	}
	if (optind < argc)
		main_bad("argument", argv[optind]);
	if (o->ibsim && (o->cli_set & OPTS_CLI_PORT))
		main_fail("--ibsim attaches to an ibsim node: -g, -d and -p do not apply");
	main_port(o, mf);
}

/* The policy: -f FILE, else /etc/nanosm/nanosm.yaml when it exists, else
 * the defaults.  A broken file is fatal at start-up (file:line:col). */
static struct policy *main_policy(struct loop_opts *o)
{
	static struct policy p;
	char err[512];
	const char *path = o->policy_path ? o->policy_path : POLICY_DEFAULT_PATH;
	int rc = policy_load(path, &p, err, sizeof(err));

	if (rc == -ENOENT && !o->policy_path) {
		policy_init(&p);
		return &p;
	}
	if (rc < 0) {
		fprintf(stderr, "nanosm: %s\n", err);
		exit(1);
	}
	o->policy_path = path;
	return &p;
}

static int main_check(const struct policy *p)
{
	size_t n = policy_print(p, NULL, 0);
	char *buf = malloc(n + 1);

	if (!buf)
		return 1;
	policy_print(p, buf, n + 1);
	fputs(buf, stdout);
	free(buf);
	return 0;
}

/* -L FILE: a log file that cannot be opened is fatal (said on stderr).
 * SIGUSR1 (log rotation) is ignored until the event loop takes it over,
 * so a logrotate run during a slow start-up cannot kill the daemon. */
static void main_log_sink(const struct main_flags *mf)
{
	int rc = mf->log_file ? log_open_file(mf->log_file) : 0;

	if (rc < 0) {
		fprintf(stderr, "nanosm: NSM-E900 cannot open the log file %s: %s\n", mf->log_file,
			strerror(-rc));
		exit(1);
	}
	log_syslog_prefix(mf->log_syslog_prefix ? 1 : LOG_PREFIX_AUTO);
	signal(SIGUSR1, SIG_IGN);
}

/* Keys are secrets: say so when the file holding them is readable by
 * anyone but its owner. */
static void main_check_secret(const struct loop_opts *o, const struct policy *p)
{
	struct stat st;

	if (!o->policy_path || (!p->sm.m_key && !p->sm.sm_key))
		return;
	if (stat(o->policy_path, &st) == 0 && (st.st_mode & 077))
		log_warnx("NSM-W603 %s holds M_Key/SM_Key secrets but is open to "
			  "group or others (mode %03o): chmod 600 it",
			  o->policy_path, (unsigned)(st.st_mode & 0777));
}

int main(int argc, char **argv)
{
	struct loop_opts o = {
	    .sweep_interval = 10.0,
	    .verbosity = LOG_LVL_INFO,
	    .sm = {.guid2lid = MAIN_DEFAULT_GUID2LID,
		   .engine = MAIN_DEFAULT_ENGINES,
		   .mad = {.window = 16, .timeout_ms = 200, .retries = 3}},
	};
	struct main_flags mf = {0};
	struct policy *p;

	main_parse(argc, argv, &o, &mf);
	p = main_policy(&o);
	if (mf.check)
		return main_check(p);
	opts_apply_policy(&o, p);
	log_init(o.verbosity, "nanosm");
	main_log_sink(&mf);
	if (o.policy_path)
		log_info("policy %s", o.policy_path);
	main_check_secret(&o, p);
	return loop_run(&o);
}
