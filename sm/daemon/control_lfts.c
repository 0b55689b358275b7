/*
 * sm/daemon/control_lfts.c - the lfts command: the forwarding tables in
 * force as dump_fts prints them, all or one switch's, all LIDs or a range,
 * streamed one switch at a time so that the daemon never holds the whole
 * dump (30 MB at 1K hosts on 320 switches).  Reads the model and tables
 * only; the socket layer writes the pieces as they come.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/lft_file.h"
#include "routing/lid_alloc.h"
#include "sm/daemon/control_priv.h"

struct control_lfts_run {
	const struct lft_set *s;
	struct lft_file_dump dump;
	int node;	      /* the one switch asked for, -1: all */
	unsigned first, last; /* LIDs */
	size_t next;	      /* the next table */
};

static int control_lfts_more(struct control_reply *r, struct text_buf *b)
{
	struct control_lfts_run *run = r->more_ctx;

	while (run->next < run->s->n) {
		const struct lft *t = &run->s->tables[run->next++];
		int rc;

		if (run->node >= 0 && t->node != run->node)
			continue;
		rc = lft_file_dump_table(&run->dump, t, run->first, run->last, b);
		if (rc < 0)
			return rc;
		return run->next < run->s->n ? 1 : 0;
	}
	return 0;
}

static void control_lfts_free(void *ctx)
{
	struct control_lfts_run *run = ctx;

	lft_file_dump_fini(&run->dump);
	free(run);
}

/* "A" or "A-B" (decimal or 0x hex) -> the LID range; 0, or -1 when the word
 * is no range. */
static int control_lfts_range(const char *w, unsigned *first, unsigned *last)
{
	char *end;
	unsigned long a, b;

	if (!w[0] || strspn(w, "0123456789abcdefABCDEFx-") != strlen(w))
		return -1;
	errno = 0;
	a = strtoul(w, &end, 0);
	b = a;
	if (*end == '-')
		b = strtoul(end + 1, &end, 0);
	if (errno || *end || a > b || b > LID_UNICAST_MAX)
		return -1;
	*first = (unsigned)a;
	*last = (unsigned)b;
	return 0;
}

/* A switch by name (NodeDescription, the policy's names included) or node
 * GUID: its node index, -1 with the reply failed. */
static int control_lfts_switch(const struct fabric *f, const char *w, struct control_reply *r)
{
	char *end;
	unsigned long long guid;
	int hit = -1;
	size_t matches = 0;

	errno = 0;
	guid = strtoull(w, &end, 0);
	if (!errno && !*end && !strncmp(w, "0x", 2)) {
		hit = fabric_find(f, guid);
		matches = hit >= 0;
	} else {
		for (size_t i = 0; i < f->n_nodes; i++)
			if (!strcmp(f->nodes[i].desc, w) && !matches++)
				hit = (int)i;
	}
	if (!matches)
		control_fail(r, "lfts: no switch named '%s'", w);
	else if (matches > 1)
		control_fail(r, "lfts: '%s' names %zu nodes: give a GUID", w, matches);
	else if (!fabric_is_switch(&f->nodes[hit]))
		control_fail(r, "lfts: '%s' is not a switch", w);
	else
		return hit;
	return -1;
}

void control_cmd_lfts(const struct control_ops *ops, const struct control_request *q,
		      struct control_reply *r)
{
	const struct fabric *f = control_fabric(ops, r);
	const struct lft_set *s = f ? control_lfts(ops, r) : NULL;
	struct control_lfts_run *run;

	if (!s)
		return;
	run = calloc(1, sizeof(*run));
	if (!run || lft_file_dump_init(&run->dump, f) < 0) {
		free(run);
		control_fail(r, "lfts: out of memory");
		return;
	}
	run->s = s;
	run->node = -1;
	run->last = LID_UNICAST_MAX;
	for (int i = 0; q->arg[i]; i++) {
		if (control_lfts_range(q->arg[i], &run->first, &run->last) == 0)
			continue;
		run->node = control_lfts_switch(f, q->arg[i], r);
		if (run->node < 0)
			break;
	}
	r->more = control_lfts_more;
	r->more_ctx = run;
	r->more_fini = control_lfts_free;
}
