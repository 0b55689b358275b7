/*
 * sm/daemon/control_health.c - `health` and the health line of `status`:
 * the cables whose error counters rose, both ends named, with the
 * verdict of the performance manager (sm/core/perfmgr.h).  Reads the
 * port table and the model the daemon hands over; no I/O.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/core/perfmgr.h"
#include "sm/daemon/control_priv.h"

/* "sw1 0x0002c90300b00101/7" */
static void control_health_end(struct text_buf *b, const struct fabric *f, uint64_t guid,
			       uint8_t port)
{
	int n = fabric_find(f, guid);

	text_buf_printf(b, "%s 0x%016" PRIx64 "/%u", n == FABRIC_NONE ? "?" : f->nodes[n].desc,
			guid, port);
}

static void control_health_rises(struct text_buf *b, const struct perf_port *p)
{
	char rises[600];

	perf_port_rises(p, rises, sizeof(rises));
	text_buf_printf(b, ": %s (health %s)\n", rises, perf_health_name(p->health));
}

/* One cable: a heading with the verdict, then each end's counters. */
static void control_health_cable(struct text_buf *b, const struct fabric *f,
				 const struct perf_port *a, const struct fabric_node *bn,
				 uint8_t bport, const struct perf_port *bp)
{
	text_buf_printf(b, "cable ");
	control_health_end(b, f, a->guid, a->port);
	text_buf_printf(b, " <-> ");
	control_health_end(b, f, bn->guid, bport);
	text_buf_printf(b, ": %s\n  ", perf_health_name(perf_cable_health(a, bp)));
	control_health_end(b, f, a->guid, a->port);
	control_health_rises(b, a);
	text_buf_printf(b, "  ");
	control_health_end(b, f, bn->guid, bport);
	if (bp)
		control_health_rises(b, bp);
	else
		text_buf_printf(b, ": not read\n");
}

/* A cable is listed when a verdict is in force at either end or an
 * error counter rose over the last interval. */
static int control_health_listed(const struct perf_port *a, const struct perf_port *b)
{
	return perf_cable_health(a, b) != PERF_OK || perf_port_errors(a) || perf_port_flaps(a) ||
	       (b && (perf_port_errors(b) || perf_port_flaps(b)));
}

void control_health_render(struct text_buf *b, const struct fabric *f, const struct control_perf *p)
{
	size_t listed = 0;

	text_buf_printf(b,
			"monitor: %s, interval %u s, passes %" PRIu64 ", ports %zu; thresholds "
			"per interval: degrading %u errors, failing %u errors, flapping %u "
			"downed/recoveries; recover after %u clean intervals\n",
			p->opts->enabled ? "on" : "off", p->opts->interval_s, p->st->passes,
			p->t->n, p->opts->th.degrading, p->opts->th.failing, p->opts->th.flapping,
			p->opts->th.recover);
	for (size_t i = 0; f && i < p->t->n; i++) {
		const struct fabric_node *bn;
		struct perf_port *bp;
		uint8_t bport;

		if (perf_cable(f, p->t, i, &bn, &bport, &bp) != 1 ||
		    !control_health_listed(&p->t->p[i], bp))
			continue;
		control_health_cable(b, f, &p->t->p[i], bn, bport, bp);
		listed++;
	}
	if (!listed)
		text_buf_printf(b, "no cable errors\n");
}

void control_health_summary(struct text_buf *b, const struct fabric *f,
			    const struct control_perf *p)
{
	size_t n[4] = {0};

	for (size_t i = 0; f && i < p->t->n; i++) {
		const struct fabric_node *bn;
		struct perf_port *bp;
		uint8_t bport;

		if (perf_cable(f, p->t, i, &bn, &bport, &bp) == 1)
			n[perf_cable_health(&p->t->p[i], bp)]++;
	}
	text_buf_printf(b,
			"health: %zu cables ok, %zu degrading, %zu flapping, %zu failing (monitor "
			"%s, %" PRIu64 " passes, last took %" PRIu64 " ms)\n",
			n[PERF_OK], n[PERF_DEGRADING], n[PERF_FLAPPING], n[PERF_FAILING],
			p->opts->enabled ? "on" : "off", p->st->passes, p->st->last_pass_ms);
}

void control_cmd_health(const struct control_ops *ops, const struct control_request *q,
			struct control_reply *r)
{
	struct control_perf p;

	(void)q;
	if (!ops->perf) {
		control_fail(r, "health is not available");
		return;
	}
	ops->perf(ops->ctx, &p);
	control_health_render(&r->body, ops->fabric ? ops->fabric(ops->ctx) : NULL, &p);
}

/* ---- the topology picture ---- */

static const char *const control_health_colour[] = {NULL, "orange", "purple", "red"};

/* In the DOT text, the edge line of the cable a (port ap) <-> b (port bp)
 * as routing/topo_write.c prints it, from either end: the offset of its
 * "]", or 0 when it is not there. */
static size_t control_health_edge(const char *dot, uint64_t a, unsigned ap, uint64_t b, unsigned bp)
{
	char want[160];
	const char *at;

	snprintf(want, sizeof(want),
		 "\"0x%016" PRIx64 "\" -- \"0x%016" PRIx64 "\" [taillabel=\"%u\", "
		 "headlabel=\"%u\"]",
		 a, b, ap, bp);
	at = strstr(dot, want);
	if (!at) {
		snprintf(want, sizeof(want),
			 "\"0x%016" PRIx64 "\" -- \"0x%016" PRIx64 "\" [taillabel=\"%u\", "
			 "headlabel=\"%u\"]",
			 b, a, bp, ap);
		at = strstr(dot, want);
	}
	return at ? (size_t)(at - dot) + strlen(want) - 1 : 0;
}

/* One cable coloured: ", color=..., penwidth=3" before its "]". */
static char *control_health_paint(char *dot, size_t *len, size_t off, enum perf_health h)
{
	char attr[64];
	size_t n = (size_t)snprintf(attr, sizeof(attr), ", color=\"%s\", penwidth=3",
				    control_health_colour[h]);
	char *grown = realloc(dot, *len + n + 1);

	if (!grown)
		return dot; /* left uncoloured */
	memmove(grown + off + n, grown + off, *len - off + 1);
	memcpy(grown + off, attr, n);
	*len += n;
	return grown;
}

char *control_health_dot(char *dot, size_t *len, const struct fabric *f,
			 const struct control_perf *p)
{
	for (size_t i = 0; f && i < p->t->n; i++) {
		const struct fabric_node *bn;
		struct perf_port *bp;
		uint8_t bport;
		enum perf_health h;
		size_t at;

		if (perf_cable(f, p->t, i, &bn, &bport, &bp) != 1)
			continue;
		h = perf_cable_health(&p->t->p[i], bp);
		at = h != PERF_OK ? control_health_edge(dot, p->t->p[i].guid, p->t->p[i].port,
							bn->guid, bport)
				  : 0;
		if (at)
			dot = control_health_paint(dot, len, at, h);
	}
	return dot;
}
