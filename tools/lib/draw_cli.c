/*
 * tools/lib/draw_cli.c - the picture options of nanosmctl and nanosm-route,
 * and drawing with them (draw_cli.h).
 */
#include "tools/lib/draw_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "routing/topo_file.h"

int draw_cli_takes_value(const char *opt)
{
	if (!strcmp(opt, "--expand"))
		return 0;
	if (!strcmp(opt, "--expand-switch") || !strcmp(opt, "--reference") ||
	    !strcmp(opt, "--width"))
		return 1;
	return -1;
}

int draw_cli_option(struct draw_cli *c, const char *opt, const char *val, char *err, size_t errlen)
{
	char *end;
	unsigned long w;

	if (!strcmp(opt, "--expand")) {
		c->expand_all = 1;
	} else if (!strcmp(opt, "--reference")) {
		c->reference = val;
	} else if (!strcmp(opt, "--expand-switch")) {
		if (c->n_expand == DRAW_CLI_EXPAND_MAX)
			return text_err(err, errlen, -EINVAL,
					"--expand-switch: at most %d (--expand draws every host)",
					DRAW_CLI_EXPAND_MAX);
		c->expand[c->n_expand++] = val;
	} else if (!strcmp(opt, "--width")) {
		errno = 0;
		w = strtoul(val, &end, 10);
		if (errno || *end || end == val || w < 400 || w > 100000)
			return text_err(err, errlen, -EINVAL,
					"--width: %s is not a width in pixels (400-100000)", val);
		c->width = (unsigned)w;
	} else {
		return text_err(err, errlen, -EINVAL, "%s is no picture option", opt);
	}
	return 0;
}

int draw_cli_has_options(const struct draw_cli *c)
{
	return c->expand_all || c->n_expand || c->reference || c->width;
}

int draw_cli_draw(const struct draw_cli *c, const struct fabric *f, const struct lft_set *s,
		  const struct draw_health_cable *health, size_t n_health, const char *title,
		  FILE *out, char *err, size_t errlen)
{
	struct draw_opts o = {.expand_all = c->expand_all,
			      .max_width = c->width,
			      .title = title,
			      .health = health,
			      .n_health = n_health};
	uint64_t guids[DRAW_CLI_EXPAND_MAX];
	struct draw_layout l;
	struct fabric ref;
	char *text = NULL;
	size_t len = 0;
	int rc = 0;

	fabric_init(&ref);
	for (size_t i = 0; i < c->n_expand && !rc; i++)
		rc = draw_find_switch(f, c->expand[i], &guids[i], err, errlen);
	if (!rc && c->reference)
		rc = topo_load(c->reference, &ref, err, errlen);
	o.expand = guids;
	o.n_expand = c->n_expand;
	o.reference = c->reference ? &ref : NULL;
	if (!rc)
		rc = draw_layout(f, &o, &l, err, errlen);
	if (!rc) {
		rc = c->format && !strcmp(c->format, "html") ? draw_html(f, &l, s, &text, &len)
							     : draw_svg(&l, &text, &len);
		if (rc)
			text_err(err, errlen, rc, "out of memory drawing the fabric");
		draw_layout_fini(&l);
	}
	if (!rc && (fwrite(text, 1, len, out) != len || fflush(out)))
		rc = text_err(err, errlen, -EIO, "writing the picture: %s", strerror(errno));
	free(text);
	fabric_fini(&ref);
	return rc ? -1 : 0;
}
