/*
 * policy.h - nanosm's policy: the YAML configuration file as plain data.
 *
 * DOC: One file (default /etc/nanosm/nanosm.yaml) with five sections: sm,
 * routing, lids, node_names, partitions (docs/configuration.md is the
 * reference).  policy_parse turns YAML text into a fresh struct policy and
 * validates it as it goes; on any error it returns -EINVAL with
 * "file:line:column: what (hint)" in err and leaves *out empty (as after
 * policy_init), so a caller that parses into a new struct and swaps only on
 * success never half-applies a broken file.  The first error is reported.
 * policy_print writes the canonical form (fixed key order, every value
 * explicit, no comments); policy_parse(policy_print(p)) equals p.
 *
 * Files: policy.c (defaults, helpers, equality, the parse entry point),
 * policy_yaml.c (the only file that includes <yaml.h>: text -> a plain
 * document tree), policy_build.c (tree -> struct policy, every check; a
 * file per section: policy_sm.c, policy_routing.c, policy_lids.c,
 * policy_node_names.c, policy_partitions.c, policy_sa.c, policy_monitor.c),
 * policy_print.c (canonical YAML, diff), policy_load.c (reads the file).
 * All but policy_load.c are pure: no I/O, no globals, no logging.
 */
#ifndef NANOSM_CONFIG_POLICY_H
#define NANOSM_CONFIG_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "routing/route.h"

#define POLICY_DEFAULT_PATH "/etc/nanosm/nanosm.yaml"
#define POLICY_DEFAULT_GUID2LID "/var/lib/nanosm/guid2lid"
/* The topology nanosm writes at SUBNET UP, beside guid2lid (sm.topology);
 * with the default guid2lid it is this file, nanosm-verify's default. */
#define POLICY_TOPOLOGY_NAME "topology"
#define POLICY_DEFAULT_TOPOLOGY "/var/lib/nanosm/" POLICY_TOPOLOGY_NAME
#define POLICY_DEFAULT_ENGINES "ftree,vlsp,updn,minhop"

#define POLICY_NAME_MAX 64   /* bytes in a CA, node or partition name */
#define POLICY_PATH_MAX 4096 /* bytes in a path, NUL included */
#define POLICY_MAX_ENGINES 8
#define POLICY_MAX_FILE (16u << 20) /* policy_load refuses larger files */

/* Ranges (inclusive) the parser enforces. */
#define POLICY_PORT_MAX 254
#define POLICY_PRIORITY_MAX 15
#define POLICY_SWEEP_MAX 86400
#define POLICY_WINDOW_MAX 4096
#define POLICY_TIMEOUT_MAX 60000
#define POLICY_RETRIES_MAX 100
#define POLICY_LMC_MAX 7		  /* the range of the field; only 0 is accepted today */
#define POLICY_RECLAIM_AGE_MAX 315360000u /* lids.reclaim_age: ten years, seconds */
#define POLICY_PKEY_MIN 0x0001
#define POLICY_PKEY_MAX 0x7fff /* 15-bit P_Key; bit 15 (full member) is per member */
#define POLICY_PKEY_DEFAULT 0x7fff
#define POLICY_RATE_DEFAULT 10	   /* partitions[].rate, Gb/s: the IPoIB group's 4x SDR */
#define POLICY_MKEY_PROTECT_MAX 3  /* M_KeyProtectBits: a 2-bit field */
#define POLICY_MKEY_LEASE_MAX 65535 /* M_KeyLeasePeriod: a 16-bit field, seconds */

/* Same numbers as sm/core/log.h's LOG_LVL_*. */
enum policy_log_level {
	POLICY_LOG_ERROR = 0,
	POLICY_LOG_WARNING = 1,
	POLICY_LOG_INFO = 2,
	POLICY_LOG_DEBUG = 3,
};

struct policy_sm {
	/* Which local port runs the SM: guid, or ca and/or port; none of them
	 * = the first InfiniBand port (mad_port_open's rule). */
	uint64_t guid;			 /* port GUID, 0 = not given */
	char ca[POLICY_NAME_MAX + 1];	 /* CA name, "" = not given */
	unsigned port;			 /* port number 1..254, 0 = not given */
	unsigned priority;		 /* SMInfo priority 0..15, default 0 */
	unsigned sweep_interval;	 /* seconds 1..86400, default 10 */
	unsigned window;		 /* SMPs in flight 1..4096, default 16 */
	unsigned mad_timeout_ms;	 /* 1..60000, default 200 */
	unsigned mad_retries;		 /* 0..100, default 3 */
	char guid2lid[POLICY_PATH_MAX];	 /* absolute path, default POLICY_DEFAULT_GUID2LID */
	enum policy_log_level log_level; /* default POLICY_LOG_INFO */
	/* where the topology brought up is written at SUBNET UP: an absolute
	 * path, "none", or "" (the default): POLICY_TOPOLOGY_NAME in
	 * guid2lid's directory */
	char topology[POLICY_PATH_MAX];
	/* Keys (secrets: the file should be readable by root only).  The
	 * parser refuses m_key_protect or m_key_lease without an m_key, an
	 * m_key without an sm_key (the SA trusts a request whose SM_Key
	 * equals nanosm's, so 0 would trust everyone), and a lease not
	 * longer than sweep_interval while protected. */
	uint64_t m_key;		/* PortInfo M_Key for every port, 0 = none (default) */
	unsigned m_key_protect; /* M_KeyProtectBits 0..3, default 0 */
	unsigned m_key_lease;	/* M_KeyLeasePeriod, seconds, 0 = never expires (default) */
	uint64_t sm_key;	/* SM_Key (SMInfo, SA trust), 0 = none (default) */
};

struct policy_routing {
	/* Fallback order: the first whose tables pass the gate wins.  Entries
	 * are route_engine_find() results (static; never freed). */
	const struct route_engine *engine[POLICY_MAX_ENGINES];
	size_t n_engine;
	uint64_t *roots; /* root switch NodeGUIDs (owned) */
	size_t n_roots;
	/* routing.options: per-engine maps.  No engine takes an option yet,
	 * so each must be empty and nothing is stored; see policy_routing.c. */
};

struct policy_static_lid {
	uint64_t guid; /* port GUID */
	uint16_t lid;  /* 0x0001..0xBFFF, unique */
};

struct policy_lids {
	unsigned lmc; /* 0 (the parser refuses 1..7 until nanosm programs LMC) */
	/* seconds a port must be absent before its guid2lid LID may be given
	 * to another port, and only when the LID space is full; 0 = never */
	unsigned reclaim_age;
	struct policy_static_lid *statics; /* owned, file order */
	size_t n_statics;
};

struct policy_node_name {
	uint64_t guid; /* node GUID */
	char name[POLICY_NAME_MAX + 1];
};

enum policy_membership {
	POLICY_LIMITED = 0,
	POLICY_FULL = 1,
};

enum policy_member_kind {
	POLICY_MEMBER_GUID = 0,	    /* one port, by port GUID */
	POLICY_MEMBER_ALL,	    /* every port */
	POLICY_MEMBER_ALL_CAS,	    /* every CA port */
	POLICY_MEMBER_ALL_SWITCHES, /* every switch port 0 */
	POLICY_MEMBER_SELF,	    /* the SM's own port */
	POLICY_MEMBER_NAME,	    /* a node's port(s), by the node's name */
};

/* A member is a selector: which ports it names depends on the fabric, so
 * the parser only stores it and config/pkey.c matches it against the fabric
 * (pkey_unmatched_find says which members match no port, and why). */
struct policy_member {
	enum policy_member_kind kind;
	uint64_t guid; /* POLICY_MEMBER_GUID only, else 0 */
	/* POLICY_MEMBER_NAME only, else "" and 0: a node_names name or a
	 * NodeDescription; port 1..254, 0 = every port of the node that owns
	 * a LID (a CA's or router's ports, a switch's port 0) */
	char name[POLICY_NAME_MAX + 1];
	unsigned port;
	enum policy_membership membership;
};

/* A partition: the SM programs it as P_Key tables (config/pkey.c) and an
 * IPoIB broadcast group when ipoib is set (sm/sa/mcast.c). */
struct policy_partition {
	char name[POLICY_NAME_MAX + 1]; /* [A-Za-z0-9_.-], unique */
	uint16_t pkey;			/* 0x0001..0x7fff, unique */
	int ipoib;			/* 0/1, default 0 */
	unsigned mtu;			/* 256, 512, 1024, 2048 (default) or 4096 bytes */
	unsigned rate;			/* Gb/s, a policy_rate_valid value, default 10 */
	struct policy_member *members;	/* owned, file order */
	size_t n_members;
};

#define POLICY_LISTEN_MAX 64 /* bytes in monitor.listen, NUL included */
#define POLICY_MONITOR_INTERVAL_DEFAULT 30

/* The performance manager and link health (docs/monitoring.md); parsed
 * by policy_monitor.c. */
struct policy_monitor {
	int enabled;			/* default 1 */
	unsigned interval;		/* seconds 1..86400, default 30 */
	char listen[POLICY_LISTEN_MAX]; /* HTTP /metrics "IPv4:port", "" = none (default) */
	/* thresholds, per interval: error counts (degrading, default 10;
	 * failing, default 1000), LinkDowned + LinkErrorRecovery (flapping,
	 * default 1); intervals under all of them to recover (default 2) */
	unsigned degrading, failing, flapping, recover;
};

/* The SA's limits (docs/sa.md, "Limits"); 0 = no limit.  Defaults
 * POLICY_SA_*: generous for IPoIB and IPv6 (a port creates a group per
 * address it solicits for, a few more per partition; services and
 * subscriptions come one to a few per application). */
#define POLICY_SA_GROUPS 512
#define POLICY_SA_SERVICES 256
#define POLICY_SA_SUBSCRIPTIONS 64
#define POLICY_SA_REPORTS_PER_SECOND 20
#define POLICY_SA_REPORT_RETRIES 3
#define POLICY_SA_QUOTA_MAX 65535
#define POLICY_SA_RATE_MAX 10000
#define POLICY_SA_RETRIES_MAX 10
struct policy_sa {
	unsigned groups_per_port, services_per_port, subscriptions_per_port;
	unsigned reports_per_second, report_retries;
};

struct policy {
	struct policy_sm sm;
	struct policy_monitor monitor;
	struct policy_routing routing;
	struct policy_lids lids;
	struct policy_node_name *node_names; /* owned, file order, GUIDs unique */
	size_t n_node_names;
	struct policy_partition *partitions; /* owned, file order */
	size_t n_partitions;
	struct policy_sa sa;
};

/* config/policy_sa.c: the sa: section's defaults, comparison, canonical
 * print (only what differs from the defaults, so files without the section
 * print as before) and diff lines ("sa.groups_per_port: 512 -> 64"). */
void policy_sa_init(struct policy_sa *s);
int policy_sa_equal(const struct policy_sa *a, const struct policy_sa *b);
struct text_sink;
void policy_sa_print(struct text_sink *o, const struct policy_sa *s);
void policy_sa_diff(struct text_sink *o, const struct policy_sa *a, const struct policy_sa *b);

/* Set every documented default (engines ftree,vlsp,updn,minhop; sweep 10 s;
 * window 16; timeout 200 ms; retries 3; guid2lid POLICY_DEFAULT_GUID2LID;
 * priority 0; lmc 0; log_level info; empty lists).  Allocates nothing. */
void policy_init(struct policy *p);
/* Free what p owns and leave it as after policy_init. */
void policy_fini(struct policy *p);

/* Parse YAML text (len bytes; need not be NUL-terminated).  name is used in
 * messages ("name:line:col: ...").  out is overwritten (no policy_init
 * needed, nothing in it is freed): on success it holds the policy (free
 * with policy_fini); on error it is as after policy_init and err holds one
 * line.  Returns 0, -EINVAL (bad file) or -ENOMEM. */
int policy_parse(const char *text, size_t len, const char *name, struct policy *out, char *err,
		 size_t errlen);
/* policy_parse on the contents of path (named by path in messages).
 * Returns -errno when the file cannot be read (-ENOENT when missing: the
 * caller decides whether that means "defaults"), -EFBIG above
 * POLICY_MAX_FILE. */
int policy_load(const char *path, struct policy *out, char *err, size_t errlen);

/* Canonical YAML of p into buf (NUL-terminated when len > 0).  Returns the
 * length it needs, like snprintf: call with NULL/0 to size the buffer. */
size_t policy_print(const struct policy *p, char *buf, size_t len);
/* 1 when a and b hold the same values (lists compared in order). */
int policy_equal(const struct policy *a, const struct policy *b);
/* What changed from a to b, one line per difference ("sm.priority: 0 ->
 * 5", "partitions: + \"storage\" 0x0002", ...), for a later `plan`
 * command.  Returns the length it needs, like policy_print; 0 = equal. */
size_t policy_diff(const struct policy *a, const struct policy *b, char *buf, size_t len);

/* What a reload of b over a running a says beyond the diff (both return
 * the length they need, like policy_print; 0 = nothing to say).
 * policy_restart_fields: the settings that differ and that a running SM
 * cannot change (the SM port, MAD window/timeout/retries, the guid2lid
 * path, the keys), comma-separated: "sm.window, sm.m_key".
 * policy_dropped: the lists a holds and b has none of: "drops all 3
 * partitions, 4 node_names, 2 routing.roots, 1 lids.static". */
size_t policy_restart_fields(const struct policy *a, const struct policy *b, char *buf, size_t len);
size_t policy_dropped(const struct policy *a, const struct policy *b, char *buf, size_t len);
/* 1 when p holds nothing but the defaults (what an empty file, or one of
 * comments only, gives). */
int policy_is_empty(const struct policy *p);
/* 1 when replacing cur by next must be forced (nanosmctl reload --force):
 * next holds no settings while cur holds some, the sign of an emptied or
 * cut file rather than of an intended change. */
int policy_reload_needs_force(const struct policy *cur, const struct policy *next);

/* The engine list as -R / struct sm_opts takes it: "ftree,vlsp,updn,minhop".
 * Returns the length it needs, like snprintf. */
size_t policy_engine_list(const struct policy *p, char *buf, size_t len);

/* 1 when gbps is an InfiniBand rate a partition's `rate` may name (IBA
 * 15.2.5.16 Rate, whole Gb/s: 5, 10, 14, 20, 25, 28, 30, 40, 50, 56, 60,
 * 80, 100, 112, 120, 168, 200, 300, 400, 600). */
int policy_rate_valid(unsigned long long gbps);

/* monitor's defaults; 1 when two monitor sections hold the same values. */
void policy_monitor_init(struct policy_monitor *m);
int policy_monitor_equal(const struct policy_monitor *a, const struct policy_monitor *b);
/* monitor.listen split: 0 with the IPv4 address (network order) and port,
 * or -EINVAL. */
int policy_listen_parse(const char *text, uint32_t *addr, uint16_t *port);
/* "error", "warning", "info", "debug". */
const char *policy_log_level_name(enum policy_log_level l);
/* A log level by name, the same words everywhere (sm.log_level and
 * nanosm --log-level): error or err, warning or warn, info, debug, in any
 * case.  0, or -EINVAL (*out untouched). */
int policy_log_level_parse(const char *word, enum policy_log_level *out);
#define POLICY_LOG_LEVEL_WORDS "error (or err), warning (or warn), info or debug"
const char *policy_membership_name(enum policy_membership m);
/* "ALL", "ALL_CAS", "ALL_SWITCHES", "SELF"; NULL for POLICY_MEMBER_GUID
 * and POLICY_MEMBER_NAME. */
const char *policy_member_group_name(enum policy_member_kind k);

/* Append to p's lists (for code that builds a policy, and the parser).
 * They copy what they are given, check nothing but the name length, and
 * return 0, -ENOMEM, or -ENAMETOOLONG.  Grow the lists only through these:
 * they size each array from its count (doubling at 4, 8, 16, ...). */
int policy_root_add(struct policy *p, uint64_t guid);
int policy_static_add(struct policy *p, uint64_t guid, uint16_t lid);
int policy_node_name_add(struct policy *p, uint64_t guid, const char *name);
/* Returns the new partition (members empty, rate POLICY_RATE_DEFAULT) or
 * NULL on -ENOMEM or a name longer than POLICY_NAME_MAX. */
struct policy_partition *policy_partition_add(struct policy *p, const char *name, uint16_t pkey,
					      int ipoib, unsigned mtu);
int policy_member_add(struct policy_partition *part, enum policy_member_kind kind, uint64_t guid,
		      enum policy_membership membership);
/* A POLICY_MEMBER_NAME member: node name, port (0 = every port). */
int policy_member_add_name(struct policy_partition *part, const char *name, unsigned port,
			   enum policy_membership membership);

#endif
