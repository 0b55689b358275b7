/*
 * log.c - stderr logging with levels.  The only global state in sm/: the
 * level and program name, set once at start-up.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

static int log_verbosity = LOG_LVL_INFO;
static const char *log_prog = "nanosm";

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

static void log_vwrite(int level, const char *tag, const char *err, const char *fmt, va_list ap)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	if (level > log_verbosity)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ld %s: %s", when, ts.tv_nsec / 1000000, log_prog, tag);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", err);
	fputc('\n', stderr);
	fflush(stderr);
}

#define LOG_BODY(level, tag, err)                                                                  \
	do {                                                                                       \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		log_vwrite(level, tag, err, fmt, ap);                                              \
		va_end(ap);                                                                        \
	} while (0)

void log_warn(const char *fmt, ...)
{
	const char *err = strerror(errno);

	LOG_BODY(LOG_LVL_WARN, "warning: ", err);
}

void log_warnx(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_WARN, "warning: ", NULL);
}

void log_info(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_INFO, "", NULL);
}

void log_debug(const char *fmt, ...)
{
	LOG_BODY(LOG_LVL_DEBUG, "debug: ", NULL);
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
