#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "common/bytes.h"
#include "common/diag.h"
#include "common/grow.h"
#include "common/intern.h"
#include "common/plain.h"
#include "common/swar.h"
#include "fold_internal.h"
#include "parsers/sniff.h"

#define MAX_WARNINGS FOLD_MAX_WARNINGS
#define RECENT_HEADERS 64
#define HEADER_KEYS_MAX 4096         /* fold_cache_header's keys kept at most */
#define HEADER_MEMO 1024             /* header starts remembered (header_memo) */
#define HEADER_MEMO_TEXT 46

struct id_vec {
	uint32_t *v;
	size_t n, cap;
};

/* A frame line's output names, cached by (java?, sym, dso[, pc]). */
struct cached_frame {
	uint32_t first;              /* index into frame_pool */
	uint32_t count;
	uint32_t unknown;            /* names that are "[unknown]" */
};

struct event_count {
	uint64_t samples;
};

/* fold_text's memo of sample bodies (the frame lines between a header and
 * the blank line) and the state they are read in (open sample, java): the
 * frame ids those lines push, in order. An entry is made only for a body
 * whose every line folded as a frame line, so a hit does exactly what
 * reading the lines would. Bounded: full, it is emptied and refilled.
 *
 * A body is found two ways, each confirmed by comparing its bytes in full
 * (a hash alone could give one body another's stack):
 * - by its start: the bodies whose first MEMO_START bytes hash alike are
 *   chained, the last one met first; a stored body equal to the bytes at
 *   the input, a newline after them, is the body there (see memo_by_start),
 *   so a hit neither scans the body for its end nor hashes it;
 * - by a hash of the whole body, once its end is found, when the first
 *   MEMO_TRIES of its chain were not it. */
#define MEMO_MAX_BODIES (1u << 16)
#define MEMO_MAX_IDS (1u << 20)
#define MEMO_MAX_TEXT (4u << 20)
#define MEMO_START 32u               /* bytes of a body's start that chain it */
#define MEMO_TRIES 16u                /* bodies of a chain compared before the hash is asked */

struct memo_body {
	uint32_t text_at, text_len;  /* into memo.text */
	uint32_t first, nids;        /* into memo.ids */
	uint32_t nlines, unknown;
	uint32_t state;              /* of the read: java (0, 1) in an open sample; 2: none open */
	uint32_t same_start;         /* the next body of its start chain (index + 1; 0: none) */
};

struct memo_slot {
	uint64_t hash;               /* of the whole body and its state */
	uint32_t body;               /* index + 1 into memo.body; 0: empty */
};

/* Where few bodies repeat (a system-wide recording full of unique
 * stacks) the memo costs more than it saves: after each MEMO_PERIOD
 * lookups that hit less than half of the time, the next bodies are read
 * without it: MEMO_REST periods of them after the first such period, then
 * 2n + 1 after a rest of n periods is followed by another poor period, up
 * to MEMO_REST_MAX; a period that hits half of the time or more keeps the
 * memo on and the rests start over. */
#define MEMO_PERIOD 4096u
#define MEMO_REST 7u
#define MEMO_REST_MAX 255u

struct body_memo {
	struct memo_slot *slot;
	size_t cap, n;               /* slots (a power of two), bodies */
	struct memo_body *body;
	size_t body_cap;
	uint32_t *start;             /* cap chain heads by start hash (index + 1; 0: none) */
	uint32_t *ids;
	size_t nids, ids_cap;
	char *text;
	size_t ntext, text_cap;
	uint32_t lookups, hits, rest;
	uint32_t rest_periods;       /* of the next rest; 0: MEMO_REST */
};

/* Frame lines by their key text (java, symbol without its offset, dso):
 * an open-addressed array of 8-byte slots, each the key's 32-bit hash and
 * where its record is, and the records in one arena: the key's lengths,
 * what the line pushes, then the key bytes, compared in full on a hit (a
 * hash alone could name the wrong frame). A lookup touches a slot and a
 * record: with the few thousand keys of most recordings both arrays stay
 * in the core's cache, where frame_keys' 16-byte slots, its scattered
 * strings and the cache entry they lead to did not. */
struct line_slot {
	uint32_t hash;
	uint32_t rec;                /* in line_table.arena; 0: empty */
};

/* A record's words, then its key bytes. REC_NEXT is the record of the
 * line that followed this one last time in a sample: callers repeat, so
 * the next line is checked against it first, without hashing or a slot.
 * REC_TEXT is where that line's bytes (up to its newline, REC_TLEN of
 * them, 0: none kept) are in line_table.text, in REC_TCAP bytes of room:
 * a line with exactly those bytes is that record's again, as the same
 * bytes parse alike, so fold_text pushes it with no parse and no lookup.
 * REC_ONE is the one name a line of one name pushes, flagged REC_UNKNOWN
 * if it counts as an unknown frame; lines of several names (REC_NONE)
 * push those of cache entry REC_FRAME. */
enum { REC_LENS, REC_DSO, REC_ONE, REC_FRAME, REC_NEXT, REC_TEXT, REC_TLEN, REC_TCAP, REC_KEY };
#define REC_JAVA 0x80000000u     /* in REC_LENS, with the symbol's length */
#define REC_NONE UINT32_MAX      /* REC_ONE: not a single name */
#define REC_UNKNOWN 0x80000000u  /* REC_ONE: the single name is an "[unknown]" one */
#define LINE_KEY_MAX 4096        /* longer keys go through frame_keys alone */
#define LINE_TEXT_MAX 1024       /* longer next lines are not kept (REC_TEXT) */
#define LINE_TEXT_PAD 16         /* bytes after the last text a 16-byte load may read */

struct line_table {
	struct line_slot *slot;
	uint32_t nslots, n;          /* nslots: a power of two, or 0 */
	uint32_t *arena;
	size_t used, cap;            /* in words; word 0 is never a record */
	char *text;                  /* the records' next lines (REC_TEXT) */
	size_t text_used, text_cap;  /* text_cap - text_used >= LINE_TEXT_PAD */
};

/* The distinct stacks: one open-addressing probe finds a stack's slot,
 * which names where the stack is stored with its count, so counting a
 * known stack touches the slot and the stored stack only. Stack id s is
 * stored at arena[at[s]] as [count, 2 words][id][n][n name ids]; a slot
 * names the word n (at 0: empty). Slots are 8 bytes, the count being
 * next to the ids a hit compares anyway: a system-wide recording has tens
 * of thousands of stacks, and the smaller the slots the more of them stay
 * in the core's cache. counts[s] is filled from the arena by settle(). */
#define STACK_COUNT 3u               /* words from a stack's count to its n */
struct stack_table {
	struct stack_slot {
		uint32_t hash;           /* the hash's low half: where it goes, and a first check */
		uint32_t at;             /* 0: empty */
	} *slot;
	uint32_t nslots, n;          /* nslots: a power of two (grown at half full) */
	uint32_t *arena;
	size_t used, cap;            /* in words; word 0 is never a stack */
	uint32_t *at;                /* by id */
	size_t at_cap;
	uint64_t *counts;            /* by id, as of the last settle() */
};

#define PENDING 4u                   /* stacks waiting to be counted: a power of two, >= 2 */

struct fold {
	struct fold_options opt;
	struct td_intern *names;         /* output frame names */
	struct td_intern *frame_keys;    /* cache key -> cached_frame */
	struct cached_frame *cache;
	size_t cache_cap;
	struct id_vec frame_pool;
	struct stack_table stacks;       /* the stacks counted so far */
	struct pending_stack {           /* counted PENDING stacks late (count_stack) */
		struct id_vec ids;
		uint64_t hash, count;
		bool used;
	} pending[PENDING];              /* a ring, the oldest at pending_at */
	unsigned pending_at;
	/* the sample being read */
	bool in_sample;
	uint32_t pname;
	bool java;                       /* pname is java*: tidy Java names */
	uint64_t period;
	struct id_vec frames;            /* leaf first, each line's names reversed */
	struct id_vec key;
	/* the event filter */
	char *event;
	size_t event_n;                  /* strlen(event) */
	bool event_defaulted;
	struct td_intern *skipped;       /* event names not kept */
	struct td_intern *header_keys;   /* fold_cached_header: "comm\0tid\0event" */
	struct cached_header { uint32_t pname; bool java, kept; } *headers;
	size_t headers_cap;
	struct recent_header {           /* the last keys found, by tid: no key built, no hashing */
		int32_t tid;
		uint32_t id;             /* in header_keys, + 1; 0: empty */
		char comm[32], event[24];   /* the key's parts, NUL-terminated */
	} recent[RECENT_HEADERS];
	uint64_t *skipped_samples;
	size_t skipped_cap;
	/* what the end-of-run notes say */
	uint64_t frames_total, frames_unknown;
	uint64_t malformed;
	struct sniff_votes votes;        /* what unrecognized lines before any stack look like */
	uint32_t *plain[2];              /* fold_resolved_frame: [java][sym_id] -> cache index + 1,
					    or ONE_NAME | the frame's one name (see there) */
	size_t plain_cap[2];
	struct resolved_slot *resolved;  /* its frames whose names depend on the address */
	size_t resolved_n, resolved_cap;
	char scratch_buf[256];
	char *scratch;
	size_t scratch_cap;
	bool memo_on;                    /* !td_plain() */
	struct body_memo memo;
	bool lines_on;                   /* !td_plain() */
	struct line_table lines;
	uint32_t last_rec;               /* the record of the sample's previous frame line; 0: none */
	struct header_memo {             /* recent headers' starts, by a hash of their first 16 bytes */
		uint32_t n;              /* text's length; 0: empty */
		uint32_t pname;
		bool java;
		uint8_t comm_n, pid_at, pid_n, tid_at, tid_n;   /* pid_n 0: no pid */
		char text[HEADER_MEMO_TEXT];
	} headers_seen[HEADER_MEMO];
	struct recent_pname {            /* header_line's last root names, by a hash of their text */
		uint32_t id, len;        /* len 0: empty */
		char text[40];
	} pnames[64];
};

/* v's room grown to at least need ids: out of line, as it is rare. */
static void __attribute__((noinline)) vec_grow(struct id_vec *v, size_t need)
{
	size_t cap = v->cap ? v->cap * 2 : 256;
	while (cap < need)
		cap *= 2;
	v->cap = cap;
	v->v = td_realloc(v->v, v->cap * sizeof(*v->v));
}

/* Room for extra more ids at v->v + v->n. */
static inline uint32_t *vec_reserve(struct id_vec *v, size_t extra)
{
	if (__builtin_expect(v->cap - v->n < extra, 0))
		vec_grow(v, v->n + extra);
	return v->v + v->n;
}

static inline void vec_push(struct id_vec *v, uint32_t id)
{
	if (__builtin_expect(v->n == v->cap, 0))
		vec_grow(v, v->n + 1);
	v->v[v->n++] = id;
}

struct fold *fold_new(const struct fold_options *opts)
{
	struct fold *f = td_calloc(1, sizeof(*f));
	f->opt = *opts;
	f->names = td_intern_new();
	f->frame_keys = td_intern_new();
	f->skipped = td_intern_new();
	f->header_keys = td_intern_new();
	if (opts->event_filter) {
		f->event_n = strlen(opts->event_filter);
		f->event = td_strndup(opts->event_filter, f->event_n);
	}
	f->memo_on = !td_plain();
	f->lines_on = !td_plain();
	return f;
}

void fold_free(struct fold *f)
{
	if (!f)
		return;
	td_intern_free(f->names);
	td_intern_free(f->frame_keys);
	free(f->stacks.slot);
	free(f->stacks.arena);
	free(f->stacks.at);
	free(f->stacks.counts);
	td_intern_free(f->skipped);
	td_intern_free(f->header_keys);
	free(f->headers);
	free(f->cache);
	free(f->frame_pool.v);
	for (unsigned i = 0; i < PENDING; i++)
		free(f->pending[i].ids.v);
	free(f->frames.v);
	free(f->key.v);
	free(f->event);
	free(f->skipped_samples);
	free(f->scratch);
	free(f->resolved);
	free(f->plain[0]);
	free(f->plain[1]);
	free(f->memo.slot);
	free(f->memo.body);
	free(f->memo.start);
	free(f->memo.ids);
	free(f->memo.text);
	free(f->lines.slot);
	free(f->lines.arena);
	free(f->lines.text);
	free(f);
}

const char *fold_event(const struct fold *f) { return f->event; }
uint64_t fold_malformed(const struct fold *f) { return f->malformed; }

/* A growable scratch string for building one name. */
static char *scratch(struct fold *f, size_t need)
{
	if (need > f->scratch_cap) {
		f->scratch_cap = need * 2;
		f->scratch = td_realloc(f->scratch, f->scratch_cap);
	}
	return f->scratch;
}

static bool contains(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

/* "/tmp/perf-<digits>.map" anywhere in the dso */
static bool is_perf_map(const char *s, size_t n)
{
	for (const char *p = s; (p = memmem(p, n - (size_t)(p - s), "/tmp/perf-", 10)); p++) {
		const char *d = p + 10, *end = s + n;
		const char *q = d;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q > d && end - q >= 4 && memcmp(q, ".map", 4) == 0)
			return true;
	}
	return false;
}

static bool is_kernel_dso(const char *s, size_t n)
{
	bool looks = (n > 0 && s[0] == '[') || (n >= 7 && memcmp(s + n - 7, "vmlinux", 7) == 0);
	return looks && !contains(s, n, "unknown");
}

/* Where stackcollapse-perf.pl cuts a name at '(': the first '(' not opening
 * "(anonymous namespace)", unless the name has a Go-style ".(...)." */
static size_t cut_at_paren(const char *s, size_t n)
{
	const char *dp = memmem(s, n, ".(", 2);
	if (dp && memmem(dp + 2, n - (size_t)(dp + 2 - s), ").", 2))
		return n;
	static const char anon[] = "anonymous namespace)";
	for (size_t i = 0; i < n; i++)
		if (s[i] == '(' && !(n - i - 1 >= sizeof anon - 1 && memcmp(s + i + 1, anon, sizeof anon - 1) == 0))
			return i;
	return n;
}

/* One function name of a frame line, tidied and annotated; returns its id. */
static uint32_t frame_name(struct fold *f, const char *func, size_t n, const struct script_frame *fr,
			   bool java, bool inlined, bool *unknown)
{
	char *b = scratch(f, n + fr->dso.n + fr->pc.n + 16);
	size_t len = 0;
	*unknown = false;
	if (n == 9 && memcmp(func, "[unknown]", 9) == 0) {
		const char *m = fr->dso.p;
		size_t mn = fr->dso.n;
		if (!(mn == 9 && memcmp(m, "[unknown]", 9) == 0)) {
			const char *slash = memrchr(m, '/', mn);
			if (slash) {
				mn -= (size_t)(slash + 1 - m);
				m = slash + 1;
			}
		} else {
			m = "unknown";
			mn = 7;
			*unknown = true;
		}
		b[len++] = '[';
		memcpy(b + len, m, mn);
		len += mn;
		if (f->opt.addrs) {
			memcpy(b + len, " <", 2);
			memcpy(b + len + 2, fr->pc.p, fr->pc.n);
			len += 2 + fr->pc.n;
			b[len++] = '>';
		}
		b[len++] = ']';
	} else {
		memcpy(b, func, n);
		len = n;
	}
	/* tidy: ';' -> ':', cut at '(', drop quotes */
	for (size_t i = 0; i < len; i++)
		if (b[i] == ';')
			b[i] = ':';
	len = cut_at_paren(b, len);
	size_t w = 0;
	for (size_t i = 0; i < len; i++)
		if (b[i] != '"' && b[i] != '\'')
			b[w++] = b[i];
	len = w;
	if (java && len > 0 && b[0] == 'L' && memchr(b, '/', len)) {
		memmove(b, b + 1, len - 1);
		len--;
	}
	if (inlined) {
		if (!contains(b, len, "_[i]")) {
			memcpy(b + len, "_[i]", 4);
			len += 4;
		}
	} else if (f->opt.kernel && is_kernel_dso(fr->dso.p, fr->dso.n)) {
		memcpy(b + len, "_[k]", 4);
		len += 4;
	} else if (f->opt.jit && is_perf_map(fr->dso.p, fr->dso.n)) {
		if (!contains(b, len, "_[j]")) {
			memcpy(b + len, "_[j]", 4);
			len += 4;
		}
	}
	return td_intern(f->names, b, len);
}

static const bool lower_hex[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
};

/* The symbol without one "+0x<hex>" offset at its end. */
static inline __attribute__((always_inline)) struct td_span strip_offset(struct td_span sym)
{
	for (size_t i = sym.n; i >= 3; i--) {
		char c = sym.p[i - 1];
		if (lower_hex[(unsigned char)c])
			continue;
		if (i < sym.n && c == 'x' && sym.p[i - 2] == '0' && sym.p[i - 3] == '+')
			sym.n = i - 3;
		break;
	}
	return sym;
}

/* Names of one frame line ("a->b->c" gives three), through the cache. */
static const struct cached_frame *frame_names(struct fold *f, const struct script_frame *fr, bool java)
{
	struct td_span sym = strip_offset(fr->sym);
	bool need_pc = f->opt.addrs && contains(sym.p, sym.n, "[unknown]");
	size_t keylen = 1 + sym.n + 1 + fr->dso.n + (need_pc ? 1 + fr->pc.n : 0);
	char *k = keylen <= sizeof f->scratch_buf ? f->scratch_buf : scratch(f, keylen);
	k[0] = java ? 'j' : '-';
	memcpy(k + 1, sym.p, sym.n);
	k[1 + sym.n] = '\0';
	memcpy(k + 2 + sym.n, fr->dso.p, fr->dso.n);
	if (need_pc) {
		k[2 + sym.n + fr->dso.n] = '\0';
		memcpy(k + 3 + sym.n + fr->dso.n, fr->pc.p, fr->pc.n);
	}
	uint32_t before = td_intern_count(f->frame_keys);
	uint32_t id = td_intern(f->frame_keys, k, keylen);
	if (id < before)
		return &f->cache[id];
	if (id >= f->cache_cap) {
		f->cache_cap = f->cache_cap ? f->cache_cap * 2 : 1024;
		f->cache = td_realloc(f->cache, f->cache_cap * sizeof(*f->cache));
	}
	struct cached_frame *c = &f->cache[id];
	c->first = (uint32_t)f->frame_pool.n;
	c->count = 0;
	c->unknown = 0;
	if (sym.n > 0 && sym.p[0] == '(')
		return c;                       /* a process name, not a frame */
	/* split on "->"; like perl's split, trailing empty pieces vanish */
	size_t end = sym.n;
	while (end >= 2 && sym.p[end - 2] == '-' && sym.p[end - 1] == '>')
		end -= 2;
	size_t start = 0;
	while (start <= end && (end > 0 || start == 0)) {
		const char *arrow = memmem(sym.p + start, end - start, "->", 2);
		size_t stop = arrow ? (size_t)(arrow - sym.p) : end;
		bool unknown;
		vec_push(&f->frame_pool, frame_name(f, sym.p + start, stop - start, fr, java, c->count > 0, &unknown));
		c->count++;
		c->unknown += unknown;
		if (!arrow)
			break;
		start = stop + 2;
	}
	/* frame_pool may have moved; c points into f->cache, which did not */
	return c;
}

static void __attribute__((noinline)) stacks_grow(struct stack_table *t)
{
	TD_TABLE_DOUBLE(t->slot, t->nslots, 4096, at, hash);
}

/* A new stack in slot s (empty). */
static void __attribute__((noinline)) stacks_add(struct stack_table *t, struct stack_slot *s, const uint32_t *ids,
						  size_t n, uint32_t low, uint64_t count)
{
	if (t->used == 0)
		t->used = 1;
	size_t need = t->used + STACK_COUNT + 1 + n;
	if (need > UINT32_MAX)
		td_die("too many distinct stacks");
	if (need > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1 << 16;
		while (cap < need)
			cap *= 2;
		t->cap = cap;
		t->arena = td_realloc(t->arena, cap * sizeof(*t->arena));
	}
	if (t->n == t->at_cap) {
		t->at_cap = t->at_cap ? t->at_cap * 2 : 4096;
		t->at = td_realloc(t->at, t->at_cap * sizeof(*t->at));
	}
	uint32_t *w = t->arena + t->used;
	memcpy(w, &count, sizeof count);
	w[2] = t->n;
	w[3] = (uint32_t)n;
	if (n)
		memcpy(w + 4, ids, n * sizeof(*ids));
	uint32_t at = (uint32_t)(t->used + STACK_COUNT);
	t->at[t->n++] = at;
	t->used = need;
	*s = (struct stack_slot){ low, at };
	if (t->n * 2 > t->nslots)
		stacks_grow(t);
}

static inline __attribute__((always_inline)) void count_now(struct fold *f, const uint32_t *ids, size_t n, uint64_t h,
								uint64_t count)
{
	struct stack_table *t = &f->stacks;
	if (!t->nslots)
		stacks_grow(t);
	uint32_t mask = t->nslots - 1, low = (uint32_t)h;
	for (uint32_t i = low & mask;; i = (i + 1) & mask) {
		struct stack_slot *s = &t->slot[i];
		if (!s->at) {
			stacks_add(t, s, ids, n, low, count);
			return;
		}
		uint32_t *k = t->arena + s->at;
		if (s->hash == low && k[0] == n && td_same_bytes((const char *)(k + 1), (const char *)ids, n * sizeof(*ids))) {
			uint64_t c;
			memcpy(&c, k - STACK_COUNT, sizeof c);
			c += count;
			memcpy(k - STACK_COUNT, &c, sizeof c);
			return;
		}
	}
}

/* Fetches the stored stack at (its n) as far as a stack of n ids goes:
 * most stored stacks straddle two cache lines, and the compare reads all
 * of them. Not past the arena's used words. */
static inline void prefetch_stack(const struct stack_table *t, uint32_t at, size_t n)
{
	const uint32_t *rec = t->arena + at - STACK_COUNT;
	size_t words = STACK_COUNT + 1 + n;
	if (words > t->used - (at - STACK_COUNT))
		words = t->used - (at - STACK_COUNT);
	for (size_t w = 0; w < words && w < 8 * 16; w += 16)
		__builtin_prefetch(rec + w);
	__builtin_prefetch(rec + words - 1);
}

/* Looking a stack up costs two cache misses (its slot, then the stored
 * stack), so each is counted PENDING stacks later: its slot is fetched
 * when it comes, the stored stack halfway to its count, when the slot is
 * there to say where it is, so each fetch has two samples' work to hide
 * behind, not one. ids' storage is taken (swapped with a pending
 * stack's): the caller refills it from n = 0. */
static void count_stack(struct fold *f, struct id_vec *ids, uint64_t count)
{
	/* every lookup in f->stacks comes here: any hash of the ids will do,
	 * and this one is inline */
	struct stack_table *t = &f->stacks;
	uint64_t h = td_hash_short((const char *)ids->v, ids->n * sizeof(*ids->v), 0);
	unsigned at = f->pending_at;
	const struct pending_stack *half = &f->pending[(at + PENDING / 2) % PENDING];
	if (t->nslots) {
		__builtin_prefetch(&t->slot[(uint32_t)h & (t->nslots - 1)]);
		if (half->used) {
			const struct stack_slot *s = &t->slot[(uint32_t)half->hash & (t->nslots - 1)];
			if (s->at && s->hash == (uint32_t)half->hash)
				prefetch_stack(t, s->at, half->ids.n);
		}
	}
	struct pending_stack *oldest = &f->pending[at];
	if (oldest->used)
		count_now(f, oldest->ids.v, oldest->ids.n, oldest->hash, oldest->count);
	/* the oldest's place, counted, holds this stack, the newest */
	struct id_vec mine = *ids;
	*ids = oldest->ids;
	ids->n = 0;
	oldest->ids = mine;
	oldest->hash = h;
	oldest->count = count;
	oldest->used = true;
	f->pending_at = (at + 1) % PENDING;
}

/* Counts the stacks still pending; counts[] by id from the arena. */
static void settle(struct fold *f)
{
	for (unsigned i = 0; i < PENDING; i++) {
		struct pending_stack *p = &f->pending[(f->pending_at + i) % PENDING];   /* the oldest first */
		if (p->used) {
			count_now(f, p->ids.v, p->ids.n, p->hash, p->count);
			p->used = false;
		}
	}
	struct stack_table *t = &f->stacks;
	t->counts = td_realloc(t->counts, ((size_t)t->n + 1) * sizeof(*t->counts));
	for (uint32_t s = 0; s < t->n; s++)
		memcpy(&t->counts[s], t->arena + t->at[s] - STACK_COUNT, sizeof(*t->counts));
}

static bool is_skip_after(const struct fold *f, uint32_t name)
{
	size_t n;
	const char *s = td_intern_str(f->names, name, &n);
	for (int i = 0; i < f->opt.nskip_after; i++)
		if (strlen(f->opt.skip_after[i]) == n && memcmp(f->opt.skip_after[i], s, n) == 0)
			return true;
	return false;
}

/* to[i] = from[n - 1 - i] for i < n (no overlap): four at a time. */
static inline void reverse_ids(uint32_t *to, const uint32_t *from, size_t n)
{
	size_t i = 0;
#if defined(__SSE2__)
	for (; i + 4 <= n; i += 4) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(from + n - 4 - i));
		_mm_storeu_si128((__m128i *)(void *)(to + i), _mm_shuffle_epi32(x, _MM_SHUFFLE(0, 1, 2, 3)));
	}
#endif
	for (; i < n; i++)
		to[i] = from[n - 1 - i];
}

/* The blank line after a sample: count "pname;root;...;leaf". */
static void end_sample(struct fold *f)
{
	if (!f->in_sample)
		return;
	f->key.n = 0;
	vec_push(&f->key, f->pname);
	size_t root = f->frames.n;
	if (f->opt.nskip_after) {
		for (size_t i = 0; i < f->frames.n; i++)
			if (is_skip_after(f, f->frames.v[i])) {
				root = i + 1;
				break;
			}
	}
	reverse_ids(vec_reserve(&f->key, root), f->frames.v, root);
	f->key.n += root;
	count_stack(f, &f->key, f->period);
	f->frames.n = 0;
	f->in_sample = false;
}

static void note_skipped(struct fold *f, struct td_span ev, uint64_t samples)
{
	uint32_t id = td_intern(f->skipped, ev.p, ev.n);
	if (id >= f->skipped_cap) {
		size_t old = f->skipped_cap;
		f->skipped_cap = id + 16;
		f->skipped_samples = td_realloc(f->skipped_samples, f->skipped_cap * sizeof(uint64_t));
		memset(f->skipped_samples + old, 0, (f->skipped_cap - old) * sizeof(uint64_t));
	}
	f->skipped_samples[id] += samples;
}

static uint32_t load32(const char *p)
{
	uint32_t w;
	memcpy(&w, p, sizeof w);
	return w;
}

/* td_intern(f->names, b, len), asked of a small cache of recent root
 * names first: a sample's header would otherwise hash its name and look
 * it up among all frame names, where its slot has left the cache. */
static uint32_t pname_id(struct fold *f, const char *b, size_t len)
{
	if (!f->lines_on || len == 0 || len > sizeof f->pnames[0].text)
		return td_intern(f->names, b, len);
	uint32_t k = (uint32_t)len * 0x9e3779b1u ^ (unsigned char)b[0] * 0x85ebca6bu ^
		     (unsigned char)b[len - 1] * 0xc2b2ae35u ^ (unsigned char)b[len / 2] * 0x27d4eb2fu;
	struct recent_pname *r = &f->pnames[(k >> 16) % (sizeof f->pnames / sizeof f->pnames[0])];
	if (r->len == len && td_same_bytes(r->text, b, len))
		return r->id;
	r->id = td_intern(f->names, b, len);
	r->len = (uint32_t)len;
	memcpy(r->text, b, len);
	return r->id;
}

/* Whether the header's event is kept (the first one met, by default);
 * a sample of another is counted as skipped. */
static bool event_kept(struct fold *f, const struct script_header *h)
{
	if (h->event.n) {
		if (!f->event) {
			f->event = td_strndup(h->event.p, h->event.n);
			f->event_n = h->event.n;
			f->event_defaulted = true;
		} else if (f->event_n != h->event.n || !td_same_bytes(f->event, h->event.p, h->event.n)) {
			note_skipped(f, h->event, 1);
			return false;
		}
	}
	return true;
}

static void start_sample(struct fold *f, uint32_t pname, bool java, uint64_t period)
{
	f->pname = pname;
	f->java = java;
	f->period = period;
	f->in_sample = true;
	f->last_rec = 0;
}

/* A sample's header: false when its event is not kept. */
static bool header_line(struct fold *f, const struct script_header *h)
{
	if (!event_kept(f, h))
		return false;
	char *b = scratch(f, h->comm.n + h->pid.n + h->tid.n + 8);
	size_t len = h->comm.n;
	memcpy(b, h->comm.p, len);
	if (f->opt.pid || f->opt.tid) {
		b[len++] = '-';
		if (h->pid.n) {
			memcpy(b + len, h->pid.p, h->pid.n);
			len += h->pid.n;
		} else {
			b[len++] = '?';
		}
		if (f->opt.tid) {
			b[len++] = '/';
			memcpy(b + len, h->tid.p, h->tid.n);
			len += h->tid.n;
		}
	}
	for (size_t i = 0; i < len; i++)
		if (b[i] == ' ')
			b[i] = '_';
	/* java: as stackcollapse-perf.pl */
	start_sample(f, pname_id(f, b, len), len >= 4 && memcmp(b, "java", 4) == 0, h->period);
	return true;
}

static void push_frame_names(struct fold *f, const struct cached_frame *c)
{
	for (uint32_t i = c->count; i-- > 0;)
		vec_push(&f->frames, f->frame_pool.v[c->first + i]);
	f->frames_total += c->count;
	f->frames_unknown += c->unknown;
}

/* Up to 8 bytes of p[0..n) as a word: the 8 at p + at (0 <= at <= n - 8)
 * when there are 8, else all of them; no byte read outside them. */
static inline uint64_t word_at(const char *p, size_t n, size_t at)
{
	if (n >= 8)
		return td_swar_load(p + at);
	if (n >= 4)
		return load32(p) | (uint64_t)load32(p + n - 4) << 32;
	if (n)
		return (unsigned char)p[0] | (uint32_t)(unsigned char)p[n / 2] << 8 |
		       (uint32_t)(unsigned char)p[n - 1] << 16;
	return 0;
}

/* A hash of a line's key: the lengths, the symbol's first, middle and last
 * 8 bytes and the dso's last 8 (all of either if shorter). A lookup
 * compares the whole key on a hash match, so keys that differ elsewhere
 * only share a hash; a line's key is hashed on every line the prediction
 * misses, where mixing every byte, or one word after another, cost more:
 * the four products here do not wait for each other. */
static inline uint32_t line_hash(struct td_span sym, struct td_span dso, uint32_t lens)
{
	size_t mid = sym.n >= 8 ? sym.n / 2 - 4 : 0, last = sym.n >= 8 ? sym.n - 8 : 0;
	uint64_t h = (word_at(sym.p, sym.n, 0) ^ lens) * 0x9e3779b97f4a7c15u +
		     (word_at(sym.p, sym.n, mid) ^ (uint64_t)dso.n << 32) * 0xc2b2ae3d27d4eb4fu +
		     word_at(sym.p, sym.n, last) * 0x165667b19e3779f9u +
		     word_at(dso.p, dso.n, dso.n >= 8 ? dso.n - 8 : 0) * 0x27d4eb2f165667c5u;
	h ^= h >> 29;
	h *= 0x94d049bb133111ebu;
	return (uint32_t)(h >> 32);
}

static void line_table_grow(struct line_table *t)
{
	TD_TABLE_DOUBLE(t->slot, t->nslots, 1024, rec, hash);
}

/* A record for the key at slot i (empty), pushing cache entry frame;
 * returns it (0: none, the arena is full). */
static uint32_t line_table_put(struct fold *f, uint32_t i, uint32_t hash, uint32_t lens, struct td_span sym,
			   struct td_span dso, uint32_t frame)
{
	struct line_table *t = &f->lines;
	size_t words = REC_KEY + (sym.n + dso.n + 3) / 4;
	if (t->used + words > UINT32_MAX)
		return 0;
	if (!t->used)
		t->used = 1;
	if (t->used + words > t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		while (t->cap < t->used + words)
			t->cap *= 2;
		t->arena = td_realloc(t->arena, t->cap * sizeof(*t->arena));
	}
	uint32_t *rec = t->arena + t->used;
	const struct cached_frame *c = &f->cache[frame];
	rec[REC_LENS] = lens;
	rec[REC_DSO] = (uint32_t)dso.n;
	uint32_t one = c->count == 1 ? f->frame_pool.v[c->first] : REC_NONE;
	rec[REC_ONE] = one < REC_UNKNOWN ? one | (c->unknown ? REC_UNKNOWN : 0) : REC_NONE;
	rec[REC_FRAME] = frame;
	rec[REC_NEXT] = 0;
	rec[REC_TEXT] = rec[REC_TLEN] = rec[REC_TCAP] = 0;
	rec[REC_KEY + (sym.n + dso.n) / 4] = 0;       /* the padding, defined */
	memcpy(rec + REC_KEY, sym.p, sym.n);
	memcpy((char *)(rec + REC_KEY) + sym.n, dso.p, dso.n);
	uint32_t at = (uint32_t)t->used;
	t->slot[i] = (struct line_slot){ hash, at };
	t->used += words;
	if (++t->n * 2 > t->nslots)
		line_table_grow(t);
	return at;
}

/* Whether record rec holds this key. */
static inline __attribute__((always_inline)) bool rec_is(const uint32_t *rec, uint32_t lens, struct td_span sym, struct td_span dso)
{
	const char *key = (const char *)(rec + REC_KEY);
	return rec[REC_LENS] == lens && rec[REC_DSO] == dso.n && td_same_bytes(key, sym.p, sym.n) &&
	       td_same_bytes(key + sym.n, dso.p, dso.n);
}

/* Pushes the names of record at, the sample's last line from now on. */
static inline void rec_names(struct fold *f, uint32_t at)
{
	uint32_t *arena = f->lines.arena, *rec = arena + at;
	f->last_rec = at;
	if (rec[REC_NEXT])
		__builtin_prefetch(arena + rec[REC_NEXT]);
	uint32_t one = rec[REC_ONE];
	if (one != REC_NONE) {
		vec_push(&f->frames, one & ~REC_UNKNOWN);
		f->frames_total++;
		f->frames_unknown += one >> 31;
	} else {
		push_frame_names(f, &f->cache[rec[REC_FRAME]]);
	}
}

/* n bytes from s to d (no overlap): 16 at a time, the last 16
 * overlapping the ones before. */
static inline void copy_line(char *d, const char *s, size_t n)
{
#if defined(__SSE2__)
	if (n >= 16) {
		for (size_t i = 0; i + 16 < n; i += 16)
			_mm_storeu_si128((__m128i *)(void *)(d + i), _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
		_mm_storeu_si128((__m128i *)(void *)(d + n - 16), _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16)));
		return;
	}
#endif
	td_copy_bytes(d, s, n);
}

/* Keeps line[0..ln) as the text of the line after record prev. */
static inline __attribute__((always_inline)) void rec_keep_text(struct line_table *t, uint32_t *prev, const char *line, size_t ln)
{
	if (ln > LINE_TEXT_MAX) {
		prev[REC_TLEN] = 0;
		return;
	}
	if (ln > prev[REC_TCAP]) {
		/* room at least doubled: a record's texts take twice the longest */
		size_t cap = (ln + 15) & ~(size_t)15;
		if (cap < 2 * (size_t)prev[REC_TCAP])
			cap = 2 * (size_t)prev[REC_TCAP];
		if (t->text_used + cap + LINE_TEXT_PAD > UINT32_MAX) {
			prev[REC_TLEN] = 0;
			return;
		}
		if (t->text_used + cap + LINE_TEXT_PAD > t->text_cap) {
			t->text_cap = t->text_cap ? 2 * t->text_cap : 65536;
			while (t->text_cap < t->text_used + cap + LINE_TEXT_PAD)
				t->text_cap *= 2;
			t->text = td_realloc(t->text, t->text_cap);
		}
		prev[REC_TEXT] = (uint32_t)t->text_used;
		prev[REC_TCAP] = (uint32_t)cap;
		t->text_used += cap;
	}
	copy_line(t->text + prev[REC_TEXT], line, ln);
	prev[REC_TLEN] = (uint32_t)ln;
}

/* Pushes the names of record at, which follows the sample's last line;
 * line[0..ln) is its text up to its newline (NULL: none kept). */
static inline __attribute__((always_inline)) void rec_push(struct fold *f, uint32_t at, const char *line, size_t ln)
{
	uint32_t *arena = f->lines.arena;
	if (f->last_rec) {
		arena[f->last_rec + REC_NEXT] = at;
		if (line)
			rec_keep_text(&f->lines, arena + f->last_rec, line, ln);
		else
			arena[f->last_rec + REC_TLEN] = 0;
	}
	rec_names(f, at);
}

/* A key the line table does not hold, to go in its empty slot i: its
 * names found and pushed. Out of line: once per key, where the lookup
 * before it runs on every line the prediction misses. */
static void __attribute__((noinline)) line_new(struct fold *f, const struct script_frame *fr, uint32_t i,
					       uint32_t hash, uint32_t lens, struct td_span sym, struct td_span dso,
					       const char *line, size_t ln)
{
	const struct cached_frame *c = frame_names(f, fr, f->java);
	uint32_t frame = (uint32_t)(c - f->cache);
	uint32_t at = line_table_put(f, i, hash, lens, sym, dso, frame);
	if (at) {
		rec_push(f, at, line, ln);
	} else {
		f->last_rec = 0;
		push_frame_names(f, &f->cache[frame]);
	}
}

/* frame_line() through the line table; false for a key it does not hold
 * (one with the frame's address: --addrs and an [unknown] symbol). line:
 * the frame's text up to its newline (ln bytes), kept to find it again
 * (NULL: not kept). */
static inline __attribute__((always_inline)) bool frame_line_fast(struct fold *f, const struct script_frame *fr,
							    const char *line, size_t ln)
{
	struct td_span sym = strip_offset(fr->sym), dso = fr->dso;
	if (sym.n + dso.n > LINE_KEY_MAX || (f->opt.addrs && contains(sym.p, sym.n, "[unknown]")))
		return false;
	struct line_table *t = &f->lines;
	uint32_t lens = (uint32_t)sym.n | (f->java ? REC_JAVA : 0);
	uint32_t next = f->last_rec ? t->arena[f->last_rec + REC_NEXT] : 0;
	if (next && rec_is(t->arena + next, lens, sym, dso)) {
		rec_push(f, next, line, ln);
		return true;
	}
	if (!t->nslots)
		line_table_grow(t);
	uint32_t hash = line_hash(sym, dso, lens), mask = t->nslots - 1, i = hash & mask;
	for (;; i = (i + 1) & mask) {
		const struct line_slot *s = &t->slot[i];
		if (!s->rec)
			break;
		if (s->hash == hash && rec_is(t->arena + s->rec, lens, sym, dso)) {
			rec_push(f, s->rec, line, ln);
			return true;
		}
	}
	line_new(f, fr, i, hash, lens, sym, dso, line, ln);
	return true;
}

/* frame_line() with the line's text (NULL: none), kept for
 * predicted_line(). */
static void frame_line_text(struct fold *f, const struct script_frame *fr, const char *line, size_t ln)
{
	if (f->lines_on && frame_line_fast(f, fr, line, ln))
		return;
	push_frame_names(f, frame_names(f, fr, f->java));
}

static void frame_line(struct fold *f, const struct script_frame *fr)
{
	frame_line_text(f, fr, NULL, 0);
}

static bool parse_header(const struct fold *f, const char *line, size_t len, struct script_header *h)
{
	if (f->opt.exact_comm)
		return script_parse_header_exact(line, len, h);
	return f->opt.perl_compat ? script_parse_header_perl(line, len, h) : script_parse_header(line, len, h);
}

/* A header's comm, pid and tid are read from its start alone: up to the
 * blank after the tid, the parse reads no further (a pid or tid attempt
 * that fails stops at a blank before it). A line starting with the bytes
 * of a header met before has its comm, pid and tid, and its root name,
 * whatever follows (cpu, time, event). Default comm rule only. */
static bool header_memo_on(const struct fold *f)
{
	return f->lines_on && !f->opt.perl_compat && !f->opt.exact_comm;
}

static struct header_memo *header_memo_at(struct fold *f, const char *line, size_t len)
{
	if (len < 16)
		return NULL;
	uint64_t k = td_swar_load(line) * 0x9e3779b97f4a7c15u ^ td_swar_load(line + 8) * 0xc2b2ae3d27d4eb4fu;
	return &f->headers_seen[(k >> 40) % HEADER_MEMO];
}

static bool is_blank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }   /* perl's \s */

/* Remembers the start of a header just parsed into h and kept. */
static void header_memo_put(struct fold *f, const char *line, size_t len, const struct script_header *h)
{
	struct header_memo *m = header_memo_at(f, line, len);
	if (!m)
		return;
	size_t r = (size_t)(h->tid.p + h->tid.n - line);
	while (r < len && !is_blank(line[r]))
		r++;
	if (r >= len || r + 1 > sizeof m->text || (h->pid.n && h->pid.p < line))
		return;
	m->n = (uint32_t)(r + 1);
	m->pname = f->pname;
	m->java = f->java;
	m->comm_n = (uint8_t)h->comm.n;
	m->pid_at = h->pid.n ? (uint8_t)(h->pid.p - line) : 0;
	m->pid_n = (uint8_t)h->pid.n;
	m->tid_at = (uint8_t)(h->tid.p - line);
	m->tid_n = (uint8_t)h->tid.n;
	memcpy(m->text, line, m->n);
}

/* The header's fold through the memo: false if its start is not there. */
static bool header_memo_fold(struct fold *f, const char *line, size_t len)
{
	struct header_memo *m = header_memo_at(f, line, len);
	if (!m || !m->n || len <= m->n || !td_same_bytes(line, m->text, m->n))
		return false;
	struct script_header h;
	h.comm = (struct td_span){ line, m->comm_n };
	h.pid = (struct td_span){ m->pid_n ? line + m->pid_at : NULL, m->pid_n };
	h.tid = (struct td_span){ line + m->tid_at, m->tid_n };
	script_parse_event(line, len, &h);
	if (event_kept(f, &h))
		start_sample(f, m->pname, m->java, h.period);
	return true;
}

/* A sample recorded without -g is one line; stackcollapse-perf.pl loses
 * these (inferno keeps them as "comm;sym"), td-fold keeps them. Only lines
 * that cannot start a callchain sample are tried: a header ending in its
 * event is never one. */
static bool one_line_sample(struct fold *f, const char *line, size_t len)
{
	struct script_header h;
	struct script_frame fr;
	if (len < 8 || line[len - 1] != ')')
		return false;
	if (line[0] != ' ' && line[0] != '\t' && parse_header(f, line, len, &h) && h.event.n)
		return false;
	if (!script_parse_one_line(line, len, f->opt.exact_comm, &h, &fr))
		return false;
	end_sample(f);
	header_line(f, &h);
	if (f->in_sample) {
		frame_line(f, &fr);
		end_sample(f);
	}
	return true;
}

/* What unrecognized lines look like is asked while no stack was found:
 * when none comes, fold_report names the tool whose output it was. */
static void malformed(struct fold *f, const char *file, unsigned long lineno, const char *what,
		      const char *line, size_t len)
{
	if (f->stacks.n == 0)
		sniff_vote(&f->votes, line, len);
	if (f->malformed++ < MAX_WARNINGS)
		td_warn(file, lineno, "%s; ignored", what);
}

/* What a line was to the fold: LINE_FRAME only for a frame line folded
 * into the open sample (its names pushed, nothing else changed),
 * LINE_IGNORED only for one read while no sample is open (a sample of an
 * event not kept): nothing changed at all. */
enum line_kind { LINE_OTHER, LINE_HEADER, LINE_FRAME, LINE_IGNORED };

static enum line_kind fold_one(struct fold *f, const char *line, size_t len, const char *file, unsigned long lineno)
{
	if (len == 0) {
		end_sample(f);
		return LINE_OTHER;
	}
	if (line[0] == '#')
		return LINE_OTHER;
	struct script_header h;
	struct script_frame fr;
	bool compat = f->opt.perl_compat;
	if (!compat && script_is_record(line, len))
		return LINE_OTHER;
	/* a line ending in ')' may be a one-line sample: not from the memo */
	bool memo = line[len - 1] != ')' && header_memo_on(f);
	if (memo && header_memo_fold(f, line, len))
		return LINE_HEADER;
	if (!compat && (!f->in_sample || (line[0] != ' ' && line[0] != '\t')) && one_line_sample(f, line, len))
		return LINE_OTHER;
	if (parse_header(f, line, len, &h)) {
		if (header_line(f, &h) && memo)
			header_memo_put(f, line, len, &h);
		return LINE_HEADER;
	}
	if (!script_parse_frame(line, len, &fr)) {
		bool blank = true;
		for (size_t i = 0; i < len && blank; i++)
			blank = line[i] == ' ' || line[i] == '\t';
		malformed(f, file, lineno, blank ? "blank-looking line with spaces" : "unrecognized line", line, len);
		return LINE_OTHER;
	}
	if (!f->in_sample)
		return LINE_IGNORED;      /* a frame of a sample whose event is filtered out */
	frame_line(f, &fr);
	return LINE_FRAME;
}

void fold_line(struct fold *f, const char *line, size_t len, const char *file, unsigned long lineno)
{
	fold_one(f, line, len, file, lineno);
}

/* ---- whole sample bodies ------------------------------------------------------ */

static void memo_clear(struct body_memo *m)
{
	if (m->slot) {
		memset(m->slot, 0, m->cap * sizeof(*m->slot));
		memset(m->start, 0, m->cap * sizeof(*m->start));
	}
	m->n = 0;
	m->nids = 0;
	m->ntext = 0;
}

/* The slot of this body read in this state, or the empty slot where it
 * would go. */
static struct memo_slot *memo_find(struct body_memo *m, uint64_t hash, const char *body, size_t len,
				   uint32_t state)
{
	size_t mask = m->cap - 1;
	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct memo_slot *s = &m->slot[i];
		if (!s->body)
			return s;
		const struct memo_body *b = &m->body[s->body - 1];
		if (s->hash == hash && b->text_len == len && b->state == state &&
		    memcmp(m->text + b->text_at, body, len) == 0)
			return s;
	}
}

/* The hash that chains a body read in this state by its first MEMO_START
 * bytes (p has as many). */
static uint32_t memo_start_key(const char *p, uint32_t state)
{
	uint64_t k = (td_swar_load(p) * 0x9e3779b97f4a7c15u) ^ (td_swar_load(p + 8) * 0xc2b2ae3d27d4eb4fu) ^
		     (td_swar_load(p + 16) * 0x165667b19e3779f9u) ^ (td_swar_load(p + 24) * 0xd6e8feb86659fd93u) ^ state;
	return (uint32_t)(k >> 32) ^ (uint32_t)k;
}

/* Puts body i (index + 1) first in the chain of start key k. */
static void memo_chain(struct body_memo *m, uint32_t k, uint32_t i)
{
	uint32_t *head = &m->start[k & (m->cap - 1)];
	m->body[i - 1].same_start = *head;
	*head = i;
}

/* Moves the body *at links to (at: a link of the chain that starts at
 * head) to the chain's front. */
static void memo_splice_front(struct body_memo *m, uint32_t *head, uint32_t *at)
{
	uint32_t i = *at;
	if (at == head)
		return;
	*at = m->body[i - 1].same_start;
	m->body[i - 1].same_start = *head;
	*head = i;
}

/* Moves body i (index + 1), met MEMO_TRIES * 4 bodies or fewer into the
 * chain of start key k, to its front; further in, it stays where it is. */
static void __attribute__((noinline)) memo_to_front(struct body_memo *m, uint32_t k, uint32_t i)
{
	uint32_t *head = &m->start[k & (m->cap - 1)];
	uint32_t *at = head;
	for (unsigned steps = 0; *at && steps < MEMO_TRIES * 4; steps++, at = &m->body[*at - 1].same_start) {
		if (*at == i) {
			memo_splice_front(m, head, at);
			return;
		}
	}
}

/* The body at p (read in this state; [p, end) holds more than MEMO_START
 * bytes) among the first MEMO_TRIES of its start chain, moved to the
 * front; NULL if none. A stored body is the one at p when its bytes are
 * p's and a newline follows them within [p, end): its text starts with a
 * blank, ends with its one newline followed by another (body_length()
 * found it so), so body_length(p, end) would end the body there too. */
static const struct memo_body *__attribute__((noinline)) memo_by_start(struct body_memo *m, uint32_t k, const char *p, const char *end,
					     uint32_t state)
{
	uint32_t *head = &m->start[k & (m->cap - 1)];
	size_t room = (size_t)(end - p);
	uint32_t *at = head;
	for (unsigned tries = 0; *at && tries < MEMO_TRIES; tries++, at = &m->body[*at - 1].same_start) {
		uint32_t i = *at;
		struct memo_body *b = &m->body[i - 1];
		if (b->state != state || b->text_len >= room || p[b->text_len] != '\n' ||
		    memcmp(m->text + b->text_at, p, b->text_len) != 0)
			continue;
		memo_splice_front(m, head, at);
		return b;
	}
	return NULL;
}

static void memo_grow(struct body_memo *m)
{
	TD_TABLE_DOUBLE(m->slot, m->cap, 1024, body, hash);
	/* the chains again, from the bodies' starts, the last stored first */
	free(m->start);
	m->start = td_calloc(m->cap, sizeof(*m->start));
	for (uint32_t i = 0; i < m->n; i++) {
		const struct memo_body *b = &m->body[i];
		memo_chain(m, memo_start_key(m->text + b->text_at, b->state), i + 1);
	}
}

/* Remembers ids[0..n) as what this body, read in this state, pushes. */
static void memo_put(struct body_memo *m, uint64_t hash, const char *body, size_t len, uint32_t state,
		     const uint32_t *ids, size_t n, unsigned long nlines, uint64_t unknown)
{
	if (len < MEMO_START || len > MEMO_MAX_TEXT / 4 || n > MEMO_MAX_IDS / 4 || nlines > UINT32_MAX)
		return;
	if (m->n >= MEMO_MAX_BODIES || m->nids + n > MEMO_MAX_IDS || m->ntext + len > MEMO_MAX_TEXT)
		memo_clear(m);
	TD_ALLOC_GROW(m->body, m->n + 1, m->body_cap);
	if (2 * (m->n + 1) > m->cap)
		memo_grow(m);
	struct memo_slot *s = memo_find(m, hash, body, len, state);
	if (s->body)
		return;
	TD_ALLOC_GROW(m->ids, m->nids + n, m->ids_cap);
	TD_ALLOC_GROW(m->text, m->ntext + len, m->text_cap);
	if (n)
		memcpy(m->ids + m->nids, ids, n * sizeof(*ids));
	memcpy(m->text + m->ntext, body, len);
	m->body[m->n] = (struct memo_body){ (uint32_t)m->ntext, (uint32_t)len, (uint32_t)m->nids, (uint32_t)n,
					    (uint32_t)nlines, (uint32_t)unknown, state, 0 };
	*s = (struct memo_slot){ hash, (uint32_t)(m->n + 1) };
	memo_chain(m, memo_start_key(body, state), (uint32_t)(m->n + 1));
	m->nids += n;
	m->ntext += len;
	m->n++;
}

/* The body of the sample whose header ends just before p: the frame lines
 * up to the blank line, ending with a newline. 0 when there is none or no
 * blank line ends it within [p, end). */
static size_t body_length(const char *p, const char *end)
{
	if (p == end || (*p != ' ' && *p != '\t'))
		return 0;
	const char *q = p;
#if defined(__SSE2__)
	const __m128i nl = _mm_set1_epi8('\n');
	for (; end - q >= 17; q += 16) {   /* bit i: q[i] and q[i + 1] are newlines */
		__m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)q), nl);
		__m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(q + 1)), nl);
		unsigned pair = (unsigned)_mm_movemask_epi8(_mm_and_si128(a, b));
		if (pair)
			return (size_t)(q + __builtin_ctz(pair) + 1 - p);
	}
#elif TD_SWAR
	for (; end - q >= 9; q += 8) {     /* byte i marked: q[i] and q[i + 1] are newlines */
		uint64_t pair = td_swar_equal(td_swar_load(q), '\n') & td_swar_equal(td_swar_load(q + 1), '\n');
		if (pair)
			return (size_t)(q + td_swar_first(pair) + 1 - p);
	}
#endif
	for (; end - q >= 2; q++)
		if (q[0] == '\n' && q[1] == '\n')
			return (size_t)(q + 1 - p);
	return 0;
}

/* The first newline in [p, end), or NULL: memchr for lines this short,
 * without the call. */
static const char *find_newline(const char *p, const char *end)
{
#if defined(__SSE2__)
	const __m128i nl = _mm_set1_epi8('\n');
	for (; end - p >= 16; p += 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), nl));
		if (m)
			return p + __builtin_ctz(m);
	}
#endif
	return memchr(p, '\n', (size_t)(end - p));
}

/* The line at p when it is, byte for byte up to its newline, the one that
 * followed the sample's previous frame line last time (REC_TEXT): pushes
 * its record as reading it would and returns its length to the newline;
 * 0 (nothing done) otherwise. The record's java flag must be the
 * sample's, as the line's key holds it. */
static inline size_t predicted_line(struct fold *f, const char *p, const char *end)
{
	const uint32_t *arena = f->lines.arena, *prev = arena + f->last_rec;
	size_t tl = prev[REC_TLEN];
	if (!tl || (size_t)(end - p) <= tl || p[tl] != '\n')
		return 0;
	uint32_t next = prev[REC_NEXT];
	if ((arena[next + REC_LENS] & REC_JAVA) != (f->java ? REC_JAVA : 0) ||
	    !td_same_bytes(p, f->lines.text + prev[REC_TEXT], tl))
		return 0;
	rec_names(f, next);
	return tl;
}

/* One line of fold_text's, at p: ln bytes up to its newline (nl: one
 * ends it), len without a CR. A frame line of the open sample goes
 * straight to the frame table (what fold_one() would do after its header,
 * record and one-line tests, all of which a line starting with a blank
 * fails), its text kept for predicted_line(). */
static inline enum line_kind text_line(struct fold *f, const char *p, size_t ln, size_t len, bool nl,
				       const char *file, unsigned long lineno)
{
	struct script_frame fr;
	if (f->memo_on && f->in_sample && len && (p[0] == '\t' || p[0] == ' ') && script_parse_frame(p, len, &fr)) {
		frame_line_text(f, &fr, nl ? p : NULL, ln);
		return LINE_FRAME;
	}
	return fold_one(f, p, len, file, lineno);
}

/* After a header line, at p: the sample's body through the memo (its
 * frame ids pushed, *lineno moved past its lines) when it was met before,
 * else read line by line and remembered. Returns where reading goes on
 * (p itself when it finds no body to look up). Called while the memo is
 * not resting; out of fold_text's line loop, which it would slow down
 * inline. */
static const char *__attribute__((noinline)) memo_fold_body(struct fold *f, const char *p, const char *end,
							 const char *file, unsigned long *lineno_at)
{
	struct body_memo *m = &f->memo;
	/* what a body does depends on its bytes and on whether a sample
	 * is open (its lines are folded or ignored) and java (names) */
	bool open = f->in_sample;
	uint32_t state = open ? f->java : 2;
	if ((size_t)(end - p) <= MEMO_START || (*p != ' ' && *p != '\t'))
		return p;
	uint32_t start = memo_start_key(p, state);
	const struct memo_body *s = m->n ? memo_by_start(m, start, p, end, state) : NULL;
	size_t body = 0;
	uint64_t hash = 0;
	if (!s) {
		body = body_length(p, end);
		if (!body)
			return p;
		hash = XXH3_64bits_withSeed(p, body, state);
		const struct memo_slot *slot = m->cap ? memo_find(m, hash, p, body, state) : NULL;
		if (slot && slot->body) {
			s = &m->body[slot->body - 1];
			memo_to_front(m, start, slot->body);
		}
	}
	bool hit = s != NULL;
	if (++m->lookups == MEMO_PERIOD) {
		if ((m->hits + hit) * 2 < m->lookups) {
			uint32_t periods = m->rest_periods ? m->rest_periods : MEMO_REST;
			m->rest = periods * MEMO_PERIOD;
			m->rest_periods = periods * 2 + 1 < MEMO_REST_MAX ? periods * 2 + 1 : MEMO_REST_MAX;
		} else {
			m->rest_periods = 0;
		}
		m->lookups = m->hits = 0;
	} else {
		m->hits += hit;
	}
	if (hit) {
		for (uint32_t i = 0; i < s->nids; i++)
			vec_push(&f->frames, m->ids[s->first + i]);
		f->frames_total += s->nids;
		f->frames_unknown += s->unknown;
		*lineno_at += s->nlines;
		return p + s->text_len;
	}
	/* a miss: the lines one by one, remembered if each was a frame */
	unsigned long lineno = *lineno_at;
	const char *stop = p + body;
	size_t from = f->frames.n;
	uint64_t unknown = f->frames_unknown;
	unsigned long lines = 0;
	bool frames_only = true;
	enum line_kind want = open ? LINE_FRAME : LINE_IGNORED;
	while (p < stop) {
		lines++;
		size_t ln;
		if (f->last_rec && f->in_sample && (ln = predicted_line(f, p, stop))) {
			frames_only &= want == LINE_FRAME;
			lineno++;
			p += ln + 1;
			continue;
		}
		const char *nl = memchr(p, '\n', (size_t)(stop - p));
		ln = (size_t)(nl - p);
		size_t len = ln && p[ln - 1] == '\r' ? ln - 1 : ln;
		frames_only &= text_line(f, p, ln, len, true, file, lineno++) == want;
		p = nl + 1;
	}
	if (frames_only && f->in_sample == open && f->frames.n >= from)
		memo_put(m, hash, stop - body, body, state, f->frames.v + from, f->frames.n - from,
			 lines, f->frames_unknown - unknown);
	*lineno_at = lineno;
	return p;
}

size_t fold_text(struct fold *f, const char *p, size_t n, const char *file, unsigned long lineno)
{
	const char *end = p + n;
	unsigned long first = lineno;
	while (p < end) {
		size_t ln;
		if (f->last_rec && f->in_sample && (ln = predicted_line(f, p, end))) {
			lineno++;
			p += ln + 1;
			continue;
		}
		const char *nl = find_newline(p, end);
		ln = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t len = ln && p[ln - 1] == '\r' ? ln - 1 : ln;
		enum line_kind kind = text_line(f, p, ln, len, nl != NULL, file, lineno++);
		p = nl ? nl + 1 : end;
		if (kind == LINE_FRAME)
			continue;
		if (kind != LINE_HEADER || !f->memo_on)
			continue;
		if (f->memo.rest) {
			f->memo.rest--;
			continue;
		}
		p = memo_fold_body(f, p, end, file, &lineno);
	}
	return lineno - first;
}

/* ---- frames resolved by the caller -------------------------------------------- */

#define NOT_PLAIN UINT32_MAX
#define ONE_NAME 0x80000000u         /* a plain slot holding a frame's only name, */
#define ONE_UNKNOWN 0x40000000u      /* with this bit if it counts as an unknown frame */
#define ONE_ID 0x3fffffffu           /* the name's bits; an id below this (ONE_NAME | ONE_UNKNOWN | ONE_ID
					is NOT_PLAIN) */

struct resolved_key {
	const char *sym, *dso;
	uint64_t addr, off;
	uint32_t java, unused;
};

struct resolved_slot {
	struct resolved_key k;
	uint32_t frame;              /* index into cache; NOT_PLAIN: no frame */
	bool used;
};

static uint64_t resolved_hash(const struct resolved_key *k)
{
	return td_hash(k, sizeof *k);
}

static struct resolved_slot *resolved_slot(struct fold *f, const struct resolved_key *k)
{
	if (2 * (f->resolved_n + 1) > f->resolved_cap) {
		struct resolved_slot *old = f->resolved;
		size_t old_cap = f->resolved_cap;
		f->resolved_cap = old_cap ? old_cap * 2 : 4096;
		f->resolved = td_calloc(f->resolved_cap, sizeof(*f->resolved));
		f->resolved_n = 0;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].used) {
				*resolved_slot(f, &old[i].k) = old[i];
				f->resolved_n++;
			}
		free(old);
	}
	size_t mask = f->resolved_cap - 1;
	for (size_t i = resolved_hash(k) & mask;; i = (i + 1) & mask)
		if (!f->resolved[i].used || memcmp(&f->resolved[i].k, k, sizeof *k) == 0)
			return &f->resolved[i];
}

static void resolved_put(struct fold *f, const struct resolved_key *k, uint32_t frame)
{
	struct resolved_slot *s = resolved_slot(f, k);
	if (!s->used)
		f->resolved_n++;
	*s = (struct resolved_slot){ *k, frame, true };
}

static bool span_is(struct td_span sp, const char *s)
{
	return strlen(s) == sp.n && memcmp(sp.p, s, sp.n) == 0;
}

/* The frame's line as perf script prints it, into buf when it fits
 * (cap bytes); returns its length either way, as snprintf does. */
static size_t print_frame_line(char *buf, size_t cap, const char *sym, uint64_t off, const char *dso, uint64_t addr)
{
	int n = sym ? snprintf(buf, cap, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)", addr, sym, off, dso ? dso : "[unknown]")
		    : snprintf(buf, cap, "\t%16" PRIx64 " [unknown] (%s)", addr, dso ? dso : "[unknown]");
	return n < 0 ? 0 : (size_t)n;
}

/* The names of the frame's text line, through the line's own parser, so
 * odd names (a dso with " (" in it, an empty symbol) fold as their text
 * does. Plain: the result depends on (sym, dso) only, not on the address.
 * C++ template names run to thousands of bytes: a line longer than the
 * stack buffer is printed whole into one of its size, never cut. */
static uint32_t resolve_by_text(struct fold *f, const char *sym, uint64_t off, const char *dso, uint64_t addr,
				bool java, bool *plain)
{
	char short_line[1024], *line = short_line;
	size_t len = print_frame_line(line, sizeof short_line, sym, off, dso, addr);
	if (len >= sizeof short_line) {
		line = td_malloc(len + 1);
		print_frame_line(line, len + 1, sym, off, dso, addr);
	}
	struct script_frame fr;
	uint32_t frame = NOT_PLAIN;
	*plain = false;
	if (script_parse_frame(line, len, &fr)) {
		frame = (uint32_t)(frame_names(f, &fr, java) - f->cache);
		const char *want = sym ? sym : "[unknown]";
		size_t wn = strlen(want), suffix = sym ? (size_t)snprintf(NULL, 0, "+0x%" PRIx64, off) : 0;
		*plain = wn > 0 && fr.sym.n == wn + suffix && memcmp(fr.sym.p, want, wn) == 0 &&
			 span_is(fr.dso, dso ? dso : "[unknown]") && !(f->opt.addrs && strstr(want, "[unknown]"));
	}
	if (line != short_line)
		free(line);
	return frame;
}

static void __attribute__((noinline)) plain_grow(struct fold *f, bool java, uint32_t sym_id)
{
	size_t cap = f->plain_cap[java], want = cap ? cap : 1024;
	while (want <= sym_id)
		want *= 2;
	f->plain[java] = td_realloc(f->plain[java], want * sizeof(uint32_t));
	memset(f->plain[java] + cap, 0, (want - cap) * sizeof(uint32_t));
	f->plain_cap[java] = want;
}

static inline uint32_t *plain_slot(struct fold *f, bool java, uint32_t sym_id)
{
	if (__builtin_expect(sym_id >= f->plain_cap[java], 0))
		plain_grow(f, java, sym_id);
	return &f->plain[java][sym_id];
}

static void resolved_frame_missed(struct fold *f, uint32_t *plain, const char *sym, uint64_t sym_off,
				  const char *dso, uint64_t addr);

void fold_resolved_frame(struct fold *f, const char *sym, uint64_t sym_off, const char *dso, uint64_t addr, uint32_t sym_id)
{
	if (!f->in_sample)
		return;
	uint32_t *plain = plain_slot(f, f->java, sym_id);
	if (__builtin_expect(*plain && *plain != NOT_PLAIN, 1)) {
		if (*plain & ONE_NAME) {
			vec_push(&f->frames, *plain & ONE_ID);
			f->frames_total++;
			f->frames_unknown += (*plain & ONE_UNKNOWN) != 0;
		} else {
			push_frame_names(f, &f->cache[*plain - 1]);
		}
		return;
	}
	resolved_frame_missed(f, plain, sym, sym_off, dso, addr);
}

/* A frame whose names its sym_id alone does not give yet: out of line,
 * so that the common case above stays small. */
static void __attribute__((noinline)) resolved_frame_missed(struct fold *f, uint32_t *plain, const char *sym,
							     uint64_t sym_off, const char *dso, uint64_t addr)
{
	struct resolved_key exact = { sym, dso, addr, sym_off, f->java, 0 };
	if (*plain == NOT_PLAIN) {
		struct resolved_slot *e = resolved_slot(f, &exact);
		if (e->used) {
			if (e->frame != NOT_PLAIN)
				push_frame_names(f, &f->cache[e->frame]);
			return;
		}
	}
	bool is_plain;
	uint32_t frame = resolve_by_text(f, sym, sym_off, dso, addr, f->java, &is_plain);
	if (is_plain) {
		const struct cached_frame *c = frame != NOT_PLAIN ? &f->cache[frame] : NULL;
		bool one = c && c->count == 1 && f->frame_pool.v[c->first] < ONE_ID;
		*plain = one ? ONE_NAME | (c->unknown ? ONE_UNKNOWN : 0) | f->frame_pool.v[c->first] : frame + 1;
	} else {
		*plain = NOT_PLAIN;
		resolved_put(f, &exact, frame);
	}
	if (frame != NOT_PLAIN)
		push_frame_names(f, &f->cache[frame]);
}

/* ---- headers the caller has as values -------------------------------------- */

/* "comm\0" tid-bytes "event": built per sample, so no printf */
static size_t header_key(char *buf, size_t cap, const char *comm, int32_t tid, const char *event)
{
	size_t nc = strlen(comm), ne = strlen(event);
	if (nc + 1 + sizeof tid + ne > cap)
		return 0;
	memcpy(buf, comm, nc + 1);
	memcpy(buf + nc + 1, &tid, sizeof tid);
	memcpy(buf + nc + 1 + sizeof tid, event, ne);
	return nc + 1 + sizeof tid + ne;
}

/* The id of the header key of (comm, tid, event) in header_keys, or
 * UINT32_MAX. The recent entry of tid holds the parts of a key: the same
 * parts are the same key. */
static uint32_t header_id(struct fold *f, const char *comm, int32_t tid, const char *event)
{
	struct recent_header *r = &f->recent[(uint32_t)tid % RECENT_HEADERS];
	if (r->id && r->tid == tid && strcmp(r->comm, comm) == 0 && strcmp(r->event, event) == 0)
		return r->id - 1;
	char key[512];
	size_t n = header_key(key, sizeof key, comm, tid, event);
	uint32_t id = n ? td_intern_find(f->header_keys, key, n) : UINT32_MAX;
	size_t nc = strlen(comm), ne = strlen(event);
	if (id != UINT32_MAX && nc < sizeof r->comm && ne < sizeof r->event) {
		r->tid = tid;
		r->id = id + 1;
		memcpy(r->comm, comm, nc + 1);
		memcpy(r->event, event, ne + 1);
	}
	return id;
}

bool fold_cached_header(struct fold *f, const char *comm, int32_t tid, const char *event, uint64_t period)
{
	uint32_t id = header_id(f, comm, tid, event);
	if (id == UINT32_MAX)
		return false;
	const struct cached_header *c = &f->headers[id];
	if (!c->kept) {
		note_skipped(f, (struct td_span){ event, strlen(event) }, 1);
		f->in_sample = false;
		return true;
	}
	f->pname = c->pname;
	f->java = c->java;
	f->period = period ? period : 1;
	f->in_sample = true;
	return true;
}

/* v in decimal, as "%d" prints it (no NUL); returns its length. A
 * thread's first sample comes here: printf costs more than the rest. */
static int decimal(char out[16], int32_t v)
{
	char tmp[16];
	int n = 0, len = 0;
	uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
	do
		tmp[n++] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		out[len++] = '-';
	while (n)
		out[len++] = tmp[--n];
	return len;
}

void fold_cache_header(struct fold *f, const char *comm, int32_t tid, const char *event, const char *line, size_t len)
{
	struct script_header h;
	char digits[16];
	int nd = decimal(digits, tid);
	bool parsed = parse_header(f, line, len, &h);
	/* only when the line's parse depends on comm, tid and event alone */
	if (len == 0 || line[0] == '#' || !parsed || !span_is(h.comm, comm) || h.pid.n != 0 ||
	    h.tid.n != (size_t)nd || memcmp(h.tid.p, digits, (size_t)nd) != 0 || !span_is(h.event, event))
		return;
	char key[512];
	size_t n = header_key(key, sizeof key, comm, tid, event);
	if (!n)
		return;
	if (td_intern_count(f->header_keys) >= HEADER_KEYS_MAX) {
		/* a system-wide recording sees tens of thousands of threads, most
		 * of them gone: the cache starts over rather than keep them all */
		td_intern_free(f->header_keys);
		f->header_keys = td_intern_new();
		memset(f->recent, 0, sizeof f->recent);
	}
	uint32_t id = td_intern(f->header_keys, key, n);
	if (id >= f->headers_cap) {
		f->headers_cap = f->headers_cap ? f->headers_cap * 2 : 256;
		f->headers = td_realloc(f->headers, f->headers_cap * sizeof(*f->headers));
	}
	f->headers[id] = (struct cached_header){ f->pname, f->java, f->in_sample };
}

void fold_end_input(struct fold *f, const char *file, unsigned long lineno)
{
	if (f->in_sample && f->opt.perl_compat) {
		td_warn(file, lineno, "input ends without the blank line after its last sample; "
			"dropped, as stackcollapse-perf.pl drops it");
		f->in_sample = false;
		f->frames.n = 0;
	} else if (f->in_sample) {
		td_warn(file, lineno, "input ends without the blank line after its last sample; "
			"kept (stackcollapse-perf.pl drops it)");
		end_sample(f);
	}
	settle(f);
}

/* The settled stacks, for fold_write (fold_write.c). */
struct fold_stacks fold_settled(struct fold *f)
{
	settle(f);
	const struct stack_table *t = &f->stacks;
	return (struct fold_stacks){ f->names, t->arena, t->at, t->n, t->counts, f->opt.threads };
}

/* Stack s's name ids, leaf last, in out. */
static size_t stack_ids(const struct fold *f, uint32_t s, struct id_vec *out)
{
	const uint32_t *k = f->stacks.arena + f->stacks.at[s];
	out->n = 0;
	memcpy(vec_reserve(out, k[0]), k + 1, k[0] * sizeof(*k));
	out->n = k[0];
	return out->n;
}

void fold_merge(struct fold *into, struct fold *from)
{
	settle(from);
	/* each of from's names is looked up in into once, not once a use */
	uint32_t nnames = td_intern_count(from->names);
	uint32_t *to = td_malloc((nnames + 1) * sizeof(*to));
	for (uint32_t i = 0; i < nnames; i++) {
		size_t n;
		const char *name = td_intern_str(from->names, i, &n);
		to[i] = td_intern(into->names, name, n);
	}
	struct id_vec ids = { 0 };
	uint32_t nstacks = from->stacks.n;
	for (uint32_t s = 0; s < nstacks; s++) {
		stack_ids(from, s, &ids);
		for (size_t i = 0; i < ids.n; i++)
			ids.v[i] = to[ids.v[i]];
		count_stack(into, &ids, from->stacks.counts[s]);
	}
	free(ids.v);
	free(to);
	into->frames_total += from->frames_total;
	into->frames_unknown += from->frames_unknown;
	into->malformed += from->malformed;
	for (int k = 0; k < SNIFF_KINDS; k++)
		into->votes.n[k] += from->votes.n[k];
	for (uint32_t e = 0; e < td_intern_count(from->skipped); e++) {
		size_t n;
		const char *name = td_intern_str(from->skipped, e, &n);
		note_skipped(into, (struct td_span){ name, n }, from->skipped_samples[e]);
	}
}

static int cmp_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void fold_report(const struct fold *f)
{
	enum sniff_kind other = sniff_verdict(&f->votes);
	if (f->stacks.n == 0 && f->malformed && other != SNIFF_NONE && other != SNIFF_PERF_SCRIPT)
		td_bad_input(NULL, 0, "this is %s, not perf script output; use %s", sniff_name(other), sniff_reader(other));
	else if (f->stacks.n == 0 && f->malformed)
		td_bad_input(NULL, 0, "no perf script samples found in %llu lines: is this the output of 'perf script'?",
			     (unsigned long long)f->malformed);
	/* by name: the order they were met in depends on the threads */
	uint32_t nskipped = td_intern_count(f->skipped);
	const char **skipped = td_calloc(nskipped + 1, sizeof(*skipped));
	for (uint32_t e = 0; e < nskipped; e++)
		skipped[e] = td_intern_str(f->skipped, e, NULL);
	qsort(skipped, nskipped, sizeof(*skipped), cmp_strings);
	for (uint32_t e = 0; e < nskipped; e++)
		td_warn(NULL, 0, "skipped %llu samples of event %s (kept: %s; choose with --event-filter)",
			(unsigned long long)f->skipped_samples[td_intern_find(f->skipped, skipped[e], strlen(skipped[e]))],
			skipped[e], f->event ? f->event : "?");
	free(skipped);
	if (f->malformed > MAX_WARNINGS)
		td_warn(NULL, 0, "%llu unrecognized lines ignored in all (first %d shown)",
			(unsigned long long)f->malformed, MAX_WARNINGS);
	if (f->frames_total && f->frames_unknown * 10 > f->frames_total)
		td_warn(NULL, 0, "%.1f%% of frames are [unknown]: symbols are missing (debug info, perf map files, or --call-graph dwarf)",
			100.0 * (double)f->frames_unknown / (double)f->frames_total);
}
