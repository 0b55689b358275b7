/*
 * vsim_smi.c - the simulated verbs layer's reads from ibsim: synchronous
 * directed-route Gets on a client MAD port, the local port's facts, and
 * fabric snapshots (the walk of routing/dr_walk.c, then every LFT).
 * Owns its MAD port and queue; knows nothing of verbs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/mad_port.h"
#include "mad/mad_queue.h"
#include "mad/text.h"
#include "routing/dr_walk.h"
#include "routing/fabric.h"
#include "tests/verbs_sim/vsim_smi.h"

#define VSIM_PERMISSIVE_LID 0xffff
#define VSIM_MAD_TIMEOUT_MS 100
#define VSIM_WAIT_SLICE_MS 20

struct vsim_snap {
	struct fabric f;
	struct lft_set lfts;
	struct verify_index ix;
	uint64_t read_ms;
	int valid;
};

struct vsim_smi {
	struct mad_port *port;
	struct mad_queue *q;
	char ca[32];
	struct dr_walk walk;
	struct vsim_snap snap;
};

/* One outstanding Get: a synchronous one (done/status/resp) or a walk's. */
struct vsim_req {
	struct vsim_smi *s;
	int done, status;
	struct smp resp;
	struct dr_walk_get g; /* walk Gets and LFT blocks: what was asked */
};

uint64_t vsim_smi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void vsim_smi_rx(void *ctx, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	mad_queue_recv(ctx, from, mad, len, vsim_smi_now_ms());
}

/* Run the queue until nothing is outstanding. */
static int vsim_smi_drain(struct vsim_smi *s)
{
	while (mad_queue_outstanding(s->q)) {
		uint64_t now = vsim_smi_now_ms(), next = mad_queue_tick(s->q, now);
		unsigned wait = next > now ? (unsigned)(next - now) : 1;
		int rc;

		if (!mad_queue_outstanding(s->q))
			break;
		rc = mad_port_wait(s->port, wait < VSIM_WAIT_SLICE_MS ? wait : VSIM_WAIT_SLICE_MS);
		if (rc < 0)
			return rc;
		mad_port_drain(s->port, vsim_smi_rx, s->q);
	}
	return 0;
}

static int vsim_smi_submit(struct vsim_smi *s, const uint8_t *path, uint8_t hops, uint16_t attr,
			   uint32_t mod, mad_done_fn done, struct vsim_req *r)
{
	struct mad_addr to = {.lid = VSIM_PERMISSIVE_LID};
	struct smp smp;

	smp_init_dr(&smp, SMP_METHOD_GET, attr, mod, path, hops);
	return mad_queue_submit(s->q, &to, &smp, done, r, vsim_smi_now_ms());
}

static void vsim_smi_sync_done(void *arg, int status, const struct smp *resp)
{
	struct vsim_req *r = arg;

	r->done = 1;
	r->status = status;
	if (resp)
		r->resp = *resp;
}

/* A 0-hop Get of the local node, waited for. */
static int vsim_smi_get_local(struct vsim_smi *s, uint16_t attr, uint32_t mod, uint8_t *data)
{
	struct vsim_req r = {.s = s};
	int rc = vsim_smi_submit(s, NULL, 0, attr, mod, vsim_smi_sync_done, &r);

	if (rc < 0)
		return rc;
	if ((rc = vsim_smi_drain(s)) < 0)
		return rc;
	if (r.status == 0)
		memcpy(data, r.resp.data, SMP_DATA_SIZE);
	return r.status;
}

struct vsim_smi *vsim_smi_open(char *err, size_t errlen)
{
	struct mad_queue_opts qo = {.window = 16, .timeout_ms = VSIM_MAD_TIMEOUT_MS, .retries = 2};
	struct vsim_smi *s = calloc(1, sizeof(*s));
	struct mad_xmit x;

	if (!s) {
		text_err(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	s->port = mad_port_open_client(NULL, 0, 0, NULL, NULL, err, errlen);
	if (!s->port) {
		free(s);
		return NULL;
	}
	mad_port_set_timeout(s->port, VSIM_MAD_TIMEOUT_MS);
	snprintf(s->ca, sizeof(s->ca), "%s", mad_port_info(s->port)->ca);
	x = mad_port_xmit(s->port);
	s->q = mad_queue_new(&qo, &x, NULL, NULL);
	if (!s->q) {
		mad_port_close(s->port);
		free(s);
		text_err(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	fabric_init(&s->snap.f);
	lft_set_init(&s->snap.lfts);
	return s;
}

static void vsim_snap_clear(struct vsim_snap *n)
{
	if (n->valid)
		verify_index_fini(&n->ix);
	lft_set_fini(&n->lfts);
	fabric_fini(&n->f);
	fabric_init(&n->f);
	lft_set_init(&n->lfts);
	n->valid = 0;
}

void vsim_smi_close(struct vsim_smi *s)
{
	if (!s)
		return;
	vsim_snap_clear(&s->snap);
	mad_queue_free(s->q);
	mad_port_close(s->port);
	free(s);
}

const char *vsim_smi_ca(const struct vsim_smi *s)
{
	return s->ca;
}

int vsim_smi_node(struct vsim_smi *s, struct smp_node_info *ni)
{
	uint8_t data[SMP_DATA_SIZE];
	int rc = vsim_smi_get_local(s, SMP_ATTR_NODE_INFO, 0, data);

	if (rc == 0)
		smp_node_info_decode(data, ni);
	return rc;
}

int vsim_smi_port(struct vsim_smi *s, uint8_t port, struct vsim_port_facts *out)
{
	uint8_t data[SMP_DATA_SIZE];
	struct smp_node_info ni;
	struct smp_pkey_block b;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = vsim_smi_node(s, &ni)) < 0)
		return rc;
	out->port_guid = ni.port_guid + (uint64_t)(port - ni.local_port);
	if ((rc = vsim_smi_get_local(s, SMP_ATTR_PORT_INFO, port, data)) < 0)
		return rc;
	smp_port_info_decode(data, &out->pi);
	if (vsim_smi_get_local(s, SMP_ATTR_PKEY_TABLE, 0, data) == 0) {
		smp_pkey_decode(data, &b);
		memcpy(out->pkey, b.pkey, sizeof(out->pkey));
	}
	return 0;
}

/* ---- Fabric snapshots --------------------------------------------------- */

static void vsim_walk_done(void *arg, int status, const struct smp *resp)
{
	struct vsim_req *r = arg;

	dr_walk_answer(&r->s->walk, &r->g, status, status < 0 ? NULL : resp->data);
	free(r);
}

static void vsim_walk_get(void *ctx, const struct dr_walk_get *g)
{
	struct vsim_smi *s = ctx;
	struct vsim_req *r = calloc(1, sizeof(*r));

	if (!r)
		return;
	r->s = s;
	r->g = *g;
	if (vsim_smi_submit(s, g->path, g->hops, g->attr, g->mod, vsim_walk_done, r) < 0)
		free(r);
}

static const struct dr_walk_ops vsim_walk_ops = {.get = vsim_walk_get};

static void vsim_lft_done(void *arg, int status, const struct smp *resp)
{
	struct vsim_req *r = arg;
	struct lft *t = lft_set_find(&r->s->snap.lfts, r->g.node);
	struct smp_lft_block blk;

	if (status < 0) {
		free(t->port); /* the walk then says the LFT could not be read */
		t->port = NULL;
	} else if (t->port) {
		smp_lft_decode(resp->data, &blk);
		lft_put_block(t, r->g.mod, blk.port);
	}
	free(r);
}

static int vsim_read_lfts(struct vsim_smi *s)
{
	struct vsim_snap *n = &s->snap;

	if (lft_set_alloc(&n->lfts, &n->f, fabric_max_lft_top(&n->f)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n->lfts.n; i++) {
		struct lft *t = &n->lfts.tables[i];
		const struct fabric_node *sw = &n->f.nodes[t->node];

		t->top = sw->lft_top > LID_UNICAST_MAX ? LID_UNICAST_MAX : sw->lft_top;
		if (!sw->lft_cap) {
			free(t->port);
			t->port = NULL;
			continue;
		}
		for (uint32_t b = 0; t->top && b <= t->top / LFT_BLOCK_SIZE; b++) {
			struct vsim_req *r = calloc(1, sizeof(*r));

			if (!r)
				return -ENOMEM;
			r->s = s;
			r->g.node = t->node;
			r->g.mod = b;
			if (vsim_smi_submit(s, sw->dr_path, sw->dr_hops, SMP_ATTR_LFT, b,
					    vsim_lft_done, r) < 0)
				free(r);
		}
	}
	return vsim_smi_drain(s);
}

static int vsim_snap_read(struct vsim_smi *s, char *err, size_t errlen)
{
	struct vsim_snap *n = &s->snap;
	int rc;

	vsim_snap_clear(n);
	dr_walk_init(&s->walk, &n->f, &vsim_walk_ops, s);
	dr_walk_start(&s->walk);
	if ((rc = vsim_smi_drain(s)) < 0)
		return text_err(err, errlen, rc, "the MAD port failed: %s", strerror(-rc));
	if (n->f.sm_node == FABRIC_NONE)
		return text_err(err, errlen, -EIO, "the local port does not answer NodeInfo");
	if ((rc = vsim_read_lfts(s)) < 0)
		return text_err(err, errlen, rc, "reading the LFTs: %s", strerror(-rc));
	if (verify_index_init(&n->ix, &n->f, &n->lfts) < 0)
		return text_err(err, errlen, -ENOMEM, "out of memory");
	n->valid = 1;
	n->read_ms = vsim_smi_now_ms();
	return 0;
}

const struct verify_index *vsim_smi_fabric(struct vsim_smi *s, uint64_t max_age_ms, int *src_node,
					   uint8_t *src_port, char *err, size_t errlen)
{
	struct vsim_snap *n = &s->snap;

	if ((!n->valid || vsim_smi_now_ms() - n->read_ms > max_age_ms) &&
	    vsim_snap_read(s, err, errlen) < 0)
		return NULL;
	*src_node = n->f.sm_node;
	*src_port = n->f.sm_port;
	return &n->ix;
}
