/*
 * sm/sa/server.c - the SA's front door: view and lookup maps, request dispatch by
 * attribute, Get/GetTable answer rules, response encoding.  Record
 * contents belong to the modules (records.c, paths.c, mcast.c,
 * services.c); this file never builds a record itself.
 */
#include "sm/sa/server.h"
#include "mad/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sm/sa/modules.h"

/* ---- answers ------------------------------------------------------------- */

int sa_out_add(struct sa_out *o, const uint8_t *rec)
{
	if (text_grow((void **)&o->recs, &o->cap, o->n + 1, o->rec_size, 16) < 0)
		return -ENOMEM;
	memcpy(o->recs + o->n * o->rec_size, rec, o->rec_size);
	o->n++;
	return 0;
}

/* ---- lookup maps ---------------------------------------------------------- */

static size_t sa_guid_slot(uint64_t guid, size_t cap)
{
	return (size_t)((guid * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static void sa_guid_put(struct sa *sa, uint64_t guid, struct sa_port_ref r)
{
	size_t i = sa_guid_slot(guid, sa->guid_cap);

	while (sa->guid_keys[i] && sa->guid_keys[i] != guid)
		i = (i + 1) & (sa->guid_cap - 1);
	if (sa->guid_keys[i])
		return; /* first owner wins (a duplicate GUID is the sweep's problem) */
	sa->guid_keys[i] = guid;
	sa->guid_vals[i] = r;
}

static void sa_maps_free(struct sa *sa)
{
	free(sa->by_lid);
	free(sa->guid_keys);
	free(sa->guid_vals);
	sa->by_lid = NULL;
	sa->guid_keys = NULL;
	sa->guid_vals = NULL;
	sa->n_by_lid = 0;
	sa->guid_cap = 0;
}

static int sa_maps_alloc(struct sa *sa, const struct fabric *f)
{
	size_t ports = 0, top = 0;

	/* by_lid covers the LIDs in use (a 1K-CA fabric: 9 KB, not the
	 * 393 KB of the whole unicast space) */
	for (size_t n = 0; n < f->n_nodes; n++) {
		const struct fabric_node *nd = &f->nodes[n];

		ports += (size_t)nd->num_ports + 1;
		for (unsigned p = 0; p <= nd->num_ports; p++) {
			const struct fabric_port *fp = &nd->ports[p];
			size_t last = fp->lid ? (size_t)fp->lid + fabric_port_lid_count(fp) - 1 : 0;

			if (last > top)
				top = last;
		}
	}
	sa->guid_cap = 64;
	while (sa->guid_cap < ports * 2)
		sa->guid_cap *= 2;
	sa->n_by_lid = (top < LID_UNICAST_MAX ? top : LID_UNICAST_MAX) + 1;
	sa->by_lid = malloc(sa->n_by_lid * sizeof(*sa->by_lid));
	sa->guid_keys = calloc(sa->guid_cap, sizeof(*sa->guid_keys));
	sa->guid_vals = calloc(sa->guid_cap, sizeof(*sa->guid_vals));
	if (!sa->by_lid || !sa->guid_keys || !sa->guid_vals)
		return -ENOMEM;
	for (size_t l = 0; l < sa->n_by_lid; l++)
		sa->by_lid[l] = (struct sa_port_ref){FABRIC_NONE, 0};
	return 0;
}

static void sa_map_port(struct sa *sa, int node, uint8_t port)
{
	const struct fabric_port *p = &sa->v.f->nodes[node].ports[port];
	struct sa_port_ref r = {node, port};

	if (p->guid)
		sa_guid_put(sa, p->guid, r);
	if (!p->lid)
		return;
	for (unsigned k = 0; k < fabric_port_lid_count(p); k++) {
		unsigned lid = p->lid + k;

		if (lid < sa->n_by_lid && sa->by_lid[lid].node == FABRIC_NONE)
			sa->by_lid[lid] = r;
	}
}

static int sa_maps_build(struct sa *sa)
{
	const struct fabric *f = sa->v.f;

	sa_maps_free(sa);
	if (!f)
		return 0;
	if (sa_maps_alloc(sa, f) < 0) {
		sa_maps_free(sa);
		return -ENOMEM;
	}
	for (size_t n = 0; n < f->n_nodes; n++) {
		const struct fabric_node *nd = &f->nodes[n];

		if (fabric_is_switch(nd)) {
			sa_map_port(sa, (int)n, 0);
			continue;
		}
		for (unsigned p = 1; p <= nd->num_ports; p++)
			if (nd->ports[p].present)
				sa_map_port(sa, (int)n, (uint8_t)p);
	}
	return 0;
}

struct sa_port_ref sa_by_lid(const struct sa *sa, uint16_t lid)
{
	if (lid == 0 || lid >= sa->n_by_lid)
		return (struct sa_port_ref){FABRIC_NONE, 0};
	return sa->by_lid[lid];
}

struct sa_port_ref sa_by_guid(const struct sa *sa, uint64_t port_guid)
{
	if (!sa->guid_cap || !port_guid)
		return (struct sa_port_ref){FABRIC_NONE, 0};
	for (size_t i = sa_guid_slot(port_guid, sa->guid_cap); sa->guid_keys[i];
	     i = (i + 1) & (sa->guid_cap - 1))
		if (sa->guid_keys[i] == port_guid)
			return sa->guid_vals[i];
	return (struct sa_port_ref){FABRIC_NONE, 0};
}

static uint64_t sa_be64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = (v << 8) | b[i];
	return v;
}

struct sa_port_ref sa_by_gid(const struct sa *sa, const uint8_t gid[16])
{
	uint64_t prefix = sa_be64(gid);

	if (prefix != sa->v.subnet_prefix && prefix != 0xfe80000000000000ull)
		return (struct sa_port_ref){FABRIC_NONE, 0};
	return sa_by_guid(sa, sa_be64(gid + 8));
}

const struct fabric_port *sa_port(const struct sa *sa, struct sa_port_ref r)
{
	if (!sa->v.f || r.node < 0 || (size_t)r.node >= sa->v.f->n_nodes ||
	    r.port > sa->v.f->nodes[r.node].num_ports)
		return NULL;
	return &sa->v.f->nodes[r.node].ports[r.port];
}

uint16_t sa_port_lid(const struct sa *sa, struct sa_port_ref r)
{
	const struct fabric_port *p;

	if (!sa_port(sa, r))
		return 0;
	if (fabric_is_switch(&sa->v.f->nodes[r.node]))
		r.port = 0;
	p = sa_port(sa, r);
	return p->lid;
}

void sa_gid_make(uint64_t prefix, uint64_t guid, uint8_t gid[16])
{
	for (int i = 0; i < 8; i++) {
		gid[i] = (uint8_t)(prefix >> (56 - 8 * i));
		gid[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	}
}

void sa_port_gid(const struct sa *sa, struct sa_port_ref r, uint8_t gid[16])
{
	const struct fabric_port *p = sa_port(sa, r);

	sa_gid_make(sa->v.subnet_prefix, p ? p->guid : 0, gid);
}

/* ---- life cycle ------------------------------------------------------------ */

struct sa *sa_new(const struct mad_xmit *xmit)
{
	struct sa *sa = calloc(1, sizeof(*sa));

	if (!sa)
		return NULL;
	sa->xmit = *xmit;
	sa->v.subnet_prefix = 0xfe80000000000000ull;
	sa->lim = (struct sa_limits){SA_LIMIT_GROUPS_PER_PORT, SA_LIMIT_SERVICES_PER_PORT,
				     SA_LIMIT_SUBS_PER_PORT, SA_LIMIT_REPORTS_PER_S,
				     SA_LIMIT_REPORT_RETRIES};
	sa->mlid_cap = sa_limits_mlid_cap(NULL);
	if (sa_modules_new(sa) < 0) {
		sa_free(sa);
		return NULL;
	}
	return sa;
}

void sa_free(struct sa *sa)
{
	if (!sa)
		return;
	sa_modules_free(sa);
	sa_maps_free(sa);
	free(sa);
}

int sa_update(struct sa *sa, const struct sa_view *v)
{
	uint64_t old_gen = sa->v.route_gen;
	int rc;

	sa->v = *v;
	rc = sa_maps_build(sa);
	if (rc < 0)
		sa->v.f = NULL; /* answer NO_RECORDS until a later update works */
	sa->mlid_cap = sa_limits_mlid_cap(sa->v.f);
	sa_modules_update(sa, old_gen != v->route_gen);
	return rc;
}

uint64_t sa_tick(struct sa *sa, uint64_t now_ms)
{
	return sa_modules_tick(sa, now_ms);
}

/* ---- dispatch ---------------------------------------------------------------- */

static int sa_method_known(uint8_t method)
{
	switch (method) {
	case SA_METHOD_GET:
	case SA_METHOD_SET:
	case SA_METHOD_GET_TABLE:
	case SA_METHOD_GET_MULTI:
	case SA_METHOD_DELETE:
		return 1;
	default:
		return 0;
	}
}

static void sa_send(struct sa *sa, const struct mad_addr *to, const struct sa_mad *resp,
		    const struct sa_out *out)
{
	size_t n = out ? out->n : 0;
	size_t rec_size = out && n ? out->rec_size : 0;
	size_t need = sa_encode(resp, out ? out->recs : NULL, n, rec_size, NULL, 0);
	uint8_t *buf = malloc(need);

	if (!buf)
		return;
	sa_encode(resp, out ? out->recs : NULL, n, rec_size, buf, need);
	if (sa->xmit.send && sa->xmit.send(sa->xmit.ctx, to, buf, need) == 0)
		sa->counters.answered++;
	if (resp->status)
		sa->counters.errors++;
	free(buf);
}

/* Get answers with exactly one record; Set and Delete with what the module
 * gave (their one record); GetTable and GetMulti with every record (none
 * is a valid answer). */
static uint16_t sa_shape_answer(const struct sa_mad *req, uint16_t status, struct sa_out *out)
{
	if (status)
		return status;
	if (req->method == SA_METHOD_GET_TABLE || req->method == SA_METHOD_GET_MULTI)
		return SA_STATUS_OK;
	if (out->n == 0)
		return SA_STATUS_NO_RECORDS;
	if (out->n > 1 && req->method == SA_METHOD_GET)
		return SA_STATUS_TOO_MANY_RECORDS;
	out->n = 1;
	return SA_STATUS_OK;
}

static uint16_t sa_answer(struct sa *sa, const struct sa_req *req, struct sa_out *out)
{
	const struct sa_mad *m = req->mad;
	sa_handler_fn fn;

	if (m->class_version != SA_CLASS_VERSION)
		return SA_STATUS_BAD_VERSION;
	if (!sa_method_known(m->method))
		return SA_STATUS_BAD_METHOD;
	fn = sa_modules_handler(m->attr_id);
	if (!fn)
		return SA_STATUS_BAD_METHOD_ATTR;
	/* GetMulti (IBA 15.4) is for MultiPathRecord, which has no other method */
	if ((m->method == SA_METHOD_GET_MULTI) != (m->attr_id == SA_ATTR_MULTIPATH_RECORD))
		return SA_STATUS_BAD_METHOD_ATTR;
	if (!sa->v.f && m->attr_id != SA_ATTR_CLASS_PORT_INFO)
		return m->method == SA_METHOD_GET_TABLE || m->method == SA_METHOD_GET_MULTI
			   ? SA_STATUS_OK
			   : SA_STATUS_NO_RECORDS;
	return sa_shape_answer(m, fn(sa, req, out), out);
}

void sa_recv(struct sa *sa, const struct mad_addr *from, const uint8_t *mad, size_t len,
	     uint64_t now_ms)
{
	struct sa_mad m, resp;
	struct sa_out out = {0};
	struct sa_req req;
	uint16_t status;

	sa->counters.requests++;
	if (sa_decode(mad, len, &m) < 0) {
		sa->counters.malformed++;
		return;
	}
	if (m.method & SA_METHOD_RESP) {
		sa_modules_response(sa, &m);
		return;
	}
	req = (struct sa_req){&m, *from, sa_by_lid(sa, from->lid), now_ms};
	status = sa_answer(sa, &req, &out);
	if (status != SA_STATUS_OK)
		out.n = 0;
	sa_make_response(&m, status, &resp);
	sa_send(sa, from, &resp, &out);
	free(out.recs);
}
