/*
 * policy_partitions.c - the policy's partitions: section: each
 * partition's name, P_Key, IPoIB group (MTU, rate) and members, by GUID,
 * by node name and port, or by group; names, P_Keys and members once
 * each.  What the members mean on a fabric is config/pkey.c's.  Pure; the
 * walkers are policy_build.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config/policy.h"
#include "config/policy_build_priv.h"
#include "config/policy_doc.h"
#include "config/policy_seen.h"

static const char *const policy_groups[] = {"ALL", "ALL_CAS", "ALL_SWITCHES", "SELF"};

static int policy_build_member_guid(struct policy_build *b, const struct policy_key *k,
				    const struct policy_doc *val, void *obj)
{
	struct policy_member *m = obj;
	int group;

	for (group = 0; group < 4; group++)
		if (val->kind == POLICY_DOC_SCALAR && !strcmp(val->text, policy_groups[group]))
			return policy_build_fail(b, val,
						 "guid: %s is a group of ports: write "
						 "'group: %s'",
						 val->text, val->text);
	m->kind = POLICY_MEMBER_GUID;
	return policy_build_guid(b, k->key, val, &m->guid);
}

static int policy_build_member_group(struct policy_build *b, const struct policy_key *k,
				     const struct policy_doc *val, void *obj)
{
	struct policy_member *m = obj;
	int group = 0;
	int rc = policy_build_enum(b, k->key, val, policy_groups, 4, &group);

	if (rc == 0)
		m->kind = (enum policy_member_kind)(POLICY_MEMBER_ALL + group);
	return rc;
}

/* A node's name: matched against node_names and NodeDescriptions only
 * once the fabric is known (config/pkey.c). */
static int policy_build_member_name(struct policy_build *b, const struct policy_key *k,
				    const struct policy_doc *val, void *obj)
{
	struct policy_member *m = obj;

	m->kind = POLICY_MEMBER_NAME;
	return policy_build_text(b, k->key, val, POLICY_TEXT_ANY, m->name, sizeof(m->name));
}

static int policy_build_membership(struct policy_build *b, const struct policy_key *k,
				   const struct policy_doc *val, void *obj)
{
	static const char *const names[] = {"limited", "full"};
	int full = 0;
	int rc = policy_build_enum(b, k->key, val, names, 2, &full);

	if (rc == 0)
		((struct policy_member *)obj)->membership = full ? POLICY_FULL : POLICY_LIMITED;
	return rc;
}

/* The order of at[] in policy_build_member_one. */
enum policy_member_key { POLICY_MK_GUID, POLICY_MK_NAME, POLICY_MK_PORT, POLICY_MK_GROUP };

static const struct policy_key policy_member_keys[] = {
    {"guid", policy_build_member_guid, 0, 0, 0},
    {"name", policy_build_member_name, 0, 0, 0},
    {"port", policy_build_set_uint, 1, POLICY_PORT_MAX, offsetof(struct policy_member, port)},
    {"group", policy_build_member_group, 0, 0, 0},
    {"membership", policy_build_membership, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};

/* Exactly one of guid, name and group; port only with name.  Returns the
 * key node of the one given, or NULL with the error set. */
static const struct policy_doc *policy_build_member_selector(struct policy_build *b,
							     const struct policy_doc *d,
							     const struct policy_doc **at)
{
	static const enum policy_member_key sel[] = {POLICY_MK_GUID, POLICY_MK_NAME,
						     POLICY_MK_GROUP};
	const struct policy_doc *one = NULL;

	for (size_t i = 0; i < 3; i++) {
		const struct policy_doc *k = at[sel[i]];

		if (k && one) {
			policy_build_fail(b, policy_build_later(one, k),
					  "a member has one of 'guid', 'name' or 'group', not both "
					  "'%s' and '%s'",
					  one->text, k->text);
			return NULL;
		}
		one = k ? k : one;
	}
	if (!one)
		policy_build_fail(b, d, "a member needs 'guid', 'name' or 'group'");
	else if (at[POLICY_MK_PORT] && one != at[POLICY_MK_NAME])
		policy_build_fail(b, at[POLICY_MK_PORT],
				  "port: only a member given by name takes a port ({name: host2, "
				  "port: 1}); a %s names its port(s) already",
				  one->text);
	else
		return one;
	return NULL;
}

/* How a member is told apart from the others of its partition. */
static void policy_build_member_label(const struct policy_member *m, char *buf, size_t len)
{
	if (m->kind == POLICY_MEMBER_GUID)
		snprintf(buf, len, "0x%016" PRIx64, m->guid);
	else if (m->kind == POLICY_MEMBER_NAME && m->port)
		snprintf(buf, len, "name '%s' port %u", m->name, m->port);
	else if (m->kind == POLICY_MEMBER_NAME)
		snprintf(buf, len, "name '%s'", m->name);
	else
		snprintf(buf, len, "group %s", policy_member_group_name(m->kind));
}

/* Members seen before in one partition: by GUID, by name and port, by group. */
struct policy_member_seen {
	struct policy_seen guids, names, groups;
};

static int policy_build_member_add(struct policy_partition *part, const struct policy_member *m)
{
	if (m->kind == POLICY_MEMBER_NAME)
		return policy_member_add_name(part, m->name, m->port, m->membership);
	return policy_member_add(part, m->kind, m->guid, m->membership);
}

static int policy_build_member_one(struct policy_build *b, const struct policy_doc *d,
				   struct policy_partition *part, struct policy_member_seen *seen)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL}, *first, *by;
	struct policy_member m = {.kind = POLICY_MEMBER_GUID, .membership = POLICY_LIMITED};
	struct policy_seen *set = &seen->groups;
	uint64_t key;
	char label[POLICY_NAME_MAX + 32];
	int rc;

	if (d->kind != POLICY_DOC_MAP)
		return policy_build_fail(b, d,
					 "members: each member is a mapping {guid: 0x..., "
					 "membership: full}, {name: host2, port: 1} or {group: "
					 "ALL, membership: limited}");
	rc = policy_build_map(b, d, POLICY_BUILD_MEMBER, policy_member_keys, &m, at);
	if (rc < 0)
		return rc;
	by = policy_build_member_selector(b, d, at);
	if (!by)
		return -EINVAL;
	by = policy_build_value_of(d, by);
	if (m.kind == POLICY_MEMBER_GUID) {
		set = &seen->guids;
		key = m.guid;
	} else if (m.kind == POLICY_MEMBER_NAME) {
		set = &seen->names; /* compares by->text too */
		key = policy_seen_hash(m.name) ^ ((uint64_t)m.port << 40);
	} else {
		key = (uint64_t)m.kind;
	}
	rc = policy_seen_add(set, key, by, &first);
	policy_build_member_label(&m, label, sizeof(label));
	if (rc == 1)
		return policy_build_fail(b, by,
					 "partition '%s': %s is listed twice (first at "
					 "%u:%u)",
					 part->name, label, first->line, first->col);
	return rc < 0 ? rc : policy_build_member_add(part, &m);
}

static int policy_build_members(struct policy_build *b, const struct policy_doc *val,
				struct policy_partition *part)
{
	struct policy_member_seen seen = {.names = {.by_text = 1}};
	int rc = policy_build_is_list(b, "members", val);

	for (size_t i = 0; rc > 0 && i < val->n; i++) {
		rc = policy_build_member_one(b, val->kids[i], part, &seen);
		rc = rc < 0 ? rc : 1;
	}
	policy_seen_fini(&seen.guids);
	policy_seen_fini(&seen.names);
	policy_seen_fini(&seen.groups);
	return rc < 0 ? rc : 0;
}

/* One partition being read; members are read once its name is known. */
struct policy_partition_entry {
	char name[POLICY_NAME_MAX + 1];
	uint16_t pkey;
	int ipoib;
	unsigned mtu, rate;
	const struct policy_doc *name_at, *pkey_at, *members;
};

static int policy_build_part_name(struct policy_build *b, const struct policy_key *k,
				  const struct policy_doc *val, void *obj)
{
	struct policy_partition_entry *e = obj;

	e->name_at = val;
	return policy_build_text(b, k->key, val, POLICY_TEXT_WORD, e->name, sizeof(e->name));
}

/* The base P_Key; the full-membership bit (0x8000) belongs to members. */
static int policy_build_part_pkey(struct policy_build *b, const struct policy_key *k,
				  const struct policy_doc *val, void *obj)
{
	struct policy_key any = {k->key, NULL, 0, 0xffff, 0};
	struct policy_partition_entry *e = obj;
	unsigned long long v;
	int rc = policy_build_uint(b, &any, val, 1, &v);

	if (rc < 0)
		return rc;
	if ((v & 0x8000) && (v & 0x7fff))
		return policy_build_fail(b, val,
					 "pkey: 0x%04llx has the full-membership bit "
					 "(0x8000) set: write 0x%04llx and give each member "
					 "'membership: full' or 'limited'",
					 v, v & 0x7fff);
	if (v < k->min || v > k->max)
		return policy_build_fail(b, val,
					 "pkey: %s is not a valid P_Key (0x%04llx.."
					 "0x%04llx)",
					 val->text, k->min, k->max);
	e->pkey = (uint16_t)v;
	e->pkey_at = val;
	return 0;
}

static int policy_build_part_ipoib(struct policy_build *b, const struct policy_key *k,
				   const struct policy_doc *val, void *obj)
{
	return policy_build_bool(b, k->key, val, &((struct policy_partition_entry *)obj)->ipoib);
}

static int policy_build_part_mtu(struct policy_build *b, const struct policy_key *k,
				 const struct policy_doc *val, void *obj)
{
	struct policy_key any = {k->key, NULL, 0, ~0ULL, 0};
	unsigned long long v;
	int rc = policy_build_uint(b, &any, val, 0, &v);

	if (rc == 0 && (v < 256 || v > 4096 || (v & (v - 1))))
		return policy_build_fail(b, val,
					 "mtu: %s is not an InfiniBand MTU (256, 512, "
					 "1024, 2048 or 4096)",
					 val->text);
	if (rc == 0)
		((struct policy_partition_entry *)obj)->mtu = (unsigned)v;
	return rc;
}

/* The IPoIB group's rate in Gb/s (IBA 15.2.5.16 Rate); 2.5 (1x SDR)
 * is not offered: a whole number keeps the file simple. */
static int policy_build_part_rate(struct policy_build *b, const struct policy_key *k,
				  const struct policy_doc *val, void *obj)
{
	struct policy_key any = {k->key, NULL, 0, ~0ULL, 0};
	unsigned long long v;
	int rc = policy_build_uint(b, &any, val, 0, &v);

	if (rc == 0 && !policy_rate_valid(v))
		return policy_build_fail(b, val,
					 "rate: %s is not an InfiniBand rate in Gb/s (5, 10, "
					 "14, 20, 25, 28, 30, 40, 50, 56, 60, 80, 100, 112, "
					 "120, 168, 200, 300, 400 or 600)",
					 val->text);
	if (rc == 0)
		((struct policy_partition_entry *)obj)->rate = (unsigned)v;
	return rc;
}

static int policy_build_part_members(struct policy_build *b, const struct policy_key *k,
				     const struct policy_doc *val, void *obj)
{
	(void)b;
	(void)k;
	((struct policy_partition_entry *)obj)->members = val;
	return 0;
}

static const struct policy_key policy_partition_keys[] = {
    {"name", policy_build_part_name, 0, 0, 0},
    {"pkey", policy_build_part_pkey, POLICY_PKEY_MIN, POLICY_PKEY_MAX, 0},
    {"ipoib", policy_build_part_ipoib, 0, 0, 0},
    {"mtu", policy_build_part_mtu, 0, 0, 0},
    {"rate", policy_build_part_rate, 0, 0, 0},
    {"members", policy_build_part_members, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};

/* Names and P_Keys once each: names/pkeys hold the partitions before. */
static int policy_build_partition_one(struct policy_build *b, const struct policy_doc *d,
				      struct policy_seen *names, struct policy_seen *pkeys)
{
	const struct policy_doc *at[POLICY_BUILD_MAX_KEYS] = {NULL}, *first;
	struct policy_partition_entry e = {.mtu = 2048, .rate = POLICY_RATE_DEFAULT};
	struct policy_partition *part;
	int rc;

	if (d->kind != POLICY_DOC_MAP)
		return policy_build_fail(b, d,
					 "partitions: each partition is a mapping (name, "
					 "pkey, ipoib, mtu, rate, members)");
	rc = policy_build_map(b, d, "a partition", policy_partition_keys, &e, at);
	if (rc == 0)
		rc = policy_build_require(b, d, "a partition", policy_partition_keys, at, 2);
	if (rc == 0)
		rc = policy_seen_add(names, policy_seen_hash(e.name), e.name_at, &first);
	if (rc == 1)
		return policy_build_fail(b, e.name_at,
					 "partitions: name '%s' is used twice "
					 "(first at %u:%u)",
					 e.name, first->line, first->col);
	if (rc == 0)
		rc = policy_seen_add(pkeys, e.pkey, e.pkey_at, &first);
	if (rc == 1)
		return policy_build_fail(b, e.pkey_at,
					 "partitions: pkey 0x%04x is used twice "
					 "(first at %u:%u)",
					 e.pkey, first->line, first->col);
	if (rc < 0)
		return rc;
	part = policy_partition_add(b->p, e.name, e.pkey, e.ipoib, e.mtu);
	if (!part)
		return -ENOMEM;
	part->rate = e.rate;
	return e.members ? policy_build_members(b, e.members, part) : 0;
}

int policy_partitions_build(struct policy_build *b, const struct policy_key *k,
			    const struct policy_doc *val, void *obj)
{
	struct policy_seen names = {.by_text = 1}, pkeys = {0};
	int rc = policy_build_is_list(b, k->key, val);

	(void)obj;
	for (size_t i = 0; rc > 0 && i < val->n; i++) {
		rc = policy_build_partition_one(b, val->kids[i], &names, &pkeys);
		rc = rc < 0 ? rc : 1;
	}
	policy_seen_fini(&names);
	policy_seen_fini(&pkeys);
	return rc < 0 ? rc : 0;
}
