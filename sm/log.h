/*
 * log.h - the daemon's log: one line per event on stderr, with a level.
 *
 * DOC: log_warn appends strerror(errno); log_warnx does not.  fatal/fatalx
 * log and exit(1).  Recurring errors carry a stable ID such as "NSM-E101"
 * so users can grep for them (see docs/design.md).
 */
#ifndef NANOSM_SM_LOG_H
#define NANOSM_SM_LOG_H

enum log_level { LOG_LVL_ERR = 0, LOG_LVL_WARN = 1, LOG_LVL_INFO = 2, LOG_LVL_DEBUG = 3 };

void log_init(int level, const char *progname);
int log_level_get(void);
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
