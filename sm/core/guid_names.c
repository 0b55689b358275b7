/*
 * sm/core/guid_names.c - names next to GUIDs in the messages an operator
 * reads: the routing engines and the gate speak in GUIDs (they are pure and
 * know no names); before such a message is logged or answered, every node
 * GUID in it that the fabric knows gets the node's name (policy node_names,
 * else its NodeDescription) after it.  No I/O.
 */
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "sm/core/sm_priv.h"

/* The 16 hex digits at s (after "0x"), or -1 when s is not such a GUID. */
static int guid_names_parse(const char *s, uint64_t *guid)
{
	uint64_t v = 0;

	for (int i = 0; i < 16; i++) {
		int d = text_hexval(s[i]);

		if (d < 0)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (text_hexval(s[16]) >= 0)
		return -1;
	*guid = v;
	return 0;
}

size_t sm_guid_names(const struct fabric *f, const char *in, char *out, size_t outlen)
{
	struct text_sink o = {out, outlen, 0};
	const char *s = in;

	if (outlen)
		out[0] = '\0';
	while (*s) {
		const char *hit = strstr(s, "0x");
		uint64_t guid;
		int node;

		if (!hit) {
			text_sinkf(&o, "%s", s);
			break;
		}
		text_sinkf(&o, "%.*s", (int)(hit - s), s);
		if (guid_names_parse(hit + 2, &guid) < 0) {
			text_sinkf(&o, "0x");
			s = hit + 2;
			continue;
		}
		text_sinkf(&o, "%.18s", hit);
		s = hit + 18;
		node = f ? fabric_find(f, guid) : FABRIC_NONE;
		/* a name already given ("0x... (sw1)") is not given twice */
		if (node != FABRIC_NONE && f->nodes[node].desc[0] && strncmp(s, " (", 2) != 0)
			text_sinkf(&o, " (%s)", f->nodes[node].desc);
	}
	if (outlen && o.off >= outlen)
		out[outlen - 1] = '\0';
	return o.off;
}
