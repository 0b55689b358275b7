/*
 * verify.c - nanosm-verify's pure half: LID lists, LID owners, the walk of
 * a LID through the LFTs, judging a walk against a probe, and the reports.
 * Takes a const fabric and LFTs; never sends, reads a clock or prints.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "routing/verify.h"
#include "routing/verify_expect.h"

/* ---- LID lists ---------------------------------------------------------- */

void verify_lids_init(struct verify_lids *l)
{
	l->lid = NULL;
	l->n = 0;
	l->cap = 0;
}

void verify_lids_fini(struct verify_lids *l)
{
	free(l->lid);
	verify_lids_init(l);
}

/* Index of the first element >= lid. */
static size_t verify_lids_lower_bound(const struct verify_lids *l, uint16_t lid)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->lid[mid] < lid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int verify_lids_add(struct verify_lids *l, uint16_t lid)
{
	size_t at = verify_lids_lower_bound(l, lid);

	if (at < l->n && l->lid[at] == lid)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		uint16_t *grown = realloc(l->lid, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		l->lid = grown;
		l->cap = cap;
	}
	memmove(&l->lid[at + 1], &l->lid[at], (l->n - at) * sizeof(*l->lid));
	l->lid[at] = lid;
	l->n++;
	return 0;
}

/* One LID at *s (decimal or 0x hex); advances *s past it. */
static int verify_lids_number(const char **s, uint16_t *lid, char *err, size_t errlen)
{
	const char *start = *s;
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*start)) {
		snprintf(err, errlen, "lid list: expected a LID at '%s'", start);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(start, &end, 0);
	if (errno || v < LID_UNICAST_MIN || v > LID_UNICAST_MAX) {
		snprintf(err, errlen, "lid list: '%.*s' is not a unicast LID (1..0xBFFF)",
			 (int)(end - start), start);
		return -EINVAL;
	}
	*lid = (uint16_t)v;
	*s = end;
	return 0;
}

static int verify_lids_range(struct verify_lids *l, uint16_t lo, uint16_t hi)
{
	for (uint32_t lid = lo; lid <= hi; lid++) {
		int rc = verify_lids_add(l, (uint16_t)lid);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One item "a" or "a-b" at *s. */
static int verify_lids_item(const char **s, struct verify_lids *l, char *err, size_t errlen)
{
	uint16_t lo, hi;
	int rc = verify_lids_number(s, &lo, err, errlen);

	if (rc < 0)
		return rc;
	hi = lo;
	if (**s == '-') {
		(*s)++;
		rc = verify_lids_number(s, &hi, err, errlen);
		if (rc < 0)
			return rc;
		if (hi < lo) {
			snprintf(err, errlen, "lid list: range %u-%u runs backwards", lo, hi);
			return -EINVAL;
		}
	}
	return verify_lids_range(l, lo, hi);
}

int verify_lids_parse(const char *text, struct verify_lids *l, char *err, size_t errlen)
{
	const char *s = text;

	if (!*s) {
		snprintf(err, errlen, "lid list: empty");
		return -EINVAL;
	}
	for (;;) {
		int rc = verify_lids_item(&s, l, err, errlen);

		if (rc < 0)
			return rc;
		if (!*s)
			return 0;
		if (*s != ',') {
			snprintf(err, errlen, "lid list: unexpected '%c' at '%s'", *s, s);
			return -EINVAL;
		}
		s++;
	}
}

/* ---- LID owners ----------------------------------------------------------- */

static void verify_index_claim(struct verify_index *ix, int node, uint8_t port,
			       const struct fabric_port *p)
{
	uint32_t first = p->lid, last = first + (1u << (p->lmc & 7)) - 1;

	for (uint32_t lid = first; lid <= last && lid <= LID_UNICAST_MAX; lid++) {
		if (ix->owner_node[lid] != FABRIC_NONE) {
			if (!ix->duplicates++)
				ix->first_duplicate = (uint16_t)lid;
			continue;
		}
		ix->owner_node[lid] = node;
		ix->owner_port[lid] = port;
	}
}

int verify_index_init(struct verify_index *ix, const struct fabric *f, const struct lft_set *lfts)
{
	memset(ix, 0, sizeof(*ix));
	ix->f = f;
	ix->lfts = lfts;
	ix->owner_node = malloc((LID_UNICAST_MAX + 1) * sizeof(*ix->owner_node));
	ix->owner_port = calloc(LID_UNICAST_MAX + 1, 1);
	if (!ix->owner_node || !ix->owner_port) {
		verify_index_fini(ix);
		return -ENOMEM;
	}
	for (size_t lid = 0; lid <= LID_UNICAST_MAX; lid++)
		ix->owner_node[lid] = FABRIC_NONE;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 0; p <= n->num_ports; p++) {
			const struct fabric_port *fp = &n->ports[p];

			if (fabric_is_switch(n) != (p == 0) || !fp->lid ||
			    fp->lid > LID_UNICAST_MAX)
				continue;
			if (fabric_is_switch(n) || fp->present)
				verify_index_claim(ix, (int)i, (uint8_t)p, fp);
		}
	}
	return 0;
}

void verify_index_fini(struct verify_index *ix)
{
	free(ix->owner_node);
	free(ix->owner_port);
	ix->owner_node = NULL;
	ix->owner_port = NULL;
}

int verify_owner(const struct verify_index *ix, uint16_t lid, uint8_t *port)
{
	if (lid < LID_UNICAST_MIN || lid > LID_UNICAST_MAX || ix->owner_node[lid] == FABRIC_NONE) {
		*port = 0;
		return FABRIC_NONE;
	}
	*port = ix->owner_port[lid];
	return ix->owner_node[lid];
}

int verify_index_lids(const struct verify_index *ix, struct verify_lids *out)
{
	for (uint32_t lid = LID_UNICAST_MIN; lid <= LID_UNICAST_MAX; lid++) {
		if (ix->owner_node[lid] == FABRIC_NONE)
			continue;
		if (verify_lids_add(out, (uint16_t)lid) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* ---- Walking one LID through the LFTs ------------------------------------ */

static int verify_owns(const struct verify_index *ix, int node, uint8_t port, uint16_t lid)
{
	uint8_t owner_port;

	return verify_owner(ix, lid, &owner_port) == node && owner_port == port;
}

static void verify_stop(struct verify_path *p, enum verify_fault fault, int node, uint8_t port)
{
	p->fault = fault;
	p->fault_node = node;
	p->fault_port = port;
}

/* Cross the link out of `port` of `node`; both ends must be ACTIVE.
 * Returns 0, or -1 with the fault recorded. */
static int verify_cross(const struct verify_index *ix, struct verify_path *p, int node,
			uint8_t port)
{
	const struct fabric_port *out = &ix->f->nodes[node].ports[port];
	const struct fabric_port *in;

	if (out->remote_node == FABRIC_NONE) {
		verify_stop(p, VERIFY_UNCABLED, node, port);
		return -1;
	}
	if (out->state != PORT_STATE_ACTIVE) {
		verify_stop(p, VERIFY_PORT_DOWN, node, port);
		return -1;
	}
	in = &ix->f->nodes[out->remote_node].ports[out->remote_port];
	if (in->state != PORT_STATE_ACTIVE) {
		verify_stop(p, VERIFY_PORT_DOWN, out->remote_node, out->remote_port);
		return -1;
	}
	if (p->n_hops == VERIFY_MAX_HOPS) {
		verify_stop(p, VERIFY_LOOP, node, port);
		return -1;
	}
	p->hop[p->n_hops].node = out->remote_node;
	p->hop[p->n_hops].in_port = out->remote_port;
	p->hop[p->n_hops].out_port = port;
	p->n_hops++;
	return 0;
}

static int verify_seen_before(const struct verify_path *p, int node)
{
	int count = p->src_node == node;

	for (unsigned i = 0; i < p->n_hops; i++)
		count += p->hop[i].node == node;
	return count > 1;
}

/* One switch's forwarding decision for p->dlid.  Returns 1 when the walk
 * ends here (delivered or faulted), 0 when it crossed to the next node. */
static int verify_switch_step(const struct verify_index *ix, struct verify_path *p, int node)
{
	const struct fabric_node *n = &ix->f->nodes[node];
	const struct lft *t = ix->lfts ? lft_set_find_const(ix->lfts, node) : NULL;
	uint8_t out;

	if (verify_seen_before(p, node)) {
		verify_stop(p, VERIFY_LOOP, node, 0);
		return 1;
	}
	if (!t || !t->port) {
		verify_stop(p, VERIFY_NO_LFT, node, 0);
		return 1;
	}
	out = p->dlid <= t->top ? t->port[p->dlid] : LFT_DROP;
	if (out == LFT_DROP) {
		verify_stop(p, VERIFY_NO_ENTRY, node, out);
		return 1;
	}
	if (out == 0) {
		verify_stop(p, verify_owns(ix, node, 0, p->dlid) ? VERIFY_OK : VERIFY_WRONG_PORT0,
			    node, 0);
		return 1;
	}
	if (out > n->num_ports) {
		verify_stop(p, VERIFY_BAD_PORT, node, out);
		return 1;
	}
	return verify_cross(ix, p, node, out) < 0;
}

/* Arrived at a CA/router port: delivered, or the wrong port. */
static void verify_endpoint_step(const struct verify_index *ix, struct verify_path *p, int node,
				 uint8_t port)
{
	if (verify_owns(ix, node, port, p->dlid))
		verify_stop(p, VERIFY_OK, node, port);
	else
		verify_stop(p, VERIFY_MISDELIVERED, node, port);
}

void verify_walk(const struct verify_index *ix, int src_node, uint8_t src_port, uint16_t dlid,
		 struct verify_path *p)
{
	uint8_t owner_port;
	int node = src_node;

	memset(p, 0, sizeof(*p));
	p->src_node = src_node;
	p->src_port = src_port;
	p->dlid = dlid;
	p->fault_node = FABRIC_NONE;
	if (verify_owner(ix, dlid, &owner_port) == FABRIC_NONE) {
		verify_stop(p, VERIFY_NO_OWNER, FABRIC_NONE, 0);
		return;
	}
	if (!fabric_is_switch(&ix->f->nodes[node])) {
		if (verify_owns(ix, node, src_port, dlid)) {
			verify_stop(p, VERIFY_OK, node, src_port);
			return;
		}
		if (verify_cross(ix, p, node, src_port) < 0)
			return;
		node = p->hop[0].node;
	}
	for (;;) {
		if (!fabric_is_switch(&ix->f->nodes[node])) {
			verify_endpoint_step(ix, p, node, p->hop[p->n_hops - 1].in_port);
			return;
		}
		if (verify_switch_step(ix, p, node))
			return;
		node = p->hop[p->n_hops - 1].node;
	}
}

const char *verify_fault_kind(enum verify_fault f)
{
	switch (f) {
	case VERIFY_OK:
		return "ok";
	case VERIFY_NO_OWNER:
		return "no owner";
	case VERIFY_NO_LFT:
		return "unknown route";
	case VERIFY_NO_ENTRY:
	case VERIFY_BAD_PORT:
	case VERIFY_UNCABLED:
		return "black hole";
	case VERIFY_PORT_DOWN:
		return "down port";
	case VERIFY_WRONG_PORT0:
	case VERIFY_MISDELIVERED:
		return "misdelivery";
	case VERIFY_LOOP:
		return "forwarding loop";
	}
	return "?";
}

/* ---- Judging a destination ------------------------------------------------ */

void verify_plan(const struct verify_index *ix, int src_node, uint8_t src_port, uint16_t src_lid,
		 uint16_t dlid, struct verify_result *r)
{
	memset(r, 0, sizeof(*r));
	r->dlid = dlid;
	r->owner_node = verify_owner(ix, dlid, &r->owner_port);
	verify_walk(ix, src_node, src_port, dlid, &r->fwd);
	if (r->fwd.fault != VERIFY_OK)
		return;
	/* the answer leaves from the port the request reached */
	verify_walk(ix, r->owner_node, r->owner_port, src_lid, &r->ret);
	r->ret_walked = 1;
}

/* The GUID a port reports as PortGUID in NodeInfo. */
static uint64_t verify_port_guid(const struct fabric *f, int node, uint8_t port)
{
	const struct fabric_node *n = &f->nodes[node];

	if (fabric_is_switch(n))
		return n->ports[0].guid ? n->ports[0].guid : n->guid;
	return n->ports[port].guid;
}

void verify_judge(const struct verify_index *ix, struct verify_result *r)
{
	const struct verify_probe *pr = &r->probe;
	int reached = pr->status == VERIFY_PROBE_ANSWERED || pr->status == VERIFY_PROBE_REFUSED;

	r->walk_ok = r->fwd.fault == VERIFY_OK && r->ret_walked && r->ret.fault == VERIFY_OK;
	r->matches = pr->status == VERIFY_PROBE_ANSWERED && r->owner_node != FABRIC_NONE &&
		     pr->node_guid == ix->f->nodes[r->owner_node].guid &&
		     pr->port_guid == verify_port_guid(ix->f, r->owner_node, r->owner_port);
	if (pr->status == VERIFY_PROBE_NOT_SENT || pr->status == VERIFY_PROBE_ERROR)
		r->agree = 1; /* nothing to compare with */
	else
		r->agree = r->walk_ok == reached;
	r->ok = r->walk_ok && r->matches;
}

/* ---- Reports: names ------------------------------------------------------- */

static const char *verify_type_name(const struct fabric_node *n)
{
	switch (n->type) {
	case NODE_TYPE_CA:
		return "ca";
	case NODE_TYPE_SWITCH:
		return "switch";
	case NODE_TYPE_ROUTER:
		return "router";
	}
	return "???";
}

/* The port whose LID describes (node, port): port 0 on a switch. */
static const struct fabric_port *verify_lid_port(const struct fabric *f, int node, uint8_t port)
{
	const struct fabric_node *n = &f->nodes[node];

	return &n->ports[fabric_is_switch(n) ? 0 : port];
}

/* "lid 4-4" as ibtracert prints a port's LID range. */
static void verify_put_lid_range(struct text_buf *b, const struct fabric_port *p)
{
	text_buf_printf(b, "lid %u-%u", p->lid, p->lid + (1u << (p->lmc & 7)) - 1);
}

/* switch "sw1" {0x..} lid 4   /   ca "host1" {0x..} port 1 lid 1 */
static void verify_put_node(struct text_buf *b, const struct fabric *f, int node, uint8_t port)
{
	const struct fabric_node *n = &f->nodes[node];

	text_buf_printf(b, "%s \"%s\" {0x%016" PRIx64 "}", verify_type_name(n), n->desc, n->guid);
	if (!fabric_is_switch(n))
		text_buf_printf(b, " port %u", port);
	text_buf_printf(b, " lid %u", verify_lid_port(f, node, port)->lid);
}

/* ---- Reports: ibtracert-style trace --------------------------------------- */

static void verify_trace_end(struct text_buf *b, const struct fabric *f, const char *prompt,
			     int node, uint8_t port, const char *indent)
{
	const struct fabric_node *n = &f->nodes[node];
	uint8_t shown = fabric_is_switch(n) ? 0 : port;

	text_buf_printf(b, "%s%s %s {0x%016" PRIx64 "} portnum %u ", indent, prompt,
			verify_type_name(n), n->guid, shown);
	verify_put_lid_range(b, verify_lid_port(f, node, port));
	text_buf_printf(b, " \"%s\"\n", n->desc);
}

static void verify_trace_hop(struct text_buf *b, const struct fabric *f, const struct verify_hop *h,
			     const char *indent)
{
	const struct fabric_node *n = &f->nodes[h->node];
	uint64_t guid =
	    fabric_is_switch(n) ? verify_port_guid(f, h->node, 0) : n->ports[h->in_port].guid;

	text_buf_printf(b, "%s[%u] -> %s port {0x%016" PRIx64 "}[%u] ", indent, h->out_port,
			verify_type_name(n), guid, h->in_port);
	verify_put_lid_range(b, verify_lid_port(f, h->node, h->in_port));
	text_buf_printf(b, " \"%s\"\n", n->desc);
}

void verify_format_trace(struct text_buf *b, const struct verify_index *ix,
			 const struct verify_path *p, const char *indent)
{
	const struct fabric *f = ix->f;
	int last = p->src_node;
	uint8_t last_port = p->src_port;

	verify_trace_end(b, f, "From", p->src_node, p->src_port, indent);
	for (unsigned i = 0; i < p->n_hops; i++) {
		verify_trace_hop(b, f, &p->hop[i], indent);
		last = p->hop[i].node;
		last_port = p->hop[i].in_port;
	}
	if (p->fault == VERIFY_OK) {
		verify_trace_end(b, f, "To", last, last_port, indent);
		return;
	}
	text_buf_printf(b, "%sstop: ", indent);
	verify_format_fault(b, ix, p);
	text_buf_printf(b, "\n");
}

/* ---- Reports: faults ------------------------------------------------------- */

static void verify_fault_lft(struct text_buf *b, const struct verify_index *ix,
			     const struct verify_path *p)
{
	const struct fabric_node *n = &ix->f->nodes[p->fault_node];
	const struct lft *t = ix->lfts ? lft_set_find_const(ix->lfts, p->fault_node) : NULL;

	switch (p->fault) {
	case VERIFY_NO_LFT:
		text_buf_printf(b, ": its LFT could not be read");
		break;
	case VERIFY_NO_ENTRY:
		if (t && p->dlid > t->top)
			text_buf_printf(b, ": lid %u is above its LinearFDBTop %u", p->dlid,
					t->top);
		else
			text_buf_printf(b, ": no LFT entry for lid %u (port 255)", p->dlid);
		break;
	case VERIFY_BAD_PORT:
		text_buf_printf(b, ": LFT entry for lid %u is port %u, beyond its %u ports",
				p->dlid, p->fault_port, n->num_ports);
		break;
	case VERIFY_UNCABLED:
		text_buf_printf(b, ": LFT entry for lid %u is port %u, which has no link", p->dlid,
				p->fault_port);
		break;
	case VERIFY_WRONG_PORT0:
		text_buf_printf(b, ": LFT entry for lid %u is port 0, but the switch is lid %u",
				p->dlid, n->ports[0].lid);
		break;
	case VERIFY_LOOP:
		text_buf_printf(b, ": lid %u comes back to it", p->dlid);
		break;
	default:
		break;
	}
}

void verify_format_fault(struct text_buf *b, const struct verify_index *ix,
			 const struct verify_path *p)
{
	const struct fabric_port *fp;

	if (p->fault == VERIFY_OK) {
		text_buf_printf(b, "ok");
		return;
	}
	if (p->fault == VERIFY_NO_OWNER || p->fault_node == FABRIC_NONE) {
		text_buf_printf(b, "no port has lid %u", p->dlid);
		return;
	}
	text_buf_printf(b, "%s at ", verify_fault_kind(p->fault));
	verify_put_node(b, ix->f, p->fault_node, p->fault_port);
	if (p->fault == VERIFY_PORT_DOWN) {
		fp = &ix->f->nodes[p->fault_node].ports[p->fault_port];
		text_buf_printf(b, ": port %u is %s, not ACTIVE", p->fault_port,
				smp_port_state_name(fp->state));
	} else if (p->fault == VERIFY_MISDELIVERED) {
		text_buf_printf(b, ": it does not own lid %u", p->dlid);
	} else {
		verify_fault_lft(b, ix, p);
	}
}

/* ---- Reports: text ------------------------------------------------------- */

void verify_format_header(struct text_buf *b, const struct verify_index *ix,
			  const struct verify_source *src, size_t n_dest)
{
	size_t switches = fabric_count_switches(ix->f), read = 0;

	for (size_t i = 0; ix->lfts && i < ix->lfts->n; i++)
		read += ix->lfts->tables[i].port != NULL;
	text_buf_printf(b, "# nanosm-verify from ");
	verify_put_node(b, ix->f, src->node, src->port);
	text_buf_printf(b,
			" (answers to lid %u): %zu destination%s; fabric from %s, "
			"LFTs of %zu/%zu switches read by directed route\n",
			src->lid, n_dest, n_dest == 1 ? "" : "s", src->fabric_from, read, switches);
	if (ix->duplicates)
		text_buf_printf(b,
				"# warning: %zu LIDs claimed by more than one port (first: "
				"lid %u)\n",
				ix->duplicates, ix->first_duplicate);
}

static void verify_put_probe(struct text_buf *b, const struct verify_index *ix,
			     const struct verify_result *r)
{
	const struct verify_probe *pr = &r->probe;

	switch (pr->status) {
	case VERIFY_PROBE_NOT_SENT:
		text_buf_printf(b, "probe: not sent");
		break;
	case VERIFY_PROBE_TIMEOUT:
		text_buf_printf(b, "probe: no answer (timed out)");
		break;
	case VERIFY_PROBE_ERROR:
		text_buf_printf(b, "probe: could not be sent (%s)", strerror(-pr->err));
		break;
	case VERIFY_PROBE_REFUSED:
		text_buf_printf(b, "probe: answered with MAD status 0x%04x", pr->mad_status);
		break;
	case VERIFY_PROBE_ANSWERED:
		text_buf_printf(b,
				"probe: answered by port 0x%016" PRIx64 " (node 0x%016" PRIx64 ")",
				pr->port_guid, pr->node_guid);
		if (!r->matches && r->owner_node != FABRIC_NONE)
			text_buf_printf(b,
					", expected port 0x%016" PRIx64 " (node 0x%016" PRIx64 ")",
					verify_port_guid(ix->f, r->owner_node, r->owner_port),
					ix->f->nodes[r->owner_node].guid);
		break;
	}
}

static void verify_put_reasons(struct text_buf *b, const struct verify_index *ix,
			       const struct verify_result *r)
{
	if (r->fwd.fault != VERIFY_OK) {
		text_buf_printf(b, "forward path: ");
		verify_format_fault(b, ix, &r->fwd);
		text_buf_printf(b, "; ");
	} else if (r->ret_walked && r->ret.fault != VERIFY_OK) {
		text_buf_printf(b, "return path: ");
		verify_format_fault(b, ix, &r->ret);
		text_buf_printf(b, "; ");
	}
	verify_put_probe(b, ix, r);
	if (!r->agree)
		text_buf_printf(b, "; LFT walk and probe DISAGREE (%s)",
				r->walk_ok ? "the LFTs route it, yet no answer came back"
					   : "an answer came back although the LFTs do not "
					     "route it: tables changed while verifying?");
}

void verify_format_result(struct text_buf *b, const struct verify_index *ix,
			  const struct verify_result *r)
{
	text_buf_printf(b, "%-6s lid %u -> ", r->ok ? "ok" : "FAILED", r->dlid);
	if (r->owner_node == FABRIC_NONE)
		text_buf_printf(b, "nobody");
	else
		text_buf_printf(b, "%s \"%s\" port %u",
				verify_type_name(&ix->f->nodes[r->owner_node]),
				ix->f->nodes[r->owner_node].desc, r->owner_port);
	if (r->ok)
		text_buf_printf(b, ": %u hop%s, answered by port 0x%016" PRIx64 "\n", r->fwd.n_hops,
				r->fwd.n_hops == 1 ? "" : "s", r->probe.port_guid);
	else {
		text_buf_printf(b, ": ");
		verify_put_reasons(b, ix, r);
		text_buf_printf(b, "\n");
	}
	verify_format_trace(b, ix, &r->fwd, "    ");
	if (r->ret_walked && r->ret.fault != VERIFY_OK) {
		text_buf_printf(b, "    return path:\n");
		verify_format_trace(b, ix, &r->ret, "    ");
	}
}

void verify_format_summary(struct text_buf *b, const struct verify_result *r, size_t n)
{
	size_t ok = 0;

	for (size_t i = 0; i < n; i++)
		ok += r[i].ok != 0;
	text_buf_printf(b, "%zu paths ok, %zu failed\n", ok, n - ok);
}

/* ---- Reports: JSON ---------------------------------------------------------- */

static void verify_json_strn(struct text_buf *b, const char *s, size_t len)
{
	text_buf_printf(b, "\"");
	for (size_t i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			text_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			text_buf_printf(b, "\\u%04x", c);
		else
			text_buf_printf(b, "%c", c);
	}
	text_buf_printf(b, "\"");
}

void verify_json_string(struct text_buf *b, const char *s)
{
	verify_json_strn(b, s, strlen(s));
}

/* The text of a buffer as one JSON string, or as an array of its lines. */
static void verify_json_text(struct text_buf *b, const struct text_buf *text, int lines)
{
	const char *s = text->s ? text->s : "";

	if (!lines) {
		verify_json_string(b, s);
		return;
	}
	text_buf_printf(b, "[");
	for (int first = 1; *s; first = 0) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		text_buf_printf(b, "%s", first ? "" : ",");
		verify_json_strn(b, s, len);
		s += len + (nl != NULL);
	}
	text_buf_printf(b, "]");
}

static void verify_json_node(struct text_buf *b, const struct fabric *f, int node, uint8_t port)
{
	const struct fabric_node *n = &f->nodes[node];

	text_buf_printf(b, "{\"type\":\"%s\",\"name\":", verify_type_name(n));
	verify_json_string(b, n->desc);
	text_buf_printf(b,
			",\"node_guid\":\"0x%016" PRIx64 "\",\"port_guid\":\"0x%016" PRIx64
			"\",\"port\":%u,\"lid\":%u}",
			n->guid, verify_port_guid(f, node, port), port,
			verify_lid_port(f, node, port)->lid);
}

static void verify_json_path(struct text_buf *b, const struct verify_index *ix,
			     const struct verify_path *p)
{
	struct text_buf text;

	text_buf_printf(b, "{\"result\":\"%s\",\"hops\":%u,\"fault\":", verify_fault_kind(p->fault),
			p->n_hops);
	text_buf_init(&text);
	if (p->fault == VERIFY_OK) {
		text_buf_printf(b, "null");
	} else {
		text_buf_printf(b, "{\"at\":");
		if (p->fault_node == FABRIC_NONE)
			text_buf_printf(b, "null");
		else
			verify_json_node(
			    b, ix->f, p->fault_node,
			    fabric_is_switch(&ix->f->nodes[p->fault_node]) ? 0 : p->fault_port);
		text_buf_printf(b, ",\"port\":%u,\"detail\":", p->fault_port);
		verify_format_fault(&text, ix, p);
		verify_json_text(b, &text, 0);
		text_buf_printf(b, "}");
	}
	text_buf_printf(b, ",\"trace\":");
	text.len = 0;
	verify_format_trace(&text, ix, p, "");
	verify_json_text(b, &text, 1);
	text_buf_printf(b, "}");
	b->failed |= text.failed;
	text_buf_fini(&text);
}

static const char *verify_probe_name(enum verify_probe_status s)
{
	static const char *const names[] = {"not sent", "answered", "timeout", "refused", "error"};

	return s <= VERIFY_PROBE_ERROR ? names[s] : "?";
}

static void verify_json_probe(struct text_buf *b, const struct verify_probe *pr)
{
	text_buf_printf(b, "{\"result\":\"%s\"", verify_probe_name(pr->status));
	if (pr->status == VERIFY_PROBE_ANSWERED)
		text_buf_printf(b,
				",\"node_guid\":\"0x%016" PRIx64 "\",\"port_guid\":\"0x%016" PRIx64
				"\",\"port\":%u",
				pr->node_guid, pr->port_guid, pr->local_port);
	if (pr->status == VERIFY_PROBE_REFUSED)
		text_buf_printf(b, ",\"mad_status\":%u", pr->mad_status);
	text_buf_printf(b, "}");
}

static void verify_json_result(struct text_buf *b, const struct verify_index *ix,
			       const struct verify_result *r)
{
	struct text_buf why;

	text_buf_printf(b, "{\"lid\":%u,\"ok\":%s,\"owner\":", r->dlid, r->ok ? "true" : "false");
	if (r->owner_node == FABRIC_NONE)
		text_buf_printf(b, "null");
	else
		verify_json_node(b, ix->f, r->owner_node, r->owner_port);
	text_buf_printf(b, ",\"hops\":%u,\"path\":", r->fwd.n_hops);
	verify_json_path(b, ix, &r->fwd);
	text_buf_printf(b, ",\"return_path\":");
	if (r->ret_walked)
		verify_json_path(b, ix, &r->ret);
	else
		text_buf_printf(b, "null");
	text_buf_printf(b, ",\"probe\":");
	verify_json_probe(b, &r->probe);
	text_buf_printf(b, ",\"responder_matches\":%s,\"walk_and_probe_agree\":%s,\"reason\":",
			r->matches ? "true" : "false", r->agree ? "true" : "false");
	text_buf_init(&why);
	if (r->ok)
		text_buf_printf(b, "null");
	else {
		verify_put_reasons(&why, ix, r);
		verify_json_text(b, &why, 0);
	}
	b->failed |= why.failed;
	text_buf_fini(&why);
	text_buf_printf(b, "}");
}

void verify_format_json(struct text_buf *b, const struct verify_index *ix,
			const struct verify_source *src, const struct verify_result *r, size_t n)
{
	size_t ok = 0;

	text_buf_printf(b, "{\"source\":");
	verify_json_node(b, ix->f, src->node, src->port);
	text_buf_printf(b, ",\"source_lid\":%u,\"fabric_from\":", src->lid);
	verify_json_string(b, src->fabric_from);
	text_buf_printf(b, ",\"destinations\":[");
	for (size_t i = 0; i < n; i++) {
		text_buf_printf(b, "%s\n", i ? "," : "");
		verify_json_result(b, ix, &r[i]);
		ok += r[i].ok != 0;
	}
	text_buf_printf(b, "],\n\"expected\":");
	verify_expect_format_json(b, src->expect, src->expect_from ? src->expect_from : "");
	text_buf_printf(b, ",\n\"ok\":%zu,\"failed\":%zu}\n", ok, n - ok);
}
