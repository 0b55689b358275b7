/*
 * test_mad_queue.c - the outstanding window, TID matching, retries and
 * timeouts of mad/mad_queue.c, against a capturing fake transmitter.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>

#include "mad/mad_queue.h"
#include "tests/unit/unit.h"

#define CAP_MAX 64

struct capture {
	unsigned sent;
	int fail;
	struct smp last[CAP_MAX]; /* ring of what went on the wire */
};

struct result {
	int calls;
	int status;
	uint64_t tid;
};

static int capture_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct capture *c = ctx;

	(void)to;
	if (c->fail)
		return -EIO;
	CU_ASSERT_EQUAL(len, SMP_MAD_SIZE);
	CU_ASSERT_EQUAL(smp_decode(mad, len, &c->last[c->sent % CAP_MAX]), 0);
	c->sent++;
	return 0;
}

static void result_done(void *arg, int status, const struct smp *resp)
{
	struct result *r = arg;

	r->calls++;
	r->status = status;
	r->tid = resp ? resp->tid : 0;
}

static struct mad_queue *queue_new(struct capture *c, unsigned window, unsigned retries)
{
	struct mad_queue_opts o = {.window = window, .timeout_ms = 100, .retries = retries};
	struct mad_xmit x = {.send = capture_send, .ctx = c};

	return mad_queue_new(&o, &x, NULL, NULL);
}

static void answer(struct mad_queue *q, const struct smp *req, uint16_t status, uint64_t now)
{
	struct smp resp = *req;
	struct mad_addr from = {.lid = 0xffff};
	uint8_t buf[SMP_MAD_SIZE];

	smp_make_response(&resp);
	resp.status = status;
	CU_ASSERT_EQUAL(smp_encode(&resp, buf, sizeof(buf)), 0);
	mad_queue_recv(q, &from, buf, sizeof(buf), now);
}

static void submit_get(struct mad_queue *q, struct result *r, uint64_t now)
{
	struct mad_addr to = {.lid = 0xffff};
	struct smp smp;

	smp_init_dr(&smp, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, 0);
	CU_ASSERT_EQUAL(mad_queue_submit(q, &to, &smp, result_done, r, now), 0);
}

static void test_window_limits_wire(void)
{
	struct capture c = {0};
	struct mad_queue *q = queue_new(&c, 4, 0);
	struct result r[10] = {{0}};

	for (int i = 0; i < 10; i++)
		submit_get(q, &r[i], 0);
	CU_ASSERT_EQUAL(c.sent, 4);
	CU_ASSERT_EQUAL(mad_queue_outstanding(q), 10);
	/* answering one frees one slot */
	answer(q, &c.last[0], 0, 1);
	CU_ASSERT_EQUAL(r[0].calls, 1);
	CU_ASSERT_EQUAL(r[0].status, 0);
	CU_ASSERT_EQUAL(c.sent, 5);
	CU_ASSERT_EQUAL(mad_queue_outstanding(q), 9);
	mad_queue_free(q);
	for (int i = 1; i < 10; i++) {
		CU_ASSERT_EQUAL(r[i].calls, 1);
		CU_ASSERT_EQUAL(r[i].status, -ECANCELED);
	}
}

/* Unanswered attempts well past the round trip stop holding the window
 * (they still wait for their timeout before a resend), so lost MADs do
 * not stall the others; never more than 4 x window on the wire. */
static void test_lost_ones_free_the_window(void)
{
	struct capture c = {0};
	struct mad_queue *q = queue_new(&c, 2, 1);
	struct result r[12] = {{0}};
	uint64_t next;

	for (int i = 0; i < 12; i++)
		submit_get(q, &r[i], 0);
	CU_ASSERT_EQUAL(c.sent, 2);
	answer(q, &c.last[0], 0, 2); /* a round trip of 2 ms: suspect after 13 */
	CU_ASSERT_EQUAL(c.sent, 3);
	/* #1 and #2 go unanswered; before 13 ms nothing more goes out */
	next = mad_queue_tick(q, 4);
	CU_ASSERT_EQUAL(c.sent, 3);
	CU_ASSERT(next > 4 && next <= 15);
	mad_queue_tick(q, 16);
	CU_ASSERT_EQUAL(c.sent, 5); /* two suspects: two more on the wire */
	answer(q, &c.last[3], 0, 17);
	answer(q, &c.last[4], 0, 17);
	CU_ASSERT_EQUAL(r[3].status, 0);
	CU_ASSERT_EQUAL(r[4].status, 0);
	CU_ASSERT_EQUAL(r[1].calls, 0); /* the lost ones wait for their timeout */
	CU_ASSERT_EQUAL(c.sent, 7);
	/* these two go unanswered too: more go out, but never more than
	 * 4 x window on the wire, suspects included */
	mad_queue_tick(q, 40);
	mad_queue_tick(q, 60);
	mad_queue_tick(q, 80);
	CU_ASSERT_EQUAL(c.sent, 11);
	CU_ASSERT_EQUAL(mad_queue_outstanding(q), 12 - 3);
	/* the first lost ones are sent again at their timeout */
	mad_queue_tick(q, 100);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->retries, 1);
	CU_ASSERT_EQUAL(c.sent, 12);
	mad_queue_tick(q, 102);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->retries, 2);
	mad_queue_free(q);
}

/* Under heavy loss requests get more attempts (at most 4x the retries);
 * once answers flow again, the configured number. */
static void test_more_retries_under_loss(void)
{
	struct capture c = {0};
	struct mad_queue *q = queue_new(&c, 4, 2);
	struct result r[40] = {{0}};
	uint64_t now = 0;
	unsigned most = 0;

	CU_ASSERT_EQUAL(mad_queue_retries_now(q), 2);
	mad_queue_adapt(q, 1);
	for (int i = 0; i < 8; i++)
		submit_get(q, &r[i], now);
	for (int step = 0; step < 60; step++) { /* nothing is ever answered */
		now += 100;
		mad_queue_tick(q, now);
		if (mad_queue_retries_now(q) > most)
			most = mad_queue_retries_now(q);
	}
	CU_ASSERT(most > 2);
	CU_ASSERT(most <= 8);
	mad_queue_adapt(q, 0); /* not adapting: the configured retries */
	CU_ASSERT_EQUAL(mad_queue_retries_now(q), 2);
	mad_queue_adapt(q, 1);
	for (int i = 8; i < 40; i++) { /* now everything is answered */
		submit_get(q, &r[i], now);
		answer(q, &c.last[(c.sent - 1) % CAP_MAX], 0, now);
	}
	CU_ASSERT_EQUAL(mad_queue_retries_now(q), 2);
	mad_queue_free(q);
}

static void test_tid_matching(void)
{
	struct capture c = {0};
	struct mad_queue *q = queue_new(&c, 8, 0);
	struct result a = {0}, b = {0};
	struct smp stale;

	submit_get(q, &a, 0);
	submit_get(q, &b, 0);
	CU_ASSERT_NOT_EQUAL(c.last[0].tid, c.last[1].tid);
	/* answer the second first: only b completes */
	answer(q, &c.last[1], 0, 1);
	CU_ASSERT_EQUAL(a.calls, 0);
	CU_ASSERT_EQUAL(b.calls, 1);
	CU_ASSERT_EQUAL(b.tid, c.last[1].tid);
	/* a duplicate answer is unmatched, not a second completion */
	answer(q, &c.last[1], 0, 2);
	CU_ASSERT_EQUAL(b.calls, 1);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->unmatched, 1);
	/* a response with the right TID but another attribute is unmatched */
	stale = c.last[0];
	stale.attr_id = SMP_ATTR_PORT_INFO;
	answer(q, &stale, 0, 3);
	CU_ASSERT_EQUAL(a.calls, 0);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->unmatched, 2);
	/* a MAD status is reported as -EREMOTEIO with the response */
	answer(q, &c.last[0], 0x1c, 4);
	CU_ASSERT_EQUAL(a.calls, 1);
	CU_ASSERT_EQUAL(a.status, -EREMOTEIO);
	CU_ASSERT_EQUAL(a.tid, c.last[0].tid);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->received, 2);
	mad_queue_free(q);
}

/* A response with the right TID and attribute that did not come back along
 * the request's directed route (or is not on its way back, or is of the
 * other class) is unmatched (found by tests/fuzz/fuzz_smp.c; its input is
 * tests/fuzz/regress/smp/dr-response-other-path). */
static void test_dr_path_matching(void)
{
	static const uint8_t path[] = { 0, 1, 3 };
	struct capture c = {0};
	struct mad_queue *q = queue_new(&c, 4, 0);
	struct mad_addr to = {.lid = 0xffff};
	struct result r = {0};
	uint8_t buf[SMP_MAD_SIZE];
	struct smp smp, bad;

	smp_init_dr(&smp, SMP_METHOD_GET, SMP_ATTR_NODE_INFO, 0, path, 2);
	CU_ASSERT_EQUAL(mad_queue_submit(q, &to, &smp, result_done, &r, 0), 0);
	bad = c.last[0];
	bad.initial_path[2] = 4; /* another node's answer */
	answer(q, &bad, 0, 1);
	bad = c.last[0];
	bad.hop_cnt = 1; /* a shorter route */
	answer(q, &bad, 0, 1);
	bad = c.last[0];
	bad.mgmt_class = SMP_CLASS_LID;
	answer(q, &bad, 0, 1);
	CU_ASSERT_EQUAL(r.calls, 0);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->unmatched, 3);
	/* an "answer" still going out (no D bit) */
	bad = c.last[0];
	bad.method = SMP_METHOD_GET_RESP;
	CU_ASSERT_EQUAL(smp_encode(&bad, buf, sizeof(buf)), 0);
	mad_queue_recv(q, &to, buf, sizeof(buf), 1);
	CU_ASSERT_EQUAL(r.calls, 0);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->unmatched, 4);
	/* the real answer still completes it */
	answer(q, &c.last[0], 0, 2);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.status, 0);
	mad_queue_free(q);
}

static void test_retry_then_timeout(void)
{
	struct capture c = {0};
	struct mad_queue *q = queue_new(&c, 4, 2);
	struct result r = {0};

	submit_get(q, &r, 0);
	CU_ASSERT_EQUAL(mad_queue_tick(q, 50), 100); /* not yet due */
	CU_ASSERT_EQUAL(c.sent, 1);
	mad_queue_tick(q, 100); /* retry 1 */
	mad_queue_tick(q, 200); /* retry 2 */
	CU_ASSERT_EQUAL(c.sent, 3);
	CU_ASSERT_EQUAL(c.last[1].tid, c.last[0].tid); /* same TID on retry */
	CU_ASSERT_EQUAL(r.calls, 0);
	CU_ASSERT_EQUAL(mad_queue_tick(q, 300), 0); /* gives up */
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.status, -ETIMEDOUT);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->retries, 2);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->timeouts, 1);
	CU_ASSERT_EQUAL(mad_queue_outstanding(q), 0);
	mad_queue_free(q);
}

static void test_late_answer_after_retry(void)
{
	struct capture c = {0};
	struct mad_queue *q = queue_new(&c, 4, 3);
	struct result r = {0};

	submit_get(q, &r, 0);
	mad_queue_tick(q, 100);
	answer(q, &c.last[0], 0, 120); /* the first transmission's answer */
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.status, 0);
	answer(q, &c.last[1], 0, 130); /* and the retry's: unmatched */
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->unmatched, 1);
	mad_queue_free(q);
}

static void test_send_failure_and_malformed(void)
{
	struct capture c = {.fail = 1};
	struct mad_queue *q = queue_new(&c, 4, 1);
	struct result r = {0};
	struct mad_addr from = {0};
	uint8_t junk[SMP_MAD_SIZE] = {0x42};

	submit_get(q, &r, 0);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(r.status, -EIO);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->send_errors, 1);
	mad_queue_recv(q, &from, junk, sizeof(junk), 0);
	mad_queue_recv(q, &from, junk, 10, 0);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->malformed, 2);
	mad_queue_free(q);
}

static int request_seen;
static void on_request(void *arg, const struct mad_addr *from, const struct smp *req)
{
	(void)arg;
	CU_ASSERT_EQUAL(from->lid, 7);
	CU_ASSERT_EQUAL(req->attr_id, SMP_ATTR_SM_INFO);
	request_seen++;
}

static void test_unsolicited_goes_to_hook(void)
{
	struct capture c = {0};
	struct mad_queue_opts o = {.window = 2};
	struct mad_xmit x = {.send = capture_send, .ctx = &c};
	struct mad_queue *q = mad_queue_new(&o, &x, on_request, NULL);
	struct mad_addr from = {.lid = 7};
	struct smp get;
	uint8_t buf[SMP_MAD_SIZE];

	smp_init_lid(&get, SMP_METHOD_GET, SMP_ATTR_SM_INFO, 0);
	get.tid = 99;
	smp_encode(&get, buf, sizeof(buf));
	request_seen = 0;
	mad_queue_recv(q, &from, buf, sizeof(buf), 0);
	CU_ASSERT_EQUAL(request_seen, 1);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->requests, 1);
	CU_ASSERT_EQUAL(mad_queue_counters(q)->unmatched, 0);
	mad_queue_free(q);
}

void test_mad_queue_register(void)
{
	CU_pSuite s = CU_add_suite("mad_queue", NULL, NULL);

	CU_add_test(s, "window limits MADs on the wire", test_window_limits_wire);
	CU_add_test(s, "responses match by TID and attribute", test_tid_matching);
	CU_add_test(s, "DR answers match the request's route", test_dr_path_matching);
	CU_add_test(s, "retries then times out", test_retry_then_timeout);
	CU_add_test(s, "late answer after a retry", test_late_answer_after_retry);
	CU_add_test(s, "lost MADs stop holding the window", test_lost_ones_free_the_window);
	CU_add_test(s, "more attempts under heavy loss", test_more_retries_under_loss);
	CU_add_test(s, "send failure and malformed input", test_send_failure_and_malformed);
	CU_add_test(s, "unsolicited MADs reach the request hook", test_unsolicited_goes_to_hook);
}
