/*
 * route.h - routing engine interface.
 *
 * DOC: An engine takes a const fabric (with LIDs assigned) and fills an
 * lft_set; it does no I/O, keeps no globals and never reaches into the SM.
 * Engines are looked up by name in a table (route_engine_find).  Errors
 * follow the tree's one convention (mad/text.h): compute takes
 * (char *err, size_t errlen) last and fills it with text_err(), naming
 * what failed and where (GUID/port).  What an engine decided that an
 * operator should know on success (roots found, links routed around) is
 * its own output, a struct route_note:
 *
 *	struct route_note note;
 *	char err[256];
 *
 *	if (eng->compute(f, &opts, &lfts, &note, err, sizeof(err)) < 0)
 *		log_errx("routing engine %s failed: %s", eng->name, err);
 *	else if (note.text[0])
 *		log_info("routing engine %s: %s", eng->name, note.text);
 */
#ifndef NANOSM_ROUTING_ROUTE_H
#define NANOSM_ROUTING_ROUTE_H

#include "routing/fabric.h"

struct route_opts {
	uint16_t max_lid;      /* highest LID in use (sizes the tables) */
	const uint64_t *roots; /* root switch NodeGUIDs (updn, ftree); NULL = detect */
	size_t n_roots;
};

/* On success, what the engine decided that an operator should know (roots
 * found, links routed around), for the log; "" when there is nothing to
 * say.  A long note is cut short. */
struct route_note {
	char text[512];
};

struct route_engine {
	const char *name;
	const char *summary;
	/* Fill out (already lft_set_init'ed; the engine allocates it) and
	 * note (NULL: not wanted).  Returns 0, or a negative errno with err
	 * set and out emptied. */
	int (*compute)(const struct fabric *f, const struct route_opts *opts, struct lft_set *out,
		       struct route_note *note, char *err, size_t errlen);
	/* In an engine list with engines after it, tried only when every
	 * cabled port offers at least this many data VLs (fabric_min_data_vls;
	 * route_engine_skip); 0: always.  Alone or last it always runs. */
	unsigned list_min_vls;
};

const struct route_engine *route_engine_find(const char *name);
/* NULL-terminated list of all engines. */
const struct route_engine *const *route_engines(void);

/* Should a list that has engines after eng pass it over on f?  1 with why
 * set ("ports offer 1 data VL (0x.../3: VLCap 1), vlsp wants 2"), else 0. */
int route_engine_skip(const struct route_engine *eng, const struct fabric *f, char *why,
		      size_t whylen);

/* For engines: -EINVAL with err set when opts->max_lid is above the
 * unicast range, else 0. */
int route_opts_check(const struct route_opts *opts, char *err, size_t errlen);

/* minhop: each switch sends every LID along a shortest path in switch hops
 * (its own LID to port 0, a cabled CA's LID to that port, unreachable LIDs
 * to LFT_DROP).  Among equal-cost ports it picks the one carrying the
 * fewest LIDs so far, lowest port number on a tie; routes with a single
 * choice are counted first, so choices see the whole forced load.
 * Deterministic: same fabric and LIDs, same tables. */
extern const struct route_engine route_engine_minhop;
/* updn: up-star/down-star routing on any topology; see routing/updn.c. */
extern const struct route_engine route_engine_updn;
/* ftree: fat-tree routing, also on degraded/partial trees; see routing/ftree.c. */
extern const struct route_engine route_engine_ftree;
/* vlsp: balanced shortest paths made deadlock-free by VL layers, an SL per
 * destination LID (lft_set.sl); see routing/vlsp.c. */
extern const struct route_engine route_engine_vlsp;

#endif
