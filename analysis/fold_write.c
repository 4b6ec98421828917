/* fold_write: the folded stacks sorted by their text, byte by byte (as
 * stackcollapse-perf.pl sorts its keys), and written "a;b;c COUNT" a line. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "common/diag.h"
#include "common/intern.h"
#include "common/plain.h"
#include "common/swar.h"
#include "fold_internal.h"

/* An output line: stack s's ids (unaligned arena bytes) and its count. */
struct out_line {
	const char *key;
	size_t nids;
	uint64_t count;
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
/* Each name's place among all names as a stack's text holds them: followed
 * by ';' (rank_mid) or ending the text (rank_end). NULL: a name holds a
 * ';' itself, and the texts are compared byte by byte. */
static const uint32_t *rank_mid, *rank_end;

/* The byte order of the two stacks' texts from name i on. */
static int cmp_text_from(const struct out_line *x, const struct out_line *y, size_t i)
{
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

/* The byte order of the two stacks' texts (LC_ALL=C sort's): equal leading
 * ids are equal leading names, so only the text from the first differing
 * name on decides. With no ';' inside a name, each name with what follows
 * it (';' or the text's end) is a token no other token is a prefix of, so
 * the first differing token decides, by its rank; a token ending the text
 * against one that does not is read as text. */
static int cmp_lines(const void *a, const void *b)
{
	const struct out_line *x = a, *y = b;
	size_t n = x->nids < y->nids ? x->nids : y->nids, i = shared_ids(x->key, y->key, n);
	if (i == n)
		return x->nids == y->nids ? 0 : x->nids < y->nids ? -1 : 1;
	bool end_x = i + 1 == x->nids, end_y = i + 1 == y->nids;
	if (rank_mid && end_x == end_y) {
		const uint32_t *rank = end_x ? rank_end : rank_mid;
		uint32_t rx = rank[id_at(x->key, i)], ry = rank[id_at(y->key, i)];
		return rx < ry ? -1 : 1;
	}
	return cmp_text_from(x, y, i);
}

/* Name order for the ranks: bytes, then a shorter name's next byte (';' or,
 * ending the text, nothing) against the longer one's byte there. */
static int cmp_names_followed(uint32_t a, uint32_t b, int next)
{
	size_t la, lb;
	const char *sa = td_intern_str(sort_names, a, &la), *sb = td_intern_str(sort_names, b, &lb);
	int c = memcmp(sa, sb, la < lb ? la : lb);
	if (c || la == lb)
		return c;
	if (la < lb)
		return next < (unsigned char)sb[la] ? -1 : 1;
	return (unsigned char)sa[lb] < next ? -1 : 1;
}

static int cmp_names_mid(const void *a, const void *b)
{
	return cmp_names_followed(*(const uint32_t *)a, *(const uint32_t *)b, ';');
}

static int cmp_names_end(const void *a, const void *b)
{
	return cmp_names_followed(*(const uint32_t *)a, *(const uint32_t *)b, -1);
}

/* rank[id]: the place of name id in the order cmp gives; false if a name
 * holds a ';' (the ranks would not order the texts). */
static bool rank_names(const struct td_intern *names, uint32_t *order, uint32_t *rank,
		       int (*cmp)(const void *, const void *))
{
	uint32_t n = td_intern_count(names);
	for (uint32_t i = 0; i < n; i++) {
		size_t len;
		const char *s = td_intern_str(names, i, &len);
		if (memchr(s, ';', len))
			return false;
		order[i] = i;
	}
	qsort(order, n, sizeof(*order), cmp);
	for (uint32_t r = 0; r < n; r++)
		rank[order[r]] = r;
	return true;
}

/* The ids of stack s (arena bytes are not aligned, so copy them out). */
/* " COUNT\n" at out (room for 22 bytes); its length. snprintf's format
 * parsing cost as much as joining the line. */
static size_t count_text(char *out, uint64_t count)
{
	char digits[20];
	size_t n = 0;
	do {
		digits[n++] = (char)('0' + count % 10);
		count /= 10;
	} while (count);
	out[0] = ' ';
	for (size_t i = 0; i < n; i++)
		out[1 + i] = digits[n - 1 - i];
	out[1 + n] = '\n';
	return n + 2;
}

/* Writes lines[0..n) in their order, each line joined just before it is
 * written: memory holds one line of text. */
static void write_lines(const struct fold_stacks *f, const struct out_line *lines, size_t n, FILE *out)
{
	char *text = NULL;
	size_t cap = 0;
	for (size_t s = 0; s < n; s++) {
		size_t used = 0;
		for (size_t i = 0; i < lines[s].nids; i++) {
			size_t len;
			const char *name = td_intern_str(f->names, id_at(lines[s].key, i), &len);
			if (used + len + 32 > cap) {
				cap = (used + len + 32) * 2;
				text = td_realloc(text, cap);
			}
			if (i)
				text[used++] = ';';
			memcpy(text + used, name, len);
			used += len;
		}
		if (used + 32 > cap) {
			cap = used + 32;
			text = td_realloc(text, cap);
		}
		used += count_text(text + used, lines[s].count);
		fwrite(text, 1, used, out);
	}
	free(text);
}

#define WRITE_PART_MIN 8192          /* output lines a sorting thread takes at least */
#define SPLIT_SAMPLE 64              /* sampled lines a splitter, to choose the parts */

/* One thread's part of the output: lines between two splitters, sorted
 * on a thread of its own; the caller writes the parts in order, so memory
 * never holds more than a line of output text. */
struct write_part {
	struct out_line *lines;
	size_t n;
	pthread_t thread;
	bool started;
};

static void *sort_part(void *arg)
{
	struct write_part *w = arg;
	qsort(w->lines, w->n, sizeof(*w->lines), cmp_lines);
	return NULL;
}

struct rank_job {
	const struct td_intern *names;
	uint32_t *order, *rank;
	bool ok;
};

static void *rank_mid_names(void *arg)
{
	struct rank_job *j = arg;
	j->ok = rank_names(j->names, j->order, j->rank, cmp_names_mid);
	return NULL;
}

/* The part (0 .. nsplit) line l falls in: the splitters it is not below. */
static size_t part_of(const struct out_line *l, const struct out_line *split, size_t nsplit)
{
	size_t lo = 0, hi = nsplit;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cmp_lines(&split[mid], l) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Sorted by text. With opt.threads > 1 and enough lines, the lines are
 * cut into parts between splitters (quantiles of a sorted sample), each
 * sorted by its own thread, and the parts are written in order: the bytes
 * one thread writes. */
void fold_write(struct fold *fold, FILE *out)
{
	const struct fold_stacks st = fold_settled(fold);
	const struct fold_stacks *f = &st;
	uint32_t nstacks = td_intern_count(f->stacks);
	struct out_line *lines = td_malloc((nstacks + 1) * sizeof(*lines));
	for (uint32_t s = 0; s < nstacks; s++) {
		size_t klen;
		lines[s].key = td_intern_str(f->stacks, s, &klen);
		lines[s].nids = klen / sizeof(uint32_t);
		lines[s].count = f->counts[s];
	}
	size_t nparts = f->threads > 1 ? (size_t)f->threads : 1;
	if (nparts > nstacks / WRITE_PART_MIN)
		nparts = nstacks / WRITE_PART_MIN ? nstacks / WRITE_PART_MIN : 1;
	sort_names = f->names;
	uint32_t nnames = td_intern_count(f->names);
	uint32_t *ranks = td_malloc(4 * ((size_t)nnames + 1) * sizeof(*ranks));
	uint32_t *order = ranks + 2 * ((size_t)nnames + 1);
	bool ranked = false;
	if (!td_plain()) {
		/* the two rankings are independent: the second on a thread of its own */
		struct rank_job mid = { f->names, order + nnames + 1, ranks, false };
		pthread_t t;
		bool threaded = nparts > 1 && pthread_create(&t, NULL, rank_mid_names, &mid) == 0;
		if (!threaded)
			rank_mid_names(&mid);
		ranked = rank_names(f->names, order, ranks + nnames + 1, cmp_names_end);
		if (threaded)
			pthread_join(t, NULL);
		ranked = ranked && mid.ok;
	}
	rank_mid = ranked ? ranks : NULL;
	rank_end = ranked ? ranks + nnames + 1 : NULL;
	struct write_part *parts = td_calloc(nparts, sizeof(*parts));
	struct out_line *sorted = lines;
	if (nparts > 1) {
		/* splitters: every SPLIT_SAMPLE-th of a sorted evenly spaced sample */
		size_t nsample = nparts * SPLIT_SAMPLE, nsplit = nparts - 1;
		struct out_line *sample = td_malloc(nsample * sizeof(*sample));
		for (size_t i = 0; i < nsample; i++)
			sample[i] = lines[(size_t)((double)i * nstacks / (double)nsample)];
		qsort(sample, nsample, sizeof(*sample), cmp_lines);
		for (size_t k = 0; k < nsplit; k++)
			sample[k] = sample[(k + 1) * SPLIT_SAMPLE];
		uint32_t *part = td_malloc((nstacks + 1) * sizeof(*part));
		size_t *at = td_calloc(nparts + 1, sizeof(*at));
		for (uint32_t s = 0; s < nstacks; s++) {
			part[s] = (uint32_t)part_of(&lines[s], sample, nsplit);
			at[part[s] + 1]++;
		}
		for (size_t k = 0; k < nparts; k++) {
			parts[k].n = at[k + 1];
			at[k + 1] += at[k];
		}
		sorted = td_malloc((nstacks + 1) * sizeof(*sorted));
		for (size_t k = 0; k < nparts; k++)
			parts[k].lines = sorted + at[k];
		for (uint32_t s = 0; s < nstacks; s++)
			sorted[at[part[s]]++] = lines[s];
		free(at);
		free(part);
		free(sample);
	} else {
		parts[0].lines = lines;
		parts[0].n = nstacks;
	}
	for (size_t k = 1; k < nparts; k++)
		parts[k].started = pthread_create(&parts[k].thread, NULL, sort_part, &parts[k]) == 0;
	for (size_t k = 0; k < nparts; k++) {
		if (parts[k].started)
			pthread_join(parts[k].thread, NULL);
		else
			sort_part(&parts[k]);
		write_lines(f, parts[k].lines, parts[k].n, out);
	}
	rank_mid = rank_end = NULL;
	free(ranks);
	free(parts);
	if (sorted != lines)
		free(sorted);
	free(lines);
}

