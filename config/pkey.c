/*
 * config/pkey.c - the partition plan: policy partitions -> one P_Key table per
 * port, and the membership queries the SA asks (see pkey.h).  Pure: reads
 * the fabric and the policy, writes only the plan; no I/O, no logging.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey.h"
#include "config/pkey_member.h"

#define PKEY_DEFAULT_BASE 0x7fffu

/* Working state of one pkey_plan_build call. */
struct pkey_build {
	const struct fabric *f;
	struct pkey_port_table *own; /* LID-owning ports, (node, port) order */
	size_t n_own;
	struct pkey_members idx; /* which ports a guid or name member names */
	int sm_node;
	uint8_t sm_port;
	char *err;
	size_t errlen;
};

void pkey_plan_init(struct pkey_plan *pp)
{
	pp->t = NULL;
	pp->n = 0;
}

void pkey_plan_fini(struct pkey_plan *pp)
{
	free(pp->t);
	pkey_plan_init(pp);
}

/* ---- Ports the plan covers ------------------------------------------- */

/* One empty table per LID-owning port; sets b->own / b->n_own. */
static int pkey_collect_owners(struct pkey_build *b)
{
	const struct fabric *f = b->f;
	size_t n = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			n += (size_t)pkey_member_owns_lid(&f->nodes[i], p);
	b->own = calloc(n ? n : 1, sizeof(*b->own));
	if (!b->own)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
			if (pkey_member_owns_lid(&f->nodes[i], p)) {
				b->own[b->n_own].node = (int)i;
				b->own[b->n_own++].port = (uint8_t)p;
			}
	return 0;
}

static int pkey_table_cmp(const void *a, const void *b)
{
	const struct pkey_port_table *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

/* The table of (node, port) in an array sorted by (node, port), or NULL. */
static struct pkey_port_table *pkey_find(const struct pkey_port_table *t, size_t n, int node,
					 uint8_t port)
{
	struct pkey_port_table key = {.node = node, .port = port};

	if (!t || !n)
		return NULL;
	return bsearch(&key, t, n, sizeof(key), pkey_table_cmp);
}

static uint64_t pkey_port_guid(const struct fabric *f, const struct pkey_port_table *t)
{
	const struct fabric_node *n = &f->nodes[t->node];

	return n->ports[t->port].guid ? n->ports[t->port].guid : n->guid;
}

/* ---- Memberships ----------------------------------------------------- */

/* Put base into one port's table (full beats limited); -E2BIG when full. */
static int pkey_add(struct pkey_build *b, size_t owner, uint16_t base, int full)
{
	struct pkey_port_table *t = &b->own[owner];
	uint16_t key = (uint16_t)(base | (full ? PKEY_FULL : 0));

	for (unsigned i = 0; i < t->n; i++) {
		if (PKEY_BASE(t->pkey[i]) != base)
			continue;
		t->pkey[i] |= key;
		return 0;
	}
	if (t->n == PKEY_TABLE_MAX) {
		snprintf(
		    b->err, b->errlen,
		    "port 0x%016llx/%u: in more than %d partitions (P_Key 0x%04x does not fit)",
		    (unsigned long long)pkey_port_guid(b->f, t), t->port, PKEY_TABLE_MAX, base);
		return -E2BIG;
	}
	t->pkey[t->n++] = key;
	return 0;
}

/* One port a guid or name member names (pkey_member_ports' visitor). */
struct pkey_visit {
	struct pkey_build *b;
	uint16_t base;
	int full;
};

static int pkey_add_port(void *arg, int node, uint8_t port)
{
	struct pkey_visit *v = arg;
	const struct pkey_port_table *t = pkey_find(v->b->own, v->b->n_own, node, port);

	return t ? pkey_add(v->b, (size_t)(t - v->b->own), v->base, v->full) : 0;
}

static int pkey_add_self(struct pkey_build *b, uint16_t base, int full)
{
	const struct pkey_port_table *t;
	uint8_t port = b->sm_port;

	if (b->sm_node < 0 || (size_t)b->sm_node >= b->f->n_nodes)
		return 0;
	if (fabric_is_switch(&b->f->nodes[b->sm_node]))
		port = 0;
	t = pkey_find(b->own, b->n_own, b->sm_node, port);
	return t ? pkey_add(b, (size_t)(t - b->own), base, full) : 0;
}

/* Does a group member name this owner port?  ALL_CAS takes routers too:
 * like the rest of nanosm, it means every LID-owning port not a switch's. */
static int pkey_in_group(const struct pkey_build *b, size_t owner, enum policy_member_kind kind)
{
	int sw = fabric_is_switch(&b->f->nodes[b->own[owner].node]);

	return kind == POLICY_MEMBER_ALL || (kind == POLICY_MEMBER_ALL_CAS && !sw) ||
	       (kind == POLICY_MEMBER_ALL_SWITCHES && sw);
}

static int pkey_add_member(struct pkey_build *b, const struct policy_member *m, uint16_t base)
{
	int full = m->membership == POLICY_FULL;
	int rc = 0;

	if (m->kind == POLICY_MEMBER_GUID || m->kind == POLICY_MEMBER_NAME) {
		struct pkey_visit v = {b, base, full};

		rc = pkey_member_ports(&b->idx, m, pkey_add_port, &v);
		return rc < 0 ? rc : 0; /* none: pkey_unmatched_find says why */
	}
	if (m->kind == POLICY_MEMBER_SELF)
		return pkey_add_self(b, base, full);
	for (size_t i = 0; rc == 0 && i < b->n_own; i++)
		if (pkey_in_group(b, i, m->kind))
			rc = pkey_add(b, i, base, full);
	return rc;
}

/* The default partition: everyone full without partitions; everyone
 * limited and the SM full when partitions leave 0x7fff out. */
static int pkey_add_default(struct pkey_build *b, const struct policy_partition *parts,
			    size_t n_parts)
{
	int rc = 0;

	for (size_t i = 0; i < n_parts; i++)
		if (parts[i].pkey == PKEY_DEFAULT_BASE)
			return 0;
	for (size_t i = 0; rc == 0 && i < b->n_own; i++)
		rc = pkey_add(b, i, PKEY_DEFAULT_BASE, n_parts == 0);
	if (rc == 0 && n_parts)
		rc = pkey_add_self(b, PKEY_DEFAULT_BASE, 1);
	return rc;
}

static int pkey_add_partitions(struct pkey_build *b, const struct policy_partition *parts,
			       size_t n_parts)
{
	int rc = pkey_add_default(b, parts, n_parts);

	for (size_t i = 0; rc == 0 && i < n_parts; i++) {
		uint16_t base = PKEY_BASE(parts[i].pkey);

		for (size_t m = 0; rc == 0 && m < parts[i].n_members; m++)
			rc = pkey_add_member(b, &parts[i].members[m], base);
	}
	return rc;
}

/* ---- Assembling the plan --------------------------------------------- */

/* Entry order in a table: the default partition first (index 0, where
 * hosts look for it), then ascending base. */
static int pkey_entry_cmp(const void *a, const void *b)
{
	uint16_t x = PKEY_BASE(*(const uint16_t *)a), y = PKEY_BASE(*(const uint16_t *)b);

	if (x == PKEY_DEFAULT_BASE || y == PKEY_DEFAULT_BASE)
		return (y == PKEY_DEFAULT_BASE) - (x == PKEY_DEFAULT_BASE);
	return (x > y) - (x < y);
}

/* The CA/router port a switch external port faces, or NULL. */
static const struct pkey_port_table *pkey_facing(const struct pkey_build *b, int node,
						 unsigned port)
{
	const struct fabric_port *p = &b->f->nodes[node].ports[port];

	if (port == 0 || p->remote_node < 0 || (size_t)p->remote_node >= b->f->n_nodes ||
	    fabric_is_switch(&b->f->nodes[p->remote_node]))
		return NULL;
	return pkey_find(b->own, b->n_own, p->remote_node, p->remote_port);
}

/* Count (out NULL) or write, in (node, port) order, the owners' tables
 * and the switch ports facing a CA (a copy of the CA port's table). */
static size_t pkey_emit(const struct pkey_build *b, struct pkey_port_table *out)
{
	size_t k = 0, n = 0;

	for (size_t i = 0; i < b->f->n_nodes; i++) {
		const struct fabric_node *nd = &b->f->nodes[i];

		for (unsigned p = 0; p <= nd->num_ports; p++) {
			const struct pkey_port_table *src = NULL;

			if (k < b->n_own && b->own[k].node == (int)i && b->own[k].port == p)
				src = &b->own[k++];
			else if (fabric_is_switch(nd))
				src = pkey_facing(b, (int)i, p);
			if (!src)
				continue;
			if (out) {
				out[n] = *src;
				out[n].node = (int)i;
				out[n].port = (uint8_t)p;
			}
			n++;
		}
	}
	return n;
}

static int pkey_assemble(struct pkey_build *b, struct pkey_plan *out)
{
	size_t n;

	for (size_t i = 0; i < b->n_own; i++)
		qsort(b->own[i].pkey, b->own[i].n, sizeof(uint16_t), pkey_entry_cmp);
	n = pkey_emit(b, NULL);
	out->t = calloc(n ? n : 1, sizeof(*out->t));
	if (!out->t)
		return -ENOMEM;
	out->n = pkey_emit(b, out->t);
	return 0;
}

int pkey_plan_build(struct pkey_plan *pp, const struct policy_partition *parts, size_t n_parts,
		    const struct policy_node_name *names, size_t n_names, const struct fabric *f,
		    int sm_node, uint8_t sm_port, char *err, size_t errlen)
{
	struct pkey_build b = {
	    .f = f, .sm_node = sm_node, .sm_port = sm_port, .err = err, .errlen = errlen};
	struct pkey_plan fresh;
	int rc;

	pkey_plan_init(&fresh);
	if (err && errlen)
		err[0] = '\0';
	rc = pkey_collect_owners(&b);
	if (rc == 0)
		rc = pkey_members_init(&b.idx, f, names, n_names);
	if (rc == 0)
		rc = pkey_add_partitions(&b, parts, parts ? n_parts : 0);
	if (rc == 0)
		rc = pkey_assemble(&b, &fresh);
	free(b.own);
	pkey_members_fini(&b.idx);
	if (rc < 0)
		return rc;
	pkey_plan_fini(pp);
	*pp = fresh;
	return 0;
}

/* ---- Queries --------------------------------------------------------- */

const struct pkey_port_table *pkey_plan_port(const struct pkey_plan *pp, int node, uint8_t port)
{
	return pp ? pkey_find(pp->t, pp->n, node, port) : NULL;
}

/* The entry for base in t (membership bit included), or 0. */
static uint16_t pkey_entry(const struct pkey_port_table *t, uint16_t base)
{
	for (unsigned i = 0; t && i < t->n; i++)
		if (PKEY_BASE(t->pkey[i]) == base)
			return t->pkey[i];
	return 0;
}

int pkey_plan_member(const struct pkey_plan *pp, int node, uint8_t port, uint16_t base)
{
	uint16_t k;

	base = PKEY_BASE(base);
	if (!pp)
		return base == PKEY_DEFAULT_BASE ? 2 : 0;
	k = pkey_entry(pkey_plan_port(pp, node, port), base);
	if (!k)
		return 0;
	return k & PKEY_FULL ? 2 : 1;
}

/* The P_Key of base if both hold it and one of them is a full member. */
static uint16_t pkey_pair(const struct pkey_port_table *a, const struct pkey_port_table *b,
			  uint16_t base)
{
	uint16_t ka = pkey_entry(a, base), kb = pkey_entry(b, base);

	if (!ka || !kb || !((ka | kb) & PKEY_FULL))
		return 0;
	return (uint16_t)(base | PKEY_FULL);
}

uint16_t pkey_plan_shared(const struct pkey_plan *pp, int na, uint8_t pa, int nb, uint8_t pb,
			  uint16_t want)
{
	const struct pkey_port_table *a, *b;
	uint16_t best = 0;

	if (!pp)
		return !want || PKEY_BASE(want) == PKEY_DEFAULT_BASE ? PKEY_DEFAULT : 0;
	a = pkey_plan_port(pp, na, pa);
	b = pkey_plan_port(pp, nb, pb);
	if (!a || !b)
		return 0;
	if (want)
		return pkey_pair(a, b, PKEY_BASE(want));
	if (pkey_pair(a, b, PKEY_DEFAULT_BASE))
		return PKEY_DEFAULT;
	for (unsigned i = 0; i < a->n; i++) {
		uint16_t k = pkey_pair(a, b, PKEY_BASE(a->pkey[i]));

		if (k && (!best || PKEY_BASE(k) < PKEY_BASE(best)))
			best = k;
	}
	return best;
}
