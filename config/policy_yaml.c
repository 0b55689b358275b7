/*
 * policy_yaml.c - YAML text -> struct policy_doc tree, through libyaml's
 * event parser.  The only file in nanosm that includes <yaml.h>; knows
 * nothing of the policy's keys (policy_build.c does).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/policy_doc.h"

struct policy_yaml {
	yaml_parser_t parser;
	const char *text, *name;
	size_t len;
	char *err;
	size_t errlen;
	struct policy_doc *root;
	struct policy_doc *open[POLICY_DOC_MAX_DEPTH]; /* lists and maps not yet ended */
	size_t depth;
	int documents;
};

static int policy_yaml_fail(struct policy_yaml *y, unsigned line, unsigned col, const char *fmt,
			    ...) __attribute__((format(printf, 4, 5)));

/* Write "name:line:col: <fmt>" into err.  Returns -EINVAL. */
static int policy_yaml_fail(struct policy_yaml *y, unsigned line, unsigned col, const char *fmt,
			    ...)
{
	va_list ap;
	int n;

	if (!y->err || !y->errlen)
		return -EINVAL;
	n = snprintf(y->err, y->errlen, "%s:%u:%u: ", y->name, line, col);
	if (n >= 0 && (size_t)n < y->errlen) {
		va_start(ap, fmt);
		vsnprintf(y->err + n, y->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	for (char *c = y->err; *c; c++) /* one line, whatever it quotes */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -EINVAL;
}

static int policy_yaml_fail_at(struct policy_yaml *y, yaml_mark_t m, const char *what,
			       const char *detail)
{
	return policy_yaml_fail(y, (unsigned)m.line + 1, (unsigned)m.column + 1, "%s%s", what,
				detail);
}

/* 1-based line and column of a byte offset (reader errors carry no mark). */
static void policy_yaml_locate(const struct policy_yaml *y, size_t offset, unsigned *line,
			       unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < offset && i < y->len; i++) {
		if (y->text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* libyaml refused the text: say where and why, in its words. */
static int policy_yaml_syntax(struct policy_yaml *y)
{
	const yaml_parser_t *ps = &y->parser;
	const char *problem = ps->problem ? ps->problem : "malformed YAML";
	const char *hint = "";
	unsigned line, col;

	if (ps->error == YAML_MEMORY_ERROR)
		return -ENOMEM;
	if (ps->error == YAML_READER_ERROR) {
		policy_yaml_locate(y, ps->problem_offset, &line, &col);
		return policy_yaml_fail(y, line, col, "%s (the file must be UTF-8 text)", problem);
	}
	if (ps->problem_mark.index < y->len && y->text[ps->problem_mark.index] == '\t')
		hint = " (indent with spaces: YAML does not allow tabs)";
	line = (unsigned)ps->problem_mark.line + 1;
	col = (unsigned)ps->problem_mark.column + 1;
	if (ps->context)
		return policy_yaml_fail(y, line, col, "YAML syntax: %s, %s at %u:%u%s", problem,
					ps->context, (unsigned)ps->context_mark.line + 1,
					(unsigned)ps->context_mark.column + 1, hint);
	return policy_yaml_fail(y, line, col, "YAML syntax: %s%s", problem, hint);
}

/* Append kid to parent's kids (the array doubles at 4, 8, 16, ...). */
static int policy_yaml_adopt(struct policy_doc *parent, struct policy_doc *kid)
{
	size_t n = parent->n;

	if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
		struct policy_doc **kids = realloc(parent->kids, (n ? 2 * n : 4) * sizeof(*kids));

		if (!kids)
			return -ENOMEM;
		parent->kids = kids;
	}
	parent->kids[parent->n++] = kid;
	return 0;
}

/* A new node at the event's start, attached to the open list/map (or made
 * the root) at once, so freeing the root always frees it. */
static int policy_yaml_node(struct policy_yaml *y, const yaml_event_t *ev,
			    enum policy_doc_kind kind, struct policy_doc **out)
{
	struct policy_doc *d = calloc(1, sizeof(*d));
	int rc = 0;

	if (!d)
		return -ENOMEM;
	d->kind = kind;
	d->line = (unsigned)ev->start_mark.line + 1;
	d->col = (unsigned)ev->start_mark.column + 1;
	if (y->depth)
		rc = policy_yaml_adopt(y->open[y->depth - 1], d);
	else
		y->root = d;
	if (rc < 0) {
		free(d);
		return rc;
	}
	*out = d;
	return 0;
}

/* Anchors, aliases and tags are YAML features a policy does not need; they
 * would let one file mean two things, so they are refused. */
static int policy_yaml_plain_node(struct policy_yaml *y, const yaml_event_t *ev,
				  const yaml_char_t *anchor, const yaml_char_t *tag)
{
	if (anchor)
		return policy_yaml_fail_at(y, ev->start_mark, "anchors are not supported: &",
					   (const char *)anchor);
	if (tag)
		return policy_yaml_fail_at(y, ev->start_mark,
					   "tags are not supported: ", (const char *)tag);
	return 0;
}

static int policy_yaml_scalar(struct policy_yaml *y, const yaml_event_t *ev)
{
	struct policy_doc *d;
	int rc = policy_yaml_plain_node(y, ev, ev->data.scalar.anchor, ev->data.scalar.tag);

	if (rc == 0)
		rc = policy_yaml_node(y, ev, POLICY_DOC_SCALAR, &d);
	if (rc < 0)
		return rc;
	d->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	d->len = ev->data.scalar.length;
	d->text = malloc(d->len + 1);
	if (!d->text)
		return -ENOMEM;
	memcpy(d->text, ev->data.scalar.value, d->len);
	d->text[d->len] = '\0';
	return 0;
}

static int policy_yaml_open(struct policy_yaml *y, const yaml_event_t *ev,
			    enum policy_doc_kind kind)
{
	const yaml_char_t *anchor =
	    kind == POLICY_DOC_MAP ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
	const yaml_char_t *tag =
	    kind == POLICY_DOC_MAP ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
	struct policy_doc *d;
	int rc = policy_yaml_plain_node(y, ev, anchor, tag);

	if (rc == 0 && y->depth == POLICY_DOC_MAX_DEPTH)
		rc = policy_yaml_fail_at(y, ev->start_mark,
					 "nested too deep (a policy needs at most 5 levels)", "");
	if (rc == 0)
		rc = policy_yaml_node(y, ev, kind, &d);
	if (rc < 0)
		return rc;
	y->open[y->depth++] = d;
	return 0;
}

/* One parser event.  Returns 1 at the end of the stream, 0 to go on, or a
 * negative errno. */
static int policy_yaml_event(struct policy_yaml *y, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
		return 1;
	case YAML_DOCUMENT_START_EVENT:
		if (y->documents++)
			return policy_yaml_fail_at(
			    y, ev->start_mark,
			    "only one YAML document per file (remove this '---')", "");
		return 0;
	case YAML_ALIAS_EVENT:
		return policy_yaml_fail_at(y, ev->start_mark, "aliases are not supported: *",
					   (const char *)ev->data.alias.anchor);
	case YAML_SCALAR_EVENT:
		return policy_yaml_scalar(y, ev);
	case YAML_SEQUENCE_START_EVENT:
		return policy_yaml_open(y, ev, POLICY_DOC_LIST);
	case YAML_MAPPING_START_EVENT:
		return policy_yaml_open(y, ev, POLICY_DOC_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (y->depth)
			y->depth--;
		return 0;
	default: /* stream start, document end, no event */
		return 0;
	}
}

int policy_yaml_read(const char *text, size_t len, const char *name, struct policy_doc **root,
		     char *err, size_t errlen)
{
	struct policy_yaml y = {
	    .text = text, .len = len, .name = name ? name : "policy", .err = err, .errlen = errlen};
	int rc = 0;

	*root = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (!yaml_parser_initialize(&y.parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&y.parser, (const unsigned char *)text, len);
	while (rc == 0) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&y.parser, &ev)) {
			rc = policy_yaml_syntax(&y);
			break;
		}
		rc = policy_yaml_event(&y, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&y.parser);
	if (rc < 0) {
		policy_yaml_free(y.root);
		return rc;
	}
	*root = y.root;
	return 0;
}

void policy_yaml_free(struct policy_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		policy_yaml_free(d->kids[i]);
	free(d->kids);
	free(d->text);
	free(d);
}
