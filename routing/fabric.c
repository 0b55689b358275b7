/*
 * fabric.c - the fabric model: node array, GUID index, links, deep copy,
 * and the LFT set the routing engines fill.  Plain memory only: no I/O, no
 * globals; it never decides anything about LIDs or routes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "mad/text.h"
#include "routing/fabric.h"

#define FABRIC_MIN_NODES 16
#define FABRIC_MIN_INDEX 32

/* ---- GUID -> node index hash (open addressing, linear probing) ------ */

static size_t fabric_hash(uint64_t guid, size_t cap)
{
	guid ^= guid >> 33;
	guid *= 0xff51afd7ed558ccdULL;
	guid ^= guid >> 33;
	return (size_t)guid & (cap - 1);
}

static void fabric_index_put(int *index, size_t cap, const struct fabric_node *nodes, int idx)
{
	size_t h = fabric_hash(nodes[idx].guid, cap);

	while (index[h] != FABRIC_NONE)
		h = (h + 1) & (cap - 1);
	index[h] = idx;
}

/* Keep the index at most half full; rebuilds it from the node array. */
static int fabric_index_reserve(struct fabric *f, size_t want)
{
	size_t cap = f->index_cap ? f->index_cap : FABRIC_MIN_INDEX;
	int *index;

	while (cap < want * 2)
		cap *= 2;
	if (cap == f->index_cap)
		return 0;
	index = malloc(cap * sizeof(*index));
	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++)
		index[i] = FABRIC_NONE;
	for (size_t i = 0; i < f->n_nodes; i++)
		fabric_index_put(index, cap, f->nodes, (int)i);
	free(f->index);
	f->index = index;
	f->index_cap = cap;
	return 0;
}

int fabric_find(const struct fabric *f, uint64_t guid)
{
	size_t h;

	if (!f->index_cap)
		return FABRIC_NONE;
	h = fabric_hash(guid, f->index_cap);
	while (f->index[h] != FABRIC_NONE) {
		if (f->nodes[f->index[h]].guid == guid)
			return f->index[h];
		h = (h + 1) & (f->index_cap - 1);
	}
	return FABRIC_NONE;
}

/* ---- Life cycle ------------------------------------------------------ */

void fabric_init(struct fabric *f)
{
	memset(f, 0, sizeof(*f));
	f->sm_node = FABRIC_NONE;
}

void fabric_fini(struct fabric *f)
{
	for (size_t i = 0; i < f->n_nodes; i++) {
		free(f->nodes[i].ports);
		free(f->nodes[i].routes);
	}
	free(f->nodes);
	free(f->index);
	fabric_init(f);
}

/* Slots in n->routes: a switch's other routes, a CA's one per port. */
static size_t fabric_route_count(const struct fabric_node *n)
{
	return fabric_is_switch(n) ? FABRIC_ALT_PATHS : n->num_ports;
}

const struct fabric_route *fabric_route_get(const struct fabric_node *n, unsigned k)
{
	static const struct fabric_route none;

	return n->routes && k < fabric_route_count(n) ? &n->routes[k] : &none;
}

struct fabric_route *fabric_route_slot(struct fabric_node *n, unsigned k)
{
	if (k >= fabric_route_count(n))
		return NULL;
	if (!n->routes)
		n->routes = calloc(fabric_route_count(n), sizeof(*n->routes));
	return n->routes ? &n->routes[k] : NULL;
}

int fabric_port_route_set(struct fabric_node *n, unsigned p, const uint8_t *path, uint8_t hops)
{
	struct fabric_route *r;

	if (fabric_is_switch(n) || p == 0 || hops > FABRIC_MAX_HOPS)
		return -EINVAL;
	r = fabric_route_slot(n, p - 1);
	if (!r)
		return -ENOMEM;
	memset(r->path, 0, sizeof(r->path));
	memcpy(r->path, path, (size_t)hops + 1);
	r->hops = hops;
	return 0;
}

static int fabric_copy_nodes(struct fabric *dst, const struct fabric *src)
{
	dst->nodes = calloc(src->n_nodes ? src->n_nodes : 1, sizeof(*dst->nodes));
	if (!dst->nodes)
		return -ENOMEM;
	dst->cap_nodes = src->n_nodes ? src->n_nodes : 1;
	for (size_t i = 0; i < src->n_nodes; i++) {
		const struct fabric_node *n = &src->nodes[i];
		size_t bytes = ((size_t)n->num_ports + 1) * sizeof(*n->ports);

		dst->nodes[i] = *n;
		dst->nodes[i].routes = NULL;
		dst->nodes[i].ports = malloc(bytes);
		if (!dst->nodes[i].ports)
			return -ENOMEM;
		dst->n_nodes = i + 1;
		memcpy(dst->nodes[i].ports, n->ports, bytes);
		if (n->routes) {
			size_t rb = fabric_route_count(n) * sizeof(*n->routes);

			dst->nodes[i].routes = malloc(rb);
			if (!dst->nodes[i].routes)
				return -ENOMEM;
			memcpy(dst->nodes[i].routes, n->routes, rb);
		}
	}
	return 0;
}

static int fabric_copy_index(struct fabric *dst, const struct fabric *src)
{
	if (!src->index_cap)
		return 0;
	dst->index = malloc(src->index_cap * sizeof(*dst->index));
	if (!dst->index)
		return -ENOMEM;
	memcpy(dst->index, src->index, src->index_cap * sizeof(*dst->index));
	dst->index_cap = src->index_cap;
	return 0;
}

int fabric_copy(struct fabric *dst, const struct fabric *src)
{
	int rc;

	fabric_init(dst);
	dst->sm_node = src->sm_node;
	dst->sm_port = src->sm_port;
	rc = fabric_copy_nodes(dst, src);
	if (!rc)
		rc = fabric_copy_index(dst, src);
	if (rc)
		fabric_fini(dst);
	return rc;
}

/* ---- Nodes and links ------------------------------------------------- */

static int fabric_grow_nodes(struct fabric *f)
{
	return TEXT_GROW(f->nodes, f->cap_nodes, f->n_nodes + 1, FABRIC_MIN_NODES);
}

static struct fabric_port *fabric_new_ports(uint8_t num_ports)
{
	struct fabric_port *ports = calloc((size_t)num_ports + 1, sizeof(*ports));

	if (!ports)
		return NULL;
	for (unsigned p = 0; p <= num_ports; p++) {
		ports[p].num = (uint8_t)p;
		ports[p].remote_node = FABRIC_NONE;
	}
	return ports;
}

int fabric_add_node(struct fabric *f, uint64_t guid, uint8_t type, uint8_t num_ports)
{
	struct fabric_node *n;
	struct fabric_port *ports;
	int rc;

	if (num_ports == 0 || num_ports > FABRIC_MAX_PORTS)
		return -EINVAL;
	if (fabric_find(f, guid) != FABRIC_NONE)
		return -EEXIST;
	rc = fabric_grow_nodes(f);
	if (!rc)
		rc = fabric_index_reserve(f, f->n_nodes + 1);
	if (rc)
		return rc;
	ports = fabric_new_ports(num_ports);
	if (!ports)
		return -ENOMEM;
	n = &f->nodes[f->n_nodes];
	memset(n, 0, sizeof(*n));
	n->guid = guid;
	n->type = type;
	n->num_ports = num_ports;
	n->ports = ports;
	fabric_index_put(f->index, f->index_cap, f->nodes, (int)f->n_nodes);
	return (int)f->n_nodes++;
}

static int fabric_port_valid(const struct fabric *f, int node, uint8_t port)
{
	return node >= 0 && (size_t)node < f->n_nodes && port >= 1 &&
	       port <= f->nodes[node].num_ports;
}

/* Cut the link on node/port, on both ends. */
static void fabric_unlink(struct fabric *f, int node, uint8_t port)
{
	struct fabric_port *p = &f->nodes[node].ports[port];
	struct fabric_port *r;

	if (p->remote_node == FABRIC_NONE)
		return;
	r = &f->nodes[p->remote_node].ports[p->remote_port];
	r->remote_node = FABRIC_NONE;
	r->remote_port = 0;
	p->remote_node = FABRIC_NONE;
	p->remote_port = 0;
}

int fabric_link(struct fabric *f, int a, uint8_t pa, int b, uint8_t pb)
{
	if (!fabric_port_valid(f, a, pa) || !fabric_port_valid(f, b, pb))
		return -EINVAL;
	if (a == b && pa == pb)
		return -EINVAL;
	fabric_unlink(f, a, pa);
	fabric_unlink(f, b, pb);
	f->nodes[a].ports[pa].remote_node = b;
	f->nodes[a].ports[pa].remote_port = pb;
	f->nodes[b].ports[pb].remote_node = a;
	f->nodes[b].ports[pb].remote_port = pa;
	return 0;
}

size_t fabric_count_switches(const struct fabric *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		n += fabric_is_switch(&f->nodes[i]);
	return n;
}

size_t fabric_count_cas(const struct fabric *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *node = &f->nodes[i];

		if (fabric_is_switch(node))
			continue;
		for (unsigned p = 1; p <= node->num_ports; p++)
			n += node->ports[p].present != 0;
	}
	return n;
}

unsigned fabric_min_data_vls(const struct fabric *f, int *node, unsigned *port)
{
	unsigned vls = FABRIC_VLS_UNKNOWN + 1, at_port = 0;
	int at = FABRIC_NONE;

	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			unsigned v;

			if (n->ports[p].remote_node == FABRIC_NONE)
				continue;
			v = fabric_port_data_vls(&n->ports[p]);
			if (v < vls) {
				vls = v;
				at = (int)i;
				at_port = p;
			}
		}
	}
	if (node)
		*node = at;
	if (port)
		*port = at_port;
	return at == FABRIC_NONE ? FABRIC_VLS_UNKNOWN : vls;
}

/* ---- Linear forwarding tables ---------------------------------------- */

void lft_set_init(struct lft_set *s)
{
	s->tables = NULL;
	s->n = 0;
	s->sl = NULL;
	s->sl_top = 0;
	s->n_vls = 1;
	s->path_sl = NULL;
}

void lft_set_fini(struct lft_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->tables[i].port);
	free(s->tables);
	free(s->sl);
	free(s->path_sl);
	lft_set_init(s);
}

int lft_set_alloc_sl(struct lft_set *s, uint16_t top)
{
	uint8_t *sl = calloc((size_t)top + 1, 1);

	if (!sl)
		return -ENOMEM;
	free(s->sl);
	free(s->path_sl);
	s->path_sl = NULL;
	s->sl = sl;
	s->sl_top = top;
	s->n_vls = 1;
	return 0;
}

int lft_set_alloc_path_sl(struct lft_set *s)
{
	size_t row = (size_t)s->sl_top + 1;

	if (!s->sl)
		return -EINVAL;
	if (s->n > LFT_PATH_SL_MAX / row)
		return -E2BIG;
	free(s->path_sl);
	s->path_sl = malloc(s->n ? s->n * row : 1);
	if (!s->path_sl)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		memcpy(s->path_sl + i * row, s->sl, row);
	return 0;
}

size_t lft_set_sl_row(const struct lft_set *s, int sw)
{
	const struct lft *t = s->path_sl ? lft_set_find_const(s, sw) : NULL;

	return t ? (size_t)(t - s->tables) : s->n;
}

unsigned lft_set_path_vls(const struct lft_set *s, unsigned below)
{
	size_t all = s->path_sl ? s->n * ((size_t)s->sl_top + 1) : 0;
	unsigned vls = 1;

	for (size_t i = 0; i < all; i++)
		if (s->path_sl[i] < below && s->path_sl[i] + 1u > vls)
			vls = s->path_sl[i] + 1u;
	return vls;
}

uint8_t lft_set_sl_from(const struct lft_set *s, int sw, uint16_t dlid)
{
	return lft_set_sl_at(s, lft_set_sl_row(s, sw), dlid);
}

int fabric_entry_switch(const struct fabric *f, int node, unsigned port)
{
	const struct fabric_node *n;
	const struct fabric_port *p;

	if (node < 0 || (size_t)node >= f->n_nodes)
		return FABRIC_NONE;
	n = &f->nodes[node];
	if (fabric_is_switch(n))
		return node;
	if (port < 1 || port > n->num_ports)
		return FABRIC_NONE;
	p = &n->ports[port];
	return p->remote_node != FABRIC_NONE && fabric_is_switch(&f->nodes[p->remote_node])
		   ? p->remote_node
		   : FABRIC_NONE;
}

int lft_set_sls_differ(const struct lft_set *a, const struct lft_set *b)
{
	unsigned end = a->sl_top > b->sl_top ? a->sl_top : b->sl_top;
	size_t n = a->n > b->n ? a->n : b->n;

	if (!a->path_sl && !b->path_sl) {
		for (unsigned d = 0; (a->sl || b->sl) && d <= end; d++)
			if (lft_set_sl(a, (uint16_t)d) != lft_set_sl(b, (uint16_t)d))
				return 1;
		return 0;
	}
	if (a->n != b->n)
		return 1;
	for (size_t i = 0; i < n; i++)
		for (unsigned d = 0; d <= end; d++)
			if (a->tables[i].node != b->tables[i].node ||
			    lft_set_sl_at(a, i, (uint16_t)d) != lft_set_sl_at(b, i, (uint16_t)d))
				return 1;
	return 0;
}

static int lft_table_alloc(struct lft *t, int node, uint16_t max_lid)
{
	t->node = node;
	t->top = max_lid;
	t->port = malloc((size_t)max_lid + 1);
	if (!t->port)
		return -ENOMEM;
	memset(t->port, LFT_DROP, (size_t)max_lid + 1);
	return 0;
}

int lft_set_alloc(struct lft_set *s, const struct fabric *f, uint16_t max_lid)
{
	size_t n = fabric_count_switches(f);

	if (max_lid > LID_UNICAST_MAX)
		return -EINVAL;
	lft_set_fini(s);
	s->tables = calloc(n ? n : 1, sizeof(*s->tables));
	if (!s->tables)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nodes; i++) {
		if (!fabric_is_switch(&f->nodes[i]))
			continue;
		if (lft_table_alloc(&s->tables[s->n++], (int)i, max_lid)) {
			lft_set_fini(s);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Tables are in node order, so a binary search finds one. */
const struct lft *lft_set_find_const(const struct lft_set *s, int sw)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->tables[mid].node == sw)
			return &s->tables[mid];
		if (s->tables[mid].node < sw)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct lft *lft_set_find(const struct lft_set *s, int sw)
{
	return (struct lft *)lft_set_find_const(s, sw);
}

void lft_put_block(struct lft *t, uint32_t block, const uint8_t *ports)
{
	for (unsigned i = 0; i < LFT_BLOCK_SIZE; i++) {
		uint32_t lid = block * LFT_BLOCK_SIZE + i;

		if (lid <= t->top)
			t->port[lid] = ports[i];
	}
}

uint16_t fabric_max_lft_top(const struct fabric *f)
{
	uint16_t top = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		if (fabric_is_switch(&f->nodes[i]) && f->nodes[i].lft_top > top)
			top = f->nodes[i].lft_top;
	return top > LID_UNICAST_MAX ? LID_UNICAST_MAX : top;
}

int lft_set_copy(struct lft_set *dst, const struct lft_set *src)
{
	lft_set_fini(dst);
	dst->tables = calloc(src->n ? src->n : 1, sizeof(*dst->tables));
	if (!dst->tables)
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++) {
		const struct lft *t = &src->tables[i];

		dst->tables[i] = *t;
		dst->tables[i].port = malloc((size_t)t->top + 1);
		if (!dst->tables[i].port) {
			lft_set_fini(dst);
			return -ENOMEM;
		}
		dst->n = i + 1;
		memcpy(dst->tables[i].port, t->port, (size_t)t->top + 1);
	}
	if (src->sl) {
		if (lft_set_alloc_sl(dst, src->sl_top)) {
			lft_set_fini(dst);
			return -ENOMEM;
		}
		memcpy(dst->sl, src->sl, (size_t)src->sl_top + 1);
	}
	if (src->path_sl && lft_set_alloc_path_sl(dst)) {
		lft_set_fini(dst);
		return -ENOMEM;
	}
	if (src->path_sl)
		memcpy(dst->path_sl, src->path_sl, src->n * ((size_t)src->sl_top + 1));
	dst->n_vls = src->n_vls;
	return 0;
}
