/*
 * fake_fabric.h - an in-memory subnet that answers directed-route SMPs.
 *
 * DOC: A struct mad_xmit for unit tests.  The fake holds a deep copy of a
 * struct fabric and plays every node in it: a DR SMP sent through
 * fake_fabric_xmit() walks from topo->sm_node along initial_path[1..hop_cnt]
 * (hop 1 leaves the SM node by path[1], which for a CA must be sm_port;
 * every later hop must leave a switch by a linked port), and the node at the
 * end answers with a GetResp that is queued, in order, until the test calls
 * fake_fabric_deliver().  MADs that cannot be routed, that are addressed to a
 * muted node, that are not DR Get/Set requests, or that fall on the
 * drop_every schedule vanish silently (counted in `dropped`), as on a wire.
 *
 * Start state: every linked port (and switch port 0) is INIT with LID 0 and
 * PhysState LinkUp; unlinked ports are DOWN / Polling.  LFTs are empty
 * (every entry LFT_DROP), LinearFDBTop 0.
 *
 * Attributes answered (anything else: status 0x0c, method/attr unsupported):
 *   NodeInfo         Get.  LocalPortNumber = arrival port; PortGUID = node
 *                    GUID on a switch, the arrival fabric_port's guid on a CA.
 *   NodeDescription  Get (fabric_node.desc).
 *   PortInfo         Get/Set, attr_mod = port (a CA maps 0 to the arrival
 *                    port).  Set applies LID, LMC, MasterSMLID, GidPrefix,
 *                    SubnetTimeOut (switch: from port 0 only), NeighborMTU
 *                    and OperationalVLs (0 = keep; above MTUCap / VLCap:
 *                    0x1c) and PortState: NOP = no change; DOWN bounces
 *                    a linked port back to INIT at both ends (unlinked: DOWN);
 *                    ARMED from INIT/ARMED; ACTIVE from ARMED/ACTIVE.  Any
 *                    other request (INIT, >4, ARMED/ACTIVE from DOWN, ARMED
 *                    from ACTIVE, ACTIVE from INIT) answers status 0x1c and
 *                    changes nothing.  Port out of range, or a Set on a
 *                    CA port other than the arrival port: 0x1c.
 *   SwitchInfo       Get/Set (switches).  Set applies LinearFDBTop only
 *                    (0x1c when >= LinearFDBCap).  Cap = fabric_node.lft_cap,
 *                    or FAKE_LFT_CAP_DEFAULT when that is 0.
 *   LinearForwardingTable  Get/Set, attr_mod = block; a block past the cap
 *                    answers 0x1c.  Set stores the 64 entries.
 *   P_KeyTable       Get/Set, attr_mod = (port << 16) | block on a switch
 *                    (port 0 = management port); a CA answers for the
 *                    arrival port whatever the port bits say.  Only block 0
 *                    (32 entries) exists: another block or a port out of
 *                    range answers 0x1c.  Each port starts with 0xFFFF at
 *                    index 0, rest 0; a Set stores the 32 entries.
 *   SLtoVLMappingTable  Get/Set, attr_mod = (in << 8) | out on a switch
 *                    (ports up to NumPorts, port 0 included; higher bits
 *                    set: 0x1c); a CA answers for the arrival port.  Every
 *                    table starts as ibsim's: SL s -> VL s, SL 15 -> VL 7.
 * Set on NodeInfo / NodeDescription (read-only): status 0x0c.
 *
 * M_Key (IBA 14.2.4): PortInfo Set on a guard port (a CA port; a switch's
 * port 0, which guards the whole switch) stores M_Key, M_KeyProtectBits
 * and M_KeyLeasePeriod; every port starts with all three 0.  Before any
 * attribute is answered, the SMP's M_Key is checked against the guard of
 * the port it arrives at: the guard's M_Key 0, or the same key, passes.
 * A wrong key makes a Set vanish (any protection level) and a Get vanish
 * under protect 2 or 3; under protect 1 a Get is answered with
 * PortInfo.M_Key 0, under protect 0 with the key.  Each refusal counts in
 * mkey_violations (and dropped).  The lease is stored, not timed: the
 * fake has no clock, so protection never lapses.
 *
 * Counters count MADs that reached a live responder: gets, sets (any
 * attribute), lft_block_sets, port_info_sets and pkey_block_sets (Sets
 * that were applied).
 */
#ifndef NANOSM_TESTS_UNIT_FAKE_FABRIC_H
#define NANOSM_TESTS_UNIT_FAKE_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include "mad/mad_queue.h"
#include "mad/smp.h"
#include "routing/fabric.h"

#define FAKE_LFT_CAP_DEFAULT 0xC000 /* 48K LIDs, whole unicast range */
#define FAKE_STATUS_UNSUP_ATTR 0x000c  /* unsupported method/attribute */
#define FAKE_STATUS_INVALID_VALUE 0x001c /* invalid attribute/modifier */
#define FAKE_GID_PREFIX 0xfe80000000000000ULL

struct fake_fabric;

struct fake_counters {
	unsigned gets, sets, lft_block_sets, port_info_sets, dropped;
	unsigned pkey_block_sets;
	unsigned sl2vl_sets;	  /* SLtoVLMappingTable Sets applied */
	unsigned mkey_violations; /* SMPs refused for a wrong M_Key */
	unsigned client_rereg_sets; /* applied PortInfo Sets with ClientReregister */
};

/* A guard port's M_Key fields. */
struct fake_mkey {
	uint64_t key;
	uint8_t protect; /* 0..3 */
	uint16_t lease;	 /* seconds; stored only */
};

/* Deep-copies topo (fabric_copy).  The SM sits on topo->sm_node, port
 * topo->sm_port.  Returns NULL on bad input (no SM node) or no memory. */
struct fake_fabric *fake_fabric_new(const struct fabric *topo);
void fake_fabric_free(struct fake_fabric *ff);

/* The transport to give mad_queue_new; valid until fake_fabric_free. */
struct mad_xmit fake_fabric_xmit(struct fake_fabric *ff);

/* Hand each response queued before this call to mad_queue_recv (from lid
 * 0xffff, qpn 0), in order; responses to MADs sent from inside the
 * callbacks wait for the next call.  Returns how many were delivered. */
size_t fake_fabric_deliver(struct fake_fabric *ff, struct mad_queue *q, uint64_t now_ms);

/* For tests of the fake itself, without a mad_queue: responses waiting,
 * and take the oldest one (SMP_MAD_SIZE bytes) - returns 1, or 0 if none. */
size_t fake_fabric_pending(const struct fake_fabric *ff);
int fake_fabric_pop(struct fake_fabric *ff, uint8_t mad[SMP_MAD_SIZE]);

/* Drop every n-th request handed to send (counting all of them); 0 = never. */
void fake_fabric_drop_every(struct fake_fabric *ff, unsigned n);
/* A muted node never answers (it still forwards SMPs for others). */
void fake_fabric_mute_node(struct fake_fabric *ff, uint64_t node_guid, int mute);

/* Unplug (up 0) or plug back (up 1) the cable on a node's port: both
 * ends go DOWN/Polling, or INIT/LinkUp again (LIDs kept), and a switch
 * end reports a port state change.  0, or -1 (unknown, port 0, no cable,
 * not unplugged). */
int fake_fabric_cable(struct fake_fabric *ff, uint64_t node_guid, uint8_t port, int up);

/* Lose every request of attribute attr (0: any) whose directed route goes
 * out of or comes in by node_guid's port (a bad cable end); guid 0 ends it. */
void fake_fabric_lose_via(struct fake_fabric *ff, uint64_t node_guid, uint8_t port, uint16_t attr);

/* Call cb(arg) right after every LFT block Set is applied (NULL: stop). */
void fake_fabric_on_lft_set(struct fake_fabric *ff, void (*cb)(void *arg), void *arg);

/* Current state (ports' lid, lmc, state, phys_state; switches' lft_top),
 * borrowed until the next send or fake_fabric_free. */
const struct fabric *fake_fabric_state(const struct fake_fabric *ff);
/* Current LFT of a switch: lft_cap entries (LFT_DROP when unset), *top =
 * LinearFDBTop.  NULL if the GUID is unknown or not a switch. */
const uint8_t *fake_fabric_lft(const struct fake_fabric *ff, uint64_t switch_guid,
			       uint16_t *top);
/* Change one LFT entry of a switch behind the SM's back (counted as no
 * Set).  0, or -ENOENT for an unknown switch or a LID past its cap. */
int fake_fabric_set_lft(struct fake_fabric *ff, uint64_t switch_guid, uint16_t lid, uint8_t port);
/* Current P_KeyTable block 0 of a port (32 entries; switch port 0 = the
 * management port), borrowed like fake_fabric_state; NULL if the GUID is
 * unknown or the port out of range. */
/* A switch that rebooted: its LFT emptied (every entry LFT_DROP) and
 * LinearFDBTop 0; ports, LIDs and the rest as they were.  0 or -ENOENT. */
int fake_fabric_reboot_switch(struct fake_fabric *ff, uint64_t switch_guid);
const uint16_t *fake_fabric_pkeys(const struct fake_fabric *ff, uint64_t node_guid, uint8_t port);
/* The SLtoVL table of a node's port pair (a CA: in ignored, out = its
 * port), borrowed like fake_fabric_state; NULL when the GUID is unknown
 * or a port out of range.  set: change it behind the SM's back (no Set
 * counted); 0 or -ENOENT. */
const struct smp_sl2vl *fake_fabric_sl2vl(const struct fake_fabric *ff, uint64_t node_guid,
					  uint8_t in, uint8_t out);
int fake_fabric_set_sl2vl(struct fake_fabric *ff, uint64_t node_guid, uint8_t in, uint8_t out,
			  const struct smp_sl2vl *t);
const struct fake_counters *fake_fabric_counters(const struct fake_fabric *ff);

/* The M_Key fields guarding a port (a switch: port 0's, whatever port is
 * named), read or written directly - e.g. to leave another SM's key behind.
 * 0, or -ENOENT for an unknown GUID or a port out of range. */
int fake_fabric_get_mkey(const struct fake_fabric *ff, uint64_t node_guid, uint8_t port,
			 struct fake_mkey *out);
/* The next n Sets of attribute attr are applied but their answers lost
 * (the SM's retries are applied and lost too, until n runs out). */
void fake_fabric_lose_set_replies(struct fake_fabric *ff, uint16_t attr, unsigned n);
/* Node node_guid's NodeInfo lies from now on: it claims num_ports ports
 * (0: the truth) and the NodeGUID claim_guid (0: the truth).  node_guid 0
 * stops the lies. */
void fake_fabric_lie_node_info(struct fake_fabric *ff, uint64_t node_guid, uint8_t num_ports,
			       uint64_t claim_guid);
/* Every MAD of attribute attr to node node_guid is lost (attr 0: none). */
void fake_fabric_lose_attr(struct fake_fabric *ff, uint64_t node_guid, uint16_t attr);
/* The next n PortInfo Sets that move a port to ARMED or ACTIVE are applied
 * but their answers lost; from then on, as ibsim does, a Set asking for
 * the state a port is already in is refused (0x1c), so a retry of such a
 * Set fails. */
void fake_fabric_lose_state_replies(struct fake_fabric *ff, unsigned n);
/* Set a switch's SwitchInfo PortStateChange, as a port state change
 * does; a SwitchInfo Set with the bit set clears it (write 1 to clear).
 * 0, or -1 when there is no such switch; _pending reads it. */
int fake_fabric_port_change(struct fake_fabric *ff, uint64_t switch_guid);
int fake_fabric_port_change_pending(const struct fake_fabric *ff, uint64_t switch_guid);
/* Switch external ports keep the P_Key enforcement bits a PortInfo Set
 * asks for (SwitchInfo.PartitionEnforcementCap is 32); forget = 1 makes
 * them keep none, as ibsim's do. */
void fake_fabric_forget_enforcement(struct fake_fabric *ff, int forget);
/* A switch port's enforcement bits (bit 0 inbound, bit 1 outbound), -1 if
 * there is no such port. */
int fake_fabric_enforcing(const struct fake_fabric *ff, uint64_t switch_guid, uint8_t port);
int fake_fabric_set_mkey(struct fake_fabric *ff, uint64_t node_guid, uint8_t port,
			 const struct fake_mkey *k);
/* keep = 0: PortInfo Sets pass the M_Key check but store no M_Key fields
 * (as ibsim's ports do); 1 (the default): they are stored. */
void fake_fabric_keep_mkeys(struct fake_fabric *ff, int keep);

/* A second SM (IBA 14.4) on a CA port, played from a small script: the
 * port's PortInfo shows IsSM, and SMInfo arriving at that port is answered
 * with {guid, priority, state, sm_key}.  A Set (any SM_Key) acts on the
 * script before the answer: HANDOVER turns STANDBY into MASTER, DISABLE
 * -> NOTACTIVE, STANDBY and DISCOVER -> that state, ACKNOWLEDGE only
 * counts.  silent = the SM is gone: IsSM clears and SMInfo vanishes.
 * SMInfo at a port without an SM answers status 0x0c.  The fields are the
 * test's to change at any time. */
struct fake_sm {
	uint64_t guid; /* its port GUID (SMInfo.GUID) */
	uint8_t priority, state;
	uint64_t sm_key;
	int silent;
	unsigned gets, sets;	  /* SMInfo answered */
	uint32_t last_set_mod;	  /* the last Set's attribute modifier */
	unsigned handovers, acks; /* HANDOVER / ACKNOWLEDGE Sets received */
};
/* Put the (one) scripted SM on node_guid's port, replacing any earlier
 * one; returns the script, borrowed until fake_fabric_free, or NULL when
 * there is no such CA port. */
struct fake_sm *fake_fabric_add_sm(struct fake_fabric *ff, uint64_t node_guid, uint8_t port);

/* MulticastForwardingTable (attribute 0x1B, IBA 14.2.5.12), Get/Set on
 * switches: attr_mod bits 0..8 = block of 32 MLIDs from 0xC000, bits
 * 28..31 = position (ports 16p..16p+15); FAKE_MFT_CAP MLIDs, every mask 0
 * at start.  A block past the cap, a position past NumPorts or other
 * modifier bits set: 0x1c.  Set stores the 32 masks. */
#define FAKE_ATTR_MFT 0x001B
#define FAKE_MFT_CAP 1024
/* Is port in MLID mlid's mask on the switch?  1/0, -1 for a bad GUID/MLID. */
int fake_fabric_mft_port(const struct fake_fabric *ff, uint64_t switch_guid, uint16_t mlid,
			 uint8_t port);
/* MFT Sets applied so far. */
unsigned fake_fabric_mft_sets(const struct fake_fabric *ff);

#endif
