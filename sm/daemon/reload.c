/*
 * sm/daemon/reload.c - judges a policy reload before it happens: the refusals (an
 * empty file over a running policy, static LIDs that cannot move) and the
 * notes the answer and the log carry.  Changes nothing, logs nothing; the
 * loop (sm/daemon/loop.c) applies and logs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sm/daemon/reload.h"

static int reload_refuse_empty(const struct policy *cur, const struct policy *np, const char *path,
			       char *why, size_t whylen)
{
	char drops[256];

	policy_dropped(cur, np, drops, sizeof(drops));
	snprintf(why, whylen,
		 "%s holds no settings (empty, or comments only) while the running policy has "
		 "some%s%s: it looks emptied or cut; nanosmctl reload --force applies it anyway",
		 path, drops[0] ? "; it " : "", drops);
	return -EINVAL;
}

int reload_judge(struct sm *sm, const struct policy *cur, const struct policy *np, const char *path,
		 int force, struct reload_notes *notes, char *why, size_t whylen)
{
	struct policy defaults;
	int rc;

	policy_init(&defaults); /* allocates nothing */
	if (!cur)
		cur = &defaults;
	memset(notes, 0, sizeof(*notes));
	if (whylen)
		why[0] = '\0';
	if (!force && policy_reload_needs_force(cur, np))
		return reload_refuse_empty(cur, np, path, why, whylen);
	rc = sm_static_lids(sm, cur->lids.statics, cur->lids.n_statics, np->lids.statics,
			    np->lids.n_statics, 0, notes->moves, sizeof(notes->moves));
	if (rc < 0) {
		snprintf(why, whylen, "%s", rc == -ENOMEM ? "out of memory" : notes->moves);
		notes->moves[0] = '\0';
		return rc;
	}
	notes->n_moves = rc;
	policy_dropped(cur, np, notes->drops, sizeof(notes->drops));
	policy_restart_fields(cur, np, notes->restart, sizeof(notes->restart));
	return 0;
}

void reload_notes_print(const struct reload_notes *n, struct text_buf *b)
{
	if (n->drops[0])
		text_buf_printf(b, "%s\n", n->drops);
	if (n->moves[0])
		text_buf_printf(b, "%s", n->moves);
	if (n->restart[0])
		text_buf_printf(b, "takes effect at restart: %s\n", n->restart);
}
