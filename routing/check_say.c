/*
 * routing/check_say.c - the gate's messages: the first failure a run of
 * routing/check.c found (a pair that is not delivered, a VL a cable does
 * not offer, a credit loop) said with GUIDs, descriptions and ports, in
 * the result's first line.  Pure; reads the run's state, changes nothing
 * but the message.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "routing/check_priv.h"

/* ---- Messages ---------------------------------------------------------- */

static int check_append(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Append to buf unless it does not fit; returns 0 or -1 (buf unchanged). */
static int check_append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *len) {
		buf[*len] = '\0';
		return -1;
	}
	*len += (size_t)n;
	return 0;
}

/* "0x<guid> (desc)" for a node; the description only when it has one. */
static void check_name_node(const struct check *c, char *buf, size_t size, int node)
{
	const struct fabric_node *n = &c->f->nodes[node];

	snprintf(buf, size, n->desc[0] ? "0x%016" PRIx64 " (%s)" : "0x%016" PRIx64 "%s", n->guid,
		 n->desc);
}

/* A source port: "0x<port guid>/<port> (desc)"; a switch by its NodeGUID. */
static void check_name_source(const struct check *c, const struct check_source *src)
{
	const struct fabric_node *n = &c->f->nodes[src->node];
	uint64_t guid = src->port && n->ports[src->port].guid ? n->ports[src->port].guid : n->guid;
	size_t len = 0;

	check_append(c->res->first, sizeof(c->res->first), &len,
		     n->desc[0] ? "0x%016" PRIx64 "/%u (%s)" : "0x%016" PRIx64 "/%u%s", guid,
		     src->port, n->desc);
}

static void check_say(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append to res->first (truncated if it must be). */
static void check_say(struct check *c, const char *fmt, ...)
{
	size_t len = strlen(c->res->first);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->res->first + len, sizeof(c->res->first) - len, fmt, ap);
	va_end(ap);
}

/* Which end of node/port's cable is absent or DOWN, and why. */
static void check_say_bad_link(struct check *c, int node, uint8_t port)
{
	const struct fabric_port *p = &c->f->nodes[node].ports[port];
	char name[128];

	if (check_port_usable(c, p) && p->remote_node != FABRIC_NONE) {
		node = p->remote_node;
		port = p->remote_port;
		p = check_far_port(c, p);
	}
	check_name_node(c, name, sizeof(name), node);
	check_say(c, "routed over %s port %u, which is %s", name, port,
		  p->present ? "DOWN" : "not present");
}

/* Delivered over switch port p to a CA/router port that does not own the
 * LID, or owns it too (a duplicate LID). */
static void check_say_wrong_port(struct check *c, const struct check_dest *d,
				 const struct fabric_port *p)
{
	const struct fabric_port *far = check_far_port(c, p);
	uint32_t count = fabric_port_lid_count(far);
	char name[128];

	check_name_node(c, name, sizeof(name), p->remote_node);
	if (d->lid >= far->lid && d->lid < far->lid + count)
		check_say(c, "delivered to %s port %u, which has LID %u too", name, p->remote_port,
			  d->lid);
	else
		check_say(c, "delivered to %s port %u (LID %u), not to LID %u's owner", name,
			  p->remote_port, far->lid, d->lid);
}

static void check_say_hop(struct check *c, const struct check_dest *d, int s, enum check_hop hop)
{
	int node = c->g.sw_node[s];
	const struct fabric_node *n = &c->f->nodes[node];
	char name[128];

	check_name_node(c, name, sizeof(name), node);
	if (hop == CHECK_HOP_NO_TABLE)
		check_say(c, "no LFT for %s", name);
	else if (hop == CHECK_HOP_ABOVE_TOP)
		check_say(c, "above the table top (%u) of %s", c->tab[s]->top, name);
	else if (hop == CHECK_HOP_DROP)
		check_say(c, "dropped at %s", name);
	else if (hop == CHECK_HOP_BEYOND)
		check_say(c, "%s sends it to port %u of %u", name, c->out[s], n->num_ports);
	else if (hop == CHECK_HOP_PORT0)
		check_say(c, "delivered to port 0 of %s, which does not own it", name);
	else if (hop == CHECK_HOP_UNLINKED)
		check_say(c, "%s port %u is not cabled", name, c->out[s]);
	else if (hop == CHECK_HOP_BAD_PORT)
		check_say_bad_link(c, node, c->out[s]);
	else if (hop == CHECK_HOP_WRONG_PORT)
		check_say_wrong_port(c, d, &n->ports[c->out[s]]);
}

/* Walk the first offending pair again, hop by hop, and say what is wrong. */
void check_explain_pair(struct check *c)
{
	const struct check_source *src = &c->srcs[c->first_rank];
	const struct check_dest *d = &c->dests[c->first_dest];
	int s = src->sw, next;
	char name[128];

	check_name_source(c, src);
	check_say(c, " -> LID %u: ", d->lid);
	if (src->injection_bad) {
		check_say_bad_link(c, src->node, src->port);
		return;
	}
	memset(c->state, 0, c->g.n_sw);
	for (;;) {
		enum check_hop hop = check_hop(c, d, s, &c->out[s], &next);

		c->state[s] = 1;
		if (hop != CHECK_HOP_NEXT) {
			check_say_hop(c, d, s, hop);
			return;
		}
		if (c->state[next]) {
			check_name_node(c, name, sizeof(name), c->g.sw_node[s]);
			check_say(c, "loop at %s port %u", name, c->out[s]);
			return;
		}
		s = next;
	}
}

/* The port where a VL is missing: switch s's out port p, or (p 0) the
 * first CA/router cable into s without VL v; then whichever end of that
 * cable lacks it. */
static const struct fabric_port *check_vl_port(const struct check *c, int s, uint8_t p, unsigned v,
					       int *node, uint8_t *port)
{
	const struct fabric_port *fp = NULL;

	*node = c->g.sw_node[s];
	*port = p;
	if (p)
		fp = &c->f->nodes[*node].ports[p];
	for (size_t i = 0; !p && i < c->n_srcs && !fp; i++) {
		const struct check_source *src = &c->srcs[i];
		const struct fabric_port *cp = &c->f->nodes[src->node].ports[src->port];

		if (src->sw == s && src->port && !src->injection_bad && c->g.sw_of[src->node] < 0 &&
		    check_cable_vls(c, cp) <= v) {
			fp = cp;
			*node = src->node;
			*port = src->port;
		}
	}
	if (fp && fabric_port_data_vls(fp) > v) {
		*node = fp->remote_node;
		*port = fp->remote_port;
		fp = check_far_port(c, fp);
	}
	return fp;
}

/* "LID 7 on SL 3: 0x.. (sw2) port 5 offers VL0-1 (VLCap 2), not VL3" */
void check_explain_vl(struct check *c)
{
	const struct check_dest *d = &c->dests[c->vl_dest];
	unsigned v = c->vl_sl, n;
	const struct fabric_port *p;
	char name[128];
	uint8_t port;
	int node;

	check_say(c, "LID %u on SL %u: ", d->lid, v);
	if (c->vl_sw < 0) {
		check_say(c, v == CHECK_DATA_VLS
				 ? "SL 15 maps to VL15, which carries management only"
				 : "no such SL (0-15)");
		return;
	}
	p = check_vl_port(c, c->vl_sw, c->vl_port, v, &node, &port);
	if (!p)
		return;
	n = fabric_port_data_vls(p);
	check_name_node(c, name, sizeof(name), node);
	check_say(c, n > 1 ? "%s port %u offers VL0-%u" : "%s port %u offers VL%u only", name, port,
		  n - 1);
	if (p->vl_cap)
		check_say(c, " (VLCap %u), not VL%u", p->vl_cap, v);
	else
		check_say(c, " (VLCap not known: %u assumed), not VL%u", FABRIC_VLS_UNKNOWN, v);
}

/* "credit loop: 0x.. (sw1)/7 -> 0x.. (sw2)/7 -> ... -> back" */
void check_explain_cycle(struct check *c)
{
	char *buf = c->res->first, name[128];
	size_t len = 0, size = sizeof(c->res->first) - CHECK_CYCLE_TAIL, i;

	if (c->with_sl)
		check_append(buf, size, &len, "credit loop on VL %u: ", c->res->credit_loop_vl);
	else
		check_append(buf, size, &len, "credit loop: ");
	for (i = 0; i < c->cycle_len; i++) {
		size_t ch = c->dstack[c->cycle_at + i];

		check_name_node(c, name, sizeof(name), c->g.sw_node[c->chan_sw[ch]]);
		if (check_append(buf, size, &len, "%s/%u -> ", name, c->chan_port[ch]))
			break;
	}
	size = sizeof(c->res->first);
	if (i < c->cycle_len)
		check_append(buf, size, &len, "... (%zu channels) -> ", c->cycle_len);
	check_append(buf, size, &len, "back");
}
