/*
 * tools/ping/nping.h - what every file of nanosm-ping's verbs side shares
 * (nping.c): exit statuses, the stop flag the signals set, the clock,
 * warnings, and the longest a wait sleeps.  Internal to nanosm-ping; the
 * pure ping_*.c never include an nping header.
 *
 * DOC: nothing on the verbs side blocks longer than NPING_WAIT_SLICE_MS,
 * so a signal (nping_stop) is seen within that.
 */
#ifndef NANOSM_TOOLS_PING_NPING_H
#define NANOSM_TOOLS_PING_NPING_H

#include <signal.h>
#include <stdint.h>

#define NPING_EXIT_OK 0
#define NPING_EXIT_FAIL 1  /* a path failed */
#define NPING_EXIT_SETUP 2 /* usage, no device, port not usable */
#define NPING_POLL_BATCH 16
#define NPING_WAIT_SLICE_MS 200 /* longest sleep, so signals are seen */

/* nping.c: set by SIGINT and SIGTERM once nping_signals has run. */
extern volatile sig_atomic_t nping_stop;
void nping_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* CLOCK_MONOTONIC in ns. */
uint64_t nping_now(void);
void nping_signals(void);
/* Milliseconds until deadline (ns; 0: none), capped at NPING_WAIT_SLICE_MS. */
int nping_slice_ms(uint64_t deadline, uint64_t now);

#endif
