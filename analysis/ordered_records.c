#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/grow.h"
#include "ordered_records.h"

#define PD_FINISHED_ROUND 68
#define PD_USER_TYPE_START 64

struct queued {
	uint64_t time, seq, file_offset;
	const unsigned char *raw;    /* the record in the mapped file, or NULL: */
	size_t at;                   /* its copy in the arena */
	uint16_t size;
};

struct ordered_records {
	struct perf_data *d;
	ordered_fn fn;
	void *ctx;
	struct queued *q;
	size_t n, cap;
	struct queued *tmp;          /* sort_queue's merge buffer */
	size_t tmp_cap;
	unsigned char *arena;
	size_t used, arena_cap;
	unsigned char *spare;        /* the other arena, for compacting into */
	size_t spare_cap;
	uint64_t seq, max_time, next_flush;
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

static bool before(const struct queued *x, const struct queued *y)
{
	return x->time != y->time ? x->time < y->time : x->seq < y->seq;
}

/* Each CPU's buffer arrives in time order, so a round is a few ascending
 * runs: merge neighbouring runs until one is left (a natural merge sort;
 * stable, and (time, seq) keys are distinct anyway). */
static void sort_queue(struct ordered_records *o)
{
	size_t n = o->n;
	if (n < 2)
		return;
	if (o->tmp_cap < n) {
		o->tmp_cap = n;
		o->tmp = td_realloc(o->tmp, n * sizeof(*o->tmp));
	}
	struct queued *a = o->q, *b = o->tmp;
	for (;;) {
		size_t runs = 0, w = 0;
		for (size_t i = 0; i < n;) {
			size_t mid = i + 1;
			while (mid < n && !before(&a[mid], &a[mid - 1]))
				mid++;
			size_t end = mid;
			if (mid < n) {
				end = mid + 1;
				while (end < n && !before(&a[end], &a[end - 1]))
					end++;
			}
			size_t x = i, y = mid;
			while (x < mid && y < end)
				b[w++] = before(&a[y], &a[x]) ? a[y++] : a[x++];
			while (x < mid)
				b[w++] = a[x++];
			while (y < end)
				b[w++] = a[y++];
			runs++;
			i = end;
		}
		struct queued *t = a;
		a = b;
		b = t;
		if (runs == 1)
			break;
	}
	if (a != o->q)
		memcpy(o->q, a, n * sizeof(*a));
}

/* Records come out in another order than they were read, long after: the
 * next ones' bytes are fetched while one is delivered. */
#define PREFETCH_AHEAD 4
static void prefetch_record(const struct ordered_records *o, const struct queued *q)
{
	const unsigned char *p = q->raw ? q->raw : o->arena + q->at;
	for (size_t k = 0; k < q->size; k += 64)
		__builtin_prefetch(p + k);
}

/* Deliver the queued records up to limit, keep the others. */
static void flush(struct ordered_records *o, uint64_t limit)
{
	if (!o->n)
		return;
	sort_queue(o);
	size_t i = 0;
	struct pd_record rec;
	for (; i < o->n && o->q[i].time <= limit; i++) {
		const struct queued *q = &o->q[i];
		if (i + PREFETCH_AHEAD < o->n)
			prefetch_record(o, &o->q[i + PREFETCH_AHEAD]);
		perf_data_decode(o->d, q->raw ? q->raw : o->arena + q->at, q->file_offset, &rec);
		o->fn(o->ctx, &rec);
	}
	if (i == o->n) {
		o->n = 0;
		o->used = 0;
		return;
	}
	/* compact what is left into the spare arena, in queue order (the two
	 * are swapped, not allocated afresh: new pages fault in) */
	size_t kept = o->n - i, w = 0;
	if (o->spare_cap < o->arena_cap) {
		free(o->spare);
		o->spare = td_malloc(o->arena_cap);
		o->spare_cap = o->arena_cap;
	}
	unsigned char *arena = o->spare;
	for (size_t k = 0; k < kept; k++) {
		struct queued q = o->q[i + k];
		if (!q.raw) {
			memcpy(arena + w, o->arena + q.at, q.size);
			q.at = w;
			w += (q.size + 7u) & ~7u;
		}
		o->q[k] = q;
	}
	o->spare = o->arena;
	o->arena = arena;
	size_t cap = o->spare_cap;
	o->spare_cap = o->arena_cap;
	o->arena_cap = cap;
	o->used = w;
	o->n = kept;
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
			perf_data_decode(o->d, r->raw, r->offset, &rec);
			o->fn(o->ctx, &rec);
		} else {
			o->fn(o->ctx, r);
		}
		return;
	}
	if (t > o->max_time)
		o->max_time = t;
	TD_ALLOC_GROW(o->q, o->n + 1, o->cap);
	if (perf_data_raw_is_stable(o->d, r)) {
		o->q[o->n++] = (struct queued){ t, o->seq++, r->offset, r->raw, 0, r->size };
		return;
	}
	size_t need = (r->size + 7u) & ~7u;
	if (o->used + need > o->arena_cap) {
		o->arena_cap = (o->used + need) * 2 + (1 << 20);
		o->arena = td_realloc(o->arena, o->arena_cap);
	}
	memcpy(o->arena + o->used, r->raw, r->size);
	o->q[o->n++] = (struct queued){ t, o->seq++, r->offset, NULL, o->used, r->size };
	o->used += need;
}

void ordered_finish(struct ordered_records *o)
{
	flush(o, UINT64_MAX);
}
