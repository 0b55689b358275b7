/*
 * sm/daemon/topo_save.h - the topology nanosm brought up, kept on disk for
 * nanosm-verify: at every SUBNET UP the loop writes the fabric in
 * ibnetdiscover format (routing/topo_write.h, with the policy's node names
 * and every port's LID) to sm.topology, by default "topology" beside the
 * guid2lid file.  nanosm-verify reads it back as what should be there
 * (docs/nanosm-verify.md).
 */
#ifndef NANOSM_SM_DAEMON_TOPO_SAVE_H
#define NANOSM_SM_DAEMON_TOPO_SAVE_H

#include <stddef.h>

#include "routing/fabric.h"
#include "routing/topo_write.h"

/* The file to write: topology when it is a path, NULL for "none"; for ""
 * (the default) POLICY_TOPOLOGY_NAME in guid2lid's directory, or NULL when
 * there is no guid2lid either.  malloc'ed (caller frees). */
char *topo_save_path(const char *topology, const char *guid2lid);

/* Write f to path atomically (sm/core/atomic_file.h), the line "# <note>" first.
 * names may be NULL.  Returns 0 or -errno with err filled in. */
int topo_save(const char *path, const struct fabric *f, const struct topo_names *names,
	      const char *note, char *err, size_t errlen);

#endif
