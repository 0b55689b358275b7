/*
 * tools/lib/draw_cli.h - the picture options the tools share (`nanosmctl
 * topology --format svg|html` and `nanosm-route --draw svg|html`): read
 * them, then lay a fabric out and write the picture (tools/draw) to a
 * stream.  Tool code: it opens the --reference file and writes the output.
 */
#ifndef NANOSM_TOOLS_LIB_DRAW_CLI_H
#define NANOSM_TOOLS_LIB_DRAW_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "tools/draw/draw.h"

#define DRAW_CLI_EXPAND_MAX 64

struct draw_cli {
	const char *format;			 /* "svg" or "html"; NULL: no picture asked for */
	const char *reference;			 /* --reference FILE */
	const char *expand[DRAW_CLI_EXPAND_MAX]; /* --expand-switch NAME|GUID */
	size_t n_expand;
	int expand_all; /* --expand */
	unsigned width; /* --width PX, 0: the default */
};

/* One option: opt is "--expand" (val unused), "--expand-switch",
 * "--reference" or "--width".  0, or -EINVAL with err set (a bad value,
 * too many switches, an unknown option). */
int draw_cli_option(struct draw_cli *c, const char *opt, const char *val, char *err, size_t errlen);
/* Does opt take a value?  (-1: it is no picture option.) */
int draw_cli_takes_value(const char *opt);
/* Any option given that only a picture uses? */
int draw_cli_has_options(const struct draw_cli *c);

/* Lay f out as c says (s: its tables for the HTML routes, may be NULL;
 * health: cables to colour, may be NULL) and write the picture to out.
 * 0, or -1 with err set (a switch c names is not in f, the reference
 * cannot be read, no memory, a write error). */
int draw_cli_draw(const struct draw_cli *c, const struct fabric *f, const struct lft_set *s,
		  const struct draw_health_cable *health, size_t n_health, const char *title,
		  FILE *out, char *err, size_t errlen);

#endif
