/*
 * sm_rig.h - the SM core wired to the fake fabric, for unit tests: run a
 * sweep to its end with a fake clock, and judge the result by what the
 * fake's switches and ports hold (not by the SM's own model).
 */
#ifndef NANOSM_TESTS_UNIT_SM_RIG_H
#define NANOSM_TESTS_UNIT_SM_RIG_H

#include "sm/core/sm.h"
#include "tests/unit/fake_fabric.h"

struct rig {
	struct fabric topo;
	struct fake_fabric *ff;
	struct sm *sm;
	uint64_t now;
	struct sm_sweep_stats last;
	int sweeps_done;
};

/* Parse text (ibsim net format) into r->topo, start a fake fabric and an SM
 * on it (guid2lid may be NULL; engines e.g. "minhop"). */
void rig_init(struct rig *r, const char *text, const char *guid2lid, const char *engines);
/* rig_init, with edit (if not NULL) called on r->topo before the fake is
 * built from it (to give ports what a topology file does not say: VLCap). */
void rig_init_edit(struct rig *r, const char *text, void (*edit)(struct fabric *f, void *ctx),
		   void *ctx, const char *guid2lid, const char *engines);
/* Start (another) SM on r->ff. */
void rig_start_sm(struct rig *r, const char *guid2lid, const char *engines);
/* The same with every option given (the MAD window/timeout/retries are the
 * rig's own); opts is copied. */
void rig_start_sm_opts(struct rig *r, const struct sm_opts *opts);
void rig_fini(struct rig *r);
/* Run one sweep to its end (asserts that it ends). */
void rig_sweep(struct rig *r);
/* rig_sweep, calling each (if not NULL) after every MAD handed to the SM
 * (ticked 0) and after every 10 ms tick (ticked 1, next = what sm_tick
 * returned). */
void rig_sweep_watch(struct rig *r, void (*each)(struct rig *r, int ticked, uint64_t next, void *ctx),
		     void *ctx);
/* Run whatever the SM has started (a light sweep, a push, a sweep asked
 * for by a trap) until it is idle (asserts that it gets there). */
void rig_run(struct rig *r);
/* Index of the node with this description, FABRIC_NONE if none. */
int rig_node(const struct fabric *f, const char *desc);
/* Follow the fake's LFTs from CA src port 1 to dlid: hops, or -1. */
int rig_walk(const struct fabric *st, const struct fake_fabric *ff, int src, uint16_t dlid);
/* Assert: linked ports ACTIVE, LIDs unique and non-zero, all CA pairs routed. */
void rig_check_up(struct rig *r);
/* How often needle occurs in the file at path (a log file a test opened
 * with log_open_file); buf (len bytes) gets the file's start. */
int rig_log_count(const char *path, const char *needle, char *buf, size_t len);

#endif
