/*
 * sm_rig.c - the SM core against the fake fabric, for unit tests (see
 * sm_rig.h).  Test support only.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "routing/topo_file.h"
#include "tests/unit/sm_rig.h"



static uint64_t rig_now(void *ctx)
{
	return ((struct rig *)ctx)->now;
}

static void rig_done(void *arg, const struct sm_sweep_stats *st)
{
	struct rig *r = arg;

	r->last = *st;
	r->sweeps_done++;
}

void rig_start_sm(struct rig *r, const char *guid2lid, const char *engines)
{
	struct sm_opts o = {.port_guid = 1, .guid2lid = guid2lid, .engine = engines};

	rig_start_sm_opts(r, &o);
}

void rig_start_sm_opts(struct rig *r, const struct sm_opts *opts)
{
	struct sm_opts o = *opts;
	struct mad_xmit x = fake_fabric_xmit(r->ff);
	struct sm_clock c = {.now_ms = rig_now, .ctx = r};

	o.mad.window = 8;
	o.mad.timeout_ms = 50;
	o.mad.retries = 4;
	r->sm = sm_new(&o, &x, &c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sm);
	sm_set_sweep_done(r->sm, rig_done, r);
	CU_ASSERT_EQUAL(sm_load_lids(r->sm), 0);
}

void rig_init(struct rig *r, const char *text, const char *guid2lid, const char *engines)
{
	rig_init_edit(r, text, NULL, NULL, guid2lid, engines);
}

void rig_init_edit(struct rig *r, const char *text, void (*edit)(struct fabric *f, void *ctx),
		   void *ctx, const char *guid2lid, const char *engines)
{
	char err[256];

	memset(r, 0, sizeof(*r));
	fabric_init(&r->topo);
	CU_ASSERT_EQUAL_FATAL(topo_parse(text, strlen(text), "test", &r->topo, err, sizeof(err)), 0);
	if (edit)
		edit(&r->topo, ctx);
	r->ff = fake_fabric_new(&r->topo);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->ff);
	rig_start_sm(r, guid2lid, engines);
}

void rig_fini(struct rig *r)
{
	sm_free(r->sm);
	fake_fabric_free(r->ff);
	fabric_fini(&r->topo);
}

/* Run one sweep to its end: deliver answers, advance time for timeouts. */
void rig_sweep_watch(struct rig *r, void (*each)(struct rig *r, int ticked, uint64_t next, void *ctx),
		     void *ctx)
{
	int before = r->sweeps_done;
	uint8_t mad[SMP_MAD_SIZE];
	struct mad_addr from = {.lid = 0xffff};

	CU_ASSERT_EQUAL(sm_sweep_request(r->sm), 0);
	for (long guard = 0; guard < 1000000 && r->sweeps_done == before; guard++) {
		uint64_t next;

		if (fake_fabric_pop(r->ff, mad) == 1) {
			sm_recv(r->sm, &from, mad, sizeof(mad));
			if (each)
				each(r, 0, 0, ctx);
			continue;
		}
		r->now += 10;
		next = sm_tick(r->sm);
		if (each)
			each(r, 1, next, ctx);
	}
	CU_ASSERT_EQUAL(r->sweeps_done, before + 1);
}

void rig_sweep(struct rig *r)
{
	rig_sweep_watch(r, NULL, NULL);
}

void rig_run(struct rig *r)
{
	uint8_t mad[SMP_MAD_SIZE];
	struct mad_addr from = {.lid = 0xffff};

	for (int guard = 0; guard < 100000 && sm_busy(r->sm); guard++) {
		if (fake_fabric_pop(r->ff, mad) == 1) {
			sm_recv(r->sm, &from, mad, sizeof(mad));
			continue;
		}
		r->now += 10;
		sm_tick(r->sm);
	}
	CU_ASSERT_FALSE(sm_busy(r->sm));
}

int rig_node(const struct fabric *f, const char *desc)
{
	for (size_t i = 0; i < f->n_nodes; i++)
		if (!strcmp(f->nodes[i].desc, desc))
			return (int)i;
	return FABRIC_NONE;
}

/* Follow the fake switches' LFTs from src's port 1 to dlid; returns hops or
 * -1 (black hole, loop, or arrival at the wrong port). */
int rig_walk(const struct fabric *st, const struct fake_fabric *ff, int src, uint16_t dlid)
{
	const struct fabric_port *p = &st->nodes[src].ports[1];
	int node = p->remote_node;

	for (int hops = 1; hops < 64 && node != FABRIC_NONE; hops++) {
		const struct fabric_node *n = &st->nodes[node];
		uint16_t top;
		const uint8_t *lft;
		uint8_t out;

		if (!fabric_is_switch(n))
			return n->ports[p->remote_port].lid == dlid ? hops : -1;
		lft = fake_fabric_lft(ff, n->guid, &top);
		if (!lft || dlid > top || lft[dlid] == LFT_DROP)
			return -1;
		out = lft[dlid];
		if (out == 0)
			return n->ports[0].lid == dlid ? hops : -1;
		if (out > n->num_ports || n->ports[out].state != PORT_STATE_ACTIVE)
			return -1;
		p = &n->ports[out];
		node = p->remote_node;
	}
	return -1;
}

/* Every linked port ACTIVE, LIDs unique and non-zero, all CA pairs routed. */
void rig_check_up(struct rig *r)
{
	const struct fabric *st = fake_fabric_state(r->ff);
	uint8_t seen[0xC000] = {0};

	for (size_t i = 0; i < st->n_nodes; i++) {
		const struct fabric_node *n = &st->nodes[i];
		uint16_t lid = n->ports[fabric_is_switch(n) ? 0 : 1].lid;

		CU_ASSERT(lid >= 1 && lid <= 0xBFFF);
		CU_ASSERT_EQUAL(seen[lid], 0);
		seen[lid] = 1;
		for (unsigned p = 1; p <= n->num_ports; p++)
			if (n->ports[p].remote_node != FABRIC_NONE)
				CU_ASSERT_EQUAL(n->ports[p].state, PORT_STATE_ACTIVE);
	}
	for (size_t s = 0; s < st->n_nodes; s++) {
		if (fabric_is_switch(&st->nodes[s]))
			continue;
		for (size_t d = 0; d < st->n_nodes; d++) {
			const struct fabric_node *dn = &st->nodes[d];

			if (d == s || fabric_is_switch(dn))
				continue;
			CU_ASSERT(rig_walk(st, r->ff, (int)s, dn->ports[1].lid) > 0);
		}
	}
}


int rig_log_count(const char *path, const char *needle, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;
	int count = 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	for (const char *p = buf; (p = strstr(p, needle)); p += strlen(needle))
		count++;
	return count;
}
