/*
 * sm/core/progress.h - progress lines for long sweeps: when one is due and what it
 * says.  Pure: the caller passes a snapshot of the sweep and the time.
 *
 * DOC: a sweep that runs longer than PROGRESS_EVERY_MS gets one info line
 * at that age and at most one per PROGRESS_EVERY_MS after it, e.g.
 * "sweep 3 in progress: pushing LFTs: blocks=1200/9000 mads=48211 elapsed=6.0s"
 * (never "sweep 3: ...": scripts take that for the line that ends a sweep).
 * Short sweeps say nothing.  sm.c fills the snapshot (sm_progress_snap),
 * the loop asks after MAD activity (sm_progress_tick).
 */
#ifndef NANOSM_SM_CORE_PROGRESS_H
#define NANOSM_SM_CORE_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#define PROGRESS_EVERY_MS 2000u

enum progress_phase {
	PROGRESS_DISCOVER, /* reading NodeInfo/PortInfo/SwitchInfo */
	PROGRESS_PORTS,	   /* LIDs and PortInfo Sets */
	PROGRESS_LFTS,	   /* LinearFDBTop and LFT blocks */
	PROGRESS_PKEYS,	   /* P_Key tables */
	PROGRESS_ARM,	   /* INIT -> ARMED */
	PROGRESS_ACTIVATE, /* ARMED -> ACTIVE */
	PROGRESS_MFTS,	   /* multicast forwarding tables */
	PROGRESS_OTHER,	   /* between the above (SMInfo check, routing) */
};

/* What the sweep looks like now (sm_progress_snap fills it). */
struct progress_snap {
	int running;	/* a heavy sweep runs (light sweeps never report) */
	unsigned sweep; /* its number */
	enum progress_phase phase;
	uint64_t elapsed_ms; /* since the sweep started */
	size_t nodes, ports; /* in the model being built */
	uint64_t mads;	     /* SMPs sent by this sweep so far */
	size_t outstanding;  /* SMPs of the current phase not answered yet */
	size_t lft_blocks;   /* LFT block Sets queued by this sweep */
	size_t state_sets;   /* PortInfo state Sets queued by this sweep */
	size_t port_sets;    /* PortInfo configuration Sets queued */
};

/* Rate-limit state, one per SM (read-write for progress_due only). */
struct progress {
	uint64_t every_ms;
	unsigned sweep;	  /* the sweep last_ms belongs to */
	uint64_t last_ms; /* its elapsed_ms when a line was last due; 0 = none yet */
};

void progress_init(struct progress *p, uint64_t every_ms);
/* 1 when a line is due for this snapshot (and remember it), else 0. */
int progress_due(struct progress *p, const struct progress_snap *s);
/* The line (no newline); returns what snprintf returns. */
int progress_format(const struct progress_snap *s, char *buf, size_t len);
const char *progress_phase_name(enum progress_phase ph);

#endif
