/*
 * tools/ping/ping_report.h - what nanosm-ping tells the user: round-trip statistics,
 * one verdict line per path, and why a local port cannot be used (pure:
 * numbers in, text out).
 *
 * DOC: Statistics: min and max; the median (the mean of the two middle
 * samples when the count is even); p99 by nearest rank (the sample at rank
 * ceil(0.99 n), so with fewer than 100 samples p99 is the maximum).  Round
 * trips are in nanoseconds, printed in microseconds with one decimal.
 * Verdict lines:
 *   OK lid 4 (host2): rtt min 1.9 median 2.1 p99 3.4 us, bw 11.2 Gb/s
 *   FAIL lid 6 (host3): no response (timeout 1s)
 *   FAIL host3: side channel: connect to host3:18555: Connection refused (...)
 * Port states and link layers mirror libibverbs' values (enum ibv_port_state,
 * IBV_LINK_LAYER_*) so this file needs no verbs header.
 */
#ifndef NANOSM_TOOLS_PING_PING_REPORT_H
#define NANOSM_TOOLS_PING_PING_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "tools/ping/ping_proto.h"

#define PING_REPORT_LINE_MAX 512
#define PING_REPORT_NAME_MAX 272

struct ping_stats {
	size_t n;
	uint64_t min, median, p99, max; /* ns */
};

enum ping_verdict {
	PING_VERDICT_NONE = 0, /* still running */
	PING_VERDICT_OK,
	PING_VERDICT_FAIL,
	PING_VERDICT_SKIPPED, /* asked only for its LID, which nobody wanted */
};

/* Everything known about one path when it ends. */
struct ping_result {
	enum ping_verdict verdict;
	char name[PING_REPORT_NAME_MAX]; /* the host as the user gave it */
	uint16_t lid;			 /* 0 while unknown (before HELLO) */
	int loopback;			 /* the peer is this very port */
	char reason[256];		 /* FAIL: why */
	unsigned sent, lost;		 /* pings */
	struct ping_stats rtt;		 /* rtt.n == 0: no round trip measured */
	int have_bw;
	uint64_t bw_bytes, bw_ns; /* bytes delivered, in ns */
	uint64_t bw_sent, bw_rx;  /* UD: messages sent / received by the server */
};

enum ping_port_state {
	PING_PORT_NOP = 0,
	PING_PORT_DOWN = 1,
	PING_PORT_INIT = 2,
	PING_PORT_ARMED = 3,
	PING_PORT_ACTIVE = 4,
	PING_PORT_ACTIVE_DEFER = 5,
};

enum ping_link_layer { PING_LINK_UNSPEC = 0, PING_LINK_IB = 1, PING_LINK_ETHERNET = 2 };

/* One local HCA port as the verbs layer reported it. */
struct ping_port_desc {
	char dev[64];
	unsigned port;
	enum ping_port_state state;
	enum ping_link_layer link;
	uint16_t lid;
	uint16_t mtu;  /* active MTU, bytes */
	uint64_t guid; /* port GUID (GID 0's interface ID), 0 unknown */
};

/* Sorts samples in place.  Returns 0, or -EINVAL when n is 0. */
int ping_report_stats(uint64_t *samples, size_t n, struct ping_stats *st);
/* Gbit/s from bytes moved in ns (0 if ns is 0). */
double ping_report_gbps(uint64_t bytes, uint64_t ns);
/* "1s", "0.5s", "1.25s", "0.001s". */
const char *ping_report_duration(unsigned ms, char *buf, size_t cap);
/* The verdict line (no newline).  Returns its length or -ENOSPC. */
int ping_report_format(const struct ping_result *r, char *buf, size_t cap);
/* The line for a LID target no server reported: names the hosts that
 * failed before telling their LID, since one of them may have been it. */
int ping_report_lid_missing(uint16_t lid, const char *hosts_file, const struct ping_result *res,
			    size_t n, char *buf, size_t cap);
/* "4 paths: 3 OK, 1 FAIL". */
int ping_report_summary(const struct ping_result *res, size_t n, size_t missing, char *buf,
			size_t cap);

/* "DOWN", "INIT", ... */
const char *ping_report_port_state_name(enum ping_port_state s);
/* 0 when the port can carry traffic (InfiniBand, ACTIVE, LID set), else
 * -ENETDOWN (not ACTIVE), -EADDRNOTAVAIL (LID 0) or -EPROTONOSUPPORT
 * (Ethernet) with err saying what to do. */
int ping_report_port_usable(const struct ping_port_desc *p, char *err, size_t errlen);
/* Choose the local port: dev ("" any), port (0 any) and guid (0 any)
 * narrow the list; of what is left, the first usable InfiniBand port wins.
 * Returns 0 with *idx set; -ENODEV (no device, no such device, port or
 * GUID) or the first candidate's ping_report_port_usable error, with err
 * set. */
int ping_report_pick_port(const struct ping_port_desc *ports, size_t n, const char *dev,
			  unsigned port, uint64_t guid, size_t *idx, char *err, size_t errlen);

#endif
