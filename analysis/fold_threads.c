#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "fold_threads.h"

#define BLOCK_BYTES (2u << 20)     /* a block handed to one worker */
#define QUEUE_DEPTH 4             /* blocks waiting, bounds memory */

struct block {
	char *data;
	size_t len;
	unsigned long first_line;  /* line number of data[0] */
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct block queue[QUEUE_DEPTH];
	int head, count;
	bool closed;
	const char *name;
	char *spare[QUEUE_DEPTH + 2];   /* block buffers to reuse: no page faults per block */
	int nspare;
};

struct worker {
	pthread_t thread;
	struct pool *pool;
	struct fold *fold;
};

static void fold_block(struct fold *f, const struct block *b, const char *name)
{
	const char *p = b->data, *end = b->data + b->len;
	unsigned long lineno = b->first_line;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t len = n && p[n - 1] == '\r' ? n - 1 : n;
		fold_line(f, p, len, name, lineno++);
		p += n + 1;
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct pool *pool = w->pool;
	for (;;) {
		pthread_mutex_lock(&pool->lock);
		while (pool->count == 0 && !pool->closed)
			pthread_cond_wait(&pool->changed, &pool->lock);
		if (pool->count == 0) {
			pthread_mutex_unlock(&pool->lock);
			return NULL;
		}
		struct block b = pool->queue[pool->head];
		pool->head = (pool->head + 1) % QUEUE_DEPTH;
		pool->count--;
		pthread_cond_broadcast(&pool->changed);
		pthread_mutex_unlock(&pool->lock);
		fold_block(w->fold, &b, pool->name);
		pthread_mutex_lock(&pool->lock);
		if (pool->nspare < (int)(sizeof pool->spare / sizeof *pool->spare))
			pool->spare[pool->nspare++] = b.data, b.data = NULL;
		pthread_mutex_unlock(&pool->lock);
		free(b.data);
	}
}

/* A block buffer of BLOCK_BYTES plus room for the carried-over tail. */
static char *get_buffer(struct pool *pool, size_t carry)
{
	char *buf = NULL;
	if (carry == 0) {
		pthread_mutex_lock(&pool->lock);
		if (pool->nspare)
			buf = pool->spare[--pool->nspare];
		pthread_mutex_unlock(&pool->lock);
	}
	return buf ? buf : td_malloc(carry + BLOCK_BYTES);
}

static void submit(struct pool *pool, struct block b)
{
	pthread_mutex_lock(&pool->lock);
	while (pool->count == QUEUE_DEPTH)
		pthread_cond_wait(&pool->changed, &pool->lock);
	pool->queue[(pool->head + pool->count) % QUEUE_DEPTH] = b;
	pool->count++;
	pthread_cond_broadcast(&pool->changed);
	pthread_mutex_unlock(&pool->lock);
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

static unsigned long count_lines(const char *p, size_t n)
{
	unsigned long lines = 0;
	for (const char *end = p + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		lines++;
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

static void fold_sequential(struct fold *f, struct td_input *in)
{
	const char *line;
	size_t len;
	while (td_input_next(in, &line, &len))
		fold_line(f, line, len, td_input_name(in), td_input_lineno(in));
	fold_end_input(f, td_input_name(in), td_input_lineno(in));
}

static void start_workers(struct pool *pool, struct worker *workers, int *started, int nthreads,
			  const struct fold *f, const struct fold_options *opts)
{
	if (*started)
		return;
	struct fold_options wo = *opts;
	wo.event_filter = fold_event(f) ? fold_event(f) : opts->event_filter;
	for (; *started < nthreads; (*started)++) {
		workers[*started].pool = pool;
		workers[*started].fold = fold_new(&wo);
		pthread_create(&workers[*started].thread, NULL, work, &workers[*started]);
	}
}

void fold_input(struct fold *f, struct td_input *in, const struct fold_options *opts, int nthreads)
{
	if (nthreads <= 1) {
		fold_sequential(f, in);
		return;
	}
	struct pool pool = { .name = td_input_name(in) };
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.changed, NULL);
	struct worker *workers = td_calloc((size_t)nthreads, sizeof(*workers));
	int started = 0;
	unsigned long next_line = 0;
	/* cur holds the bytes read but not yet handed out: a tail carried over
	 * from the previous block, then fresh input */
	struct block cur = { get_buffer(&pool, 0), 0, 1 };
	size_t cur_cap = BLOCK_BYTES;
	bool more = true;
	while (more) {
		if (cur_cap - cur.len < BLOCK_BYTES / 2) {     /* no blank line for a while */
			cur_cap = cur.len + BLOCK_BYTES;
			cur.data = td_realloc(cur.data, cur_cap);
		}
		size_t got = td_input_read(in, cur.data + cur.len, cur_cap - cur.len);
		cur.len += got;
		more = got > 0 && !td_input_failed(in);
		size_t cut = more ? find_cut(cur.data, cur.len) : cur.len;
		if (more && cut == 0)
			continue;
		struct block next = { NULL, cur.len - cut, 0 };
		next.data = get_buffer(&pool, next.len > BLOCK_BYTES / 2 ? next.len : 0);
		size_t next_cap = next.len > BLOCK_BYTES / 2 ? next.len + BLOCK_BYTES : BLOCK_BYTES;
		memcpy(next.data, cur.data + cut, next.len);
		cur.len = cut;
		more = cut_binary(&cur, pool.name) && more;
		next.first_line = cur.first_line + count_lines(cur.data, cur.len);
		if (!more) {                      /* the last block: its open sample ends here */
			fold_block(f, &cur, pool.name);
			next_line = next.first_line - (cur.len && cur.data[cur.len - 1] == '\n');
			free(cur.data);
			free(next.data);
			break;
		}
		if (!fold_event(f) && !opts->event_filter) {
			fold_block(f, &cur, pool.name);    /* the default event is decided in order */
			free(cur.data);
		} else {
			start_workers(&pool, workers, &started, nthreads, f, opts);
			submit(&pool, cur);
		}
		cur = next;
		cur_cap = next_cap;
	}
	pthread_mutex_lock(&pool.lock);
	pool.closed = true;
	pthread_cond_broadcast(&pool.changed);
	pthread_mutex_unlock(&pool.lock);
	for (int i = 0; i < started; i++) {
		pthread_join(workers[i].thread, NULL);
		fold_merge(f, workers[i].fold);
		fold_free(workers[i].fold);
	}
	fold_end_input(f, pool.name, next_line);
	for (int i = 0; i < pool.nspare; i++)
		free(pool.spare[i]);
	free(workers);
	pthread_mutex_destroy(&pool.lock);
	pthread_cond_destroy(&pool.changed);
}
