/*
 * routing/check_priv.h - what the gate's three files share: the state of
 * one run (struct check) and the helpers each calls in another.  check.c
 * walks the tables and finds the forwarding loops; check_cdg.c records
 * the channel dependencies and finds a credit loop; check_say.c turns
 * what they found into the messages.  Not for use outside
 * routing/check*.c.
 */
#ifndef NANOSM_ROUTING_CHECK_PRIV_H
#define NANOSM_ROUTING_CHECK_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "routing/check.h"
#include "routing/swgraph.h"

/*
 * How it works.  Routing is by destination, so for one destination LID the
 * switches' next hops form an in-tree (or a loop): each destination is
 * walked from every switch of its component once, with one state word
 * per switch reused for the next destination - O(LIDs x switches).  A
 * switch's own hop is judged when the walk first reaches it; its word
 * holds a stamp that says it is judged for this destination, its verdict
 * and its hops (check_st), so nothing is cleared between destinations
 * and a switch whose next hop is judged takes that word plus one
 * (check_walk).
 * Sources are every switch and every CA/router port cabled to a switch; the
 * sources cabled to a switch share its verdict, so they are counted by
 * weight, never walked.  Destinations are the LIDs (base .. base+2^LMC-1)
 * of switch port 0 and of CA/router ports cabled to a switch; LIDs of ports
 * no switch can deliver to, and pairs in different islands of the switch
 * graph, are not routable by any LFT and are not counted.
 *
 * Blocks of LIDs.  The LFTs are 1 byte per (switch, LID): at 48K LIDs and
 * 3839 switches, 187 MB, far beyond the caches.  So the destinations are
 * taken CHECK_BLOCK (64) LIDs at a time: each switch's 64 entries are
 * copied with one cache-line read (check_gather) and turned into port
 * codes (the next switch, else what the hop is) laid out LID by LID, and
 * a 64-bit mask per switch of the LIDs it sends on to another switch.
 * The per-destination walk above then reads only that block.
 *
 * Credit loops: channels are directed switch-to-switch links, and a turn
 * (in over link a, out over link b) at a switch is a dependency a -> b.
 * The turns of every pair's route are kept in one bitmap per switch
 * (in x out over its switch links), which dedupes them for free and is the
 * CDG's adjacency, searched for a cycle by an iterative DFS.  The walk of
 * a destination only marks which switches send it into the CDG (a 64-bit
 * mask per switch, bit = LID in the block; when every switch of the
 * fabric routes it without fault, one block-wide mask says so for all);
 * once the block is walked, its turns are recorded switch by switch (check_turns_at: for each
 * switch link into t, the block's LIDs its far end sends over it, compared 16 bytes at a time, that
 * t sends on to a switch; t's out channel looked up only for the LIDs that arrive), so all writes
 * of a switch go to its own bitmap while it is in cache.  Where switches have more switch links
 * than a block has LIDs (a 2-level spine with 250 of them) the same turns are recorded pair by pair
 * from each sender instead (check_turns_from), which is then less work.  Pairs from a switch to
 * another switch's LID are left out of the CDG: that is management traffic (LID-routed SMPs ride
 * VL15, which has no credits), and counting it would fail min-hop on every fat tree for a spine ->
 * leaf -> spine route that carries no data.  Pairs with a CA/router end count.
 *
 * Virtual lanes.  When the tables carry SLs (lft_set.sl), the paths to a
 * destination LID ride VL sl[lid] at every hop (SL s = VL s), so its
 * turns are dependencies on that VL only: one turn bitmap per VL, each
 * searched for a cycle on its own; a cycle is named with its VL.  Every
 * cable a destination's routes cross (the source CA cables, each switch's
 * out cable, the last one into the destination) must offer that VL at
 * both ends (PortInfo VLCap, fabric_port_data_vls), and SL 15 (VL15,
 * management only) is no data SL: such a destination fails the gate.
 * With an SL per path (lft_set.path_sl) a destination's paths may ride
 * several VLs: its walk marks no senders, and check_path.c follows each
 * good path from its source switch instead, noting its turns on its own
 * VL and checking the cables it crosses for that VL.
 * Without SLs everything is VL 0, offered by every port.
 */

#define CHECK_NO_RANK SIZE_MAX
#define CHECK_NO_CHAN SIZE_MAX
#define CHECK_CYCLE_TAIL 48 /* room kept for " -> ... (N channels) -> back" */
#define CHECK_DATA_VLS 15   /* VL0-14; SL 15 maps to VL15, management only */
#define CHECK_NO_VLS 0xFF   /* inject_vls: no CA/router cabled */
#define CHECK_BLOCK 64	    /* LIDs whose LFT entries are read together */
#define CHECK_NO_LID UINT32_MAX
/* The block holds port codes in 16 bits (half a megabyte at 3839
 * switches, where 32 bits overflowed the 512 KB L2): a switch ordinal,
 * else 0x10000 - 1 - the hop.  So the gate checks fabrics of at most
 * CHECK_MAX_SW switches (the unicast LIDs give 49151 at most). */
#define CHECK_CODE_HOP 0xFFF0 /* codes from here on are hops */
#define CHECK_MAX_SW CHECK_CODE_HOP

/* What one switch does with a destination LID. */
enum check_hop {
	CHECK_HOP_NEXT,	      /* on to another switch */
	CHECK_HOP_ARRIVED,    /* delivered to the port owning the LID */
	CHECK_HOP_NO_TABLE,   /* the switch has no LFT */
	CHECK_HOP_ABOVE_TOP,  /* LID above LinearFDBTop */
	CHECK_HOP_DROP,	      /* LFT_DROP */
	CHECK_HOP_BEYOND,     /* out port > NumPorts */
	CHECK_HOP_PORT0,      /* port 0 of a switch that does not own the LID */
	CHECK_HOP_UNLINKED,   /* out port without a cable */
	CHECK_HOP_WRONG_PORT, /* delivered to a CA/router port that is not the owner */
	CHECK_HOP_BAD_PORT,   /* over a port that is absent or DOWN (either end) */
};

/* The verdict for a route from one switch to the current destination. */
enum check_verdict { CHECK_OK, CHECK_UNREACHABLE, CHECK_LOOP, CHECK_BAD };

#define CHECK_ON_WALK 4 /* verdict of a switch on the walk being followed */

enum check_link_kind { CHECK_LINK_NONE, CHECK_LINK_SWITCH, CHECK_LINK_END, CHECK_LINK_BAD };

enum check_color { CHECK_WHITE, CHECK_GRAY, CHECK_BLACK };

/* One switch port, precomputed so the per-destination walk reads 8 bytes
 * instead of the fabric's port structs. */
struct check_link {
	int32_t far;  /* SWITCH: switch ordinal; END: node index */
	uint8_t kind; /* enum check_link_kind */
	uint8_t far_port;
	uint8_t self_chan; /* SWITCH: index among this switch's switch links */
	uint8_t far_chan;  /* SWITCH: the far port's index among the far switch's */
};

/* A source: a switch (port 0) or a CA/router port cabled to a switch. */
struct check_source {
	int node;
	uint8_t port;
	uint8_t injection_bad; /* its own cable has an absent/DOWN end */
	int sw;		       /* switch ordinal it sends into */
};

/* A destination LID, its owning port and the switch that port hangs off. */
struct check_dest {
	uint32_t lid;
	int node;
	uint8_t port;
	int sw;
};

struct check {
	const struct fabric *f;
	const struct lft_set *lfts;
	int allow_down, skip_cdg;
	struct route_check *res;
	struct swgraph g;	  /* components over every cable, usable or not */
	const struct lft **tab;	  /* switch ordinal -> its LFT or NULL */
	struct check_link *links; /* [g.port_base[s] + port] */
	/* channels: directed switch-to-switch links, chan_base[s] + self_chan */
	size_t *chan_base, n_chan;
	int *chan_sw;
	uint8_t *chan_port;
	int *chan_far;		/* the switch at the far end of each channel */
	uint8_t *chan_far_port; /* and its port */
	uint16_t *pcode;	/* [g.port_base[s] + port]: check_port_code, as in nxt */
	uint8_t *pchan;		/* [g.port_base[s] + port]: links[].self_chan, 1 byte a port */
	/* turns: bit turn_base[t] + in * k + out, k = chan_base[t + 1] - chan_base[t] */
	size_t *turn_base;
	uint64_t *turns;
	size_t *comp_pairs, *comp_bad; /* per component: its sources, those with a bad cable */
	/* sources, and per switch how many send into it and the first of them */
	struct check_source *srcs;
	size_t n_srcs;
	size_t *w_ok, *w_bad, *rank_ok, *rank_bad;
	size_t *w_ca, *rank_ca; /* the CA/router sources with a good cable alone */
	struct check_dest *dests;
	size_t n_dests, cap_dests;
	/* per-destination scratch, reused for every destination */
	uint8_t *state, *out, *carry;
	uint32_t *st;	   /* per switch, its judgement for the current destination:
			    * check_st(walk, verdict, hops) */
	uint8_t *blk;	   /* LFT entries of CHECK_BLOCK LIDs: [s * CHECK_BLOCK + lid - blk_lid0] */
	uint32_t blk_lid0; /* the first LID in blk, CHECK_NO_LID before the first */
	/* per switch, bit lid - blk_lid0: sends that destination on to another
	 * switch (fwd); its route counts in the CDG (send) */
	uint64_t *fwd, *send;
	uint8_t *port_lo, *port_hi; /* per switch, its lowest and highest out port in the block */
	uint16_t *nxt; /* [(lid - blk_lid0) * n_sw + s]: port codes (check_code) */
	uint32_t walk; /* stamp of the current destination (1..CHECK_ST_WALKS) */
	uint64_t blk_vl[CHECK_DATA_VLS]; /* per VL, the block's destinations on it */
	const uint16_t *next; /* the current destination's row of nxt */
	int *stack;
	uint64_t note_bit;  /* the current destination's bit, set in send[] of each
			     * switch the walk judges (but loops) when its senders
			     * are all noted (a CA/router LID), else 0 */
	uint64_t blk_all;   /* the block's destinations every switch sends: send[]
			     * of every switch has them too (check_flush_turns) */
	uint32_t dest_hops; /* longest good route to the current destination */
	int dest_failed;    /* some switch has no good route to it */
	/* the first offending pair (source rank, destination index) */
	size_t first_rank, first_dest;
	/* cycle search */
	uint8_t *color;
	uint16_t *cursor;
	size_t *dstack, cycle_at, cycle_len;
	/* virtual lanes (only with_sl): one turn bitmap of turn_bits per VL */
	int with_sl;
	unsigned n_vls;	     /* VLs with turns: 1 + the highest data SL of a destination */
	unsigned dest_vl;    /* the current destination's SL = VL */
	size_t turn_bits;    /* turn_base[n_sw] */
	size_t turn_off;     /* first bit of the VL being recorded or searched */
	uint8_t *link_vls;   /* [g.port_base[s] + port]: data VLs both ends of its cable offer */
	uint8_t *inject_vls; /* [s]: fewest data VLs of a good CA/router cable into s */
	size_t vl_dest;	     /* the first destination on a VL it cannot have, CHECK_NO_RANK */
	int vl_sw;	     /* where: the switch whose out cable or CA cable lacks it */
	uint8_t vl_port;     /* that switch's out port (0: a CA cable into it) */
	unsigned vl_sl;	     /* and the SL of the path that needs it */
	/* an SL per path (lft_set.path_sl): each path's turns on its own VL */
	int per_path;
};

/* A switch's state for the current destination, in one word so the walk
 * reads and writes one: the destination's stamp above bit 20 (s is judged
 * for it when st[s] >= check_st(walk, 0, 0): stamps only grow until
 * they wrap, when st is cleared), the verdict in bits 16-19 (CHECK_OK = 0,
 * so a judged next hop's state plus one is a switch's own), the hops to
 * the destination below (fewer than CHECK_MAX_SW). */
#define CHECK_ST_WALKS 0xFFFu
#define CHECK_ST_VERDICT 0xF0000u
#define CHECK_ST_HOPS 0xFFFFu

static inline uint32_t check_st(uint32_t walk, unsigned verdict, uint32_t hops)
{
	return walk << 20 | verdict << 16 | hops;
}

/* The verdict of switch s for the current destination (judged). */
static inline unsigned check_verdict(const struct check *c, int s)
{
	return (c->st[s] & CHECK_ST_VERDICT) >> 16;
}

/* A port code (c->nxt, c->next): a switch ordinal, or -1 - the hop. */
static inline int check_code(uint16_t v)
{
	return v < CHECK_CODE_HOP ? (int)v : (int)v - 0x10000;
}

/* check.c */
int check_port_usable(const struct check *c, const struct fabric_port *p);
const struct fabric_port *check_far_port(const struct check *c, const struct fabric_port *p);
unsigned check_cable_vls(const struct check *c, const struct fabric_port *p);
enum check_hop check_hop(const struct check *c, const struct check_dest *d, int s, uint8_t *out,
			 int *next);

/* A destination on a VL that switch s (out port p; 0: a CA cable into
 * s) cannot carry, for the path on SL c->dest_vl: counted once, the
 * first one kept for the message. */
void check_vl_missing(struct check *c, size_t di, int s, uint8_t p);

/* check_path.c, an SL per path (the VLs the paths use are
 * lft_set_path_vls's): the turns of each good path to dests[di] (the walk
 * done, its block current) on that path's VL, and the cables it crosses
 * checked for the VL (from every switch; to a switch's own LID, from those
 * CA ports are cabled to). */
void check_path_turns(struct check *c, size_t di, const int *sw, size_t n, int to_switch);

/* check_cdg.c: the turns noted for the block recorded, VL by VL, and the
 * notes cleared; the graph's memory (0 or -ENOMEM); is there a cycle
 * (1: cycle_at and cycle_len say where, for check_explain_cycle)? */
void check_flush_turns(struct check *c);
int check_alloc_cdg(struct check *c);
int check_find_cycle(struct check *c);

/* check_say.c: the message of the first failure found, in c->res->first */
void check_explain_pair(struct check *c);
void check_explain_vl(struct check *c);
void check_explain_cycle(struct check *c);

#endif
