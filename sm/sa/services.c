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

struct sa_svc_entry {
	uint8_t raw[SA_SVC_REC_SIZE]; /* as registered (reserved bits cleared) */
	uint64_t expires_ms;	      /* SA_SVC_NEVER: forever */
};

struct sa_svc_sub {
	uint8_t gid[16]; /* subscriber port GID */
	uint16_t enum_id;
	struct sa_svc_inform ii; /* as subscribed (Subscribe 1) */
	struct mad_addr to;	 /* where its InformInfo came from */
};

struct sa_svc_sent {
	uint32_t tid; /* low 32 bits */
	uint8_t used, acked;
};

struct sa_svc {
	struct sa_svc_entry *svcs;
	size_t n_svcs, cap_svcs;
	struct sa_svc_sub *subs;
	size_t n_subs, cap_subs;
	uint16_t next_enum;
	uint32_t next_tid;
	struct sa_svc_sent sent[SA_SVC_REPORT_RING];
	size_t sent_next;
	uint64_t acked, unmatched;
};

struct sa_svc *sa_svc_new(void)
{
	return calloc(1, sizeof(struct sa_svc));
}

void sa_svc_free(struct sa_svc *svc)
{
	if (!svc)
		return;
	free(svc->svcs);
	free(svc->subs);
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

static void sa_svc_remove_at(struct sa_svc *svc, size_t i)
{
	svc->svcs[i] = svc->svcs[--svc->n_svcs];
}

static void sa_svc_expire(struct sa_svc *svc, uint64_t now_ms)
{
	for (size_t i = 0; i < svc->n_svcs;) {
		if (svc->svcs[i].expires_ms <= now_ms)
			sa_svc_remove_at(svc, i);
		else
			i++;
	}
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
		if (svc->n_svcs >= SA_SVC_MAX_SERVICES ||
		    TEXT_GROW(svc->svcs, svc->cap_svcs, svc->n_svcs + 1, 16) < 0)
			return SA_STATUS_NO_RESOURCES;
		i = (long)svc->n_svcs++;
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
		sa_svc_remove_at(svc, i);
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
	sa_svc_expire(sa->svc, req->now_ms);
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

static uint16_t sa_svc_subscribe(struct sa_svc *svc, const struct sa_req *req,
				 const uint8_t gid[16], const struct sa_svc_inform *ii)
{
	long i = sa_svc_sub_find(svc, gid, ii);

	if (i < 0) {
		if (svc->n_subs >= SA_SVC_MAX_SUBS ||
		    TEXT_GROW(svc->subs, svc->cap_subs, svc->n_subs + 1, 16) < 0)
			return SA_STATUS_NO_RESOURCES;
		i = (long)svc->n_subs;
		svc->subs[i].enum_id = sa_svc_enum_new(svc, gid); /* before n_subs counts it */
		memcpy(svc->subs[i].gid, gid, 16);
		svc->n_subs++;
	}
	svc->subs[i].ii = *ii;
	svc->subs[i].to = req->from;
	return SA_STATUS_OK;
}

static uint16_t sa_svc_unsubscribe(struct sa_svc *svc, const uint8_t gid[16],
				   const struct sa_svc_inform *ii)
{
	long i = sa_svc_sub_find(svc, gid, ii);

	if (i < 0)
		return SA_STATUS_REQ_INVALID;
	svc->subs[i] = svc->subs[--svc->n_subs];
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
	st = ii.subscribe ? sa_svc_subscribe(sa->svc, req, gid, &ii)
			  : sa_svc_unsubscribe(sa->svc, gid, &ii);
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

void sa_svc_tick(struct sa *sa, uint64_t now_ms)
{
	if (sa->svc)
		sa_svc_expire(sa->svc, now_ms);
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
			sa_svc_remove_at(svc, i);
		else
			i++;
	}
	for (size_t i = 0; i < svc->n_subs;) {
		if (sa_svc_sub_follow(sa, &svc->subs[i]))
			i++;
		else
			svc->subs[i] = svc->subs[--svc->n_subs];
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

static void sa_svc_report_send(struct sa *sa, const struct sa_svc_sub *s, const uint8_t *notice)
{
	struct sa_svc *svc = sa->svc;
	struct sa_mad h = {0};
	uint8_t buf[SA_MAD_SIZE];
	struct sa_svc_sent *slot;

	h.class_version = SA_CLASS_VERSION;
	h.method = SA_METHOD_REPORT;
	h.tid = SA_SVC_TID_TAG << 32 | ++svc->next_tid;
	h.attr_id = SA_ATTR_NOTICE;
	sa_encode(&h, notice, 1, SA_SVC_NOTICE_SIZE, buf, sizeof(buf));
	if (!sa->xmit.send || sa->xmit.send(sa->xmit.ctx, &s->to, buf, sizeof(buf)) < 0)
		return;
	sa->counters.reports++;
	slot = &svc->sent[svc->sent_next++ % SA_SVC_REPORT_RING];
	*slot = (struct sa_svc_sent){.tid = (uint32_t)h.tid, .used = 1};
}

void sa_svc_port_event(struct sa *sa, const uint8_t gid[16], int trap, uint64_t now_ms)
{
	uint8_t notice[SA_SVC_NOTICE_SIZE];
	uint16_t lid;

	(void)now_ms; /* reports are not retried, so no send time is kept */
	if (!sa->svc || trap < SA_SVC_TRAP_GID_IN || trap > SA_SVC_TRAP_MCG_DELETE)
		return;
	lid = sa_port_lid(sa, sa_by_gid(sa, gid));
	sa_svc_notice_make(sa, gid, trap, notice);
	for (size_t i = 0; i < sa->svc->n_subs; i++)
		if (sa_svc_sub_wants(&sa->svc->subs[i], gid, lid, trap))
			sa_svc_report_send(sa, &sa->svc->subs[i], notice);
}

void sa_svc_report_resp(struct sa *sa, const struct sa_mad *m)
{
	struct sa_svc *svc = sa->svc;

	if (!svc || m->method != SA_METHOD_REPORT_RESP || m->attr_id != SA_ATTR_NOTICE)
		return;
	for (size_t i = 0; i < SA_SVC_REPORT_RING; i++) {
		struct sa_svc_sent *s = &svc->sent[i];

		if (s->used && !s->acked && s->tid == (uint32_t)m->tid) {
			s->acked = 1;
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
	for (size_t i = 0; i < SA_SVC_REPORT_RING; i++)
		st->reports_pending += svc->sent[i].used && !svc->sent[i].acked;
}
