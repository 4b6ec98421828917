/* fold_write: the folded stacks sorted by their text, byte by byte (as
 * stackcollapse-perf.pl sorts its keys), and written "a;b;c COUNT" a line.
 *
 * A stack's text is a run of tokens, each a name and what follows it: ';'
 * or, for the leaf, the end of the text. When no name holds a ';' or a NUL
 * byte, no token is a prefix of another (the end reads as a byte below all
 * others), so the texts compare as their tokens' ranks do, the first
 * differing token deciding. The tokens are ranked once (a radix sort of
 * their first 8 bytes, ties by their bytes), then the stacks are sorted
 * by their rank sequences a few tokens at a time, most significant first:
 * a radix sort of the first tokens packed in 64 bits, then each run of
 * equal keys by the next tokens, and so on. Otherwise (or with TD_PLAIN=1)
 * the texts are compared byte by byte. */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "common/bytes.h"
#include "common/diag.h"
#include "common/grow.h"
#include "common/intern.h"
#include "common/plain.h"
#include "common/radix.h"
#include "common/swar.h"
#include "fold_internal.h"

/* An output line: stack s's ids (unaligned arena bytes) and, while it is
 * sorted, the key of its tokens at the depth being sorted. */
struct out_line {
	uint64_t sort;
	const char *key;
	uint32_t nids, s;
};

static uint32_t id_at(const char *key, size_t i)
{
	uint32_t id;
	memcpy(&id, key + i * sizeof id, sizeof id);
	return id;
}

/* How many leading ids the keys x and y share, of their first n: four
 * (SSE2) or two ids a step compared at once, the first differing byte
 * naming the first differing id. */
static size_t shared_ids(const char *x, const char *y, size_t n)
{
	size_t i = 0;
#if defined(__SSE2__)
	for (; i + 4 <= n; i += 4) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(x + i * 4));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(y + i * 4));
		unsigned same = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b));
		if (same != 0xffffu)
			return i + ((unsigned)__builtin_ctz(~same) >> 2);
	}
#elif TD_SWAR
	for (; i + 2 <= n; i += 2) {
		uint64_t d = td_swar_load(x + i * 4) ^ td_swar_load(y + i * 4);
		if (d)
			return i + ((unsigned)__builtin_ctzll(d) >> 5);
	}
#endif
	while (i < n && id_at(x, i) == id_at(y, i))
		i++;
	return i;
}

/* ---- byte by byte: a name may hold a ';' (or TD_PLAIN=1) ---------------------------- */

/* Reads a stack's text ("a;b;c") byte by byte from its name ids, from name
 * `at` on (after the ';' before it): the sort needs no text built. */
struct text_cursor {
	const struct td_intern *names;
	const char *key;
	size_t nids, at;
	const char *name;
	size_t len, off;
	bool sep;                     /* a ';' comes before the name */
};

static void cursor_at(struct text_cursor *c, const struct td_intern *names, const struct out_line *l, size_t at)
{
	*c = (struct text_cursor){ names, l->key, l->nids, at, NULL, 0, 0, at > 0 };
	if (at < l->nids)
		c->name = td_intern_str(names, id_at(l->key, at), &c->len);
}

/* The next byte of the text, or -1 at its end. */
static int cursor_next(struct text_cursor *c)
{
	while (c->at < c->nids) {
		if (c->sep) {
			c->sep = false;
			return ';';
		}
		if (c->off < c->len)
			return (unsigned char)c->name[c->off++];
		if (++c->at < c->nids) {
			c->name = td_intern_str(c->names, id_at(c->key, c->at), &c->len);
			c->off = 0;
			c->sep = true;
		}
	}
	return -1;
}

static const struct td_intern *sort_names;     /* qsort has no context argument */

/* The byte order of the two stacks' texts (LC_ALL=C sort's): equal leading
 * ids are equal leading names, so only the text from the first differing
 * name on decides. */
static int cmp_text(const void *a, const void *b)
{
	const struct out_line *x = a, *y = b;
	size_t n = x->nids < y->nids ? x->nids : y->nids, i = shared_ids(x->key, y->key, n);
	if (i == n)
		return x->nids == y->nids ? 0 : x->nids < y->nids ? -1 : 1;
	struct text_cursor cx, cy;
	cursor_at(&cx, sort_names, x, i);
	cursor_at(&cy, sort_names, y, i);
	for (;;) {
		int bx = cursor_next(&cx), by = cursor_next(&cy);
		if (bx != by)
			return bx < by ? -1 : 1;
		if (bx < 0)
			return 0;
	}
}

/* ---- by token ranks ---------------------------------------------------------------- */

/* Token 2 * id + end: name id followed by ';' (end 0) or ending the text. */
struct token {
	uint64_t head;                /* its first 8 bytes, big-endian, padded with 0 */
	uint32_t tok;
};

static int token_byte(const char *name, size_t len, uint32_t end, size_t i)
{
	return i < len ? (unsigned char)name[i] : i == len ? (end ? 0 : ';') : -1;
}

/* The byte order of two tokens whose first 8 bytes are equal. */
static int cmp_tokens(const void *a, const void *b)
{
	const struct token *x = a, *y = b;
	size_t lx, ly;
	const char *sx = td_intern_str(sort_names, x->tok >> 1, &lx);
	const char *sy = td_intern_str(sort_names, y->tok >> 1, &ly);
	size_t n = lx < ly ? lx : ly;
	int c = n > 8 ? memcmp(sx + 8, sy + 8, n - 8) : 0;
	if (c)
		return c;
	for (size_t i = n > 8 ? n : 8;; i++) {
		int bx = token_byte(sx, lx, x->tok & 1, i), by = token_byte(sy, ly, y->tok & 1, i);
		if (bx != by)
			return bx < by ? -1 : 1;
		if (bx < 0)
			return 0;
	}
}

/* rank[token] (1, 2, ...: 0 is a place past a stack's end) in the tokens'
 * byte order; false, and no ranks, if a name holds a ';' or a NUL byte. */
static bool rank_tokens(const struct td_intern *names, uint32_t *rank)
{
	uint32_t n = td_intern_count(names);
	struct token *t = td_malloc(((size_t)2 * n + 1) * sizeof(*t));
	for (uint32_t id = 0; id < n; id++) {
		size_t len;
		const char *s = td_intern_str(names, id, &len);
		if (memchr(s, ';', len) || memchr(s, '\0', len)) {
			free(t);
			return false;
		}
		uint64_t h = 0;
		for (size_t i = 0; i < 8; i++)
			h = h << 8 | (uint64_t)(i < len ? (unsigned char)s[i] : i == len ? ';' : 0);
		t[2 * id] = (struct token){ h, 2 * id };
		if (len < 8)
			h &= ~((uint64_t)0xff << (8 * (7 - len)));          /* its end reads as 0 */
		t[2 * id + 1] = (struct token){ h, 2 * id + 1 };
	}
	size_t nt = (size_t)2 * n;
	td_radix_sort(t, nt, sizeof(*t), offsetof(struct token, head), sizeof(uint64_t));
	for (size_t a = 0, b; a < nt; a = b) {
		for (b = a + 1; b < nt && t[b].head == t[a].head; b++)
			;
		if (b - a > 1)
			qsort(t + a, b - a, sizeof(*t), cmp_tokens);
	}
	for (size_t r = 0; r < nt; r++)
		rank[t[r].tok] = (uint32_t)r + 1;
	free(t);
	return true;
}

/* What a ranked sort needs: the ranks, and how many ranks a 64-bit key packs. */
struct ranking {
	const uint32_t *rank;
	unsigned bits, per;           /* bits a rank; ranks a key */
};

static uint32_t token_rank(const struct ranking *r, const struct out_line *l, size_t i)
{
	return r->rank[2 * id_at(l->key, i) + (i + 1 == l->nids)];
}

/* The ranks of l's tokens d, d + 1, ... (0 past its end), packed. */
static uint64_t key_at(const struct ranking *r, const struct out_line *l, size_t d)
{
	uint64_t k = 0;
	for (unsigned j = 0; j < r->per; j++)
		k = k << r->bits | (d + j < l->nids ? token_rank(r, l, d + j) : 0);
	return k;
}

/* The order of two stacks whose first d tokens are equal (both longer):
 * the first differing id is the first differing token, or one stack's
 * ids are the other's first ones (the shorter text is its prefix). */
static int cmp_ranked(const struct ranking *r, const struct out_line *x, const struct out_line *y, size_t d)
{
	size_t n = x->nids < y->nids ? x->nids : y->nids;
	if (d > n)
		d = n;                   /* not for distinct stacks; kept in bounds all the same */
	size_t i = d + shared_ids(x->key + d * 4, y->key + d * 4, n - d);
	if (i == n)
		return x->nids < y->nids ? -1 : x->nids > y->nids;
	return token_rank(r, x, i) < token_rank(r, y, i) ? -1 : 1;
}

#define INSERTION_MAX 12             /* a run this short is sorted by comparing */
#define RADIX_MIN 256                /* a run this long by a radix sort of its keys */
#define THREADED_MIN 4096            /* stacks sorted on two threads (fold_options.threads > 1) */

static int cmp_sort_keys(const void *a, const void *b)
{
	uint64_t x = ((const struct out_line *)a)->sort, y = ((const struct out_line *)b)->sort;
	return x < y ? -1 : x > y;
}

/* A run of lines whose first `depth` tokens are equal, waiting to be sorted. */
struct run {
	size_t at, n, depth;
};

/* Sorts lines[0..n) (distinct stacks) by their rank sequences: each run
 * of lines equal so far is sorted by its next r->per tokens, and its runs
 * of equal keys are pushed to be sorted by the ones after (a stack of
 * runs, not recursion: stacks may share thousands of frames). keyed: the
 * lines are sorted by their first keys already (sort_first). */
static void sort_ranked(const struct ranking *r, struct out_line *lines, size_t n, bool keyed)
{
	struct run *todo = NULL;
	size_t ntodo = 0, cap = 0;
	TD_ALLOC_GROW(todo, 1, cap);
	todo[ntodo++] = (struct run){ 0, n, 0 };
	while (ntodo) {
		struct run run = todo[--ntodo];
		struct out_line *l = lines + run.at;
		if (run.n <= INSERTION_MAX) {
			for (size_t i = 1; i < run.n; i++) {
				struct out_line x = l[i];
				size_t j = i;
				for (; j > 0 && cmp_ranked(r, &x, &l[j - 1], run.depth) < 0; j--)
					l[j] = l[j - 1];
				l[j] = x;
			}
			continue;
		}
		if (!keyed) {
			for (size_t i = 0; i < run.n; i++)
				l[i].sort = key_at(r, &l[i], run.depth);
			if (run.n >= RADIX_MIN)
				td_radix_sort(l, run.n, sizeof(*l), offsetof(struct out_line, sort), sizeof(uint64_t));
			else
				qsort(l, run.n, sizeof(*l), cmp_sort_keys);
		}
		keyed = false;
		/* equal keys: equal tokens, none past either stack's end (an
		 * end token is equal only to itself, in the same stack) */
		for (size_t a = 0, b; a < run.n; a = b) {
			for (b = a + 1; b < run.n && l[b].sort == l[a].sort; b++)
				;
			if (b - a > 1) {
				TD_ALLOC_GROW(todo, ntodo + 1, cap);
				todo[ntodo++] = (struct run){ run.at + a, b - a, run.depth + r->per };
			}
		}
	}
	free(todo);
}

/* lines[0..n) sorted by their first keys, for sort_ranked to go on. */
static void sort_first(const struct ranking *r, struct out_line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lines[i].sort = key_at(r, &lines[i], 0);
	td_radix_sort(lines, n, sizeof(*lines), offsetof(struct out_line, sort), sizeof(uint64_t));
}

struct sort_job {
	const struct ranking *r;
	struct out_line *lines;
	size_t n;
};

static void *sort_job(void *arg)
{
	struct sort_job *j = arg;
	sort_ranked(j->r, j->lines, j->n, true);
	return NULL;
}

/* ---- output ------------------------------------------------------------------------ */

#define OUT_BLOCK (64u << 10)        /* output is written in blocks of this many bytes */

/* " COUNT\n" at out (room for 22 bytes); its length. snprintf's format
 * parsing cost as much as joining the line. */
static size_t count_text(char *out, uint64_t count)
{
	char digits[24];
	char *p = digits + sizeof digits;
	*--p = '\n';
	do {
		*--p = (char)('0' + count % 10);
		count /= 10;
	} while (count);
	*--p = ' ';
	size_t n = (size_t)(digits + sizeof digits - p);
	td_copy_bytes(out, p, n);
	return n;
}

/* Writes lines[0..n) in their order, joined into a buffer that is written
 * OUT_BLOCK bytes or so at a time. */
static void write_lines(const struct fold_stacks *f, const struct out_line *lines, size_t n, FILE *out)
{
	size_t cap = OUT_BLOCK + 4096, used = 0;
	char *text = td_malloc(cap);
	for (size_t s = 0; s < n; s++) {
		for (size_t i = 0; i < lines[s].nids; i++) {
			size_t len;
			const char *name = td_intern_str(f->names, id_at(lines[s].key, i), &len);
			if (used + len + 32 > cap) {
				fwrite(text, 1, used, out);
				used = 0;
				if (len + 32 > cap) {
					cap = len + 32;
					text = td_realloc(text, cap);
				}
			}
			if (i)
				text[used++] = ';';
			td_copy_bytes(text + used, name, len);
			used += len;
		}
		if (used + 32 > cap) {
			fwrite(text, 1, used, out);
			used = 0;
		}
		used += count_text(text + used, f->counts[lines[s].s]);
		if (used >= OUT_BLOCK) {
			fwrite(text, 1, used, out);
			used = 0;
		}
	}
	fwrite(text, 1, used, out);
	free(text);
}

void fold_write(struct fold *fold, FILE *out)
{
	const struct fold_stacks st = fold_settled(fold);
	const struct fold_stacks *f = &st;
	uint32_t nstacks = f->nstacks;
	struct out_line *lines = td_malloc(((size_t)nstacks + 1) * sizeof(*lines));
	for (uint32_t s = 0; s < nstacks; s++) {
		const uint32_t *k = f->arena + f->at[s];
		lines[s].key = (const char *)(k + 1);
		lines[s].nids = k[0];
		lines[s].s = s;
	}
	uint32_t nnames = td_intern_count(f->names);
	uint32_t *rank = td_malloc(((size_t)2 * nnames + 1) * sizeof(*rank));
	sort_names = f->names;
	if (!td_plain() && rank_tokens(f->names, rank)) {
		struct ranking r = { rank, 1, 0 };
		while (r.bits < 32 && (uint64_t)2 * nnames >> r.bits)
			r.bits++;
		r.per = 64 / r.bits;
		sort_first(&r, lines, nstacks);
		/* on two threads: the lines from a first key near the middle on
		 * on another, while this one sorts and writes those before */
		size_t half = nstacks / 2;
		while (half > 0 && half < nstacks && lines[half].sort == lines[half - 1].sort)
			half++;
		struct sort_job job = { &r, lines + half, nstacks - half };
		pthread_t t;
		bool threaded = f->threads > 1 && nstacks >= THREADED_MIN && half < nstacks &&
				pthread_create(&t, NULL, sort_job, &job) == 0;
		if (!threaded)
			half = nstacks;
		sort_ranked(&r, lines, half, true);
		write_lines(f, lines, half, out);
		if (threaded) {
			pthread_join(t, NULL);
			write_lines(f, lines + half, job.n, out);
		}
	} else {
		qsort(lines, nstacks, sizeof(*lines), cmp_text);
		write_lines(f, lines, nstacks, out);
	}
	free(rank);
	free(lines);
}
