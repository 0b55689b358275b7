/*
 * routing/check.c - the routing gate: are a fabric's LFTs safe to push?
 * Owns the walk of every (source, destination LID) pair; check_cdg.c
 * records its channel dependencies (one graph per VL) and finds a cycle,
 * check_say.c words what it finds.  Reads the fabric and LFTs as const;
 * no I/O, globals or logging.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "mad/smp.h"
#include "mad/text.h"
#include "routing/check.h"
#include "routing/check_priv.h"
#include "routing/swgraph.h"

/* ---- Setup: switches, tables, links ------------------------------------ */

static int check_alloc(struct check *c)
{
	size_t s = c->g.n_sw ? c->g.n_sw : 1, ports = c->g.port_base[c->g.n_sw];

	c->tab = calloc(s, sizeof(*c->tab));
	c->links = calloc(ports ? ports : 1, sizeof(*c->links));
	c->chan_base = calloc(s + 1, sizeof(*c->chan_base));
	c->turn_base = calloc(s + 1, sizeof(*c->turn_base));
	c->comp_pairs = calloc(s, sizeof(*c->comp_pairs));
	c->comp_bad = calloc(s, sizeof(*c->comp_bad));
	c->w_ok = calloc(s, sizeof(*c->w_ok));
	c->w_bad = calloc(s, sizeof(*c->w_bad));
	c->rank_ok = malloc(s * sizeof(*c->rank_ok));
	c->rank_bad = malloc(s * sizeof(*c->rank_bad));
	c->w_ca = calloc(s, sizeof(*c->w_ca));
	c->rank_ca = malloc(s * sizeof(*c->rank_ca));
	c->state = malloc(s);
	c->st = calloc(s, sizeof(*c->st));
	c->out = malloc(s);
	c->nxt = malloc(s * CHECK_BLOCK * sizeof(*c->nxt));
	c->stack = malloc(s * sizeof(*c->stack));
	c->carry = malloc(s);
	c->blk = malloc(s * CHECK_BLOCK);
	c->send = calloc(s, sizeof(*c->send));
	c->fwd = calloc(s, sizeof(*c->fwd));
	c->port_lo = malloc(s);
	c->port_hi = malloc(s);
	if (!c->port_lo || !c->port_hi || !c->blk || !c->st || !c->send || !c->fwd || !c->tab || !c->links || !c->chan_base ||
	    !c->turn_base || !c->comp_pairs || !c->comp_bad || !c->w_ok || !c->w_bad ||
	    !c->rank_ok || !c->rank_bad || !c->w_ca || !c->rank_ca || !c->state || !c->out ||
	    !c->nxt || !c->stack || !c->carry)
		return -ENOMEM;
	return 0;
}

static void check_free(struct check *c)
{
	/* clang-format off */
	void *all[] = {
		c->tab, c->links,
		c->chan_base, c->chan_sw, c->chan_port, c->chan_far, c->chan_far_port, c->pcode, c->pchan,
		c->turn_base, c->turns,
		c->comp_pairs, c->comp_bad,
		c->srcs, c->w_ok, c->w_bad, c->rank_ok, c->rank_bad, c->w_ca, c->rank_ca, c->dests,
		c->state, c->st, c->out, c->carry, c->nxt, c->stack,
		c->color, c->cursor, c->dstack, c->link_vls, c->inject_vls, c->blk, c->send, c->fwd, c->port_lo, c->port_hi,
	};
	/* clang-format on */

	swgraph_fini(&c->g);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
}

static void check_map_tables(struct check *c)
{
	for (size_t i = 0; i < c->lfts->n; i++) {
		int node = c->lfts->tables[i].node;

		if (node >= 0 && (size_t)node < c->f->n_nodes && c->g.sw_of[node] >= 0)
			c->tab[c->g.sw_of[node]] = &c->lfts->tables[i];
	}
}

/* Can traffic go over this port?  State 0 (unknown) counts as up. */
int check_port_usable(const struct check *c, const struct fabric_port *p)
{
	return p->present && (c->allow_down || p->state != PORT_STATE_DOWN);
}

const struct fabric_port *check_far_port(const struct check *c, const struct fabric_port *p)
{
	return &c->f->nodes[p->remote_node].ports[p->remote_port];
}

static int check_link_usable(const struct check *c, const struct fabric_port *p)
{
	return check_port_usable(c, p) && check_port_usable(c, check_far_port(c, p));
}

/* Data VLs a cable offers: the fewer of its two ends'. */
unsigned check_cable_vls(const struct check *c, const struct fabric_port *p)
{
	unsigned a = fabric_port_data_vls(p), b = fabric_port_data_vls(check_far_port(c, p));

	return a < b ? a : b;
}

/* Classify every switch port; switch-to-switch links become channels. */
static void check_classify_ports(struct check *c)
{
	for (size_t s = 0; s < c->g.n_sw; s++) {
		const struct fabric_node *n = &c->f->nodes[c->g.sw_node[s]];
		size_t k = 0;

		for (unsigned pn = 1; pn <= n->num_ports; pn++) {
			const struct fabric_port *p = &n->ports[pn];
			struct check_link *l = &c->links[c->g.port_base[s] + pn];

			if (p->remote_node == FABRIC_NONE)
				continue;
			l->far_port = p->remote_port;
			l->far = p->remote_node;
			if (c->link_vls)
				c->link_vls[c->g.port_base[s] + pn] =
				    (uint8_t)check_cable_vls(c, p);
			if (!check_link_usable(c, p)) {
				l->kind = CHECK_LINK_BAD;
			} else if (c->g.sw_of[p->remote_node] < 0) {
				l->kind = CHECK_LINK_END;
			} else {
				l->kind = CHECK_LINK_SWITCH;
				l->far = c->g.sw_of[p->remote_node];
				l->self_chan = (uint8_t)k++;
			}
		}
		c->chan_base[s + 1] = c->chan_base[s] + k;
		c->turn_base[s + 1] = c->turn_base[s] + k * k;
	}
	c->n_chan = c->chan_base[c->g.n_sw];
}

/* Channel tables, and each link's channel index at its far end. */
static int check_build_channels(struct check *c)
{
	size_t n = c->n_chan ? c->n_chan : 1;

	c->chan_sw = malloc(n * sizeof(*c->chan_sw));
	c->chan_port = malloc(n);
	c->chan_far = malloc(n * sizeof(*c->chan_far));
	c->chan_far_port = malloc(n);
	if (!c->chan_sw || !c->chan_port || !c->chan_far || !c->chan_far_port)
		return -ENOMEM;
	for (size_t s = 0; s < c->g.n_sw; s++) {
		for (size_t i = c->g.port_base[s] + 1; i < c->g.port_base[s + 1]; i++) {
			struct check_link *l = &c->links[i];
			size_t ch = c->chan_base[s] + l->self_chan;

			if (l->kind != CHECK_LINK_SWITCH)
				continue;
			c->chan_sw[ch] = (int)s;
			c->chan_port[ch] = (uint8_t)(i - c->g.port_base[s]);
			c->chan_far[ch] = l->far;
			c->chan_far_port[ch] = l->far_port;
			l->far_chan = c->links[c->g.port_base[l->far] + l->far_port].self_chan;
		}
	}
	return 0;
}

/* ---- Setup: components, sources, destinations -------------------------- */

static void check_add_source(struct check *c, int node, unsigned pn, int sw, int bad)
{
	size_t rank = c->n_srcs++;

	c->srcs[rank] = (struct check_source){node, (uint8_t)pn, (uint8_t)bad, sw};
	c->comp_pairs[c->g.comp[sw]]++;
	c->comp_bad[c->g.comp[sw]] += bad != 0;
	if (bad && c->w_bad[sw]++ == 0)
		c->rank_bad[sw] = rank;
	if (!bad && c->w_ok[sw]++ == 0)
		c->rank_ok[sw] = rank;
	if (!bad && c->g.sw_of[node] < 0 && c->w_ca[sw]++ == 0)
		c->rank_ca[sw] = rank;
	if (!bad && c->g.sw_of[node] < 0 && c->inject_vls) {
		unsigned v = check_cable_vls(c, &c->f->nodes[node].ports[pn]);

		if (v < c->inject_vls[sw])
			c->inject_vls[sw] = (uint8_t)v;
	}
}

/* Sources in node order; their rank orders the pairs for res->first. */
static int check_collect_sources(struct check *c)
{
	const struct fabric *f = c->f;

	c->srcs = malloc((c->g.n_sw + fabric_count_cas(f) + 1) * sizeof(*c->srcs));
	if (!c->srcs)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fabric_node *n = &f->nodes[i];

		if (fabric_is_switch(n)) {
			check_add_source(c, (int)i, 0, c->g.sw_of[i], 0);
			continue;
		}
		for (unsigned pn = 1; pn <= n->num_ports; pn++) {
			const struct fabric_port *p = &n->ports[pn];
			int sw = swgraph_far_switch(&c->g, p);

			if (sw >= 0 && p->present)
				check_add_source(c, (int)i, pn, sw, !check_link_usable(c, p));
		}
	}
	return 0;
}

static int check_push_dest(struct check *c, uint32_t lid, int node, unsigned pn, int sw)
{
	if (TEXT_GROW(c->dests, c->cap_dests, c->n_dests + 1, 256) < 0)
		return -ENOMEM;
	c->dests[c->n_dests++] = (struct check_dest){lid, node, (uint8_t)pn, sw};
	return 0;
}

/* Every LID of port pn of node: base .. base + 2^lmc - 1. */
static int check_push_port_lids(struct check *c, int node, unsigned pn, int sw)
{
	const struct fabric_port *p = &c->f->nodes[node].ports[pn];
	uint32_t count = fabric_port_lid_count(p);
	int rc = 0;

	for (uint32_t lid = p->lid; lid < (uint32_t)p->lid + count && !rc; lid++)
		rc = check_push_dest(c, lid, node, pn, sw);
	return rc;
}

static int check_dest_cmp(const void *a, const void *b)
{
	const struct check_dest *x = a, *y = b;

	if (x->lid != y->lid)
		return x->lid < y->lid ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

/* LID-owning ports that some switch could deliver to: a switch's port 0,
 * a CA/router port cabled to a switch.  Sorted by LID, so the walks read
 * each LFT front to back. */
static int check_collect_dests(struct check *c)
{
	int rc = 0;

	for (size_t i = 0; i < c->f->n_nodes && !rc; i++) {
		const struct fabric_node *n = &c->f->nodes[i];

		if (fabric_is_switch(n)) {
			if (n->ports[0].lid)
				rc = check_push_port_lids(c, (int)i, 0, c->g.sw_of[i]);
			continue;
		}
		for (unsigned pn = 1; pn <= n->num_ports && !rc; pn++) {
			int sw = swgraph_far_switch(&c->g, &n->ports[pn]);

			if (n->ports[pn].lid && sw >= 0)
				rc = check_push_port_lids(c, (int)i, pn, sw);
		}
	}
	if (!rc && c->n_dests)
		qsort(c->dests, c->n_dests, sizeof(*c->dests), check_dest_cmp);
	return rc;
}

/* ---- Walking one destination ------------------------------------------- */

/* What switch s does with a LID its LFT sends out of port p, as far as
 * that does not depend on the LID's owner: the next switch ordinal, else
 * -1 - the hop (CHECK_HOP_PORT0 and CHECK_HOP_WRONG_PORT may still turn
 * out to be the owner: check_hop_code). */
static inline int check_port_code(const struct check *c, int s, uint8_t p)
{
	const struct check_link *l;

	if (p == LFT_DROP)
		return -1 - CHECK_HOP_DROP;
	if (p >= c->g.port_base[s + 1] - c->g.port_base[s])
		return -1 - CHECK_HOP_BEYOND;
	if (p == 0)
		return -1 - CHECK_HOP_PORT0;
	l = &c->links[c->g.port_base[s] + p];
	switch (l->kind) {
	case CHECK_LINK_SWITCH:
		return l->far;
	case CHECK_LINK_END:
		return -1 - CHECK_HOP_WRONG_PORT;
	case CHECK_LINK_BAD:
		return -1 - CHECK_HOP_BAD_PORT;
	default:
		return -1 - CHECK_HOP_UNLINKED;
	}
}

/* Every switch port's code and channel, for check_gather's and
 * check_turns_at's lookups (compact: a switch's fit in a cache line or
 * two, where its links take nine). */
static int check_port_codes(struct check *c)
{
	size_t n = c->g.port_base[c->g.n_sw];

	c->pcode = malloc((n ? n : 1) * sizeof(*c->pcode));
	c->pchan = malloc(n ? n : 1);
	if (!c->pcode || !c->pchan)
		return -ENOMEM;
	for (size_t s = 0; s < c->g.n_sw; s++)
		for (size_t i = c->g.port_base[s]; i < c->g.port_base[s + 1]; i++) {
			c->pcode[i] =
			    (uint16_t)check_port_code(c, (int)s, (uint8_t)(i - c->g.port_base[s]));
			c->pchan[i] = c->links[i].self_chan;
		}
	return 0;
}

/* A port code as kept in the block, back to check_port_code's int. */

/* The hop of switch s for d, from its port code and LFT entry p. */
static enum check_hop check_hop_code(const struct check *c, const struct check_dest *d, int s,
				     int code, uint8_t p)
{
	enum check_hop hop = code >= 0 ? CHECK_HOP_NEXT : (enum check_hop)(-1 - code);
	const struct check_link *l;

	if (hop == CHECK_HOP_PORT0 && d->node == c->g.sw_node[s] && d->port == 0)
		return CHECK_HOP_ARRIVED;
	if (hop != CHECK_HOP_WRONG_PORT)
		return hop;
	l = &c->links[c->g.port_base[s] + p];
	return l->far == d->node && l->far_port == d->port ? CHECK_HOP_ARRIVED
							   : CHECK_HOP_WRONG_PORT;
}

/* One hop read from the table itself, telling a missing table and a LID
 * above the top apart from LFT_DROP (for the messages). */
enum check_hop check_hop(const struct check *c, const struct check_dest *d, int s, uint8_t *out,
			 int *next)
{
	const struct lft *t = c->tab[s];
	int code;

	*next = -1;
	*out = LFT_DROP;
	if (!t)
		return CHECK_HOP_NO_TABLE;
	if (d->lid > t->top)
		return CHECK_HOP_ABOVE_TOP;
	*out = t->port[d->lid];
	code = check_port_code(c, s, *out);
	*next = code >= 0 ? code : -1;
	return check_hop_code(c, d, s, code, *out);
}

/* Bit b: codes[b] is a switch (the LID goes on to another switch). */
static uint64_t check_fwd_mask(const uint16_t *codes)
{
	uint64_t m = 0;

#ifdef __SSE2__
	/* unsigned code < CHECK_CODE_HOP as a signed compare, 16 at a time */
	const __m128i flip = _mm_set1_epi16((short)0x8000);
	const __m128i hop = _mm_set1_epi16((short)(CHECK_CODE_HOP ^ 0x8000));

	for (unsigned q = 0; q < CHECK_BLOCK / 16; q++) {
		const __m128i *v = (const __m128i *)(const void *)(codes + 16 * q);
		__m128i lo = _mm_cmplt_epi16(_mm_xor_si128(_mm_loadu_si128(v), flip), hop);
		__m128i hi = _mm_cmplt_epi16(_mm_xor_si128(_mm_loadu_si128(v + 1), flip), hop);

		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_packs_epi16(lo, hi)) << (16 * q);
	}
#else
	for (unsigned b = 0; b < CHECK_BLOCK; b++)
		m |= (uint64_t)(codes[b] < CHECK_CODE_HOP) << b;
#endif
	return m;
}

/* The lowest and the highest out port in a switch's block column: a port
 * outside them carries none of the block's LIDs (check_turns_at). */
static void check_port_span(const uint8_t *col, uint8_t *lo, uint8_t *hi)
{
#ifdef __SSE2__
	const __m128i *v = (const __m128i *)(const void *)col;
	__m128i a = _mm_loadu_si128(v), b = _mm_loadu_si128(v + 1);
	__m128i x = _mm_loadu_si128(v + 2), y = _mm_loadu_si128(v + 3);
	__m128i mn = _mm_min_epu8(_mm_min_epu8(a, b), _mm_min_epu8(x, y));
	__m128i mx = _mm_max_epu8(_mm_max_epu8(a, b), _mm_max_epu8(x, y));

	/* halve the lanes four times: the answer lands in byte 0 */
	mn = _mm_min_epu8(mn, _mm_srli_si128(mn, 8));
	mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 8));
	mn = _mm_min_epu8(mn, _mm_srli_si128(mn, 4));
	mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 4));
	mn = _mm_min_epu8(mn, _mm_srli_si128(mn, 2));
	mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 2));
	mn = _mm_min_epu8(mn, _mm_srli_si128(mn, 1));
	mx = _mm_max_epu8(mx, _mm_srli_si128(mx, 1));
	*lo = (uint8_t)_mm_cvtsi128_si32(mn);
	*hi = (uint8_t)_mm_cvtsi128_si32(mx);
#else
	*lo = 0xFF;
	*hi = 0;
	for (unsigned b = 0; b < CHECK_BLOCK; b++) {
		*lo = col[b] < *lo ? col[b] : *lo;
		*hi = col[b] > *hi ? col[b] : *hi;
	}
#endif
}

/* The LFT entries of CHECK_BLOCK LIDs from lid0 on, every switch's, into
 * c->blk (switch s: blk[s * CHECK_BLOCK + lid - lid0]): the tables are
 * read a cache line at a time instead of a byte per switch and LID.  No
 * table or a LID above its top reads LFT_DROP.  Their port codes go to
 * c->nxt, LID by LID (the walks read them in that order), and the LIDs
 * each switch sends on to another switch to c->fwd. */
static void check_gather(struct check *c, uint32_t lid0)
{
	size_t n_sw = c->g.n_sw;

	c->blk_lid0 = lid0;
	for (size_t s = 0; s < n_sw; s++) {
		const struct lft *t = c->tab[s];
		uint8_t *col = c->blk + s * CHECK_BLOCK;

		if (s + 8 < n_sw && c->tab[s + 8] && lid0 <= c->tab[s + 8]->top)
			__builtin_prefetch(c->tab[s + 8]->port + lid0);
		if (t && lid0 + CHECK_BLOCK - 1 <= t->top)
			memcpy(col, t->port + lid0, CHECK_BLOCK);
		else
			for (size_t b = 0; b < CHECK_BLOCK; b++)
				col[b] = t && lid0 + b <= t->top ? t->port[lid0 + b] : LFT_DROP;
		const uint16_t *pcode = &c->pcode[c->g.port_base[s]];
		size_t slots = c->g.port_base[s + 1] - c->g.port_base[s];
		uint16_t *nxt = &c->nxt[s], codes[CHECK_BLOCK];

#pragma GCC unroll 8
		for (size_t b = 0; b < CHECK_BLOCK; b++) {
			uint8_t p = col[b];
			uint16_t code = p == LFT_DROP ? (uint16_t)(-1 - CHECK_HOP_DROP)
					: p < slots   ? pcode[p]
						      : (uint16_t)(-1 - CHECK_HOP_BEYOND);

			nxt[b * n_sw] = code;
			codes[b] = code;
		}
		c->fwd[s] = check_fwd_mask(codes);
		check_port_span(col, &c->port_lo[s], &c->port_hi[s]);
	}
}

static uint8_t check_verdict_of(enum check_hop hop)
{
	if (hop == CHECK_HOP_ARRIVED)
		return CHECK_OK;
	return hop == CHECK_HOP_BAD_PORT ? CHECK_BAD : CHECK_UNREACHABLE;
}

/* Give every switch on the walked path (stack[0..top)) the verdict found
 * at its end; hops count up from h at the top of the stack. */
static void check_settle(struct check *c, size_t top, uint8_t v, uint32_t h)
{
	while (top--)
		c->st[c->stack[top]] = check_st(c->walk, v, h++);
	if (v != CHECK_OK)
		c->dest_failed = 1;
	else if (h > 0 && h - 1 > c->dest_hops)
		c->dest_hops = h - 1;
}

/* Follow the next hops from switch s to a switch already judged for this
 * destination (its stamp current), to one whose own hop ends the route (a
 * terminal: judged here), or back to a switch on this walk (its verdict
 * still CHECK_ON_WALK: a forwarding loop).  Every switch is judged once
 * per destination; the stamps save clearing per-switch state. */
static void check_resolve(struct check *c, const struct check_dest *d, const uint8_t *row, int s)
{
	size_t top = 0;
	uint8_t v = CHECK_LOOP;
	uint32_t h = 0, now = check_st(c->walk, 0, 0);

	while (c->st[s] < now) {
		int code = check_code(c->next[s]);

		if (code < 0) {
			enum check_hop hop =
			    check_hop_code(c, d, s, code, row[(size_t)s * CHECK_BLOCK]);

			c->st[s] = check_st(c->walk, check_verdict_of(hop), 0);
			if (hop != CHECK_HOP_ARRIVED)
				c->dest_failed = 1;
			break;
		}
		c->st[s] = check_st(c->walk, CHECK_ON_WALK, 0);
		c->stack[top++] = s;
		s = code;
	}
	if (check_verdict(c, s) != CHECK_ON_WALK) {
		v = check_verdict(c, s);
		h = (c->st[s] & CHECK_ST_HOPS) + 1;
	}
	check_settle(c, top, v, h);
}

/* Judge every switch of the component for d.  A switch whose next hop is
 * judged already takes its verdict at once (the common case, without
 * check_resolve's walk): its state is the next hop's, one hop more. */
static void check_walk(struct check *c, const struct check_dest *d, const int *sw, size_t n)
{
	const uint8_t *row = c->blk + (d->lid - c->blk_lid0);
	/* in locals: the stores below may alias the struct's fields, which
	 * would reload them for every switch */
	uint32_t *st = c->st, now, dest_hops;
	const uint16_t *next;
	int failed;

	c->next = next = c->nxt + (size_t)(d->lid - c->blk_lid0) * c->g.n_sw;
	if (++c->walk > CHECK_ST_WALKS) { /* wrapped: no stamp may look current */
		memset(c->st, 0, c->g.n_sw * sizeof(*c->st));
		c->walk = 1;
	}
	now = check_st(c->walk, 0, 0);
	dest_hops = c->dest_hops;
	failed = c->dest_failed;
	for (size_t i = 0; i < n; i++) {
		int s = sw[i];
		uint16_t code = next[s];
		uint32_t x;

		if (st[s] >= now)
			continue;
		if (code < CHECK_CODE_HOP && (x = st[code]) >= now) {
			/* judged, so not on a walk: its verdict is final */
			st[s] = ++x;
			if (x & CHECK_ST_VERDICT)
				failed = 1;
			else if ((x & CHECK_ST_HOPS) > dest_hops)
				dest_hops = x & CHECK_ST_HOPS;
			continue;
		}
		c->dest_hops = dest_hops;
		c->dest_failed = failed;
		check_resolve(c, d, row, s);
		dest_hops = c->dest_hops;
		failed = c->dest_failed;
	}
	c->dest_hops = dest_hops;
	c->dest_failed = failed;
}

/* Mark the switches that send the current (CA/router) destination into
 * the CDG: those whose route does not loop.  When every switch of the
 * fabric reached it, the block's common mask says so for all at once
 * (check_flush_turns), which spares the walk a write per switch. */
static void check_note_senders(struct check *c, const int *sw, size_t n)
{
	if (!c->dest_failed && n == c->g.n_sw) {
		c->blk_all |= c->note_bit;
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (check_verdict(c, sw[i]) != CHECK_LOOP)
			c->send[sw[i]] |= c->note_bit;
}

/* The failing pairs of d: sources behind a bad cable, and every source
 * of a switch without a good route.  Remembers the lowest-ranked failing
 * source (destinations come in LID order, so a tie keeps the lower LID). */
static void check_count_failures(struct check *c, size_t di, const int *sw, size_t n,
				 int to_switch)
{
	size_t unreachable = 0, loops = 0, bad = 0;

	for (size_t i = 0; i < n; i++) {
		int s = sw[i];
		uint8_t v = check_verdict(c, s);
		size_t rank = c->w_bad[s] ? c->rank_bad[s] : CHECK_NO_RANK;
		size_t w = to_switch ? c->w_ca[s] : c->w_ok[s];
		size_t first_ok = to_switch ? c->rank_ca[s] : c->rank_ok[s];

		if (v != CHECK_OK && w && first_ok < rank)
			rank = first_ok;
		unreachable += v == CHECK_UNREACHABLE ? w : 0;
		loops += v == CHECK_LOOP ? w : 0;
		bad += v == CHECK_BAD ? w : 0;
		if (rank < c->first_rank) {
			c->first_rank = rank;
			c->first_dest = di;
		}
	}
	c->res->unreachable += unreachable;
	c->res->loops += loops;
	c->res->bad_ports += bad;
}

/* Add d's pairs to the counters; the loop over the switches only when
 * some pair failed. */
static void check_count(struct check *c, size_t di, const int *sw, size_t n, int to_switch)
{
	int comp = c->g.comp[c->dests[di].sw];

	/* a switch's LID must be reached from every CA/router port; other
	 * switches need not reach it (management SMPs go by directed route,
	 * and under up/down two roots cannot reach each other legally) */
	c->res->pairs += c->comp_pairs[comp] - (to_switch ? n : 0);
	c->res->bad_ports += c->comp_bad[comp];
	if (c->dest_hops > c->res->max_hops)
		c->res->max_hops = c->dest_hops;
	if (c->dest_failed || c->comp_bad[comp])
		check_count_failures(c, di, sw, n, to_switch);
}

/* Switches that carry CA traffic to the current (switch) destination:
 * those with CA/router sources cabled to them and every switch on their
 * way.  Stops where the way is already marked, ends or leaves the tree. */
static void check_mark_ca_paths(struct check *c, const int *sw, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c->carry[sw[i]] = 0;
	for (size_t i = 0; i < n; i++) {
		int s = sw[i];

		if (c->w_ok[s] < 2) /* the switch itself is always one */
			continue;
		while (s >= 0 && !c->carry[s]) {
			c->carry[s] = 1;
			s = check_code(c->next[s]);
		}
	}
}

/* The channel dependencies of d, noted for check_flush_turns: a switch
 * s sending d into another switch t, which sends it on over a switch
 * link, makes the turn (in, out) at t.  Here s is marked as a sender of
 * d unless its route loops (looping routes are reported as loops, not
 * turns) or, for a switch's own LID, it carries no CA traffic there (see
 * the gate); a CA/router LID's senders were marked by the walk. */
static void check_note_turns(struct check *c, const struct check_dest *d, const int *sw, size_t n,
			     int ca_only)
{
	uint64_t bit = 1ULL << (d->lid - c->blk_lid0);

	c->blk_vl[c->dest_vl] |= bit;
	if (!ca_only)
		return; /* the walk marked them (note_bit) */
	for (size_t i = 0; i < n; i++) {
		int s = sw[i];

		if (check_verdict(c, s) != CHECK_LOOP && (!ca_only || c->carry[s]))
			c->send[s] |= bit;
	}
}

/* Make the block of d's LID current: flush the turns of the one before
 * and read the tables for the next CHECK_BLOCK LIDs. */
static void check_block(struct check *c, uint32_t lid)
{
	if (c->blk_lid0 != CHECK_NO_LID && lid >= c->blk_lid0 && lid < c->blk_lid0 + CHECK_BLOCK)
		return;
	if (c->blk_lid0 != CHECK_NO_LID)
		check_flush_turns(c);
	check_gather(c, lid);
}

/* A destination on a VL that switch s (out port p; 0: a CA cable into
 * s) cannot carry: counted once, the first one kept for the message. */
void check_vl_missing(struct check *c, size_t di, int s, uint8_t p)
{
	c->res->vl_missing++;
	if (c->vl_dest == CHECK_NO_RANK) {
		c->vl_sl = c->dest_vl;
		c->vl_dest = di;
		c->vl_sw = s;
		c->vl_port = p;
	}
}

/* Does every cable d's routes cross offer d's VL?  The CA cables into the
 * switches that send it, and each switch's out cable, as far as the
 * routes reach (for a switch's own LID, the ways CA traffic takes). */
static void check_vls(struct check *c, size_t di, const int *sw, size_t n, int to_switch)
{
	unsigned v = c->dest_vl;

	if (v == 0)
		return; /* VL0: every port has it */
	if (v >= CHECK_DATA_VLS) {
		check_vl_missing(c, di, -1, 0);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int s = sw[i];

		if (check_verdict(c, s) != CHECK_OK || (to_switch && !c->carry[s]))
			continue;
		if (c->w_ca[s] && c->inject_vls[s] <= v) {
			check_vl_missing(c, di, s, 0);
			return;
		}
		uint8_t p = c->blk[(size_t)s * CHECK_BLOCK + c->dests[di].lid - c->blk_lid0];

		if (p && c->link_vls[c->g.port_base[s] + p] <= v) {
			check_vl_missing(c, di, s, p);
			return;
		}
	}
}

static void check_destination(struct check *c, size_t di)
{
	const struct check_dest *d = &c->dests[di];
	size_t first = c->g.comp_start[c->g.comp[d->sw]], n = c->g.comp_start[c->g.comp[d->sw] + 1] - first;
	const int *sw = &c->g.comp_sw[first];
	int to_switch = c->g.sw_of[d->node] >= 0;

	c->dest_hops = 0;
	c->dest_failed = 0;
	c->dest_vl = lft_set_sl(c->lfts, (uint16_t)d->lid);
	check_block(c, d->lid);
	c->note_bit = !to_switch && !c->skip_cdg && c->dest_vl < CHECK_DATA_VLS && !c->per_path
			  ? 1ULL << (d->lid - c->blk_lid0)
			  : 0;
	check_walk(c, d, sw, n);
	if (c->note_bit)
		check_note_senders(c, sw, n);
	check_count(c, di, sw, n, to_switch);
	if (c->skip_cdg && !c->with_sl)
		return;
	if (c->per_path) { /* an SL per path: each path on its own VL */
		check_path_turns(c, di, sw, n, to_switch);
		return;
	}
	if (to_switch)
		check_mark_ca_paths(c, sw, n);
	if (c->with_sl)
		check_vls(c, di, sw, n, to_switch);
	if (c->skip_cdg || c->dest_vl >= CHECK_DATA_VLS)
		return;
	check_note_turns(c, d, sw, n, to_switch);
}

/* ---- The gate ---------------------------------------------------------- */

/* With SLs: the VL tables, filled as ports are classified and sources
 * collected. */
static int check_alloc_vls(struct check *c)
{
	size_t ports = c->g.port_base[c->g.n_sw], s = c->g.n_sw ? c->g.n_sw : 1;

	if (!c->with_sl)
		return 0;
	c->link_vls = calloc(ports ? ports : 1, 1);
	c->inject_vls = malloc(s);
	if (!c->link_vls || !c->inject_vls)
		return -ENOMEM;
	memset(c->inject_vls, CHECK_NO_VLS, s);
	return 0;
}

/* How many VLs the CDG needs: 1 + the highest data SL of a destination. */
static void check_count_vls(struct check *c)
{
	c->n_vls = 1;
	for (size_t i = 0; i < c->n_dests && c->with_sl; i++) {
		unsigned v = lft_set_sl(c->lfts, (uint16_t)c->dests[i].lid);

		if (v < CHECK_DATA_VLS && v + 1 > c->n_vls)
			c->n_vls = v + 1;
	}
	if (c->per_path)
		c->n_vls = lft_set_path_vls(c->lfts, CHECK_DATA_VLS);
	c->res->n_vls = c->n_vls;
}

static int check_prepare(struct check *c)
{
	int rc = swgraph_init(&c->g, c->f, 0);

	if (!rc && c->g.n_sw > CHECK_MAX_SW)
		return -E2BIG;
	if (!rc)
		rc = check_alloc(c);
	if (!rc)
		rc = check_alloc_vls(c);
	if (rc)
		return rc;
	check_map_tables(c);
	check_classify_ports(c);
	rc = check_build_channels(c);
	if (!rc)
		rc = check_port_codes(c);
	if (!rc)
		rc = check_collect_sources(c);
	if (!rc)
		rc = check_collect_dests(c);
	if (!rc)
		check_count_vls(c);
	if (!rc && !c->skip_cdg)
		rc = check_alloc_cdg(c);
	return rc;
}

static int check_judge(struct check *c)
{
	struct route_check *r = c->res;

	if (!c->skip_cdg) {
		for (size_t w = 0; w < c->turn_bits * c->n_vls / 64 + 1; w++)
			r->turns += (size_t)__builtin_popcountll(c->turns[w]);
		r->credit_loop = check_find_cycle(c);
	}
	if (c->first_rank != CHECK_NO_RANK)
		check_explain_pair(c);
	else if (c->vl_dest != CHECK_NO_RANK)
		check_explain_vl(c);
	else if (r->credit_loop)
		check_explain_cycle(c);
	return r->unreachable || r->loops || r->bad_ports || r->vl_missing || r->credit_loop
		   ? -EINVAL
		   : 0;
}

int route_check_run(const struct fabric *f, const struct lft_set *lfts,
		    const struct route_check_opts *opts, struct route_check *res)
{
	struct check c = {
	    .f = f,
	    .lfts = lfts,
	    .allow_down = opts && opts->allow_down_ports,
	    .skip_cdg = opts && opts->skip_credit_loops,
	    .res = res,
	    .first_rank = CHECK_NO_RANK,
	    .with_sl = lfts->sl != NULL,
	    .per_path = lfts->sl && lfts->path_sl,
	    .vl_dest = CHECK_NO_RANK,
	    .blk_lid0 = CHECK_NO_LID,
	};
	int rc;

	memset(res, 0, sizeof(*res));
	rc = check_prepare(&c);
	for (size_t di = 0; di < c.n_dests && !rc; di++)
		check_destination(&c, di);
	if (!rc && c.blk_lid0 != CHECK_NO_LID)
		check_flush_turns(&c);
	if (!rc)
		rc = check_judge(&c);
	else if (rc == -E2BIG)
		snprintf(res->first, sizeof(res->first),
			 "too many switches to check: %zu (at most %d)", fabric_count_switches(f),
			 CHECK_MAX_SW);
	else
		snprintf(res->first, sizeof(res->first), "out of memory checking %zu switches",
			 fabric_count_switches(f));
	check_free(&c);
	return rc;
}
