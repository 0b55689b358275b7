/*
 * policy.c - struct policy as data: defaults, the list helpers, equality,
 * names of enum values, and policy_parse (read the tree, build, free).
 * Pure: no I/O, no globals, no logging; never touches libyaml itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/policy.h"
#include "config/policy_doc.h"

void policy_init(struct policy *p)
{
	static const char *const engines[] = {"ftree", "vlsp", "updn", "minhop"};

	memset(p, 0, sizeof(*p));
	p->sm.sweep_interval = 10;
	p->sm.window = 16;
	p->sm.mad_timeout_ms = 200;
	p->sm.mad_retries = 3;
	snprintf(p->sm.guid2lid, sizeof(p->sm.guid2lid), "%s", POLICY_DEFAULT_GUID2LID);
	p->sm.log_level = POLICY_LOG_INFO;
	policy_monitor_init(&p->monitor);
	policy_sa_init(&p->sa);
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		const struct route_engine *e = route_engine_find(engines[i]);

		if (e) /* always, unless an engine leaves the table */
			p->routing.engine[p->routing.n_engine++] = e;
	}
}

void policy_fini(struct policy *p)
{
	free(p->routing.roots);
	free(p->lids.statics);
	free(p->node_names);
	for (size_t i = 0; i < p->n_partitions; i++)
		free(p->partitions[i].members);
	free(p->partitions);
	policy_init(p);
}

/* Make room for element n of *arr (elements of size bytes): the array
 * doubles when n reaches 4, 8, 16, ...  Only arrays grown here are valid. */
static int policy_grow(void *arr, size_t n, size_t size)
{
	void **slot = arr;
	void *grown;

	if (n != 0 && (n < 4 || (n & (n - 1)) != 0))
		return 0;
	grown = realloc(*slot, (n ? 2 * n : 4) * size);
	if (!grown)
		return -ENOMEM;
	*slot = grown;
	return 0;
}

int policy_root_add(struct policy *p, uint64_t guid)
{
	if (policy_grow(&p->routing.roots, p->routing.n_roots, sizeof(*p->routing.roots)) < 0)
		return -ENOMEM;
	p->routing.roots[p->routing.n_roots++] = guid;
	return 0;
}

int policy_static_add(struct policy *p, uint64_t guid, uint16_t lid)
{
	if (policy_grow(&p->lids.statics, p->lids.n_statics, sizeof(*p->lids.statics)) < 0)
		return -ENOMEM;
	p->lids.statics[p->lids.n_statics++] = (struct policy_static_lid){guid, lid};
	return 0;
}

int policy_node_name_add(struct policy *p, uint64_t guid, const char *name)
{
	struct policy_node_name *nn;

	if (strlen(name) > POLICY_NAME_MAX)
		return -ENAMETOOLONG;
	if (policy_grow(&p->node_names, p->n_node_names, sizeof(*p->node_names)) < 0)
		return -ENOMEM;
	nn = &p->node_names[p->n_node_names++];
	nn->guid = guid;
	snprintf(nn->name, sizeof(nn->name), "%s", name);
	return 0;
}

struct policy_partition *policy_partition_add(struct policy *p, const char *name, uint16_t pkey,
					      int ipoib, unsigned mtu)
{
	struct policy_partition *part;

	if (strlen(name) > POLICY_NAME_MAX)
		return NULL;
	if (policy_grow(&p->partitions, p->n_partitions, sizeof(*p->partitions)) < 0)
		return NULL;
	part = &p->partitions[p->n_partitions++];
	memset(part, 0, sizeof(*part));
	snprintf(part->name, sizeof(part->name), "%s", name);
	part->pkey = pkey;
	part->ipoib = !!ipoib;
	part->mtu = mtu;
	part->rate = POLICY_RATE_DEFAULT;
	return part;
}

int policy_member_add(struct policy_partition *part, enum policy_member_kind kind, uint64_t guid,
		      enum policy_membership membership)
{
	if (policy_grow(&part->members, part->n_members, sizeof(*part->members)) < 0)
		return -ENOMEM;
	part->members[part->n_members++] = (struct policy_member){
	    .kind = kind, .guid = kind == POLICY_MEMBER_GUID ? guid : 0, .membership = membership};
	return 0;
}

int policy_rate_valid(unsigned long long gbps)
{
	static const unsigned rates[] = {5,  10, 14,  20,  25,	28,  30,  40,  50,  56,
					 60, 80, 100, 112, 120, 168, 200, 300, 400, 600};

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i] == gbps)
			return 1;
	return 0;
}

int policy_member_add_name(struct policy_partition *part, const char *name, unsigned port,
			   enum policy_membership membership)
{
	struct policy_member *m;

	if (strlen(name) > POLICY_NAME_MAX)
		return -ENAMETOOLONG;
	if (policy_grow(&part->members, part->n_members, sizeof(*part->members)) < 0)
		return -ENOMEM;
	m = &part->members[part->n_members++];
	*m = (struct policy_member){
	    .kind = POLICY_MEMBER_NAME, .port = port, .membership = membership};
	snprintf(m->name, sizeof(m->name), "%s", name);
	return 0;
}

/* ---- names ---- */

/* The words of each level, indexed by enum policy_log_level: its name,
 * then the short form syslog uses (err, warn). */
static const char *const policy_log_level_words[][2] = {
    {"error", "err"}, {"warning", "warn"}, {"info", NULL}, {"debug", NULL}};

#define POLICY_LOG_LEVELS (sizeof(policy_log_level_words) / sizeof(policy_log_level_words[0]))

const char *policy_log_level_name(enum policy_log_level l)
{
	return (unsigned)l < POLICY_LOG_LEVELS ? policy_log_level_words[l][0] : "?";
}

int policy_log_level_parse(const char *word, enum policy_log_level *out)
{
	for (size_t i = 0; word && i < POLICY_LOG_LEVELS; i++) {
		for (size_t k = 0; k < 2; k++) {
			const char *w = policy_log_level_words[i][k];

			if (w && !strcasecmp(word, w)) {
				*out = (enum policy_log_level)i;
				return 0;
			}
		}
	}
	return -EINVAL;
}

const char *policy_membership_name(enum policy_membership m)
{
	return m == POLICY_FULL ? "full" : "limited";
}

const char *policy_member_group_name(enum policy_member_kind k)
{
	switch (k) {
	case POLICY_MEMBER_ALL:
		return "ALL";
	case POLICY_MEMBER_ALL_CAS:
		return "ALL_CAS";
	case POLICY_MEMBER_ALL_SWITCHES:
		return "ALL_SWITCHES";
	case POLICY_MEMBER_SELF:
		return "SELF";
	default:
		return NULL;
	}
}

size_t policy_engine_list(const struct policy *p, char *buf, size_t len)
{
	size_t off = 0;

	if (buf && len)
		buf[0] = '\0';
	for (size_t i = 0; i < p->routing.n_engine; i++) {
		size_t room = buf && off < len ? len - off : 0;
		int n = snprintf(room ? buf + off : NULL, room, "%s%s", i ? "," : "",
				 p->routing.engine[i]->name);

		if (n > 0)
			off += (size_t)n;
	}
	return off;
}

/* ---- equality ---- */

static int policy_sm_equal(const struct policy_sm *a, const struct policy_sm *b)
{
	return a->guid == b->guid && !strcmp(a->ca, b->ca) && a->port == b->port &&
	       a->priority == b->priority && a->sweep_interval == b->sweep_interval &&
	       a->window == b->window && a->mad_timeout_ms == b->mad_timeout_ms &&
	       a->mad_retries == b->mad_retries && !strcmp(a->guid2lid, b->guid2lid) &&
	       !strcmp(a->topology, b->topology) && a->log_level == b->log_level &&
	       a->m_key == b->m_key && a->m_key_protect == b->m_key_protect &&
	       a->m_key_lease == b->m_key_lease && a->sm_key == b->sm_key;
}

static int policy_routing_equal(const struct policy_routing *a, const struct policy_routing *b)
{
	if (a->n_engine != b->n_engine || a->n_roots != b->n_roots)
		return 0;
	for (size_t i = 0; i < a->n_engine; i++)
		if (a->engine[i] != b->engine[i])
			return 0;
	return a->n_roots == 0 || !memcmp(a->roots, b->roots, a->n_roots * sizeof(*a->roots));
}

static int policy_lids_equal(const struct policy_lids *a, const struct policy_lids *b)
{
	if (a->lmc != b->lmc || a->reclaim_age != b->reclaim_age || a->n_statics != b->n_statics)
		return 0;
	for (size_t i = 0; i < a->n_statics; i++)
		if (a->statics[i].guid != b->statics[i].guid ||
		    a->statics[i].lid != b->statics[i].lid)
			return 0;
	return 1;
}

static int policy_node_names_equal(const struct policy *a, const struct policy *b)
{
	if (a->n_node_names != b->n_node_names)
		return 0;
	for (size_t i = 0; i < a->n_node_names; i++)
		if (a->node_names[i].guid != b->node_names[i].guid ||
		    strcmp(a->node_names[i].name, b->node_names[i].name))
			return 0;
	return 1;
}

static int policy_member_equal(const struct policy_member *a, const struct policy_member *b)
{
	return a->kind == b->kind && a->guid == b->guid && !strcmp(a->name, b->name) &&
	       a->port == b->port && a->membership == b->membership;
}

/* Same name, P_Key, flags and members in the same order. */
static int policy_partition_equal(const struct policy_partition *a,
				  const struct policy_partition *b)
{
	if (strcmp(a->name, b->name) || a->pkey != b->pkey || a->ipoib != b->ipoib ||
	    a->mtu != b->mtu || a->rate != b->rate || a->n_members != b->n_members)
		return 0;
	for (size_t i = 0; i < a->n_members; i++)
		if (!policy_member_equal(&a->members[i], &b->members[i]))
			return 0;
	return 1;
}

int policy_equal(const struct policy *a, const struct policy *b)
{
	if (!policy_sm_equal(&a->sm, &b->sm) || !policy_monitor_equal(&a->monitor, &b->monitor) ||
	    !policy_routing_equal(&a->routing, &b->routing) ||
	    !policy_lids_equal(&a->lids, &b->lids) || !policy_node_names_equal(a, b) ||
	    !policy_sa_equal(&a->sa, &b->sa) || a->n_partitions != b->n_partitions)
		return 0;
	for (size_t i = 0; i < a->n_partitions; i++)
		if (!policy_partition_equal(&a->partitions[i], &b->partitions[i]))
			return 0;
	return 1;
}

/* ---- parse ---- */

int policy_parse(const char *text, size_t len, const char *name, struct policy *out, char *err,
		 size_t errlen)
{
	struct policy_doc *root;
	int rc;

	policy_init(out);
	if (!name)
		name = "policy";
	rc = policy_yaml_read(text, len, name, &root, err, errlen);
	if (rc == 0) {
		rc = policy_build(root, name, out, err, errlen);
		policy_yaml_free(root);
	}
	if (rc == -ENOMEM && err && errlen)
		snprintf(err, errlen, "%s: out of memory", name);
	if (rc < 0)
		policy_fini(out);
	return rc;
}
