/*
 * sm/daemon/control_proto.c - owns the table of control commands and the checks of
 * a request's words against it (user form for nanosmctl, wire form for
 * the daemon).  Pure: no I/O, no logging; the command handlers live in
 * sm/daemon/control.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"
#include "sm/daemon/control_proto.h"

static const struct control_grammar control_grammar_table[] = {
    {"status", 0, 0, {NULL}, 0, "status"},
    {"sweep", 0, 0, {NULL}, 0, "sweep"},
    {"reload", 0, 0, {"--force"}, 0, "reload [--force]"},
    {"plan", 1, 1, {"-v"}, CONTROL_GRAMMAR_BODY, "plan [-v] FILE"},
    {"topology", 0, 1, {NULL}, 0, "topology [ibnetdiscover|json|dot]"},
    {"lfts", 0, 2, {NULL}, 0, "lfts [SWITCH] [LID|FIRST-LAST]"},
    {"lids", 0, 0, {NULL}, 0, "lids"},
    {"routes", 2, 2, {NULL}, 0, "routes SRC DST"},
    {"sls", 0, 1, {NULL}, 0, "sls [SRC]"},
    {"metrics", 0, 0, {NULL}, 0, "metrics"},
    {"health", 0, 0, {NULL}, 0, "health"},
};

#define CONTROL_GRAMMAR_N (sizeof(control_grammar_table) / sizeof(control_grammar_table[0]))

/* The formats "topology" takes on the wire (routing/topo_write.c makes
 * them); nanosmctl also offers svg, which it makes from dot itself. */
static const char *const control_topology_formats[] = {"ibnetdiscover", "json", "dot"};

int control_grammar_topology_format(const char *word)
{
	for (size_t i = 0;
	     word && i < sizeof(control_topology_formats) / sizeof(*control_topology_formats); i++)
		if (!strcmp(control_topology_formats[i], word))
			return 1;
	return 0;
}

const struct control_grammar *control_grammar_find(const char *name)
{
	for (size_t i = 0; name && i < CONTROL_GRAMMAR_N; i++)
		if (!strcmp(control_grammar_table[i].name, name))
			return &control_grammar_table[i];
	return NULL;
}

const char *control_grammar_names(char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < CONTROL_GRAMMAR_N && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
					control_grammar_table[i].name);
	return buf;
}

static int control_grammar_is_option(const struct control_grammar *g, const char *word)
{
	for (int i = 0; i < CONTROL_MAX_OPTIONS && g->options[i]; i++)
		if (!strcmp(g->options[i], word))
			return 1;
	return 0;
}

int control_grammar_has_option(char *const *args, const char *option)
{
	for (; args && *args; args++)
		if (!strcmp(*args, option))
			return 1;
	return 0;
}

const struct control_grammar *control_grammar_check(char *const *word, int n, char *err,
						    size_t errlen)
{
	const struct control_grammar *g;
	char names[256];
	int args = 0;

	if (n < 1) {
		text_err(err, errlen, -EINVAL, "empty request (commands: %s)",
			 control_grammar_names(names, sizeof(names)));
		return NULL;
	}
	g = control_grammar_find(word[0]);
	if (!g) {
		text_err(err, errlen, -EINVAL, "unknown command '%.64s' (commands: %s)", word[0],
			 control_grammar_names(names, sizeof(names)));
		return NULL;
	}
	for (int i = 1; i < n; i++) {
		if (control_grammar_is_option(g, word[i]))
			continue;
		if (!strncmp(word[i], "--", 2) && word[i][2]) {
			text_err(err, errlen, -EINVAL, "%s: unknown option '%.64s' (usage: %s)",
				 g->name, word[i], g->usage);
			return NULL;
		}
		args++;
	}
	if (args < g->min_args || args > g->max_args) {
		text_err(err, errlen, -EINVAL, "usage: %s", g->usage);
		return NULL;
	}
	return g;
}

/* The body length word: decimal digits, at most CONTROL_BODY_MAX. */
static int control_grammar_length(const char *s, size_t *len)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9' || strlen(s) > 10)
		return -EINVAL;
	v = strtoull(s, &end, 10);
	if (*end || v > CONTROL_BODY_MAX)
		return -EINVAL;
	*len = (size_t)v;
	return 0;
}

const struct control_grammar *control_grammar_check_wire(char *const *word, int n, size_t *body_len,
							 char *err, size_t errlen)
{
	const struct control_grammar *g = n > 0 ? control_grammar_find(word[0]) : NULL;

	*body_len = 0;
	if (!g || !(g->flags & CONTROL_GRAMMAR_BODY))
		return control_grammar_check(word, n, err, errlen);
	if (n < 2 || control_grammar_length(word[n - 1], body_len) < 0 ||
	    !control_grammar_check(word, n - 1, NULL, 0)) {
		text_err(err, errlen, -EINVAL,
			 "usage: %s LENGTH, then the file's LENGTH bytes (at most %u): nanosmctl "
			 "reads the file, the daemon never opens a path",
			 g->usage, CONTROL_BODY_MAX);
		return NULL;
	}
	return g;
}
