/*
 * sm/daemon/control_cmds.c - the control socket's commands: status, sweep,
 * reload, plan, topology, lfts, lids, routes, sls and metrics, each reading the
 * daemon through struct control_ops and writing its reply's body.  Which
 * words each takes was checked before (control_proto.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/lft_file.h"
#include "routing/verify.h"
#include "sm/core/quarantine.h"
#include "sm/daemon/control_priv.h"

/* ---- status ------------------------------------------------------------- */

struct control_counts {
	size_t switches, cas, ports, lids;
};

/* The figures a sweep reports, counted on the model (as the SM counts). */
static void control_count(const struct fabric *f, struct control_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->switches = fabric_count_switches(f);
	c->cas = fabric_count_cas(f);
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = fabric_is_switch(n) ? 0 : 1; p <= n->num_ports; p++) {
			if (!n->ports[p].present)
				continue;
			c->ports++;
			if ((p == 0 || !fabric_is_switch(n)) && n->ports[p].lid)
				c->lids++;
		}
	}
}

static uint64_t control_secs_between(uint64_t from_ms, uint64_t to_ms)
{
	return to_ms > from_ms ? (to_ms - from_ms) / 1000 : 0;
}

static void control_status_sweep(struct text_buf *b, const struct control_status *st)
{
	const struct sm_sweep_stats *l = &st->last;

	if (!l->number) {
		text_buf_printf(b, "last sweep: none yet\n");
	} else {
		text_buf_printf(b, "last sweep: %u %s", l->number, l->status ? "failed" : "ok");
		if (l->status)
			text_buf_printf(b, " (%s)", strerror(-l->status));
		text_buf_printf(b, ", took %" PRIu64 " ms, ended %" PRIu64 " s ago\n", l->sweep_ms,
				control_secs_between(st->last_end_ms, st->now_ms));
	}
	if (st->last_good.number) {
		text_buf_printf(b, "last good sweep: %u, engine %s, vls %u\n", st->last_good.number,
				st->last_good.engine ? st->last_good.engine : "none",
				st->last_good.vls ? st->last_good.vls : 1);
		if (st->last_good.engine_why[0])
			text_buf_printf(b, "routing engine: %s, chosen from %s\n",
					st->last_good.engine ? st->last_good.engine : "none",
					st->last_good.engine_why);
	} else
		text_buf_printf(b, "last good sweep: none yet\n");
}

static void control_status_counts(struct text_buf *b, const struct fabric *f)
{
	struct control_counts c;

	if (!f) {
		text_buf_printf(b, "switches: 0\ncas: 0\nports: 0\nlids: 0\n");
		return;
	}
	control_count(f, &c);
	text_buf_printf(b, "switches: %zu\ncas: %zu\nports: %zu\nlids: %zu\n", c.switches, c.cas,
			c.ports, c.lids);
}

static void control_status_mads(struct text_buf *b, const struct control_status *st)
{
	const struct mad_counters *m = &st->mad;

	text_buf_printf(b,
			"mads: sent=%" PRIu64 " received=%" PRIu64 " timeouts=%" PRIu64
			" retries=%" PRIu64 " unmatched=%" PRIu64 " malformed=%" PRIu64
			" requests=%" PRIu64 " send_errors=%" PRIu64 " rx_dropped=%" PRIu64 "\n",
			m->sent, m->received, m->timeouts, m->retries, m->unmatched, m->malformed,
			m->requests, m->send_errors, st->rx_dropped);
}

static void control_status_sa(struct text_buf *b, const struct control_status *st)
{
	const struct sa_counters *c = &st->sa;

	text_buf_printf(
	    b,
	    "sa: requests=%" PRIu64 " answered=%" PRIu64 " errors=%" PRIu64 " malformed=%" PRIu64
	    " reports=%" PRIu64 " path_queries=%" PRIu64 " path_cache_hits=%" PRIu64
	    " deferred=%" PRIu64 " backlog_dropped=%" PRIu64 " mcast_groups=%zu\n",
	    c->requests, c->answered, c->errors, c->malformed, c->reports, c->path_queries,
	    c->path_cache_hits, c->deferred, c->backlog_dropped, st->mcast_groups);
}

/* The SA's limits: MLIDs, what is held and the quotas, the top holders. */
static void control_status_sa_limits(struct text_buf *b, const struct control_status *st)
{
	const struct sa_usage *u = &st->sa_use;
	const struct sa_counters *c = &st->sa;

	text_buf_printf(
	    b,
	    "sa limits: mlids=%u/%u mlid_refused=%" PRIu64 " quota_refused=%" PRIu64
	    " report_retries=%" PRIu64 " report_deferred=%" PRIu64 " subs_dropped=%" PRIu64
	    " send_dropped=%" PRIu64 " send_failed=%" PRIu64 "\n",
	    u->mlids_used, u->mlid_cap, c->mlid_refused, c->quota_refused, c->report_retries,
	    c->report_deferred, c->subs_dropped, st->tx_dropped, st->tx_failed);
	for (int k = 0; k < SA_QUOTA_KINDS; k++) {
		text_buf_printf(b, "sa %s: held=%zu quota_per_port=%u top:",
				sa_quota_kind_name((enum sa_quota_kind)k), u->held[k], u->limit[k]);
		for (int i = 0; i < SA_USAGE_TOP && u->top[k][i].guid; i++)
			text_buf_printf(b, " 0x%016" PRIx64 "=%" PRIu32, u->top[k][i].guid,
					u->top[k][i].used);
		text_buf_printf(b, "%s\n", u->top[k][0].guid ? "" : " -");
	}
}

/* The last sweep's loose ends: silent nodes kept, retries over other
 * routes, and what is quarantined (one line each). */
static void control_status_faults(struct text_buf *b, const struct control_status *st)
{
	const struct sm_sweep_stats *l = &st->last;
	size_t held = st->quar ? quar_count(st->quar) : 0;
	char path[200];

	if (!l->number)
		return;
	text_buf_printf(b,
			"last sweep faults: unreachable=%zu stale=%zu set_errors=%zu "
			"alt_tries=%zu alt_ok=%zu incomplete_run=%u\n",
			l->unreachable, l->stale, l->set_errors, l->alt_tries, l->alt_ok,
			l->incomplete_run);
	text_buf_printf(b, "quarantined: %zu\n", held);
	for (size_t i = 0; held && i < st->quar->n; i++) {
		const struct quar_entry *e = &st->quar->e[i];

		if (e->misses < QUAR_AFTER)
			continue;
		text_buf_printf(
		    b, "  0x%016" PRIx64 " port %u: %s failed in %u sweeps (%u-%u) via %s\n",
		    e->guid, e->port, smp_attr_name(e->attr), e->misses, e->first, e->last,
		    smp_path_str(e->path, e->hops, path, sizeof(path)));
	}
}

static void control_cmd_status(const struct control_ops *ops, const struct control_request *q,
			       struct control_reply *r)
{
	struct control_status st;
	struct text_buf *b = &r->body;

	(void)q;
	if (!ops->status) {
		control_fail(r, "status is not available");
		return;
	}
	memset(&st, 0, sizeof(st));
	ops->status(ops->ctx, &st);
	text_buf_printf(b, "state: %s\n", st.state ? st.state : "unknown");
	if (st.master_guid)
		text_buf_printf(b, "master: 0x%016" PRIx64 " lid %u\n", st.master_guid,
				st.master_lid);
	text_buf_printf(b, "sweeping: %s\n", st.sweeping ? "yes" : "no");
	text_buf_printf(b, "sm port: 0x%016" PRIx64 " lid %u\n", st.port_guid, st.sm_lid);
	text_buf_printf(b, "uptime: %" PRIu64 " s\n",
			control_secs_between(st.started_ms, st.now_ms));
	control_status_sweep(b, &st);
	text_buf_printf(b, "routing engines: %s\n", st.engines ? st.engines : "-");
	control_status_counts(b, ops->fabric ? ops->fabric(ops->ctx) : NULL);
	control_status_mads(b, &st);
	control_status_sa(b, &st);
	control_status_sa_limits(b, &st);
	text_buf_printf(b,
			"light sweeps: runs=%" PRIu64 " escalations=%" PRIu64 " last_mads=%" PRIu64
			" last_ms=%" PRIu64 " traps_suppressed=%" PRIu64 " traps_coalesced=%" PRIu64
			"\n",
			st.light.runs, st.light.escalations, st.light.last_mads, st.light.last_ms,
			st.light.traps_suppressed, st.light.traps_coalesced);
	control_status_faults(b, &st);
	if (ops->perf) {
		struct control_perf p;

		ops->perf(ops->ctx, &p);
		control_health_summary(b, ops->fabric ? ops->fabric(ops->ctx) : NULL, &p);
	}
}

/* ---- sweep, reload, plan ------------------------------------------------ */

static void control_cmd_sweep(const struct control_ops *ops, const struct control_request *q,
			      struct control_reply *r)
{
	int rc;

	(void)q;
	if (!ops->sweep) {
		control_fail(r, "sweep is not available");
		return;
	}
	rc = ops->sweep(ops->ctx);
	if (rc < 0 && rc != -EBUSY) {
		control_fail(r, "sweep: %s", strerror(-rc));
		return;
	}
	text_buf_printf(&r->body, "sweep requested\n");
}

static void control_cmd_reload(const struct control_ops *ops, const struct control_request *q,
			       struct control_reply *r)
{
	char msg[8192] = ""; /* "reloaded ...", then the members that match no port */
	int force = control_grammar_has_option(q->arg, "--force");

	if (!ops->reload) {
		control_fail(r, "reload is not available");
		return;
	}
	if (ops->reload(ops->ctx, force, msg, sizeof(msg)) < 0) {
		control_fail(r, "reload: %s", msg[0] ? msg : "failed");
		return;
	}
	if (!msg[0])
		snprintf(msg, sizeof(msg), "reloaded");
	text_buf_printf(&r->body, "%s%s", msg, msg[strlen(msg) - 1] == '\n' ? "" : "\n");
}

/* plan NAME LENGTH + the file's bytes: NAME only names it in messages. */
static void control_cmd_plan(const struct control_ops *ops, const struct control_request *q,
			     struct control_reply *r)
{
	char err[1024] = "";
	char *text = NULL;
	int verbose = control_grammar_has_option(q->arg, "-v");
	const char *name = q->arg[0];
	int rc;

	for (int i = 0; q->arg[i]; i++) /* the file's name: the word that is no option */
		if (strcmp(q->arg[i], "-v")) {
			name = q->arg[i];
			break;
		}
	if (!ops->plan) {
		control_fail(r, "plan is not available");
		return;
	}
	rc = ops->plan(ops->ctx, name, q->body, q->body_len, verbose, &text, err, sizeof(err));
	if (rc < 0) {
		control_fail(r, "plan: %s", err[0] ? err : "failed");
		free(text);
		return;
	}
	if (rc == CONTROL_PLAN_REFUSED)
		control_fail(r, "plan: %s would be refused: %s", name,
			     err[0] ? err : "see the plan");
	if (text)
		control_take_text(r, text, strlen(text));
}

/* ---- topology, lfts ----------------------------------------------------- */

/* The model, or NULL with the reply failed. */
const struct fabric *control_fabric(const struct control_ops *ops, struct control_reply *r)
{
	const struct fabric *f = ops->fabric ? ops->fabric(ops->ctx) : NULL;

	if (!f || !f->n_nodes) {
		control_fail(r, "no fabric yet (no sweep has succeeded)");
		return NULL;
	}
	return f;
}

static const struct topo_names *control_names(const struct control_ops *ops)
{
	return ops->names ? ops->names(ops->ctx) : NULL;
}

static void control_cmd_topology(const struct control_ops *ops, const struct control_request *q,
				 struct control_reply *r)
{
	enum topo_format fmt = TOPO_FORMAT_IBNETDISCOVER;
	const struct fabric *f;
	char *text;
	size_t len;

	if (q->arg[0] && topo_format_from_name(q->arg[0], &fmt) < 0) {
		control_fail(
		    r,
		    "unknown topology format '%.64s' (ibnetdiscover, json or dot; nanosmctl "
		    "draws svg and html)",
		    q->arg[0]);
		return;
	}
	f = control_fabric(ops, r);
	if (!f)
		return;
	if (topo_write(f, fmt, control_names(ops), &text, &len) < 0) {
		control_fail(r, "topology: out of memory");
		return;
	}
	if (fmt == TOPO_FORMAT_DOT && ops->perf) { /* cables coloured by health */
		struct control_perf p;

		ops->perf(ops->ctx, &p);
		text = control_health_dot(text, &len, f, &p);
	}
	control_take_text(r, text, len);
}

const struct lft_set *control_lfts(const struct control_ops *ops, struct control_reply *r)
{
	const struct lft_set *s = ops->lfts ? ops->lfts(ops->ctx) : NULL;

	if (!s)
		control_fail(r, "no forwarding tables match the current model "
				"(none yet, or a sweep is replacing them: try again)");
	return s;
}

/* ---- lids --------------------------------------------------------------- */

/* A LID-owning port of the model, by port GUID. */
struct control_port_ref {
	uint64_t guid;
	int node;
};

struct control_lids_walk {
	const struct fabric *f;
	const struct topo_names *names;
	struct control_port_ref *refs;
	size_t n;
	struct text_buf *b;
};

static int control_ref_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct control_port_ref *)a)->guid;
	uint64_t y = ((const struct control_port_ref *)b)->guid;

	return x < y ? -1 : x > y;
}

/* Switch port 0 and every CA/router port, sorted by port GUID. */
static struct control_port_ref *control_port_refs(const struct fabric *f, size_t *n)
{
	struct control_port_ref *refs;
	size_t cap = 0, k = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		cap += fabric_is_switch(&f->nodes[i]) ? 1 : f->nodes[i].num_ports;
	refs = malloc((cap ? cap : 1) * sizeof(*refs));
	if (!refs)
		return NULL;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *nd = &f->nodes[i];

		for (unsigned p = fabric_is_switch(nd) ? 0 : 1;
		     p <= (fabric_is_switch(nd) ? 0u : nd->num_ports); p++)
			refs[k++] = (struct control_port_ref){nd->ports[p].guid, (int)i};
	}
	qsort(refs, k, sizeof(*refs), control_ref_cmp);
	*n = k;
	return refs;
}

/* What a node is called: its mapped name, else its description. */
static const char *control_node_name(const struct fabric *f, const struct topo_names *names,
				     int node)
{
	const char *name = topo_names_find(names, f->nodes[node].guid);

	return name ? name : f->nodes[node].desc;
}

static int control_lids_line(void *ctx, uint64_t guid, uint16_t lid)
{
	struct control_lids_walk *w = ctx;
	struct control_port_ref key = {.guid = guid};
	const struct control_port_ref *hit =
	    w->n ? bsearch(&key, w->refs, w->n, sizeof(*w->refs), control_ref_cmp) : NULL;

	text_buf_printf(w->b, "0x%016" PRIx64 " %u %s\n", guid, lid,
			hit ? control_node_name(w->f, w->names, hit->node) : "(not in fabric)");
	return 0;
}

static void control_cmd_lids(const struct control_ops *ops, const struct control_request *q,
			     struct control_reply *r)
{
	const struct lid_alloc *a = ops->lids ? ops->lids(ops->ctx) : NULL;
	const struct fabric *f = ops->fabric ? ops->fabric(ops->ctx) : NULL;
	struct control_lids_walk w = {.f = f, .names = control_names(ops), .b = &r->body};
	struct fabric empty;

	(void)q;
	if (!a) {
		control_fail(r, "lids are not available");
		return;
	}
	if (!f) {
		fabric_init(&empty);
		w.f = &empty;
	}
	w.refs = control_port_refs(w.f, &w.n);
	if (!w.refs) {
		control_fail(r, "lids: out of memory");
		return;
	}
	lid_alloc_foreach(a, control_lids_line, &w);
	free(w.refs);
}

/* ---- routes ------------------------------------------------------------- */

/* One end of a route: a node, the port the route starts or ends at, and
 * the LID that stands for it. */
struct control_end {
	int node;
	uint8_t port;
	uint16_t lid;
};

/* "0x" and its hex digits: 1 with the digit count, 0 if not that shape. */
static int control_hex_word(const char *s, size_t *digits)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2])
		return 0;
	*digits = strspn(s + 2, "0123456789abcdefABCDEF");
	return s[2 + *digits] == '\0';
}

/* A switch's port 0; a CA's lowest present port that has a LID. */
static int control_end_of_node(const struct fabric *f, int node, struct control_end *e)
{
	const struct fabric_node *n = &f->nodes[node];

	e->node = node;
	if (fabric_is_switch(n)) {
		e->port = 0;
		e->lid = n->ports[0].lid;
		return e->lid ? 0 : -1;
	}
	for (unsigned p = 1; p <= n->num_ports; p++) {
		if (n->ports[p].present && n->ports[p].lid) {
			e->port = (uint8_t)p;
			e->lid = n->ports[p].lid;
			return 0;
		}
	}
	return -1;
}

static int control_end_by_lid(const struct verify_index *ix, const char *word, unsigned long lid,
			      struct control_end *e, struct control_reply *r)
{
	if (lid < LID_UNICAST_MIN || lid > LID_UNICAST_MAX) {
		control_fail(r, "'%s': not a unicast LID (1-49151)", word);
		return -1;
	}
	e->node = verify_owner(ix, (uint16_t)lid, &e->port);
	e->lid = (uint16_t)lid;
	if (e->node == FABRIC_NONE) {
		control_fail(r, "no port has lid %lu", lid);
		return -1;
	}
	return 0;
}

/* The present CA/router port with this port GUID. */
static int control_find_port_guid(const struct fabric *f, uint64_t guid, struct control_end *e)
{
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 1; p <= n->num_ports && !fabric_is_switch(n); p++) {
			if (n->ports[p].guid != guid || !n->ports[p].present)
				continue;
			e->node = (int)i;
			e->port = (uint8_t)p;
			e->lid = n->ports[p].lid;
			return 0;
		}
	}
	return -1;
}

/* A node GUID, else a CA/router port GUID. */
static int control_end_by_guid(const struct fabric *f, const char *word, uint64_t guid,
			       struct control_end *e, struct control_reply *r)
{
	int node = fabric_find(f, guid);

	if (node != FABRIC_NONE) {
		if (control_end_of_node(f, node, e) == 0)
			return 0;
		control_fail(r, "node %s has no port with a LID", word);
		return -1;
	}
	if (control_find_port_guid(f, guid, e) < 0) {
		control_fail(r, "no node or port has GUID %s", word);
		return -1;
	}
	if (!e->lid) {
		control_fail(r, "port %s has no LID", word);
		return -1;
	}
	return 0;
}

static int control_end_by_name(const struct fabric *f, const struct topo_names *names,
			       const char *word, struct control_end *e, struct control_reply *r)
{
	int node = FABRIC_NONE;
	size_t matches = 0;

	for (size_t i = 0; i < f->n_nodes; i++) {
		if (strcmp(control_node_name(f, names, (int)i), word) &&
		    strcmp(f->nodes[i].desc, word))
			continue;
		if (!matches++)
			node = (int)i;
	}
	if (!matches)
		control_fail(r, "no node named '%s'", word);
	else if (matches > 1)
		control_fail(r, "'%s' names %zu nodes: give a GUID or a LID", word, matches);
	else if (control_end_of_node(f, node, e) < 0)
		control_fail(r, "'%s' has no port with a LID", word);
	else
		return 0;
	return -1;
}

/* A LID (decimal, or 0x and at most 4 hex digits), a GUID (0x and more
 * digits) or a node name. */
static int control_resolve(const struct verify_index *ix, const struct topo_names *names,
			   const char *word, struct control_end *e, struct control_reply *r)
{
	size_t digits = 0;
	unsigned long lid;

	if (word[0] && strspn(word, "0123456789") == strlen(word)) {
		errno = 0;
		lid = strtoul(word, NULL, 10);
		return control_end_by_lid(ix, word, errno ? ULONG_MAX : lid, e, r);
	}
	if (control_hex_word(word, &digits) && digits <= 4)
		return control_end_by_lid(ix, word, strtoul(word, NULL, 16), e, r);
	if (control_hex_word(word, &digits) && digits <= 16)
		return control_end_by_guid(ix->f, word, strtoull(word, NULL, 16), e, r);
	return control_end_by_name(ix->f, names, word, e, r);
}

static void control_route(const struct verify_index *ix, const struct topo_names *names,
			  char *const *args, struct control_reply *r)
{
	struct control_end src, dst;
	struct verify_path *path;

	if (control_resolve(ix, names, args[0], &src, r) < 0 ||
	    control_resolve(ix, names, args[1], &dst, r) < 0)
		return;
	path = malloc(sizeof(*path));
	if (!path) {
		control_fail(r, "routes: out of memory");
		return;
	}
	verify_walk(ix, src.node, src.port, dst.lid, path);
	verify_format_trace(&r->body, ix, path, "");
	if (path->fault != VERIFY_OK) {
		struct text_buf why;

		text_buf_init(&why);
		verify_format_fault(&why, ix, path);
		control_fail(r, "no route from %s to lid %u: %s", args[0], dst.lid,
			     why.s ? why.s : "?");
		text_buf_fini(&why);
	}
	free(path);
}

static void control_cmd_routes(const struct control_ops *ops, const struct control_request *q,
			       struct control_reply *r)
{
	const struct fabric *f = control_fabric(ops, r);
	const struct lft_set *s = f ? control_lfts(ops, r) : NULL;
	struct verify_index ix;

	if (!s)
		return;
	if (verify_index_init(&ix, f, s) < 0) {
		control_fail(r, "routes: out of memory");
		return;
	}
	control_route(&ix, control_names(ops), q->arg, r);
	verify_index_fini(&ix);
}

/* ---- sls ---------------------------------------------------------------- */

/* Every LID some port of f owns (a switch's port 0, each CA port, with
 * their LMC ranges), ascending; malloc'ed, NULL on no memory. */
static uint16_t *control_sls_lids(const struct fabric *f, int ca_only, size_t *n)
{
	uint8_t *owned = calloc(LID_UNICAST_MAX + 1, 1);
	uint16_t *lids = NULL;
	size_t k = 0;

	if (!owned)
		return NULL;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *nd = &f->nodes[i];
		int sw = fabric_is_switch(nd);

		for (unsigned p = sw ? 0 : 1; p <= (sw ? 0u : nd->num_ports) && !(sw && ca_only);
		     p++) {
			const struct fabric_port *pt = &nd->ports[p];
			unsigned count = ca_only ? 1 : fabric_port_lid_count(pt);

			for (unsigned j = 0; pt->present && pt->lid && j < count; j++)
				if (pt->lid + j <= LID_UNICAST_MAX)
					owned[pt->lid + j] = 1;
		}
	}
	for (unsigned l = LID_UNICAST_MIN; l <= LID_UNICAST_MAX; l++)
		k += owned[l];
	lids = malloc((k ? k : 1) * sizeof(*lids));
	*n = 0;
	for (unsigned l = LID_UNICAST_MIN; lids && l <= LID_UNICAST_MAX; l++)
		if (owned[l])
			lids[(*n)++] = (uint16_t)l;
	free(owned);
	return lids;
}

/* "SLID DLID SL" for slid to every LID of dlids but itself (with an SL
 * per path: the SL of the paths entering at the switch of slid's owner). */
static void control_sls_from(struct text_buf *b, const struct verify_index *ix, uint16_t slid,
			     const uint16_t *dlids, size_t n)
{
	uint8_t port;
	int node = verify_owner(ix, slid, &port);
	size_t row = lft_set_sl_row(ix->lfts, fabric_entry_switch(ix->f, node, port));

	for (size_t i = 0; i < n; i++)
		if (dlids[i] != slid)
			text_buf_printf(b, "%u %u %u\n", slid, dlids[i],
					lft_set_sl_at(ix->lfts, row, dlids[i]));
}

/* Every CA port LID to every LID, when the answer stays within
 * CONTROL_SLS_MAX_LINES. */
static void control_sls_all(const struct verify_index *ix, const uint16_t *dlids, size_t n,
			    struct control_reply *r)
{
	size_t n_src;
	uint16_t *srcs = control_sls_lids(ix->f, 1, &n_src);

	if (!srcs) {
		control_fail(r, "sls: out of memory");
		return;
	}
	if (n_src && n > CONTROL_SLS_MAX_LINES / n_src)
		control_fail(
		    r,
		    "sls: %zu CA ports x %zu LIDs is more than %u lines: ask one source at "
		    "a time (sls SRC; nanosmctl sls SRC for each CA port LID)",
		    n_src, n, CONTROL_SLS_MAX_LINES);
	for (size_t i = 0; !r->failed && i < n_src; i++)
		control_sls_from(&r->body, ix, srcs[i], dlids, n);
	free(srcs);
}

/* sls [SRC]: the service level of the paths from every CA port LID (or
 * from SRC: a LID, a GUID or a node name, as routes takes) to every LID,
 * decimal, one "SLID DLID SL" line each, in LID order.  With the LFTs
 * (lfts) and the SLtoVL tables this rebuilds the per-VL dependencies. */
static void control_cmd_sls(const struct control_ops *ops, const struct control_request *q,
			    struct control_reply *r)
{
	const struct fabric *f = control_fabric(ops, r);
	const struct lft_set *s = f ? control_lfts(ops, r) : NULL;
	struct verify_index ix;
	struct control_end src;
	uint16_t *dlids;
	size_t n;

	if (!s)
		return;
	dlids = control_sls_lids(f, 0, &n);
	if (!dlids || verify_index_init(&ix, f, s) < 0) {
		control_fail(r, "sls: out of memory");
		free(dlids);
		return;
	}
	if (!q->arg[0])
		control_sls_all(&ix, dlids, n, r);
	else if (control_resolve(&ix, control_names(ops), q->arg[0], &src, r) == 0)
		control_sls_from(&r->body, &ix, src.lid, dlids, n);
	verify_index_fini(&ix);
	free(dlids);
}

/* ---- metrics ------------------------------------------------------------ */

static void control_cmd_metrics(const struct control_ops *ops, const struct control_request *q,
				struct control_reply *r)
{
	struct metrics_figures m;
	size_t len;
	char *text;

	(void)q;
	if (!ops->metrics) {
		control_fail(r, "metrics are not available");
		return;
	}
	memset(&m, 0, sizeof(m));
	ops->metrics(ops->ctx, &m);
	len = metrics_render(&m, NULL, 0);
	text = malloc(len + 1);
	if (!text) {
		control_fail(r, "metrics: out of memory");
		return;
	}
	metrics_render(&m, text, len + 1);
	control_take_text(r, text, len);
}

/* The handlers of control_proto.c's commands. */
static const struct control_cmd control_cmds[] = {
    {"status", control_cmd_status},	{"sweep", control_cmd_sweep},
    {"reload", control_cmd_reload},	{"plan", control_cmd_plan},
    {"topology", control_cmd_topology}, {"lfts", control_cmd_lfts},
    {"lids", control_cmd_lids},		{"routes", control_cmd_routes},
    {"sls", control_cmd_sls},		{"metrics", control_cmd_metrics},
    {"health", control_cmd_health},
};

const struct control_cmd *control_cmd_find(const char *name)
{
	for (size_t i = 0; i < sizeof(control_cmds) / sizeof(control_cmds[0]); i++)
		if (!strcmp(control_cmds[i].name, name))
			return &control_cmds[i];
	return NULL;
}
