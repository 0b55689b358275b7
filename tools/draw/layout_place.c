/*
 * tools/draw/layout_place.c - sizes and coordinates of the picture (draw.h):
 * boxes in uniform slots per row, rows wrapped into sub-rows at the width
 * bound, host grids under expanded switches, cables bundled into edges, and
 * the labels outside the boxes, each placed only where it overlaps nothing.
 * No I/O.
 */
#include "tools/draw/draw_priv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"

#define SW_H2 34.0 /* a switch box with two lines */
#define SW_H1 22.0
#define HOST_H 20.0
#define GAP_X 14.0
#define HOST_GAP 4.0   /* between hosts of a grid (roomy: ROOMY_GAP) */
#define HOST_TOP 10.0  /* from a switch to its host grid (roomy: ROOMY_TOP) */
#define ROOMY_GAP 26.0 /* small fabrics: room for port numbers */
#define ROOMY_TOP 52.0
#define HOST_LINE_W 640.0 /* hosts of one switch on one line up to this width */
#define SUB_GAP 18.0
#define ROW_GAP 56.0
#define MARGIN 12.0
#define LABEL_H 13.0
#define MIN_WIDTH 940.0	     /* room for the title and the legend */
#define DRAW_AUTO_EXPAND 24  /* fewer hosts: every host drawn */
#define PORT_LABELS_BOXES 40 /* port numbers only on small pictures */
#define NAME_CHARS 24	     /* a switch's name is cut there */
#define HOST_CHARS 20

size_t draw_priv_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void place_cut(char *dst, size_t size, const char *name, size_t max)
{
	size_t n = strlen(name);

	if (max >= size)
		max = size - 1;
	if (n <= max) {
		memcpy(dst, name, n + 1);
		return;
	}
	memcpy(dst, name, max - 1);
	dst[max - 1] = '~';
	dst[max] = 0;
}

static double place_text_w(const char *s)
{
	return (double)draw_priv_chars(s) * DRAW_CHAR_W;
}

/* ---- which switches show their hosts ------------------------------------- */

static int place_expanded(const struct draw_layout *l, const struct draw_opts *o, int sw,
			  size_t hosts_total)
{
	if (o->expand_all || hosts_total <= DRAW_AUTO_EXPAND)
		return 1;
	for (size_t k = 0; k < o->n_expand; k++)
		if (o->expand[k] == l->nodes[sw].guid)
			return 1;
	return 0;
}

/* Per node, what place_row needs. */
struct place_node {
	double box_w, box_h;   /* its own box */
	double host_w;	       /* widest host box under it (expanded) */
	unsigned cols, rows;   /* its host grid, 0 when folded */
	double slot_w, grid_h; /* room it takes in its row */
};

static void place_switch_box(struct draw_layout *l, int n, int expanded, struct draw_box *b)
{
	const struct draw_node *d = &l->nodes[n];
	struct text_sink s = {b->sub, sizeof(b->sub), 0};

	place_cut(b->label, sizeof(b->label), d->name[0] ? d->name : "(no name)", NAME_CHARS);
	if (d->live < 0)
		text_sinkf(&s, "missing");
	else if (d->hosts && !expanded)
		text_sinkf(&s, "%u host%s", d->hosts, d->hosts == 1 ? "" : "s");
	if (d->missing && !expanded)
		text_sinkf(&s, ", %u gone", d->missing);
}

/* ---- boxes ---------------------------------------------------------------- */

struct place_run {
	struct draw_layout *l;
	const struct draw_opts *o;
	const struct draw_priv_rows *pr;
	struct place_node *pn;
	int **hosts_of; /* per switch node: its hosts, fabric order */
	size_t *n_hosts_of;
	size_t hosts_total;
	double host_gap, host_top; /* HOST_GAP / HOST_TOP, or roomy */
	double left, content_w, avail;
	size_t cap_boxes;
};

static int place_new_box(struct place_run *r, int node, enum draw_box_kind kind)
{
	struct draw_layout *l = r->l;
	struct draw_box *b;

	if (TEXT_GROW(l->boxes, r->cap_boxes, l->n_boxes + 1, 64))
		return -ENOMEM;
	b = &l->boxes[l->n_boxes];
	memset(b, 0, sizeof(*b));
	b->node = node;
	b->kind = kind;
	l->nodes[node].box = (int)l->n_boxes;
	return (int)l->n_boxes++;
}

static int place_host_lists(struct place_run *r)
{
	struct draw_layout *l = r->l;

	r->hosts_of = calloc(l->n_nodes + 1, sizeof(int *));
	r->n_hosts_of = calloc(l->n_nodes + 1, sizeof(size_t));
	if (!r->hosts_of || !r->n_hosts_of)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_nodes; i++) {
		int s = l->nodes[i].sw;

		if (l->nodes[i].type != 2)
			r->hosts_total++;
		if (s < 0)
			continue;
		if (!r->hosts_of[s]) {
			r->hosts_of[s] = malloc(l->nodes[s].hosts * sizeof(int));
			if (!r->hosts_of[s])
				return -ENOMEM;
		}
		r->hosts_of[s][r->n_hosts_of[s]++] = (int)i;
	}
	return 0;
}

/* Measure node n (a switch with its hosts, or a switchless host). */
static void place_measure(struct place_run *r, int n)
{
	struct draw_layout *l = r->l;
	struct place_node *p = &r->pn[n];
	struct draw_box tmp;
	int exp = l->nodes[n].type == 2 && place_expanded(l, r->o, n, r->hosts_total);

	memset(&tmp, 0, sizeof(tmp));
	if (l->nodes[n].type == 2) {
		place_switch_box(l, n, exp, &tmp);
		p->box_w = fmax(place_text_w(tmp.label), place_text_w(tmp.sub)) + 12;
		p->box_h = tmp.sub[0] ? SW_H2 : SW_H1;
	} else {
		place_cut(tmp.label, sizeof(tmp.label), l->nodes[n].name, HOST_CHARS);
		p->box_w = place_text_w(tmp.label) + 10;
		p->box_h = HOST_H;
	}
	p->slot_w = p->box_w;
	if (!exp || !r->n_hosts_of[n])
		return;
	for (size_t k = 0; k < r->n_hosts_of[n]; k++) {
		place_cut(tmp.label, sizeof(tmp.label), l->nodes[r->hosts_of[n][k]].name,
			  HOST_CHARS);
		p->host_w = fmax(p->host_w, place_text_w(tmp.label) + 10);
	}
	/* one line of hosts up to HOST_LINE_W, else a squarer grid */
	p->cols = (unsigned)ceil(sqrt((double)r->n_hosts_of[n]));
	if (p->cols < (unsigned)(HOST_LINE_W / (p->host_w + r->host_gap)))
		p->cols = (unsigned)(HOST_LINE_W / (p->host_w + r->host_gap));
	if (p->cols > r->n_hosts_of[n])
		p->cols = (unsigned)r->n_hosts_of[n];
	while (p->cols > 1 && p->cols * (p->host_w + r->host_gap) > r->avail - GAP_X)
		p->cols--;
	p->rows = (unsigned)((r->n_hosts_of[n] + p->cols - 1) / p->cols);
	p->slot_w = fmax(p->box_w, p->cols * (p->host_w + r->host_gap) - r->host_gap);
	p->grid_h = r->host_top + p->rows * (HOST_H + r->host_gap) - r->host_gap;
}

/* The slot width of a row and how many slots fit on one sub-row. */
static double place_row_slot(const struct place_run *r, size_t row, size_t *per_sub)
{
	double w = 0;

	for (size_t k = 0; k < r->pr->n_members[row]; k++)
		w = fmax(w, r->pn[r->pr->members[row][k]].slot_w + GAP_X);
	*per_sub = (size_t)floor(r->avail / w);
	if (*per_sub < 1)
		*per_sub = 1;
	return w;
}

static int place_hosts_under(struct place_run *r, int sw, double x0, double y0)
{
	struct place_node *p = &r->pn[sw];
	double gx = x0 + (p->slot_w - (p->cols * (p->host_w + r->host_gap) - r->host_gap)) / 2;

	for (size_t k = 0; k < r->n_hosts_of[sw]; k++) {
		int h = r->hosts_of[sw][k], b = place_new_box(r, h, DRAW_HOST);
		struct draw_box *x;

		if (b < 0)
			return -ENOMEM;
		x = &r->l->boxes[b];
		place_cut(x->label, sizeof(x->label), r->l->nodes[h].name, HOST_CHARS);
		x->w = p->host_w;
		x->h = HOST_H;
		x->x = gx + (double)(k % p->cols) * (p->host_w + r->host_gap);
		x->y = y0 + r->host_top + (double)(k / p->cols) * (HOST_H + r->host_gap);
	}
	return 0;
}

/* One member at slot position x0 (the slot's left edge), sub-row top y. */
static int place_member(struct place_run *r, int n, double x0, double slot, double y)
{
	struct draw_layout *l = r->l;
	struct place_node *p = &r->pn[n];
	int exp = l->nodes[n].type == 2 && place_expanded(l, r->o, n, r->hosts_total);
	int b = place_new_box(r, n, l->nodes[n].type == 2 ? DRAW_SWITCH : DRAW_HOST);
	struct draw_box *x;

	if (b < 0)
		return -ENOMEM;
	x = &l->boxes[b];
	if (l->nodes[n].type == 2)
		place_switch_box(l, n, exp, x);
	else
		place_cut(x->label, sizeof(x->label), l->nodes[n].name, HOST_CHARS);
	x->w = p->box_w;
	x->h = p->box_h;
	x->x = x0 + (slot - GAP_X - p->box_w) / 2;
	x->y = y;
	if (exp && p->cols)
		return place_hosts_under(r, n, x0 + (slot - GAP_X - p->slot_w) / 2, y + p->box_h);
	return 0;
}

/* Lay out one row from y; returns the band's height, or -1 on ENOMEM. */
static double place_row(struct place_run *r, size_t row, double y)
{
	size_t per, n = r->pr->n_members[row];
	double slot = place_row_slot(r, row, &per), y0 = y;

	for (size_t first = 0; first < n; first += per) {
		size_t cnt = n - first < per ? n - first : per;
		double x = r->left + (r->content_w - (double)cnt * slot) / 2, h = 0;

		for (size_t k = 0; k < cnt; k++) {
			int m = r->pr->members[row][first + k];

			h = fmax(h, r->pn[m].box_h + r->pn[m].grid_h);
			if (place_member(r, m, x + (double)k * slot, slot, y))
				return -1;
		}
		y += h + SUB_GAP;
	}
	return y - y0 - SUB_GAP;
}

static double place_content_width(struct place_run *r)
{
	double w = 0;

	for (size_t row = 0; row < r->l->n_rows; row++) {
		size_t per, n = r->pr->n_members[row];
		double slot = place_row_slot(r, row, &per);

		w = fmax(w, (double)(n < per ? n : per) * slot);
	}
	return w;
}

static int place_boxes(struct place_run *r)
{
	struct draw_layout *l = r->l;
	double name_w = 0, y = DRAW_TOP + 8,
	       maxw = r->o->max_width ? r->o->max_width : DRAW_MAX_WIDTH;

	for (size_t row = 0; row < l->n_rows; row++)
		name_w = fmax(name_w, place_text_w(l->rows[row].name));
	r->left = MARGIN + name_w + 16;
	r->host_gap = r->hosts_total <= DRAW_AUTO_EXPAND ? ROOMY_GAP : HOST_GAP;
	r->host_top = r->hosts_total <= DRAW_AUTO_EXPAND ? ROOMY_TOP : HOST_TOP;
	r->avail = fmax(maxw - r->left - MARGIN, 200);
	for (size_t i = 0; i < l->n_nodes; i++)
		if (l->nodes[i].type == 2 || l->nodes[i].sw < 0)
			place_measure(r, (int)i);
	r->content_w = place_content_width(r);
	/* a narrow fabric sits in the middle of the minimum width */
	r->left = fmax(r->left, (MIN_WIDTH - r->content_w) / 2);
	for (size_t row = 0; row < l->n_rows; row++) {
		double h = place_row(r, row, y);

		if (h < 0)
			return -ENOMEM;
		l->rows[row].y = y - ROW_GAP / 4;
		l->rows[row].h = h + ROW_GAP / 2;
		y += h + ROW_GAP;
	}
	l->width = fmax(r->left + r->content_w + MARGIN, MIN_WIDTH);
	l->height = y - ROW_GAP + MARGIN + ROW_GAP / 4;
	return 0;
}

/* ---- edges ---------------------------------------------------------------- */

struct place_key {
	int a, b; /* boxes, a <= b */
	size_t cable;
};

static int place_key_cmp(const void *x, const void *y)
{
	const struct place_key *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return p->cable < q->cable ? -1 : p->cable > q->cable;
}

static int place_edges(struct draw_layout *l)
{
	struct place_key *k = malloc((l->n_cables + 1) * sizeof(*k));
	size_t n = 0;

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_cables; i++) {
		int a = l->nodes[l->cables[i].a].box, b = l->nodes[l->cables[i].b].box;

		if (a < 0 || b < 0 || a == b)
			continue;
		k[n].a = a < b ? a : b;
		k[n].b = a < b ? b : a;
		k[n++].cable = i;
	}
	qsort(k, n, sizeof(*k), place_key_cmp);
	l->edges = calloc(n + 1, sizeof(*l->edges));
	if (!l->edges) {
		free(k);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct draw_edge *e;

		if (!i || k[i].a != k[i - 1].a || k[i].b != k[i - 1].b) {
			e = &l->edges[l->n_edges++];
			e->a = k[i].a;
			e->b = k[i].b;
			e->label = -1;
		}
		e = &l->edges[l->n_edges - 1];
		if (l->cables[k[i].cable].live)
			e->live++;
		else
			e->missing++;
		l->cables[k[i].cable].edge = (int)(l->n_edges - 1);
	}
	free(k);
	return 0;
}

int draw_priv_line_start(const struct draw_layout *l, const struct draw_edge *e)
{
	const struct draw_box *a = &l->boxes[e->a], *b = &l->boxes[e->b];

	if (a->y + a->h <= b->y || b->y + b->h <= a->y)
		return a->y < b->y ? e->a : e->b;
	return e->a;
}

void draw_priv_line(const struct draw_layout *l, const struct draw_edge *e, struct draw_line *g)
{
	const struct draw_box *a = &l->boxes[e->a], *b = &l->boxes[e->b];

	memset(g, 0, sizeof(*g));
	if (a->y + a->h <= b->y || b->y + b->h <= a->y) {
		const struct draw_box *up = a->y < b->y ? a : b, *down = up == a ? b : a;

		/* the ends spread over the boxes' edges, towards each other */
		double dx = (down->x + down->w / 2) - (up->x + up->w / 2);

		g->x1 = up->x + up->w / 2 + fmax(-(up->w / 2 - 3), fmin(up->w / 2 - 3, dx * 0.2));
		g->y1 = up->y + up->h;
		g->x2 = down->x + down->w / 2 -
			fmax(-(down->w / 2 - 3), fmin(down->w / 2 - 3, dx * 0.2));
		g->y2 = down->y;
		g->cx = (g->x1 + g->x2) / 2;
		g->cy = (g->y1 + g->y2) / 2;
		return;
	}
	g->arc = 1;
	g->x1 = a->x + a->w / 2;
	g->y1 = a->y;
	g->x2 = b->x + b->w / 2;
	g->y2 = b->y;
	g->cx = (g->x1 + g->x2) / 2;
	g->cy = fmin(g->y1, g->y2) - 14 - fabs(g->x2 - g->x1) * 0.08;
}

/* ---- labels --------------------------------------------------------------- */

static int place_free(const struct draw_layout *l, double x, double y, double w, double h)
{
	if (x < 0 || y < DRAW_TOP || x + w > l->width || y + h > l->height)
		return 0;
	for (size_t i = 0; i < l->n_boxes; i++) {
		const struct draw_box *b = &l->boxes[i];

		if (draw_overlap(x, y, w, h, b->x, b->y, b->w, b->h))
			return 0;
	}
	for (size_t i = 0; i < l->n_labels; i++) {
		const struct draw_label *q = &l->labels[i];

		if (draw_overlap(x, y, w, h, q->x, q->y, q->w, q->h))
			return 0;
	}
	return 1;
}

/* Put text centred on one of the points (px[k], py[k]) that is free;
 * returns its index in labels, -1 when none was (counted as dropped). */
static int place_label(struct draw_layout *l, const char *text, const double *px, const double *py,
		       int n, int row)
{
	double w = place_text_w(text) + 2;
	struct draw_label *q;

	for (int k = 0; k < n; k++) {
		double x = row ? px[k] : px[k] - w / 2, y = py[k] - LABEL_H / 2;

		if (!row && !place_free(l, x, y, w, LABEL_H))
			continue;
		if (TEXT_GROW(l->labels, l->cap_labels, l->n_labels + 1, 32))
			return -2;
		q = &l->labels[l->n_labels];
		q->x = x;
		q->y = y;
		q->w = w;
		q->h = LABEL_H;
		q->row = row;
		snprintf(q->text, sizeof(q->text), "%s", text);
		return (int)l->n_labels++;
	}
	l->dropped_labels++;
	return -1;
}

static void place_point(const struct draw_line *g, double t, double *x, double *y)
{
	double u = 1 - t;

	if (!g->arc) {
		*x = g->x1 + (g->x2 - g->x1) * t;
		*y = g->y1 + (g->y2 - g->y1) * t;
		return;
	}
	*x = u * u * g->x1 + 2 * u * t * g->cx + t * t * g->x2;
	*y = u * u * g->y1 + 2 * u * t * g->cy + t * t * g->y2;
}

static int place_count_label(struct draw_layout *l, struct draw_edge *e)
{
	char text[48];
	double px[3], py[3];
	struct draw_line g;
	unsigned n = e->live + e->missing;

	if (n < 2)
		return 0;
	if (e->missing)
		snprintf(text, sizeof(text), "\xc3\x97%u (%u missing)", n, e->missing);
	else
		snprintf(text, sizeof(text), "\xc3\x97%u", n);
	draw_priv_line(l, e, &g);
	place_point(&g, 0.5, &px[0], &py[0]);
	place_point(&g, 0.35, &px[1], &py[1]);
	place_point(&g, 0.65, &px[2], &py[2]);
	e->label = place_label(l, text, px, py, 3, 0);
	return e->label == -2 ? -ENOMEM : 0;
}

/* The port numbers one end (box) of edge e has, joined by ",". */
static void place_end_ports(const struct draw_layout *l, size_t e, int box, char *text, size_t size)
{
	struct text_sink o = {text, size, 0};

	text[0] = 0;
	for (size_t i = 0; i < l->n_cables; i++) {
		const struct draw_cable *c = &l->cables[i];

		if (c->edge != (int)e)
			continue;
		text_sinkf(&o, "%s%u", o.off ? "," : "", l->nodes[c->a].box == box ? c->pa : c->pb);
	}
}

/* Port numbers next to each end of every edge (small pictures only). */
static int place_port_labels(struct draw_layout *l)
{
	for (size_t e = 0; e < l->n_edges; e++) {
		struct draw_line g;
		char text[32];

		if (l->edges[e].live + l->edges[e].missing > 4)
			continue;
		draw_priv_line(l, &l->edges[e], &g);
		for (int end = 0; end < 2; end++) {
			int box = end ? l->edges[e].b : l->edges[e].a;
			int at_start = box == draw_priv_line_start(l, &l->edges[e]);
			double t[2] = {at_start ? 0.14 : 0.86, at_start ? 0.24 : 0.76}, px[2],
			       py[2];

			place_end_ports(l, e, box, text, sizeof(text));
			for (int k = 0; k < 2; k++)
				place_point(&g, t[k], &px[k], &py[k]);
			if (place_label(l, text, px, py, 2, 0) == -2)
				return -ENOMEM;
		}
	}
	return 0;
}

static int place_labels(struct draw_layout *l)
{
	for (size_t row = 0; row < l->n_rows; row++) {
		double x = MARGIN, y = l->rows[row].y + l->rows[row].h / 2;

		if (place_label(l, l->rows[row].name, &x, &y, 1, 1) == -2)
			return -ENOMEM;
	}
	if (l->n_boxes <= PORT_LABELS_BOXES && place_port_labels(l))
		return -ENOMEM;
	for (size_t i = 0; i < l->n_edges; i++)
		if (place_count_label(l, &l->edges[i]))
			return -ENOMEM;
	return 0;
}

int draw_priv_place(struct draw_layout *l, const struct draw_opts *o,
		    const struct draw_priv_rows *pr)
{
	struct place_run r = {.l = l, .o = o, .pr = pr};
	int rc = -ENOMEM;

	r.pn = calloc(l->n_nodes + 1, sizeof(*r.pn));
	if (r.pn && !place_host_lists(&r) && !place_boxes(&r) && !place_edges(l) &&
	    !place_labels(l)) {
		draw_priv_health(l, o);
		rc = 0;
	}
	if (r.hosts_of)
		for (size_t i = 0; i < l->n_nodes; i++)
			free(r.hosts_of[i]);
	free(r.hosts_of);
	free(r.n_hosts_of);
	free(r.pn);
	return rc;
}
