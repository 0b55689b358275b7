/*
 * config/pkey_member.c - partition members matched against a fabric (see
 * pkey_member.h): the GUID and name indexes, the ports a member names, and
 * what a member that names none matched instead.  Pure: reads the fabric
 * and the policy, writes only its own index and the caller's buffers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/pkey_member.h"
#include "mad/text.h"

/* A port GUID (or a switch's NodeGUID) and the LID-owning port it names. */
struct pkey_member_guid {
	uint64_t guid;
	int node;
	uint8_t port;
};

/* A name a node answers to: a node_names name, its NodeDescription, or the
 * NodeDescription's first word (s is borrowed; len bytes, no NUL). */
struct pkey_member_name {
	const char *s;
	size_t len;
	int node;
};

int pkey_member_owns_lid(const struct fabric_node *n, unsigned port)
{
	if (fabric_is_switch(n))
		return port == 0;
	return port != 0 && port <= n->num_ports && n->ports[port].present;
}

/* ---- the indexes ------------------------------------------------------ */

static int pkey_member_guid_cmp(const void *a, const void *b)
{
	const struct pkey_member_guid *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

static int pkey_members_index_guids(struct pkey_members *x)
{
	const struct fabric *f = x->f;
	size_t n = 0;

	for (size_t i = 0; i < f->n_nodes; i++)
		n += (size_t)f->nodes[i].num_ports + 2;
	x->guids = calloc(n ? n : 1, sizeof(*x->guids));
	if (!x->guids)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *nd = &f->nodes[i];

		for (unsigned p = 0; p <= nd->num_ports; p++) {
			uint64_t pg = nd->ports[p].guid;

			if (!pkey_member_owns_lid(nd, p))
				continue;
			if (pg)
				x->guids[x->n_guids++] =
				    (struct pkey_member_guid){pg, (int)i, (uint8_t)p};
			if (fabric_is_switch(nd) && nd->guid != pg)
				x->guids[x->n_guids++] =
				    (struct pkey_member_guid){nd->guid, (int)i, (uint8_t)p};
		}
	}
	qsort(x->guids, x->n_guids, sizeof(*x->guids), pkey_member_guid_cmp);
	return 0;
}

/* By name bytes, shorter first on a tie, then by node. */
static int pkey_member_name_cmp(const void *a, const void *b)
{
	const struct pkey_member_name *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

static void pkey_members_name_add(struct pkey_members *x, const char *s, size_t len, int node)
{
	if (len)
		x->byname[x->n_byname++] = (struct pkey_member_name){s, len, node};
}

static int pkey_members_index_names(struct pkey_members *x)
{
	const struct fabric *f = x->f;

	x->byname = calloc(x->n_names + 2 * f->n_nodes + 1, sizeof(*x->byname));
	if (!x->byname)
		return -ENOMEM;
	for (size_t i = 0; i < x->n_names; i++) {
		int node = fabric_find(f, x->names[i].guid);

		if (node != FABRIC_NONE)
			pkey_members_name_add(x, x->names[i].name, strlen(x->names[i].name), node);
	}
	for (size_t i = 0; i < f->n_nodes; i++) {
		const char *d = f->nodes[i].desc;
		size_t len = strnlen(d, sizeof(f->nodes[i].desc));
		const char *blank = memchr(d, ' ', len);

		pkey_members_name_add(x, d, len, (int)i);
		if (blank)
			pkey_members_name_add(x, d, (size_t)(blank - d), (int)i);
	}
	qsort(x->byname, x->n_byname, sizeof(*x->byname), pkey_member_name_cmp);
	return 0;
}

int pkey_members_init(struct pkey_members *x, const struct fabric *f,
		      const struct policy_node_name *names, size_t n_names)
{
	memset(x, 0, sizeof(*x));
	x->f = f;
	x->names = names;
	x->n_names = names ? n_names : 0;
	if (pkey_members_index_guids(x) < 0 || pkey_members_index_names(x) < 0) {
		pkey_members_fini(x);
		return -ENOMEM;
	}
	return 0;
}

void pkey_members_fini(struct pkey_members *x)
{
	free(x->guids);
	free(x->byname);
	memset(x, 0, sizeof(*x));
}

/* ---- the ports a member names ----------------------------------------- */

/* The first index entry with this GUID / name (or one past the end). */
static size_t pkey_members_guid_first(const struct pkey_members *x, uint64_t guid)
{
	return text_u64_lower_bound(x->guids, x->n_guids, sizeof(*x->guids),
				    offsetof(struct pkey_member_guid, guid), guid);
}

static size_t pkey_members_name_first(const struct pkey_members *x, const char *name)
{
	struct pkey_member_name key = {name, strlen(name), -1};
	size_t lo = 0, hi = x->n_byname;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pkey_member_name_cmp(&x->byname[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int pkey_members_name_is(const struct pkey_members *x, size_t i, const char *name)
{
	return i < x->n_byname && x->byname[i].len == strlen(name) &&
	       !memcmp(x->byname[i].s, name, x->byname[i].len);
}

typedef int (*pkey_member_visit_fn)(void *arg, int node, uint8_t port);

static int pkey_member_visit(pkey_member_visit_fn visit, void *arg, int node, unsigned port,
			     int *count)
{
	int rc = visit ? visit(arg, node, (uint8_t)port) : 0;

	if (rc < 0)
		return rc;
	(*count)++;
	return 0;
}

static int pkey_member_by_guid(const struct pkey_members *x, uint64_t guid,
			       pkey_member_visit_fn visit, void *arg)
{
	int count = 0, rc = 0;

	for (size_t i = pkey_members_guid_first(x, guid);
	     rc == 0 && i < x->n_guids && x->guids[i].guid == guid; i++)
		rc = pkey_member_visit(visit, arg, x->guids[i].node, x->guids[i].port, &count);
	return rc < 0 ? rc : count;
}

/* The ports of one node a name member names: the given one or all. */
static int pkey_member_node_ports(const struct pkey_members *x, int node, unsigned port,
				  pkey_member_visit_fn visit, void *arg, int *count)
{
	const struct fabric_node *n = &x->f->nodes[node];
	int rc = 0;

	if (port)
		return pkey_member_owns_lid(n, port)
			   ? pkey_member_visit(visit, arg, node, port, count)
			   : 0;
	for (unsigned p = 0; rc == 0 && p <= n->num_ports; p++)
		if (pkey_member_owns_lid(n, p))
			rc = pkey_member_visit(visit, arg, node, p, count);
	return rc;
}

static int pkey_member_by_name(const struct pkey_members *x, const struct policy_member *m,
			       pkey_member_visit_fn visit, void *arg)
{
	int count = 0, rc = 0, last = FABRIC_NONE;

	for (size_t i = pkey_members_name_first(x, m->name);
	     rc == 0 && pkey_members_name_is(x, i, m->name); i++) {
		if (x->byname[i].node == last)
			continue; /* named and described the same way */
		last = x->byname[i].node;
		rc = pkey_member_node_ports(x, last, m->port, visit, arg, &count);
	}
	return rc < 0 ? rc : count;
}

int pkey_member_ports(const struct pkey_members *x, const struct policy_member *m,
		      int (*visit)(void *arg, int node, uint8_t port), void *arg)
{
	if (m->kind == POLICY_MEMBER_GUID)
		return pkey_member_by_guid(x, m->guid, visit, arg);
	if (m->kind == POLICY_MEMBER_NAME)
		return pkey_member_by_name(x, m, visit, arg);
	return 0;
}

/* ---- what an unmatched member matched instead ------------------------- */

struct pkey_text {
	char *buf;
	size_t len, off;
};

static void pkey_text_add(struct pkey_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void pkey_text_add(struct pkey_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->off >= t->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->off, t->len - t->off, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->off += (size_t)n;
}

/* What a hint calls a node: its node_names name, else its NodeDescription,
 * else its GUID. */
static const char *pkey_member_label(const struct pkey_members *x, int node, char *buf, size_t len)
{
	const struct fabric_node *n = &x->f->nodes[node];

	for (size_t i = 0; i < x->n_names; i++)
		if (x->names[i].guid == n->guid)
			return x->names[i].name;
	if (n->desc[0])
		return n->desc;
	snprintf(buf, len, "node 0x%016" PRIx64, n->guid);
	return buf;
}

/* "its port 1 is 0x...", "its ports are 1: 0x..., 2: 0x..." or "it has no
 * port up". */
static void pkey_member_port_list(struct pkey_text *t, const struct fabric_node *n)
{
	unsigned owners = 0, said = 0;

	for (unsigned p = 0; p <= n->num_ports; p++)
		owners += (unsigned)pkey_member_owns_lid(n, p);
	if (!owners) {
		pkey_text_add(t, "it has no port up");
		return;
	}
	pkey_text_add(t, owners == 1 ? "its port" : "its ports are");
	for (unsigned p = 0; p <= n->num_ports; p++) {
		if (!pkey_member_owns_lid(n, p))
			continue;
		if (owners == 1)
			pkey_text_add(t, " %u is 0x%016" PRIx64, p, n->ports[p].guid);
		else
			pkey_text_add(t, "%s %u: 0x%016" PRIx64, said++ ? "," : "", p,
				      n->ports[p].guid);
	}
}

static void pkey_member_why_guid(const struct pkey_members *x, uint64_t guid, struct pkey_text *t)
{
	int node = fabric_find(x->f, guid);
	char buf[40];
	const char *label;

	if (node == FABRIC_NONE) {
		pkey_text_add(t, "no port or node of the fabric has this GUID (a host that is down "
				 "or not cabled, or a typo?)");
		return;
	}
	label = pkey_member_label(x, node, buf, sizeof(buf));
	pkey_text_add(t, "0x%016" PRIx64 " is the node GUID of %s, not a port GUID; ", guid, label);
	pkey_member_port_list(t, &x->f->nodes[node]);
	if (label != buf)
		pkey_text_add(t, " (or write {name: \"%s\"})", label);
}

/* A name no node answers to: node_names may give it to a node not in the
 * fabric, or it differs only in case from one that is. */
static void pkey_member_why_nobody(const struct pkey_members *x, const char *name,
				   struct pkey_text *t)
{
	for (size_t i = 0; i < x->n_names; i++) {
		if (!strcmp(x->names[i].name, name)) {
			pkey_text_add(t,
				      "node_names gives this name to 0x%016" PRIx64
				      ", which is not in the fabric",
				      x->names[i].guid);
			return;
		}
	}
	pkey_text_add(t, "no node is called so (by node_names or NodeDescription)");
	for (size_t i = 0; i < x->n_byname; i++) {
		if (x->byname[i].len == strlen(name) &&
		    !strncasecmp(x->byname[i].s, name, x->byname[i].len)) {
			pkey_text_add(t, " (did you mean '%.*s'?)", (int)x->byname[i].len,
				      x->byname[i].s);
			return;
		}
	}
}

static void pkey_member_why_name(const struct pkey_members *x, const struct policy_member *m,
				 struct pkey_text *t)
{
	size_t i = pkey_members_name_first(x, m->name);
	const struct fabric_node *n;
	char buf[40];
	const char *label;

	if (!pkey_members_name_is(x, i, m->name)) {
		pkey_member_why_nobody(x, m->name, t);
		return;
	}
	n = &x->f->nodes[x->byname[i].node];
	label = pkey_member_label(x, x->byname[i].node, buf, sizeof(buf));
	if (!m->port) {
		pkey_text_add(t, "%s has no port up", label);
	} else if (fabric_is_switch(n)) {
		pkey_text_add(t,
			      "%s is a switch: only its port 0 has a P_Key table of its own "
			      "(leave 'port' out)",
			      label);
	} else if (m->port > n->num_ports) {
		pkey_text_add(t, "%s has %u port%s; ", label, n->num_ports,
			      n->num_ports == 1 ? "" : "s");
		pkey_member_port_list(t, n);
	} else {
		pkey_text_add(t, "%s port %u is down or not cabled; ", label, m->port);
		pkey_member_port_list(t, n);
	}
}

static void pkey_member_unmatched_text(const struct pkey_members *x,
				       const struct policy_partition *part,
				       const struct policy_member *m, char *buf, size_t len)
{
	struct pkey_text t = {buf, len, 0};

	pkey_text_add(&t, "partition '%s' (0x%04x): member ", part->name, part->pkey);
	if (m->kind == POLICY_MEMBER_GUID)
		pkey_text_add(&t, "0x%016" PRIx64, m->guid);
	else
		pkey_text_add(&t, m->port ? "name '%s' port %u" : "name '%s'", m->name, m->port);
	pkey_text_add(&t, " matches no port: ");
	if (m->kind == POLICY_MEMBER_GUID)
		pkey_member_why_guid(x, m->guid, &t);
	else
		pkey_member_why_name(x, m, &t);
}

static int pkey_unmatched_push(struct pkey_unmatched **v, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		struct pkey_unmatched *bigger = realloc(*v, c * sizeof(**v));

		if (!bigger)
			return -ENOMEM;
		*v = bigger;
		*cap = c;
	}
	return 0;
}

/* Any guid or name member in parts?  (Groups alone need no index.) */
static int pkey_has_selectors(const struct policy_partition *parts, size_t n_parts)
{
	for (size_t i = 0; parts && i < n_parts; i++)
		for (size_t j = 0; j < parts[i].n_members; j++)
			if (parts[i].members[j].kind == POLICY_MEMBER_GUID ||
			    parts[i].members[j].kind == POLICY_MEMBER_NAME)
				return 1;
	return 0;
}

int pkey_unmatched_find(const struct policy_partition *parts, size_t n_parts,
			const struct policy_node_name *names, size_t n_names,
			const struct fabric *f, struct pkey_unmatched **out, size_t *n)
{
	struct pkey_members x;
	size_t cap = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!f->n_nodes || !pkey_has_selectors(parts, n_parts))
		return 0;
	if (pkey_members_init(&x, f, names, n_names) < 0)
		return -ENOMEM;
	for (size_t i = 0; rc == 0 && i < n_parts; i++) {
		for (size_t j = 0; rc == 0 && j < parts[i].n_members; j++) {
			const struct policy_member *m = &parts[i].members[j];

			if ((m->kind != POLICY_MEMBER_GUID && m->kind != POLICY_MEMBER_NAME) ||
			    pkey_member_ports(&x, m, NULL, NULL) > 0)
				continue;
			rc = pkey_unmatched_push(out, n, &cap);
			if (rc < 0)
				break;
			(*out)[*n] = (struct pkey_unmatched){.part = i, .member = j};
			pkey_member_unmatched_text(&x, &parts[i], m, (*out)[*n].text,
						   sizeof((*out)[*n].text));
			(*n)++;
		}
	}
	pkey_members_fini(&x);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}
