/*
 * topo_file.h - read a fabric from an ibnetdiscover / ibsim "net" file.
 *
 * DOC: The format ibsim loads and ibnetdiscover prints: records of a header
 * line `Switch|Hca|Ca|Rt <nports> "<id>" [# comment]` followed by one line per
 * connected port `[<port>][(<portguid>)] "<remote id>"[<rport>][(..)] [# ...]`,
 * optional `switchguid=0x..`, `caguid=0x..`, `sysimgguid=0x..`, `vendid=`,
 * `devid=` lines before a header, blank lines and `#` comments.
 * Pure parser: text in, struct fabric out.
 */
#ifndef NANOSM_ROUTING_TOPO_FILE_H
#define NANOSM_ROUTING_TOPO_FILE_H

#include <stddef.h>

#include "routing/fabric.h"

/* Parse text (name is used in error messages: "<name>:<line>: <what>").
 * Node GUIDs come from switchguid=/caguid= lines when given, else are made
 * up deterministically (switches 0x0002000000000001.., CAs
 * 0x0001000000000001.., in file order); a CA port's GUID is node GUID +
 * port number, unless a (portguid) is given on its line; the description
 * is the quoted id.  Links named from either side (or both) are joined;
 * contradicting links are an error.  f must be fabric_init'ed and empty.
 * Returns 0 or -EINVAL with err set.
 * Details: a made-up CA GUID skips its port GUIDs (the next CA starts at
 * GUID + num_ports + 1); a header comment's leading "name" (ibnetdiscover)
 * becomes the description, as ibsim does; "lid N" / "lmc N" in the header
 * comment (switch port 0) or before the first quote of a CA port line's
 * comment set that port's LID/LMC; ibsim's "w=N" sets the link width;
 * "include" and "do" lines are rejected.  Cabled ports come up INIT/LinkUp
 * and present, uncabled CA ports DOWN/Polling and not present, every
 * switch port present; sm_port is 0 on a switch, else the lowest cabled
 * port (1 if none).  On error f is left empty. */
int topo_parse(const char *text, size_t len, const char *name, struct fabric *f, char *err,
	       size_t errlen);

/* Read and parse a file. Returns 0, -errno (unreadable) or -EINVAL. */
int topo_load(const char *path, struct fabric *f, char *err, size_t errlen);

#endif
