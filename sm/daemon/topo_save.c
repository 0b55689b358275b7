/*
 * sm/daemon/topo_save.c - writes the topology of a SUBNET UP (see topo_save.h).
 * Formats with routing/topo_write.c and writes with sm/core/atomic_file.c;
 * decides nothing about when.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"
#include "sm/core/atomic_file.h"
#include "sm/daemon/topo_save.h"

char *topo_save_path(const char *topology, const char *guid2lid)
{
	const char *slash;
	char *path;
	size_t dir;

	if (topology && !strcmp(topology, "none"))
		return NULL;
	if (topology && topology[0])
		return strdup(topology);
	if (!guid2lid || !guid2lid[0])
		return NULL;
	slash = strrchr(guid2lid, '/');
	dir = slash ? (size_t)(slash - guid2lid) + 1 : 0;
	path = malloc(dir + sizeof(POLICY_TOPOLOGY_NAME));
	if (path)
		sprintf(path, "%.*s%s", (int)dir, guid2lid, POLICY_TOPOLOGY_NAME);
	return path;
}

int topo_save(const char *path, const struct fabric *f, const struct topo_names *names,
	      const char *note, char *err, size_t errlen)
{
	char *body = NULL, *text = NULL;
	size_t len = 0;
	int rc = topo_write(f, TOPO_FORMAT_IBNETDISCOVER, names, &body, &len);

	if (err && errlen)
		err[0] = '\0';
	if (rc == 0 && asprintf(&text, "# %s\n%s", note, body) < 0) {
		text = NULL;
		rc = -ENOMEM;
	}
	if (rc == 0)
		rc = atomic_file_write(path, text, strlen(text), err, errlen);
	else if (err && errlen && !err[0])
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	free(body);
	free(text);
	return rc;
}
