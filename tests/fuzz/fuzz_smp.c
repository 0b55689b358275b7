/*
 * fuzz_smp.c - libFuzzer target for mad/smp.c and mad/mad_queue.c: the
 * bytes are a script of MADs received by a queue that has a few SMPs on
 * the wire (a fake xmit swallows what it sends).  Every received MAD is
 * also decoded by hand: a header that decodes must encode back to itself,
 * and every attribute codec must round-trip its payload.  The queue must
 * count each MAD exactly once (matched, unmatched, malformed or request)
 * and complete each SMP exactly once, only with a response that really
 * answers it (its TID, attribute, class and directed route).
 *
 * Script, one op after another (the last MAD may be cut short):
 *   op % 4 == 0  a 256-byte MAD follows
 *   op % 4 == 1  a MAD of (next byte) bytes follows (a truncated one)
 *   op % 4 == 2  time passes: (op >> 2) * 25 ms, then mad_queue_tick
 *   op % 4 == 3  submit another SMP (kind op >> 2, see fuzz_smp_submit)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/mad_queue.h"
#include "mad/smp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_SMP_CHECK(cond)                                                                   \
	do {                                                                                   \
		if (!(cond))                                                                   \
			__builtin_trap();                                                      \
	} while (0)

#define FUZZ_SMP_MAX_REQ 32

/* One submitted SMP and what became of it. */
struct fuzz_smp_req {
	struct smp sent; /* as submitted (tid 0) */
	uint32_t tid;	 /* as it went on the wire (0: not yet) */
	int calls;
	int status;
};

struct fuzz_smp_rig {
	struct mad_queue *q;
	struct fuzz_smp_req req[FUZZ_SMP_MAX_REQ];
	unsigned n_req;
	uint64_t now;
	uint64_t completions, requests_seen;
};

/* ---- header and attribute codecs ----------------------------------------- */

static void fuzz_smp_attrs(const uint8_t *payload)
{
	uint8_t buf[SMP_DATA_SIZE];
	struct smp_node_info ni, ni2;
	struct smp_node_desc nd, nd2;
	struct smp_port_info pi, pi2;
	struct smp_switch_info si, si2;
	struct smp_sm_info sm, sm2;
	struct smp_lft_block lft;
	struct smp_pkey_block pk;

	smp_node_info_decode(payload, &ni);
	smp_node_info_encode(&ni, buf);
	smp_node_info_decode(buf, &ni2);
	FUZZ_SMP_CHECK(memcmp(&ni, &ni2, sizeof(ni)) == 0);

	smp_node_desc_decode(payload, &nd);
	FUZZ_SMP_CHECK(strlen(nd.desc) <= SMP_DATA_SIZE);
	for (const char *c = nd.desc; *c; c++)
		FUZZ_SMP_CHECK(*c >= 0x20 && *c <= 0x7e);
	smp_node_desc_encode(&nd, buf);
	smp_node_desc_decode(buf, &nd2);
	FUZZ_SMP_CHECK(strcmp(nd.desc, nd2.desc) == 0);

	smp_port_info_decode(payload, &pi);
	smp_port_info_encode(&pi, buf);
	smp_port_info_decode(buf, &pi2);
	FUZZ_SMP_CHECK(memcmp(&pi, &pi2, sizeof(pi)) == 0);

	smp_switch_info_decode(payload, &si);
	smp_switch_info_encode(&si, buf);
	smp_switch_info_decode(buf, &si2);
	FUZZ_SMP_CHECK(memcmp(&si, &si2, sizeof(si)) == 0);

	smp_sm_info_decode(payload, &sm);
	smp_sm_info_encode(&sm, buf);
	smp_sm_info_decode(buf, &sm2);
	FUZZ_SMP_CHECK(memcmp(&sm, &sm2, sizeof(sm)) == 0);

	smp_lft_decode(payload, &lft);
	FUZZ_SMP_CHECK(memcmp(lft.port, payload, LFT_BLOCK_SIZE) == 0);
	smp_pkey_decode(payload, &pk);
	smp_pkey_encode(&pk, buf);
	FUZZ_SMP_CHECK(memcmp(buf, payload, SMP_DATA_SIZE) == 0);
}

/* Decode a received buffer by hand; returns what smp_decode said. */
static int fuzz_smp_decode(const uint8_t *mad, size_t len)
{
	uint8_t buf[SMP_MAD_SIZE];
	struct smp smp, back;
	int rc;

	memset(&smp, 0xa5, sizeof(smp));
	rc = smp_decode(mad, len, &smp);
	if (rc < 0) {
		FUZZ_SMP_CHECK(rc == -EINVAL);
		return rc;
	}
	FUZZ_SMP_CHECK(rc == 0 && len >= SMP_MAD_SIZE);
	FUZZ_SMP_CHECK(smp.mgmt_class == SMP_CLASS_LID || smp.mgmt_class == SMP_CLASS_DR);
	if (smp.mgmt_class == SMP_CLASS_DR) {
		FUZZ_SMP_CHECK(smp.hop_cnt <= SMP_MAX_HOPS);
		/* IBA C14-9, C14-13: a hop pointer past the path's end + 1
		 * is unreasonable; such an SMP must not decode */
		FUZZ_SMP_CHECK(smp.hop_ptr <= smp.hop_cnt + 1);
	}
	FUZZ_SMP_CHECK(smp_encode(&smp, buf, sizeof(buf)) == 0);
	memset(&back, 0xa5, sizeof(back));
	FUZZ_SMP_CHECK(smp_decode(buf, sizeof(buf), &back) == 0);
	FUZZ_SMP_CHECK(memcmp(&smp, &back, sizeof(smp)) == 0);
	fuzz_smp_attrs(smp.data);
	(void)smp_attr_name(smp.attr_id);
	return 0;
}

/* ---- the queue --------------------------------------------------------------- */

static int fuzz_smp_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct fuzz_smp_rig *r = ctx;
	struct smp smp;

	(void)to;
	FUZZ_SMP_CHECK(len == SMP_MAD_SIZE);
	FUZZ_SMP_CHECK(smp_decode(mad, len, &smp) == 0);
	FUZZ_SMP_CHECK(!(smp.method & 0x80));
	for (unsigned i = 0; i < r->n_req; i++)
		if (r->req[i].sent.attr_id == smp.attr_id && !r->req[i].calls &&
		    (r->req[i].tid == 0 || r->req[i].tid == (uint32_t)smp.tid) &&
		    r->req[i].sent.hop_cnt == smp.hop_cnt) {
			r->req[i].tid = (uint32_t)smp.tid;
			break;
		}
	return 0;
}

/* What a completion must hold: once per SMP, a response only when it
 * answers this SMP. */
static void fuzz_smp_done(void *arg, int status, const struct smp *resp)
{
	struct fuzz_smp_req *q = arg;

	q->calls++;
	q->status = status;
	FUZZ_SMP_CHECK(q->calls == 1);
	if (status != 0 && status != -EREMOTEIO) {
		FUZZ_SMP_CHECK(!resp);
		FUZZ_SMP_CHECK(status == -ETIMEDOUT || status == -EIO || status == -ECANCELED);
		return;
	}
	FUZZ_SMP_CHECK(resp);
	FUZZ_SMP_CHECK((status == 0) == (resp->status == 0));
	FUZZ_SMP_CHECK(resp->method & 0x80);
	FUZZ_SMP_CHECK(q->tid && (uint32_t)resp->tid == q->tid);
	FUZZ_SMP_CHECK(resp->attr_id == q->sent.attr_id);
	FUZZ_SMP_CHECK(resp->mgmt_class == q->sent.mgmt_class);
	if (resp->mgmt_class != SMP_CLASS_DR)
		return;
	FUZZ_SMP_CHECK(resp->direction == 1);
	FUZZ_SMP_CHECK(resp->hop_cnt == q->sent.hop_cnt);
	FUZZ_SMP_CHECK(resp->hop_ptr <= resp->hop_cnt + 1);
	FUZZ_SMP_CHECK(memcmp(&resp->initial_path[1], &q->sent.initial_path[1], resp->hop_cnt) ==
		       0);
}

static void fuzz_smp_on_request(void *arg, const struct mad_addr *from, const struct smp *req)
{
	struct fuzz_smp_rig *r = arg;

	(void)from;
	FUZZ_SMP_CHECK(!(req->method & 0x80));
	r->requests_seen++;
}

/* Kinds of SMP the SM sends: attribute attrs[kind % 6]; LID-routed when
 * kind % 5 == 4, else directed route (kind % 5) * 2 hops out, a Set when
 * kind has bit 3. */
static void fuzz_smp_submit(struct fuzz_smp_rig *r, unsigned kind)
{
	static const uint8_t path[SMP_MAX_HOPS + 1] = { 0, 1, 3, 5, 8, 2, 7, 36, 4 };
	static const uint16_t attrs[] = { SMP_ATTR_NODE_INFO, SMP_ATTR_PORT_INFO,
					  SMP_ATTR_SWITCH_INFO, SMP_ATTR_NODE_DESC,
					  SMP_ATTR_LFT, SMP_ATTR_PKEY_TABLE };
	struct fuzz_smp_req *q;
	struct mad_addr to = { 0xffff, 0, 0 };
	uint16_t attr = attrs[kind % (sizeof(attrs) / sizeof(attrs[0]))];

	if (r->n_req == FUZZ_SMP_MAX_REQ)
		return;
	q = &r->req[r->n_req++];
	memset(q, 0, sizeof(*q));
	if (kind % 5 == 4) {
		smp_init_lid(&q->sent, SMP_METHOD_GET, attr, kind);
		to.lid = (uint16_t)(1 + kind);
	} else {
		smp_init_dr(&q->sent, kind & 8 ? SMP_METHOD_SET : SMP_METHOD_GET, attr, kind,
			    path, (uint8_t)((kind % 5) * 2));
	}
	FUZZ_SMP_CHECK(mad_queue_submit(r->q, &to, &q->sent, fuzz_smp_done, q, r->now) == 0);
}

/* Hand one MAD to the queue: exactly one counter moves, and the right one. */
static void fuzz_smp_recv(struct fuzz_smp_rig *r, const uint8_t *mad, size_t len)
{
	struct mad_counters before = *mad_queue_counters(r->q);
	const struct mad_counters *after = mad_queue_counters(r->q);
	struct mad_addr from = { 0xffff, 0, 0 };
	int rc = fuzz_smp_decode(mad, len);
	uint64_t moved;

	mad_queue_recv(r->q, &from, mad, len, r->now);
	moved = (after->received - before.received) + (after->unmatched - before.unmatched) +
		(after->malformed - before.malformed) + (after->requests - before.requests);
	FUZZ_SMP_CHECK(moved == 1);
	FUZZ_SMP_CHECK((rc < 0) == (after->malformed != before.malformed));
}

static size_t fuzz_smp_step(struct fuzz_smp_rig *r, const uint8_t *data, size_t size)
{
	uint8_t op = data[0];
	size_t len, skip = 1;

	switch (op % 4) {
	case 0:
		len = SMP_MAD_SIZE;
		break;
	case 1:
		len = size > 1 ? data[1] : 0;
		skip = size > 1 ? 2 : 1;
		break;
	case 2:
		r->now += (uint64_t)(op >> 2) * 25;
		mad_queue_tick(r->q, r->now);
		return 1;
	default:
		fuzz_smp_submit(r, op >> 2);
		return 1;
	}
	if (len > size - skip)
		len = size - skip;
	fuzz_smp_recv(r, data + skip, len);
	return skip + len;
}

static void fuzz_smp_finish(struct fuzz_smp_rig *r)
{
	const struct mad_counters *c = mad_queue_counters(r->q);
	uint64_t received = c->received;
	unsigned answered = 0;

	FUZZ_SMP_CHECK(c->requests == r->requests_seen);
	FUZZ_SMP_CHECK(mad_queue_outstanding(r->q) <= r->n_req);
	for (unsigned i = 0; i < r->n_req; i++)
		if (r->req[i].calls && (r->req[i].status == 0 || r->req[i].status == -EREMOTEIO))
			answered++;
	FUZZ_SMP_CHECK(answered == received);
	if (getenv("FUZZ_SMP_TRACE"))
		fprintf(stderr,
			"smp: %u submitted, %" PRIu64 " sent, %" PRIu64 " received, %" PRIu64
			" unmatched, %" PRIu64 " malformed, %" PRIu64 " requests, %" PRIu64
			" timeouts\n",
			r->n_req, c->sent, c->received, c->unmatched, c->malformed, c->requests,
			c->timeouts);
	mad_queue_free(r->q);
	for (unsigned i = 0; i < r->n_req; i++)
		FUZZ_SMP_CHECK(r->req[i].calls == 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_smp_rig *r = calloc(1, sizeof(*r));
	struct mad_queue_opts o = { 4, 100, 1 };
	struct mad_xmit x = { fuzz_smp_send, NULL };

	if (!r)
		return 0;
	x.ctx = r;
	r->q = mad_queue_new(&o, &x, fuzz_smp_on_request, r);
	FUZZ_SMP_CHECK(r->q);
	/* what discovery has on the wire: DR NodeInfo at 0 hops, PortInfo 2
	 * hops out, SwitchInfo 4 hops out, a LID-routed NodeDescription */
	fuzz_smp_submit(r, 0);
	fuzz_smp_submit(r, 1);
	fuzz_smp_submit(r, 2);
	fuzz_smp_submit(r, 9);
	while (size) {
		size_t used = fuzz_smp_step(r, data, size);

		data += used;
		size -= used;
	}
	fuzz_smp_finish(r);
	free(r);
	return 0;
}
