/*
 * tools/draw/draw_priv.h - what layout.c hands layout_place.c, and the
 * geometry the writers share.  Private to tools/draw/.
 */
#ifndef NANOSM_TOOLS_DRAW_DRAW_PRIV_H
#define NANOSM_TOOLS_DRAW_DRAW_PRIV_H

#include <stddef.h>

#include "mad/text.h"
#include "tools/draw/draw.h"

/* The switches (and switchless hosts) of each display row, in order. */
struct draw_priv_rows {
	int **members;	   /* members[row][k]: node indices */
	size_t *n_members; /* per row */
	int *row_of_node;  /* node -> row, -1 for hosts under a switch */
};

void draw_priv_rows_fini(struct draw_priv_rows *pr, size_t n_rows);

/* Sizes, coordinates, boxes, edges and labels. 0 or -ENOMEM. */
int draw_priv_place(struct draw_layout *l, const struct draw_opts *o,
		    const struct draw_priv_rows *pr);

/* Text metrics: 11 px monospace (DejaVu Sans Mono advances 0.602 em). */
#define DRAW_FONT 11
#define DRAW_CHAR_W 6.7
#define DRAW_TOP 74.0 /* title, summary and legend above the rows */

/* Where an edge's line runs: from (x1, y1) to (x2, y2); arc: 1 when both
 * ends are on one sub-row (drawn as a curve through (cx, cy)). */
struct draw_line {
	double x1, y1, x2, y2, cx, cy;
	int arc;
};
void draw_priv_line(const struct draw_layout *l, const struct draw_edge *e, struct draw_line *g);
/* The box at the line's start (x1, y1): the upper one, or e->a on an arc. */
int draw_priv_line_start(const struct draw_layout *l, const struct draw_edge *e);

/* The <svg> element of the layout, appended to b.  0 or -ENOMEM. */
int draw_priv_svg(const struct draw_layout *l, struct text_buf *b);

/* Match the options' health entries to the cables and edges (health.c). */
void draw_priv_health(struct draw_layout *l, const struct draw_opts *o);

/* How many characters of s are drawn (UTF-8 sequences count once). */
size_t draw_priv_chars(const char *s);

#endif
