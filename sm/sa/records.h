/*
 * sm/sa/records.h - the SA's topology records: what the fabric looks like.
 *
 * DOC: sa_topo_handle answers Get and GetTable of NodeRecord,
 * PortInfoRecord, SwitchInfoRecord, LinearForwardingTableRecord,
 * MulticastForwardingTableRecord, SMInfoRecord, LinkRecord,
 * GUIDInfoRecord and P_KeyTableRecord from the SA's view of the last good
 * sweep, and the SA's ClassPortInfo.  Each
 * candidate record is built (mad/sa_topo.c encodes) and kept when it
 * matches the request's template under its ComponentMask.  A LID in the
 * mask (LID, EndportLID, FromLID, ToLID) is looked up instead of scanning
 * the fabric, and any LID of a port's LMC range finds the port.  Which
 * records exist:
 *  - NodeRecord, GUIDInfoRecord: each switch once (port 0) and each CA or
 *    router port that has a LID and is not down;
 *  - PortInfoRecord: every switch port (EndportLID the switch's LID) and
 *    each listed CA port; M_Key reads 0 unless the request carries the
 *    SM_Key (the same for SMInfoRecord's SM_Key);
 *  - LinkRecord: both directions of every link between listed ports;
 *  - SwitchInfoRecord, LFTRecord: each switch, LFT blocks 0..top/64 of
 *    the programmed tables (none when the view has no LFTs);
 *  - MFTRecord: each switch, every (block, position) of the view's
 *    multicast tables with a port set in some MLID's mask (an all-zero
 *    block is not listed), block then position order;
 *  - SMInfoRecord: our own SM;
 *  - P_KeyTableRecord: block 0 of each port the partition plan gives a
 *    table (default partition 0xffff when the view has no plan).
 * Records come out in node order, then port (then block) order.
 */
#ifndef NANOSM_SM_SA_RECORDS_H
#define NANOSM_SM_SA_RECORDS_H

#include <stdint.h>

#include "sm/sa/server.h"

/* RespTimeValue nanosm announces: 4.096 us * 2^16 = 268 ms. */
#define SA_TOPO_RESP_TIME 16

/* The handler of every attribute above (sa_handler_fn).  Methods other
 * than Get/GetTable: SA_STATUS_BAD_METHOD_ATTR; GetTable of
 * ClassPortInfo: the same.  Otherwise SA_STATUS_OK (possibly with no
 * record), SA_STATUS_NO_RESOURCES when out could not grow. */
uint16_t sa_topo_handle(struct sa *sa, const struct sa_req *req, struct sa_out *out);

#endif
