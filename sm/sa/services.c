/*
 * sm/sa/services.c - service registrations, trap subscriptions and the Notice
 * reports sent to subscribers.  Owns struct sa_svc; reads the SA's view
 * and lookups, never changes them; record layouts are mad/sa_svc.c's.
 */
#include "sm/sa/services.h"
#include "mad/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/pkey.h"
#include "mad/sa_svc.h"

#define SA_SVC_NEVER UINT64_MAX
#define SA_SVC_TID_TAG 0x53560000ull /* "SV": the TID's high word */
#define SA_SVC_BIT(c) (1ull << (c))
#define SA_SVC_SEND_AGAIN_MS 100 /* after the MAD port refused a Report (queue full) */

struct sa_svc_entry {
	uint8_t raw[SA_SVC_REC_SIZE]; /* as registered (reserved bits cleared) */
	uint64_t expires_ms;	      /* SA_SVC_NEVER: forever */
	uint64_t owner;		      /* the port that registered it (its quota) */
};

/* Reports of one subscription waiting for their ReportResp, oldest
 * first; the oldest is on the wire once tries > 0. */
struct sa_svc_reports {
	uint8_t notice[SA_SVC_SUB_QUEUE][SA_SVC_NOTICE_SIZE];
	unsigned head, n;
	uint32_t tid;	  /* of the oldest, once sent (low 32 bits) */
	unsigned tries;	  /* times the oldest was sent */
	uint64_t sent_ms; /* when it last was */
	int held;	  /* the oldest waited for the rate (counted once) */
};

struct sa_svc_sub {
	uint8_t gid[16]; /* subscriber port GID */
	uint64_t owner;	 /* subscriber port GUID (its quota and rate) */
	uint16_t enum_id;
	struct sa_svc_inform ii;   /* as subscribed (Subscribe 1) */
	struct mad_addr to;	   /* where its InformInfo came from */
	struct sa_svc_reports *rq; /* NULL: none waiting */
};

/* The Report rate of one subscriber port: a bucket of reports_per_s
 * tokens, refilled at that rate. */
struct sa_svc_rate {
	uint64_t guid;
	uint64_t at_ms; /* tokens counted at */
	uint32_t tokens;
};

struct sa_svc {
	struct sa_svc_entry *svcs;
	size_t n_svcs, cap_svcs;
	struct sa_svc_sub *subs;
	size_t n_subs, cap_subs;
	struct sa_svc_rate *rates;
	size_t n_rates, cap_rates;
	uint16_t next_enum;
	uint32_t next_tid;
	uint64_t acked, unmatched, overflow;
	size_t queued; /* Reports waiting in every subscription's queue */
};

struct sa_svc *sa_svc_new(void)
{
	return calloc(1, sizeof(struct sa_svc));
}

void sa_svc_free(struct sa_svc *svc)
{
	if (!svc)
		return;
	for (size_t i = 0; i < svc->n_subs; i++)
		free(svc->subs[i].rq);
	free(svc->svcs);
	free(svc->subs);
	free(svc->rates);
	free(svc);
}

static int sa_svc_gid_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return memcmp(gid, zero, 16) == 0;
}

/* Trusted: the request's SM_Key is the subnet's (IBA 15.2.1: the SA
 * header's SM_Key marks a privileged request; none configured = nobody). */
static int sa_svc_trusted(const struct sa *sa, const struct sa_req *req)
{
	return sa->v.sm_key && req->mad->sm_key == sa->v.sm_key;
}

/* Is port r a member, full or limited, of the partition of pkey?  No
 * partition plan: every port is a full member of the default partition
 * and of nothing else. */
static int sa_svc_member(const struct sa *sa, struct sa_port_ref r, uint16_t pkey)
{
	return pkey_plan_member(sa->v.pk, r.node, r.port, PKEY_BASE(pkey)) > 0;
}

/* ---- services ------------------------------------------------------------ */

static const struct sa_field *sa_svc_comp(int c)
{
	return &sa_svc_rec_desc.comp[c];
}

static const uint8_t *sa_svc_rec_gid(const uint8_t *raw)
{
	return raw + sa_svc_comp(SA_SVC_REC_C_GID)->bit / 8;
}

static uint16_t sa_svc_rec_pkey(const uint8_t *raw)
{
	return (uint16_t)sa_get(raw, sa_svc_comp(SA_SVC_REC_C_PKEY));
}

/* May the requester see (Get/GetTable) a service of partition pkey?  A
 * ServiceRecord tells where a service is offered (IBA 15.2.5.14
 * ServiceP_Key); outside that partition the service cannot be reached,
 * and a host must not learn what runs in partitions it is not in.
 * Trusted requesters see every service.  OpenSM filters the same way. */
static int sa_svc_visible(const struct sa *sa, const struct sa_req *req, uint16_t pkey)
{
	return sa_svc_trusted(sa, req) || sa_svc_member(sa, req->requester, pkey);
}

/* May the requester register (Set) or remove (Delete) services of
 * partition pkey?  Only inside its own partitions (trusted requesters
 * anywhere): else a host could advertise into, or take services out of,
 * a partition it does not belong to.  A refusal is ERR_REQ_INVALID
 * (0x0200): what nanosm answers for every request its partition and
 * trust rules forbid (multicast joins, P_KeyTableRecords), and what
 * OpenSM answers for this very case.  ERR_REQ_DENIED (0x0700) would name
 * the cause more precisely, but clients written against OpenSM have not
 * met it there.  Asked before anything is looked up, so the answer tells
 * nothing about what is registered. */
static uint16_t sa_svc_may_change(const struct sa *sa, const struct sa_req *req, uint16_t pkey)
{
	return sa_svc_visible(sa, req, pkey) ? SA_STATUS_OK : SA_STATUS_REQ_INVALID;
}

static void sa_svc_remove_at(struct sa *sa, size_t i)
{
	struct sa_svc *svc = sa->svc;

	sa_quota_give(sa->quota, svc->svcs[i].owner, SA_QUOTA_SERVICES);
	svc->svcs[i] = svc->svcs[--svc->n_svcs];
}

static void sa_svc_expire(struct sa *sa, uint64_t now_ms)
{
	for (size_t i = 0; i < sa->svc->n_svcs;) {
		if (sa->svc->svcs[i].expires_ms <= now_ms)
			sa_svc_remove_at(sa, i);
		else
			i++;
	}
}

/* The requester's port GUID, its quota of kind taken: 0, or 0x0100 when
 * it is over its quota (told to the SA's owner) or out of memory. */
static uint16_t sa_svc_charge(struct sa *sa, const struct sa_req *req, enum sa_quota_kind kind,
			      uint32_t limit, uint64_t *owner)
{
	const struct fabric_port *p = sa_port(sa, req->requester);
	int rc;

	*owner = p ? p->guid : 0;
	rc = sa_quota_take(sa->quota, *owner, kind, limit);
	if (rc == -EDQUOT) {
		struct sa_note n = {.kind = SA_NOTE_QUOTA,
				    .port_guid = *owner,
				    .lid = req->from.lid,
				    .quota = kind,
				    .limit = limit};

		sa->counters.quota_refused++;
		sa_note(sa, &n);
	}
	return rc < 0 ? SA_STATUS_NO_RESOURCES : SA_STATUS_OK;
}

static uint64_t sa_svc_expiry(const uint8_t *raw, uint64_t now_ms)
{
	uint64_t lease = sa_get(raw, sa_svc_comp(SA_SVC_REC_C_LEASE));

	if (lease == SA_SVC_LEASE_FOREVER)
		return SA_SVC_NEVER;
	return now_ms + lease * 1000;
}

/* The registration with the key (ServiceID, ServiceGID, ServiceP_Key) of
 * raw, or -1. */
static long sa_svc_find(const struct sa_svc *svc, const uint8_t *raw)
{
	const uint64_t key = SA_SVC_BIT(SA_SVC_REC_C_ID) | SA_SVC_BIT(SA_SVC_REC_C_GID) |
			     SA_SVC_BIT(SA_SVC_REC_C_PKEY);

	for (size_t i = 0; i < svc->n_svcs; i++)
		if (sa_rec_match(&sa_svc_rec_desc, key, raw, svc->svcs[i].raw))
			return (long)i;
	return -1;
}

/* The reserved bytes between ServiceP_Key and ServiceLease. */
static void sa_svc_clear_reserved(uint8_t *raw)
{
	unsigned from = sa_svc_comp(SA_SVC_REC_C_RESV)->bit / 8;
	unsigned to = sa_svc_comp(SA_SVC_REC_C_LEASE)->bit / 8;

	memset(raw + from, 0, to - from);
}

/* A Set or Delete template: the key components must be selected; an
 * omitted ServiceP_Key means the default partition. */
static uint16_t sa_svc_key_template(const struct sa_mad *m, uint8_t *tmpl, uint64_t *mask)
{
	const uint64_t need = SA_SVC_BIT(SA_SVC_REC_C_ID) | SA_SVC_BIT(SA_SVC_REC_C_GID);

	if ((m->comp_mask & need) != need)
		return SA_STATUS_INSUF_COMPS;
	memcpy(tmpl, m->data, SA_SVC_REC_SIZE);
	sa_svc_clear_reserved(tmpl);
	if (!(m->comp_mask & SA_SVC_BIT(SA_SVC_REC_C_PKEY)))
		sa_put(tmpl, sa_svc_comp(SA_SVC_REC_C_PKEY), SA_SVC_PKEY_DEFAULT);
	*mask = m->comp_mask | SA_SVC_BIT(SA_SVC_REC_C_PKEY);
	return SA_STATUS_OK;
}

/* A Set's rules, checked before the registry is touched: the ServiceGID
 * names a port here, the requester may register in the ServiceP_Key's
 * partition, and so is the service's own port (OpenSM checks it too:
 * elsewhere nobody in the partition could reach the service). */
static uint16_t sa_svc_set_check(const struct sa *sa, const struct sa_req *req, const uint8_t *tmpl)
{
	struct sa_port_ref port = sa_by_gid(sa, sa_svc_rec_gid(tmpl));
	uint16_t pkey = sa_svc_rec_pkey(tmpl), st;

	if (port.node == FABRIC_NONE)
		return SA_STATUS_INVALID_GID;
	st = sa_svc_may_change(sa, req, pkey);
	if (st)
		return st;
	return sa_svc_member(sa, port, pkey) ? SA_STATUS_OK : SA_STATUS_REQ_INVALID;
}

static uint16_t sa_svc_service_set(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	struct sa_svc *svc = sa->svc;
	uint8_t tmpl[SA_SVC_REC_SIZE];
	uint64_t mask;
	uint16_t st = sa_svc_key_template(req->mad, tmpl, &mask);
	long i;

	if (st == SA_STATUS_OK)
		st = sa_svc_set_check(sa, req, tmpl);
	if (st)
		return st;
	i = sa_svc_find(svc, tmpl);
	if (i < 0) {
		uint64_t owner;

		if (svc->n_svcs >= SA_SVC_MAX_SERVICES ||
		    TEXT_GROW(svc->svcs, svc->cap_svcs, svc->n_svcs + 1, 16) < 0)
			return SA_STATUS_NO_RESOURCES;
		st = sa_svc_charge(sa, req, SA_QUOTA_SERVICES, sa->lim.services_per_port, &owner);
		if (st)
			return st;
		i = (long)svc->n_svcs++;
		svc->svcs[i].owner = owner;
	}
	memcpy(svc->svcs[i].raw, tmpl, SA_SVC_REC_SIZE);
	svc->svcs[i].expires_ms = sa_svc_expiry(tmpl, req->now_ms);
	return sa_out_add(out, tmpl) < 0 ? SA_STATUS_NO_RESOURCES : SA_STATUS_OK;
}

static uint16_t sa_svc_service_delete(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	struct sa_svc *svc = sa->svc;
	uint8_t tmpl[SA_SVC_REC_SIZE];
	uint64_t mask;
	uint16_t st = sa_svc_key_template(req->mad, tmpl, &mask);

	if (st)
		return st;
	/* the template's ServiceP_Key is part of the key: every match is in it */
	st = sa_svc_may_change(sa, req, sa_svc_rec_pkey(tmpl));
	if (st)
		return st;
	for (size_t i = 0; i < svc->n_svcs;) {
		if (!sa_rec_match(&sa_svc_rec_desc, mask, tmpl, svc->svcs[i].raw)) {
			i++;
			continue;
		}
		if (sa_out_add(out, svc->svcs[i].raw) < 0)
			return SA_STATUS_NO_RESOURCES;
		sa_svc_remove_at(sa, i);
	}
	return out->n ? SA_STATUS_OK : SA_STATUS_NO_RECORDS;
}

static uint16_t sa_svc_service_get(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	const struct sa_mad *m = req->mad;

	for (size_t i = 0; i < sa->svc->n_svcs; i++) {
		const uint8_t *raw = sa->svc->svcs[i].raw;

		if (!sa_svc_visible(sa, req, sa_svc_rec_pkey(raw)))
			continue;
		if (sa_rec_match(&sa_svc_rec_desc, m->comp_mask, m->data, raw) &&
		    sa_out_add(out, raw) < 0)
			return SA_STATUS_NO_RESOURCES;
	}
	return SA_STATUS_OK;
}

static uint16_t sa_svc_service(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	const struct sa_mad *m = req->mad;

	if (sa_comp_unknown(&sa_svc_rec_desc, m->comp_mask))
		return SA_STATUS_REQ_INVALID;
	out->rec_size = SA_SVC_REC_SIZE;
	sa_svc_expire(sa, req->now_ms);
	switch (m->method) {
	case SA_METHOD_GET:
	case SA_METHOD_GET_TABLE:
		return sa_svc_service_get(sa, req, out);
	case SA_METHOD_SET:
		return sa_svc_service_set(sa, req, out);
	case SA_METHOD_DELETE:
		return sa_svc_service_delete(sa, req, out);
	default:
		return SA_STATUS_BAD_METHOD_ATTR;
	}
}

/* ---- subscriptions --------------------------------------------------------- */

/* Same subscriber and same filter (what a Subscribe 0 must repeat). */
static int sa_svc_sub_same(const struct sa_svc_sub *s, const uint8_t gid[16],
			   const struct sa_svc_inform *ii)
{
	const struct sa_svc_inform *a = &s->ii;

	return memcmp(s->gid, gid, 16) == 0 && memcmp(a->gid, ii->gid, 16) == 0 &&
	       a->lid_begin == ii->lid_begin && a->lid_end == ii->lid_end &&
	       a->is_generic == ii->is_generic && a->type == ii->type &&
	       a->trap_num == ii->trap_num && a->producer == ii->producer;
}

static long sa_svc_sub_find(const struct sa_svc *svc, const uint8_t gid[16],
			    const struct sa_svc_inform *ii)
{
	for (size_t i = 0; i < svc->n_subs; i++)
		if (sa_svc_sub_same(&svc->subs[i], gid, ii))
			return (long)i;
	return -1;
}

/* An Enum no other subscription of this subscriber uses. */
static uint16_t sa_svc_enum_new(struct sa_svc *svc, const uint8_t gid[16])
{
	for (;;) {
		uint16_t e = svc->next_enum++;
		size_t i;

		for (i = 0; i < svc->n_subs; i++)
			if (svc->subs[i].enum_id == e && memcmp(svc->subs[i].gid, gid, 16) == 0)
				break;
		if (i == svc->n_subs)
			return e; /* found: at most SA_SVC_MAX_SUBS values are taken */
	}
}

static uint16_t sa_svc_subscribe(struct sa *sa, const struct sa_req *req, const uint8_t gid[16],
				 const struct sa_svc_inform *ii)
{
	struct sa_svc *svc = sa->svc;
	long i = sa_svc_sub_find(svc, gid, ii);

	if (i < 0) {
		uint64_t owner;
		uint16_t st;

		if (svc->n_subs >= SA_SVC_MAX_SUBS ||
		    TEXT_GROW(svc->subs, svc->cap_subs, svc->n_subs + 1, 16) < 0)
			return SA_STATUS_NO_RESOURCES;
		st = sa_svc_charge(sa, req, SA_QUOTA_SUBS, sa->lim.subs_per_port, &owner);
		if (st)
			return st;
		i = (long)svc->n_subs;
		memset(&svc->subs[i], 0, sizeof(svc->subs[i]));
		svc->subs[i].enum_id = sa_svc_enum_new(svc, gid); /* before n_subs counts it */
		memcpy(svc->subs[i].gid, gid, 16);
		svc->subs[i].owner = owner;
		svc->n_subs++;
	}
	svc->subs[i].ii = *ii;
	svc->subs[i].to = req->from;
	return SA_STATUS_OK;
}

/* Subscription i goes: its waiting Reports with it, its quota back. */
static void sa_svc_sub_remove(struct sa *sa, size_t i)
{
	struct sa_svc *svc = sa->svc;

	sa_quota_give(sa->quota, svc->subs[i].owner, SA_QUOTA_SUBS);
	svc->queued -= svc->subs[i].rq ? svc->subs[i].rq->n : 0;
	free(svc->subs[i].rq);
	svc->subs[i] = svc->subs[--svc->n_subs];
}

static uint16_t sa_svc_unsubscribe(struct sa *sa, const uint8_t gid[16],
				   const struct sa_svc_inform *ii)
{
	long i = sa_svc_sub_find(sa->svc, gid, ii);

	if (i < 0)
		return SA_STATUS_REQ_INVALID;
	sa_svc_sub_remove(sa, (size_t)i);
	return SA_STATUS_OK;
}

static uint16_t sa_svc_inform(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	struct sa_svc_inform ii;
	uint8_t gid[16], rec[SA_SVC_INFORM_SIZE] = {0};
	uint16_t st;

	if (req->mad->method != SA_METHOD_SET)
		return SA_STATUS_BAD_METHOD_ATTR;
	if (req->requester.node == FABRIC_NONE)
		return SA_STATUS_REQ_INVALID;
	sa_svc_inform_decode(req->mad->data, &ii);
	/* A vendor (IsGeneric 0) subscription is kept like a generic one for
	 * a trap nanosm never sends: listed in InformInfoRecords, removed by
	 * its unsubscribe, never reported (sa_svc_sub_wants). */
	if (ii.subscribe > 1)
		return SA_STATUS_REQ_INVALID;
	sa_port_gid(sa, req->requester, gid);
	st = ii.subscribe ? sa_svc_subscribe(sa, req, gid, &ii) : sa_svc_unsubscribe(sa, gid, &ii);
	if (st)
		return st;
	out->rec_size = SA_SVC_INFORM_SIZE;
	sa_svc_inform_encode(&ii, rec);
	return sa_out_add(out, rec) < 0 ? SA_STATUS_NO_RESOURCES : SA_STATUS_OK;
}

/* May the requester see subscription s?  Its own, always; another
 * port's only when trusted: who listens for which events (and at which
 * QPN) is the subscriber's business, like multicast membership.  An
 * unknown requester owns none.  (OpenSM shows every subscriber that
 * shares a P_Key with the requester; nanosm is stricter.) */
static int sa_svc_iir_visible(const struct sa *sa, const struct sa_req *req,
			      const struct sa_svc_sub *s)
{
	uint8_t own[16];

	if (sa_svc_trusted(sa, req))
		return 1;
	if (req->requester.node == FABRIC_NONE)
		return 0;
	sa_port_gid(sa, req->requester, own);
	return memcmp(own, s->gid, 16) == 0;
}

static uint16_t sa_svc_iir(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	const struct sa_mad *m = req->mad;
	uint8_t rec[SA_SVC_IIR_SIZE];

	if (m->method != SA_METHOD_GET && m->method != SA_METHOD_GET_TABLE)
		return SA_STATUS_BAD_METHOD_ATTR;
	if (sa_comp_unknown(&sa_svc_iir_desc, m->comp_mask))
		return SA_STATUS_REQ_INVALID;
	out->rec_size = SA_SVC_IIR_SIZE;
	for (size_t i = 0; i < sa->svc->n_subs; i++) {
		const struct sa_svc_sub *s = &sa->svc->subs[i];
		struct sa_svc_iir r = {.enum_id = s->enum_id, .ii = s->ii};

		if (!sa_svc_iir_visible(sa, req, s))
			continue;
		/* C15-0.2-1.16 (as OpenSM's sources cite it): the QPN only to
		 * trusted requesters, 0 to everyone else */
		if (!sa_svc_trusted(sa, req))
			r.ii.qpn = 0;

		memcpy(r.subscriber_gid, s->gid, 16);
		sa_svc_iir_encode(&r, rec);
		if (sa_rec_match(&sa_svc_iir_desc, m->comp_mask, m->data, rec) &&
		    sa_out_add(out, rec) < 0)
			return SA_STATUS_NO_RESOURCES;
	}
	return SA_STATUS_OK;
}

uint16_t sa_svc_handle(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	if (!sa->svc)
		return SA_STATUS_NO_RESOURCES;
	switch (req->mad->attr_id) {
	case SA_ATTR_SERVICE_RECORD:
		return sa_svc_service(sa, req, out);
	case SA_ATTR_INFORM_INFO:
		return sa_svc_inform(sa, req, out);
	case SA_ATTR_INFORM_INFO_RECORD:
		return sa_svc_iir(sa, req, out);
	default:
		return SA_STATUS_BAD_METHOD_ATTR;
	}
}

/* ---- life cycle ------------------------------------------------------------ */

static uint64_t sa_svc_reports_pump(struct sa *sa, uint64_t now_ms);

uint64_t sa_svc_tick(struct sa *sa, uint64_t now_ms)
{
	if (!sa->svc)
		return 0;
	sa_svc_expire(sa, now_ms);
	return sa_svc_reports_pump(sa, now_ms);
}

/* A subscriber still in the view: keep its LID current. 0 when gone. */
static int sa_svc_sub_follow(struct sa *sa, struct sa_svc_sub *s)
{
	struct sa_port_ref r = sa_by_gid(sa, s->gid);
	const struct fabric_port *p = sa_port(sa, r);
	uint16_t base;

	if (!p)
		return 0;
	base = sa_port_lid(sa, r);
	if (s->to.lid < base || s->to.lid >= base + fabric_port_lid_count(p))
		s->to.lid = base;
	return 1;
}

void sa_svc_prune(struct sa *sa)
{
	struct sa_svc *svc = sa->svc;

	if (!svc)
		return;
	for (size_t i = 0; i < svc->n_svcs;) {
		if (sa_by_gid(sa, sa_svc_rec_gid(svc->svcs[i].raw)).node == FABRIC_NONE)
			sa_svc_remove_at(sa, i);
		else
			i++;
	}
	for (size_t i = 0; i < svc->n_subs;) {
		if (sa_svc_sub_follow(sa, &svc->subs[i]))
			i++;
		else
			sa_svc_sub_remove(sa, i);
	}
}

/* ---- reports --------------------------------------------------------------- */

/* Does subscription s ask for this SM trap about gid (LID lid, 0 when not
 * in the view)? */
static int sa_svc_sub_wants(const struct sa_svc_sub *s, const uint8_t gid[16], uint16_t lid,
			    int trap)
{
	const struct sa_svc_inform *ii = &s->ii;
	uint16_t end = ii->lid_end < ii->lid_begin ? ii->lid_begin : ii->lid_end;

	if (!ii->is_generic || (ii->trap_num != trap && ii->trap_num != SA_SVC_TRAP_ALL))
		return 0;
	if (ii->type != SA_SVC_NOTICE_TYPE_SM && ii->type != SA_SVC_TYPE_ALL)
		return 0;
	if (ii->producer != SA_SVC_PRODUCER_CLASS_MGR && ii->producer != SA_SVC_PRODUCER_ALL)
		return 0;
	if (!sa_svc_gid_zero(ii->gid))
		return memcmp(ii->gid, gid, 16) == 0;
	if (ii->lid_begin == SA_SVC_LID_ALL)
		return 1;
	return lid && lid >= ii->lid_begin && lid <= end;
}

static void sa_svc_notice_make(const struct sa *sa, const uint8_t gid[16], int trap,
			       uint8_t rec[SA_SVC_NOTICE_SIZE])
{
	struct sa_svc_notice n = {0};

	n.is_generic = 1;
	n.type = SA_SVC_NOTICE_TYPE_SM;
	n.producer = SA_SVC_PRODUCER_CLASS_MGR;
	n.trap_num = (uint16_t)trap;
	n.issuer_lid = sa->v.sm_lid;
	sa_svc_notice_set_gid(&n, gid);
	sa_gid_make(sa->v.subnet_prefix, sa->v.sm_guid, n.issuer_gid);
	sa_svc_notice_encode(&n, rec);
}

/* Send the oldest waiting Report of subscription s (again, with the same
 * TID, when tries > 0): 0 or a negative errno (the MAD port's queue was
 * full: it is tried again at the next tick). */
static int sa_svc_report_send(struct sa *sa, struct sa_svc_sub *s, uint64_t now_ms)
{
	struct sa_svc_reports *q = s->rq;
	struct sa_mad h = {0};
	uint8_t buf[SA_MAD_SIZE];
	int rc;

	if (!q->tries)
		q->tid = ++sa->svc->next_tid;
	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_REPORT;
	h.tid = SA_SVC_TID_TAG << 32 | q->tid;
	h.attr_id = SA_ATTR_NOTICE;
	sa_encode(&h, q->notice[q->head], 1, SA_SVC_NOTICE_SIZE, buf, sizeof(buf));
	rc = sa->xmit.send ? sa->xmit.send(sa->xmit.ctx, &s->to, buf, sizeof(buf)) : -ENOTCONN;
	if (rc < 0)
		return rc;
	if (q->tries++)
		sa->counters.report_retries++;
	sa->counters.reports++;
	q->sent_ms = now_ms;
	return 0;
}

/* The rate bucket of subscriber guid, refilled to now_ms (NULL: no
 * memory; the Report then goes unlimited). */
static struct sa_svc_rate *sa_svc_rate(struct sa *sa, uint64_t guid, uint64_t now_ms)
{
	struct sa_svc *svc = sa->svc;
	uint32_t per_s = sa->lim.reports_per_s;
	struct sa_svc_rate *r = NULL;
	uint64_t add;

	for (size_t i = 0; i < svc->n_rates && !r; i++)
		if (svc->rates[i].guid == guid)
			r = &svc->rates[i];
	if (!r) {
		if (TEXT_GROW(svc->rates, svc->cap_rates, svc->n_rates + 1, 16) < 0)
			return NULL;
		r = &svc->rates[svc->n_rates++];
		*r = (struct sa_svc_rate){guid, now_ms, per_s};
	}
	add = (now_ms - r->at_ms) * per_s / 1000;
	if (add) {
		r->tokens = r->tokens + add > per_s ? per_s : (uint32_t)(r->tokens + add);
		r->at_ms = now_ms;
	}
	return r;
}

/* May a Report go to subscription s now (a token of its port's rate)?
 * take: use the token (once the Report went). */
static int sa_svc_rate_ok(struct sa *sa, const struct sa_svc_sub *s, uint64_t now_ms, int take)
{
	struct sa_svc_rate *r;

	if (!sa->lim.reports_per_s)
		return 1;
	r = sa_svc_rate(sa, s->owner, now_ms);
	if (r && !r->tokens)
		return 0;
	if (r && take)
		r->tokens--;
	return 1;
}

/* Subscription i's subscriber never answered: drop it, tell the owner. */
static void sa_svc_sub_give_up(struct sa *sa, size_t i)
{
	const struct sa_svc_sub *s = &sa->svc->subs[i];
	struct sa_note n = {.kind = SA_NOTE_SUB_DROPPED,
			    .port_guid = s->owner,
			    .lid = s->to.lid,
			    .tries = s->rq ? s->rq->tries : 0};

	sa->counters.subs_dropped++;
	sa_note(sa, &n);
	sa_svc_sub_remove(sa, i);
}

/* One subscription's Reports: the oldest sent when its rate allows, sent
 * again after SA_LIMIT_REPORT_WAIT_MS without a ReportResp, given up
 * (the subscription dropped) after report_retries more tries.  Returns
 * 1 when the subscription was dropped, else 0 with *due the next time it
 * needs a tick (unchanged when none). */
static int sa_svc_reports_one(struct sa *sa, size_t i, uint64_t now_ms, uint64_t *due)
{
	struct sa_svc_sub *s = &sa->svc->subs[i];
	struct sa_svc_reports *q = s->rq;
	uint64_t next;

	if (!q || !q->n)
		return 0;
	if (q->tries && now_ms < q->sent_ms + SA_LIMIT_REPORT_WAIT_MS) {
		next = q->sent_ms + SA_LIMIT_REPORT_WAIT_MS;
	} else if (q->tries > sa->lim.report_retries) {
		sa_svc_sub_give_up(sa, i);
		return 1;
	} else if (!sa_svc_rate_ok(sa, s, now_ms, 0)) {
		sa->counters.report_deferred += !q->held;
		q->held = 1;
		next = now_ms + 1000 / (sa->lim.reports_per_s ? sa->lim.reports_per_s : 1) + 1;
	} else if (sa_svc_report_send(sa, s, now_ms) < 0) {
		next = now_ms + SA_SVC_SEND_AGAIN_MS;
	} else {
		sa_svc_rate_ok(sa, s, now_ms, 1);
		next = now_ms + SA_LIMIT_REPORT_WAIT_MS;
	}
	if (!*due || next < *due)
		*due = next;
	return 0;
}

static uint64_t sa_svc_reports_pump(struct sa *sa, uint64_t now_ms)
{
	uint64_t due = 0;

	for (size_t i = 0; sa->svc->queued && i < sa->svc->n_subs;)
		if (!sa_svc_reports_one(sa, i, now_ms, &due))
			i++;
	return due;
}

/* Queue a Report of notice for subscription s (the newest is dropped
 * and counted when SA_SVC_SUB_QUEUE wait already). */
static void sa_svc_report_queue(struct sa_svc *svc, struct sa_svc_sub *s, const uint8_t *notice)
{
	struct sa_svc_reports *q = s->rq;

	if (!q)
		q = s->rq = calloc(1, sizeof(*q));
	if (!q || q->n == SA_SVC_SUB_QUEUE) {
		svc->overflow++;
		return;
	}
	memcpy(q->notice[(q->head + q->n++) % SA_SVC_SUB_QUEUE], notice, SA_SVC_NOTICE_SIZE);
	svc->queued++;
}

void sa_svc_port_event(struct sa *sa, const uint8_t gid[16], int trap, uint64_t now_ms)
{
	uint8_t notice[SA_SVC_NOTICE_SIZE];
	uint16_t lid;

	if (!sa->svc || trap < SA_SVC_TRAP_GID_IN || trap > SA_SVC_TRAP_MCG_DELETE)
		return;
	lid = sa_port_lid(sa, sa_by_gid(sa, gid));
	sa_svc_notice_make(sa, gid, trap, notice);
	for (size_t i = 0; i < sa->svc->n_subs; i++)
		if (sa_svc_sub_wants(&sa->svc->subs[i], gid, lid, trap))
			sa_svc_report_queue(sa->svc, &sa->svc->subs[i], notice);
	sa_svc_reports_pump(sa, now_ms);
}

void sa_svc_report_resp(struct sa *sa, const struct sa_mad *m)
{
	struct sa_svc *svc = sa->svc;

	if (!svc || m->method != SA_METHOD_REPORT_RESP || m->attr_id != SA_ATTR_NOTICE)
		return;
	for (size_t i = 0; i < svc->n_subs; i++) {
		struct sa_svc_reports *q = svc->subs[i].rq;

		if (q && q->n && q->tries && q->tid == (uint32_t)m->tid) {
			q->head = (q->head + 1) % SA_SVC_SUB_QUEUE;
			q->n--;
			svc->queued--;
			q->tries = 0;
			q->held = 0;
			svc->acked++;
			return;
		}
	}
	svc->unmatched++;
}

void sa_svc_get_stats(const struct sa_svc *svc, struct sa_svc_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!svc)
		return;
	st->services = svc->n_svcs;
	st->subscriptions = svc->n_subs;
	st->reports_acked = svc->acked;
	st->resp_unmatched = svc->unmatched;
	st->reports_overflow = svc->overflow;
	for (size_t i = 0; i < svc->n_subs; i++)
		st->reports_pending += svc->subs[i].rq ? svc->subs[i].rq->n : 0;
}
