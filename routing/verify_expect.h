/*
 * verify_expect.h - what nanosm-verify expected and did not find.
 *
 * DOC: A live walk only sees what it can reach: with the cables between two
 * switches pulled, every path it can still walk is fine.  So nanosm-verify
 * also compares the fabric it discovered ("live") with the one that should
 * be there ("want": the topology nanosm wrote at its last SUBNET UP, or an
 * ibnetdiscover dump given with --topo).  verify_expect_compare lists every
 * difference once, by NodeGUID and port number: a switch not reached, a host
 * port (CA port) not reached, a cable that is down (a reached end not
 * LinkUp), moved (a reached end cabled elsewhere) or missing (neither end
 * tells why), a LID that changed; and, for information only, nodes the file
 * does not have.  Every kind but the last fails the run.  Pure: two const
 * fabrics in, a list and text out.
 */
#ifndef NANOSM_ROUTING_VERIFY_EXPECT_H
#define NANOSM_ROUTING_VERIFY_EXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "routing/fabric.h"
#include "routing/verify.h"

enum verify_gap_kind {
	VERIFY_GAP_NODE,	/* a switch or router of the file not reached */
	VERIFY_GAP_HOST,	/* a CA port of the file not reached */
	VERIFY_GAP_CABLE_DOWN,	/* a reached end of the cable is not LinkUp */
	VERIFY_GAP_CABLE_MOVED, /* a reached end is cabled to another port */
	VERIFY_GAP_CABLE_LOST,	/* not there, and no reached end says why */
	VERIFY_GAP_LID,		/* a reached port has another LID */
	VERIFY_GAP_NEW,		/* a live node the file does not have (not a failure) */
};

/* One difference.  node/port (and peer/peer_port for cables) index the
 * expected fabric; live_node/live_port the live one. */
struct verify_gap {
	enum verify_gap_kind kind;
	int node;
	uint8_t port; /* HOST, LID: the port; cables: end a; NODE: 0 */
	int peer;     /* cables: end b, else FABRIC_NONE */
	uint8_t peer_port;
	int live_node;		     /* DOWN/MOVED/LOST: the reached end (FABRIC_NONE: none); */
	uint8_t live_port;	     /* LID: the port; NEW: the node */
	uint8_t phys_state, state;   /* DOWN, LOST: the reached end's live states */
	uint16_t want_lid, live_lid; /* LID */
};

struct verify_expect {
	const struct fabric *want, *live; /* borrowed: must outlive the list */
	struct verify_gap *gap;		  /* owned, in report order */
	size_t n, cap;
	size_t failures; /* gaps of every kind but NEW */
	size_t n_cables; /* cables in want */
	size_t count[VERIFY_GAP_NEW + 1];
};

/* Compare live with want and list every difference once (nodes and host
 * ports in want's order, then LIDs, cables, new nodes).  A node is matched
 * by NodeGUID; a live port counts as reached when its PortInfo was read
 * (present).  Each cable of want is looked at once.  ex need not be
 * initialised.  Returns 0 or -ENOMEM (ex then holds nothing to free). */
int verify_expect_compare(struct verify_expect *ex, const struct fabric *want,
			  const struct fabric *live);
void verify_expect_fini(struct verify_expect *ex);

/* One line (no newline) for a gap, e.g.
 * "DOWN    cable switch "sw1" {0x..} port 7 <-> switch "sw2" {0x..} port 7:
 * port 7 of "sw1" is Polling (DOWN)". */
void verify_expect_format_gap(struct text_buf *b, const struct verify_expect *ex,
			      const struct verify_gap *g);
/* Every gap, a line each. */
void verify_expect_format(struct text_buf *b, const struct verify_expect *ex);
/* The closing line, e.g. "expected topology (FILE): 6 nodes, 6 cables; 1
 * switch missing, 2 hosts missing, 2 cables down, 2 cables missing\n".
 * ex NULL: "expected topology: not checked (WHY): only what is reachable
 * was verified\n" with why. */
void verify_expect_format_summary(struct text_buf *b, const struct verify_expect *ex,
				  const char *from);
/* "expected": {...} for the JSON report (ex NULL: not checked, why). */
void verify_expect_format_json(struct text_buf *b, const struct verify_expect *ex,
			       const char *from);

#endif
