/*
 * sm/daemon/reload.h - what putting a new policy in force on a running SM would do
 * beyond the policy diff, and whether it may.
 *
 * DOC: reload_judge is run by `nanosmctl reload`, SIGHUP and `nanosmctl
 * plan` alike, before anything changes.  It refuses (-EINVAL, why says
 * so) a file with no settings over a running policy that has some, unless
 * forced, and (-EEXIST / -ERANGE) static LIDs that another port holds or
 * that the switches cannot take.  Otherwise it fills the notes the answer
 * and the log carry: the whole sections the new policy drops, the ports
 * whose static LID moves at the next sweep, and the settings that wait for
 * a restart.  The routing gate is sm_set_routing's business; applying the
 * static LIDs is sm_static_lids'.  Logs nothing.
 */
#ifndef NANOSM_SM_DAEMON_RELOAD_H
#define NANOSM_SM_DAEMON_RELOAD_H

#include <stddef.h>

#include "config/policy.h"
#include "routing/verify.h"
#include "sm/core/sm.h"

struct reload_notes {
	char drops[256];   /* "drops all 3 partitions, 4 node_names", "" = none */
	char restart[512]; /* "sm.window, sm.m_key": take effect at restart, "" = none */
	char moves[4096];  /* one line per static LID that moves, "" = none */
	int n_moves;
};

/* May np (read from path) replace cur on sm?  0 with notes filled, or a
 * negative errno with why set (one line) and nothing changed anywhere.
 * cur NULL = the defaults. */
int reload_judge(struct sm *sm, const struct policy *cur, const struct policy *np, const char *path,
		 int force, struct reload_notes *notes, char *why, size_t whylen);
/* The notes as the answer prints them, one line each. */
void reload_notes_print(const struct reload_notes *n, struct text_buf *b);

#endif
