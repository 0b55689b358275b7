/*
 * tools/ping/ping_report.c - owns nanosm-ping's statistics, verdict and summary lines
 * and the local-port diagnosis.  Pure: returns text, prints nothing, never
 * asks a device anything (the caller passes what the device said).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "tools/ping/ping_report.h"

/* A bounded string being appended to. */
struct ping_report_out {
	char *buf;
	size_t cap, len;
	int overflow;
};

__attribute__((format(printf, 2, 3))) static void ping_report_add(struct ping_report_out *o,
								  const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->len) {
		o->overflow = 1;
		return;
	}
	o->len += (size_t)n;
}

static int ping_report_end(const struct ping_report_out *o)
{
	return o->overflow ? -ENOSPC : (int)o->len;
}

static void ping_report_start(struct ping_report_out *o, char *buf, size_t cap)
{
	o->buf = buf;
	o->cap = cap;
	o->len = 0;
	o->overflow = cap == 0;
	if (cap)
		buf[0] = '\0';
}

/* ---- Statistics ---------------------------------------------------------- */

static int ping_report_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int ping_report_stats(uint64_t *samples, size_t n, struct ping_stats *st)
{
	size_t rank99;

	memset(st, 0, sizeof(*st));
	if (n == 0)
		return -EINVAL;
	qsort(samples, n, sizeof(*samples), ping_report_cmp);
	rank99 = (99 * n + 99) / 100; /* ceil(0.99 n), 1-based */
	st->n = n;
	st->min = samples[0];
	st->max = samples[n - 1];
	st->p99 = samples[rank99 - 1];
	if (n % 2)
		st->median = samples[n / 2];
	else
		st->median = samples[n / 2 - 1] + (samples[n / 2] - samples[n / 2 - 1]) / 2;
	return 0;
}

double ping_report_gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 / (double)ns : 0.0;
}

const char *ping_report_duration(unsigned ms, char *buf, size_t cap)
{
	unsigned frac = ms % 1000;

	if (!frac)
		snprintf(buf, cap, "%us", ms / 1000);
	else if (frac % 100 == 0)
		snprintf(buf, cap, "%u.%us", ms / 1000, frac / 100);
	else if (frac % 10 == 0)
		snprintf(buf, cap, "%u.%02us", ms / 1000, frac / 10);
	else
		snprintf(buf, cap, "%u.%03us", ms / 1000, frac);
	return buf;
}

/* ---- Verdict lines ------------------------------------------------------- */

static void ping_report_who(struct ping_report_out *o, const struct ping_result *r)
{
	if (!r->lid) {
		ping_report_add(o, "%s", r->name);
		return;
	}
	ping_report_add(o, "lid %u", r->lid);
	if (r->name[0] || r->loopback)
		ping_report_add(o, " (%s%s%s)", r->name, r->name[0] && r->loopback ? ", " : "",
				r->loopback ? "loopback" : "");
}

static void ping_report_us(struct ping_report_out *o, uint64_t ns)
{
	/* one decimal, rounded half up, without floating point */
	uint64_t tenths = (ns + 50) / 100;

	ping_report_add(o, "%llu.%llu", (unsigned long long)(tenths / 10),
			(unsigned long long)(tenths % 10));
}

static void ping_report_rtt(struct ping_report_out *o, const struct ping_stats *st)
{
	ping_report_add(o, "rtt min ");
	ping_report_us(o, st->min);
	ping_report_add(o, " median ");
	ping_report_us(o, st->median);
	ping_report_add(o, " p99 ");
	ping_report_us(o, st->p99);
	ping_report_add(o, " us");
}

static void ping_report_bw(struct ping_report_out *o, const struct ping_result *r)
{
	double gbps = ping_report_gbps(r->bw_bytes, r->bw_ns);

	if (gbps >= 1.0)
		ping_report_add(o, "bw %.1f Gb/s", gbps);
	else
		ping_report_add(o, "bw %.1f Mb/s", gbps * 1000.0);
	if (r->bw_sent && r->bw_rx < r->bw_sent)
		ping_report_add(o, " (%llu of %llu messages arrived)", (unsigned long long)r->bw_rx,
				(unsigned long long)r->bw_sent);
}

int ping_report_format(const struct ping_result *r, char *buf, size_t cap)
{
	struct ping_report_out o;
	static const char *const word[] = {"RUNNING", "OK", "FAIL", "SKIP"};

	ping_report_start(&o, buf, cap);
	ping_report_add(&o, "%s ", word[r->verdict <= PING_VERDICT_SKIPPED ? r->verdict : 0]);
	ping_report_who(&o, r);
	ping_report_add(&o, ": ");
	if (r->verdict != PING_VERDICT_OK) {
		ping_report_add(&o, "%s", r->reason[0] ? r->reason : "(no reason recorded)");
		if (r->rtt.n)
			ping_report_add(&o, "; ");
	}
	if (r->rtt.n)
		ping_report_rtt(&o, &r->rtt);
	if (r->have_bw) {
		ping_report_add(&o, r->rtt.n ? ", " : "; ");
		ping_report_bw(&o, r);
	}
	return ping_report_end(&o);
}

int ping_report_lid_missing(uint16_t lid, const char *hosts_file, const struct ping_result *res,
			    size_t n, char *buf, size_t cap)
{
	struct ping_report_out o;
	int first = 1;

	ping_report_start(&o, buf, cap);
	ping_report_add(&o, "FAIL lid %u: no server listed in %s reports this LID", lid,
			hosts_file);
	for (size_t i = 0; i < n; i++) {
		if (res[i].verdict != PING_VERDICT_FAIL || res[i].lid)
			continue;
		ping_report_add(&o, "%s%s", first ? " (could not ask " : ", ", res[i].name);
		first = 0;
	}
	if (!first)
		ping_report_add(&o, ")");
	return ping_report_end(&o);
}

int ping_report_summary(const struct ping_result *res, size_t n, size_t missing, char *buf,
			size_t cap)
{
	struct ping_report_out o;
	size_t ok = 0, fail = missing;

	for (size_t i = 0; i < n; i++) {
		ok += res[i].verdict == PING_VERDICT_OK;
		fail += res[i].verdict == PING_VERDICT_FAIL;
	}
	ping_report_start(&o, buf, cap);
	ping_report_add(&o, "%zu path%s: %zu OK, %zu FAIL", ok + fail, ok + fail == 1 ? "" : "s",
			ok, fail);
	return ping_report_end(&o);
}

/* ---- Local port ---------------------------------------------------------- */

const char *ping_report_port_state_name(enum ping_port_state s)
{
	switch (s) {
	case PING_PORT_NOP:
		return "NOP";
	case PING_PORT_DOWN:
		return "DOWN";
	case PING_PORT_INIT:
		return "INIT";
	case PING_PORT_ARMED:
		return "ARMED";
	case PING_PORT_ACTIVE:
		return "ACTIVE";
	case PING_PORT_ACTIVE_DEFER:
		return "ACTIVE_DEFER";
	}
	return "UNKNOWN";
}

static int ping_report_state_problem(const struct ping_port_desc *p, char *err, size_t errlen)
{
	const char *st = ping_report_port_state_name(p->state);

	switch (p->state) {
	case PING_PORT_ACTIVE:
	case PING_PORT_ACTIVE_DEFER:
		return 0;
	case PING_PORT_DOWN:
		return text_err(
		    err, errlen, -ENETDOWN,
		    "port %u of %s is DOWN: no link (is the cable plugged in? see ibstat)", p->port,
		    p->dev);
	case PING_PORT_INIT:
		return text_err(err, errlen, -ENETDOWN,
				"port %u of %s is INIT: is a subnet manager running? (run nanosm)",
				p->port, p->dev);
	case PING_PORT_ARMED:
		return text_err(err, errlen, -ENETDOWN,
				"port %u of %s is ARMED: the subnet manager has not activated it "
				"yet (is nanosm still sweeping?)",
				p->port, p->dev);
	default:
		return text_err(err, errlen, -ENETDOWN,
				"port %u of %s is in state %s (%d), not ACTIVE", p->port, p->dev,
				st, (int)p->state);
	}
}

int ping_report_port_usable(const struct ping_port_desc *p, char *err, size_t errlen)
{
	if (p->link == PING_LINK_ETHERNET)
		return text_err(err, errlen, -EPROTONOSUPPORT,
				"port %u of %s is Ethernet (RoCE): nanosm-ping tests InfiniBand "
				"ports (choose one with -d/-p or -g)",
				p->port, p->dev);
	if (ping_report_state_problem(p, err, errlen) < 0)
		return -ENETDOWN;
	if (p->lid == 0)
		return text_err(
		    err, errlen, -EADDRNOTAVAIL,
		    "port %u of %s has LID 0: no subnet manager has assigned it a LID (run nanosm)",
		    p->port, p->dev);
	return 0;
}

static int ping_report_matches(const struct ping_port_desc *p, const char *dev, unsigned port,
			       uint64_t guid)
{
	return (!dev || !dev[0] || strcmp(p->dev, dev) == 0) && (!port || p->port == port) &&
	       (!guid || p->guid == guid);
}

/* "mlx5_0, mlx5_1": each device once, in list order. */
static void ping_report_dev_list(const struct ping_port_desc *ports, size_t n, char *buf,
				 size_t cap)
{
	struct ping_report_out o;

	ping_report_start(&o, buf, cap);
	for (size_t i = 0; i < n; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(ports[j].dev, ports[i].dev) == 0;
		if (!seen)
			ping_report_add(&o, "%s%s", o.len ? ", " : "", ports[i].dev);
	}
}

static int ping_report_matches_any_dev(const struct ping_port_desc *ports, size_t n,
				       const char *dev)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ports[i].dev, dev) == 0)
			return 1;
	return 0;
}

static int ping_report_no_match(const struct ping_port_desc *ports, size_t n, const char *dev,
				unsigned port, uint64_t guid, char *err, size_t errlen)
{
	char have[160];
	int dev_given = dev && dev[0];

	ping_report_dev_list(ports, n, have, sizeof(have));
	if (guid)
		return text_err(err, errlen, -ENODEV,
				"no RDMA port has GUID 0x%016llx (devices: %s)",
				(unsigned long long)guid, have);
	if (dev_given && !ping_report_matches_any_dev(ports, n, dev))
		return text_err(err, errlen, -ENODEV, "RDMA device %s not found (found: %s)", dev,
				have);
	if (dev_given)
		return text_err(err, errlen, -ENODEV, "%s has no port %u", dev, port);
	return text_err(err, errlen, -ENODEV, "no RDMA device has a port %u (found: %s)", port,
			have);
}

int ping_report_pick_port(const struct ping_port_desc *ports, size_t n, const char *dev,
			  unsigned port, uint64_t guid, size_t *idx, char *err, size_t errlen)
{
	size_t first = n, first_ib = n;

	if (n == 0)
		return text_err(err, errlen, -ENODEV,
				"no RDMA device found: is the HCA driver loaded?");
	for (size_t i = 0; i < n; i++) {
		if (!ping_report_matches(&ports[i], dev, port, guid))
			continue;
		if (ping_report_port_usable(&ports[i], NULL, 0) == 0) {
			*idx = i;
			return 0;
		}
		if (first == n)
			first = i;
		if (first_ib == n && ports[i].link != PING_LINK_ETHERNET)
			first_ib = i;
	}
	if (first == n)
		return ping_report_no_match(ports, n, dev, port, guid, err, errlen);
	return ping_report_port_usable(&ports[first_ib < n ? first_ib : first], err, errlen);
}
