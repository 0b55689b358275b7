/*
 * sm/core/sl2vl_push.c - programs the SLtoVLMappingTables of CA ports and
 * switch port pairs (see sl2vl_push.h) and keeps the cache of what each
 * holds.  Reads sm->next, never changes it; the SLs themselves are the
 * routing engine's (sm->lfts).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "sm/core/log.h"
#include "sm/core/sl2vl_push.h"

#define SL2VL_POOL_MAX 254 /* distinct tables remembered; more are read again */
#define SL2VL_ITEMS_PER_NODE (FABRIC_MAX_PORTS + 2) /* the push walks (node, in port) */

/* What one node's ports hold: per (in, out) pair on a switch, per port on
 * a CA, an index + 1 into the cache's pool (0: unknown). */
struct sl2vl_node {
	uint64_t guid;
	uint16_t ports; /* num_ports + 1 */
	uint8_t sw;
	uint8_t *held; /* sw: ports * ports, in * ports + out; else ports */
};

/* Nodes sorted by GUID; a push borrows the cache as its SMPs' context. */
struct sl2vl_cache {
	struct sl2vl_node *e;
	size_t n, cap;
	struct smp_sl2vl pool[SL2VL_POOL_MAX];
	unsigned n_pool;
	/* the running push */
	size_t walk;	    /* next (node, in port) item */
	unsigned n_vls;	    /* VLs the paths use */
	size_t short_pairs; /* switch-to-switch pairs short of VLs */
	char short_first[200];
	sm_phase_fn then;
};

/* ---- Cache ----------------------------------------------------------- */

struct sl2vl_cache *sl2vl_cache_new(void)
{
	return calloc(1, sizeof(struct sl2vl_cache));
}

void sl2vl_cache_free(struct sl2vl_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].held);
	free(c->e);
	free(c);
}

static size_t sl2vl_node_slot(const struct sl2vl_cache *c, uint64_t guid)
{
	return text_u64_lower_bound(c->e, c->n, sizeof(*c->e), offsetof(struct sl2vl_node, guid),
				    guid);
}

static struct sl2vl_node *sl2vl_node_find(const struct sl2vl_cache *c, uint64_t guid)
{
	size_t i = sl2vl_node_slot(c, guid);

	return i < c->n && c->e[i].guid == guid ? &c->e[i] : NULL;
}

int sl2vl_cache_forget(struct sl2vl_cache *c, uint64_t node_guid)
{
	struct sl2vl_node *e = c ? sl2vl_node_find(c, node_guid) : NULL;

	if (!e)
		return -ENOENT;
	memset(e->held, 0, (size_t)e->ports * (e->sw ? e->ports : 1));
	return 0;
}

static size_t sl2vl_held_len(unsigned ports, int sw)
{
	return (size_t)ports * (sw ? ports : 1);
}

/* The node's entry, made (everything unknown) or remade when its shape
 * changed; NULL on no memory. */
static struct sl2vl_node *sl2vl_node_get(struct sl2vl_cache *c, const struct fabric_node *n)
{
	size_t i = sl2vl_node_slot(c, n->guid);
	unsigned ports = n->num_ports + 1u;
	int sw = fabric_is_switch(n);
	struct sl2vl_node *e;

	if (i < c->n && c->e[i].guid == n->guid) {
		e = &c->e[i];
		if (e->ports == ports && e->sw == sw)
			return e;
		free(e->held);
	} else {
		if (c->n == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 16;
			struct sl2vl_node *ne = realloc(c->e, cap * sizeof(*ne));

			if (!ne)
				return NULL;
			c->e = ne;
			c->cap = cap;
		}
		memmove(&c->e[i + 1], &c->e[i], (c->n - i) * sizeof(c->e[0]));
		c->n++;
		e = &c->e[i];
	}
	e->guid = n->guid;
	e->ports = (uint16_t)ports;
	e->sw = (uint8_t)sw;
	e->held = calloc(sl2vl_held_len(ports, sw), 1);
	if (!e->held) { /* keep the entry, with nothing known */
		e->ports = 0;
		return NULL;
	}
	return e;
}

static uint8_t *sl2vl_held(const struct sl2vl_node *e, unsigned in, unsigned out)
{
	if (!e || !e->held || in >= e->ports || out >= e->ports)
		return NULL;
	return &e->held[e->sw ? in * e->ports + out : out];
}

/* Pool index + 1 of t, added if new; 0 when the pool is full. */
static uint8_t sl2vl_pool_intern(struct sl2vl_cache *c, const struct smp_sl2vl *t)
{
	for (unsigned i = 0; i < c->n_pool; i++)
		if (!memcmp(&c->pool[i], t, sizeof(*t)))
			return (uint8_t)(i + 1);
	if (c->n_pool == SL2VL_POOL_MAX)
		return 0;
	c->pool[c->n_pool] = *t;
	return (uint8_t)++c->n_pool;
}

/* Remember what a pair answered (t NULL: unknown again). */
static void sl2vl_store(struct sl2vl_cache *c, const struct fabric_node *n, unsigned in,
			unsigned out, const struct smp_sl2vl *t)
{
	struct sl2vl_node *e = t ? sl2vl_node_get(c, n) : sl2vl_node_find(c, n->guid);
	uint8_t *h = sl2vl_held(e, in, out);

	if (h)
		*h = t ? sl2vl_pool_intern(c, t) : 0;
}

/* What the cache says the pair holds, or NULL. */
static const struct smp_sl2vl *sl2vl_known(const struct sl2vl_cache *c, const struct fabric_node *n,
					   unsigned in, unsigned out)
{
	const struct sl2vl_node *e = sl2vl_node_find(c, n->guid);
	const uint8_t *h = sl2vl_held(e, in, out);

	return h && *h && e->ports == n->num_ports + 1u ? &c->pool[*h - 1] : NULL;
}

/* ---- Targets --------------------------------------------------------- */

unsigned sl2vl_want(unsigned n_vls, uint8_t oper_vls, struct smp_sl2vl *t)
{
	unsigned carried = smp_vls_count(oper_vls), lost = 0;

	memset(t, 0, sizeof(*t));
	for (unsigned s = 0; s < n_vls && s < SMP_SL2VL_SLS; s++) {
		if (s < carried)
			t->vl[s] = (uint8_t)s;
		else if (s) /* VL 0 always exists */
			lost++;
	}
	return lost;
}

static int sl2vl_linked(const struct fabric_node *n, unsigned p)
{
	return p && p <= n->num_ports && n->ports[p].present &&
	       n->ports[p].remote_node != FABRIC_NONE;
}

/* The table out port `out` of n should hold; a pair between two switches
 * that cannot carry every SL in use is counted (NSM-W451, once a push). */
static void sl2vl_target(struct sm *sm, struct sl2vl_cache *c, const struct fabric_node *n,
			 unsigned in, unsigned out, struct smp_sl2vl *t, int count)
{
	const struct fabric_port *p = &n->ports[out];
	struct smp_port_info pi;
	unsigned lost;

	smp_port_info_decode(p->pi_raw, &pi);
	lost = sl2vl_want(c->n_vls, pi.oper_vls, t);
	if (!lost || !count || !fabric_is_switch(n) ||
	    !fabric_is_switch(&sm->next.nodes[p->remote_node]))
		return;
	if (!c->short_pairs++)
		snprintf(
		    c->short_first, sizeof(c->short_first),
		    "switch 0x%016llx (%s) in %u out %u: OperationalVLs %u carries %u of %u VLs",
		    (unsigned long long)n->guid, n->desc, in, out, pi.oper_vls,
		    smp_vls_count(pi.oper_vls), c->n_vls);
}

/* ---- SMPs ------------------------------------------------------------ */

static void sl2vl_get_done(struct sm_req *r, int status, const struct smp *resp);
static void sl2vl_set_done(struct sm_req *r, int status, const struct smp *resp);

static unsigned sl2vl_req_in(const struct sm_req *r)
{
	return r->extra >> 8;
}

static unsigned sl2vl_req_out(const struct sm_req *r)
{
	return r->extra & 0xff;
}

/* One SMP about node's pair (in, out); a CA port is asked through its own
 * route (a CA answers for the port the SMP arrives on: modifier 0). */
static int sl2vl_submit(struct sm *sm, struct sl2vl_cache *c, int node, unsigned in, unsigned out,
			uint8_t method, const struct smp_sl2vl *t)
{
	const struct fabric_node *n = &sm->next.nodes[node];
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct sm_req r = {.node = node, .port = (uint8_t)in, .ctx = c};
	const struct fabric_route *rt;

	r.extra = (uint32_t)in << 8 | out;
	if (fabric_is_switch(n)) {
		r.hops = n->dr_hops;
		memcpy(r.path, n->dr_path, sizeof(r.path));
	} else {
		rt = fabric_port_route(n, out);
		r.hops = rt->hops;
		memcpy(r.path, rt->path, sizeof(r.path));
	}
	if (t)
		smp_sl2vl_encode(t, data);
	return sm_submit(sm, &r, method, SMP_ATTR_SL2VL,
			 fabric_is_switch(n) ? SMP_SL2VL_MOD(in, out) : 0, t ? data : NULL,
			 method == SMP_METHOD_GET ? sl2vl_get_done : sl2vl_set_done);
}

static void sl2vl_fail(struct sm *sm, int node, unsigned in, unsigned out, const char *what,
		       int status, const struct smp *resp)
{
	const struct fabric_node *n = &sm->next.nodes[node];

	sm->st.set_errors++;
	if (fabric_is_switch(n))
		log_warnx("NSM-W450 switch 0x%016llx (%s): SLtoVLMappingTable in %u out %u %s "
			  "failed: %s%s",
			  (unsigned long long)n->guid, n->desc, in, out, what, strerror(-status),
			  resp ? " (refused by the port)" : "");
	else
		log_warnx("NSM-W450 port 0x%016llx/%u (%s): SLtoVLMappingTable %s failed: %s%s",
			  (unsigned long long)(n->ports[out].guid ? n->ports[out].guid : n->guid),
			  out, n->desc, what, strerror(-status),
			  resp ? " (refused by the port)" : "");
}

static void sl2vl_send_set(struct sm *sm, struct sl2vl_cache *c, int node, unsigned in,
			   unsigned out, const struct smp_sl2vl *want)
{
	sm->st.sl2vl_sets++;
	if (sl2vl_submit(sm, c, node, in, out, SMP_METHOD_SET, want) < 0)
		sl2vl_fail(sm, node, in, out, "Set", -ENOMEM, NULL);
}

/* After a Get: remember it, set the pair if it holds something else.  A
 * failed Get is no error of its own: the table is written unread. */
static void sl2vl_get_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sl2vl_cache *c = r->ctx;
	const struct fabric_node *n = &r->sm->next.nodes[r->node];
	unsigned in = sl2vl_req_in(r), out = sl2vl_req_out(r);
	struct smp_sl2vl held, want;

	sl2vl_target(r->sm, c, n, in, out, &want, 0);
	if (status < 0) {
		log_debug("node 0x%016llx (%s): SLtoVLMappingTable in %u out %u Get failed: %s; "
			  "writing it unread",
			  (unsigned long long)n->guid, n->desc, in, out, strerror(-status));
		sl2vl_send_set(r->sm, c, r->node, in, out, &want);
		return;
	}
	smp_sl2vl_decode(resp->data, &held);
	sl2vl_store(c, n, in, out, &held);
	if (memcmp(&held, &want, sizeof(want)) != 0)
		sl2vl_send_set(r->sm, c, r->node, in, out, &want);
}

/* After a Set: what the port answered is what it holds; a failed Set may
 * have landed with its answer lost, so the pair is read next time. */
static void sl2vl_set_done(struct sm_req *r, int status, const struct smp *resp)
{
	struct sl2vl_cache *c = r->ctx;
	const struct fabric_node *n = &r->sm->next.nodes[r->node];
	unsigned in = sl2vl_req_in(r), out = sl2vl_req_out(r);
	struct smp_sl2vl held;

	if (status < 0) {
		sl2vl_fail(r->sm, r->node, in, out, "Set", status, resp);
		sl2vl_store(c, n, in, out, NULL);
		return;
	}
	smp_sl2vl_decode(resp->data, &held);
	sl2vl_store(c, n, in, out, &held);
}

/* ---- Phase ----------------------------------------------------------- */

/* Read a pair the cache does not know; set one it knows to differ. */
static void sl2vl_push_pair(struct sm *sm, struct sl2vl_cache *c, int node, unsigned in,
			    unsigned out)
{
	const struct fabric_node *n = &sm->next.nodes[node];
	const struct smp_sl2vl *held = sl2vl_known(c, n, in, out);
	struct smp_sl2vl want;

	sl2vl_target(sm, c, n, in, out, &want, 1);
	if (!held) {
		if (sl2vl_submit(sm, c, node, in, out, SMP_METHOD_GET, NULL) == 0)
			sm->st.sl2vl_reads++;
		else
			sl2vl_send_set(sm, c, node, in, out, &want);
		return;
	}
	if (memcmp(held, &want, sizeof(want)) != 0)
		sl2vl_send_set(sm, c, node, in, out, &want);
}

/* A CA port: one table, through the port's own route (the SM's own port
 * needs none).  A port that is not ACTIVE came up since the last sweep
 * (a host that rebooted): what the cache knows of it is read again. */
static void sl2vl_push_ca(struct sm *sm, struct sl2vl_cache *c, int node, unsigned p)
{
	const struct fabric_node *n = &sm->next.nodes[node];
	int own = node == sm->next.sm_node && p == sm->next.sm_port;

	if (!sl2vl_linked(n, p) || (!fabric_port_route(n, p)->hops && !own))
		return;
	if (n->ports[p].state != PORT_STATE_ACTIVE)
		sl2vl_store(c, n, p, p, NULL);
	sl2vl_push_pair(sm, c, node, p, p);
}

/* One walk item: node's input port `in` (a switch: to every other
 * linked output port; port 0 stands for the switch's own agents). */
static void sl2vl_push_item(struct sm *sm, size_t i)
{
	struct sl2vl_cache *c = sm->sl2vl_push;
	int node = (int)(i / SL2VL_ITEMS_PER_NODE);
	unsigned in = (unsigned)(i % SL2VL_ITEMS_PER_NODE);
	const struct fabric_node *n = &sm->next.nodes[node];

	if (n->stale || in > n->num_ports)
		return;
	if (!fabric_is_switch(n)) {
		sl2vl_push_ca(sm, c, node, in);
		return;
	}
	if (in && !sl2vl_linked(n, in))
		return;
	for (unsigned out = 1; out <= n->num_ports; out++)
		if (out != in && sl2vl_linked(n, out))
			sl2vl_push_pair(sm, c, node, in, out);
}

static void sl2vl_push_batch(struct sm *sm)
{
	struct sl2vl_cache *c = sm->sl2vl_push;

	if (sm_feed_walk(sm, &c->walk, sm->next.n_nodes * SL2VL_ITEMS_PER_NODE, sl2vl_push_item,
			 sl2vl_push_batch))
		return;
	if (c->short_pairs)
		log_warnx("NSM-W451 %zu switch-to-switch port pairs cannot carry every VL the "
			  "routes use; their extra SLs ride VL 0, where the gate did not look "
			  "for credit loops (first: %s)",
			  c->short_pairs, c->short_first);
	sm->sl2vl_push = NULL;
	sm_phase_wait(sm, c->then);
}

void sl2vl_push_start(struct sm *sm, struct sl2vl_cache *c, unsigned n_vls, sm_phase_fn then)
{
	if (n_vls <= 1) {
		then(sm);
		return;
	}
	c->walk = 0;
	c->n_vls = n_vls;
	c->short_pairs = 0;
	c->short_first[0] = '\0';
	c->then = then;
	sm->sl2vl_push = c;
	sl2vl_push_batch(sm);
}
