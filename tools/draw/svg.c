/*
 * tools/draw/svg.c - the layout as SVG (draw.h): row bands and their names,
 * the legend, cables as lines (bundles thicker, with their count; missing
 * ones dashed red), boxes with their names and a tooltip (<title>) saying
 * GUID, LID, ports and hosts.  No I/O.
 */
#include "tools/draw/draw_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"

static void svg_escaped(struct text_buf *b, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&':
			text_buf_printf(b, "&amp;");
			break;
		case '<':
			text_buf_printf(b, "&lt;");
			break;
		case '>':
			text_buf_printf(b, "&gt;");
			break;
		case '"':
			text_buf_printf(b, "&quot;");
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n')
				text_buf_putc(b, *s);
		}
}

static const char svg_style[] = "<style>\n"
				".band{fill:#f4f6f9}\n"
				".rowname{fill:#6b7480;font-weight:bold}\n"
				".s rect{fill:#dce9f7;stroke:#2f5f8f;stroke-width:1.2}\n"
				".h rect{fill:#eaf5e3;stroke:#4d7f2e}\n"
				".g rect{fill:#fff;stroke:#c0392b;stroke-dasharray:4 3}\n"
				".c{stroke:#58616b;fill:none}\n"
				".m{stroke:#c0392b;stroke-dasharray:6 4}\n"
				".p{stroke:#d35400}\n"
				".lbl{fill:#333}\n"
				".hr{stroke:#c9a400;stroke-width:3;stroke-opacity:1}\n"
				".hd{stroke:#e67e22;stroke-width:3;stroke-opacity:1}\n"
				".hf{stroke:#8e44ad;stroke-width:3;stroke-opacity:1}\n"
				".hx{stroke:#d62728;stroke-width:3.5;stroke-opacity:1}\n"
				".hl rect{stroke:#1f6feb;stroke-width:3}\n"
				".c.hl{stroke:#1f6feb;stroke-width:4;stroke-opacity:1}\n"
				"text{white-space:pre}\n"
				"</style>\n";

/* The legend: each item a sample and its words, side by side. */
static void svg_legend(struct text_buf *b, double y, int health)
{
	static const struct {
		const char *sample, *text;
	} items[] = {
	    {"<g class=\"s\"><rect x=\"%.1f\" y=\"0\" width=\"26\" height=\"14\" rx=\"3\"/></g>",
	     "switch (its hosts folded in as a count)"},
	    {"<g class=\"h\"><rect x=\"%.1f\" y=\"0\" width=\"26\" height=\"14\" rx=\"3\"/></g>",
	     "host"},
	    {"<g class=\"g\"><rect x=\"%.1f\" y=\"0\" width=\"26\" height=\"14\" rx=\"3\"/></g>",
	     "missing node"},
	    {"<line class=\"c\" x1=\"%.1f\" y1=\"7\" x2=\"+26\" y2=\"7\"/>", "cable"},
	    {"<line class=\"c\" stroke-width=\"3\" x1=\"%.1f\" y1=\"7\" x2=\"+26\" y2=\"7\"/>",
	     "\xc3\x97N parallel cables"},
	    {"<line class=\"c m\" x1=\"%.1f\" y1=\"7\" x2=\"+26\" y2=\"7\"/>", "missing cable"},
	};
	double x = 0;

	text_buf_printf(b, "<g class=\"legend\" transform=\"translate(12,%.0f)\">\n", y);
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		char sample[160];
		char *plus;

		snprintf(sample, sizeof(sample), items[i].sample, x);
		plus = strstr(sample, "x2=\"+26\"");
		if (plus)
			snprintf(plus, sizeof(sample) - (size_t)(plus - sample),
				 "x2=\"%.1f\" y2=\"7\"/>", x + 26);
		text_buf_printf(b, "%s<text x=\"%.1f\" y=\"11\">%s</text>\n", sample, x + 32,
				items[i].text);
		x += 32 + (double)draw_priv_chars(items[i].text) * DRAW_CHAR_W + 18;
	}
	if (health) { /* the performance manager's verdicts, when there are any */
		static const char *const h[][2] = {{"hr", "errors rising"},
						   {"hd", "degrading"},
						   {"hf", "flapping"},
						   {"hx", "failing"}};

		for (size_t i = 0; i < 4; i++) {
			text_buf_printf(b,
					"<line class=\"c %s\" x1=\"%.1f\" y1=\"7\" x2=\"%.1f\" "
					"y2=\"7\"/><text x=\"%.1f\" y=\"11\">%s</text>\n",
					h[i][0], x, x + 26, x + 32, h[i][1]);
			x += 32 + (double)strlen(h[i][1]) * DRAW_CHAR_W + 18;
		}
	}
	text_buf_printf(b, "</g>\n");
}

/* CSR of the cables of each edge. */
struct svg_cables {
	size_t *start; /* n_edges + 1 */
	size_t *idx;
};

static int svg_cables_build(const struct draw_layout *l, struct svg_cables *c)
{
	size_t *fill;

	c->start = calloc(l->n_edges + 2, sizeof(size_t));
	c->idx = malloc((l->n_cables + 1) * sizeof(size_t));
	fill = calloc(l->n_edges + 1, sizeof(size_t));
	if (!c->start || !c->idx || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n_cables; i++)
		if (l->cables[i].edge >= 0)
			c->start[l->cables[i].edge + 1]++;
	for (size_t e = 0; e < l->n_edges; e++)
		c->start[e + 1] += c->start[e];
	for (size_t i = 0; i < l->n_cables; i++) {
		int e = l->cables[i].edge;

		if (e >= 0)
			c->idx[c->start[e] + fill[e]++] = i;
	}
	free(fill);
	return 0;
}

#define SVG_TITLE_CABLES 12
static void svg_edge_title(struct text_buf *b, const struct draw_layout *l,
			   const struct svg_cables *c, size_t e)
{
	size_t n = c->start[e + 1] - c->start[e];

	text_buf_printf(b, "<title>");
	for (size_t k = 0; k < n && k < SVG_TITLE_CABLES; k++) {
		const struct draw_cable *x = &l->cables[c->idx[c->start[e] + k]];

		if (k)
			text_buf_putc(b, '\n');
		svg_escaped(b, l->nodes[x->a].name);
		text_buf_printf(b, "/%u - ", x->pa);
		svg_escaped(b, l->nodes[x->b].name);
		text_buf_printf(b, "/%u%s", x->pb, x->live ? "" : " (missing)");
		if (x->health_i >= 0) {
			text_buf_printf(b, ": %s: ", draw_health_name(x->health));
			svg_escaped(b, l->health[x->health_i].detail);
		}
	}
	if (n > SVG_TITLE_CABLES)
		text_buf_printf(b, "\n... %zu cables in all", n);
	text_buf_printf(b, "</title>");
}

static void svg_edges(struct text_buf *b, const struct draw_layout *l, const struct svg_cables *c)
{
	int dense = l->n_edges > 1500;

	text_buf_printf(b, "<g id=\"edges\"%s>\n",
			dense ? " stroke-opacity=\"0.35\"" : " stroke-opacity=\"0.85\"");
	for (size_t i = 0; i < l->n_edges; i++) {
		const struct draw_edge *e = &l->edges[i];
		unsigned n = e->live + e->missing;
		double w = (dense ? 0.6 : 1.2) + (n > 1 ? (n > 6 ? 5 : n - 1) * 0.8 : 0);
		static const char *const hcls[] = {"", " hr", " hd", " hf", " hx"};
		const char *cls = !e->live ? "c m" : e->missing ? "c p" : "c";
		struct draw_line g;

		draw_priv_line(l, e, &g);
		if (g.arc)
			text_buf_printf(b,
					"<path id=\"e%zu\" class=\"%s%s\" stroke-width=\"%.1f\" "
					"d=\"M%.1f %.1fQ%.1f %.1f %.1f %.1f\">",
					i, cls, hcls[e->health], w, g.x1, g.y1, g.cx, g.cy, g.x2,
					g.y2);
		else
			text_buf_printf(b,
					"<line id=\"e%zu\" class=\"%s%s\" stroke-width=\"%.1f\" "
					"x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">",
					i, cls, hcls[e->health], w, g.x1, g.y1, g.x2, g.y2);
		svg_edge_title(b, l, c, i);
		text_buf_printf(b, "%s\n", g.arc ? "</path>" : "</line>");
	}
	text_buf_printf(b, "</g>\n");
}

static void svg_box_title(struct text_buf *b, const struct draw_node *d)
{
	text_buf_printf(b, "<title>");
	svg_escaped(b, d->name);
	text_buf_printf(b, "\n%s 0x%016" PRIx64 ", %u port%s", d->type == 2 ? "switch" : "node",
			d->guid, d->ports, d->ports == 1 ? "" : "s");
	if (d->lid)
		text_buf_printf(b, "\nLID %u", d->lid);
	if (d->live < 0)
		text_buf_printf(b, "\nmissing: in the reference, not in the fabric");
	if (d->type == 2 && d->rank >= 0 && d->hosts)
		text_buf_printf(b, "\n%u host%s%s", d->hosts, d->hosts == 1 ? "" : "s",
				d->missing ? " (some missing)" : "");
	text_buf_printf(b, "</title>");
}

static void svg_boxes(struct text_buf *b, const struct draw_layout *l)
{
	text_buf_printf(b, "<g id=\"boxes\">\n");
	for (size_t i = 0; i < l->n_boxes; i++) {
		const struct draw_box *x = &l->boxes[i];
		const struct draw_node *d = &l->nodes[x->node];
		const char *cls = d->live < 0 ? "g" : x->kind == DRAW_SWITCH ? "s" : "h";
		double cx = x->x + x->w / 2;

		text_buf_printf(
		    b,
		    "<g class=\"%s\" id=\"b%zu\" data-n=\"%d\"><rect x=\"%.1f\" y=\"%.1f\" "
		    "width=\"%.1f\" height=\"%.1f\" rx=\"3\"/>",
		    cls, i, x->node, x->x, x->y, x->w, x->h);
		text_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", cx,
				x->y + 14);
		svg_escaped(b, x->label);
		text_buf_printf(b, "</text>");
		if (x->sub[0]) {
			text_buf_printf(b,
					"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
					"fill=\"#555\">",
					cx, x->y + 28);
			svg_escaped(b, x->sub);
			text_buf_printf(b, "</text>");
		}
		svg_box_title(b, d);
		text_buf_printf(b, "</g>\n");
	}
	text_buf_printf(b, "</g>\n");
}

static void svg_bands(struct text_buf *b, const struct draw_layout *l)
{
	for (size_t row = 0; row < l->n_rows; row++)
		text_buf_printf(b,
				"<rect class=\"band\" x=\"0\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\"/>\n",
				l->rows[row].y, l->width, l->rows[row].h);
}

static void svg_labels(struct text_buf *b, const struct draw_layout *l)
{
	for (size_t i = 0; i < l->n_labels; i++) {
		const struct draw_label *q = &l->labels[i];

		text_buf_printf(b, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\">",
				q->row ? "rowname" : "lbl", q->x + 1, q->y + q->h - 3);
		svg_escaped(b, q->text);
		text_buf_printf(b, "</text>\n");
	}
}

int draw_priv_svg(const struct draw_layout *l, struct text_buf *b)
{
	struct svg_cables c = {0};
	int rc = svg_cables_build(l, &c);

	if (!rc) {
		text_buf_printf(b,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"fabric\" "
				"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
				"font-family=\"DejaVu Sans Mono,monospace\" font-size=\"%d\">\n",
				l->width, l->height, l->width, l->height, DRAW_FONT);
		text_buf_printf(b, "%s<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
				svg_style);
		text_buf_printf(b,
				"<text x=\"12\" y=\"20\" font-size=\"15\" font-weight=\"bold\">");
		svg_escaped(b, l->title);
		text_buf_printf(b, "</text>\n<text x=\"12\" y=\"38\">");
		svg_escaped(b, l->summary);
		text_buf_printf(b, "</text>\n");
		svg_legend(b, 48, l->n_health > 0);
		svg_bands(b, l);
		svg_edges(b, l, &c);
		svg_labels(b, l);
		svg_boxes(b, l);
		text_buf_printf(b, "</svg>\n");
	}
	free(c.start);
	free(c.idx);
	return rc ? rc : b->failed ? -ENOMEM : 0;
}

int draw_svg(const struct draw_layout *l, char **out, size_t *len)
{
	struct text_buf b;
	int rc;

	text_buf_init(&b);
	text_buf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	rc = draw_priv_svg(l, &b);
	if (rc) {
		text_buf_fini(&b);
		return rc;
	}
	*out = text_buf_take(&b, len);
	return *out ? 0 : -ENOMEM;
}
