/*
 * sm/daemon/notify.h - tell systemd (Type=notify) how the daemon is doing, without
 * libsystemd: the sd_notify(3) datagram protocol spoken directly.
 *
 * DOC: When $NOTIFY_SOCKET names a unix datagram socket (a path, or
 * "@name" for the abstract namespace), notify_send sends one datagram of
 * newline-separated assignments: READY=1 with a STATUS= line at the first
 * SUBNET UP, STATUS= after later sweeps, RELOADING=1 (with MONOTONIC_USEC=)
 * then READY=1 around a policy reload, STOPPING=1 at exit.  Without
 * $NOTIFY_SOCKET every call is a no-op.  A send that fails is logged once
 * (NSM-W910) and never stops the SM.  The message text and the address
 * are built by pure functions (notify_format, notify_addr,
 * notify_status_sweep); only notify_open/notify_send/notify_close touch a
 * socket.
 */
#ifndef NANOSM_SM_DAEMON_NOTIFY_H
#define NANOSM_SM_DAEMON_NOTIFY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sm/core/sm.h"

enum notify_event {
	NOTIFY_READY,	  /* READY=1 + STATUS= */
	NOTIFY_STATUS,	  /* STATUS= only */
	NOTIFY_RELOADING, /* RELOADING=1 + MONOTONIC_USEC= + STATUS= */
	NOTIFY_STOPPING,  /* STOPPING=1 + STATUS= */
};

#define NOTIFY_MSG_MAX 512 /* a datagram we build, NUL included */

/* The datagram for ev into buf: the assignments, one a line, STATUS=
 * last with status cut to one line (control characters become blanks;
 * NULL or "" = no STATUS= line).  mono_usec is CLOCK_MONOTONIC in
 * microseconds (RELOADING only).  Returns the length, or -ENOSPC when it
 * does not fit in size (buf then holds nothing useful), -EINVAL for an
 * unknown event. */
int notify_format(enum notify_event ev, const char *status, uint64_t mono_usec, char *buf,
		  size_t size);

/* $NOTIFY_SOCKET's value -> a unix socket address: an absolute path, or
 * "@name" (abstract: a NUL byte then name).  0 with *len set; -EINVAL
 * for NULL, "" or another form (e.g. vsock:), -ENAMETOOLONG when it does
 * not fit sun_path. */
int notify_addr(const char *value, struct sockaddr_un *sa, socklen_t *len);

/* A short status after a sweep: "sweep 3 ok: 2 switches, 4 CAs, 6 LIDs,
 * engine updn", "sweep 4 failed (Connection timed out); last good sweep 3
 * in force", "standby (sweep 5)".  Returns snprintf's length. */
int notify_status_sweep(const struct sm_sweep_stats *st, unsigned last_good, char *buf,
			size_t size);

/* The daemon's connection to the service manager (embed it; _open/_close). */
struct notify {
	int fd;	    /* -1: off ($NOTIFY_SOCKET unset or unusable) */
	int warned; /* a failed send has been logged */
	int ready;  /* READY=1 has been sent */
	struct sockaddr_un sa;
	socklen_t len;
};

/* Read $NOTIFY_SOCKET and open a datagram socket for it.  0 (also when
 * unset: n stays off), or -errno with a warning logged. */
int notify_open(struct notify *n);
/* Send ev with status (see notify_format).  No-op when off.  READY sets
 * n->ready. */
void notify_send(struct notify *n, enum notify_event ev, const char *status);
void notify_close(struct notify *n);

#endif
