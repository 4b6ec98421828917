#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "common/diag.h"
#include "common/grow.h"
#include "common/plain.h"
#include "common/queue.h"
#include "common/swar.h"
#include "fold_threads.h"

#define BLOCK_BYTES (1u << 20)     /* a block handed to one worker */
#define QUEUE_DEPTH 4              /* blocks waiting for a worker */
#define SERIAL_BYTES (16u << 20)   /* folded on the reading thread alone first */

struct block {
	char *data;
	size_t len, cap;
	unsigned long seq;         /* its place in the input; its lines are numbered from 1 */
};

/* The messages of the threads folding, kept as records to be said in
 * input order once all are folded: by part of the input (seq: a block, a
 * chunk), a part's fold messages before the binary-data one that cut it;
 * a part's line numbers are moved by the offset its place gives. */
struct msg {
	unsigned long seq;
	int kind;                  /* 0: fold_text's (a malformed line), 1: binary data */
	size_t order;              /* arrival */
	const char *file;
	unsigned long line;
	size_t at, len;            /* its text in msg_log.text */
};

struct msg_log {
	pthread_mutex_t lock;
	struct msg *m;
	size_t n, cap;
	char *text;
	size_t len, text_cap;
};

/* What a thread's messages are about now (td_diag_capture's context). */
struct msg_ctx {
	struct msg_log *log;
	unsigned long seq;
	int kind;
};

static void log_message(void *arg, const struct td_diag_record *r)
{
	struct msg_ctx *c = arg;
	struct msg_log *log = c->log;
	pthread_mutex_lock(&log->lock);
	TD_ALLOC_GROW(log->m, log->n + 1, log->cap);
	TD_ALLOC_GROW(log->text, log->len + r->text_len, log->text_cap);
	memcpy(log->text + log->len, r->text, r->text_len);
	log->m[log->n] = (struct msg){ c->seq, c->kind, log->n, r->file, r->line, log->len, r->text_len };
	log->n++;
	log->len += r->text_len;
	pthread_mutex_unlock(&log->lock);
}

static int cmp_msgs(const void *a, const void *b)
{
	const struct msg *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Says the log in input order, part seq's line numbers moved by
 * offset[seq] (offset NULL: none): fold messages while fewer than
 * FOLD_MAX_WARNINGS were shown in all (each fold showed its own first
 * ones, and takes its parts in input order, so the input's first ones are
 * among them), every other one. */
static void print_log(struct msg_log *log, uint64_t shown, const unsigned long *offset)
{
	if (log->n)
		qsort(log->m, log->n, sizeof(*log->m), cmp_msgs);
	for (size_t i = 0; i < log->n; i++) {
		const struct msg *m = &log->m[i];
		if (m->kind == 0 && shown++ >= FOLD_MAX_WARNINGS)
			continue;
		td_diag_emit(m->file, m->line && offset ? m->line + offset[m->seq] : m->line, log->text + m->at, m->len);
	}
	free(log->m);
	free(log->text);
	pthread_mutex_destroy(&log->lock);
}

/* Blocks go round: the reading thread takes an empty one, fills it and
 * queues it full; a worker folds it and queues it empty again. Their
 * number is fixed, so memory is bounded. A block's lines are numbered
 * from 1 while folded, and their count kept by its seq: the input's line
 * numbers are known once all are folded, and the reading thread never
 * counts the newlines of a block itself (a pass over every byte). */
struct pool {
	struct td_queue full, empty;
	const char *name;
	pthread_mutex_t lock;      /* over lines */
	unsigned long *lines;      /* by seq: the lines of the block folded */
	size_t lines_cap;
};

struct worker {
	pthread_t thread;
	struct pool *pool;
	struct fold *fold;
	struct msg_ctx msgs;
};

static void fold_block(struct fold *f, struct pool *pool, const struct block *b)
{
	unsigned long n = fold_text(f, b->data, b->len, pool->name, 1);
	pthread_mutex_lock(&pool->lock);
	TD_ALLOC_GROW(pool->lines, b->seq + 1, pool->lines_cap);
	pool->lines[b->seq] = n;
	pthread_mutex_unlock(&pool->lock);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct block *b;
	td_diag_capture(log_message, &w->msgs);
	while ((b = td_queue_pop(&w->pool->full))) {
		w->msgs.seq = b->seq;
		fold_block(w->fold, w->pool, b);
		td_queue_push(&w->pool->empty, b);
	}
	td_diag_capture(NULL, NULL);
	return NULL;
}

/* An empty block with room for at least need bytes. */
static struct block *take_empty(struct pool *pool, size_t need)
{
	struct block *b = td_queue_pop(&pool->empty);
	if (b->cap < need) {
		b->cap = need;
		b->data = td_realloc(b->data, b->cap);
	}
	b->len = 0;
	return b;
}

/* End of the last complete sample in buf: just after a blank line. When a
 * block holds no blank line at all, cut before a line that starts a new
 * header (one-line samples have no blank lines). 0: no cut found. */
static size_t find_cut(const char *buf, size_t len)
{
	for (size_t i = len; i > 1; i--) {
		if (buf[i - 1] != '\n')
			continue;
		if (buf[i - 2] == '\n' || (i > 2 && buf[i - 2] == '\r' && buf[i - 3] == '\n'))
			return i;
	}
	for (size_t i = len; i > 1; i--)
		if (buf[i - 2] == '\n' && buf[i - 1] != ' ' && buf[i - 1] != '\t' && buf[i - 1] != '\n')
			return i - 1;
	return 0;
}

/* The newlines in p[0..n): 16 (SSE2) or 8 bytes a step, each byte's hits
 * summed in its own byte lane for up to 255 steps, then the lanes added
 * (a memchr call a line made the reading thread slower than a worker). */
static unsigned long count_lines(const char *p, size_t n)
{
	unsigned long lines = 0;
	const char *end = p + n;
#if defined(__SSE2__)
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	while (end - p >= 16) {
		__m128i lanes = zero;          /* a newline's compare is -1: subtracted, it counts 1 */
		for (int k = 0; k < 255 && end - p >= 16; k++, p += 16)
			lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), nl));
		__m128i sums = _mm_sad_epu8(lanes, zero);
		lines += (unsigned long)_mm_cvtsi128_si32(sums) + (unsigned long)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
	}
#elif TD_SWAR
	while (end - p >= 8) {
		uint64_t lanes = 0;
		for (int k = 0; k < 255 && end - p >= 8; k++, p += 8)
			lanes += td_swar_equal(td_swar_load(p), '\n') >> 7;
		lanes = (lanes & 0x00ff00ff00ff00ffu) + ((lanes >> 8) & 0x00ff00ff00ff00ffu);
		lines += (unsigned long)((lanes * 0x0001000100010001u) >> 48);
	}
#endif
	for (; p < end; p++)
		lines += *p == '\n';
	return lines;
}

/* Stops the block at the line holding a NUL; returns false if there was one. */
static bool cut_binary(struct block *b, const char *name)
{
	const char *z = memchr(b->data, '\0', b->len);
	if (!z)
		return true;
	const char *line_start = b->data;
	for (const char *p = b->data; (p = memchr(p, '\n', (size_t)(z - p))); p++)
		line_start = p + 1;
	b->len = (size_t)(line_start - b->data);
	td_bad_input(name, 1 + count_lines(b->data, b->len), "binary data");
	return false;
}

/* Runs of whole lines straight from the input's buffer, up to limit bytes
 * (then false: the input goes on); at the end what runs leave (a line with
 * a NUL byte) line by line, which reports it. */
static bool fold_sequential(struct fold *f, struct td_input *in, size_t limit)
{
	const char *run, *line;
	size_t n, len, done = 0;
	while (done < limit && (n = td_input_next_lines(in, BLOCK_BYTES, &run))) {
		td_input_count_lines(in, fold_text(f, run, n, td_input_name(in), td_input_lineno(in) + 1));
		done += n;
	}
	if (done >= limit)
		return false;
	while (td_input_next(in, &line, &len))
		fold_line(f, line, len, td_input_name(in), td_input_lineno(in));
	fold_end_input(f, td_input_name(in), td_input_lineno(in));
	return true;
}

/* The workers, once the event the folds keep is known. A thread that
 * cannot be started is done without: the reading thread folds more. */
static void start_workers(struct pool *pool, struct worker *workers, int *started, int nworkers,
			  const struct fold *f, const struct fold_options *opts, struct msg_log *log)
{
	if (*started)
		return;
	struct fold_options wo = *opts;
	wo.event_filter = fold_event(f) ? fold_event(f) : opts->event_filter;
	for (int i = 0; i < nworkers; i++) {
		struct worker *w = &workers[*started];
		w->pool = pool;
		w->fold = fold_new(&wo);
		w->msgs = (struct msg_ctx){ log, 0, 0 };
		if (pthread_create(&w->thread, NULL, work, w) != 0) {
			fold_free(w->fold);
			break;
		}
		(*started)++;
	}
}

/* ---- a regular file, mapped ------------------------------------------------------ */

#define RANGE_MIN (8u << 20)        /* a mapped input gets a thread per RANGE_MIN bytes at most */
#define CHUNK_SPAN (2u << 20)       /* then it is handed out about this many bytes at a time */
#define CHUNK_BYTES (256u << 10)    /* scanned for a NUL byte, then folded while in cache */
#define RELEASE_BYTES (4u << 20)    /* mapped pages read are given back this many at a time */

/* The part of a mapped input one thread folds alone: whole samples,
 * [p, end), in the caller's fold. */
struct range {
	struct fold *fold;
	struct td_input *in;
	const char *name;
	const char *p, *end;
	unsigned long first_line;    /* of p */
	unsigned long lines;         /* folded */
	bool binary;                 /* stopped before the line holding a NUL byte */
};

/* Just after the first blank line (a sample's end) that follows a newline
 * in [p, limit); NULL if none does. */
static const char *after_blank(const char *p, const char *limit, const char *end)
{
	while (p < limit && (p = memchr(p, '\n', (size_t)(end - p))) && p < limit) {
		p++;
		if (p < end && *p == '\n')
			return p + 1;
		if (end - p >= 2 && p[0] == '\r' && p[1] == '\n')
			return p + 2;
	}
	return NULL;
}

/* Folds r's bytes a chunk at a time, each scanned for a NUL byte first: the
 * lines before the one holding it are folded, then r stops (binary). */
static void fold_range(struct range *r)
{
	const char *p = r->p, *released = r->p;
	while (p < r->end && !r->binary) {
		const char *q = (size_t)(r->end - p) > CHUNK_BYTES ? p + CHUNK_BYTES : r->end;
		if (q < r->end) {                 /* on to the end of its line */
			const char *nl = memchr(q - 1, '\n', (size_t)(r->end - q + 1));
			q = nl ? nl + 1 : r->end;
		}
		const char *z = memchr(p, '\0', (size_t)(q - p));
		if (z) {
			const char *nl = memrchr(p, '\n', (size_t)(z - p));
			q = nl ? nl + 1 : p;
			r->binary = true;
		}
		r->lines += fold_text(r->fold, p, (size_t)(q - p), r->name, r->first_line + r->lines);
		p = q;
		if ((size_t)(p - released) >= RELEASE_BYTES) {
			td_input_map_done(r->in, released, (size_t)(p - released));
			released = p;
		}
	}
	td_input_map_done(r->in, released, (size_t)(p - released));
}

/* The input past its first event's samples, cut into chunks of whole
 * samples (each starts after a blank line, CHUNK_SPAN bytes or so from the
 * last) that the threads take in input order, whichever is free: they
 * finish together however the machine shares its cores. A chunk is
 * folded only once every chunk before it is known free of NUL bytes, so
 * none past the first NUL is: the bytes one thread folds, as one thread
 * stops there. A chunk's lines are numbered from 1 while folded; its
 * messages are moved to the input's numbers once all chunks are counted. */
struct chunks {
	struct td_input *in;
	const char *name;
	const char *base, *end;
	size_t span, n;
	_Atomic size_t next;         /* the next chunk to take */
	_Atomic size_t stop;         /* chunks from here on are not folded */
	_Atomic size_t *state;       /* a chunk's: CHUNK_UNSEEN, CHUNK_CLEAN, or CHUNK_CUT + the
					offset of the line holding its first NUL byte */
	unsigned long *lines;        /* a chunk's lines folded */
	struct fold **folded_by;
	struct msg_log log;
	/* the mapped pages of the chunks folded, given back RELEASE_BYTES
	 * at a time, not a chunk at a time: each call interrupts the CPUs
	 * the other threads run on (a TLB shootdown) */
	pthread_mutex_t release_lock;
	bool *done;                  /* folded */
	size_t done_upto;            /* every chunk before it is */
	const char *released;        /* the bytes before it are given back */
};

enum { CHUNK_UNSEEN, CHUNK_CLEAN, CHUNK_CUT };

/* Chunk j's first byte (chunk n's: the end). */
static const char *chunk_start(const struct chunks *c, size_t j)
{
	if (j == 0)
		return c->base;
	if (j >= c->n)
		return c->end;
	const char *p = after_blank(c->base + j * c->span, c->end, c->end);
	return p ? p : c->end;
}

/* Chunk j's state, scanning it for a NUL byte if no thread has yet. */
static size_t chunk_state(struct chunks *c, size_t j)
{
	size_t st = atomic_load(&c->state[j]);
	if (st != CHUNK_UNSEEN)
		return st;
	const char *p = chunk_start(c, j), *q = chunk_start(c, j + 1);
	const char *z = memchr(p, '\0', (size_t)(q - p));
	st = CHUNK_CLEAN;
	if (z) {
		const char *nl = memrchr(p, '\n', (size_t)(z - p));
		st = CHUNK_CUT + (nl ? (size_t)(nl + 1 - p) : 0);
	}
	atomic_store(&c->state[j], st);
	return st;
}

/* Chunk j is folded: the pages of the chunks folded before the first not
 * yet are given back once they make RELEASE_BYTES. */
static void release_folded(struct chunks *c, size_t j)
{
	pthread_mutex_lock(&c->release_lock);
	c->done[j] = true;
	while (c->done_upto < c->n && c->done[c->done_upto])
		c->done_upto++;
	const char *from = c->released, *to = chunk_start(c, c->done_upto);
	bool give = (size_t)(to - from) >= RELEASE_BYTES;
	if (give)
		c->released = to;
	pthread_mutex_unlock(&c->release_lock);
	if (give)
		td_input_map_done(c->in, from, (size_t)(to - from));
}

struct chunk_thread {
	pthread_t thread;
	bool started;
	struct fold *fold;
	struct chunks *c;
	struct msg_ctx msgs;
};

static void fold_chunks(struct chunk_thread *t)
{
	struct chunks *c = t->c;
	size_t checked = 0;          /* chunks before it known clean */
	td_diag_capture(log_message, &t->msgs);
	for (;;) {
		size_t j = atomic_fetch_add(&c->next, 1);
		if (j >= c->n || j >= atomic_load(&c->stop))
			break;
		size_t st = chunk_state(c, j);
		while (checked < j && chunk_state(c, checked) == CHUNK_CLEAN)
			checked++;
		if (checked < j)
			break;
		const char *p = chunk_start(c, j), *q = chunk_start(c, j + 1);
		if (st >= CHUNK_CUT) {
			q = p + (st - CHUNK_CUT);
			for (size_t stop = atomic_load(&c->stop); j + 1 < stop;)
				if (atomic_compare_exchange_weak(&c->stop, &stop, j + 1))
					break;
		}
		t->msgs.seq = j;
		c->lines[j] = fold_text(t->fold, p, (size_t)(q - p), c->name, 1);
		c->folded_by[j] = t->fold;
		release_folded(c, j);
		if (st >= CHUNK_CUT)
			break;
	}
	td_diag_capture(NULL, NULL);
}

static void *fold_chunks_thread(void *arg)
{
	fold_chunks(arg);
	return NULL;
}

/* Folds [base, end) of the input on nthreads threads, f on this one;
 * first_line is base's line. Then says their messages, a "binary data" at
 * the first NUL byte's line and the note of an open last sample, in input
 * order and with its line numbers, and merges their folds into f. */
static void fold_chunked(struct fold *f, struct td_input *in, const char *base, const char *end,
			 unsigned long first_line, const struct fold_options *opts, int nthreads)
{
	const char *name = td_input_name(in);
	size_t rest = (size_t)(end - base);
	struct chunks c = { .in = in, .name = name, .base = base, .end = end,
			    .span = td_plain() ? rest / 64 + 1 : CHUNK_SPAN,
			    .log = { .lock = PTHREAD_MUTEX_INITIALIZER },
			    .release_lock = PTHREAD_MUTEX_INITIALIZER, .released = base };
	c.n = rest / c.span + 1;
	c.stop = c.n;
	c.state = td_calloc(c.n, sizeof(*c.state));
	c.lines = td_calloc(c.n, sizeof(*c.lines));
	c.folded_by = td_calloc(c.n, sizeof(*c.folded_by));
	c.done = td_calloc(c.n, sizeof(*c.done));
	struct fold_options wo = *opts;
	wo.event_filter = fold_event(f) ? fold_event(f) : opts->event_filter;
	struct chunk_thread *t = td_calloc((size_t)nthreads, sizeof(*t));
	for (int k = 0; k < nthreads; k++) {
		t[k].fold = k ? fold_new(&wo) : f;
		t[k].c = &c;
		t[k].msgs = (struct msg_ctx){ &c.log, 0, 0 };
	}
	uint64_t shown = fold_malformed(f) < FOLD_MAX_WARNINGS ? fold_malformed(f) : FOLD_MAX_WARNINGS;
	for (int k = 1; k < nthreads; k++)
		t[k].started = pthread_create(&t[k].thread, NULL, fold_chunks_thread, &t[k]) == 0;
	fold_chunks(&t[0]);
	for (int k = 1; k < nthreads; k++)
		if (t[k].started)
			pthread_join(t[k].thread, NULL);
	/* every chunk before the first holding a NUL byte (or the last) is folded */
	size_t last = 0;
	while (last + 1 < c.n && c.state[last] == CHUNK_CLEAN)
		last++;
	bool binary = c.state[last] >= CHUNK_CUT;
	td_input_map_done(in, c.released, (size_t)(end - c.released));
	unsigned long *offset = td_malloc((last + 1) * sizeof(*offset));
	offset[0] = first_line - 1;
	for (size_t j = 0; j < last; j++)
		offset[j + 1] = offset[j] + c.lines[j];
	print_log(&c.log, shown, offset);
	unsigned long next = offset[last] + c.lines[last] + 1;
	if (binary)
		td_bad_input(name, next, "binary data");
	/* an open sample is in the fold of the last chunk that folded bytes
	 * (those after it may be empty: no blank line to cut at) */
	struct fold *open = f;
	for (size_t j = last + 1; j-- > 0;) {
		size_t folded = c.state[j] >= CHUNK_CUT ? c.state[j] - CHUNK_CUT : (size_t)(chunk_start(&c, j + 1) - chunk_start(&c, j));
		if (folded) {
			open = c.folded_by[j];
			break;
		}
	}
	fold_end_input(open, name, binary ? next : next - 1);
	for (int k = 1; k < nthreads; k++) {
		fold_merge(f, t[k].fold);
		fold_free(t[k].fold);
	}
	free(offset);
	free(t);
	free(c.state);
	free(c.lines);
	free(c.folded_by);
	free(c.done);
	pthread_mutex_destroy(&c.release_lock);
}

/* A mapped input: the samples up to the first event's are folded here
 * (the default filter keeps the first event met), then the rest by
 * fold_chunked on a thread per RANGE_MIN bytes at most (TD_PLAIN=1: on
 * nthreads whatever the size, so tests cut small inputs too). */
static void fold_mapped(struct fold *f, struct td_input *in, const char *data, size_t len,
			const struct fold_options *opts, int nthreads)
{
	const char *end = data + len;
	struct range r = { .fold = f, .in = in, .name = td_input_name(in), .p = data, .end = data,
			   .first_line = td_input_lineno(in) + 1 };
	while (nthreads > 1 && !fold_event(f) && !opts->event_filter && r.end < end && !r.binary) {
		const char *cut = after_blank(r.end, end, end);
		r.p = r.end;
		r.end = cut ? cut : end;
		fold_range(&r);
	}
	r.p = r.end;
	r.end = r.binary ? r.p : end;
	size_t rest = (size_t)(end - r.p), range_min = td_plain() ? 1 : RANGE_MIN;
	size_t want = rest / range_min < (size_t)nthreads ? rest / range_min : (size_t)nthreads;
	if (want > 1 && !r.binary && (fold_event(f) || opts->event_filter)) {
		fold_chunked(f, in, r.p, end, r.first_line + r.lines, opts, (int)want);
		return;
	}
	fold_range(&r);
	if (r.binary)
		td_bad_input(r.name, r.first_line + r.lines, "binary data");
	fold_end_input(f, r.name, r.binary ? r.first_line + r.lines : r.first_line + r.lines - 1);
}

/* The first SERIAL_BYTES are folded on the reading thread, in place: an
 * input that ends there never starts a worker, because starting them,
 * copying its bytes into blocks and merging their tables costs more than
 * the second core saves. Past them the reading thread is a worker too: a
 * block no queue slot is free for it folds itself, so nthreads threads
 * fold and none waits while there is input. The workers' tables start at
 * a blank line and are merged, so the output is the same either way;
 * TD_PLAIN=1 (common/plain.h) starts them at the first byte. */
static void fold_stream(struct fold *f, struct td_input *in, const struct fold_options *opts, int nthreads)
{
	if (fold_sequential(f, in, nthreads <= 1 ? SIZE_MAX : td_plain() ? 0 : SERIAL_BYTES))
		return;
	struct pool pool = { .name = td_input_name(in), .lock = PTHREAD_MUTEX_INITIALIZER };
	int nworkers = nthreads - 1, nblocks = QUEUE_DEPTH + nworkers + 2;
	td_queue_init(&pool.full, QUEUE_DEPTH);
	td_queue_init(&pool.empty, nblocks);
	struct block *blocks = td_calloc((size_t)nblocks, sizeof(*blocks));
	for (int i = 0; i < nblocks; i++)
		td_queue_push(&pool.empty, &blocks[i]);
	struct worker *workers = td_calloc((size_t)nworkers, sizeof(*workers));
	int started = 0;
	/* from here on every thread's messages wait for their turn */
	struct msg_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct msg_ctx msgs = { &log, 0, 0 };
	uint64_t shown = fold_malformed(f);
	unsigned long seq = 0;
	td_diag_capture(log_message, &msgs);
	unsigned long end_line = 0;       /* fold_end_input's, in the last block's numbers */
	/* cur holds the bytes read but not yet handed out: a tail carried over
	 * from the previous block, then fresh input */
	struct block *cur = take_empty(&pool, BLOCK_BYTES);
	unsigned long first_line = td_input_lineno(in) + 1;
	bool more = true;
	while (more) {
		if (cur->cap - cur->len < BLOCK_BYTES / 2) {     /* no blank line for a while */
			cur->cap = cur->len + BLOCK_BYTES;
			cur->data = td_realloc(cur->data, cur->cap);
		}
		size_t got = td_input_read(in, cur->data + cur->len, cur->cap - cur->len);
		cur->len += got;
		more = got > 0 && !td_input_failed(in);
		size_t cut = more ? find_cut(cur->data, cur->len) : cur->len;
		if (more && cut == 0)
			continue;
		size_t carry = cur->len - cut;
		struct block *next = take_empty(&pool, carry > BLOCK_BYTES ? carry : BLOCK_BYTES);
		memcpy(next->data, cur->data + cut, carry);
		next->len = carry;
		cur->len = cut;
		cur->seq = msgs.seq = seq++;
		msgs.kind = 1;
		more = cut_binary(cur, pool.name) && more;
		msgs.kind = 0;
		if (!more) {                      /* the last block: its open sample ends here */
			fold_block(f, &pool, cur);
			end_line = 1 + count_lines(cur->data, cur->len) - (!cur->len || cur->data[cur->len - 1] == '\n');
			td_queue_push(&pool.empty, cur);
			td_queue_push(&pool.empty, next);
			break;
		}
		if (fold_event(f) || opts->event_filter)  /* the default event is decided in order */
			start_workers(&pool, workers, &started, nworkers, f, opts, &log);
		/* the first block may end a sample the serial part began */
		if (!started || cur->seq == 0 || !td_queue_try_push(&pool.full, cur)) {
			fold_block(f, &pool, cur);
			td_queue_push(&pool.empty, cur);
		}
		cur = next;
	}
	td_queue_close(&pool.full);
	for (int i = 0; i < started; i++) {
		pthread_join(workers[i].thread, NULL);
		fold_merge(f, workers[i].fold);
		fold_free(workers[i].fold);
	}
	td_diag_capture(NULL, NULL);
	/* block k's line i is the input's line offset[k] + i; seq blocks in all */
	unsigned long *offset = td_malloc(seq * sizeof(*offset));
	offset[0] = first_line - 1;
	for (unsigned long k = 0; k + 1 < seq; k++)
		offset[k + 1] = offset[k] + pool.lines[k];
	print_log(&log, shown, offset);
	fold_end_input(f, pool.name, offset[seq - 1] + end_line);
	free(offset);
	free(pool.lines);
	pthread_mutex_destroy(&pool.lock);
	for (int i = 0; i < nblocks; i++)
		free(blocks[i].data);
	free(blocks);
	free(workers);
	td_queue_destroy(&pool.full);
	td_queue_destroy(&pool.empty);
}

void fold_input(struct fold *f, struct td_input *in, const struct fold_options *opts, int nthreads)
{
	const char *data;
	size_t len;
	if (td_input_map(in, &data, &len))
		fold_mapped(f, in, data, len, opts, nthreads < 1 ? 1 : nthreads);
	else
		fold_stream(f, in, opts, nthreads);
}
