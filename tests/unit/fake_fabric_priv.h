/*
 * fake_fabric_priv.h - the fake fabric's state, shared by its pieces only
 * (fake_fabric.c: set-up, routing, transport; fake_fabric_attr.c: the
 * attributes; fake_fabric_knobs.c: knobs and inspection).  Tests include
 * fake_fabric.h, never this.
 */
#ifndef NANOSM_TESTS_UNIT_FAKE_FABRIC_PRIV_H
#define NANOSM_TESTS_UNIT_FAKE_FABRIC_PRIV_H

#include <stdint.h>

#include "mad/smp.h"
#include "routing/fabric.h"
#include "tests/unit/fake_fabric.h"

#define FAKE_PERMISSIVE_LID 0xffff
#define FAKE_PARTITION_CAP 32 /* one P_Key block */
#define FAKE_DEFAULT_WIDTH 2  /* 4x */
#define FAKE_DEFAULT_SPEED 1  /* 2.5 Gb/s */
#define FAKE_DEFAULT_MTU 4    /* 2048 */
#define FAKE_DEFAULT_VL_CAP 4 /* VL0-7 */

/* Writable PortInfo fields that struct fabric_port has no room for.  The
 * per-node ones (switch) live on port 0. */
struct fake_port {
	uint64_t gid_prefix;
	uint16_t sm_lid;
	uint8_t subnet_timeout;
	uint8_t neighbor_mtu, oper_vls; /* per physical port */
	uint8_t part_enf;		/* switch external ports: P_Key enforcement in|out bits */
	struct fake_mkey mkey;		/* on guard ports: a CA port, switch port 0 */
	int down_node;			/* fake_fabric_cable: the far end while unplugged */
	uint8_t down_port;
	uint8_t unplugged;
};

/* What the fake keeps per node beyond struct fabric. */
struct fake_node {
	uint8_t muted;
	uint8_t port_change;	  /* switches: SwitchInfo PortStateChange */
	uint16_t lft_cap;         /* LinearFDBCap (switches) */
	uint8_t *lft;             /* switches: lft_cap rounded up to a block */
	struct fake_port *ports;  /* num_ports + 1 */
	struct smp_pkey_block *pkeys; /* P_KeyTable block 0, per port (num_ports + 1) */
	struct smp_sl2vl *sl2vl;      /* switch: [in * (num_ports + 1) + out]; CA: [port] */
};

struct fake_fabric {
	struct fabric topo;       /* current state, index-parallel to nodes */
	struct fake_node *nodes;
	uint8_t (*resp)[SMP_MAD_SIZE]; /* FIFO of encoded responses */
	size_t resp_head, resp_len, resp_cap;
	unsigned drop_every, requests;
	unsigned drop_state_replies; /* lose the answer of this many state Sets (applied) */
	int strict_states; /* refuse a state Set to the state the port is in (as ibsim) */
	uint16_t lose_set_attr;	  /* Sets of this attribute are applied, their answers lost */
	uint64_t liar_guid;	  /* this node's NodeInfo lies: */
	uint8_t lie_ports;	  /* NumPorts it claims (0: the truth) */
	uint64_t lie_guid;	  /* NodeGUID it claims (0: the truth) */
	unsigned lose_set_replies; /* ... this many times */
	uint64_t lose_guid;  /* every MAD of attribute lose_attr to this node is lost */
	uint16_t lose_attr;
	void (*on_lft_set)(void *arg); /* after every LFT block Set applied */
	void *on_lft_arg;
	uint64_t via_guid;   /* requests whose route crosses this node's port ... */
	uint8_t via_port;
	uint16_t via_attr;   /* ... with this attribute (0: any) are lost */
	int forget_mkeys; /* PortInfo Sets store no M_Key fields */
	int forget_enforcement; /* PortInfo Sets store no P_Key enforcement bits */
	struct fake_counters counters;
	struct fake_mft *mft; /* MulticastForwardingTables, made on first use */
	struct fake_sm sm;    /* a second SM (fake_fabric_add_sm), when sm_node >= 0 */
	int sm_node;
	uint8_t sm_port;
};

/* Where a request ended up: the node at the end of the path and the port
 * it came in by. */
struct fake_hit {
	int node;
	uint8_t in_port;
	uint8_t hide_mkey; /* a Get with a wrong M_Key under protect 1 */
};

/* fake_fabric.c */
/* 1 if port is cabled (a switch's port 0 always is). */
int fake_fabric_is_linked(const struct fabric_node *n, uint8_t port);
/* v, or dflt when v is 0. */
uint8_t fake_fabric_or(uint8_t v, uint8_t dflt);

/* fake_fabric_attr.c */
/* Fill data (not req->data) with the (new) attribute; returns the MAD
 * status. */
uint16_t fake_fabric_attr_answer(struct fake_fabric *ff, const struct smp *req,
				 const struct fake_hit *hit, uint8_t *data);
/* 1 if the request arrived at the second SM's port (fake_fabric_add_sm). */
int fake_fabric_attr_at_sm(const struct fake_fabric *ff, const struct fake_hit *hit);
/* Free the multicast tables (ff->mft). */
void fake_fabric_attr_mft_free(struct fake_fabric *ff);
/* Node node's SLtoVL table from port in to port out, or NULL. */
struct smp_sl2vl *fake_fabric_attr_sl2vl_table(const struct fake_fabric *ff, int node, uint32_t in,
					       uint32_t out);

#endif
