/*
 * tools/ping/nping.c - what the verbs client's files share at run time:
 * the stop flag the signals set (SIGINT, SIGTERM; SIGPIPE ignored), the
 * monotonic clock, warnings on stderr, and how long a wait may sleep.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tools/ping/nping.h"

volatile sig_atomic_t nping_stop;

void nping_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("nanosm-ping: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint64_t nping_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void nping_on_signal(int sig)
{
	(void)sig;
	nping_stop = 1;
}

void nping_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nping_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Milliseconds until deadline (ns), capped at NPING_WAIT_SLICE_MS. */
int nping_slice_ms(uint64_t deadline, uint64_t now)
{
	uint64_t ms;

	if (!deadline)
		return NPING_WAIT_SLICE_MS;
	if (now >= deadline)
		return 0;
	ms = (deadline - now + 999999) / 1000000;
	return ms > NPING_WAIT_SLICE_MS ? NPING_WAIT_SLICE_MS : (int)ms;
}
