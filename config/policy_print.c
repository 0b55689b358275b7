/*
 * policy_print.c - a struct policy as text: the canonical YAML form
 * (policy_print, what `nanosm -n -v` prints) and the list of differences
 * between two policies (policy_diff).  Pure: writes only into the caller's
 * buffer; never parses.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"
#include "config/policy_doc.h"
#include "mad/text.h"

/* s as a YAML double-quoted string.  Besides '"' and '\\', what YAML would
 * not read back as itself is escaped: C0 controls and DEL, C1 controls
 * (U+0080..U+009F, NEL among them) and the line breaks U+2028/U+2029. */
static void policy_print_string(char *buf, size_t len, const char *s)
{
	struct text_sink o = {buf, len, 0};

	text_sinkf(&o, "\"");
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\') {
			text_sinkf(&o, "\\%c", *c);
		} else if (*c < 0x20 || *c == 0x7f) {
			text_sinkf(&o, "\\x%02x", *c);
		} else if (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
			text_sinkf(&o, "\\x%02x", c[1]);
			c++;
		} else if (c[0] == 0xe2 && c[1] == 0x80 && (c[2] == 0xa8 || c[2] == 0xa9)) {
			text_sinkf(&o, "\\%c", c[2] == 0xa8 ? 'L' : 'P');
			c += 2;
		} else {
			text_sinkf(&o, "%c", *c);
		}
	}
	text_sinkf(&o, "\"");
}

/* ---- canonical YAML ---- */

static void policy_print_sm(struct text_sink *o, const struct policy_sm *sm)
{
	char s[4 * POLICY_PATH_MAX + 8];

	text_sinkf(o, "sm:\n");
	if (sm->guid)
		text_sinkf(o, "  guid: 0x%016" PRIx64 "\n", sm->guid);
	if (sm->ca[0]) {
		policy_print_string(s, sizeof(s), sm->ca);
		text_sinkf(o, "  ca: %s\n", s);
	}
	if (sm->port)
		text_sinkf(o, "  port: %u\n", sm->port);
	text_sinkf(o, "  priority: %u\n  sweep_interval: %u\n  window: %u\n", sm->priority,
		   sm->sweep_interval, sm->window);
	text_sinkf(o, "  mad_timeout_ms: %u\n  mad_retries: %u\n", sm->mad_timeout_ms,
		   sm->mad_retries);
	policy_print_string(s, sizeof(s), sm->guid2lid);
	text_sinkf(o, "  guid2lid: %s\n", s);
	if (sm->topology[0]) {
		policy_print_string(s, sizeof(s), sm->topology);
		text_sinkf(o, "  topology: %s\n", s);
	}
	text_sinkf(o, "  log_level: %s\n", policy_log_level_name(sm->log_level));
	text_sinkf(o, "  m_key: 0x%016" PRIx64 "\n  m_key_protect: %u\n  m_key_lease: %u\n",
		   sm->m_key, sm->m_key_protect, sm->m_key_lease);
	text_sinkf(o, "  sm_key: 0x%016" PRIx64 "\n", sm->sm_key);
}

static void policy_print_engines(char *buf, size_t len, const struct policy_routing *r)
{
	struct text_sink o = {buf, len, 0};

	text_sinkf(&o, "[");
	for (size_t i = 0; i < r->n_engine; i++)
		text_sinkf(&o, "%s%s", i ? ", " : "", r->engine[i]->name);
	text_sinkf(&o, "]");
}

static void policy_print_routing(struct text_sink *o, const struct policy_routing *r)
{
	char engines[POLICY_MAX_ENGINES * 32];

	policy_print_engines(engines, sizeof(engines), r);
	text_sinkf(o, "routing:\n  engine: %s\n  roots:%s\n", engines, r->n_roots ? "" : " []");
	for (size_t i = 0; i < r->n_roots; i++)
		text_sinkf(o, "    - 0x%016" PRIx64 "\n", r->roots[i]);
	text_sinkf(o, "  options:\n");
	for (const struct route_engine *const *e = route_engines(); *e; e++)
		text_sinkf(o, "    %s: {}\n", (*e)->name);
}

static void policy_print_lids(struct text_sink *o, const struct policy_lids *l)
{
	text_sinkf(o, "lids:\n  lmc: %u\n  reclaim_age: %u\n  static:%s\n", l->lmc, l->reclaim_age,
		   l->n_statics ? "" : " []");
	for (size_t i = 0; i < l->n_statics; i++)
		text_sinkf(o, "    - {guid: 0x%016" PRIx64 ", lid: 0x%04x}\n", l->statics[i].guid,
			   l->statics[i].lid);
}

static void policy_print_node_names(struct text_sink *o, const struct policy *p)
{
	char s[4 * POLICY_NAME_MAX + 8];

	text_sinkf(o, "node_names:%s\n", p->n_node_names ? "" : " {}");
	for (size_t i = 0; i < p->n_node_names; i++) {
		policy_print_string(s, sizeof(s), p->node_names[i].name);
		text_sinkf(o, "  0x%016" PRIx64 ": %s\n", p->node_names[i].guid, s);
	}
}

/* "guid: 0x...", "name: \"host2\", port: 1" or "group: ALL" */
static void policy_print_member_who(char *buf, size_t len, const struct policy_member *m)
{
	char s[4 * POLICY_NAME_MAX + 8];

	if (m->kind == POLICY_MEMBER_GUID) {
		snprintf(buf, len, "guid: 0x%016" PRIx64, m->guid);
	} else if (m->kind == POLICY_MEMBER_NAME) {
		policy_print_string(s, sizeof(s), m->name);
		if (m->port)
			snprintf(buf, len, "name: %s, port: %u", s, m->port);
		else
			snprintf(buf, len, "name: %s", s);
	} else {
		snprintf(buf, len, "group: %s", policy_member_group_name(m->kind));
	}
}

static void policy_print_partition(struct text_sink *o, const struct policy_partition *part)
{
	char s[4 * POLICY_NAME_MAX + 8], who[4 * POLICY_NAME_MAX + 32];

	policy_print_string(s, sizeof(s), part->name);
	text_sinkf(o, "  - name: %s\n    pkey: 0x%04x\n    ipoib: %s\n    mtu: %u\n    rate: %u\n",
		   s, part->pkey, part->ipoib ? "true" : "false", part->mtu, part->rate);
	text_sinkf(o, "    members:%s\n", part->n_members ? "" : " []");
	for (size_t i = 0; i < part->n_members; i++) {
		policy_print_member_who(who, sizeof(who), &part->members[i]);
		text_sinkf(o, "      - {%s, membership: %s}\n", who,
			   policy_membership_name(part->members[i].membership));
	}
}

size_t policy_print(const struct policy *p, char *buf, size_t len)
{
	struct text_sink o = {buf, buf ? len : 0, 0};

	if (o.len)
		buf[0] = '\0';
	policy_print_sm(&o, &p->sm);
	policy_print_routing(&o, &p->routing);
	policy_print_lids(&o, &p->lids);
	policy_print_node_names(&o, p);
	text_sinkf(&o, "partitions:%s\n", p->n_partitions ? "" : " []");
	for (size_t i = 0; i < p->n_partitions; i++)
		policy_print_partition(&o, &p->partitions[i]);
	policy_monitor_print(&o, &p->monitor);
	policy_sa_print(&o, &p->sa);
	return o.off;
}

/* ---- differences ---- */

/* One line "what: old -> new" when the rendered values differ. */
static void policy_diff_value(struct text_sink *o, const char *what, const char *a, const char *b)
{
	if (strcmp(a, b))
		text_sinkf(o, "%s: %s -> %s\n", what, a, b);
}

static void policy_diff_uint(struct text_sink *o, const char *what, unsigned a, unsigned b)
{
	if (a != b)
		text_sinkf(o, "%s: %u -> %u\n", what, a, b);
}

/* A key is a secret: the diff says whether it is set, never its value. */
static void policy_diff_secret(struct text_sink *o, const char *what, uint64_t a, uint64_t b)
{
	if (a == b)
		return;
	if (a && b)
		text_sinkf(o, "%s: changed (values not shown)\n", what);
	else
		text_sinkf(o, "%s: %s -> %s (value not shown)\n", what, a ? "set" : "none",
			   b ? "set" : "none");
}

/* The SM port choice as one value: "guid 0x...", "ca \"x\" port 1", "first InfiniBand port". */
static void policy_diff_sm_port(char *buf, size_t len, const struct policy_sm *sm)
{
	struct text_sink o = {buf, len, 0};
	char s[4 * POLICY_NAME_MAX + 8];

	if (sm->guid)
		text_sinkf(&o, "guid 0x%016" PRIx64, sm->guid);
	if (sm->ca[0]) {
		policy_print_string(s, sizeof(s), sm->ca);
		text_sinkf(&o, "ca %s", s);
	}
	if (sm->port)
		text_sinkf(&o, "%sport %u", sm->ca[0] ? " " : "", sm->port);
	if (!o.off)
		text_sinkf(&o, "first InfiniBand port");
}

static void policy_diff_sm(struct text_sink *o, const struct policy_sm *a,
			   const struct policy_sm *b)
{
	char x[4 * POLICY_PATH_MAX + 8], y[4 * POLICY_PATH_MAX + 8];

	policy_diff_sm_port(x, sizeof(x), a);
	policy_diff_sm_port(y, sizeof(y), b);
	policy_diff_value(o, "sm.port", x, y);
	policy_diff_uint(o, "sm.priority", a->priority, b->priority);
	policy_diff_uint(o, "sm.sweep_interval", a->sweep_interval, b->sweep_interval);
	policy_diff_uint(o, "sm.window", a->window, b->window);
	policy_diff_uint(o, "sm.mad_timeout_ms", a->mad_timeout_ms, b->mad_timeout_ms);
	policy_diff_uint(o, "sm.mad_retries", a->mad_retries, b->mad_retries);
	policy_print_string(x, sizeof(x), a->guid2lid);
	policy_print_string(y, sizeof(y), b->guid2lid);
	policy_diff_value(o, "sm.guid2lid", x, y);
	policy_print_string(x, sizeof(x), a->topology[0] ? a->topology : "beside guid2lid");
	policy_print_string(y, sizeof(y), b->topology[0] ? b->topology : "beside guid2lid");
	policy_diff_value(o, "sm.topology", x, y);
	policy_diff_value(o, "sm.log_level", policy_log_level_name(a->log_level),
			  policy_log_level_name(b->log_level));
	policy_diff_secret(o, "sm.m_key", a->m_key, b->m_key);
	policy_diff_uint(o, "sm.m_key_protect", a->m_key_protect, b->m_key_protect);
	policy_diff_uint(o, "sm.m_key_lease", a->m_key_lease, b->m_key_lease);
	policy_diff_secret(o, "sm.sm_key", a->sm_key, b->sm_key);
}

/* A list whose items are told apart by a key: what was added, removed or
 * changed, in key order. */
struct policy_keyed {
	const char *what;
	size_t size; /* of one item */
	void (*key)(const void *item, char *buf, size_t len);
	void (*value)(const void *item, char *buf, size_t len);
	/* optional, for items in both: differences inside (partition members) */
	void (*inside)(struct text_sink *o, const void *a, const void *b);
};

#define POLICY_KEYED_MAX (4 * POLICY_NAME_MAX + 32) /* a member's quoted name and port */

struct policy_keyed_item {
	char key[POLICY_KEYED_MAX];
	const void *item;
};

static int policy_keyed_cmp(const void *x, const void *y)
{
	return strcmp(((const struct policy_keyed_item *)x)->key,
		      ((const struct policy_keyed_item *)y)->key);
}

static struct policy_keyed_item *policy_keyed_sort(const struct policy_keyed *k, const void *arr,
						   size_t n)
{
	struct policy_keyed_item *items = calloc(n ? n : 1, sizeof(*items));

	for (size_t i = 0; items && i < n; i++) {
		items[i].item = (const char *)arr + i * k->size;
		k->key(items[i].item, items[i].key, sizeof(items[i].key));
	}
	if (items)
		qsort(items, n, sizeof(*items), policy_keyed_cmp);
	return items;
}

static void policy_keyed_one(struct text_sink *o, const struct policy_keyed *k, char sign,
			     const struct policy_keyed_item *it)
{
	char v[4 * POLICY_PATH_MAX];

	k->value(it->item, v, sizeof(v));
	text_sinkf(o, "%s: %c %s%s%s\n", k->what, sign, it->key, v[0] ? " " : "", v);
}

static void policy_keyed_both(struct text_sink *o, const struct policy_keyed *k,
			      const struct policy_keyed_item *x, const struct policy_keyed_item *y)
{
	char a[4 * POLICY_PATH_MAX], b[4 * POLICY_PATH_MAX];

	k->value(x->item, a, sizeof(a));
	k->value(y->item, b, sizeof(b));
	if (strcmp(a, b))
		text_sinkf(o, "%s: ~ %s %s -> %s\n", k->what, x->key, a, b);
	if (k->inside)
		k->inside(o, x->item, y->item);
}

/* Same items, other order?  (Called when nothing was added, removed or
 * changed.) */
static int policy_keyed_reordered(const struct policy_keyed *k, const void *a, const void *b,
				  size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char x[POLICY_KEYED_MAX], y[POLICY_KEYED_MAX];

		k->key((const char *)a + i * k->size, x, sizeof(x));
		k->key((const char *)b + i * k->size, y, sizeof(y));
		if (strcmp(x, y))
			return 1;
	}
	return 0;
}

static void policy_diff_keyed(struct text_sink *o, const struct policy_keyed *k, const void *a,
			      size_t na, const void *b, size_t nb)
{
	struct policy_keyed_item *x = policy_keyed_sort(k, a, na);
	struct policy_keyed_item *y = policy_keyed_sort(k, b, nb);
	size_t i = 0, j = 0, before = o->off;

	if (!x || !y) {
		text_sinkf(o, "%s: (out of memory)\n", k->what);
		na = nb = 0;
	}
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : strcmp(x[i].key, y[j].key);

		if (c < 0)
			policy_keyed_one(o, k, '-', &x[i++]);
		else if (c > 0)
			policy_keyed_one(o, k, '+', &y[j++]);
		else
			policy_keyed_both(o, k, &x[i++], &y[j++]);
	}
	free(x);
	free(y);
	if (o->off == before && na == nb && policy_keyed_reordered(k, a, b, na))
		text_sinkf(o, "%s: reordered\n", k->what);
}

/* Items whose first member is a uint64_t GUID (a root, a static LID, a
 * node name). */
static void policy_key_guid(const void *item, char *buf, size_t len)
{
	snprintf(buf, len, "0x%016" PRIx64, *(const uint64_t *)item);
}

static void policy_value_none(const void *item, char *buf, size_t len)
{
	(void)item;
	if (len)
		buf[0] = '\0';
}

static void policy_value_lid(const void *item, char *buf, size_t len)
{
	snprintf(buf, len, "0x%04x", ((const struct policy_static_lid *)item)->lid);
}

static void policy_value_name(const void *item, char *buf, size_t len)
{
	policy_print_string(buf, len, ((const struct policy_node_name *)item)->name);
}

static void policy_key_member(const void *item, char *buf, size_t len)
{
	const struct policy_member *m = item;

	char s[4 * POLICY_NAME_MAX + 8];

	if (m->kind == POLICY_MEMBER_GUID) {
		snprintf(buf, len, "0x%016" PRIx64, m->guid);
	} else if (m->kind == POLICY_MEMBER_NAME) {
		policy_print_string(s, sizeof(s), m->name);
		snprintf(buf, len, m->port ? "name %s port %u" : "name %s", s, m->port);
	} else {
		snprintf(buf, len, "%s", policy_member_group_name(m->kind));
	}
}

static void policy_value_member(const void *item, char *buf, size_t len)
{
	const struct policy_member *m = item;

	snprintf(buf, len, "%s", policy_membership_name(m->membership));
}

static void policy_key_partition(const void *item, char *buf, size_t len)
{
	snprintf(buf, len, "0x%04x", ((const struct policy_partition *)item)->pkey);
}

static void policy_value_partition(const void *item, char *buf, size_t len)
{
	const struct policy_partition *part = item;
	char s[4 * POLICY_NAME_MAX + 8];

	policy_print_string(s, sizeof(s), part->name);
	snprintf(buf, len, "%s ipoib %s mtu %u rate %u", s, part->ipoib ? "true" : "false",
		 part->mtu, part->rate);
}

static void policy_diff_members(struct text_sink *o, const void *a, const void *b)
{
	const struct policy_partition *x = a, *y = b;
	char what[32];
	struct policy_keyed k = {what, sizeof(struct policy_member), policy_key_member,
				 policy_value_member, NULL};

	snprintf(what, sizeof(what), "partitions 0x%04x members", x->pkey);
	policy_diff_keyed(o, &k, x->members, x->n_members, y->members, y->n_members);
}

static void policy_diff_routing(struct text_sink *o, const struct policy_routing *a,
				const struct policy_routing *b)
{
	static const struct policy_keyed roots = {"routing.roots", sizeof(uint64_t),
						  policy_key_guid, policy_value_none, NULL};
	char x[POLICY_MAX_ENGINES * 32], y[POLICY_MAX_ENGINES * 32];

	policy_print_engines(x, sizeof(x), a);
	policy_print_engines(y, sizeof(y), b);
	policy_diff_value(o, "routing.engine", x, y);
	policy_diff_keyed(o, &roots, a->roots, a->n_roots, b->roots, b->n_roots);
}

size_t policy_diff(const struct policy *a, const struct policy *b, char *buf, size_t len)
{
	static const struct policy_keyed statics = {"lids.static", sizeof(struct policy_static_lid),
						    policy_key_guid, policy_value_lid, NULL};
	static const struct policy_keyed names = {"node_names", sizeof(struct policy_node_name),
						  policy_key_guid, policy_value_name, NULL};
	static const struct policy_keyed parts = {"partitions", sizeof(struct policy_partition),
						  policy_key_partition, policy_value_partition,
						  policy_diff_members};
	struct text_sink o = {buf, buf ? len : 0, 0};

	if (o.len)
		buf[0] = '\0';
	policy_diff_sm(&o, &a->sm, &b->sm);
	policy_diff_routing(&o, &a->routing, &b->routing);
	policy_diff_uint(&o, "lids.lmc", a->lids.lmc, b->lids.lmc);
	policy_diff_uint(&o, "lids.reclaim_age", a->lids.reclaim_age, b->lids.reclaim_age);
	policy_diff_keyed(&o, &statics, a->lids.statics, a->lids.n_statics, b->lids.statics,
			  b->lids.n_statics);
	policy_diff_keyed(&o, &names, a->node_names, a->n_node_names, b->node_names,
			  b->n_node_names);
	policy_diff_keyed(&o, &parts, a->partitions, a->n_partitions, b->partitions,
			  b->n_partitions);
	policy_monitor_diff(&o, &a->monitor, &b->monitor);
	policy_sa_diff(&o, &a->sa, &b->sa);
	return o.off;
}

/* ---- what a reload of b over a says beyond the diff ---- */

static void policy_restart_one(struct text_sink *o, int differs, const char *what)
{
	if (differs)
		text_sinkf(o, "%s%s", o->off ? ", " : "", what);
}

size_t policy_restart_fields(const struct policy *a, const struct policy *b, char *buf, size_t len)
{
	const struct policy_sm *x = &a->sm, *y = &b->sm;
	struct text_sink o = {buf, buf ? len : 0, 0};

	if (o.len)
		buf[0] = '\0';
	policy_restart_one(&o, x->guid != y->guid || strcmp(x->ca, y->ca) || x->port != y->port,
			   "sm.port");
	policy_restart_one(&o, x->window != y->window, "sm.window");
	policy_restart_one(&o, x->mad_timeout_ms != y->mad_timeout_ms, "sm.mad_timeout_ms");
	policy_restart_one(&o, x->mad_retries != y->mad_retries, "sm.mad_retries");
	policy_restart_one(&o, strcmp(x->guid2lid, y->guid2lid) != 0, "sm.guid2lid");
	policy_restart_one(&o, strcmp(x->topology, y->topology) != 0, "sm.topology");
	policy_restart_one(&o, x->m_key != y->m_key, "sm.m_key");
	policy_restart_one(&o, x->m_key_protect != y->m_key_protect, "sm.m_key_protect");
	policy_restart_one(&o, x->m_key_lease != y->m_key_lease, "sm.m_key_lease");
	policy_restart_one(&o, x->sm_key != y->sm_key, "sm.sm_key");
	policy_restart_one(&o, a->lids.lmc != b->lids.lmc, "lids.lmc");
	return o.off;
}

static void policy_dropped_one(struct text_sink *o, size_t had, size_t has, const char *what)
{
	if (had && !has)
		text_sinkf(o, "%s%zu %s", o->off ? ", " : "drops all ", had, what);
}

size_t policy_dropped(const struct policy *a, const struct policy *b, char *buf, size_t len)
{
	struct text_sink o = {buf, buf ? len : 0, 0};

	if (o.len)
		buf[0] = '\0';
	policy_dropped_one(&o, a->n_partitions, b->n_partitions, "partitions");
	policy_dropped_one(&o, a->n_node_names, b->n_node_names, "node_names");
	policy_dropped_one(&o, a->routing.n_roots, b->routing.n_roots, "routing.roots");
	policy_dropped_one(&o, a->lids.n_statics, b->lids.n_statics, "lids.static");
	return o.off;
}

int policy_is_empty(const struct policy *p)
{
	struct policy d;

	policy_init(&d);
	return policy_equal(p, &d);
}

int policy_reload_needs_force(const struct policy *cur, const struct policy *next)
{
	return policy_is_empty(next) && !policy_is_empty(cur);
}
