/*
 * sm/core/log.c - logging with levels to stderr or a file (reopened for rotation),
 * journal-friendly under systemd.  The only global state in sm/: the level,
 * program name and where lines go, set at start-up (and by SIGUSR1's
 * reopen, from the event loop).  Line layout and name parsing are pure.
 * Only the loop's thread logs (the MAD receiver thread never does), so the
 * fd swap in log_reopen needs no lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/policy.h"
#include "sm/core/log.h"

_Static_assert(LOG_LVL_ERR == (int)POLICY_LOG_ERROR && LOG_LVL_WARN == (int)POLICY_LOG_WARNING &&
		   LOG_LVL_INFO == (int)POLICY_LOG_INFO && LOG_LVL_DEBUG == (int)POLICY_LOG_DEBUG,
	       "log levels and the policy's log_level share their numbers");

static int log_verbosity = LOG_LVL_INFO;
static const char *log_prog = "nanosm";
static int log_fd = STDERR_FILENO;
static char *log_path;	    /* the log file (owned), NULL = stderr */
static int log_prefix_mode; /* 1: "<N>" prefixes, no timestamp */

/* ---- Pure helpers -------------------------------------------------------- */

/* The names are the policy's (config/policy.c), so --log-level and
 * sm.log_level take the same words; the numbers are the same too. */
int log_level_parse(const char *name, int *level)
{
	enum policy_log_level l;

	if (policy_log_level_parse(name, &l) < 0)
		return -EINVAL;
	*level = (int)l;
	return 0;
}

const char *log_level_name(int level)
{
	return level >= LOG_LVL_ERR && level <= LOG_LVL_DEBUG
		   ? policy_log_level_name((enum policy_log_level)level)
		   : "?";
}

int log_id_level(const char *msg, int level)
{
	if (!msg || strncmp(msg, "NSM-", 4) || (msg[4] != 'E' && msg[4] != 'W') || msg[5] < '0' ||
	    msg[5] > '9')
		return level;
	if (msg[4] == 'E')
		return LOG_LVL_ERR;
	return level > LOG_LVL_WARN ? LOG_LVL_WARN : level;
}

int log_syslog_priority(int level)
{
	static const int prio[] = {3, 4, 6, 7}; /* LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG */

	if (level < 0)
		return prio[0];
	return prio[level < 4 ? level : 3];
}

/* A decimal number ending at stop; 0 or -1. */
static int log_decimal(const char *s, char stop, unsigned long long *v, const char **end)
{
	char *e;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &e, 10);
	if (errno || *e != stop)
		return -1;
	*end = e;
	return 0;
}

int log_journal_match(const char *env, unsigned long long dev, unsigned long long ino)
{
	unsigned long long d, i;
	const char *end;

	if (!env || log_decimal(env, ':', &d, &end) < 0 || log_decimal(end + 1, '\0', &i, &end) < 0)
		return 0;
	return d == dev && i == ino;
}

/* An snprintf-style appender: counts what it could not store. */
struct log_out {
	char *buf;
	size_t size, len;
};

static void log_put(struct log_out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void log_puts(struct log_out *o, const char *s, int one_line)
{
	for (; s && *s; s++)
		log_put(o, one_line && (*s == '\n' || *s == '\r') ? ' ' : *s);
}

size_t log_format(const struct log_line *l, char *buf, size_t size)
{
	struct log_out o = {buf, size, 0};
	char prio[8];

	if (l->syslog_prefix) {
		snprintf(prio, sizeof(prio), "<%d>", log_syslog_priority(l->level));
		log_puts(&o, prio, 0);
	} else {
		log_puts(&o, l->when, 1);
		log_put(&o, ' ');
		log_puts(&o, l->prog, 1);
		log_puts(&o, ": ", 0);
	}
	log_puts(&o, l->tag, 1);
	log_puts(&o, l->msg, 1);
	if (l->err) {
		log_puts(&o, ": ", 0);
		log_puts(&o, l->err, 1);
	}
	log_put(&o, '\n');
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}

/* ---- Where lines go ------------------------------------------------------ */

void log_init(int level, const char *progname)
{
	log_verbosity = level;
	if (progname)
		log_prog = progname;
}

int log_level_get(void)
{
	return log_verbosity;
}

static int log_open_path(const char *path)
{
	return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);
}

int log_open_file(const char *path)
{
	char *copy = strdup(path);
	int fd = copy ? log_open_path(path) : -1;
	int e = errno;

	if (fd < 0) {
		free(copy);
		return copy ? -e : -ENOMEM;
	}
	if (log_fd != STDERR_FILENO)
		close(log_fd);
	free(log_path);
	log_fd = fd;
	log_path = copy;
	return 0;
}

int log_reopen(void)
{
	int fd, e;

	if (!log_path)
		return 0;
	fd = log_open_path(log_path);
	if (fd < 0) {
		e = errno;
		log_warnx("NSM-W901 cannot reopen the log file %s: %s; still logging to the file "
			  "open before",
			  log_path, strerror(e));
		return -e;
	}
	close(log_fd);
	log_fd = fd;
	return 0;
}

void log_to_stderr(void)
{
	if (log_fd != STDERR_FILENO)
		close(log_fd);
	log_fd = STDERR_FILENO;
	free(log_path);
	log_path = NULL;
}

const char *log_file_path(void)
{
	return log_path;
}

int log_syslog_prefix(int mode)
{
	struct stat st;

	if (mode == LOG_PREFIX_AUTO)
		mode = log_fd == STDERR_FILENO && fstat(STDERR_FILENO, &st) == 0 &&
		       log_journal_match(getenv("JOURNAL_STREAM"), (unsigned long long)st.st_dev,
					 (unsigned long long)st.st_ino);
	log_prefix_mode = mode ? 1 : 0;
	return log_prefix_mode;
}

/* ---- Writing ------------------------------------------------------------- */

static void log_write_all(const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(log_fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* nowhere else to say it */
		s += n;
		len -= (size_t)n;
	}
}

static void log_emit(int level, const char *tag, const char *err, const char *msg)
{
	struct timespec ts;
	struct tm tm;
	char when[32], hms[16], line[1024], *big = NULL;
	struct log_line l = {level, log_prefix_mode, when, log_prog, tag, msg, err};
	size_t need;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	snprintf(when, sizeof(when), "%s.%03ld", hms, ts.tv_nsec / 1000000);
	need = log_format(&l, line, sizeof(line));
	if (need >= sizeof(line) && (big = malloc(need + 1)) != NULL)
		log_format(&l, big, need + 1);
	log_write_all(big ? big : line, big ? need : strlen(line));
	free(big);
}

/* Tag before the message: the ID's level decides it, fatal says so. */
static const char *log_tag(int level)
{
	static const char *const tags[] = {"error: ", "warning: ", "", "debug: "};

	return level >= LOG_LVL_ERR && level <= LOG_LVL_DEBUG ? tags[level] : "";
}

static void log_vwrite(int level, const char *fatal_tag, const char *err, const char *fmt,
		       va_list ap)
{
	char msg[1024], *big = NULL;
	int saved = errno, n;
	va_list again;

	level = log_id_level(fmt, level);
	if (level > log_verbosity && fmt[0] != '%')
		return; /* an ID is at the start of the format, if anywhere */
	va_copy(again, ap);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n >= (int)sizeof(msg) && (big = malloc((size_t)n + 1)) != NULL)
		vsnprintf(big, (size_t)n + 1, fmt, again);
	va_end(again);
	level = log_id_level(msg, level);
	if (level <= log_verbosity)
		log_emit(level, fatal_tag ? fatal_tag : log_tag(level), err, big ? big : msg);
	free(big);
	errno = saved;
}

#define LOG_BODY(level, tag, err)                                                                  \
	do {                                                                                       \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		log_vwrite(level, tag, err, fmt, ap);                                              \
		va_end(ap);                                                                        \
	} while (0)

void log_err(const char *fmt, ...)
{
	const char *err = strerror(errno);

	LOG_BODY(LOG_LVL_ERR, NULL, err);
}

void log_errx(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_ERR, NULL, NULL);
}

void log_warn(const char *fmt, ...)
{
	const char *err = strerror(errno);

	LOG_BODY(LOG_LVL_WARN, NULL, err);
}

void log_warnx(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_WARN, NULL, NULL);
}

void log_info(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_INFO, NULL, NULL);
}

void log_debug(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_DEBUG, NULL, NULL);
}

void fatal(const char *fmt, ...)
{
	const char *err = strerror(errno);

	LOG_BODY(LOG_LVL_ERR, "fatal: ", err);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_ERR, "fatal: ", NULL);
	exit(1);
}
