/*
 * smp.h - Subnet Management Packet (SMP) header and attribute codecs.
 *
 * DOC: Pure codecs for the MADs of the Subnet Management classes (IBA 14.2):
 * LID-routed (class 0x01) and directed-route (class 0x81) SMPs and the
 * attributes an SM needs.  Wire layout comes from libibmad's field tables
 * (mad_get_field/mad_set_field); nothing here does I/O or keeps state.
 * Every function is safe on any input: decoders reject short or malformed
 * buffers with a negative errno instead of reading past them.
 */
#ifndef NANOSM_MAD_SMP_H
#define NANOSM_MAD_SMP_H

#include <stddef.h>
#include <stdint.h>

#define SMP_MAD_SIZE 256  /* a whole MAD on the wire */
#define SMP_DATA_OFFSET 64 /* SMP attribute data (IBA 14.2.1.1) */
#define SMP_DATA_SIZE 64
#define SMP_MAX_HOPS 63 /* directed route path: bytes 1..63 */

enum smp_class {
	SMP_CLASS_LID = 0x01,
	SMP_CLASS_DR = 0x81,
};

enum smp_method {
	SMP_METHOD_GET = 0x01,
	SMP_METHOD_SET = 0x02,
	SMP_METHOD_TRAP = 0x05,
	SMP_METHOD_TRAP_REPRESS = 0x07,
	SMP_METHOD_GET_RESP = 0x81,
};

enum smp_attr {
	SMP_ATTR_NOTICE = 0x0002,
	SMP_ATTR_NODE_DESC = 0x0010,
	SMP_ATTR_NODE_INFO = 0x0011,
	SMP_ATTR_SWITCH_INFO = 0x0012,
	SMP_ATTR_PORT_INFO = 0x0015,
	SMP_ATTR_PKEY_TABLE = 0x0016,
	SMP_ATTR_SL2VL = 0x0017,
	SMP_ATTR_LFT = 0x0019,
	SMP_ATTR_SM_INFO = 0x0020,
};

/* One SMP, decoded.  For LID-routed SMPs the dr_* fields and paths are 0. */
struct smp {
	uint8_t mgmt_class; /* enum smp_class */
	uint8_t method;     /* enum smp_method */
	uint16_t status;    /* MAD status (15 bits; DR D-bit is separate) */
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint64_t mkey;
	/* directed route only */
	uint8_t direction; /* D bit: 0 outbound, 1 return */
	uint8_t hop_ptr;
	uint8_t hop_cnt;
	uint16_t dr_slid;
	uint16_t dr_dlid;
	uint8_t initial_path[SMP_MAX_HOPS + 1]; /* [1..hop_cnt] used */
	uint8_t return_path[SMP_MAX_HOPS + 1];
	uint8_t data[SMP_DATA_SIZE]; /* attribute payload, raw wire bytes */
};

/* Header codec.  encode writes SMP_MAD_SIZE bytes; decode needs at least
 * SMP_MAD_SIZE bytes and rejects bad base version (must be 1), unknown
 * class, class version != 1, hop_cnt > SMP_MAX_HOPS, hop_ptr > hop_cnt + 1
 * (an unreasonable hop pointer, IBA C14-9/C14-13): returns 0 or -EINVAL. */
int smp_encode(const struct smp *smp, uint8_t *buf, size_t len);
int smp_decode(const uint8_t *buf, size_t len, struct smp *smp);

/* Start a directed-route Get/Set from the SM (hop_ptr 0, dr_slid/dr_dlid
 * permissive 0xffff) along path[1..hops].  path may be NULL when hops == 0. */
void smp_init_dr(struct smp *smp, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
		 const uint8_t *path, uint8_t hops);
/* Start a LID-routed Get/Set. */
void smp_init_lid(struct smp *smp, uint8_t method, uint16_t attr_id, uint32_t attr_mod);
/* Turn a received request into its GetResp (method, D bit, hop_ptr as a
 * responder at the end of the path sets them). Payload left as is. */
void smp_make_response(struct smp *smp);
/* The same for an SM agent answering through umad a request it received:
 * the hop pointer stays as it arrived (hop_cnt + 1 from the kernel's SMI,
 * which then walks the return path; 0 under ibsim, which does the same). */
void smp_make_reply(struct smp *smp);

/* ---- Attributes (IBA 14.2.5) ---------------------------------------- */

enum node_type { NODE_TYPE_CA = 1, NODE_TYPE_SWITCH = 2, NODE_TYPE_ROUTER = 3 };

struct smp_node_info {
	uint8_t base_version, class_version, node_type, num_ports;
	uint64_t system_guid, node_guid, port_guid;
	uint16_t partition_cap, device_id;
	uint32_t revision, vendor_id;
	uint8_t local_port;
};

struct smp_node_desc {
	char desc[65]; /* NUL-terminated; non-printable bytes replaced by '?' */
};

enum port_state {
	PORT_STATE_NOP = 0,
	PORT_STATE_DOWN = 1,
	PORT_STATE_INIT = 2,
	PORT_STATE_ARMED = 3,
	PORT_STATE_ACTIVE = 4,
};

enum port_phys_state {
	PORT_PHYS_NOP = 0,
	PORT_PHYS_SLEEP = 1,
	PORT_PHYS_POLLING = 2,
	PORT_PHYS_DISABLED = 3,
	PORT_PHYS_TRAINING = 4,
	PORT_PHYS_LINKUP = 5,
};

struct smp_port_info {
	uint64_t mkey;
	uint64_t gid_prefix;
	uint16_t lid, sm_lid;
	uint32_t cap_mask;
	uint16_t diag_code, mkey_lease;
	uint8_t local_port;
	uint8_t link_width_enabled, link_width_supported, link_width_active;
	uint8_t link_speed_supported, link_speed_active, link_speed_enabled;
	uint8_t state, phys_state, link_down_default;
	uint8_t mkey_prot, lmc;
	uint8_t neighbor_mtu, master_sm_sl;
	uint8_t vl_cap, init_type, vl_high_limit, vl_arb_high_cap, vl_arb_low_cap;
	uint8_t init_type_reply, mtu_cap, vl_stall_count, hoq_life, oper_vls;
	uint8_t client_rereg, subnet_timeout, resp_time;
	uint8_t local_phys_err, overrun_err;
	/* switch external ports: P_Key enforcement and raw packet filters */
	uint8_t part_enf_inb, part_enf_outb, filter_raw_inb, filter_raw_outb;
};

#define PORT_CAP_IS_SM (1u << 1)

struct smp_switch_info {
	uint16_t linear_fdb_cap, random_fdb_cap, mcast_fdb_cap, linear_fdb_top;
	uint8_t default_port, default_mcast_primary, default_mcast_not_primary;
	uint8_t life_time, port_state_change, opt_sl2vl_mapping;
	uint16_t lids_per_port, partition_enforce_cap;
	uint8_t enhanced_port0;
	uint16_t mcast_fdb_top;
};

#define LFT_BLOCK_SIZE 64 /* LIDs per LinearForwardingTable block */
struct smp_lft_block {
	uint8_t port[LFT_BLOCK_SIZE]; /* out port for LID block*64 + i */
};

enum sm_state {
	SM_STATE_NOT_ACTIVE = 0,
	SM_STATE_DISCOVERING = 1,
	SM_STATE_STANDBY = 2,
	SM_STATE_MASTER = 3,
};

struct smp_sm_info {
	uint64_t guid, sm_key;
	uint32_t act_count;
	uint8_t priority, state;
};

/* SMInfo Set attribute modifiers (IBA 14.4.1, the SMInfo control
 * packets).  OpenSM checks the sender's state in the payload: MASTER for
 * HANDOVER, DISABLE, STANDBY and DISCOVER; STANDBY for ACKNOWLEDGE. */
enum sm_info_mod {
	SMINFO_MOD_HANDOVER = 1,    /* master -> standby: take over */
	SMINFO_MOD_ACKNOWLEDGE = 2, /* new master -> old one: handover received */
	SMINFO_MOD_DISABLE = 3,	    /* master -> SM: go NOTACTIVE */
	SMINFO_MOD_STANDBY = 4,	    /* master -> NOTACTIVE SM: go STANDBY */
	SMINFO_MOD_DISCOVER = 5,    /* master -> NOTACTIVE SM: go DISCOVERING */
};

#define PKEY_BLOCK_SIZE 32
struct smp_pkey_block {
	uint16_t pkey[PKEY_BLOCK_SIZE];
};

/* SLtoVLMappingTable (IBA 14.2.5.8): the VL each of the 16 SLs rides
 * out of a port.  A CA or router port has one table (attribute modifier
 * 0: the port the SMP arrives on); a switch has one per input/output port
 * pair, modifier SMP_SL2VL_MOD(in, out).  VL 15 means "drop". */
#define SMP_SL2VL_SLS 16
#define SMP_SL2VL_DROP 15
#define SMP_SL2VL_MOD(in, out) ((uint32_t)(in) << 8 | (uint32_t)(out))
struct smp_sl2vl {
	uint8_t vl[SMP_SL2VL_SLS]; /* vl[sl], 4 bits each on the wire */
};

/* The data VLs an OperationalVLs / VLCap encoding names (IBA 14.2.5.6:
 * 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14); 0 for 0 or a reserved
 * value. */
unsigned smp_vls_count(uint8_t encoding);

/* Each attribute codec reads/writes the SMP_DATA_SIZE payload only. */
void smp_node_info_decode(const uint8_t *data, struct smp_node_info *ni);
void smp_node_info_encode(const struct smp_node_info *ni, uint8_t *data);
void smp_node_desc_decode(const uint8_t *data, struct smp_node_desc *nd);
void smp_node_desc_encode(const struct smp_node_desc *nd, uint8_t *data);
void smp_port_info_decode(const uint8_t *data, struct smp_port_info *pi);
void smp_port_info_encode(const struct smp_port_info *pi, uint8_t *data);
void smp_switch_info_decode(const uint8_t *data, struct smp_switch_info *si);
void smp_switch_info_encode(const struct smp_switch_info *si, uint8_t *data);
void smp_lft_decode(const uint8_t *data, struct smp_lft_block *b);
void smp_lft_encode(const struct smp_lft_block *b, uint8_t *data);
void smp_sm_info_decode(const uint8_t *data, struct smp_sm_info *si);
void smp_sm_info_encode(const struct smp_sm_info *si, uint8_t *data);
void smp_pkey_decode(const uint8_t *data, struct smp_pkey_block *b);
void smp_pkey_encode(const struct smp_pkey_block *b, uint8_t *data);
/* encode writes bytes 0-7 and zeroes the rest; a VL above 15 is cut to
 * its low 4 bits. */
void smp_sl2vl_decode(const uint8_t *data, struct smp_sl2vl *t);
void smp_sl2vl_encode(const struct smp_sl2vl *t, uint8_t *data);

/* Human-readable names for logs ("PortInfo", "ACTIVE", ...); never NULL. */
const char *smp_attr_name(uint16_t attr_id);
/* Text of a directed route's hops path[1..hops], e.g. "1,9,15" ("local"
 * for 0 hops), into buf; returns buf. */
const char *smp_path_str(const uint8_t *path, uint8_t hops, char *buf, size_t len);
/* Are a[1..a_hops] and b[1..b_hops] the same directed route? */
int smp_same_route(const uint8_t *a, uint8_t a_hops, const uint8_t *b, uint8_t b_hops);
const char *smp_port_state_name(uint8_t state);
const char *smp_sm_state_name(uint8_t state);
const char *smp_sm_info_mod_name(uint32_t mod); /* "HANDOVER", ... */

/* MTU enum (1=256 .. 5=4096) helpers. */
unsigned smp_mtu_bytes(uint8_t mtu);

#endif
