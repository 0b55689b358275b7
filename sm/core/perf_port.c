/*
 * sm/core/perf_port.c - a port's counters: 64-bit totals from saturating
 * PMA counters, growth per interval, the health verdict.  Pure: no I/O,
 * no clock, no logging; perfmgr.c drives it.
 */
#include <inttypes.h>
#include <string.h>

#include "mad/text.h"
#include "routing/fabric.h"
#include "sm/core/perf_port.h"

/* PortCounters counters that PortCountersExtended replaces, in its order. */
static const enum pma_ctr perf_ext_ctr[4] = {PMA_XMIT_DATA, PMA_RCV_DATA, PMA_XMIT_PKTS,
					     PMA_RCV_PKTS};

static int perf_ext_index(enum pma_ctr c)
{
	for (int i = 0; i < 4; i++)
		if (perf_ext_ctr[i] == c)
			return i;
	return -1;
}

static uint64_t perf_growth(uint64_t now, uint64_t last)
{
	return now >= last ? now - last : now; /* below the last: cleared meanwhile */
}

static void perf_ext_values(const struct pma_counters_ext *e, uint64_t v[4])
{
	v[0] = e->xmit_data;
	v[1] = e->rcv_data;
	v[2] = e->xmit_pkts;
	v[3] = e->rcv_pkts;
}

void perf_port_account(struct perf_port *p, const struct pma_counters *pc,
		       const struct pma_counters_ext *ext, uint64_t now_ms)
{
	uint64_t ev[4] = {0};

	if (ext)
		perf_ext_values(ext, ev);
	for (unsigned i = 0; i < PMA_N_CTR; i++) {
		int x = ext ? perf_ext_index(i) : -1;
		uint64_t d;

		if (x >= 0)
			d = p->have && p->ext ? perf_growth(ev[x], p->ext_raw[x]) : 0;
		else
			d = p->have ? perf_growth(pc->v[i], p->raw[i]) : 0;
		if (!p->have)
			p->total[i] = x >= 0 ? ev[x] : pc->v[i];
		p->total[i] += d;
		p->delta[i] = d;
		p->raw[i] = (uint32_t)pc->v[i];
	}
	memcpy(p->ext_raw, ev, sizeof(ev));
	p->ext = ext != NULL;
	p->have = 1;
	p->reads++;
	p->prev_ms = p->read_ms;
	p->read_ms = now_ms;
}

int perf_port_needs_clear(const struct perf_port *p)
{
	for (unsigned i = 0; i < PMA_N_CTR; i++) {
		if (p->ext && perf_ext_index(i) >= 0)
			continue; /* saturates harmlessly: the extended one is used */
		if (p->raw[i] >= 1ull << (pma_ctr_bits(i) - 1))
			return 1;
	}
	return 0;
}

void perf_port_cleared(struct perf_port *p)
{
	memset(p->raw, 0, sizeof(p->raw));
	p->clears++;
}

uint64_t perf_port_errors(const struct perf_port *p)
{
	static const enum pma_ctr errs[] = PERF_ERROR_COUNTERS;
	uint64_t n = 0;

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		n += p->delta[errs[i]];
	return n;
}

uint64_t perf_port_flaps(const struct perf_port *p)
{
	return p->delta[PMA_LINK_DOWNED] + p->delta[PMA_LINK_ERROR_RECOVERY];
}

enum perf_health perf_port_interval(const struct perf_port *p, const struct perf_thresholds *th)
{
	uint64_t errors = perf_port_errors(p);

	if (th->failing && errors >= th->failing)
		return PERF_FAILING;
	if (th->flapping && perf_port_flaps(p) >= th->flapping)
		return PERF_FLAPPING;
	if (th->degrading && errors >= th->degrading)
		return PERF_DEGRADING;
	return PERF_OK;
}

int perf_port_judge(struct perf_port *p, const struct perf_thresholds *th)
{
	enum perf_health now = perf_port_interval(p, th), was = p->health;

	if (now != PERF_OK) {
		p->clean = 0;
		if (now > p->health)
			p->health = (uint8_t)now;
	} else if (p->health != PERF_OK) {
		if (p->clean < 255)
			p->clean++;
		if (p->clean >= th->recover)
			p->health = PERF_OK;
	}
	return p->health != was;
}

const char *perf_health_name(enum perf_health h)
{
	static const char *const names[] = {"ok", "degrading", "flapping", "failing"};

	return (unsigned)h < 4 ? names[h] : "?";
}

static int perf_key_cmp(uint64_t ga, uint8_t pa, uint64_t gb, uint8_t pb)
{
	if (ga != gb)
		return ga < gb ? -1 : 1;
	return pa < pb ? -1 : pa > pb;
}

struct perf_port *perf_table_find(const struct perf_table *t, uint64_t guid, uint8_t port)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = perf_key_cmp(t->p[mid].guid, t->p[mid].port, guid, port);

		if (c == 0)
			return &t->p[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int perf_is_traffic(enum pma_ctr c)
{
	return c == PMA_XMIT_DATA || c == PMA_RCV_DATA || c == PMA_XMIT_PKTS || c == PMA_RCV_PKTS ||
	       c == PMA_XMIT_WAIT;
}

size_t perf_port_rises(const struct perf_port *p, char *buf, size_t len)
{
	struct text_sink o = {buf, buf ? len : 0, 0};
	uint64_t ms = p->prev_ms && p->read_ms > p->prev_ms ? p->read_ms - p->prev_ms : 0;
	int any = 0;

	if (o.len)
		buf[0] = '\0';
	for (unsigned i = 0; i < PMA_N_CTR; i++) {
		if (perf_is_traffic(i) || !p->delta[i])
			continue;
		text_sinkf(&o, "%s%s +%" PRIu64, any++ ? ", " : "", pma_ctr_name(i), p->delta[i]);
		if (ms)
			text_sinkf(&o, " (%.1f/s)", (double)p->delta[i] * 1000.0 / (double)ms);
	}
	if (!any)
		text_sinkf(&o, "no errors");
	return o.off;
}

int perf_cable(const struct fabric *f, const struct perf_table *t, size_t i,
	       const struct fabric_node **far, uint8_t *far_port, struct perf_port **far_p)
{
	const struct perf_port *a = &t->p[i], *b;
	int n = fabric_find(f, a->guid);
	const struct fabric_port *fp;

	if (n == FABRIC_NONE || a->port > f->nodes[n].num_ports)
		return -1;
	fp = &f->nodes[n].ports[a->port];
	if (fp->remote_node == FABRIC_NONE)
		return -1;
	*far = &f->nodes[fp->remote_node];
	*far_port = fp->remote_port;
	*far_p = perf_table_find(t, (*far)->guid, fp->remote_port);
	b = *far_p;
	return !b || perf_key_cmp(a->guid, a->port, b->guid, b->port) < 0;
}

enum perf_health perf_cable_health(const struct perf_port *a, const struct perf_port *b)
{
	return b && b->health > a->health ? b->health : a->health;
}
