/*
 * tools/ping/ping_proto.h - nanosm-ping's side-channel protocol and data-path payload
 * (pure: text in, structs out; no I/O, no clock, no globals).
 *
 * DOC: Before two hosts can exchange a single InfiniBand packet they must
 * know each other's QP number, LID, GID and start PSN.  nanosm-ping swaps
 * them over TCP, like perftest, in lines of printable ASCII ending in '\n'
 * (at most PING_PROTO_LINE_MAX bytes with the newline).  Every line starts
 * with the protocol name and version, "NSMPING/1", then a message type.
 * Fields are key=value, separated by exactly one space, all present, in
 * the order shown; numbers have the exact widths shown:
 *
 *   server: NSMPING/1 HELLO lid=4 gid=fe80:0000:0000:0000:0002:c903:00a1:b2c3
 *   client: NSMPING/1 INFO mode=ud lid=3 qpn=0x00012a psn=0x3c4d5e
 *           gid=fe80:...:b2c2 mtu=4096 size=64 rkey=0x00000000
 *           addr=0x0000000000000000                    (one line)
 *   server: NSMPING/1 INFO ...                         (its QP for this client)
 *   ...                                                (pings over the QP)
 *   client: NSMPING/1 DONE
 *   server: NSMPING/1 BYE rx=4096                      (bw messages it received)
 *
 * A server that cannot serve (its port is not ACTIVE, a bad INFO) answers
 * "NSMPING/1 ERROR <text>" instead and closes.  A client that only wanted
 * to learn the server's LID (LID targets) sends DONE right after HELLO.
 *
 * Field rules: lid 1..0xBFFF (decimal); qpn 24 bits, not 0 or 1 (six hex
 * digits); psn 24 bits (six hex digits); gid eight groups of four hex
 * digits, not all zero; mtu one of 256 512 1024 2048 4096; size 8..8 MiB
 * (decimal), the largest message of the session (pings and bandwidth); rkey (eight
 * hex digits) and addr (sixteen) name the server's RDMA-write buffer in RC
 * mode and are zero otherwise.  The UD Q_Key is fixed by the version
 * (PING_PROTO_QKEY).  Bump PING_PROTO_VERSION on any change.
 *
 * Data-path messages start with an 8-byte header: "NSMP" magic, then a
 * big-endian word holding the kind (top 8 bits) and a sequence number.
 */
#ifndef NANOSM_TOOLS_PING_PING_PROTO_H
#define NANOSM_TOOLS_PING_PING_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PING_PROTO_NAME "NSMPING"
#define PING_PROTO_VERSION 1
#define PING_PROTO_LINE_MAX 256 /* bytes per line, newline included */
#define PING_PROTO_TCP_PORT 18555
#define PING_PROTO_QKEY 0x4e534d50u /* "NSMP"; below 0x80000000: not controlled */
#define PING_PROTO_LID_MAX 0xBFFF
#define PING_PROTO_SIZE_MIN 8	       /* a message holds at least the header */
#define PING_PROTO_SIZE_MAX (8u << 20) /* 8 MiB, perftest's largest */
#define PING_PROTO_TEXT_MAX 200	       /* ERROR text */
#define PING_PROTO_HDR_LEN 8
#define PING_PROTO_UD_GRH 40 /* UD receive buffers start with room for a GRH */

enum ping_mode { PING_MODE_UD = 0, PING_MODE_RC = 1 };

/* One end of a path: what INFO carries. */
struct ping_info {
	enum ping_mode mode;
	uint16_t lid;
	uint32_t qpn;
	uint32_t psn;
	uint8_t gid[16];
	uint16_t mtu;  /* bytes */
	uint32_t size; /* largest message the client sends */
	uint32_t rkey; /* RC server: its write buffer; 0 otherwise */
	uint64_t addr;
};

enum ping_msg_type {
	PING_MSG_HELLO,
	PING_MSG_INFO,
	PING_MSG_ERROR,
	PING_MSG_DONE,
	PING_MSG_BYE,
};

struct ping_msg {
	enum ping_msg_type type;
	uint16_t lid;			    /* HELLO */
	uint8_t gid[16];		    /* HELLO */
	struct ping_info info;		    /* INFO */
	char text[PING_PROTO_TEXT_MAX + 1]; /* ERROR */
	uint64_t rx;			    /* BYE */
};

/* Data-path message kinds. */
enum ping_payload_kind { PING_PAYLOAD_PING = 1, PING_PAYLOAD_PONG = 2, PING_PAYLOAD_BW = 3 };

/* Bytes received on a side channel, cut into lines. */
struct ping_proto_linebuf {
	char buf[2 * PING_PROTO_LINE_MAX];
	size_t len;
};

const char *ping_proto_mode_name(enum ping_mode mode); /* "ud", "rc" */
const char *ping_proto_msg_name(enum ping_msg_type type);

/* Write m as one line without the newline into buf (cap bytes, NUL
 * included).  Returns its length, -EINVAL if a field breaks the rules above
 * (err says which), -ENOSPC if cap is too small. */
int ping_proto_encode(const struct ping_msg *m, char *buf, size_t cap, char *err, size_t errlen);
/* Parse one line (without the newline).  Returns 0; -EPROTO when it is not
 * a nanosm-ping line at all, -EPROTONOSUPPORT for another version,
 * -EBADMSG for a malformed or out-of-range field.  err names the field. */
int ping_proto_parse(const char *line, struct ping_msg *m, char *err, size_t errlen);

/* Check the server's INFO against the client's own (same mode, size
 * echoed, UD: size within both MTUs and no rkey/addr, RC: a write buffer).
 * Returns 0 or -EBADMSG with err set. */
int ping_proto_check_server(const struct ping_info *client, const struct ping_info *server,
			    char *err, size_t errlen);
/* Check a client's INFO on the server: UD size within the server's MTU, no
 * rkey/addr from a client.  Returns 0 or -EBADMSG with err set. */
int ping_proto_check_client(const struct ping_info *client, uint16_t server_mtu, char *err,
			    size_t errlen);
/* 1 if mtu is 256, 512, 1024, 2048 or 4096. */
int ping_proto_mtu_valid(uint32_t mtu);

/* Put the header at the start of buf (at least PING_PROTO_HDR_LEN bytes). */
void ping_proto_payload_put(uint8_t *buf, enum ping_payload_kind kind, uint32_t seq);
/* Read a header: 0, or -EBADMSG (short, bad magic, unknown kind). */
int ping_proto_payload_get(const uint8_t *buf, size_t len, enum ping_payload_kind *kind,
			   uint32_t *seq);

void ping_proto_linebuf_init(struct ping_proto_linebuf *lb);
/* Free room at the end of the buffer for the next read(). */
char *ping_proto_linebuf_room(struct ping_proto_linebuf *lb, size_t *room);
/* Account for n bytes just read into the room. */
void ping_proto_linebuf_commit(struct ping_proto_linebuf *lb, size_t n);
/* Take the next complete line (newline stripped) into line (cap bytes).
 * Returns 1, 0 when no complete line is buffered, -EMSGSIZE when a line is
 * longer than PING_PROTO_LINE_MAX, -EBADMSG for a NUL byte in a line (the
 * buffer is useless after either). */
int ping_proto_linebuf_take(struct ping_proto_linebuf *lb, char *line, size_t cap);

#endif
