/*
 * fabric.h - the SM's model of the subnet: nodes, ports, links.
 *
 * DOC: A plain-data graph shared by the sweep (which fills it), the LID
 * allocator, the routing engines (which read it as const) and the tools.
 * Nodes live in one array and refer to each other by index, so a fabric can
 * be copied, compared and freed without pointer chasing.  No I/O here.
 */
#ifndef NANOSM_ROUTING_FABRIC_H
#define NANOSM_ROUTING_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#define FABRIC_MAX_PORTS 254 /* NodeInfo.NumPorts is 8 bits; 255 reserved */
#define FABRIC_MAX_HOPS 63
#define FABRIC_NONE (-1)
#define FABRIC_ALT_PATHS 2 /* other directed routes the SM keeps per switch */

#define LID_UNICAST_MIN 0x0001
#define LID_UNICAST_MAX 0xBFFF

struct fabric_port {
	uint8_t num;        /* port number; 0 = switch management port */
	uint8_t present;    /* 1 when PortInfo was read / described */
	uint64_t guid;      /* port GUID (switch ports share the port 0 GUID) */
	uint16_t lid;       /* LID in use (switch: port 0 only) */
	uint8_t lmc;
	uint8_t state;	    /* enum port_state; routing reads only whether it
			     * is PORT_STATE_DOWN (fabric_key keys just that) */
	uint8_t phys_state; /* enum port_phys_state */
	uint8_t width_active, speed_active; /* PortInfo encodings */
	uint8_t mtu_cap, vl_cap;            /* PortInfo encodings */
	int remote_node;    /* index into fabric.nodes, FABRIC_NONE if no link */
	uint8_t remote_port;
	/* SM bookkeeping (zero when read from a file): the raw PortInfo last
	 * read, which the SM diffs against what it wants.  The directed route
	 * that reaches a CA's node through this port is the node's (CA ports;
	 * a CA only accepts PortInfo Set on the port a SMP arrived on):
	 * fabric_port_route. */
	uint8_t pi_raw[64];
};

/* A directed route from the SM's port: path[1..hops]. */
struct fabric_route {
	uint8_t hops;
	uint8_t path[FABRIC_MAX_HOPS + 1];
};

struct fabric_node {
	uint64_t guid;        /* NodeGUID */
	uint64_t system_guid;
	uint8_t type;         /* enum node_type (1 CA, 2 switch, 3 router) */
	uint8_t num_ports;    /* NodeInfo.NumPorts; ports[0..num_ports] exist */
	char desc[65];        /* NodeDescription */
	uint32_t vendor_id;
	uint16_t device_id;
	/* switches only (from SwitchInfo) */
	uint16_t lft_cap;     /* LinearFDBCap */
	uint16_t lft_top;     /* LinearFDBTop */
	uint8_t si_raw[64];   /* raw SwitchInfo last read (SM bookkeeping) */
	/* how the SM reaches it: directed route from the SM port */
	uint8_t dr_hops;
	uint8_t dr_path[FABRIC_MAX_HOPS + 1]; /* [1..dr_hops] */
	/* SM bookkeeping, made when first set (fabric_route_slot): a switch's
	 * FABRIC_ALT_PATHS other directed routes the sweep found, tried when
	 * the first one does not answer (hops 0 = none); a CA's or router's
	 * route to each port p at [p - 1].  NULL: none (65 bytes each, so a
	 * 1K-CA fabric does not carry 64 unused bytes in every port). */
	struct fabric_route *routes;
	/* did not answer this sweep: kept as the last sweep saw it (SM) */
	uint8_t stale;
	struct fabric_port *ports;            /* num_ports + 1 entries */
};

struct fabric {
	struct fabric_node *nodes;
	size_t n_nodes, cap_nodes;
	int sm_node;      /* index of the node hosting the SM, FABRIC_NONE */
	uint8_t sm_port;  /* SM's port number on sm_node */
	/* GUID -> node index hash (open addressing), internal */
	int *index;
	size_t index_cap;
};

void fabric_init(struct fabric *f);
void fabric_fini(struct fabric *f);
/* Deep copy; returns 0 or -ENOMEM (dst must be uninitialised or fini'd). */
int fabric_copy(struct fabric *dst, const struct fabric *src);

/* Add a node (ports zeroed, remote_node = FABRIC_NONE, num set); returns its
 * index, or -EEXIST if the GUID is known, -ENOMEM, -EINVAL (num_ports). */
int fabric_add_node(struct fabric *f, uint64_t guid, uint8_t type, uint8_t num_ports);
/* Index of the node with this NodeGUID or FABRIC_NONE. */
int fabric_find(const struct fabric *f, uint64_t guid);
/* Connect node a port pa <-> node b port pb (both directions). Any previous
 * link on either port is cut first. Returns 0 or -EINVAL. */
int fabric_link(struct fabric *f, int a, uint8_t pa, int b, uint8_t pb);

static inline int fabric_is_switch(const struct fabric_node *n)
{
	return n->type == 2;
}

/* Route k of n->routes (a switch's k-th other route, a CA's route to port
 * k + 1), or a route with hops 0 when there is none. */
const struct fabric_route *fabric_route_get(const struct fabric_node *n, unsigned k);
/* The same slot to write, made on first use; NULL when k is out of range
 * or there is no memory. */
struct fabric_route *fabric_route_slot(struct fabric_node *n, unsigned k);
/* The route that reaches CA/router port p (hops 0: none yet, or the SM's
 * own port), and setting it (0 or -ENOMEM / -EINVAL). */
static inline const struct fabric_route *fabric_port_route(const struct fabric_node *n,
							   unsigned p)
{
	return fabric_route_get(n, p ? p - 1 : FABRIC_MAX_PORTS + 1);
}
int fabric_port_route_set(struct fabric_node *n, unsigned p, const uint8_t *path, uint8_t hops);

/* LID-owning ports: a switch's port 0 or each present CA/router port.
 * fabric_count_switches counts switch nodes (one LID each, on port 0);
 * fabric_count_cas counts present CA/router ports (one LID each). */
size_t fabric_count_switches(const struct fabric *f);
size_t fabric_count_cas(const struct fabric *f);

/* How many LIDs a port owns from its base LID on: 2^LMC, LMC capped at 7. */
static inline unsigned fabric_port_lid_count(const struct fabric_port *p)
{
	return 1u << (p->lmc > 7 ? 7 : p->lmc);
}

/* How many data VLs a port offers (VL0 .. n-1), from its PortInfo VLCap:
 * 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14.  0 (not known,
 * e.g. a topology file that does not say) and the reserved values count
 * as 8 data VLs, what ibsim's ports offer. */
#define FABRIC_VLS_UNKNOWN 8
static inline unsigned fabric_port_data_vls(const struct fabric_port *p)
{
	static const uint8_t vls[6] = {FABRIC_VLS_UNKNOWN, 1, 2, 4, 8, 15};

	return p->vl_cap < 6 ? vls[p->vl_cap] : FABRIC_VLS_UNKNOWN;
}

/* The fewest data VLs (fabric_port_data_vls) a cabled port of f offers,
 * FABRIC_VLS_UNKNOWN when no port is cabled; *node and *port (either may
 * be NULL) name the first port that offers so few (FABRIC_NONE and 0 when
 * none is cabled). */
unsigned fabric_min_data_vls(const struct fabric *f, int *node, unsigned *port);

/* What routing reads of a fabric, as bytes (routing/fabric_key.c): every
 * field of every node and port in index order except the SM's bookkeeping
 * (raw PortInfo and SwitchInfo, directed routes, LinearFDBTop), and of
 * a port's state only whether it is down (INIT, ARMED and ACTIVE route
 * alike, so the sweep after the ports came up keys as the one before).  The
 * engines and the gate are pure functions of these bytes and their
 * options, so two fabrics with equal keys route alike.  *key is
 * malloc'ed; 0 or -ENOMEM. */
int fabric_key(const struct fabric *f, uint8_t **key, size_t *len);

/* ---- Linear forwarding tables, the routing engines' output ---------- */

#define LFT_DROP 0xFF /* no route: the switch drops the packet */

struct lft {
	int node;        /* switch index in the fabric */
	uint16_t top;    /* highest LID with an entry (LinearFDBTop) */
	uint8_t *port;   /* port[0..top]: out port, LFT_DROP when none */
};

/* The engines' output: one LFT per switch, and the service level of the
 * paths.  Virtual lanes: every path to DLID d travels on SL sl[d] (d in
 * 0..sl_top; sl NULL: every path on SL 0), and SL s maps to VL s at every
 * hop (the SM programs the SLtoVL tables so, on CA ports and on every
 * switch in/out port pair), so the channel dependencies of the paths to d
 * exist only on VL sl[d].  n_vls is how many VLs the paths use (1 when sl
 * is NULL).  One byte per LID keeps this bounded: 48 KB at 48K LIDs. */
struct lft_set {
	struct lft *tables; /* one per switch, in fabric node order */
	size_t n;
	uint8_t *sl;	 /* sl[0..sl_top], or NULL: all SL 0 */
	uint16_t sl_top; /* highest DLID sl covers */
	uint8_t n_vls;	 /* VLs used: 1 + the highest SL in sl or path_sl (1 when none) */
	/* NULL, or an SL per path: path_sl[i * (sl_top + 1) + d] is the SL of
	 * the paths to DLID d that enter the fabric at switch tables[i] (from
	 * the CA ports cabled to it, and its own port 0); it then stands for
	 * sl[d], and the dependencies of such a path exist only on that VL.
	 * n x (sl_top + 1) bytes: made only up to LFT_PATH_SL_MAX. */
	uint8_t *path_sl;
};

/* The most bytes an SL per path may take (lft_set_alloc_path_sl). */
#define LFT_PATH_SL_MAX (4u << 20)

void lft_set_init(struct lft_set *s);
void lft_set_fini(struct lft_set *s);
/* Allocate one table per switch of f, every entry LFT_DROP, top = max_lid. */
int lft_set_alloc(struct lft_set *s, const struct fabric *f, uint16_t max_lid);
/* Make sl (every entry SL 0) for DLIDs 0..top, n_vls 1.  0 or -ENOMEM. */
int lft_set_alloc_sl(struct lft_set *s, uint16_t top);
/* The SL of the paths to dlid (0 when s has no SLs or dlid is past them). */
static inline uint8_t lft_set_sl(const struct lft_set *s, uint16_t dlid)
{
	return s->sl && dlid <= s->sl_top ? s->sl[dlid] : 0;
}
/* Make path_sl, each switch's row a copy of sl (which must exist).
 * Returns 0, -E2BIG (more than LFT_PATH_SL_MAX bytes), -EINVAL (no sl),
 * -ENOMEM. */
int lft_set_alloc_path_sl(struct lft_set *s);
/* The SL of the paths to dlid that enter the fabric at table i of s (an
 * index into s->tables): path_sl's, else sl's (0 past them). */
static inline uint8_t lft_set_sl_at(const struct lft_set *s, size_t i, uint16_t dlid)
{
	if (s->path_sl && i < s->n && dlid <= s->sl_top)
		return s->path_sl[i * ((size_t)s->sl_top + 1) + dlid];
	return lft_set_sl(s, dlid);
}
/* The same for the paths entering at switch node index sw (a CA port's
 * paths: the switch it is cabled to). */
uint8_t lft_set_sl_from(const struct lft_set *s, int sw, uint16_t dlid);
/* The row lft_set_sl_at reads for the paths entering at switch node index
 * sw: its table's index when s has an SL per path, else s->n (sl's SLs).
 * One lookup for a source's every destination. */
size_t lft_set_sl_row(const struct lft_set *s, int sw);
/* The VLs s's SL per path takes: 1 + the highest path_sl entry below
 * `below` (entries from `below` up are not counted: the gate passes 15,
 * SL 15 being management only); 1 when s has no path_sl. */
unsigned lft_set_path_vls(const struct lft_set *s, unsigned below);
/* The switch node where packets sent from port (node, port) enter the
 * fabric: node itself for a switch, the switch a CA or router port is
 * cabled to; FABRIC_NONE otherwise (what lft_set_sl_from then reads as
 * the per-destination SL). */
int fabric_entry_switch(const struct fabric *f, int node, unsigned port);
/* Do a and b give some path a different SL? */
int lft_set_sls_differ(const struct lft_set *a, const struct lft_set *b);
/* Deep copy of src into dst (emptied first); 0 or -ENOMEM (dst empty). */
int lft_set_copy(struct lft_set *dst, const struct lft_set *src);
/* The table for switch node index sw, or NULL. */
struct lft *lft_set_find(const struct lft_set *s, int sw);
const struct lft *lft_set_find_const(const struct lft_set *s, int sw);
/* Copy the 64 entries of LFT block `block` (as a switch answered them) into
 * t, those above t->top left out. */
void lft_put_block(struct lft *t, uint32_t block, const uint8_t *ports);
/* The highest LinearFDBTop of f's switches, at most LID_UNICAST_MAX: the
 * size to give lft_set_alloc when the tables are read from the switches. */
uint16_t fabric_max_lft_top(const struct fabric *f);

#endif
