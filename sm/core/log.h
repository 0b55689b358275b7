/*
 * sm/core/log.h - the daemon's log: one line per event, with a level, on stderr or
 * in a file.
 *
 * DOC: log_err/log_warn append strerror(errno); log_errx/log_warnx do not.
 * fatal/fatalx log and exit(1).  Recurring errors carry a stable ID such as
 * "NSM-E101" so users can grep for them (see docs/logging.md), and the ID
 * decides the level: a message that starts with NSM-E... is logged at
 * error level ("error: "), one with NSM-W... at warning level at least,
 * whichever function logs it.
 *
 * Where lines go: stderr until log_open_file names a file (appended,
 * close-on-exec); log_reopen opens that path again (log rotation, on
 * SIGUSR1 from the event loop).  Each line is written with one write(2).
 * A line normally starts "HH:MM:SS.mmm nanosm: "; in syslog-prefix mode
 * (under systemd's journal, see log_syslog_prefix) it starts with the
 * sd-daemon(3) priority "<N>" instead and carries no timestamp nor
 * program name, which the journal records itself.  docs/logging.md.
 */
#ifndef NANOSM_SM_CORE_LOG_H
#define NANOSM_SM_CORE_LOG_H

#include <stddef.h>

enum log_level { LOG_LVL_ERR = 0, LOG_LVL_WARN = 1, LOG_LVL_INFO = 2, LOG_LVL_DEBUG = 3 };

void log_init(int level, const char *progname);
int log_level_get(void);
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---- Where the lines go (the daemon's shell) ---------------------------- */

/* Log to path from now on (O_APPEND|O_CREAT|O_CLOEXEC, mode 0640), keeping
 * the path for log_reopen.  0, or -errno (the log stays where it was). */
int log_open_file(const char *path);
/* Open the log file's path again and switch to it (after logrotate moved
 * the old one away).  On failure the old file stays in use, a warning
 * naming the path is logged to it (NSM-W901) and -errno is returned.
 * Without a log file: 0, nothing done. */
int log_reopen(void);
/* Close the log file and log to stderr again. */
void log_to_stderr(void);
/* The log file's path, or NULL when logging to stderr. */
const char *log_file_path(void);
/* Syslog-prefix mode: 1 on, 0 off, LOG_PREFIX_AUTO: on when logging to
 * stderr and $JOURNAL_STREAM names stderr (systemd connected it to the
 * journal).  Returns the mode now in force (0 or 1). */
#define LOG_PREFIX_AUTO (-1)
int log_syslog_prefix(int mode);

/* ---- Pure helpers (unit-tested) ----------------------------------------- */

/* "error"/"err", "warning"/"warn", "info", "debug" (any case) -> enum
 * log_level: the words the policy's sm.log_level takes
 * (policy_log_level_parse).  0, or -EINVAL for anything else (level
 * untouched). */
int log_level_parse(const char *name, int *level);
/* The name of a level ("error", "warning", "info", "debug"; "?"). */
const char *log_level_name(int level);
/* The level a message is logged at: LOG_LVL_ERR when it starts with an
 * error ID ("NSM-E" and a digit), at most LOG_LVL_WARN for a warning ID
 * ("NSM-W"), else level. */
int log_id_level(const char *msg, int level);
/* The syslog priority of a level, as sd-daemon(3)'s "<N>" prefixes use it:
 * err 3, warn 4, info 6, debug 7. */
int log_syslog_priority(int level);
/* 1 when env ($JOURNAL_STREAM, "DEV:INODE" in decimal) names the file with
 * this device and inode number, else 0 (also for NULL or a malformed
 * value). */
int log_journal_match(const char *env, unsigned long long dev, unsigned long long ino);

/* One line, as log_format lays it out. */
struct log_line {
	int level;	   /* enum log_level */
	int syslog_prefix; /* 1: "<N>" first, no timestamp, no program name */
	const char *when;  /* "HH:MM:SS.mmm" (unused with syslog_prefix) */
	const char *prog;  /* "nanosm" (unused with syslog_prefix) */
	const char *tag;   /* "error: ", "warning: ", "fatal: ", "debug: " or "" */
	const char *msg;   /* the message (newlines become blanks: one line) */
	const char *err;   /* strerror text appended as ": err", or NULL */
};

/* Lay out l, newline included, into buf (NUL-terminated, cut to size);
 * returns the length the whole line needs, as snprintf does. */
size_t log_format(const struct log_line *l, char *buf, size_t size);

#endif
