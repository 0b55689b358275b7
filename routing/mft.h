/*
 * mft.h - multicast forwarding tables: one spanning tree per group.
 *
 * DOC: mft_compute takes the fabric and a list of groups (an MLID and the
 * ports that joined it) and gives every switch a port mask per MLID.  Per
 * group, a BFS tree over the switches is grown from one root (the member
 * switch whose farthest member switch is nearest; ties: lowest node index)
 * and pruned to the branches that lead to member switches, so it has no
 * loops and reaches every member its root can reach.  A switch's mask is
 * its tree links plus its ports to receiving members (a switch's own port
 * 0 is bit 0).  Send-only members bring their switch into the tree (their
 * packets must enter it) but their port gets no copy.
 *
 * Tables are kept in wire layout, as the MulticastForwardingTable
 * attribute (IBA 14.2.5.12) carries them: attribute modifier bits 0..8 =
 * block of 32 MLIDs from 0xC000, bits 28..31 = position (which 16 ports);
 * the block is 32 big-endian 16-bit masks, bit i of position p = port
 * 16p + i.  Diff helpers say which (switch, block, position) blocks differ.
 * Pure: no I/O, no SA or SM types.
 */
#ifndef NANOSM_ROUTING_MFT_H
#define NANOSM_ROUTING_MFT_H

#include <stddef.h>
#include <stdint.h>

#include "routing/fabric.h"

#define MFT_ATTR_ID 0x001B	/* SMP attribute MulticastForwardingTable */
#define MFT_MLID_BASE 0xC000	/* first multicast LID */
#define MFT_MLID_MAX 0xFFFE	/* 0xFFFF is the permissive LID */
#define MFT_BLOCK_MLIDS 32	/* MLIDs per block */
#define MFT_POS_PORTS 16	/* ports per position */
#define MFT_POSITIONS 16	/* positions cover ports 0..255 */
#define MFT_MAX_BLOCKS ((MFT_MLID_MAX - MFT_MLID_BASE) / MFT_BLOCK_MLIDS + 1)
#define MFT_BLOCK_BYTES (MFT_BLOCK_MLIDS * 2)

/* Attribute modifier of (block, position) and back. */
static inline uint32_t mft_attr_mod(unsigned block, unsigned pos)
{
	return (uint32_t)(block & 0x1ffu) | ((uint32_t)(pos & 0xfu) << 28);
}

static inline void mft_attr_split(uint32_t mod, unsigned *block, unsigned *pos)
{
	*block = mod & 0x1ffu;
	*pos = (mod >> 28) & 0xfu;
}

/* A port that joined a group: a CA/router port, or a switch's port 0. */
struct mft_member {
	int node;
	uint8_t port;
	uint8_t send_only; /* its switch joins the tree; the port gets no copy */
};

struct mft_group {
	uint16_t mlid; /* MFT_MLID_BASE..MFT_MLID_MAX */
	const struct mft_member *m;
	size_t n;
};

/* One switch's table: masks[(block * n_pos + pos) * 32 + i] is the mask
 * of MLID 0xC000 + 32 * block + i for ports 16 * pos .. 16 * pos + 15. */
struct mft_table {
	int node;
	uint64_t guid;	   /* the switch's NodeGUID */
	uint16_t n_blocks; /* blocks held (0xC000 .. 0xC000 + 32 * n_blocks - 1) */
	uint8_t n_pos;	   /* positions: num_ports / 16 + 1 */
	uint16_t *masks;
};

struct mft_set {
	struct mft_table *tables; /* one per switch, fabric node order */
	size_t n;
};

/* A block to write. */
struct mft_block_ref {
	int node;
	uint16_t block;
	uint8_t pos;
};

void mft_set_init(struct mft_set *s);
void mft_set_fini(struct mft_set *s);
/* Replace *out (fini'd first on success) with the tables for groups g.
 * Members that are not switch port 0 / a port linked to a switch, and
 * member switches the root cannot reach, are left out (counted in
 * *skipped when it is given).  0, -EINVAL (an MLID out of range) or
 * -ENOMEM (then out is untouched). */
int mft_compute(const struct fabric *f, const struct mft_group *g, size_t n_groups,
		struct mft_set *out, size_t *skipped);

const struct mft_table *mft_set_find(const struct mft_set *s, int node);
/* Is port in MLID mlid's mask?  0 when out of the table. */
int mft_port_get(const struct mft_table *t, uint16_t mlid, uint8_t port);
/* The 32 masks of (block, pos), or NULL when the table does not hold it
 * (then it is all zero). */
const uint16_t *mft_table_block(const struct mft_table *t, unsigned block, unsigned pos);
int mft_block_is_zero(const uint16_t *masks);
/* Must a block be written?  want NULL = all zero; have = what the switch
 * is known to hold, NULL = unknown.  Unknown and wanted empty: no (a
 * switch's table starts empty, and a cleared block is written once while
 * the old contents are still known). */
int mft_block_needs_write(const uint16_t *want, const uint16_t *have);
/* Every (switch, block, position) where b differs from a (a NULL = all
 * empty), switches of b in order; *out is malloc'd (free it), NULL when
 * *n is 0.  0 or -ENOMEM. */
int mft_diff(const struct mft_set *a, const struct mft_set *b, struct mft_block_ref **out,
	     size_t *n);

/* The block on the wire: 32 big-endian masks, 64 bytes. */
void mft_block_encode(const uint16_t *masks, uint8_t *data);
void mft_block_decode(const uint8_t *data, uint16_t *masks);

#endif
