/* Records handed from the reading thread to a consumer thread in blocks:
 * the reader fills a free block, queues it full, and the consumer empties
 * it in order and gives it back. A few blocks are in flight at most, so
 * memory does not grow with the input. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/bytes.h"
#include "common/diag.h"
#include "stat_pipe.h"

#define PIPE_ITEMS 8192            /* records per block: a hand-off costs the consumer a futex call */
#define PIPE_BLOCKS 4
#define NO_STRING UINT32_MAX
#define PIPE_SHAPES 1024           /* row shapes whose strings the consumer keeps */

/* A record in 96 bytes (a message: its line at str[0], length str[1]). A
 * string equal to the one of the item before in the block is not copied
 * again: rows repeat their scope, event and units. A record of a row shape
 * (stat_record.shape) sends its strings once: the consumer keeps them
 * under the shape's number, in the slot both sides compute from it. */
enum { ITEM_MESSAGE = 0xff };
enum { STRINGS_HERE, STRINGS_KEPT, STRINGS_KEEP };
struct pipe_item {
	uint8_t kind;              /* enum stat_kind, or ITEM_MESSAGE */
	bool not_counted, not_supported;
	bool and_metric;           /* a counter, then the same record as its row's metric */
	uint8_t source;            /* enum stat_source */
	uint8_t strings;           /* STRINGS_KEPT: the shape's; _KEEP: here, and kept for it */
	int metric_decimals;
	uint32_t str[5];           /* scope, event, unit, metric_unit, threshold: offsets in text */
	unsigned shape;
	double interval, value, enabled_pct, variance_pct, metric_value;
	unsigned long line;
	const char *file;
};

/* The consumer's copy of a shape's strings. */
struct kept_shape {
	unsigned shape;
	char *text;
	size_t cap;
	const char *str[5];
	int len[5];
};

struct pipe_block {
	int n;
	char *text;                /* the items' strings, NUL-terminated */
	size_t used, cap;
	struct pipe_item item[PIPE_ITEMS];
};

/* A ring of blocks under the pipe's lock. */
struct block_queue {
	struct pipe_block *b[PIPE_BLOCKS];
	int head, count;
};

struct file_name {
	const char *given;
	char *copy;
};

struct stat_pipe {
	stat_emit_fn emit;
	void *ctx;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t queued, returned;
	struct block_queue full, empty;
	bool done;                  /* no more blocks will be queued */
	struct pipe_block *filling;     /* the reader's */
	/* file names are few: each kept once, for the life of the pipe */
	struct file_name *files;
	int nfiles;
	const char *last_given, *last_copy;  /* the last name looked up, stat_pipe.h */
	size_t last_len[5];             /* the lengths of the last record's strings */
	struct pipe_block *all[PIPE_BLOCKS];
	unsigned sent[PIPE_SHAPES];     /* the reader's: the shape whose strings the consumer keeps */
	struct kept_shape *kept;        /* the consumer's: PIPE_SHAPES of them */
};

static void push(struct block_queue *q, struct pipe_block *b)
{
	q->b[(q->head + q->count++) % PIPE_BLOCKS] = b;
}

static struct pipe_block *pop(struct block_queue *q)
{
	struct pipe_block *b = q->b[q->head];
	q->head = (q->head + 1) % PIPE_BLOCKS;
	q->count--;
	return b;
}

/* The item's strings kept for its shape. */
static void keep_strings(struct kept_shape *k, const struct pipe_block *b, const struct pipe_item *it)
{
	size_t len[5], total = 0;
	for (int i = 0; i < 5; i++)
		total += (len[i] = strlen(b->text + it->str[i])) + 1;
	if (total > k->cap) {
		k->cap = total * 2;
		k->text = td_realloc(k->text, k->cap);
	}
	char *w = k->text;
	for (int i = 0; i < 5; i++) {
		memcpy(w, b->text + it->str[i], len[i] + 1);
		k->str[i] = w;
		k->len[i] = (int)len[i];
		w += len[i] + 1;
	}
	k->shape = it->shape;
}

/* The strings of a record: in the block, or kept for its shape. */
static void item_strings(struct stat_pipe *p, const struct pipe_block *b, const struct pipe_item *it,
			 struct stat_record *r)
{
	const char **s[5] = { &r->scope, &r->event, &r->unit, &r->metric_unit, &r->threshold };
	if (it->strings != STRINGS_HERE) {
		struct kept_shape *k = &p->kept[it->shape % PIPE_SHAPES];
		if (it->strings == STRINGS_KEEP)
			keep_strings(k, b, it);
		for (int i = 0; i < 5; i++) {
			*s[i] = k->str[i];
			r->len[i] = k->len[i];
		}
		return;
	}
	for (int i = 0; i < 5; i++) {
		*s[i] = it->str[i] == NO_STRING ? NULL : b->text + it->str[i];
		r->len[i] = -1;
	}
}

static void run_block(struct stat_pipe *p, struct pipe_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const struct pipe_item *it = &b->item[i];
		if (it->kind == ITEM_MESSAGE) {
			fwrite(b->text + it->str[0], 1, it->str[1], stderr);
			continue;
		}
		struct stat_record r;
		r.kind = (enum stat_kind)it->kind;
		r.source = (enum stat_source)it->source;
		r.interval = it->interval;
		r.value = it->value;
		r.not_counted = it->not_counted;
		r.not_supported = it->not_supported;
		r.enabled_pct = it->enabled_pct;
		r.variance_pct = it->variance_pct;
		r.metric_value = it->metric_value;
		r.metric_decimals = it->metric_decimals;
		r.file = it->file;
		r.line = it->line;
		r.shape = it->shape;
		item_strings(p, b, it, &r);
		p->emit(p->ctx, &r);
		if (it->and_metric) {
			r.kind = STAT_METRIC;
			p->emit(p->ctx, &r);
		}
	}
	b->n = 0;
	b->used = 0;
}

static void *consumer(void *arg)
{
	struct stat_pipe *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		while (p->full.count == 0 && !p->done)
			pthread_cond_wait(&p->queued, &p->lock);
		if (p->full.count == 0) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		struct pipe_block *b = pop(&p->full);
		pthread_mutex_unlock(&p->lock);
		run_block(p, b);
		pthread_mutex_lock(&p->lock);
		push(&p->empty, b);
		pthread_cond_signal(&p->returned);
		pthread_mutex_unlock(&p->lock);
	}
}

/* The reader's block with room for one more item. */
static struct pipe_block *filling(struct stat_pipe *p)
{
	if (!p->filling) {
		pthread_mutex_lock(&p->lock);
		while (p->empty.count == 0)
			pthread_cond_wait(&p->returned, &p->lock);
		p->filling = pop(&p->empty);
		pthread_mutex_unlock(&p->lock);
	}
	return p->filling;
}

static void queue_filled(struct stat_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	push(&p->full, p->filling);
	pthread_cond_signal(&p->queued);
	pthread_mutex_unlock(&p->lock);
	p->filling = NULL;
}

static uint32_t put_text(struct pipe_block *b, const char *s, size_t n)
{
	return (uint32_t)td_append_text(&b->text, &b->used, &b->cap, s, n);
}


/* A record's string (len: its length if known, else -1) copied, unless it
 * equals the same string of the item before (at prev, prev_len long). */
static uint32_t put_string(struct pipe_block *b, const char *s, int len, uint32_t prev, size_t *prev_len)
{
	if (!s)
		return NO_STRING;
	if (len < 0) {
		size_t n = 0;
		if (prev != NO_STRING) {
			const char *t = b->text + prev;
			while (s[n] == t[n]) {
				if (!s[n])
					return prev;
				n++;
			}
		}
		n += strlen(s + n);
		*prev_len = n;
		return put_text(b, s, n);
	}
	size_t n = (size_t)len;
	if (prev != NO_STRING && n == *prev_len && td_same_bytes(b->text + prev, s, n))
		return prev;
	*prev_len = n;
	return put_text(b, s, n);
}

/* The consumer's copy of a file name, known by its address (stat.h). */
static const char *file_name(struct stat_pipe *p, const char *given)
{
	if (!given)
		return NULL;
	for (int i = p->nfiles; i-- > 0;)
		if (p->files[i].given == given) {
			p->last_given = given;
			return p->last_copy = p->files[i].copy;
		}
	p->files = td_realloc(p->files, (size_t)(p->nfiles + 1) * sizeof(*p->files));
	p->files[p->nfiles].given = given;
	p->files[p->nfiles].copy = td_strndup(given, strlen(given));
	p->last_given = given;
	return p->last_copy = p->files[p->nfiles++].copy;
}

/* The record's strings: kept by the consumer for its shape, else in the block. */
static void put_strings(struct stat_pipe *p, struct pipe_block *b, struct pipe_item *it, const struct stat_record *r)
{
	it->shape = r->shape;
	it->strings = STRINGS_HERE;
	if (r->shape) {
		unsigned *sent = &p->sent[r->shape % PIPE_SHAPES];
		if (*sent == r->shape) {
			it->strings = STRINGS_KEPT;
			return;
		}
		*sent = r->shape;
		it->strings = STRINGS_KEEP;
	}
	const struct pipe_item *before = it > b->item ? it - 1 : NULL;
	if (before && (before->kind == ITEM_MESSAGE || before->strings == STRINGS_KEPT))
		before = NULL;             /* its strings are not in the block */
	const char *s[5] = { r->scope, r->event, r->unit, r->metric_unit, r->threshold };
	for (int k = 0; k < 5; k++)
		it->str[k] = put_string(b, s[k], r->len[k], before ? before->str[k] : NO_STRING, &p->last_len[k]);
}

/* The same bits (NaN equals NaN). */
static inline bool same_double(double a, double b)
{
	uint64_t x, y;
	memcpy(&x, &a, 8);
	memcpy(&y, &b, 8);
	return x == y;
}

/* r is the metric of the counter row before: the same record but its kind
 * (a shape is one reader's, so its file is the counter's). */
static bool same_row(const struct pipe_item *it, const struct stat_record *r)
{
	return it->line == r->line && it->shape == r->shape && it->kind == STAT_COUNTER && !it->and_metric &&
	       it->source == r->source &&
	       it->not_counted == r->not_counted && it->not_supported == r->not_supported &&
	       it->metric_decimals == r->metric_decimals && same_double(it->interval, r->interval) &&
	       same_double(it->value, r->value) &&
	       same_double(it->enabled_pct, r->enabled_pct) && same_double(it->variance_pct, r->variance_pct) &&
	       same_double(it->metric_value, r->metric_value);
}

void stat_pipe_emit(void *pipe, const struct stat_record *r)
{
	struct stat_pipe *p = pipe;
	struct pipe_block *b = p->filling ? p->filling : filling(p);
	if (r->kind == STAT_METRIC && r->shape && b->n) {
		struct pipe_item *last = &b->item[b->n - 1];
		if (last->kind != ITEM_MESSAGE && same_row(last, r)) {
			last->and_metric = true;
			return;
		}
	}
	struct pipe_item *it = &b->item[b->n++];
	it->kind = (uint8_t)r->kind;
	it->source = (uint8_t)r->source;
	it->not_counted = r->not_counted;
	it->not_supported = r->not_supported;
	it->metric_decimals = r->metric_decimals;
	it->interval = r->interval;
	it->value = r->value;
	it->enabled_pct = r->enabled_pct;
	it->variance_pct = r->variance_pct;
	it->metric_value = r->metric_value;
	it->line = r->line;
	it->file = r->file == p->last_given ? p->last_copy : file_name(p, r->file);
	it->and_metric = false;
	put_strings(p, b, it, r);
	if (b->n == PIPE_ITEMS || r->kind == STAT_PAUSE)   /* a pause: what came before goes now */
		queue_filled(p);
}

static void pipe_message(void *pipe, const char *line, size_t len)
{
	struct stat_pipe *p = pipe;
	struct pipe_block *b = filling(p);
	struct pipe_item *it = &b->item[b->n++];
	it->kind = ITEM_MESSAGE;
	it->str[0] = put_text(b, line, len);
	it->str[1] = (uint32_t)len;
	if (b->n == PIPE_ITEMS)
		queue_filled(p);
}

struct stat_pipe *stat_pipe_start(stat_emit_fn emit, void *ctx)
{
	struct stat_pipe *p = td_calloc(1, sizeof(*p));
	p->emit = emit;
	p->ctx = ctx;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->queued, NULL);
	pthread_cond_init(&p->returned, NULL);
	for (int i = 0; i < PIPE_BLOCKS; i++) {
		p->all[i] = td_calloc(1, sizeof(struct pipe_block));
		push(&p->empty, p->all[i]);
	}
	p->kept = td_calloc(PIPE_SHAPES, sizeof(*p->kept));
	if (pthread_create(&p->thread, NULL, consumer, p) != 0) {
		for (int i = 0; i < PIPE_BLOCKS; i++)
			free(p->all[i]);
		free(p->kept);
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->queued);
		pthread_cond_destroy(&p->returned);
		free(p);
		return NULL;
	}
	td_diag_capture(pipe_message, p);
	return p;
}

void stat_pipe_finish(struct stat_pipe *p)
{
	td_diag_capture(NULL, NULL);
	if (p->filling && p->filling->n)
		queue_filled(p);
	pthread_mutex_lock(&p->lock);
	p->done = true;
	pthread_cond_signal(&p->queued);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	for (int i = 0; i < PIPE_BLOCKS; i++) {
		free(p->all[i]->text);
		free(p->all[i]);
	}
	for (int i = 0; i < p->nfiles; i++)
		free(p->files[i].copy);
	for (int i = 0; i < PIPE_SHAPES; i++)
		free(p->kept[i].text);
	free(p->kept);
	free(p->files);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->queued);
	pthread_cond_destroy(&p->returned);
	free(p);
}
