#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "common/diag.h"
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
	unsigned long first_line;  /* line number of data[0] */
};

/* Blocks go round: the reading thread takes an empty one, fills it and
 * queues it full; a worker folds it and queues it empty again. Their
 * number is fixed, so memory is bounded. */
struct pool {
	struct td_queue full, empty;
	const char *name;
};

struct worker {
	pthread_t thread;
	struct pool *pool;
	struct fold *fold;
};

static void fold_block(struct fold *f, const struct block *b, const char *name)
{
	fold_text(f, b->data, b->len, name, b->first_line);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct block *b;
	while ((b = td_queue_pop(&w->pool->full))) {
		fold_block(w->fold, b, w->pool->name);
		td_queue_push(&w->pool->empty, b);
	}
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
	td_bad_input(name, b->first_line + count_lines(b->data, b->len), "binary data");
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
			  const struct fold *f, const struct fold_options *opts)
{
	if (*started)
		return;
	struct fold_options wo = *opts;
	wo.event_filter = fold_event(f) ? fold_event(f) : opts->event_filter;
	for (int i = 0; i < nworkers; i++) {
		struct worker *w = &workers[*started];
		w->pool = pool;
		w->fold = fold_new(&wo);
		if (pthread_create(&w->thread, NULL, work, w) != 0) {
			fold_free(w->fold);
			break;
		}
		(*started)++;
	}
}

/* The first SERIAL_BYTES are folded on the reading thread, in place: an
 * input that ends there never starts a worker, because starting them,
 * copying its bytes into blocks and merging their tables costs more than
 * the second core saves. Past them the reading thread is a worker too: a
 * block no queue slot is free for it folds itself, so nthreads threads
 * fold and none waits while there is input. The workers' tables start at
 * a blank line and are merged, so the output is the same either way;
 * TD_PLAIN=1 (common/plain.h) starts them at the first byte. */
void fold_input(struct fold *f, struct td_input *in, const struct fold_options *opts, int nthreads)
{
	if (fold_sequential(f, in, nthreads <= 1 ? SIZE_MAX : td_plain() ? 0 : SERIAL_BYTES))
		return;
	struct pool pool = { .name = td_input_name(in) };
	int nworkers = nthreads - 1, nblocks = QUEUE_DEPTH + nworkers + 2;
	td_queue_init(&pool.full, QUEUE_DEPTH);
	td_queue_init(&pool.empty, nblocks);
	struct block *blocks = td_calloc((size_t)nblocks, sizeof(*blocks));
	for (int i = 0; i < nblocks; i++)
		td_queue_push(&pool.empty, &blocks[i]);
	struct worker *workers = td_calloc((size_t)nworkers, sizeof(*workers));
	int started = 0;
	unsigned long next_line = 0;
	/* cur holds the bytes read but not yet handed out: a tail carried over
	 * from the previous block, then fresh input */
	struct block *cur = take_empty(&pool, BLOCK_BYTES);
	unsigned long first_line = td_input_lineno(in) + 1;
	cur->first_line = first_line;
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
		more = cut_binary(cur, pool.name) && more;
		next->first_line = cur->first_line + count_lines(cur->data, cur->len);
		if (!more) {                      /* the last block: its open sample ends here */
			fold_block(f, cur, pool.name);
			next_line = next->first_line - (!cur->len || cur->data[cur->len - 1] == '\n');
			td_queue_push(&pool.empty, cur);
			td_queue_push(&pool.empty, next);
			break;
		}
		if (fold_event(f) || opts->event_filter)  /* the default event is decided in order */
			start_workers(&pool, workers, &started, nworkers, f, opts);
		/* the first block may end a sample the serial part began */
		if (!started || cur->first_line == first_line || !td_queue_try_push(&pool.full, cur)) {
			fold_block(f, cur, pool.name);
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
	fold_end_input(f, pool.name, next_line);
	for (int i = 0; i < nblocks; i++)
		free(blocks[i].data);
	free(blocks);
	free(workers);
	td_queue_destroy(&pool.full);
	td_queue_destroy(&pool.empty);
}
