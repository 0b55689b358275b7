/*
 * vsim_smi.h - what the simulated verbs layer reads from ibsim through
 * umad: the local CA's NodeInfo, PortInfo and P_Key table, and snapshots
 * of the whole fabric with the switches' LFTs (for vsim_path.c's walk).
 *
 * DOC: One client MAD port (mad/mad_port.c, no issm) per process, opened on
 * the node umad2sim's SIM_HOST names.  Every Get is synchronous (the
 * verbs calls that need one wait for it).  The fabric is discovered by
 * directed route (routing/dr_walk.c, as nanosm-verify does) and every
 * switch's LFT read; the snapshot is kept and read again once it is older
 * than the caller allows, so a change the SM or ibsim's console makes is
 * seen within that age.
 */
#ifndef NANOSM_TESTS_VERBS_SIM_VSIM_SMI_H
#define NANOSM_TESTS_VERBS_SIM_VSIM_SMI_H

#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"
#include "routing/verify.h"

#define VSIM_PKEYS 32 /* the first P_Key block: all a simulated CA has */

struct vsim_port_facts {
	struct smp_port_info pi;
	uint64_t port_guid;
	uint16_t pkey[VSIM_PKEYS];
};

struct vsim_smi;

/* Open the local CA's first port as a umad client.  NULL with err. */
struct vsim_smi *vsim_smi_open(char *err, size_t errlen);
void vsim_smi_close(struct vsim_smi *s);
/* The CA's name as umad2sim calls it. */
const char *vsim_smi_ca(const struct vsim_smi *s);
/* NodeInfo of the local CA.  0 or a negative errno. */
int vsim_smi_node(struct vsim_smi *s, struct smp_node_info *ni);
/* PortInfo and P_Key table of local port `port`.  0 or a negative errno. */
int vsim_smi_port(struct vsim_smi *s, uint8_t port, struct vsim_port_facts *out);
/* The fabric as seen from the local port, read again when older than
 * max_age_ms; *src_node and *src_port locate the local port in it.
 * NULL when it could not be read (err says why). */
const struct verify_index *vsim_smi_fabric(struct vsim_smi *s, uint64_t max_age_ms, int *src_node,
					   uint8_t *src_port, char *err, size_t errlen);
/* CLOCK_MONOTONIC in ms. */
uint64_t vsim_smi_now_ms(void);

#endif
