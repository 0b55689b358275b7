/*
 * nanosmctl.c - talk to a running nanosm over its control socket: send one
 * request line, print the body of the answer.  Owns the command line and
 * the client end of the protocol (sm/daemon/control_proto.h describes it); it never
 * touches the fabric itself.  A command line is checked against the
 * protocol's grammar (sm/daemon/control_proto.c) before it connects; "plan FILE"
 * reads FILE here, with the caller's permissions, and sends its bytes.
 * Exit status: 0 ok, 1 the daemon answered "error" (or FILE cannot be
 * read), 2 bad usage or the daemon could not be reached.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "routing/lft_file.h"
#include "routing/topo_file.h"
#include "sm/daemon/control_proto.h"
#include "tools/draw/draw.h"
#include "tools/lib/draw_cli.h"

#define CTL_EXIT_OK 0
#define CTL_EXIT_ERROR 1
#define CTL_EXIT_UNREACHABLE 2
#define CTL_EXIT_USAGE 2
#define CTL_DEFAULT_TIMEOUT_S 30

struct ctl_args {
	const char *socket;
	unsigned timeout_s;
	/* topology --format svg|html: nanosm's own picture, drawn here */
	struct draw_cli picture;
	const char *word[CONTROL_MAX_WORDS]; /* the request's words */
	int n;
	char *body; /* plan FILE: the file's bytes (owned) */
	size_t body_len;
	char body_len_word[24]; /* its length, the line's last word */
};

struct ctl_reply {
	char *text;
	size_t len, cap;
};

static void ctl_usage(FILE *to)
{
	fprintf(
	    to,
	    "usage: nanosmctl [-s SOCKET] [-t SEC] COMMAND [ARGS]\n"
	    "  -s, --socket PATH   the daemon's control socket (default %s)\n"
	    "  -t, --timeout SEC   how long to wait for the answer (default %d)\n"
	    "  -h, --help          this text\n"
	    "commands:\n"
	    "  status                      state, uptime, last sweep, counts, MAD counters\n"
	    "  sweep                       request a heavy sweep\n"
	    "  reload [--force]            re-read the configuration (--force: even a file\n"
	    "                              with no settings over a policy that has some)\n"
	    "  plan [-v] FILE              what applying the configuration FILE would change\n"
	    "                              (FILE is read here and sent; exit 1 if a reload\n"
	    "                              of it would be refused)\n"
	    "  topology [--format F]       the fabric as ibnetdiscover (default), json, dot\n"
	    "                              (Graphviz), or nanosm's own picture: svg, or html\n"
	    "                              (hover, hosts, routes); picture options:\n"
	    "                              --expand, --expand-switch NAME, --reference FILE\n"
	    "                              (an earlier topology: what is missing since),\n"
	    "                              --width PX\n"
	    "  lfts [SWITCH] [LIDS]        the switches' forwarding tables (dump_fts format)\n"
	    "  lids                        every LID: port GUID, LID, node name\n"
	    "  routes SRC DST              the path from SRC to DST, as ibtracert prints it\n"
	    "                              (each a LID, a GUID or a node name)\n"
	    "  sls [SRC]                   \"SLID DLID SL\" for every CA port LID (or SRC) to\n"
	    "                              every LID: the paths' service levels\n"
	    "  metrics                     counters and gauges in the Prometheus text format\n"
	    "                              (port counters under the InfiniBand exporter's names)\n"
	    "  health                      cables whose error counters rose: both ends, the\n"
	    "                              counters, by how much and how fast, the verdict\n"
	    "exit status: 0 ok, 1 the daemon answered with an error (or FILE cannot be read),\n"
	    "2 bad usage (checked before connecting) or the daemon could not be reached\n",
	    CONTROL_DEFAULT_PATH, CTL_DEFAULT_TIMEOUT_S);
}

static void ctl_bad(const char *fmt, const char *what)
{
	fprintf(stderr, "nanosmctl: ");
	fprintf(stderr, fmt, what);
	fprintf(stderr, "\n");
	ctl_usage(stderr);
	exit(CTL_EXIT_USAGE);
}

/* ---- The command line --------------------------------------------------- */

/* A usage error found before connecting: the message, exit 2. */
static void ctl_usage_error(const char *msg)
{
	fprintf(stderr, "nanosmctl: %s\n", msg);
	exit(CTL_EXIT_USAGE);
}

/* ibnetdiscover, json, dot (the daemon's), svg and html (drawn here). */
static void ctl_topology_format(const char *fmt)
{
	char msg[160];

	if (strcmp(fmt, "svg") && strcmp(fmt, "html") && !control_grammar_topology_format(fmt)) {
		snprintf(msg, sizeof(msg), "unknown topology format '%.64s' (%s)", fmt,
			 CONTROL_TOPOLOGY_FORMATS);
		ctl_usage_error(msg);
	}
}

/* The picture's own options; returns how many words it took, 0 if none. */
static int ctl_picture_option(struct ctl_args *a, int argc, char **argv, int i)
{
	int value = draw_cli_takes_value(argv[i]);
	char err[256];

	if (value < 0)
		return 0;
	if (value && i + 1 == argc)
		ctl_bad("topology: %s needs a value", argv[i]);
	if (draw_cli_option(&a->picture, argv[i], value ? argv[i + 1] : NULL, err, sizeof(err)) < 0)
		ctl_bad("topology: %s", err);
	return 1 + value;
}

/* topology [--format F | --format=F | -f F | F] [picture options]
 * -> "topology F", or "topology ibnetdiscover" for a picture drawn here */
static void ctl_topology(struct ctl_args *a, int argc, char **argv)
{
	const char *fmt = NULL;
	int k;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--format") || !strcmp(argv[i], "-f")) {
			if (++i == argc)
				ctl_bad("%s needs a format (" CONTROL_TOPOLOGY_FORMATS ")",
					argv[i - 1]);
			fmt = argv[i];
		} else if (!strncmp(argv[i], "--format=", 9)) {
			fmt = argv[i] + 9;
		} else if ((k = ctl_picture_option(a, argc, argv, i)) > 0) {
			i += k - 1;
		} else if (!fmt && argv[i][0] != '-') {
			fmt = argv[i];
		} else {
			ctl_bad("topology: unexpected '%s'", argv[i]);
		}
	}
	a->word[a->n++] = "topology";
	if (fmt)
		ctl_topology_format(fmt);
	if (fmt && (!strcmp(fmt, "svg") || !strcmp(fmt, "html"))) {
		a->picture.format = fmt;
		fmt = "ibnetdiscover";
	}
	if (!a->picture.format && draw_cli_has_options(&a->picture))
		ctl_bad("topology: %s", "--expand, --expand-switch, --reference and --width are "
					"for --format svg or html");
	if (fmt)
		a->word[a->n++] = fmt;
}

/* The word of the request that names the file (the last one that is no
 * option: "plan -v FILE" and "plan FILE -v"). */
static const char *ctl_body_word(const struct ctl_args *a)
{
	for (int i = a->n - 1; i > 0; i--)
		if (a->word[i][0] != '-')
			return a->word[i];
	return a->word[a->n - 1];
}

/* All of path (at most CONTROL_BODY_MAX bytes) into a->body, read here
 * with the caller's permissions; exit 1 when it cannot be. */
static void ctl_read_body(struct ctl_args *a, const char *path)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	size_t n = 0;

	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	a->body = f ? malloc(CONTROL_BODY_MAX + 1) : NULL;
	if (a->body)
		n = fread(a->body, 1, CONTROL_BODY_MAX + 1, f);
	if (!f || !a->body || ferror(f)) {
		fprintf(stderr, "nanosmctl: %s: %s\n", path,
			strerror(f && !a->body ? ENOMEM : errno));
		exit(CTL_EXIT_ERROR);
	}
	fclose(f);
	if (n > CONTROL_BODY_MAX) {
		fprintf(stderr,
			"nanosmctl: %s: too large to send (more than %u bytes, the most "
			"the control socket takes)\n",
			path, CONTROL_BODY_MAX);
		exit(CTL_EXIT_ERROR);
	}
	a->body_len = n;
	snprintf(a->body_len_word, sizeof(a->body_len_word), "%zu", n);
	a->word[a->n++] = a->body_len_word;
}

static const struct option ctl_longopts[] = {
    {"socket", required_argument, NULL, 's'},
    {"timeout", required_argument, NULL, 't'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static void ctl_options(struct ctl_args *a, int argc, char **argv)
{
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "+s:t:h", ctl_longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			a->socket = optarg;
			break;
		case 't':
			errno = 0;
			a->timeout_s = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || !a->timeout_s || a->timeout_s > 86400)
				ctl_bad("invalid timeout '%s' (1-86400 seconds)", optarg);
			break;
		case 'h':
			ctl_usage(stdout);
			exit(CTL_EXIT_OK);
		default:
			ctl_usage(stderr);
			exit(CTL_EXIT_USAGE);
		}
	}
}

static void ctl_parse(struct ctl_args *a, int argc, char **argv)
{
	const struct control_grammar *g;
	char err[512];
	const char *cmd;

	ctl_options(a, argc, argv);
	if (optind == argc)
		ctl_bad("%s", "no command given");
	cmd = argv[optind++];
	argc -= optind;
	argv += optind;
	if (argc > CONTROL_MAX_WORDS - 2) { /* room for the command and a length */
		g = control_grammar_find(cmd);
		snprintf(err, sizeof(err), "%s: too many arguments%s%s", cmd, g ? "; usage: " : "",
			 g ? g->usage : "");
		ctl_usage_error(err);
	}
	if (!strcmp(cmd, "topology")) {
		ctl_topology(a, argc, argv);
	} else {
		a->word[a->n++] = cmd;
		for (int i = 0; i < argc; i++)
			a->word[a->n++] = argv[i];
	}
	g = control_grammar_check((char *const *)a->word, a->n, err, sizeof(err));
	if (!g)
		ctl_usage_error(err);
	if (g->flags & CONTROL_GRAMMAR_BODY)
		ctl_read_body(a, ctl_body_word(a)); /* plan's FILE: the word that is no option */
}

/* The request line: words joined by blanks, a word with blanks quoted. */
static void ctl_request(const struct ctl_args *a, char *line, size_t size)
{
	size_t len = 0;

	line[0] = '\0';
	for (int i = 0; i < a->n; i++) {
		const char *w = a->word[i];
		int quote = !w[0] || strpbrk(w, " \t") != NULL;
		int n;

		for (const unsigned char *s = (const unsigned char *)w; *s; s++) {
			if (*s == '"' || *s < 0x20 || *s == 0x7f) {
				fprintf(stderr,
					"nanosmctl: cannot send '%s': it holds a double quote "
					"or a control character\n",
					w);
				exit(CTL_EXIT_USAGE);
			}
		}
		n = snprintf(line + len, size - len, "%s%s%s%s", i ? " " : "", quote ? "\"" : "", w,
			     quote ? "\"" : "");
		if (n < 0 || (size_t)n >= size - len - 1)
			ctl_bad("%s: request too long", a->word[0]);
		len += (size_t)n;
	}
	line[len++] = '\n';
	line[len] = '\0';
}

/* ---- The conversation --------------------------------------------------- */

static int ctl_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int ctl_send_all(int fd, const char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, buf + done, len - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* The line, then the body a plan carries; then no more from us. */
static int ctl_send(int fd, const char *line, const struct ctl_args *a)
{
	if (ctl_send_all(fd, line, strlen(line)) < 0 || ctl_send_all(fd, a->body, a->body_len) < 0)
		return -1;
	shutdown(fd, SHUT_WR);
	return 0;
}

static uint64_t ctl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int ctl_grow(struct ctl_reply *r)
{
	size_t cap = r->cap ? r->cap * 2 : 65536;
	char *t = realloc(r->text, cap + 1);

	if (!t)
		return -1;
	r->text = t;
	r->cap = cap;
	return 0;
}

/* Read until EOF; 0, or -1 with errno (ETIMEDOUT past the deadline). */
static int ctl_read_all(int fd, struct ctl_reply *r, unsigned timeout_s)
{
	uint64_t deadline = ctl_now_ms() + (uint64_t)timeout_s * 1000u;

	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint64_t now = ctl_now_ms();
		ssize_t n;

		if (r->len == r->cap && ctl_grow(r) < 0)
			return -1;
		if (now >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(&pfd, 1, (int)(deadline - now)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		n = read(fd, r->text + r->len, r->cap - r->len);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		r->len += (size_t)n;
	}
	if (r->text)
		r->text[r->len] = '\0';
	return 0;
}

static int ctl_unreachable(const char *path, const char *what)
{
	fprintf(stderr, "nanosmctl: cannot reach nanosm at %s: %s (is it running? see -s)\n", path,
		what);
	return CTL_EXIT_UNREACHABLE;
}

/* connect() failed: a path that is there but no socket says so. */
static int ctl_connect_failed(const char *path, int e)
{
	struct stat st;

	if (stat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		fprintf(stderr,
			"nanosmctl: cannot reach nanosm at %s: it is a %s, not a socket "
			"(see -s)\n",
			path, S_ISDIR(st.st_mode) ? "directory" : "file");
		return CTL_EXIT_UNREACHABLE;
	}
	return ctl_unreachable(path, strerror(e));
}

/* Send the request, read the whole reply. */
static int ctl_talk(const struct ctl_args *a, const char *line, struct ctl_reply *r)
{
	int fd = ctl_connect(a->socket), rc;

	if (fd < 0)
		return ctl_connect_failed(a->socket, errno);
	if (ctl_send(fd, line, a) < 0) {
		rc = ctl_unreachable(a->socket, strerror(errno));
		close(fd);
		return rc;
	}
	rc = ctl_read_all(fd, r, a->timeout_s);
	close(fd);
	if (rc < 0 && errno == ETIMEDOUT) {
		fprintf(stderr, "nanosmctl: nanosm at %s did not answer within %u s\n", a->socket,
			a->timeout_s);
		return CTL_EXIT_UNREACHABLE;
	}
	if (rc < 0)
		return ctl_unreachable(a->socket, strerror(errno));
	return CTL_EXIT_OK;
}

/* ---- Printing the answer ------------------------------------------------ */

static int ctl_write_out(const char *body, size_t len)
{
	if (len && fwrite(body, 1, len, stdout) != len)
		return -1;
	return fflush(stdout);
}

/* The daemon's forwarding tables, parsed against f, for the HTML view's
 * routes; a warning and none when they cannot be had. */
/* Ask the daemon another request (line) for the picture: the body of an
 * "ok" answer (malloc'ed in *r, body at r->text + 3), or -1 with *why. */
static int ctl_picture_ask(const struct ctl_args *a, const char *line, struct ctl_reply *r,
			   const char **why)
{
	struct ctl_args q = *a;

	q.body = NULL;
	q.body_len = 0;
	memset(r, 0, sizeof(*r));
	if (ctl_talk(&q, line, r) == CTL_EXIT_OK && r->len >= 3 && !strncmp(r->text, "ok\n", 3))
		return 0;
	*why = r->len ? r->text : "no answer";
	return -1;
}

static void ctl_picture_lfts(const struct ctl_args *a, struct fabric *f, struct lft_set *s)
{
	struct ctl_reply r;
	const char *why;
	char err[512];

	if (ctl_picture_ask(a, "lfts\n", &r, &why) < 0)
		fprintf(stderr,
			"nanosmctl: warning: the routes are left out: no forwarding "
			"tables from nanosm (%.80s)\n",
			why);
	else if (lft_file_parse(r.text + 3, r.len - 3, "nanosm lfts", LFT_FILE_AUTO, f, s, NULL,
				err, sizeof(err)) < 0)
		fprintf(stderr, "nanosmctl: warning: the routes are left out: %s\n", err);
	free(r.text);
}

/* The cables the performance manager lists (`health`), to colour them;
 * none when it has nothing to say or the daemon has no monitor. */
static void ctl_picture_health(const struct ctl_args *a, struct draw_health_cable **h, size_t *n)
{
	struct ctl_reply r;
	const char *why;

	*h = NULL;
	*n = 0;
	if (ctl_picture_ask(a, "health\n", &r, &why) == 0 &&
	    draw_health_parse(r.text + 3, r.len - 3, h, n) < 0)
		fprintf(stderr, "nanosmctl: warning: cable health left out: out of memory\n");
	free(r.text);
}

/* topology --format svg|html: the daemon's ibnetdiscover text, drawn here. */
static int ctl_picture(const struct ctl_args *a, const char *body, size_t len)
{
	struct draw_health_cable *health = NULL;
	size_t n_health = 0;
	struct fabric f;
	struct lft_set s;
	char err[512];
	int rc;

	fabric_init(&f);
	lft_set_init(&s);
	rc = topo_parse(body, len, "nanosm topology", &f, err, sizeof(err));
	if (!rc && !strcmp(a->picture.format, "html"))
		ctl_picture_lfts(a, &f, &s);
	if (!rc)
		ctl_picture_health(a, &health, &n_health);
	if (!rc)
		rc = draw_cli_draw(&a->picture, &f, &s, health, n_health, "nanosm: fabric", stdout,
				   err, sizeof(err));
	if (rc)
		fprintf(stderr, "nanosmctl: %s\n", err);
	free(health);
	lft_set_fini(&s);
	fabric_fini(&f);
	return rc ? CTL_EXIT_ERROR : CTL_EXIT_OK;
}

/* "ok" -> body to stdout, 0; "error MSG" -> MSG to stderr, body, 1. */
static int ctl_print(const struct ctl_args *a, const struct ctl_reply *r)
{
	const char *nl = r->len ? memchr(r->text, '\n', r->len) : NULL;
	const char *body = nl ? nl + 1 : NULL;
	size_t body_len = nl ? r->len - (size_t)(body - r->text) : 0;

	if (!nl) {
		fprintf(stderr, "nanosmctl: no answer from nanosm at %s (connection closed)\n",
			a->socket);
		return CTL_EXIT_UNREACHABLE;
	}
	if (!strncmp(r->text, "ok\n", 3)) {
		if (a->picture.format)
			return ctl_picture(a, body, body_len);
		return ctl_write_out(body, body_len) < 0 ? CTL_EXIT_ERROR : CTL_EXIT_OK;
	}
	if (!strncmp(r->text, "error ", 6)) {
		fprintf(stderr, "nanosmctl: %.*s\n", (int)(nl - r->text - 6), r->text + 6);
		ctl_write_out(body, body_len);
		return CTL_EXIT_ERROR;
	}
	fprintf(stderr, "nanosmctl: unexpected answer from %s: %.*s\n", a->socket,
		(int)(nl - r->text), r->text);
	return CTL_EXIT_UNREACHABLE;
}

int main(int argc, char **argv)
{
	static struct ctl_args a = {.socket = CONTROL_DEFAULT_PATH,
				    .timeout_s = CTL_DEFAULT_TIMEOUT_S};
	static char line[CONTROL_REQUEST_MAX + 1];
	struct ctl_reply r = {0};
	int rc;

	ctl_parse(&a, argc, argv);
	ctl_request(&a, line, sizeof(line));
	rc = ctl_talk(&a, line, &r);
	if (rc == CTL_EXIT_OK)
		rc = ctl_print(&a, &r);
	free(r.text);
	free(a.body);
	return rc;
}
