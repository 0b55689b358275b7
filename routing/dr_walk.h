/*
 * dr_walk.h - discovery by directed route: the one walk the sweep
 * (sm/core/discover.c) and nanosm-verify both use.
 *
 * DOC: A breadth-first walk from the local port that builds a struct fabric
 * from decoded SMP answers.  The walker sends nothing, keeps no clock and
 * logs nothing: it asks its caller to send each next directed-route Get
 * (ops->get) and the caller hands every answer back (dr_walk_answer), so
 * the sweep drives it through its paced queue and alternate routes, and the
 * tool through its own MAD port.  Problems go to the caller's hooks, which
 * log them with their own message IDs.
 *
 * What each answer does to the model:
 *  - NodeInfo: checked first (a GUID 0, an unknown type, NumPorts 0 or over
 *    FABRIC_MAX_PORTS, a LocalPortNumber out of range or 0 on a CA:
 *    DR_WALK_BAD_NODE_INFO).  A GUID seen for the first time becomes a node
 *    reached by the Get's route (dr_path) and its NodeDescription is asked;
 *    a switch also gets SwitchInfo and the PortInfo of ports 0..NumPorts
 *    asked, in that order.  A known switch reached over another route keeps
 *    up to FABRIC_ALT_PATHS such routes (fabric_route_slot).  A known GUID
 *    answering with another type or NumPorts is DR_WALK_TWO_NODES.  The
 *    first answer (node FABRIC_NONE) is the local node: f->sm_node and
 *    f->sm_port (its LocalPortNumber).  Any other links the port asked
 *    through to the answering port (DR_WALK_TWO_LINKS, and nothing more,
 *    when that port is cabled to another one already).  A CA/router port
 *    reached the first time keeps its GUID and route (fabric_port_route_set;
 *    DR_WALK_NO_MEMORY when it cannot) and has its PortInfo asked.
 *  - PortInfo: state, widths, speeds, MTU/VL caps, LMC and the raw bytes
 *    (pi_raw); the LID on a CA/router port or switch port 0.  A LinkUp port
 *    in INIT or above leads on: behind a switch port not linked yet, or
 *    behind the local CA port, NodeInfo is probed one hop further
 *    (DR_WALK_TOO_FAR past FABRIC_MAX_HOPS).
 *  - SwitchInfo: LinearFDBCap, LinearFDBTop and the raw bytes (si_raw).
 *  - NodeDescription: desc.
 *  - No answer: ops->lost is told and may hand back data to use instead
 *    (the sweep gives what its last sweep read of a PortInfo).
 *
 * The walk is over when the caller has no Get of it outstanding; the
 * walker keeps no count.  It may call ops->get from inside dr_walk_start
 * and dr_walk_answer, and a caller whose send completes at once may call
 * dr_walk_answer from inside ops->get: the walker holds no pointer into
 * f->nodes across ops->get.
 */
#ifndef NANOSM_ROUTING_DR_WALK_H
#define NANOSM_ROUTING_DR_WALK_H

#include <stdint.h>

#include "mad/smp.h"
#include "routing/fabric.h"

/* One directed-route Get of the walk, and the answer's key. */
struct dr_walk_get {
	int node;      /* the node asked; a NodeInfo probe: the node it goes out
			* of (FABRIC_NONE: the local node, hops 0) */
	uint8_t port;  /* PortInfo: the port asked; a probe: the port it leaves
			* by; else 0 */
	uint16_t attr; /* SMP_ATTR_NODE_INFO, _NODE_DESC, _SWITCH_INFO, _PORT_INFO */
	uint32_t mod;  /* attribute modifier: the port for PortInfo, else 0 */
	uint8_t hops;  /* the directed route: path[1..hops] */
	uint8_t path[FABRIC_MAX_HOPS + 1];
};

enum dr_walk_problem_kind {
	DR_WALK_TOO_FAR,       /* a port leads past FABRIC_MAX_HOPS: not explored */
	DR_WALK_BAD_NODE_INFO, /* a NodeInfo answer rejected (why) */
	DR_WALK_TWO_NODES,     /* a known GUID answered as another node: left out */
	DR_WALK_TWO_LINKS,     /* a port answers from two links: duplicate GUID? */
	DR_WALK_NO_MEMORY,     /* the route to a CA port could not be kept */
};

/* What went wrong, borrowed for the problem hook's call only. */
struct dr_walk_problem {
	enum dr_walk_problem_kind kind;
	/* the Get it is about; TOO_FAR: the probe not sent (node and port it
	 * would leave by, the route to that node in path/hops) */
	const struct dr_walk_get *get;
	const struct smp_node_info *ni; /* BAD_NODE_INFO, TWO_NODES, TWO_LINKS */
	const char *why;		/* BAD_NODE_INFO: "NodeGUID 0", "bad NumPorts", ... */
	/* TWO_LINKS: the answering port (its remote_node/remote_port in f is
	 * the link it had already); NO_MEMORY: the CA port */
	int node;
	uint8_t port;
};

struct dr_walk_ops {
	/* Send Get g (copy what you need: g is borrowed) and later hand its
	 * answer to dr_walk_answer.  A Get that cannot be sent is the
	 * caller's to report; the walk goes on without it. */
	void (*get)(void *ctx, const struct dr_walk_get *g);
	/* Get g has no answer (status < 0): report it; return SMP_DATA_SIZE
	 * bytes to use as the answer, or NULL to go without.  NULL hook: go
	 * without. */
	const uint8_t *(*lost)(void *ctx, const struct dr_walk_get *g, int status);
	/* A problem in what answered (NULL: ignored). */
	void (*problem)(void *ctx, const struct dr_walk_problem *p);
};

struct dr_walk {
	struct fabric *f; /* the model being built (borrowed) */
	const struct dr_walk_ops *ops;
	void *ctx; /* passed to every hook */
};

/* Set w up to build f (initialised, normally empty) through ops. */
void dr_walk_init(struct dr_walk *w, struct fabric *f, const struct dr_walk_ops *ops, void *ctx);
/* Begin: f->sm_node = FABRIC_NONE and NodeInfo of the local node asked
 * (ops->get, from this call). */
void dr_walk_start(struct dr_walk *w);
/* The answer to Get g: status 0 with data (SMP_DATA_SIZE bytes of
 * attribute data), or status < 0 (data ignored).  g is the Get as sent,
 * except for its route, which is the one that answered.  Updates the model
 * and asks the Gets that follow (ops->get, from this call). */
void dr_walk_answer(struct dr_walk *w, const struct dr_walk_get *g, int status,
		    const uint8_t *data);

#endif
