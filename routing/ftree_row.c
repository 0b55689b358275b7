/*
 * ftree_row.c - ftree's rows: one per LID, the entry of every switch,
 * started, filled where no main path reached, and written to the tables a
 * batch at a time.  For a leaf's CA LIDs the fill is planned once per
 * leaf: the switches whose entry is the same for all of them start in
 * every row, those that take the main path's column are written per rank,
 * only the others are looked at one by one.  Part of the ftree engine
 * (routing/ftree.c has the DOC); touches nothing outside struct ftree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "routing/ftree_priv.h"

/* ---- Memory ------------------------------------------------------------ */

/* For the hand-down: the length of the run of parallel links to the same
 * child that starts at each down-link (the children of a switch are
 * sorted), whether a switch has such runs (bit FTREE_HD_RUNS), and
 * whether it has CAs (FTREE_HD_CA) or links down (FTREE_HD_DOWN). */
static void ftree_row_runs(struct ftree *m)
{
	for (size_t s = 0; s < m->g.n_sw; s++) {
		size_t end = m->down_start[s + 1];

		m->hd_flags[s] = (uint8_t)((m->g.has_ca[s] ? FTREE_HD_CA : 0) |
					   (m->down_start[s] < end ? FTREE_HD_DOWN : 0));
		for (size_t e = m->down_start[s]; e < end;) {
			size_t b = e;

			while (e < end && m->down[e].sw == m->down[b].sw)
				e++;
			m->down_run[b] = (uint8_t)(e - b);
			m->hd_flags[s] |= e - b > 1 ? FTREE_HD_RUNS : 0;
		}
	}
}

int ftree_row_init(struct ftree *m)
{
	size_t s = m->g.n_sw ? m->g.n_sw : 1;
	size_t links = m->down_start[m->g.n_sw] + 1;

	m->base_row = malloc(s);
	m->fast_mask = calloc((size_t)(FTREE_MAX_RANK + 1) * s, 1); /* untouched ranks: no pages */
	m->slow = malloc(s * sizeof(*m->slow));
	m->once = malloc(s * sizeof(*m->once));
	m->path_hits = calloc(s, sizeof(*m->path_hits));
	m->fast_ok = malloc(s);
	m->down_run = calloc(links, 1);
	m->hd_flags = malloc(s);
	if (!m->base_row || !m->fast_mask || !m->slow || !m->once || !m->path_hits ||
	    !m->down_run || !m->fast_ok || !m->hd_flags)
		return -ENOMEM;
	ftree_row_runs(m);
	return 0;
}

void ftree_row_fini(struct ftree *m)
{
	free(m->base_row);
	free(m->fast_mask);
	free(m->slow);
	free(m->once);
	free(m->path_hits);
	free(m->fast_ok);
	free(m->down_run);
	free(m->hd_flags);
}

/* ---- The batch --------------------------------------------------------- */

#ifdef __SSE2__
/* 16 rows of 16 entries (row i at in + i * stride: 16 switches' entries
 * for the i-th of 16 consecutive LIDs) turned round: switch j's entries
 * for the 16 LIDs stored at out[j] + at. */
static void ftree_row_turn16(const uint8_t *in, size_t stride, uint8_t *const *out, size_t at)
{
	__m128i r[16], t1[16], t2[16], t3[16];

	for (int i = 0; i < 16; i++)
		r[i] = _mm_loadu_si128((const __m128i *)(const void *)(in + (size_t)i * stride));
	/* rows 2p, 2p + 1: columns 0-7 in t1[p], 8-15 in t1[8 + p] */
	for (int p = 0; p < 8; p++) {
		t1[p] = _mm_unpacklo_epi8(r[2 * p], r[2 * p + 1]);
		t1[8 + p] = _mm_unpackhi_epi8(r[2 * p], r[2 * p + 1]);
	}
	/* rows 4q .. 4q + 3: columns 4g .. 4g + 3 in t2[4g + q] */
	for (int q = 0; q < 4; q++) {
		t2[q] = _mm_unpacklo_epi16(t1[2 * q], t1[2 * q + 1]);
		t2[4 + q] = _mm_unpackhi_epi16(t1[2 * q], t1[2 * q + 1]);
		t2[8 + q] = _mm_unpacklo_epi16(t1[8 + 2 * q], t1[8 + 2 * q + 1]);
		t2[12 + q] = _mm_unpackhi_epi16(t1[8 + 2 * q], t1[8 + 2 * q + 1]);
	}
	/* rows 8o .. 8o + 7: columns 2h, 2h + 1 in t3[2h + o] */
	for (int g = 0; g < 4; g++)
		for (int o = 0; o < 2; o++) {
			t3[4 * g + o] =
			    _mm_unpacklo_epi32(t2[4 * g + 2 * o], t2[4 * g + 2 * o + 1]);
			t3[4 * g + 2 + o] =
			    _mm_unpackhi_epi32(t2[4 * g + 2 * o], t2[4 * g + 2 * o + 1]);
		}
	for (int h = 0; h < 8; h++) {
		_mm_storeu_si128((__m128i *)(void *)(out[2 * h] + at),
				 _mm_unpacklo_epi64(t3[2 * h], t3[2 * h + 1]));
		_mm_storeu_si128((__m128i *)(void *)(out[2 * h + 1] + at),
				 _mm_unpackhi_epi64(t3[2 * h], t3[2 * h + 1]));
	}
}
#define FTREE_ROW_TURN 16
#else
#define FTREE_ROW_TURN 0
#endif

_Static_assert(FTREE_BATCH <= 256 && FTREE_BATCH / 16 <= 32, "batch rows: a byte, runs: a word");

/* Which of the batch's runs of 16 rows hold 16 consecutive LIDs (bit b:
 * rows 16b .. 16b + 15). */
static unsigned ftree_row_runs16(const uint16_t *lid, size_t n)
{
	unsigned ok = 0;

	for (size_t b = 0; FTREE_ROW_TURN && 16 * b + 16 <= n; b++) {
		size_t i = 16 * b, k = 1;

		while (k < 16 && lid[i + k] == lid[i] + k)
			k++;
		ok |= (k == 16) << b;
	}
	return ok;
}

/* Switch s's entries for the batch's rows i[0 .. n). */
static void ftree_row_scatter(const struct ftree *m, size_t s, const uint8_t *i, size_t n)
{
	uint8_t *port = m->out->tables[s].port;
	const uint8_t *batch = m->batch + s;
	const uint16_t *lid = m->batch_lid;
	size_t n_sw = m->g.n_sw;

	for (size_t k = 0; k < n; k++)
		port[lid[i[k]]] = batch[i[k] * n_sw];
}

/* Write the batch out: table by table, its LIDs; where 16 LIDs in a row
 * are consecutive, 16 tables at a time, their 16 entries turned round in
 * registers. */
void ftree_flush(struct ftree *m)
{
	uint16_t lo = UINT16_MAX, hi = 0;
	const struct lft *tables = m->out->tables;
	size_t n_sw = m->g.n_sw, n = m->n_batch, n_rest = 0;
	unsigned ok = ftree_row_runs16(m->batch_lid, n);
	size_t full = ok ? n_sw / 16 * 16 : 0;	     /* tables turned 16 at a time */
	uint8_t all[FTREE_BATCH], rest[FTREE_BATCH]; /* rows, and those not turned */

	for (size_t i = 0; i < n; i++) {
		lo = m->batch_lid[i] < lo ? m->batch_lid[i] : lo;
		hi = m->batch_lid[i] > hi ? m->batch_lid[i] : hi;
		all[i] = (uint8_t)i;
		if (!(ok >> (i / 16) & 1))
			rest[n_rest++] = (uint8_t)i;
	}
	for (size_t s = 0; s < n_sw; s++) {
		/* the tables are far beyond the caches: fetch the lines a few
		 * tables ahead (both ends, when the LIDs lie close together) */
		if (s + 16 < n_sw && n && hi - lo < 256) {
			__builtin_prefetch(tables[s + 16].port + lo, 1);
			__builtin_prefetch(tables[s + 16].port + hi, 1);
		}
#if FTREE_ROW_TURN
		if (s < full && s % 16 == 0) {
			uint8_t *out[16];

			for (int j = 0; j < 16; j++)
				out[j] = tables[s + (size_t)j].port;
			for (size_t b = 0; b < FTREE_BATCH / 16; b++)
				if (ok >> b & 1)
					ftree_row_turn16(m->batch + 16 * b * n_sw + s, n_sw, out,
							 m->batch_lid[16 * b]);
		}
#endif
		if (s < full)
			ftree_row_scatter(m, s, rest, n_rest);
		else
			ftree_row_scatter(m, s, all, n);
	}
	m->n_batch = 0;
}

/* Start routing lid: a fresh row (a copy of start, else every switch
 * LFT_DROP), none done. */
void ftree_begin_lid(struct ftree *m, uint16_t lid, const uint8_t *start)
{
	if (m->n_batch == FTREE_BATCH)
		ftree_flush(m);
	m->row = &m->batch[m->n_batch * m->g.n_sw];
	if (start)
		memcpy(m->row, start, m->g.n_sw);
	else
		memset(m->row, LFT_DROP, m->g.n_sw);
	m->batch_lid[m->n_batch++] = lid;
	m->dest_gen++;
}

void ftree_set(struct ftree *m, int s, uint8_t port)
{
	m->row[s] = port;
	m->done[s] = m->dest_gen;
}

/* ---- The fill, switch by switch ---------------------------------------- */

/* Round-robin over s's choices. */
static uint8_t ftree_next_choice(struct ftree *m, int s)
{
	uint8_t i = m->rr[s] < m->cand_n[s] ? m->rr[s] : 0;

	m->rr[s] = (uint8_t)(i + 1);
	return m->cand_port[m->cand_start[s] + i];
}

/* A switch with no up-then-down route: toward an exit, else a shortest
 * path. */
uint8_t ftree_any_port(const struct ftree *m, int s)
{
	return m->xport[s] != LFT_DROP ? m->xport[s] : m->bfs_port[s];
}

/* A switch going up, not handed the LID: the main path's column at its
 * rank when all its up-links are choices (they leave by consecutive
 * ports) and that is one of them and it has no detours (what
 * ftree_column_choice answers then, found without a scan), else
 * ftree_column_choice's answer. */
static int ftree_takes_column(const struct ftree *m, int s, uint8_t want)
{
	return m->up_n[s] && m->n_ways[s] == m->up_n[s] &&
	       (uint8_t)(want - m->up_lo[s]) < m->up_n[s] && !m->cand_nx[s];
}

static uint8_t ftree_up_choice(struct ftree *m, int s)
{
	uint8_t want = m->column[m->rank[s]];

	return ftree_takes_column(m, s, want) ? want : ftree_column_choice(m, s);
}

/* Every switch of list[0 .. n) not handed the LID takes one of its
 * choices.  Returns 1 when a leaf had to: its LID is routed around a
 * missing link. */
int ftree_fill(struct ftree *m, const int *list, size_t n)
{
	/* in locals: the byte stores below may alias the struct's fields */
	const int *rank = m->rank;
	const uint32_t *done = m->done, gen = m->dest_gen;
	const uint8_t *kind = m->kind, *has_ca = m->g.has_ca;
	uint8_t *row = m->row;
	int n_columns = m->n_columns, strayed = 0;

	for (size_t q = 0; q < n; q++) {
		int s = list[q];

		if (done[s] == gen)
			continue;
		if (kind[s] == FTREE_ANY) {
			row[s] = ftree_any_port(m, s);
		} else if (kind[s] == FTREE_UP) {
			row[s] =
			    rank[s] < n_columns ? ftree_up_choice(m, s) : ftree_next_choice(m, s);
			strayed |= has_ca[s];
		} else {
			row[s] = ftree_next_choice(m, s);
		}
	}
	return strayed;
}

/* ---- The fill, planned per leaf ---------------------------------------- */

/* Could s take the main path's column without a look at its choices, for
 * a column in the range its rank's others take it in (fast_lo, fast_n)? */
static int ftree_row_fast_ok(const struct ftree *m, int s)
{
	return m->kind[s] == FTREE_UP && m->up_n[s] && m->n_ways[s] == m->up_n[s] && !m->cand_nx[s];
}

/* Per rank, the column range of the switches going up there with the
 * most up-links (the lowest first on a tie): a switch whose range holds
 * it takes the column without a look whenever the column lies in it.
 * Which switches of fill could (m->fast_ok). */
static void ftree_row_ranges(struct ftree *m)
{
	memset(m->fast_lo, 0, sizeof(m->fast_lo));
	memset(m->fast_n, 0, sizeof(m->fast_n));
	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q], r = m->rank[s];

		m->fast_ok[q] = (uint8_t)ftree_row_fast_ok(m, s);
		if (!m->fast_ok[q])
			continue;
		if (m->up_n[s] > m->fast_n[r] ||
		    (m->up_n[s] == m->fast_n[r] && m->up_lo[s] < m->fast_lo[r])) {
			m->fast_lo[r] = m->up_lo[s];
			m->fast_n[r] = m->up_n[s];
		}
	}
}

/* Switch s of rank r takes the column without a look: in r's mask, in a
 * segment for r (fill goes top rank first: one segment per rank). */
static void ftree_row_add_fast(struct ftree *m, int s, int r)
{
	size_t g = m->n_seg;

	if (!g || m->seg_rank[g - 1] != r) {
		m->seg_rank[g] = (uint8_t)r;
		m->seg_lo[g] = m->seg_hi[g] = (size_t)s;
		m->n_seg++;
	}
	g = m->n_seg - 1;
	m->seg_lo[g] = (size_t)s < m->seg_lo[g] ? (size_t)s : m->seg_lo[g];
	m->seg_hi[g] = (size_t)s > m->seg_hi[g] ? (size_t)s : m->seg_hi[g];
	m->fast_mask[(size_t)r * m->g.n_sw + (size_t)s] = 0xFF;
}

/* Plan the rows of the leaf just entered (its choices known): the
 * switches going down with one choice start in base_row (once), those
 * that take the main path's column go to the masks (fast), the others to
 * slow, in fill order. */
void ftree_row_plan(struct ftree *m)
{
	for (size_t g = 0; g < m->n_seg; g++) /* the last leaf's masks cleared */
		memset(&m->fast_mask[m->seg_rank[g] * m->g.n_sw + m->seg_lo[g]], 0,
		       m->seg_hi[g] - m->seg_lo[g] + 1);
	ftree_row_ranges(m);
	memset(m->base_row, LFT_DROP, m->g.n_sw);
	m->n_seg = m->n_slow = m->n_once = m->n_up_ca = m->leaf_lids = 0;
	for (size_t q = 0; q < m->n_fill; q++) {
		int s = m->fill[q], r = m->rank[s];

		m->path_hits[s] = 0;
		m->n_up_ca += m->kind[s] == FTREE_UP && m->g.has_ca[s];
		if (m->kind[s] == FTREE_DOWN && m->cand_n[s] == 1) {
			m->base_row[s] = m->cand_port[m->cand_start[s]];
			m->once[m->n_once++] = s;
		} else if (m->fast_ok[q] && m->up_lo[s] <= m->fast_lo[r] &&
			   m->up_lo[s] + m->up_n[s] >= m->fast_lo[r] + m->fast_n[r]) {
			ftree_row_add_fast(m, s, r);
		} else {
			m->slow[m->n_slow++] = s;
		}
	}
	m->row_planned = 1;
}

/* The switches of a mask take want: row[i] = want where mask[i] is set,
 * for i in lo .. hi (16 at a time where SSE2 is there). */
static void ftree_row_blend(uint8_t *row, const uint8_t *mask, size_t lo, size_t hi, uint8_t want)
{
	size_t i = lo;

#ifdef __SSE2__
	__m128i w = _mm_set1_epi8((char)want);

	for (; i + 16 <= hi + 1; i += 16) {
		__m128i r = _mm_loadu_si128((const __m128i *)(const void *)(row + i));
		__m128i k = _mm_loadu_si128((const __m128i *)(const void *)(mask + i));

		r = _mm_or_si128(_mm_andnot_si128(k, r), _mm_and_si128(k, w));
		_mm_storeu_si128((__m128i *)(void *)(row + i), r);
	}
#endif
	for (; i <= hi; i++)
		row[i] = mask[i] ? want : row[i];
}

/* The main path of the current LID is known: its switches counted (those
 * of once are not visited then), and the switches of the masks written
 * when the column at every rank of theirs is in their range (1), else
 * nothing (0: the LID takes the fill switch by switch). */
int ftree_row_fast(struct ftree *m, int top)
{
	m->leaf_lids++;
	for (int r = 1; r <= top; r++)
		m->path_hits[m->path[r]]++;
	for (size_t g = 0; g < m->n_seg; g++) {
		int r = m->seg_rank[g];

		if (r >= m->n_columns || (uint8_t)(m->column[r] - m->fast_lo[r]) >= m->fast_n[r])
			return 0;
	}
	for (size_t g = 0; g < m->n_seg; g++)
		ftree_row_blend(m->row, &m->fast_mask[m->seg_rank[g] * m->g.n_sw], m->seg_lo[g],
				m->seg_hi[g], m->column[m->seg_rank[g]]);
	return 1;
}

/* The leaf's LIDs are routed: a switch of once visited by any of them
 * (not on its main path) has had its round-robin taken, as
 * ftree_next_choice leaves it. */
void ftree_row_leave(struct ftree *m)
{
	if (!m->row_planned)
		return;
	for (size_t i = 0; i < m->n_once; i++)
		if (m->path_hits[m->once[i]] < m->leaf_lids)
			m->rr[m->once[i]] = 1;
	m->row_planned = 0;
}
