/*
 * ftree_note.c - what ftree tells the log about a tree it routed: ranks,
 * roots, leaves, the missing up-links, down-up routes and turns.  Part of
 * the ftree engine (routing/ftree.c has the DOC).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "routing/ftree_priv.h"

static void ftree_note(struct ftree *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append to the note; a note cut short ends in "...". */
static void ftree_note(struct ftree *m, const char *fmt, ...)
{
	char *note = m->note->text;
	size_t size = sizeof(m->note->text), len = strlen(note);
	va_list ap;
	int n;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(note + len, size - len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= size - len)
		memcpy(note + size - 4, "...", 4);
}

/* ---- The note ---------------------------------------------------------- */

/* The most common up-link count among switches of rank r in component c
 * (ties: larger), and in slot[] the ports any of them uses for up-links. */
static unsigned ftree_usual_ups(const struct ftree *m, int c, int r, uint8_t *slot)
{
	unsigned hist[FABRIC_MAX_PORTS + 1] = {0}, mode = 0;

	memset(slot, 0, FABRIC_MAX_PORTS + 1);
	for (size_t s = 0; s < m->g.n_sw; s++) {
		if (m->rank[s] != r || m->g.comp[s] != c)
			continue;
		hist[m->up_start[s + 1] - m->up_start[s]]++;
		for (size_t e = m->up_start[s]; e < m->up_start[s + 1]; e++)
			slot[m->up[e].port] = 1;
	}
	for (unsigned k = 1; k <= FABRIC_MAX_PORTS; k++)
		if (hist[k] >= hist[mode])
			mode = k;
	return mode;
}

/* Name the missing up-links of switch s: unlinked ports that its peers
 * use for up-links, up to the usual count.  Returns how many. */
static size_t ftree_missing_on(const struct ftree *m, int s, unsigned usual, const uint8_t *slot,
			       size_t missing, char (*names)[32])
{
	const struct fabric_node *n = &m->f->nodes[m->g.sw_node[s]];
	unsigned have = (unsigned)(m->up_start[s + 1] - m->up_start[s]);
	size_t found = 0;

	for (unsigned pn = 1; have < usual && pn <= n->num_ports; pn++) {
		if (n->ports[pn].remote_node != FABRIC_NONE || !slot[pn])
			continue;
		if (missing + found < FTREE_NOTE_LINKS)
			snprintf(names[missing + found], 32, "0x%016" PRIx64 "/%u", n->guid, pn);
		found++;
		have++;
	}
	return found;
}

/* Missing up-links: on switches with fewer than the usual number for their
 * rank (in their component), the unlinked ports their peers use for
 * up-links. */
static void ftree_note_missing(struct ftree *m)
{
	uint8_t slot[FABRIC_MAX_PORTS + 1];
	char names[FTREE_NOTE_LINKS][32];
	size_t missing = 0;

	for (int c = 0; c < (int)m->g.n_comp; c++)
		for (int r = 0; r <= m->top_rank; r++) {
			unsigned usual = ftree_usual_ups(m, c, r, slot);

			for (size_t s = 0; s < m->g.n_sw; s++)
				if (m->rank[s] == r && m->g.comp[s] == c)
					missing += ftree_missing_on(m, (int)s, usual, slot, missing,
								    names);
		}
	if (!missing)
		return;
	ftree_note(m, "; %zu up-link%s missing: ", missing, missing == 1 ? "" : "s");
	for (size_t i = 0; i < missing && i < FTREE_NOTE_LINKS; i++)
		ftree_note(m, "%s%s", i ? ", " : "", names[i]);
	if (missing > FTREE_NOTE_LINKS)
		ftree_note(m, " and %zu more", missing - FTREE_NOTE_LINKS);
	ftree_note(m, "; %zu LID%s routed around them", m->rerouted, m->rerouted == 1 ? "" : "s");
}

void ftree_write_note(struct ftree *m)
{
	size_t roots = 0, leaves = 0;

	for (size_t s = 0; s < m->g.n_sw; s++) {
		roots += (size_t)ftree_is_root(m, s);
		leaves += m->g.has_ca[s];
	}
	ftree_note(m, "ftree: %d rank%s, %zu root%s, %zu lea%s, %zu CA LID%s", m->top_rank + 1,
		   m->top_rank ? "s" : "", roots, roots == 1 ? "" : "s", leaves,
		   leaves == 1 ? "f" : "ves", m->n_dests, m->n_dests == 1 ? "" : "s");
	ftree_note_missing(m);
	if (m->downup)
		ftree_note(m,
			   "; %zu leaf pair%s without a common ancestor take a down-up route "
			   "(first 0x%016" PRIx64 " -> 0x%016" PRIx64 ")",
			   m->downup, m->downup == 1 ? "" : "s",
			   swgraph_guid(&m->g, m->downup_from), swgraph_guid(&m->g, m->downup_to));
	if (m->degraded)
		ftree_note(m,
			   "; down-up turns for switches with no up-then-down route: %zu kept "
			   "free of credit loops, %zu LID%s moved to another parent there",
			   m->turns.n_turns, m->moved, m->moved == 1 ? "" : "s");
	if (m->out->n_vls > 1) {
		ftree_note(m,
			   "; CA LIDs on VL 0-%u (SL = VL), where their turns close no "
			   "credit loop:",
			   m->out->n_vls - 1u);
		for (unsigned v = 0; v < m->out->n_vls; v++)
			ftree_note(m, " %zu", m->on_vl[v]);
	}
	if (m->merged)
		ftree_note(m, "; %zu VL%s emptied into lower VLs whose dependencies stay acyclic",
			   m->merged, m->merged == 1 ? "" : "s");
	if (m->stranded)
		ftree_note(m, "; %zu route%s left on a shortest path that may close a credit loop",
			   m->stranded, m->stranded == 1 ? "" : "s");
	if (m->n_ranked < m->g.n_sw)
		ftree_note(m, "; %zu switch%s with no leaf connected: own LIDs only",
			   m->g.n_sw - m->n_ranked, m->g.n_sw - m->n_ranked == 1 ? "" : "es");
	if (m->unknown_roots)
		ftree_note(m, "; %zu given root%s not in the fabric (0x%016" PRIx64 ")",
			   m->unknown_roots, m->unknown_roots == 1 ? "" : "s", m->unknown_root);
}
