/*
 * tools/draw/draw_find.c - the switches a person names on the command line
 * (--expand-switch NAME): by NodeDescription or by node GUID.  No I/O.
 */
#include "tools/draw/draw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"

int draw_find_switch(const struct fabric *f, const char *name, uint64_t *guid, char *err,
		     size_t errlen)
{
	char *end;
	unsigned long long v;

	for (size_t i = 0; i < f->n_nodes; i++)
		if (fabric_is_switch(&f->nodes[i]) && !strcmp(f->nodes[i].desc, name)) {
			*guid = f->nodes[i].guid;
			return 0;
		}
	errno = 0;
	v = strtoull(name, &end, 0);
	if (!errno && *name && !*end) {
		int n = fabric_find(f, v);

		if (n >= 0 && fabric_is_switch(&f->nodes[n])) {
			*guid = v;
			return 0;
		}
	}
	return text_err(err, errlen, -ENOENT,
			"no switch named '%s' in the fabric (a NodeDescription or a node GUID)",
			name);
}
