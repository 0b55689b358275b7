/*
 * tools/draw/html.c - the layout as one self-contained HTML page (draw.h):
 * the SVG, the facts of every node and cable as JSON, the forwarding
 * tables (base64, one string per switch) when they fit, and a short
 * script: hover for details, click a switch for its hosts, choose two
 * hosts to see the route the tables give.  No network, no external file.
 * No I/O.
 */
#include "tools/draw/draw_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "mad/text.h"

/* A JSON string (quotes included); '<' escaped so no "</script>" appears. */
static void html_json_string(struct text_buf *b, const char *s)
{
	text_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			text_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			text_buf_printf(b, "\\u%04x", c);
		else
			text_buf_putc(b, (char)c);
	}
	text_buf_putc(b, '"');
}

static void html_base64(struct text_buf *b, const uint8_t *p, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		text_buf_putc(b, a[v >> 18 & 63]);
		text_buf_putc(b, a[v >> 12 & 63]);
		text_buf_putc(b, i + 1 < n ? a[v >> 6 & 63] : '=');
		text_buf_putc(b, i + 2 < n ? a[v & 63] : '=');
	}
}

/* nodes: [guid, type, name, lid, live, sw, box, row, [[port, lid], ...]] */
static void html_nodes(struct text_buf *b, const struct fabric *f, const struct draw_layout *l,
		       const int *row_of_node)
{
	text_buf_printf(b, "\"nodes\":[");
	for (size_t i = 0; i < l->n_nodes; i++) {
		const struct draw_node *d = &l->nodes[i];

		text_buf_printf(b, "%s[\"0x%016" PRIx64 "\",%u,", i ? ",\n" : "", d->guid, d->type);
		html_json_string(b, d->name);
		text_buf_printf(b, ",%u,%d,%d,%d,%d,[", d->lid, d->live >= 0, d->sw, d->box,
				row_of_node[i]);
		if (d->live >= 0 && d->type != 2) {
			const struct fabric_node *n = &f->nodes[d->live];
			int first = 1;

			for (unsigned p = 1; p <= n->num_ports; p++)
				if (n->ports[p].lid) {
					text_buf_printf(b, "%s[%u,%u]", first ? "" : ",", p,
							n->ports[p].lid);
					first = 0;
				}
		}
		text_buf_printf(b, "]]");
	}
	text_buf_printf(b, "],\n");
}

static void html_cables(struct text_buf *b, const struct draw_layout *l)
{
	text_buf_printf(b, "\"cables\":[");
	for (size_t i = 0; i < l->n_cables; i++) {
		const struct draw_cable *c = &l->cables[i];

		text_buf_printf(b, "%s[%d,%u,%d,%u,%u,%d]", i ? "," : "", c->a, c->pa, c->b, c->pb,
				c->live, c->edge);
	}
	text_buf_printf(b, "],\n\"rows\":[");
	for (size_t r = 0; r < l->n_rows; r++) {
		if (r)
			text_buf_putc(b, ',');
		html_json_string(b, l->rows[r].name);
	}
	text_buf_printf(b, "],\n");
}

/* "lft": {"top": N, "sw": {"node": "base64", ...}} or null with "why". */
static void html_lfts(struct text_buf *b, const struct lft_set *s)
{
	size_t entries = 0;

	for (size_t i = 0; s && i < s->n; i++)
		entries += (size_t)s->tables[i].top + 1;
	if (!s || !s->n) {
		text_buf_printf(b, "\"lft\":null,\"why\":\"no forwarding tables were given\"\n");
		return;
	}
	if (entries > DRAW_HTML_MAX_LFT) {
		text_buf_printf(
		    b,
		    "\"lft\":null,\"why\":\"the forwarding tables (%zu entries) are too "
		    "big to embed (at most %u): use nanosm-verify or ibtracert\"\n",
		    entries, DRAW_HTML_MAX_LFT);
		return;
	}
	text_buf_printf(b, "\"lft\":{\"sw\":{");
	for (size_t i = 0; i < s->n; i++) {
		const struct lft *t = &s->tables[i];

		text_buf_printf(b, "%s\"%d\":\"", i ? ",\n" : "", t->node);
		html_base64(b, t->port, (size_t)t->top + 1);
		text_buf_putc(b, '"');
	}
	text_buf_printf(b, "}},\"why\":\"\"\n");
}

static int html_rows_of_nodes(const struct draw_layout *l, int **out)
{
	int *r = malloc((l->n_nodes + 1) * sizeof(int));

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_nodes; i++) {
		int box = l->nodes[i].box;

		r[i] = -1;
		if (box < 0 && l->nodes[i].sw >= 0)
			box = l->nodes[l->nodes[i].sw].box;
		for (size_t k = 0; box >= 0 && k < l->n_rows; k++)
			if (l->boxes[box].y >= l->rows[k].y &&
			    l->boxes[box].y < l->rows[k].y + l->rows[k].h)
				r[i] = (int)k;
	}
	*out = r;
	return 0;
}

extern const char draw_html_head[], draw_html_script[];

int draw_html(const struct fabric *f, const struct draw_layout *l, const struct lft_set *lfts,
	      char **out, size_t *len)
{
	struct text_buf b;
	int *rows = NULL, rc;

	text_buf_init(&b);
	rc = html_rows_of_nodes(l, &rows);
	if (!rc) {
		text_buf_printf(&b, "%s", draw_html_head);
		rc = draw_priv_svg(l, &b);
	}
	if (!rc) {
		text_buf_printf(&b, "</div>\n<script type=\"application/json\" id=\"data\">{\n");
		html_nodes(&b, f, l, rows);
		html_cables(&b, l);
		html_lfts(&b, lfts);
		text_buf_printf(&b, "}</script>\n<script>\n%s</script>\n</body>\n</html>\n",
				draw_html_script);
	}
	free(rows);
	if (rc || b.failed) {
		text_buf_fini(&b);
		return -ENOMEM;
	}
	*out = text_buf_take(&b, len);
	return *out ? 0 : -ENOMEM;
}
