/*
 * verify.h - path bookkeeping and reports for nanosm-verify.
 *
 * DOC: nanosm-verify reads a fabric (by directed route or from a topology
 * dump) and the switches' LFTs, then sends a LID-routed NodeInfo Get to
 * every destination LID.  This module is its pure half: parsing a LID list,
 * the LID -> owning port index, the walk of one LID through the LFTs (the
 * path a LID-routed packet takes, and where and why it stops), judging a
 * walk against the probe's answer, and the text and JSON reports, with each
 * path printed the way ibtracert prints it.  No I/O: the tool sends the
 * probes and prints the buffers built here.
 */
#ifndef NANOSM_ROUTING_VERIFY_H
#define NANOSM_ROUTING_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "mad/text.h"
#include "routing/fabric.h"

#define VERIFY_MAX_HOPS 64 /* links on one path; a longer walk is a loop */

/* ---- LID lists ---------------------------------------------------------- */

/* A sorted set of unicast LIDs. */
struct verify_lids {
	uint16_t *lid;
	size_t n, cap;
};

void verify_lids_init(struct verify_lids *l);
void verify_lids_fini(struct verify_lids *l);
/* Add one LID (kept sorted, duplicates ignored). Returns 0 or -ENOMEM. */
int verify_lids_add(struct verify_lids *l, uint16_t lid);
/* Parse "a,b-c,..." (decimal or 0x hex, each LID in 0x0001..0xBFFF, ranges
 * low-high) into l (added to what it holds).  Returns 0, -EINVAL with err
 * set ("lid list: ..."), or -ENOMEM. */
int verify_lids_parse(const char *text, struct verify_lids *l, char *err, size_t errlen);

/* ---- LID owners ----------------------------------------------------------- */

/* Who owns each LID in a fabric, and the fabric's LFTs.  Borrows f and
 * lfts: both must outlive the index and not change while it is used. */
struct verify_index {
	const struct fabric *f;
	const struct lft_set *lfts; /* tables may be missing (switch not read) */
	int32_t *owner_node;	    /* [LID] node index or FABRIC_NONE */
	uint8_t *owner_port;	    /* [LID] port number (0 for a switch) */
	size_t duplicates;	    /* LIDs claimed by more than one port */
	uint16_t first_duplicate;
};

/* Index the LIDs of f: a switch's port 0 LID and every present CA/router
 * port's LID, each with its LMC range.  On a duplicate the first port in
 * node order keeps the LID.  Returns 0 or -ENOMEM. */
int verify_index_init(struct verify_index *ix, const struct fabric *f, const struct lft_set *lfts);
void verify_index_fini(struct verify_index *ix);
/* Node owning lid (FABRIC_NONE if none); *port gets the port number. */
int verify_owner(const struct verify_index *ix, uint16_t lid, uint8_t *port);
/* Every LID owned in the fabric, added to out. Returns 0 or -ENOMEM. */
int verify_index_lids(const struct verify_index *ix, struct verify_lids *out);

/* ---- Walking one LID through the LFTs ------------------------------------ */

enum verify_fault {
	VERIFY_OK = 0,
	VERIFY_NO_OWNER,     /* no port has the LID */
	VERIFY_NO_LFT,	     /* a switch on the way whose LFT was not read */
	VERIFY_NO_ENTRY,     /* LID above LinearFDBTop, or entry 255 */
	VERIFY_BAD_PORT,     /* entry names a port the switch does not have */
	VERIFY_UNCABLED,     /* entry names a port with no link */
	VERIFY_PORT_DOWN,    /* a port on the way is not ACTIVE */
	VERIFY_WRONG_PORT0,  /* entry 0 at a switch that does not own the LID */
	VERIFY_MISDELIVERED, /* arrived at a CA/router port without the LID */
	VERIFY_LOOP,	     /* a switch visited twice, or too many hops */
};

/* One link crossed: left the previous node by out_port, entered `node` by
 * in_port. */
struct verify_hop {
	int node;
	uint8_t in_port, out_port;
};

struct verify_path {
	int src_node;
	uint8_t src_port; /* 0 when the source is a switch */
	uint16_t dlid;
	enum verify_fault fault;
	int fault_node;	    /* where the walk stopped (FABRIC_NONE when ok) */
	uint8_t fault_port; /* the port concerned (LFT entry, down port) */
	uint8_t n_hops;
	struct verify_hop hop[VERIFY_MAX_HOPS];
};

/* Walk dlid from port src_port of src_node along the LFTs, as a switch
 * forwards a LID-routed packet: every switch looks dlid up in its table;
 * both ends of every link crossed must be ACTIVE.  The walk ends at the
 * port owning dlid (p->fault VERIFY_OK) or at the first fault. */
void verify_walk(const struct verify_index *ix, int src_node, uint8_t src_port, uint16_t dlid,
		 struct verify_path *p);

/* "black hole", "down port", "loop", ... : the kind of fault, for humans. */
const char *verify_fault_kind(enum verify_fault f);

/* ---- Judging a destination ------------------------------------------------ */

enum verify_probe_status {
	VERIFY_PROBE_NOT_SENT = 0,
	VERIFY_PROBE_ANSWERED, /* a NodeInfo came back */
	VERIFY_PROBE_TIMEOUT,  /* no answer after every retry */
	VERIFY_PROBE_REFUSED,  /* answered with a MAD status */
	VERIFY_PROBE_ERROR,    /* could not be sent */
};

/* What the LID-routed NodeInfo Get brought back (filled by the tool). */
struct verify_probe {
	enum verify_probe_status status;
	int err;	     /* negative errno for TIMEOUT/ERROR */
	uint16_t mad_status; /* REFUSED */
	uint8_t node_type, local_port;
	uint64_t node_guid, port_guid;
};

struct verify_result {
	uint16_t dlid;
	int owner_node; /* expected owner, FABRIC_NONE if none */
	uint8_t owner_port;
	struct verify_path fwd; /* source -> dlid */
	struct verify_path ret; /* owner -> source LID (the answer's way back) */
	int ret_walked;		/* ret is meaningful (fwd reached an owner) */
	struct verify_probe probe;
	/* set by verify_judge */
	int walk_ok; /* both walks reach their end */
	int matches; /* the responder is the expected owner */
	int agree;   /* probe and walk tell the same story */
	int ok;	     /* walk_ok && answered && matches */
};

/* Prepare r for dlid: owner lookup and both walks (source: src_node /
 * src_port / src_lid, the LID answers come back to). */
void verify_plan(const struct verify_index *ix, int src_node, uint8_t src_port, uint16_t src_lid,
		 uint16_t dlid, struct verify_result *r);
/* Once r->probe is filled: decide ok / matches / agree. */
void verify_judge(const struct verify_index *ix, struct verify_result *r);

/* ---- Reports --------------------------------------------------------------- */

/* s as a JSON string: quoted, with '"', '\\' and control bytes escaped. */
void verify_json_string(struct text_buf *b, const char *s);

struct verify_expect; /* verify_expect.h */

/* Where the report comes from, for its header. */
struct verify_source {
	int node;
	uint8_t port;
	uint16_t lid;
	const char *fabric_from; /* "directed route" */
	/* the comparison with the expected topology (verify_expect.h), NULL
	 * when not made; expect_from names its file, or says why not */
	const struct verify_expect *expect;
	const char *expect_from;
};

/* The path as ibtracert prints it, one line per hop, each line prefixed by
 * indent: "From ca {0x..} portnum 1 lid 1-1 "host1"", "[1] -> switch port
 * {0x..}[2] lid 4-4 "sw"", ..., "To ca {..} ...".  A walk that stops early
 * ends with a "stop: ..." line naming the node and the reason instead. */
void verify_format_trace(struct text_buf *b, const struct verify_index *ix,
			 const struct verify_path *p, const char *indent);
/* One line naming where and why a walk stopped (no newline), e.g.
 * "black hole at switch "sw1" {0x..} lid 4: LFT entry for lid 3 is port 8,
 * which has no link". */
void verify_format_fault(struct text_buf *b, const struct verify_index *ix,
			 const struct verify_path *p);
/* Header line, then per result "ok|FAILED lid N ...: ..." with its trace. */
void verify_format_header(struct text_buf *b, const struct verify_index *ix,
			  const struct verify_source *src, size_t n_dest);
void verify_format_result(struct text_buf *b, const struct verify_index *ix,
			  const struct verify_result *r);
/* "N paths ok, M failed\n" */
void verify_format_summary(struct text_buf *b, const struct verify_result *r, size_t n);
/* The whole report as one JSON object, with "expected" from src. */
void verify_format_json(struct text_buf *b, const struct verify_index *ix,
			const struct verify_source *src, const struct verify_result *r, size_t n);

#endif
