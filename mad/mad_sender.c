/*
 * mad/mad_sender.c - the sender thread and its bounded queue, and the
 * bounded wait for blocking work (see mad_sender.h).  Owns struct
 * mad_sender; the send itself is the caller's callback.
 */
#include "mad/mad_sender.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAD_SENDER_SHORT 256 /* a MAD of up to this many bytes is copied inline */

struct mad_sender_item {
	struct mad_addr to;
	size_t len;
	uint8_t *big; /* len > MAD_SENDER_SHORT: a malloc'd copy */
	uint8_t mad[MAD_SENDER_SHORT];
};

static void *mad_sender_thread(void *arg)
{
	struct mad_sender *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct mad_sender_item one;
		int rc;

		while (!s->count && !s->stop)
			pthread_cond_wait(&s->cond, &s->lock);
		if (!s->count)
			break; /* stopped and drained */
		one = s->q[s->head];
		s->head = (s->head + 1) % s->cap;
		s->count--;
		s->sending = 1;
		pthread_mutex_unlock(&s->lock);
		rc = s->send(s->ctx, &one.to, one.big ? one.big : one.mad, one.len);
		free(one.big);
		pthread_mutex_lock(&s->lock);
		s->sending = 0;
		s->errors += rc < 0;
	}
	s->exited = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int mad_sender_start(struct mad_sender *s, mad_sender_fn send, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->send = send;
	s->ctx = ctx;
	s->q = calloc(MAD_SENDER_FIRST, sizeof(*s->q));
	if (!s->q)
		return -ENOMEM;
	s->cap = MAD_SENDER_FIRST;
	if (pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s->q);
		return -ENOMEM;
	}
	if (pthread_cond_init(&s->cond, NULL) != 0 ||
	    pthread_create(&s->thread, NULL, mad_sender_thread, s) != 0) {
		pthread_mutex_destroy(&s->lock);
		free(s->q);
		s->q = NULL;
		return -EAGAIN;
	}
	s->started = 1;
	return 0;
}

/* A full ring doubles (up to MAD_SENDER_MAX), its items unwrapped from
 * head: 0 or -ENOBUFS (at the bound, or out of memory).  Under lock. */
static int mad_sender_grow(struct mad_sender *s)
{
	size_t cap = 2 * s->cap;
	struct mad_sender_item *q;

	if (cap > MAD_SENDER_MAX || !(q = malloc(cap * sizeof(*q))))
		return -ENOBUFS;
	for (size_t i = 0; i < s->count; i++)
		q[i] = s->q[(s->head + i) % s->cap];
	free(s->q);
	s->q = q;
	s->head = 0;
	s->cap = cap;
	return 0;
}

int mad_sender_queue(struct mad_sender *s, const struct mad_addr *to, const uint8_t *mad,
		     size_t len)
{
	struct mad_sender_item *e;
	uint8_t *big = NULL;

	if (len > MAD_SENDER_SHORT && !(big = malloc(len)))
		return -ENOMEM;
	pthread_mutex_lock(&s->lock);
	if (s->count == s->cap && mad_sender_grow(s) < 0) {
		s->dropped++;
		pthread_mutex_unlock(&s->lock);
		free(big);
		return -ENOBUFS;
	}
	e = &s->q[(s->head + s->count++) % s->cap];
	e->to = *to;
	e->len = len;
	e->big = big;
	memcpy(big ? big : e->mad, mad, len);
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static void mad_sender_deadline(struct timespec *until, unsigned ms)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_sec += ms / 1000;
	until->tv_nsec += (long)(ms % 1000) * 1000000L;
	until->tv_sec += until->tv_nsec / 1000000000L;
	until->tv_nsec %= 1000000000L;
}

int mad_sender_stop(struct mad_sender *s, unsigned ms)
{
	struct timespec until;
	int exited;

	if (!s->started)
		return 0;
	mad_sender_deadline(&until, ms);
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_broadcast(&s->cond);
	while (!s->exited && pthread_cond_timedwait(&s->cond, &s->lock, &until) == 0)
		;
	exited = s->exited;
	pthread_mutex_unlock(&s->lock);
	if (!exited)
		return -EBUSY;
	pthread_join(s->thread, NULL);
	for (size_t i = 0; i < s->count; i++)
		free(s->q[(s->head + i) % s->cap].big);
	free(s->q);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	s->q = NULL;
	s->started = 0;
	return 0;
}

uint64_t mad_sender_dropped(struct mad_sender *s)
{
	uint64_t n;

	if (!s->started)
		return 0;
	pthread_mutex_lock(&s->lock);
	n = s->dropped;
	pthread_mutex_unlock(&s->lock);
	return n;
}

int mad_sender_idle(struct mad_sender *s)
{
	int idle;

	pthread_mutex_lock(&s->lock);
	idle = !s->count && !s->sending && !s->stop;
	pthread_mutex_unlock(&s->lock);
	return idle;
}

uint64_t mad_sender_failed(struct mad_sender *s)
{
	uint64_t n;

	if (!s->started)
		return 0;
	pthread_mutex_lock(&s->lock);
	n = s->errors;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* ---- a bounded wait for blocking work ------------------------------------- */

struct mad_sender_job {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	int abandoned; /* the waiter returned -EBUSY: the thread frees the job */
	void (*fn)(void *);
	void *arg;
};

static void mad_sender_job_free(struct mad_sender_job *j)
{
	pthread_cond_destroy(&j->cond);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

static void *mad_sender_job_thread(void *a)
{
	struct mad_sender_job *j = a;
	int abandoned;

	j->fn(j->arg);
	pthread_mutex_lock(&j->lock);
	j->done = 1;
	abandoned = j->abandoned;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
	if (abandoned) /* the waiter gave up on it: the job is this thread's */
		mad_sender_job_free(j);
	return NULL;
}

int mad_sender_run_bounded(void (*fn)(void *), void *arg, unsigned ms)
{
	struct mad_sender_job *j = calloc(1, sizeof(*j));
	struct timespec until;
	pthread_t t;
	int done;

	if (!j || pthread_mutex_init(&j->lock, NULL) != 0) {
		free(j);
		fn(arg);
		return 0;
	}
	pthread_cond_init(&j->cond, NULL);
	j->fn = fn, j->arg = arg;
	if (pthread_create(&t, NULL, mad_sender_job_thread, j) != 0) {
		fn(arg);
		j->done = 1;
		t = pthread_self();
	}
	mad_sender_deadline(&until, ms);
	pthread_mutex_lock(&j->lock);
	while (!j->done && pthread_cond_timedwait(&j->cond, &j->lock, &until) == 0)
		;
	done = j->done;
	j->abandoned = !done;
	pthread_mutex_unlock(&j->lock);
	if (!done) {
		pthread_detach(t); /* j goes with the stuck thread, which frees it */
		return -EBUSY;
	}
	if (!pthread_equal(t, pthread_self()))
		pthread_join(t, NULL);
	mad_sender_job_free(j);
	return 0;
}
