/*
 * tools/draw/health.c - cables coloured by their health: what `nanosmctl
 * health` says of each cable, read back from its text, and matched to the
 * drawing's cables.  No I/O.
 */
#include "tools/draw/draw_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/text.h"

const char *draw_health_name(enum draw_health h)
{
	static const char *const names[] = {"ok", "errors rising", "degrading", "flapping",
					    "failing"};

	return h <= DRAW_HEALTH_FAILING ? names[h] : "?";
}

/* "0x" + 16 hex digits + "/" + port at s: 0, the end in *end; else -1. */
static int health_end(const char *s, uint64_t *guid, uint8_t *port, const char **end)
{
	uint64_t v = 0;
	unsigned p = 0;
	int i;

	if (strncmp(s, "0x", 2))
		return -1;
	for (i = 2; i < 18; i++) {
		int d = text_hexval(s[i]);

		if (d < 0)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (s[18] != '/' || s[19] < '0' || s[19] > '9')
		return -1;
	for (i = 19; s[i] >= '0' && s[i] <= '9' && p < 256; i++)
		p = p * 10 + (unsigned)(s[i] - '0');
	if (p > 255)
		return -1;
	*guid = v;
	*port = (uint8_t)p;
	*end = s + i;
	return 0;
}

static enum draw_health health_verdict(const char *s)
{
	if (!strncmp(s, "failing", 7))
		return DRAW_HEALTH_FAILING;
	if (!strncmp(s, "flapping", 8))
		return DRAW_HEALTH_FLAPPING;
	if (!strncmp(s, "degrading", 9))
		return DRAW_HEALTH_DEGRADING;
	return DRAW_HEALTH_RISING;
}

/* One "cable ..." line into c; 0, or -1 when it is not one. */
static int health_cable_line(const char *line, const char *eol, struct draw_health_cable *c)
{
	const char *a = strstr(line, " 0x"), *sep, *b, *end, *colon;

	if (strncmp(line, "cable ", 6) || !a || a > eol ||
	    health_end(a + 1, &c->guid_a, &c->port_a, &end) < 0)
		return -1;
	sep = strstr(end, " <-> ");
	b = sep ? strstr(sep + 5, " 0x") : NULL;
	if (!b || b > eol || health_end(b + 1, &c->guid_b, &c->port_b, &end) < 0)
		return -1;
	colon = strstr(end, ": ");
	if (!colon || colon > eol)
		return -1;
	c->health = health_verdict(colon + 2);
	c->detail[0] = '\0';
	return 0;
}

int draw_health_parse(const char *text, size_t len, struct draw_health_cable **out, size_t *n)
{
	size_t cap = 0;
	const char *s = text, *stop = text + len;
	struct draw_health_cable *c = NULL;

	*out = NULL;
	*n = 0;
	while (s < stop) {
		const char *eol = memchr(s, '\n', (size_t)(stop - s));

		if (!eol)
			eol = stop;
		if (!strncmp(s, "cable ", 6)) {
			if (TEXT_GROW(*out, cap, *n + 1, 16))
				return -ENOMEM;
			c = &(*out)[*n];
			if (health_cable_line(s, eol, c) == 0)
				(*n)++;
			else
				c = NULL;
		} else if (c && s[0] == ' ') { /* an end's counters: the details */
			struct text_sink o = {c->detail, sizeof(c->detail), strlen(c->detail)};

			text_sinkf(&o, "%s%.*s", c->detail[0] ? "; " : "", (int)(eol - s - 2),
				   s + 2);
		}
		s = eol + 1;
	}
	return 0;
}

/* The health entry of the drawing's cable c, by either end. */
static int health_find(const struct draw_layout *l, const struct draw_cable *c)
{
	uint64_t ga = l->nodes[c->a].guid, gb = l->nodes[c->b].guid;

	for (size_t i = 0; i < l->n_health; i++) {
		const struct draw_health_cable *h = &l->health[i];

		if ((h->guid_a == ga && h->port_a == c->pa && h->guid_b == gb &&
		     h->port_b == c->pb) ||
		    (h->guid_a == gb && h->port_a == c->pb && h->guid_b == ga &&
		     h->port_b == c->pa))
			return (int)i;
	}
	return -1;
}

void draw_priv_health(struct draw_layout *l, const struct draw_opts *o)
{
	l->health = o->health;
	l->n_health = o->n_health;
	for (size_t i = 0; i < l->n_cables; i++) {
		struct draw_cable *c = &l->cables[i];

		c->health_i = c->live ? health_find(l, c) : -1;
		c->health = c->health_i >= 0 ? (uint8_t)l->health[c->health_i].health : 0;
		l->n_unhealthy += c->health_i >= 0;
		if (c->edge >= 0 && c->health > l->edges[c->edge].health)
			l->edges[c->edge].health = c->health;
	}
}
