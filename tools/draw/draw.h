/*
 * tools/draw/draw.h - a picture of the fabric a person can read at any size:
 * nanosm's own layout (no Graphviz), written as SVG or as one
 * self-contained HTML page.  Used by `nanosmctl topology --format svg|html`
 * and `nanosm-route --draw svg|html`.
 *
 * DOC: draw_layout places the fabric: switches in rows by rank (a fat tree
 * by distance from its leaves, the switches with hosts, leaves at the
 * bottom; any other fabric by hop distance from its most central switch,
 * that switch on top), each row ordered to keep cables short (barycentres,
 * a few sweeps up and down) and wrapped into sub-rows when it is wider
 * than the picture may be.  Hosts are folded into their switch as a count
 * unless expanded (all, or chosen switches); parallel cables become one line
 * with a count; with a reference fabric (an earlier topology), the cables
 * and nodes it has that the live fabric lacks are drawn as missing.  Every
 * box has its own slot, every label sits inside its box or is left out, so
 * no two labels overlap.  draw_svg and draw_html write the layout out.
 * Pure: const fabric in, plain data out; no I/O, clock or globals.
 * Deterministic: the same fabric and options give the same bytes.
 */
#ifndef NANOSM_TOOLS_DRAW_DRAW_H
#define NANOSM_TOOLS_DRAW_DRAW_H

#include <stddef.h>
#include <stdint.h>

#include "routing/fabric.h"

#define DRAW_MAX_WIDTH 2400 /* default bound of the picture's width, px */

/* What the performance manager says of a cable (`nanosmctl health`). */
enum draw_health {
	DRAW_HEALTH_NONE = 0, /* not listed */
	DRAW_HEALTH_RISING,   /* error counters rose, no verdict */
	DRAW_HEALTH_DEGRADING,
	DRAW_HEALTH_FLAPPING,
	DRAW_HEALTH_FAILING,
};

struct draw_health_cable {
	uint64_t guid_a, guid_b; /* node GUIDs of the two ends */
	uint8_t port_a, port_b;
	enum draw_health health;
	char detail[320]; /* the counters that rose, as health says them */
};

/* The cables `nanosmctl health` lists ("cable NAME 0x..../P <-> NAME
 * 0x..../P: VERDICT" and the indented lines after it), into a malloc'ed
 * array (caller frees).  Lines it does not know are skipped.  0 or
 * -ENOMEM. */
int draw_health_parse(const char *text, size_t len, struct draw_health_cable **out, size_t *n);
const char *draw_health_name(enum draw_health h);

struct draw_opts {
	int expand_all;		/* every host its own box */
	const uint64_t *expand; /* node GUIDs of switches whose hosts are drawn */
	size_t n_expand;
	const struct fabric *reference; /* earlier topology, or NULL */
	unsigned max_width;		/* 0: DRAW_MAX_WIDTH */
	const char *title;		/* NULL: "fabric" */
	const struct draw_health_cable *health; /* cables coloured by health */
	size_t n_health;
};

enum draw_box_kind {
	DRAW_SWITCH = 0,
	DRAW_HOST,
};

/* A node of the drawing: every node of the live fabric and every node only
 * the reference has (ghost: live == -1). */
struct draw_node {
	uint64_t guid;
	int live;	  /* index in the live fabric, -1: missing */
	uint8_t type;	  /* enum node_type */
	char name[65];	  /* NodeDescription (the name the topology gives) */
	uint16_t lid;	  /* switch: port 0's LID; host: its first port's; 0 */
	uint8_t ports;	  /* NumPorts */
	int rank;	  /* switches: display row; hosts: their switch's */
	int sw;		  /* hosts: index of the switch node they hang from, -1 */
	int box;	  /* index in boxes, -1 when folded into its switch */
	unsigned hosts;	  /* switches: hosts hanging from it */
	unsigned missing; /* switches: of those, how many are missing */
};

struct draw_box {
	int node; /* index in nodes */
	enum draw_box_kind kind;
	double x, y, w, h; /* top-left corner and size, px */
	char label[32];	   /* first line (name, cut with "~" when long) */
	char sub[32];	   /* second line ("32 hosts", "LID 7"), may be "" */
};

/* One cable of the fabric, live or only in the reference. */
struct draw_cable {
	int a, b;	/* node indices */
	uint8_t pa, pb; /* port numbers */
	uint8_t live;	/* 0: in the reference only (missing / down) */
	int edge;	/* index in edges, -1 when not drawn (a folded host) */
	uint8_t health; /* enum draw_health */
	int health_i;	/* index in the options' health, -1 */
};

/* The cables between two boxes, drawn as one line. */
struct draw_edge {
	int a, b;	  /* box indices, a < b */
	unsigned live;	  /* live cables */
	unsigned missing; /* cables in the reference only */
	int label;	  /* index in labels of its count / port label, -1 */
	uint8_t health;	  /* the worst of its cables' (enum draw_health) */
};

/* A label outside the boxes (a bundle's count, a row's name, port
 * numbers), placed only where it overlaps nothing. */
struct draw_label {
	double x, y, w, h; /* its box, px; text drawn at (x, y + h - 3) */
	char text[48];
	int row; /* 1 for a row name, else 0 */
};

struct draw_row {
	double y, h;   /* the band, px */
	char name[48]; /* "leaves", "cores", "distance 2", ... */
};

struct draw_layout {
	struct draw_node *nodes;
	size_t n_nodes;
	struct draw_box *boxes;
	size_t n_boxes;
	struct draw_cable *cables;
	size_t n_cables;
	struct draw_edge *edges;
	size_t n_edges;
	struct draw_label *labels;
	size_t n_labels, cap_labels;
	struct draw_row *rows;
	size_t n_rows;
	double width, height;
	int tree; /* 1: ranked as a fat tree */
	char title[96];
	char summary[160];	 /* "320 switches, 1024 hosts, 3072 cables (2 missing)" */
	unsigned dropped_labels; /* labels left out for lack of room */
	const struct draw_health_cable *health; /* borrowed from the options */
	size_t n_health, n_unhealthy;		/* cables with a health entry */
};

/* Lay f out.  Returns 0, or -ENOMEM / -EINVAL with err set. */
int draw_layout(const struct fabric *f, const struct draw_opts *o, struct draw_layout *out,
		char *err, size_t errlen);
void draw_layout_fini(struct draw_layout *l);

/* The node GUID of the switch a person named: its NodeDescription, or its
 * node GUID (0x...).  Returns 0, or -ENOENT with err set. */
int draw_find_switch(const struct fabric *f, const char *name, uint64_t *guid, char *err,
		     size_t errlen);

/* Do two boxes (x, y, w, h) overlap (touching edges do not)? */
int draw_overlap(double ax, double ay, double aw, double ah, double bx, double by, double bw,
		 double bh);

/* The layout as one SVG document.  *out malloc'ed, NUL-terminated.
 * Returns 0 or -ENOMEM. */
int draw_svg(const struct draw_layout *l, char **out, size_t *len);

/* The layout as one self-contained HTML page: the SVG, the nodes' facts
 * (GUIDs, LIDs, ports) for hovering, each switch's hosts for clicking, and,
 * when lfts is given and holds at most DRAW_HTML_MAX_LFT entries, the
 * forwarding tables so that choosing two hosts highlights the route they
 * give.  f is the live fabric the layout was made from.  Returns 0 or
 * -ENOMEM. */
#define DRAW_HTML_MAX_LFT (8u << 20)
int draw_html(const struct fabric *f, const struct draw_layout *l, const struct lft_set *lfts,
	      char **out, size_t *len);

#endif
