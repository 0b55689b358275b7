/*
 * test_mad_sender.c - the never-blocking send (mad/mad_sender.c): MADs go
 * out in order through the sender thread, a full queue drops and counts
 * instead of waiting, a sender stuck in a send is left behind after the
 * stop's bound, and mad_sender_run_bounded returns on time; the bound on
 * datagrams the peer has not read (mad/mad_peerq.c) that lets the caller
 * send an SMP itself.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "mad/mad_peerq.h"
#include "mad/mad_sender.h"
#include "tests/unit/unit.h"

struct ts_rx {
	pthread_mutex_t lock;
	int block;    /* the send waits until this is 0 (a receiver that does not read) */
	int n;	      /* MADs sent */
	uint8_t last; /* the first byte of the last one */
	int in_order;
};

static int ts_send(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	struct ts_rx *r = ctx;

	(void)to;
	(void)len;
	for (;;) {
		pthread_mutex_lock(&r->lock);
		if (!r->block)
			break;
		pthread_mutex_unlock(&r->lock);
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	r->in_order &= r->n == 0 || mad[0] == (uint8_t)(r->last + 1);
	r->last = mad[0];
	r->n++;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

static uint64_t ts_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int ts_sent(struct ts_rx *r)
{
	int n;

	pthread_mutex_lock(&r->lock);
	n = r->n;
	pthread_mutex_unlock(&r->lock);
	return n;
}

static void test_sender_order_and_drop(void)
{
	static struct mad_sender s;
	struct ts_rx r = {PTHREAD_MUTEX_INITIALIZER, 1, 0, 0, 1};
	struct mad_addr to = {2, 0, 1};
	uint8_t mad[300] = {0};
	uint64_t t0;
	int dropped = 0;

	CU_ASSERT_EQUAL_FATAL(mad_sender_start(&s, ts_send, &r), 0);
	/* the receiver does not read: queuing never waits, the overflow drops */
	t0 = ts_ms();
	for (unsigned i = 0; i < MAD_SENDER_MAX + 10; i++) {
		mad[0] = (uint8_t)i;
		dropped += mad_sender_queue(&s, &to, mad, i % 2 ? 256 : sizeof(mad)) == -ENOBUFS;
	}
	CU_ASSERT(ts_ms() - t0 < 2000);
	/* MAD_SENDER_MAX fit, and one more when the thread took the first
	 * into its (stuck) send before the ring filled */
	CU_ASSERT(dropped == 10 || dropped == 9);
	CU_ASSERT_EQUAL(mad_sender_dropped(&s), (uint64_t)dropped);
	/* it reads again: everything queued goes, in order */
	pthread_mutex_lock(&r.lock);
	r.block = 0;
	pthread_mutex_unlock(&r.lock);
	CU_ASSERT_EQUAL(mad_sender_stop(&s, 5000), 0);
	CU_ASSERT_EQUAL(ts_sent(&r), MAD_SENDER_MAX + 10 - dropped);
	CU_ASSERT(r.in_order);
}

static void test_sender_stuck_stop(void)
{
	static struct mad_sender s;
	static struct ts_rx r = {PTHREAD_MUTEX_INITIALIZER, 1, 0, 0, 1};
	struct mad_addr to = {2, 0, 1};
	uint8_t mad[256] = {0};
	uint64_t t0;

	CU_ASSERT_EQUAL_FATAL(mad_sender_start(&s, ts_send, &r), 0);
	CU_ASSERT_EQUAL(mad_sender_queue(&s, &to, mad, sizeof(mad)), 0);
	t0 = ts_ms();
	CU_ASSERT_EQUAL(mad_sender_stop(&s, 200), -EBUSY); /* stuck in the send */
	CU_ASSERT(ts_ms() - t0 >= 150 && ts_ms() - t0 < 1500);
	/* let it go: it exits (s and r are static, so nothing it uses is gone) */
	pthread_mutex_lock(&r.lock);
	r.block = 0;
	pthread_mutex_unlock(&r.lock);
	CU_ASSERT_EQUAL(mad_sender_stop(&s, 5000), 0);
}

static int ts_fail(void *ctx, const struct mad_addr *to, const uint8_t *mad, size_t len)
{
	(void)ctx, (void)to, (void)len;
	return mad[0] ? -EIO : 0;
}

/* A send that fails in the thread is counted: its caller saw it queued. */
static void test_sender_failed(void)
{
	static struct mad_sender s;
	struct mad_addr to = {2, 0, 1};
	uint8_t mad[256] = {0};

	CU_ASSERT_EQUAL_FATAL(mad_sender_start(&s, ts_fail, NULL), 0);
	for (int i = 0; i < 5; i++) {
		mad[0] = (uint8_t)(i % 2);
		CU_ASSERT_EQUAL(mad_sender_queue(&s, &to, mad, sizeof(mad)), 0);
	}
	for (int i = 0; i < 1000 && mad_sender_failed(&s) < 2; i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	CU_ASSERT_EQUAL(mad_sender_failed(&s), 2);
	CU_ASSERT_EQUAL(mad_sender_dropped(&s), 0);
	CU_ASSERT_EQUAL(mad_sender_stop(&s, 5000), 0);
}

static void ts_sleep(void *arg)
{
	long ms = *(long *)arg;

	nanosleep(&(struct timespec){ms / 1000, ms % 1000 * 1000000L}, NULL);
}

/* A job that sleeps 1 s and then says it ended. */
static int slow_ended;
static void ts_slow(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){1, 0}, NULL);
	__atomic_store_n(&slow_ended, 1, __ATOMIC_SEQ_CST);
}

static void test_run_bounded(void)
{
	static long quick = 1;
	uint64_t t0 = ts_ms();

	CU_ASSERT_EQUAL(mad_sender_run_bounded(ts_sleep, &quick, 1000), 0);
	CU_ASSERT(ts_ms() - t0 < 900);
	CU_ASSERT_EQUAL(mad_sender_run_bounded(ts_slow, NULL, 50), -EBUSY);
	CU_ASSERT_EQUAL(__atomic_load_n(&slow_ended, __ATOMIC_SEQ_CST), 0); /* before the job */
	/* the job ends while the process runs on: its thread frees what the
	 * waiter left it (make asan's leak check fails otherwise) */
	for (int i = 0; i < 500 && !__atomic_load_n(&slow_ended, __ATOMIC_SEQ_CST); i++)
		nanosleep(&(struct timespec){0, 10000000L}, NULL);
	CU_ASSERT_EQUAL(__atomic_load_n(&slow_ended, __ATOMIC_SEQ_CST), 1);
	nanosleep(&(struct timespec){0, 100000000L}, NULL);
}

/* idle: nothing queued and not in a send; busy while a send blocks */
static void test_sender_idle(void)
{
	static struct mad_sender s;
	static struct ts_rx r = {PTHREAD_MUTEX_INITIALIZER, 1, 0, 0, 1};
	struct mad_addr to = {2, 0, 1};
	uint8_t mad[256] = {0};

	CU_ASSERT_EQUAL_FATAL(mad_sender_start(&s, ts_send, &r), 0);
	CU_ASSERT(mad_sender_idle(&s));
	CU_ASSERT_EQUAL(mad_sender_queue(&s, &to, mad, sizeof(mad)), 0);
	CU_ASSERT(!mad_sender_idle(&s)); /* queued, or in the blocked send */
	for (int i = 0; i < 100 && ts_sent(&r) == 0; i++)
		nanosleep(&(struct timespec){0, 2000000}, NULL);
	CU_ASSERT(!mad_sender_idle(&s)); /* still in the blocked send */
	pthread_mutex_lock(&r.lock);
	r.block = 0;
	pthread_mutex_unlock(&r.lock);
	for (int i = 0; i < 1000 && !mad_sender_idle(&s); i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	CU_ASSERT(mad_sender_idle(&s));
	CU_ASSERT_EQUAL(mad_sender_stop(&s, 5000), 0);
}

/* The peer reads in order: an answer marks its request and everything
 * written before it read; unanswered datagrams and answers to requests
 * no longer remembered keep the bound conservative. */
static void test_peerq(void)
{
	static struct mad_peerq q;

	mad_peerq_init(&q);
	mad_peerq_sent(&q, 0x100000001ull, 1); /* 1: request, TID 1 (kernel bits set) */
	mad_peerq_sent(&q, 7, 0);	       /* 2: a response, no answer comes */
	mad_peerq_sent(&q, 2, 1);	       /* 3 */
	mad_peerq_sent(&q, 3, 1);	       /* 4 */
	CU_ASSERT_EQUAL(mad_peerq_unread(&q), 4);
	mad_peerq_answered(&q, 0xabcd00000003ull); /* TID 3: 1-4 read */
	CU_ASSERT_EQUAL(mad_peerq_unread(&q), 0);
	mad_peerq_answered(&q, 2); /* late answer to 3: the mark never goes back */
	CU_ASSERT_EQUAL(mad_peerq_unread(&q), 0);
	mad_peerq_sent(&q, 9, 1);  /* 5 */
	mad_peerq_sent(&q, 9, 1);  /* 6: its retry, same TID */
	mad_peerq_answered(&q, 9); /* says only that the first try was read */
	CU_ASSERT_EQUAL(mad_peerq_unread(&q), 1);
	mad_peerq_answered(&q, 42); /* not ours: nothing moves */
	CU_ASSERT_EQUAL(mad_peerq_unread(&q), 1);
	/* a request pushed out of the ring cannot move the mark */
	for (unsigned i = 0; i < MAD_PEERQ_RING; i++)
		mad_peerq_sent(&q, 1000 + i, 1);
	mad_peerq_answered(&q, 9);
	CU_ASSERT_EQUAL(mad_peerq_unread(&q), MAD_PEERQ_RING + 1);
	mad_peerq_answered(&q, 1000 + MAD_PEERQ_RING - 1);
	CU_ASSERT_EQUAL(mad_peerq_unread(&q), 0);
}

void test_mad_sender_register(void)
{
	CU_pSuite s = CU_add_suite("mad_sender", NULL, NULL);

	CU_add_test(s, "in order; a full queue drops, never waits", test_sender_order_and_drop);
	CU_add_test(s, "stop leaves a sender stuck in a send", test_sender_stuck_stop);
	CU_add_test(s, "a send that fails in the thread is counted", test_sender_failed);
	CU_add_test(s, "bounded wait for blocking work", test_run_bounded);
	CU_add_test(s, "idle only with nothing queued or in a send", test_sender_idle);
	CU_add_test(s, "peer's unread datagrams: answers move the mark", test_peerq);
}
