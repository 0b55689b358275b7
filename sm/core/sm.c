/*
 * sm/core/sm.c - the SM object: made and freed here, its settings from
 * the policy, what it hands the daemon (models, tables, counters), the
 * MADs it receives (answers to the queue, SA requests to the backlog,
 * SMInfo and traps), SMInfo answers and the timer.  The sweep is
 * sweep.c's, light sweeps light.c's, the SMPs in flight calls.c's.  No
 * fds, no event loop here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/pma.h"
#include "sm/core/guid2lid.h"
#include "sm/core/log.h"
#include "sm/core/mft_push.h"
#include "sm/core/pkey_push.h"
#include "sm/core/sl2vl_push.h"
#include "sm/core/sm_priv.h"
#include "sm/sa/mcast.h"

static void sm_on_request(void *arg, const struct mad_addr *from, const struct smp *req);
static void sm_parts_free(struct policy_partition *parts, size_t n);
static void sm_rejected(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len);

uint64_t sm_now(const struct sm *sm)
{
	return sm->clock.now_ms(sm->clock.ctx);
}

struct sm *sm_new(const struct sm_opts *opts, const struct mad_xmit *xmit,
		  const struct sm_clock *clock)
{
	struct sm *sm = calloc(1, sizeof(*sm));

	if (!sm)
		return NULL;
	sm->opts = *opts;
	if (!sm->opts.subnet_prefix)
		sm->opts.subnet_prefix = 0xfe80000000000000ull;
	if (!sm->opts.subnet_timeout)
		sm->opts.subnet_timeout = 18;
	sm->clock = *clock;
	sm->ha.state = SM_STATE_DISCOVERING;
	fabric_init(&sm->cur);
	fabric_init(&sm->next);
	sm->model = &sm->cur;
	quar_init(&sm->quar);
	lft_set_init(&sm->lfts);
	lft_set_init(&sm->lfts_cur);
	sm->xmit = *xmit;
	sm->q = mad_queue_new(&sm->opts.mad, xmit, sm_on_request, sm);
	sm->sa = sa_new(xmit);
	if (sm->sa) {
		sm->sa->note = sa_notes_hook;
		sm->sa->note_ctx = sm;
	}
	pkey_plan_init(&sm->pk);
	pkey_plan_init(&sm->pk_next);
	sm->pkc = pkey_cache_new();
	sm->sl2vlc = sl2vl_cache_new();
	sm->mftc = mft_cache_new();
	mft_set_init(&sm->mft_want);
	if (!sm->q || !sm->sa || !sm->pkc || !sm->sl2vlc || !sm->mftc ||
	    /* no policy yet: the default partition and its IPoIB group */
	    sm_set_partitions(sm, NULL, 0) < 0 || lid_alloc_init(&sm->lids, LID_UNICAST_MAX) < 0 ||
	    sm_set_routing(sm, opts->engine ? opts->engine : "minhop", opts->roots, opts->n_roots,
			   1, NULL, 0) < 0) {
		sm_free(sm);
		return NULL;
	}
	return sm;
}

void sm_free(struct sm *sm)
{
	if (!sm)
		return;
	sm_calls_fini(sm);     /* no continuation runs from here on */
	perfmgr_free(sm);
	mad_queue_free(sm->q); /* completes pending SMPs with -ECANCELED */
	sa_free(sm->sa);
	sa_backlog_fini(sm);
	pkey_plan_fini(&sm->pk);
	pkey_plan_fini(&sm->pk_next);
	pkey_cache_free(sm->pkc);
	sl2vl_cache_free(sm->sl2vlc);
	mft_cache_free(sm->mftc);
	mft_set_fini(&sm->mft_want);
	sm_parts_free(sm->parts, sm->n_parts);
	pkey_warn_forget(sm);
	lid_alloc_fini(&sm->lids);
	fabric_fini(&sm->cur);
	fabric_fini(&sm->next);
	quar_fini(&sm->quar);
	lft_set_fini(&sm->lfts);
	lft_set_fini(&sm->lfts_cur);
	lft_routed_fini(&sm->routed);
	lft_routed_fini(&sm->routed_next);
	lft_cache_fini(&sm->cache);
	lft_steps_free(sm); /* freed in the middle of a push */
	free(sm->sweep.prog);
	configure_fini(sm);
	lid_static_fini(sm);
	free(sm->roots);
	free(sm->names);
	free(sm);
}

static int sm_name_cmp(const void *a, const void *b)
{
	const struct policy_node_name *x = a, *y = b;

	return (x->guid > y->guid) - (x->guid < y->guid);
}

int sm_set_names(struct sm *sm, const uint64_t *guids, const char *const *names, size_t n)
{
	struct policy_node_name *v = n ? calloc(n, sizeof(*v)) : NULL;

	if (n && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i].guid = guids[i];
		snprintf(v[i].name, sizeof(v[i].name), "%s", names[i]);
	}
	if (n)
		qsort(v, n, sizeof(*v), sm_name_cmp);
	free(sm->names);
	sm->names = v;
	sm->n_names = n;
	return 0;
}

const char *sm_name_of(const struct sm *sm, uint64_t guid)
{
	struct policy_node_name key = {.guid = guid};
	const struct policy_node_name *hit;

	if (!sm->n_names)
		return NULL;
	hit = bsearch(&key, sm->names, sm->n_names, sizeof(key), sm_name_cmp);
	return hit ? hit->name : NULL;
}

int sm_set_routing(struct sm *sm, const char *engines, const uint64_t *roots, size_t n_roots,
		   int force, char *err, size_t errlen)
{
	char why[768];
	uint64_t *copy = NULL;

	if (strlen(engines) >= sizeof(sm->engines)) {
		snprintf(why, sizeof(why), "engine list too long");
		goto refuse;
	}
	if (!force &&
	    lft_push_dry_run(sm, engines, roots, n_roots, NULL, why, sizeof(why), NULL, 0) < 0)
		goto refuse;
	if (n_roots && !(copy = malloc(n_roots * sizeof(*copy))))
		return -ENOMEM;
	if (n_roots)
		memcpy(copy, roots, n_roots * sizeof(*copy));
	free(sm->roots);
	sm->roots = copy;
	snprintf(sm->engines, sizeof(sm->engines), "%s", engines);
	sm->opts.engine = sm->engines;
	sm->opts.roots = sm->roots;
	sm->opts.n_roots = n_roots;
	return 0;
refuse:
	if (err)
		snprintf(err, errlen, "%s", why);
	return -EINVAL;
}

void sm_set_priority(struct sm *sm, uint8_t priority)
{
	sm->opts.priority = priority;
}

void sm_set_lid_reclaim_age(struct sm *sm, unsigned seconds)
{
	sm->opts.lid_reclaim_age = seconds;
}

int sm_reserve_lid(struct sm *sm, uint64_t guid, uint16_t lid)
{
	return lid_alloc_reserve(&sm->lids, guid, lid);
}

int sm_load_lids(struct sm *sm)
{
	uint64_t now = sm->clock.wall_s ? sm->clock.wall_s(sm->clock.ctx) : 0;
	struct guid2lid_report r;
	int rc;

	if (!sm->opts.guid2lid)
		return 0;
	rc = guid2lid_load(sm->opts.guid2lid, &sm->lids, now, &r);
	for (size_t i = 0; i < r.n_msg; i++) {
		if (r.msg[i].warn)
			log_warnx("%s", r.msg[i].text);
		else
			log_info("%s", r.msg[i].text);
	}
	guid2lid_report_fini(&r);
	if (rc < 0)
		log_warnx("NSM-E110 %s: %s", sm->opts.guid2lid, strerror(-rc));
	return rc;
}

void sm_set_sweep_done(struct sm *sm, sm_sweep_done_fn fn, void *arg)
{
	sm->done_fn = fn;
	sm->done_arg = arg;
}

int sm_busy(const struct sm *sm)
{
	return sm->running;
}

size_t sm_outstanding(const struct sm *sm)
{
	return mad_queue_outstanding(sm->q);
}

/* ---- MADs in ----------------------------------------------------------- */

void sm_recv(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	if (len >= 2 && mad[1] == SA_CLASS) {
		sa_backlog_recv(sm, from, mad, len);
		return;
	}
	if (len >= 2 && mad[1] == PMA_CLASS) {
		perfmgr_recv(sm, from, mad, len);
		return;
	}
	{
		const struct mad_counters *c = mad_queue_counters(sm->q);
		uint64_t bad = c->unmatched + c->malformed;

		mad_queue_recv(sm->q, from, mad, len, sm_now(sm));
		if (c->unmatched + c->malformed != bad)
			sm_rejected(sm, from, mad, len);
	}
	/* each SMP answer lets a held SA request through; the rest go when
	 * the sweep ends */
	sa_backlog_release(sm, sm->running ? SM_SA_PER_SMP : 0);
}

/* A MAD the queue threw away (no request of ours with that TID, attribute
 * and route, or it did not decode): said once a second at most, naming
 * where it came from; the counters have every one. */
static void sm_rejected(struct sm *sm, const struct mad_addr *from, const uint8_t *mad, size_t len)
{
	uint64_t now = sm_now(sm);

	sm->rejected_quiet++;
	if (sm->rejected_said && now < sm->rejected_ms + 1000)
		return;
	log_warnx("NSM-W220 ignored a MAD from LID %u (class 0x%02x method 0x%02x attribute "
		  "0x%04x, %zu bytes): not an answer to an SMP of ours, or malformed; %" PRIu64
		  " such in all since the last one said",
		  from->lid, len > 1 ? mad[1] : 0, len > 3 ? mad[3] : 0,
		  len > 17 ? (unsigned)(mad[16] << 8 | mad[17]) : 0u, len, sm->rejected_quiet);
	sm->rejected_quiet = 0;
	sm->rejected_ms = now;
	sm->rejected_said = 1;
}

uint64_t sm_tick(struct sm *sm)
{
	uint64_t now = sm_now(sm), next, pm_next, sa_due;

	sa_due = sa_tick(sm->sa, now); /* Reports waiting for their rate or answer */
	if (sm->light.trap_due_ms && now >= sm->light.trap_due_ms) {
		sm->light.trap_due_ms = 0;
		log_info("repeated traps: sweep requested");
		sm_sweep_request(sm);
	}
	if (sm->sweep.retry_due_ms &&
	    (sm->ha.state == SM_STATE_STANDBY || sm->ha.state == SM_STATE_NOT_ACTIVE))
		sm->sweep.retry_due_ms = 0; /* not ours to sweep */
	if (sm->sweep.retry_due_ms && now >= sm->sweep.retry_due_ms && !sm->running) {
		sm->sweep.retry_due_ms = 0;
		log_info("the last sweep was incomplete: sweeping again");
		sm_sweep_request(sm);
	}
	next = mad_queue_tick(sm->q, now);
	sm_light_hold_tick(sm, now, &next);
	if (sa_due && (!next || sa_due < next))
		next = sa_due;
	if (sm->light.trap_due_ms && (!next || sm->light.trap_due_ms < next))
		next = sm->light.trap_due_ms;
	/* a retry due while a sweep runs waits for its end (which ticks
	 * again): as a deadline it would be in the past all along, and the
	 * loop's timer would fire without pause */
	if (sm->sweep.retry_due_ms && !sm->running && (!next || sm->sweep.retry_due_ms < next))
		next = sm->sweep.retry_due_ms;
	pm_next = perfmgr_tick(sm);
	return pm_next && (!next || pm_next < next) ? pm_next : next;
}

/* ---- partitions -------------------------------------------------------- */

static void sm_parts_free(struct policy_partition *parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(parts[i].members);
	free(parts);
}

int sm_set_partitions(struct sm *sm, const struct policy_partition *parts, size_t n)
{
	struct policy_partition *copy = n ? calloc(n, sizeof(*copy)) : NULL;

	if (n && !copy)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		copy[i] = parts[i];
		copy[i].members = NULL;
		if (parts[i].n_members) {
			copy[i].members = malloc(parts[i].n_members * sizeof(*copy[i].members));
			if (!copy[i].members) {
				sm_parts_free(copy, i);
				return -ENOMEM;
			}
			memcpy(copy[i].members, parts[i].members,
			       parts[i].n_members * sizeof(*copy[i].members));
		}
	}
	sm_parts_free(sm->parts, sm->n_parts);
	sm->parts = copy;
	sm->n_parts = n;
	pkey_warn_forget(sm); /* the next sweep says again what matches no port */
	/* the IPoIB broadcast groups follow the policy's partitions */
	return mcast_policy_apply(sm, copy, n);
}

/* ---- what the daemon reads ------------------------------------------------ */

const struct sa *sm_sa(const struct sm *sm)
{
	return sm->sa;
}

const struct fabric *sm_fabric(const struct sm *sm)
{
	return &sm->cur;
}

const struct lft_set *sm_lfts(const struct sm *sm)
{
	return !sm->cur.n_nodes || !sm->lfts_cur.n ? NULL : &sm->lfts_cur;
}

const struct lid_alloc *sm_lids(const struct sm *sm)
{
	return &sm->lids;
}

const struct mad_counters *sm_mad_counters(const struct sm *sm)
{
	return mad_queue_counters(sm->q);
}

uint16_t sm_lid(const struct sm *sm)
{
	return sm->my_lid;
}

uint8_t sm_state(const struct sm *sm)
{
	return sm->ha.state;
}

int sm_master(const struct sm *sm, uint64_t *guid, uint16_t *lid)
{
	if (sm->ha.state != SM_STATE_STANDBY || !sm->ha.has_master)
		return -ENOENT;
	*guid = sm->ha.master.sm.guid;
	*lid = sm->ha.master.lid;
	return 0;
}

uint64_t sm_sa_dropped(const struct sm *sm)
{
	return sm->ha.sa_dropped;
}

const struct quar *sm_quarantine(const struct sm *sm)
{
	return &sm->quar;
}

/* ---- unsolicited MADs ------------------------------------------------ */

/* IBA 14.4.1: the SM_Key in an SMInfo answer is guarded by the M_Key: a
 * Get that passes our M_Key check (it carries our M_Key - with no M_Key
 * configured, 0, so any Get) reads it, as it does from OpenSM; so does a
 * Get whose own SMInfo shows the key.  Anyone else reads 0. */
static uint64_t sm_sminfo_key(const struct sm *sm, const struct smp *req)
{
	struct smp_sm_info asked;

	if (!sm->opts.sm_key)
		return 0;
	smp_sm_info_decode(req->data, &asked);
	return asked.sm_key == sm->opts.sm_key || req->mkey == sm->opts.m_key ? sm->opts.sm_key : 0;
}

void sm_sminfo_fill(struct sm *sm, uint64_t sm_key, struct smp_sm_info *out)
{
	*out = (struct smp_sm_info){
	    .guid = sm->opts.port_guid,
	    .sm_key = sm_key,
	    .act_count = ++sm->act_count,
	    .priority = sm->opts.priority,
	    .state = sm->ha.state,
	};
}

void sm_reply_sminfo(struct sm *sm, const struct mad_addr *from, const struct smp *req,
		     uint64_t sm_key)
{
	struct smp resp = *req;
	struct smp_sm_info info;

	sm_sminfo_fill(sm, sm_key, &info);
	smp_make_reply(&resp);
	resp.status = 0;
	memset(resp.data, 0, sizeof(resp.data));
	smp_sm_info_encode(&info, resp.data);
	if (mad_queue_send_oneway(sm->q, from, &resp) < 0)
		log_warnx("NSM-W120 cannot answer SMInfo from LID %u", from->lid);
}

static void sm_answer_sminfo(struct sm *sm, const struct mad_addr *from, const struct smp *req)
{
	sm_reply_sminfo(sm, from, req, sm_sminfo_key(sm, req));
	ha_on_get(sm, req);
}

static void sm_on_request(void *arg, const struct mad_addr *from, const struct smp *req)
{
	struct sm *sm = arg;

	if (req->attr_id == SMP_ATTR_SM_INFO && req->method == SMP_METHOD_GET) {
		sm_answer_sminfo(sm, from, req);
		return;
	}
	if (req->attr_id == SMP_ATTR_SM_INFO && req->method == SMP_METHOD_SET) {
		ha_on_set(sm, from, req);
		return;
	}
	if (req->method == SMP_METHOD_TRAP && req->mgmt_class == SMP_CLASS_LID) {
		sm_light_on_trap(sm, from, req);
		return;
	}
	log_debug("ignored %s method 0x%02x from LID %u", smp_attr_name(req->attr_id), req->method,
		  from->lid);
}
