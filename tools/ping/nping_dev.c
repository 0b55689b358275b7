/*
 * tools/ping/nping_dev.c - the verbs client's local ports: every port of
 * every RDMA device listed for the choice (ping_report.c chooses), the one
 * chosen opened with its protection domain, and queried again for its LID,
 * MTU and GID.  Only devices and ports: QPs are nping_qp.c's.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mad/text.h"
#include "tools/ping/nping.h"
#include "tools/ping/nping_dev.h"
#include "tools/ping/ping_report.h"

static uint16_t nping_mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? (uint16_t)(128u << m) : 0;
}

/* The port GUID: GID 0's interface ID (0 when it cannot be read). */
static uint64_t nping_port_guid(struct ibv_context *ctx, uint8_t port)
{
	union ibv_gid gid;
	uint64_t guid = 0;

	if (ibv_query_gid(ctx, port, 0, &gid) != 0)
		return 0;
	for (int i = 8; i < 16; i++)
		guid = guid << 8 | gid.raw[i];
	return guid;
}

static void nping_port_desc(const char *dev, uint8_t port, const struct ibv_port_attr *pa,
			    struct ping_port_desc *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->dev, sizeof(d->dev), "%s", dev);
	d->port = port;
	d->state = (enum ping_port_state)pa->state;
	d->link = pa->link_layer == IBV_LINK_LAYER_ETHERNET	? PING_LINK_ETHERNET
		  : pa->link_layer == IBV_LINK_LAYER_INFINIBAND ? PING_LINK_IB
								: PING_LINK_UNSPEC;
	d->lid = pa->lid;
	d->mtu = nping_mtu_bytes(pa->active_mtu);
}

/* Append every port of one device to ports. */
static void nping_list_device(struct ibv_device *dev, struct ping_port_desc *ports, size_t *n,
			      char *open_err, size_t cap)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibv_device_attr da;

	if (!ctx) {
		if (!open_err[0])
			snprintf(open_err, cap, "cannot open %s: %s", ibv_get_device_name(dev),
				 strerror(errno));
		return;
	}
	if (ibv_query_device(ctx, &da) == 0) {
		for (uint8_t p = 1; p <= da.phys_port_cnt && *n < NPING_MAX_PORTS; p++) {
			struct ibv_port_attr pa;
			if (ibv_query_port(ctx, p, &pa) != 0)
				continue;
			nping_port_desc(ibv_get_device_name(dev), p, &pa, &ports[*n]);
			ports[(*n)++].guid = nping_port_guid(ctx, p);
		}
	}
	ibv_close_device(ctx);
}

/* Every port of every device (*list_errno: why libibverbs listed none), or
 * a setup error printed. */
int nping_dev_list_ports(struct ping_port_desc *ports, size_t *n, int *list_errno)
{
	int count = 0;
	struct ibv_device **devs;
	char open_err[256] = "";

	errno = 0;
	devs = ibv_get_device_list(&count);
	*list_errno = devs ? 0 : errno;
	*n = 0;
	for (int i = 0; devs && i < count; i++)
		nping_list_device(devs[i], ports, n, open_err, sizeof(open_err));
	if (devs)
		ibv_free_device_list(devs);
	if (*n == 0 && open_err[0]) {
		nping_warn("%s (permissions on /dev/infiniband/uverbs*?)", open_err);
		return -EACCES;
	}
	return 0;
}

void nping_dev_close(struct nping_dev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	memset(d, 0, sizeof(*d));
}

int nping_dev_open(struct nping_dev *d, const struct ping_port_desc *pd)
{
	int count = 0;
	struct ibv_device **devs = ibv_get_device_list(&count);
	struct ibv_device_attr da;

	memset(d, 0, sizeof(*d));
	for (int i = 0; devs && i < count && !d->ctx; i++)
		if (strcmp(ibv_get_device_name(devs[i]), pd->dev) == 0)
			d->ctx = ibv_open_device(devs[i]);
	if (devs)
		ibv_free_device_list(devs);
	if (!d->ctx) {
		nping_warn("cannot open %s: %s", pd->dev, strerror(errno));
		return -ENODEV;
	}
	snprintf(d->name, sizeof(d->name), "%s", pd->dev);
	d->port = (uint8_t)pd->port;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd || ibv_query_device(d->ctx, &da) != 0) {
		nping_warn("%s: cannot allocate a protection domain: %s", d->name, strerror(errno));
		nping_dev_close(d);
		return -ENOMEM;
	}
	d->max_qp_wr = da.max_qp_wr;
	d->max_cqe = da.max_cqe;
	return 0;
}

/* Query the opened port again: LID, MTU, GID now, or why it cannot be used. */
int nping_dev_refresh(struct nping_dev *d, char *err, size_t errlen)
{
	struct ibv_port_attr pa;
	struct ping_port_desc desc;
	union ibv_gid gid;
	int rc;

	if ((rc = ibv_query_port(d->ctx, d->port, &pa)) != 0)
		return text_err(err, errlen, -EIO, "ibv_query_port %s/%u: %s", d->name, d->port,
				strerror(rc));
	nping_port_desc(d->name, d->port, &pa, &desc);
	if ((rc = ping_report_port_usable(&desc, err, errlen)) < 0)
		return rc;
	if ((rc = ibv_query_gid(d->ctx, d->port, 0, &gid)) != 0)
		return text_err(err, errlen, -EIO, "ibv_query_gid %s/%u: %s", d->name, d->port,
				strerror(rc));
	d->lid = pa.lid;
	d->mtu = nping_mtu_bytes(pa.active_mtu);
	d->mtu_enum = pa.active_mtu;
	memcpy(d->gid, gid.raw, sizeof(d->gid));
	return 0;
}
