/*
 * sm/sa/quota.h - what each port holds in the SA (groups it created,
 * services it registered, InformInfo subscriptions), so one port over its
 * quota is refused and the others are not.
 *
 * DOC: struct sa_quota counts, per requesting port GUID, the objects of
 * each kind (enum sa_quota_kind) it owns.  sa_quota_take adds one when the
 * port is under its limit (0 = no limit) and refuses with -EDQUOT
 * otherwise; sa_quota_give takes one back when the object goes (leave,
 * delete, lease expiry, the port leaving the fabric).  sa_quota_top lists
 * the biggest holders of a kind for `nanosmctl status` and the metrics.
 * Pure: no clock, no I/O; ports are never forgotten (a few bytes each).
 */
#ifndef NANOSM_SM_SA_QUOTA_H
#define NANOSM_SM_SA_QUOTA_H

#include <stddef.h>
#include <stdint.h>

enum sa_quota_kind {
	SA_QUOTA_GROUPS,   /* multicast groups created (the first full join) */
	SA_QUOTA_SERVICES, /* ServiceRecords registered */
	SA_QUOTA_SUBS,	   /* InformInfo subscriptions */
	SA_QUOTA_KINDS
};

/* One holder, as sa_quota_top lists it. */
struct sa_quota_user {
	uint64_t guid;
	uint32_t used;
};

struct sa_quota;

struct sa_quota *sa_quota_new(void);
void sa_quota_free(struct sa_quota *q);
/* One more object of kind for guid, unless it already holds limit (0: no
 * limit): 0, -EDQUOT (over quota) or -ENOMEM. */
int sa_quota_take(struct sa_quota *q, uint64_t guid, enum sa_quota_kind kind, uint32_t limit);
/* One object of kind fewer for guid (never below 0). */
void sa_quota_give(struct sa_quota *q, uint64_t guid, enum sa_quota_kind kind);
uint32_t sa_quota_used(const struct sa_quota *q, uint64_t guid, enum sa_quota_kind kind);
/* The max biggest holders of kind (used > 0), biggest first, ties by GUID;
 * returns how many were written. */
size_t sa_quota_top(const struct sa_quota *q, enum sa_quota_kind kind, struct sa_quota_user *out,
		    size_t max);
/* "groups", "services", "subscriptions". */
const char *sa_quota_kind_name(enum sa_quota_kind kind);

#endif
