/*
 * sm/sa/services.h - the SA's service registry (ServiceRecord) and event
 * subscriptions (InformInfo, InformInfoRecord) with the Notice reports
 * they ask for.
 *
 * DOC: A service is registered (or refreshed) by a ServiceRecord Set, keyed
 * by ServiceID + ServiceGID + ServiceP_Key, and lives for its lease
 * (seconds; SA_SVC_LEASE_FOREVER never expires; 0 expires at the next
 * tick); Get/GetTable match a template under the ComponentMask, Delete
 * removes the matching registration and answers it.  An InformInfo Set
 * subscribes (Subscribe 1) or unsubscribes (0) the requesting port to
 * generic traps; InformInfoRecord Get/GetTable list the subscriptions.
 * nanosm produces traps 64 (GID in service) and 65 (GID out of service),
 * and any GID trap 64..67 through sa_svc_port_event: each matching
 * subscriber gets a Report(Notice) at the LID and QPN its InformInfo came
 * from.  Each subscription has a queue of SA_SVC_SUB_QUEUE Reports; the
 * oldest is sent when its port's rate allows (lim.reports_per_s, a token
 * bucket per subscriber port), sent again with the same TID every
 * SA_LIMIT_REPORT_WAIT_MS until its ReportResp, and after
 * lim.report_retries more tries the subscription is dropped (an
 * SA_NOTE_SUB_DROPPED for the log).  Services and subscriptions are
 * charged to the requesting port's quota (sm/sa/quota.h): over it, a Set
 * gets 0x0100.
 *
 * Partitions and trust (a request is trusted when its SM_Key is
 * sa->v.sm_key, not 0): Get/GetTable ServiceRecord list only services
 * whose ServiceP_Key partition the requester is a member of, full or
 * limited (trusted: all).  A Set is refused with SA_STATUS_REQ_INVALID
 * unless the requester is a member of the ServiceP_Key's partition (or
 * trusted) and the ServiceGID's port is a member too (trusted or not: a
 * service elsewhere cannot be reached); a Delete likewise unless the
 * requester is a member of the template's ServiceP_Key partition (or
 * trusted); a Set or Delete without ServiceP_Key means the default
 * partition.
 * InformInfoRecord Get/GetTable show an untrusted requester its own
 * subscriptions only, with QPN 0; a trusted one everyone's, with QPNs.  Without a partition
 * plan every port is a member of the default partition and of nothing
 * else; an unknown requester (FABRIC_NONE) is a member of nothing when
 * there is a plan and owns no subscription.
 *
 * Not done yet: ServiceKey / owner checks on Set and Delete (any member
 * of a service's partition may refresh or delete it).  Vendor
 * (IsGeneric 0) subscriptions are stored and listed but never reported
 * (nanosm produces no vendor traps).
 *
 * Hooks modules.c wires: handler sa_svc_handle for attributes 0x31,
 * 0x03 and 0xF3; sa_svc_new/sa_svc_free into sa->svc; sa_svc_prune after
 * every sa_update; sa_svc_tick from sa_tick; sa_svc_report_resp for a
 * response with attribute Notice.  No I/O but sa->xmit, no clock: time is
 * now_ms.
 */
#ifndef NANOSM_SM_SA_SERVICES_H
#define NANOSM_SM_SA_SERVICES_H

#include <stddef.h>
#include <stdint.h>

#include "mad/sa.h"
#include "sm/sa/server.h"

#define SA_SVC_MAX_SERVICES 4096
#define SA_SVC_MAX_SUBS 1024
#define SA_SVC_SUB_QUEUE 8 /* Reports waiting per subscription; more are dropped */

struct sa_svc *sa_svc_new(void);
void sa_svc_free(struct sa_svc *svc);

/* sa_handler_fn for ServiceRecord, InformInfo and InformInfoRecord. */
uint16_t sa_svc_handle(struct sa *sa, const struct sa_req *req, struct sa_out *out);
/* Drop services whose lease ended by now_ms; send the Reports that are
 * due.  Returns when it next has work (0: none waiting). */
uint64_t sa_svc_tick(struct sa *sa, uint64_t now_ms);
/* After a view change: drop services and subscriptions of ports that left,
 * and follow a subscriber whose LID changed. */
void sa_svc_prune(struct sa *sa);
/* Port (or multicast group) gid changed state: trap 64..67.  Queues one
 * Report per matching subscription and sends what the rate allows; other
 * trap numbers are ignored. */
void sa_svc_port_event(struct sa *sa, const uint8_t gid[16], int trap, uint64_t now_ms);
/* A ReportResp: the Report with that TID (low 32 bits, the part the
 * kernel does not rewrite) is answered; the subscription's next may go. */
void sa_svc_report_resp(struct sa *sa, const struct sa_mad *m);

struct sa_svc_stats {
	size_t services, subscriptions;
	uint64_t reports_acked;	 /* ReportResp matched to a report */
	uint64_t resp_unmatched; /* ReportResp with an unknown TID */
	size_t reports_pending;	 /* queued or unanswered */
	uint64_t reports_overflow; /* dropped: SA_SVC_SUB_QUEUE already waited */
};

void sa_svc_get_stats(const struct sa_svc *svc, struct sa_svc_stats *st);

#endif
