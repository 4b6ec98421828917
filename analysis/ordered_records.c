#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/grow.h"
#include "ordered_records.h"

#define PD_FINISHED_ROUND 68
#define PD_USER_TYPE_START 64

/* A record waiting for its turn. The queue keeps arrival order among
 * records of the same time (a stable sort by time), as perf does. */
struct queued {
	uint64_t time, file_offset;
	struct pd_pin *pin;          /* the record kept in the reader (perf_data_pin), or NULL: */
	union {
		const unsigned char *raw;    /* (pin) the record's bytes */
		size_t at;                   /* (no pin) its copy in the arena */
	} u;
	uint16_t size;
	int attr;                    /* its event, as perf_data_next found it */
};

struct ordered_records {
	struct perf_data *d;
	ordered_fn fn;
	void *ctx;
	struct queued *q;            /* q[head, n): waiting, in arrival order after the sorted rest */
	size_t head, n, cap;
	struct queued *tmp;          /* sort_queue's merge buffer */
	size_t tmp_cap;
	unsigned char *arena;
	size_t used, arena_cap;
	unsigned char *spare;        /* the other arena, for compacting into */
	size_t spare_cap;
	uint64_t max_time, next_flush;
};

struct ordered_records *ordered_new(struct perf_data *d, ordered_fn fn, void *ctx)
{
	struct ordered_records *o = td_calloc(1, sizeof(*o));
	o->d = d;
	o->fn = fn;
	o->ctx = ctx;
	d->samples_decoded_later = true;     /* each is decoded whole when delivered */
	return o;
}

void ordered_free(struct ordered_records *o)
{
	if (!o)
		return;
	for (size_t i = o->head; i < o->n; i++)   /* not delivered: left by a walk that stopped */
		if (o->q[i].pin)
			perf_data_unpin(o->d, o->q[i].pin);
	free(o->q);
	free(o->tmp);
	free(o->arena);
	free(o->spare);
	free(o);
}

static uint64_t record_time(const struct pd_record *r)
{
	if (r->type == PERF_RECORD_SAMPLE)
		return r->decoded && (r->u.sample.sample_type & PERF_SAMPLE_TIME) ? r->u.sample.time : 0;
	return r->sid.valid ? r->sid.time : 0;
}

/* Merges the ascending runs of a[0, n) pairwise into b; the number of
 * runs there was. A tie goes to the left run: stable. */
static size_t merge_runs(const struct queued *a, struct queued *b, size_t n)
{
	size_t runs = 0, w = 0;
	for (size_t i = 0; i < n;) {
		size_t mid = i + 1;
		while (mid < n && a[mid].time >= a[mid - 1].time)
			mid++;
		size_t end = mid;
		if (mid < n) {
			end = mid + 1;
			while (end < n && a[end].time >= a[end - 1].time)
				end++;
		}
		size_t x = i, y = mid;
		while (x < mid && y < end)
			b[w++] = a[y].time < a[x].time ? a[y++] : a[x++];
		while (x < mid)
			b[w++] = a[x++];
		while (y < end)
			b[w++] = a[y++];
		runs++;
		i = end;
	}
	return runs;
}

/* Each CPU's buffer arrives in time order, so a round is a few ascending
 * runs: merge neighbouring runs until one is left (a natural merge sort;
 * stable, so records of the same time stay in arrival order). The waiting
 * records q[head, n) end up sorted in q[0, n - head): the first pass reads
 * them where they are, the passes go to and fro between q and tmp, and the
 * two arrays trade places when the last pass wrote tmp. */
static void sort_queue(struct ordered_records *o)
{
	size_t n = o->n - o->head;
	if (o->tmp_cap < o->cap) {
		o->tmp_cap = o->cap;
		o->tmp = td_realloc(o->tmp, o->tmp_cap * sizeof(*o->tmp));
	}
	struct queued *a = o->q + o->head, *b = o->tmp;
	while (merge_runs(a, b, n) > 1) {
		a = b;
		b = b == o->tmp ? o->q : o->tmp;
	}
	if (b == o->tmp) {
		o->tmp = o->q;
		o->q = b;
		size_t cap = o->cap;
		o->cap = o->tmp_cap;
		o->tmp_cap = cap;
	}
	o->head = 0;
	o->n = n;
}

/* Records come out in another order than they were read, long after: the
 * next ones' bytes are fetched while one is delivered. */
#define PREFETCH_AHEAD 4
static const unsigned char *queued_bytes(const struct ordered_records *o, const struct queued *q)
{
	return q->pin ? q->u.raw : o->arena + q->u.at;
}

static void prefetch_record(const struct ordered_records *o, const struct queued *q)
{
	const unsigned char *p = queued_bytes(o, q);
	for (size_t k = 0; k < q->size; k += 64)
		__builtin_prefetch(p + k);
}

/* Copies of records that could not be pinned are moved into the spare
 * arena, in queue order, and the arenas trade places: they are reused,
 * not allocated afresh (new pages fault in). */
static void compact_arena(struct ordered_records *o)
{
	size_t w = 0;
	if (o->spare_cap < o->arena_cap) {
		free(o->spare);
		o->spare = td_malloc(o->arena_cap);
		o->spare_cap = o->arena_cap;
	}
	unsigned char *arena = o->spare;
	for (size_t k = o->head; k < o->n; k++) {
		struct queued *q = &o->q[k];
		if (!q->pin) {
			memcpy(arena + w, o->arena + q->u.at, q->size);
			q->u.at = w;
			w += (q->size + 7u) & ~7u;
		}
	}
	o->spare = o->arena;
	o->arena = arena;
	size_t cap = o->spare_cap;
	o->spare_cap = o->arena_cap;
	o->arena_cap = cap;
	o->used = w;
}

/* Deliver the queued records up to limit, keep the others. */
static void flush(struct ordered_records *o, uint64_t limit)
{
	if (o->head == o->n)
		return;
	sort_queue(o);
	size_t i = 0;
	struct pd_record rec;
	for (; i < o->n && o->q[i].time <= limit; i++) {
		const struct queued *q = &o->q[i];
		if (i + PREFETCH_AHEAD < o->n)
			prefetch_record(o, &o->q[i + PREFETCH_AHEAD]);
		perf_data_decode(o->d, queued_bytes(o, q), q->file_offset, q->attr, &rec);
		o->fn(o->ctx, &rec);
		if (q->pin)
			perf_data_unpin(o->d, q->pin);
	}
	o->head = i;
	if (i == o->n) {
		o->head = o->n = 0;
		o->used = 0;
	} else if (o->used) {
		compact_arena(o);
	}
}

void ordered_add(struct ordered_records *o, const struct pd_record *r)
{
	if (r->type == PD_FINISHED_ROUND) {
		flush(o, o->next_flush);
		o->next_flush = o->max_time;
		return;
	}
	uint64_t t = r->type >= PD_USER_TYPE_START ? 0 : record_time(r);
	if (t == 0 || t == UINT64_MAX) {
		if (r->type == PERF_RECORD_SAMPLE) {
			struct pd_record rec;
			perf_data_decode(o->d, r->raw, r->offset, r->attr, &rec);
			o->fn(o->ctx, &rec);
		} else {
			o->fn(o->ctx, r);
		}
		return;
	}
	if (t > o->max_time)
		o->max_time = t;
	if (o->n == o->cap && o->head) {      /* room at the front first */
		memmove(o->q, o->q + o->head, (o->n - o->head) * sizeof(*o->q));
		o->n -= o->head;
		o->head = 0;
	}
	TD_ALLOC_GROW(o->q, o->n + 1, o->cap);
	struct pd_pin *pin = perf_data_pin(o->d, r);
	if (pin) {
		o->q[o->n++] = (struct queued){ t, r->offset, pin, { .raw = r->raw }, r->size, r->attr };
		return;
	}
	size_t need = (r->size + 7u) & ~7u;
	if (o->used + need > o->arena_cap) {
		o->arena_cap = (o->used + need) * 2 + (1 << 20);
		o->arena = td_realloc(o->arena, o->arena_cap);
	}
	memcpy(o->arena + o->used, r->raw, r->size);
	o->q[o->n++] = (struct queued){ t, r->offset, NULL, { .at = o->used }, r->size, r->attr };
	o->used += need;
}

void ordered_finish(struct ordered_records *o)
{
	flush(o, UINT64_MAX);
}
