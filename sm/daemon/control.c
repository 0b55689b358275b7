/*
 * sm/daemon/control.c - the control socket: listen, accept one client, read its
 * request line (bounded), answer through struct control_ops, close.  Owns
 * the socket file and the protocol text; it never includes the SM's
 * internals or the event loop (the daemon calls control_serve).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "routing/lft_file.h"
#include "routing/verify.h"
#include "sm/core/log.h"
#include "sm/core/quarantine.h"
#include "sm/daemon/control.h"
#include "sm/daemon/control_proto.h"

#define CONTROL_DRAIN_MAX 65536

/* The reply being built: a first-line message (error only) and a body,
 * either printed into body or, for whole texts a producer malloc'ed, owned
 * in text (no copy). */
struct control_reply {
	int failed;
	char msg[512];
	struct verify_buf body;
	char *text;
	size_t text_len;
};

/* One request: its line split into words; arg the words after the command
 * (options where the client put them, a body's length word dropped),
 * NULL-terminated; the body a BODY command carries (borrowed). */
struct control_request {
	char buf[CONTROL_REQUEST_MAX];
	char *word[CONTROL_MAX_WORDS];
	int n;
	char *arg[CONTROL_MAX_WORDS];
	const char *body;
	size_t body_len;
};

/* The handler of a command of sm/daemon/control_proto.c's table. */
struct control_cmd {
	const char *name;
	void (*run)(const struct control_ops *ops, const struct control_request *q,
		    struct control_reply *r);
};

__attribute__((format(printf, 2, 3))) static void control_fail(struct control_reply *r,
							       const char *fmt, ...)
{
	va_list ap;

	if (r->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	for (char *c = r->msg; *c; c++) /* the message is one line */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	r->failed = 1;
}

/* Take over a malloc'ed text as the body. */
static void control_take_text(struct control_reply *r, char *text, size_t len)
{
	free(r->text);
	r->text = text;
	r->text_len = len;
}

static void control_reply_fini(struct control_reply *r)
{
	verify_buf_fini(&r->body);
	free(r->text);
	r->text = NULL;
}

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

static void control_status_sweep(struct verify_buf *b, const struct control_status *st)
{
	const struct sm_sweep_stats *l = &st->last;

	if (!l->number) {
		verify_buf_printf(b, "last sweep: none yet\n");
	} else {
		verify_buf_printf(b, "last sweep: %u %s", l->number, l->status ? "failed" : "ok");
		if (l->status)
			verify_buf_printf(b, " (%s)", strerror(-l->status));
		verify_buf_printf(b, ", took %" PRIu64 " ms, ended %" PRIu64 " s ago\n",
				  l->sweep_ms, control_secs_between(st->last_end_ms, st->now_ms));
	}
	if (st->last_good.number)
		verify_buf_printf(b, "last good sweep: %u, engine %s\n", st->last_good.number,
				  st->last_good.engine ? st->last_good.engine : "none");
	else
		verify_buf_printf(b, "last good sweep: none yet\n");
}

static void control_status_counts(struct verify_buf *b, const struct fabric *f)
{
	struct control_counts c;

	if (!f) {
		verify_buf_printf(b, "switches: 0\ncas: 0\nports: 0\nlids: 0\n");
		return;
	}
	control_count(f, &c);
	verify_buf_printf(b, "switches: %zu\ncas: %zu\nports: %zu\nlids: %zu\n", c.switches, c.cas,
			  c.ports, c.lids);
}

static void control_status_mads(struct verify_buf *b, const struct control_status *st)
{
	const struct mad_counters *m = &st->mad;

	verify_buf_printf(b,
			  "mads: sent=%" PRIu64 " received=%" PRIu64 " timeouts=%" PRIu64
			  " retries=%" PRIu64 " unmatched=%" PRIu64 " malformed=%" PRIu64
			  " requests=%" PRIu64 " send_errors=%" PRIu64 " rx_dropped=%" PRIu64 "\n",
			  m->sent, m->received, m->timeouts, m->retries, m->unmatched, m->malformed,
			  m->requests, m->send_errors, st->rx_dropped);
}

static void control_status_sa(struct verify_buf *b, const struct control_status *st)
{
	const struct sa_counters *c = &st->sa;

	verify_buf_printf(
	    b,
	    "sa: requests=%" PRIu64 " answered=%" PRIu64 " errors=%" PRIu64 " malformed=%" PRIu64
	    " reports=%" PRIu64 " path_queries=%" PRIu64 " path_cache_hits=%" PRIu64
	    " deferred=%" PRIu64 " backlog_dropped=%" PRIu64 " mcast_groups=%zu\n",
	    c->requests, c->answered, c->errors, c->malformed, c->reports, c->path_queries,
	    c->path_cache_hits, c->deferred, c->backlog_dropped, st->mcast_groups);
}

/* The last sweep's loose ends: silent nodes kept, retries over other
 * routes, and what is quarantined (one line each). */
static void control_status_faults(struct verify_buf *b, const struct control_status *st)
{
	const struct sm_sweep_stats *l = &st->last;
	size_t held = st->quar ? quar_count(st->quar) : 0;
	char path[200];

	if (!l->number)
		return;
	verify_buf_printf(b,
			  "last sweep faults: unreachable=%zu stale=%zu set_errors=%zu "
			  "alt_tries=%zu alt_ok=%zu incomplete_run=%u\n",
			  l->unreachable, l->stale, l->set_errors, l->alt_tries, l->alt_ok,
			  l->incomplete_run);
	verify_buf_printf(b, "quarantined: %zu\n", held);
	for (size_t i = 0; held && i < st->quar->n; i++) {
		const struct quar_entry *e = &st->quar->e[i];

		if (e->misses < QUAR_AFTER)
			continue;
		verify_buf_printf(
		    b, "  0x%016" PRIx64 " port %u: %s failed in %u sweeps (%u-%u) via %s\n",
		    e->guid, e->port, smp_attr_name(e->attr), e->misses, e->first, e->last,
		    smp_path_str(e->path, e->hops, path, sizeof(path)));
	}
}

static void control_cmd_status(const struct control_ops *ops, const struct control_request *q,
			       struct control_reply *r)
{
	struct control_status st;
	struct verify_buf *b = &r->body;

	(void)q;
	if (!ops->status) {
		control_fail(r, "status is not available");
		return;
	}
	memset(&st, 0, sizeof(st));
	ops->status(ops->ctx, &st);
	verify_buf_printf(b, "state: %s\n", st.state ? st.state : "unknown");
	if (st.master_guid)
		verify_buf_printf(b, "master: 0x%016" PRIx64 " lid %u\n", st.master_guid,
				  st.master_lid);
	verify_buf_printf(b, "sweeping: %s\n", st.sweeping ? "yes" : "no");
	verify_buf_printf(b, "sm port: 0x%016" PRIx64 " lid %u\n", st.port_guid, st.sm_lid);
	verify_buf_printf(b, "uptime: %" PRIu64 " s\n",
			  control_secs_between(st.started_ms, st.now_ms));
	control_status_sweep(b, &st);
	verify_buf_printf(b, "routing engines: %s\n", st.engines ? st.engines : "-");
	control_status_counts(b, ops->fabric ? ops->fabric(ops->ctx) : NULL);
	control_status_mads(b, &st);
	control_status_sa(b, &st);
	verify_buf_printf(b,
			  "light sweeps: runs=%" PRIu64 " escalations=%" PRIu64
			  " last_mads=%" PRIu64 " last_ms=%" PRIu64 " traps_suppressed=%" PRIu64
			  "\n",
			  st.light.runs, st.light.escalations, st.light.last_mads, st.light.last_ms,
			  st.light.traps_suppressed);
	control_status_faults(b, &st);
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
	verify_buf_printf(&r->body, "sweep requested\n");
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
	verify_buf_printf(&r->body, "%s%s", msg, msg[strlen(msg) - 1] == '\n' ? "" : "\n");
}

/* plan NAME LENGTH + the file's bytes: NAME only names it in messages. */
static void control_cmd_plan(const struct control_ops *ops, const struct control_request *q,
			     struct control_reply *r)
{
	char err[1024] = "";
	char *text = NULL;
	int rc;

	if (!ops->plan) {
		control_fail(r, "plan is not available");
		return;
	}
	rc = ops->plan(ops->ctx, q->arg[0], q->body, q->body_len, &text, err, sizeof(err));
	if (rc < 0) {
		control_fail(r, "plan: %s", err[0] ? err : "failed");
		free(text);
		return;
	}
	if (rc == CONTROL_PLAN_REFUSED)
		control_fail(r, "plan: %s would be refused: %s", q->arg[0],
			     err[0] ? err : "see the plan");
	if (text)
		control_take_text(r, text, strlen(text));
}

/* ---- topology, lfts ----------------------------------------------------- */

/* The model, or NULL with the reply failed. */
static const struct fabric *control_fabric(const struct control_ops *ops, struct control_reply *r)
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
		    "makes svg from dot)",
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
	control_take_text(r, text, len);
}

static const struct lft_set *control_lfts(const struct control_ops *ops, struct control_reply *r)
{
	const struct lft_set *s = ops->lfts ? ops->lfts(ops->ctx) : NULL;

	if (!s)
		control_fail(r, "no forwarding tables match the current model "
				"(none yet, or a sweep is replacing them: try again)");
	return s;
}

static void control_cmd_lfts(const struct control_ops *ops, const struct control_request *q,
			     struct control_reply *r)
{
	const struct fabric *f = control_fabric(ops, r);
	const struct lft_set *s = f ? control_lfts(ops, r) : NULL;
	char *text;
	size_t len;
	int rc;

	(void)q;
	if (!s)
		return;
	rc = lft_file_write_dump_fts(f, s, &text, &len);
	if (rc < 0) {
		control_fail(r, "lfts: %s",
			     rc == -ENOMEM ? "out of memory" : "the tables do not match the model");
		return;
	}
	control_take_text(r, text, len);
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
	struct verify_buf *b;
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

	verify_buf_printf(w->b, "0x%016" PRIx64 " %u %s\n", guid, lid,
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
		struct verify_buf why;

		verify_buf_init(&why);
		verify_format_fault(&why, ix, path);
		control_fail(r, "no route from %s to lid %u: %s", args[0], dst.lid,
			     why.s ? why.s : "?");
		verify_buf_fini(&why);
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

/* ---- Requests ----------------------------------------------------------- */

/* The handlers of sm/daemon/control_proto.c's commands (which words each
 * takes is checked there, before a handler runs). */
static const struct control_cmd control_cmds[] = {
    {"status", control_cmd_status},	{"sweep", control_cmd_sweep},
    {"reload", control_cmd_reload},	{"plan", control_cmd_plan},
    {"topology", control_cmd_topology}, {"lfts", control_cmd_lfts},
    {"lids", control_cmd_lids},		{"routes", control_cmd_routes},
    {"metrics", control_cmd_metrics},
};

#define CONTROL_N_CMDS (sizeof(control_cmds) / sizeof(control_cmds[0]))

/* Split the line (len bytes) into words: blanks separate, "..." keeps
 * blanks inside one word.  Returns 0, or -1 with the reply failed. */
static int control_split(const char *line, size_t len, struct control_request *q,
			 struct control_reply *r)
{
	char *p = q->buf;

	if (len >= sizeof(q->buf)) {
		control_fail(r, "request too long (max %d bytes)", CONTROL_REQUEST_MAX - 1);
		return -1;
	}
	memcpy(q->buf, line, len);
	q->buf[len] = '\0';
	for (q->n = 0;; q->n++) {
		int quoted;

		p += strspn(p, " \t");
		if (!*p)
			return 0;
		if (q->n == CONTROL_MAX_WORDS) {
			control_fail(r, "too many words in the request");
			return -1;
		}
		quoted = *p == '"';
		q->word[q->n] = p + quoted;
		p += quoted + strcspn(p + quoted, quoted ? "\"" : " \t\"");
		if (quoted && *p != '"') {
			control_fail(r, "unterminated quote in the request");
			return -1;
		}
		if (!quoted && *p == '"') {
			control_fail(r, "unexpected quote after '%.*s'",
				     (int)(p - q->word[q->n] < 64 ? p - q->word[q->n] : 64),
				     q->word[q->n]);
			return -1;
		}
		if (*p)
			*p++ = '\0';
	}
}

static int control_printable(const char *line, size_t len, struct control_reply *r)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			control_fail(r, "request contains a control character (0x%02x)", c);
			return -1;
		}
	}
	return 0;
}

static const struct control_cmd *control_find(const char *name)
{
	for (size_t i = 0; i < CONTROL_N_CMDS; i++)
		if (!strcmp(control_cmds[i].name, name))
			return &control_cmds[i];
	return NULL;
}

/* Split and check a request line; 0 with q filled (its body not yet), or
 * -1 with the reply failed. */
static int control_parse(const char *line, size_t len, struct control_request *q,
			 struct control_reply *r)
{
	const struct control_grammar *g;
	char err[sizeof(r->msg)];
	int words;

	if (control_printable(line, len, r) < 0 || control_split(line, len, q, r) < 0)
		return -1;
	g = control_grammar_check_wire(q->word, q->n, &q->body_len, err, sizeof(err));
	if (!g) {
		control_fail(r, "%s", err);
		return -1;
	}
	words = q->n - (g->flags & CONTROL_GRAMMAR_BODY ? 1 : 0); /* the length is no argument */
	memset(q->arg, 0, sizeof(q->arg));
	for (int i = 1; i < words; i++)
		q->arg[i - 1] = q->word[i];
	return 0;
}

/* The body length a request line announces; 0 when none (or the line is
 * one control_parse refuses). */
static size_t control_announced_body(const char *line, size_t len)
{
	struct control_request q;
	struct control_reply r;

	memset(&r, 0, sizeof(r));
	return control_parse(line, len, &q, &r) == 0 ? q.body_len : 0;
}

/* Answer the line (len bytes, no newline) and the have bytes of body
 * that came after it. */
static void control_dispatch(const struct control_ops *ops, const char *line, size_t len,
			     const char *body, size_t have, struct control_reply *r)
{
	struct control_request q;
	const struct control_cmd *cmd;

	if (control_parse(line, len, &q, r) < 0)
		return;
	if (have < q.body_len) {
		control_fail(r, "the request's body is shorter than its length (%zu of %zu bytes)",
			     have, q.body_len);
		return;
	}
	q.body = body;
	cmd = control_find(q.word[0]);
	if (!cmd) {
		control_fail(r, "%s is not available", q.word[0]);
		return;
	}
	log_debug("control: %.*s", (int)len, line);
	cmd->run(ops, &q, r);
}

/* The first line: "ok\n" or "error <msg>\n" (a body that could not be
 * built turns the reply into an error). */
static void control_first_line(struct control_reply *r, char *line, size_t size)
{
	if (r->body.failed && !r->text) {
		r->failed = 0;
		control_fail(r, "out of memory building the reply");
		verify_buf_fini(&r->body);
	}
	if (r->failed)
		snprintf(line, size, "error %s\n", r->msg);
	else
		snprintf(line, size, "ok\n");
}

static void control_body(const struct control_reply *r, const char **body, size_t *len)
{
	*body = r->text ? r->text : r->body.s;
	*len = r->text ? r->text_len : r->body.len;
	if (!*body)
		*len = 0;
}

static void control_run(const struct control_ops *ops, const char *line, size_t len,
			const char *body, size_t have, struct control_reply *r)
{
	memset(r, 0, sizeof(*r));
	verify_buf_init(&r->body);
	control_dispatch(ops, line, len, body, have, r);
}

int control_handle(const struct control_ops *ops, const char *request, size_t len, char **reply,
		   size_t *reply_len)
{
	const char *nl = memchr(request, '\n', len);
	size_t line_len = nl ? (size_t)(nl - request) : len;
	struct control_reply r;
	char first[sizeof(r.msg) + 8];
	const char *body;
	size_t first_len, body_len;

	*reply = NULL;
	*reply_len = 0;
	control_run(ops, request, line_len, nl ? nl + 1 : NULL, nl ? len - line_len - 1 : 0, &r);
	control_first_line(&r, first, sizeof(first));
	control_body(&r, &body, &body_len);
	first_len = strlen(first);
	*reply = malloc(first_len + body_len + 1);
	if (*reply) {
		memcpy(*reply, first, first_len);
		if (body_len)
			memcpy(*reply + first_len, body, body_len);
		(*reply)[first_len + body_len] = '\0';
		*reply_len = first_len + body_len;
	}
	control_reply_fini(&r);
	return *reply ? 0 : -ENOMEM;
}

/* ---- The socket file ---------------------------------------------------- */

__attribute__((format(printf, 4, 5))) static int control_err(char *err, size_t errlen, int rc,
							     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* mkdir -p of path's directory; directories it creates get mode 0755. */
static int control_make_parent(const char *path, char *err, size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		char keep = *p;

		if (keep != '/' && keep != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) == 0)
			chmod(dir, 0755); /* whatever the umask */
		else if (errno != EEXIST)
			return control_err(err, errlen, -errno,
					   "control socket %s: cannot create %s: %s", path, dir,
					   strerror(errno));
		*p = keep;
		if (!keep)
			return 0;
	}
}

static int control_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

/* Remove a stale socket file; refuse a live one or anything else. */
static int control_clear_stale(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0
				       : control_err(err, errlen, -errno, "control socket %s: %s",
						     path, strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return control_err(err, errlen, -EEXIST,
				   "control socket %s: the path exists and is not a socket", path);
	if (control_connect(path) == 0)
		return control_err(err, errlen, -EADDRINUSE,
				   "control socket %s: another process answers on it "
				   "(is nanosm already running?)",
				   path);
	if (unlink(path) < 0 && errno != ENOENT)
		return control_err(err, errlen, -errno, "control socket %s: cannot remove it: %s",
				   path, strerror(errno));
	return 0;
}

/* bind, then chmod 0600 before listen: nobody can connect in between. */
static int control_bind(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), rc;
	const char *what = "socket";

	if (fd < 0)
		return control_err(err, errlen, -errno, "control socket %s: socket: %s", path,
				   strerror(errno));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		what = "bind";
	else if (chmod(path, 0600) < 0)
		what = "chmod";
	else if (listen(fd, 16) < 0)
		what = "listen";
	else
		return fd;
	rc = -errno;
	control_err(err, errlen, rc, "control socket %s: %s: %s", path, what, strerror(-rc));
	if (strcmp(what, "bind"))
		unlink(path);
	close(fd);
	return rc;
}

int control_listen(const char *path, char *err, size_t errlen)
{
	int rc;

	if (errlen)
		err[0] = '\0';
	if (!path || !path[0])
		return control_err(err, errlen, -EINVAL, "control socket: empty path");
	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return control_err(err, errlen, -ENAMETOOLONG,
				   "control socket %s: path too long (max %zu bytes)", path,
				   sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
	rc = control_make_parent(path, err, errlen);
	if (!rc)
		rc = control_clear_stale(path, err, errlen);
	if (!rc)
		rc = control_bind(path, err, errlen);
	return rc;
}

void control_close(int lfd, const char *path)
{
	if (lfd < 0)
		return;
	close(lfd);
	if (path)
		unlink(path);
}

/* ---- One client --------------------------------------------------------- */

static uint64_t control_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wait for events on fd until deadline; 1 ready, 0 timed out, -errno. */
static int control_wait(int fd, short events, uint64_t deadline)
{
	for (;;) {
		uint64_t now = control_now_ms();
		struct pollfd pfd = {.fd = fd, .events = events};
		int n;

		if (now >= deadline)
			return 0;
		n = poll(&pfd, 1, (int)(deadline - now));
		if (n > 0)
			return 1;
		if (n == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

enum control_read_result { CONTROL_LINE, CONTROL_GONE, CONTROL_TIMEOUT, CONTROL_TOO_LONG };

/* A request as read from a client: its line (newline and a CR before it
 * cut) and the body the line announces. */
struct control_in {
	char line[CONTROL_REQUEST_MAX + 1];
	size_t line_len; /* bytes of the line, without its newline */
	size_t have;	 /* bytes read into line[] (the body's first ones included) */
	size_t rest;	 /* where the bytes after the newline start in line[] */
	char *body;	 /* malloc'ed, body_len bytes announced, body_have read */
	size_t body_len, body_have;
};

/* Find the line's newline in in->line; 1 if there was one. */
static int control_cut_line(struct control_in *in)
{
	char *nl = memchr(in->line, '\n', in->have);

	if (!nl)
		return 0;
	*nl = '\0';
	in->rest = (size_t)(nl - in->line) + 1;
	in->line_len = (size_t)(nl - in->line);
	if (nl > in->line && nl[-1] == '\r')
		nl[-1] = '\0', in->line_len--;
	return 1;
}

/* Read up to cap bytes more into buf at *have: 1 some came, 0 EOF, or
 * CONTROL_TIMEOUT / CONTROL_GONE (negated) once deadline passed. */
static int control_read_some(int fd, char *buf, size_t *have, size_t cap, uint64_t deadline)
{
	for (;;) {
		ssize_t got = read(fd, buf + *have, cap - *have);
		int w;

		if (got > 0) {
			*have += (size_t)got;
			return 1;
		}
		if (got == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -CONTROL_GONE;
		w = control_wait(fd, POLLIN, deadline);
		if (w <= 0)
			return w == 0 ? -CONTROL_TIMEOUT : -CONTROL_GONE;
	}
}

/* Read one request line into in->line: up to its newline, or EOF after
 * some bytes; until deadline. */
static enum control_read_result control_read_line(int fd, struct control_in *in, uint64_t deadline)
{
	for (;;) {
		int rc = control_read_some(fd, in->line, &in->have, CONTROL_REQUEST_MAX, deadline);

		if (rc < 0)
			return (enum control_read_result) - rc;
		in->line[in->have] = '\0';
		if (rc == 0) {
			in->line_len = in->rest = in->have;
			return in->have ? CONTROL_LINE : CONTROL_GONE;
		}
		if (control_cut_line(in))
			return CONTROL_LINE;
		if (in->have == CONTROL_REQUEST_MAX)
			return CONTROL_TOO_LONG;
	}
}

/* Read the body the line announces (what came with the line first), until
 * EOF, its length or deadline.  A short body is left for
 * control_dispatch to refuse. */
static enum control_read_result control_read_body(int fd, struct control_in *in, uint64_t deadline)
{
	size_t extra = in->have - in->rest;
	int rc = 1;

	in->body_len = control_announced_body(in->line, in->line_len);
	if (!in->body_len)
		return CONTROL_LINE;
	in->body = malloc(in->body_len);
	if (!in->body) {
		log_warnx("NSM-W701 control: out of memory for a %zu-byte request", in->body_len);
		return CONTROL_GONE;
	}
	in->body_have = extra < in->body_len ? extra : in->body_len;
	memcpy(in->body, in->line + in->rest, in->body_have);
	while (rc > 0 && in->body_have < in->body_len)
		rc = control_read_some(fd, in->body, &in->body_have, in->body_len, deadline);
	return rc < 0 ? (enum control_read_result) - rc : CONTROL_LINE;
}

/* Send all of buf: stop after CONTROL_STALL_TIMEOUT_MS without progress or
 * CONTROL_WRITE_TIMEOUT_MS in all.  Returns 0 or -errno. */
static int control_write_all(int fd, const char *buf, size_t len)
{
	uint64_t end = control_now_ms() + CONTROL_WRITE_TIMEOUT_MS;
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, buf + done, len - done, MSG_NOSIGNAL);
		uint64_t stall;
		int w;

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		stall = control_now_ms() + CONTROL_STALL_TIMEOUT_MS;
		w = control_wait(fd, POLLOUT, stall < end ? stall : end);
		if (w <= 0)
			return w < 0 ? w : -ETIMEDOUT;
	}
	return 0;
}

/* Discard what an oversized request still has queued (best effort), so
 * the client reads our error rather than a reset. */
static void control_drain(int fd)
{
	char junk[4096];
	size_t total = 0;
	ssize_t n;

	while (total < CONTROL_DRAIN_MAX && (n = read(fd, junk, sizeof(junk))) > 0)
		total += (size_t)n;
}

/* Only root and our own user may talk to the SM. */
static int control_peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return 0;
	return cred.uid == 0 || cred.uid == geteuid();
}

/* Answer the request: first line, then the body, without copying it. */
static void control_answer(int fd, const struct control_ops *ops, const struct control_in *in)
{
	struct control_reply r;
	char first[sizeof(r.msg) + 8];
	const char *body;
	size_t len;
	int rc;

	control_run(ops, in->line, in->line_len, in->body, in->body_have, &r);
	control_first_line(&r, first, sizeof(first));
	control_body(&r, &body, &len);
	rc = control_write_all(fd, first, strlen(first));
	if (!rc && len)
		rc = control_write_all(fd, body, len);
	if (rc < 0)
		log_warnx("NSM-W702 control: reply to '%.40s' not delivered (%zu bytes): %s",
			  in->line, strlen(first) + len,
			  rc == -ETIMEDOUT ? "the client stopped reading" : strerror(-rc));
	control_reply_fini(&r);
}

static void control_refuse(int fd, const char *msg)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "error %s\n", msg);

	control_write_all(fd, line, (size_t)n);
}

/* The line, then its body, both within CONTROL_READ_TIMEOUT_MS. */
static enum control_read_result control_read_request(int fd, struct control_in *in)
{
	uint64_t deadline = control_now_ms() + CONTROL_READ_TIMEOUT_MS;
	enum control_read_result rc = control_read_line(fd, in, deadline);

	return rc == CONTROL_LINE ? control_read_body(fd, in, deadline) : rc;
}

static void control_timed_out(int fd, const struct control_in *in)
{
	char msg[160];

	if (in->body_len)
		snprintf(msg, sizeof(msg),
			 "the request's body did not come within 1 s (%zu of %zu bytes)",
			 in->body_have, in->body_len);
	else
		snprintf(msg, sizeof(msg), "no request line within 1 s");
	log_warnx("NSM-W701 control: %s; dropped the client", msg);
	control_refuse(fd, msg);
}

void control_serve(int lfd, const struct control_ops *ops)
{
	struct control_in in;
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		    errno != ECONNABORTED)
			log_warn("NSM-W701 control: accept");
		return;
	}
	if (!control_peer_allowed(fd)) {
		log_warnx("NSM-W701 control: a client of another user was refused");
		control_refuse(fd, "permission denied");
		close(fd);
		return;
	}
	memset(&in, 0, sizeof(in));
	switch (control_read_request(fd, &in)) {
	case CONTROL_LINE:
		control_answer(fd, ops, &in);
		break;
	case CONTROL_TIMEOUT:
		control_timed_out(fd, &in);
		break;
	case CONTROL_TOO_LONG:
		log_warnx("NSM-W701 control: request longer than %d bytes refused",
			  CONTROL_REQUEST_MAX - 1);
		control_drain(fd);
		control_refuse(fd, "request too long (max 4095 bytes)");
		break;
	case CONTROL_GONE:
		break;
	}
	free(in.body);
	close(fd);
}
