/*
 * topo_write.c - print a struct fabric as ibnetdiscover text, JSON or
 * Graphviz DOT.  Owns these output formats only: reads a const fabric and
 * an optional name map, returns a string; no I/O, no clock, no globals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/smp.h"
#include "mad/text.h"
#include "routing/topo_write.h"

#define TOPO_LABEL_MAX 256 /* bytes of a printed description or name */

/* A growing text buffer; on allocation failure it stops growing and sets
 * failed (the caller then returns -ENOMEM). */

struct topo_writer {
	const struct fabric *f;
	const struct topo_name **names; /* sorted by GUID */
	size_t n_names;
	struct text_buf b;
};

static const char *const topo_format_names[] = {
    [TOPO_FORMAT_IBNETDISCOVER] = "ibnetdiscover",
    [TOPO_FORMAT_JSON] = "json",
    [TOPO_FORMAT_DOT] = "dot",
};

int topo_format_from_name(const char *name, enum topo_format *fmt)
{
	for (size_t i = 0; i < sizeof(topo_format_names) / sizeof(topo_format_names[0]); i++) {
		if (!strcmp(name, topo_format_names[i])) {
			*fmt = (enum topo_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *topo_format_name(enum topo_format fmt)
{
	if ((size_t)fmt >= sizeof(topo_format_names) / sizeof(topo_format_names[0]))
		return "unknown";
	return topo_format_names[fmt];
}

const char *topo_names_find(const struct topo_names *names, uint64_t guid)
{
	for (size_t i = 0; names && i < names->n; i++)
		if (names->v[i].guid == guid)
			return names->v[i].name;
	return NULL;
}

/* ---- Names and labels --------------------------------------------------- */

static int topo_name_cmp(const void *a, const void *b)
{
	uint64_t x = (*(const struct topo_name *const *)a)->guid;
	uint64_t y = (*(const struct topo_name *const *)b)->guid;

	return x < y ? -1 : x > y;
}

static int topo_names_index(struct topo_writer *w, const struct topo_names *names)
{
	if (!names || !names->n)
		return 0;
	w->names = malloc(names->n * sizeof(*w->names));
	if (!w->names)
		return -ENOMEM;
	for (size_t i = 0; i < names->n; i++)
		w->names[i] = &names->v[i];
	w->n_names = names->n;
	qsort(w->names, w->n_names, sizeof(*w->names), topo_name_cmp);
	return 0;
}

static const char *topo_mapped_name(const struct topo_writer *w, uint64_t guid)
{
	struct topo_name key = {.guid = guid};
	const struct topo_name *k = &key, **hit;

	if (!w->n_names)
		return NULL;
	hit = bsearch(&k, w->names, w->n_names, sizeof(*w->names), topo_name_cmp);
	return hit && (*hit)->name ? (*hit)->name : NULL;
}

/* What a node is called: its mapped name, else its NodeDescription. */
static const char *topo_node_label(const struct topo_writer *w, int node)
{
	const struct fabric_node *n = &w->f->nodes[node];
	const char *name = topo_mapped_name(w, n->guid);

	return name ? name : n->desc;
}

/* A label safe inside "..." of the ibnetdiscover format: no double quote
 * (it would end the string) and no control characters. */
static const char *topo_ibnd_label(const struct topo_writer *w, int node, char *buf, size_t size)
{
	const char *s = topo_node_label(w, node);
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = c == '"' ? '\'' : (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	buf[i] = '\0';
	return buf;
}

/* ---- Shared facts ------------------------------------------------------- */

/* The port whose LID stands for (node, port): port 0 on a switch. */
static const struct fabric_port *topo_lid_port(const struct fabric *f, int node, uint8_t port)
{
	const struct fabric_node *n = &f->nodes[node];

	return &n->ports[fabric_is_switch(n) ? 0 : port];
}

/* A node's LID: a switch's port 0, else its lowest present port with one. */
static uint16_t topo_node_lid(const struct fabric_node *n)
{
	if (fabric_is_switch(n))
		return n->ports[0].lid;
	for (unsigned p = 1; p <= n->num_ports; p++)
		if (n->ports[p].present && n->ports[p].lid)
			return n->ports[p].lid;
	return 0;
}

static int topo_is_linked(const struct fabric_port *p)
{
	return p->remote_node != FABRIC_NONE;
}

/* Print each cable once: from the end that comes first in fabric order. */
static int topo_link_owner(int node, unsigned port, const struct fabric_port *p)
{
	return node < p->remote_node || (node == p->remote_node && port < p->remote_port);
}

/* PortInfo LinkWidthActive / LinkSpeedActive as ibnetdiscover prints them. */
static const char *topo_width_name(uint8_t width)
{
	switch (width) {
	case 1:
		return "1x";
	case 2:
		return "4x";
	case 4:
		return "8x";
	case 8:
		return "12x";
	case 16:
		return "2x";
	}
	return NULL;
}

static const char *topo_speed_name(uint8_t speed)
{
	switch (speed) {
	case 1:
		return "SDR";
	case 2:
		return "DDR";
	case 4:
		return "QDR";
	}
	return NULL;
}

static char topo_id_letter(const struct fabric_node *n)
{
	return n->type == NODE_TYPE_SWITCH ? 'S' : n->type == NODE_TYPE_ROUTER ? 'R' : 'H';
}

static const char *topo_type_word(const struct fabric_node *n)
{
	return n->type == NODE_TYPE_SWITCH ? "Switch" : n->type == NODE_TYPE_ROUTER ? "Rt" : "Ca";
}

static const char *topo_guid_key(const struct fabric_node *n)
{
	return n->type == NODE_TYPE_SWITCH   ? "switchguid"
	       : n->type == NODE_TYPE_ROUTER ? "rtguid"
					     : "caguid";
}

static const char *topo_type_json(const struct fabric_node *n)
{
	return n->type == NODE_TYPE_SWITCH   ? "switch"
	       : n->type == NODE_TYPE_ROUTER ? "router"
					     : "ca";
}

/* ---- ibnetdiscover ------------------------------------------------------ */

static void topo_ibnd_preamble(struct topo_writer *w)
{
	const struct fabric *f = w->f;

	text_buf_printf(&w->b, "#\n# Topology file: generated by nanosm\n#\n");
	if (f->sm_node != FABRIC_NONE && (size_t)f->sm_node < f->n_nodes) {
		const struct fabric_node *n = &f->nodes[f->sm_node];

		text_buf_printf(&w->b, "# Initiated from node %016" PRIx64 " port %016" PRIx64 "\n",
				n->guid,
				n->ports[f->sm_port <= n->num_ports ? f->sm_port : 0].guid);
	}
	text_buf_printf(&w->b, "\n");
}

/* vendid=, devid=, sysimgguid=, <type>guid= and the header line. */
static void topo_ibnd_header(struct topo_writer *w, int node)
{
	const struct fabric_node *n = &w->f->nodes[node];
	char label[TOPO_LABEL_MAX];

	text_buf_printf(&w->b,
			"vendid=0x%" PRIx32 "\ndevid=0x%" PRIx16 "\nsysimgguid=0x%" PRIx64 "\n",
			n->vendor_id, n->device_id, n->system_guid);
	text_buf_printf(&w->b, "%s=0x%" PRIx64, topo_guid_key(n), n->guid);
	if (fabric_is_switch(n))
		text_buf_printf(&w->b, "(%" PRIx64 ")", n->ports[0].guid);
	text_buf_printf(&w->b, "\n%s\t%u \"%c-%016" PRIx64 "\"\t\t# \"%s\"", topo_type_word(n),
			n->num_ports, topo_id_letter(n), n->guid,
			topo_ibnd_label(w, node, label, sizeof(label)));
	if (fabric_is_switch(n))
		text_buf_printf(&w->b, " base port 0 lid %u lmc %u", n->ports[0].lid,
				n->ports[0].lmc);
	text_buf_printf(&w->b, "\n");
}

/* "<id>"[<port>] and, for a CA or router end, its (portguid). */
static void topo_ibnd_end(struct topo_writer *w, int node, uint8_t port)
{
	const struct fabric_node *n = &w->f->nodes[node];

	text_buf_printf(&w->b, "\"%c-%016" PRIx64 "\"[%u]", topo_id_letter(n), n->guid, port);
	if (!fabric_is_switch(n))
		text_buf_printf(&w->b, "(%" PRIx64 ") ", n->ports[port].guid);
}

/* The remote end's description, LID and the link's width and speed. */
static void topo_ibnd_remote_note(struct topo_writer *w, const struct fabric_port *p)
{
	const char *width = topo_width_name(p->width_active);
	const char *speed = topo_speed_name(p->speed_active);
	char label[TOPO_LABEL_MAX];

	text_buf_printf(&w->b, "\"%s\" lid %u",
			topo_ibnd_label(w, p->remote_node, label, sizeof(label)),
			topo_lid_port(w->f, p->remote_node, p->remote_port)->lid);
	if (width && speed)
		text_buf_printf(&w->b, " %s%s", width, speed);
	text_buf_printf(&w->b, "\n");
}

/* Switch: [1]	"H-.."[1](..) 		# "host1" lid 1 4xSDR
 * CA:     [1](..) 	"S-.."[3]		# lid 3 lmc 0 "sw" lid 4 4xSDR */
static void topo_ibnd_port(struct topo_writer *w, int node, unsigned port)
{
	const struct fabric_node *n = &w->f->nodes[node];
	const struct fabric_port *p = &n->ports[port];

	if (fabric_is_switch(n))
		text_buf_printf(&w->b, "[%u]\t", port);
	else
		text_buf_printf(&w->b, "[%u](%" PRIx64 ") \t", port, p->guid);
	topo_ibnd_end(w, p->remote_node, p->remote_port);
	text_buf_printf(&w->b, "\t\t# ");
	if (!fabric_is_switch(n))
		text_buf_printf(&w->b, "lid %u lmc %u ", p->lid, p->lmc);
	topo_ibnd_remote_note(w, p);
}

static void topo_ibnd_node(struct topo_writer *w, int node)
{
	const struct fabric_node *n = &w->f->nodes[node];

	topo_ibnd_header(w, node);
	for (unsigned port = 1; port <= n->num_ports; port++)
		if (topo_is_linked(&n->ports[port]))
			topo_ibnd_port(w, node, port);
	text_buf_printf(&w->b, "\n");
}

/* ibnetdiscover's order: switches, then CAs, then routers. */
static int topo_ibnd_rank(const struct fabric_node *n)
{
	return n->type == NODE_TYPE_SWITCH ? 0 : n->type == NODE_TYPE_ROUTER ? 2 : 1;
}

static void topo_write_ibnd(struct topo_writer *w)
{
	topo_ibnd_preamble(w);
	for (int rank = 0; rank < 3; rank++)
		for (size_t i = 0; i < w->f->n_nodes; i++)
			if (topo_ibnd_rank(&w->f->nodes[i]) == rank)
				topo_ibnd_node(w, (int)i);
}

/* ---- JSON --------------------------------------------------------------- */

static void topo_json_string(struct text_buf *b, const char *s)
{
	text_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			text_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			text_buf_printf(b, "\\u%04x", c);
		else
			text_buf_putc(b, (char)c);
	}
	text_buf_putc(b, '"');
}

/* [{"port": 1, "guid": "0x..", "lid": 1, "lmc": 0}, ...]: the LID-owning
 * ports (a switch's port 0, each present CA/router port). */
static void topo_json_lids(struct topo_writer *w, const struct fabric_node *n)
{
	const char *sep = "";

	text_buf_printf(&w->b, "[");
	for (unsigned p = 0; p <= n->num_ports; p++) {
		const struct fabric_port *fp = &n->ports[p];

		if (fabric_is_switch(n) != (p == 0) || (!fabric_is_switch(n) && !fp->present))
			continue;
		text_buf_printf(&w->b,
				"%s{\"port\": %u, \"guid\": \"0x%016" PRIx64 "\", \"lid\": %u, "
				"\"lmc\": %u}",
				sep, p, fp->guid, fp->lid, fp->lmc);
		sep = ", ";
	}
	text_buf_printf(&w->b, "]");
}

static void topo_json_node(struct topo_writer *w, int node, const char *sep)
{
	const struct fabric_node *n = &w->f->nodes[node];

	text_buf_printf(&w->b, "    {\"guid\": \"0x%016" PRIx64 "\", \"type\": \"%s\", \"desc\": ",
			n->guid, topo_type_json(n));
	topo_json_string(&w->b, n->desc);
	text_buf_printf(&w->b, ", \"name\": ");
	topo_json_string(&w->b, topo_node_label(w, node));
	text_buf_printf(&w->b,
			", \"ports\": %u, \"lid\": %u, \"system_guid\": \"0x%016" PRIx64 "\", ",
			n->num_ports, topo_node_lid(n), n->system_guid);
	text_buf_printf(&w->b,
			"\"vendor_id\": \"0x%06" PRIx32 "\", \"device_id\": \"0x%04" PRIx16 "\", "
			"\"lids\": ",
			n->vendor_id, n->device_id);
	topo_json_lids(w, n);
	text_buf_printf(&w->b, "}%s\n", sep);
}

static void topo_json_link(struct topo_writer *w, int node, unsigned port, int first)
{
	const struct fabric_port *p = &w->f->nodes[node].ports[port];
	const char *width = topo_width_name(p->width_active);
	const char *speed = topo_speed_name(p->speed_active);

	text_buf_printf(&w->b, "%s    {\"a\": {\"guid\": \"0x%016" PRIx64 "\", \"port\": %u}, ",
			first ? "" : ",\n", w->f->nodes[node].guid, port);
	text_buf_printf(&w->b, "\"b\": {\"guid\": \"0x%016" PRIx64 "\", \"port\": %u}, ",
			w->f->nodes[p->remote_node].guid, p->remote_port);
	text_buf_printf(&w->b, "\"width\": \"%s\", \"speed\": \"%s\"}", width ? width : "",
			speed ? speed : "");
}

static void topo_write_json(struct topo_writer *w)
{
	const struct fabric *f = w->f;
	int first = 1;

	text_buf_printf(&w->b, "{\n  \"nodes\": [\n");
	for (size_t i = 0; i < f->n_nodes; i++)
		topo_json_node(w, (int)i, i + 1 < f->n_nodes ? "," : "");
	text_buf_printf(&w->b, "  ],\n  \"links\": [\n");
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 1; p <= n->num_ports; p++) {
			if (!topo_is_linked(&n->ports[p]) ||
			    !topo_link_owner((int)i, p, &n->ports[p]))
				continue;
			topo_json_link(w, (int)i, p, first);
			first = 0;
		}
	}
	text_buf_printf(&w->b, "%s  ]\n}\n", first ? "" : "\n");
}

/* ---- Graphviz DOT ------------------------------------------------------- */

static void topo_dot_escaped(struct text_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			text_buf_printf(b, "\\%c", c);
		else
			text_buf_putc(b, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
}

static const char *topo_dot_shape(const struct fabric_node *n)
{
	return n->type == NODE_TYPE_SWITCH   ? "box"
	       : n->type == NODE_TYPE_ROUTER ? "hexagon"
					     : "ellipse";
}

/* "0x..." [shape=box, label="sw1\nlid 5"]; a node without a description
 * is labelled with its GUID. */
static void topo_dot_node(struct topo_writer *w, int node)
{
	const struct fabric_node *n = &w->f->nodes[node];
	const char *label = topo_node_label(w, node);

	text_buf_printf(&w->b, "\t\"0x%016" PRIx64 "\" [shape=%s, label=\"", n->guid,
			topo_dot_shape(n));
	if (label[0])
		topo_dot_escaped(&w->b, label);
	else
		text_buf_printf(&w->b, "0x%016" PRIx64, n->guid);
	text_buf_printf(&w->b, "\\nlid %u\"];\n", topo_node_lid(n));
}

static void topo_dot_link(struct topo_writer *w, int node, unsigned port)
{
	const struct fabric_port *p = &w->f->nodes[node].ports[port];

	text_buf_printf(&w->b,
			"\t\"0x%016" PRIx64 "\" -- \"0x%016" PRIx64 "\" [taillabel=\"%u\", "
			"headlabel=\"%u\"];\n",
			w->f->nodes[node].guid, w->f->nodes[p->remote_node].guid, port,
			p->remote_port);
}

static void topo_write_dot(struct topo_writer *w)
{
	const struct fabric *f = w->f;

	text_buf_printf(&w->b, "graph fabric {\n\tnode [fontsize=10];\n\tedge [fontsize=8];\n");
	for (size_t i = 0; i < f->n_nodes; i++)
		topo_dot_node(w, (int)i);
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		for (unsigned p = 1; p <= n->num_ports; p++)
			if (topo_is_linked(&n->ports[p]) &&
			    topo_link_owner((int)i, p, &n->ports[p]))
				topo_dot_link(w, (int)i, p);
	}
	text_buf_printf(&w->b, "}\n");
}

/* ---- Entry point -------------------------------------------------------- */

int topo_write(const struct fabric *f, enum topo_format fmt, const struct topo_names *names,
	       char **out, size_t *len)
{
	struct topo_writer w = {.f = f};

	*out = NULL;
	*len = 0;
	if ((size_t)fmt >= sizeof(topo_format_names) / sizeof(topo_format_names[0]))
		return -EINVAL;
	text_buf_init(&w.b);
	if (topo_names_index(&w, names) < 0) {
		free(w.names);
		return -ENOMEM;
	}
	if (fmt == TOPO_FORMAT_IBNETDISCOVER)
		topo_write_ibnd(&w);
	else if (fmt == TOPO_FORMAT_JSON)
		topo_write_json(&w);
	else
		topo_write_dot(&w);
	free(w.names);
	*out = text_buf_take(&w.b, len);
	return *out ? 0 : -ENOMEM;
}
