/*
 * tools/ping/nping_dev.h - the local port nanosm-ping opens (nping_dev.c):
 * its device context, protection domain and what the port says now.
 *
 * DOC: nping_dev_list_ports and nping_dev_open print their own warning;
 * nping_dev_refresh returns 0 or a negative errno with err filled.
 */
#ifndef NANOSM_TOOLS_PING_NPING_DEV_H
#define NANOSM_TOOLS_PING_NPING_DEV_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "tools/ping/ping_report.h"

#define NPING_MAX_PORTS 64 /* ports listed at most */

/* The local port, opened once. */
struct nping_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char name[64];
	uint8_t port;
	uint16_t lid;
	uint16_t mtu; /* bytes */
	enum ibv_mtu mtu_enum;
	uint8_t gid[16];
	int max_qp_wr, max_cqe;
};

/* Every port of every device (*list_errno: why libibverbs listed none), or
 * -EACCES with a warning printed. */
int nping_dev_list_ports(struct ping_port_desc *ports, size_t *n, int *list_errno);
/* Open pd's device and a protection domain; -ENODEV or -ENOMEM warned. */
int nping_dev_open(struct nping_dev *d, const struct ping_port_desc *pd);
void nping_dev_close(struct nping_dev *d);
/* Query the opened port again: LID, MTU, GID now, or why it cannot be used. */
int nping_dev_refresh(struct nping_dev *d, char *err, size_t errlen);

#endif
