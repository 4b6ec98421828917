#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/queue.h"
#include "record_pipe.h"

#define BATCH_BYTES (1u << 18)
#define NBATCH 4                 /* in flight: bounds memory */

enum { MSG_SAMPLE = 1, MSG_RECORD };

/* A sample as the replay reads it; its nr callchain entries follow. */
struct msg_sample {
	uint16_t misc;
	int attr;
	uint64_t sample_type, ip, time, period, nr;
	uint32_t pid, tid, cpu;
	uint64_t regs_abi, stack_size, stack_dyn_size;   /* --call-graph dwarf: regs_len bytes of */
	uint32_t regs_len;                               /* registers, then the stack, follow */
};

struct batch {
	unsigned char *data;
	size_t len;
};

/* Batches go round: the producer fills one and queues it full, the
 * consumer empties it and queues it back; NBATCH of them in all. */
struct record_pipe {
	record_fn fn;
	void *ctx;
	pthread_t thread;
	struct td_queue full, empty;
	struct batch batches[NBATCH + 1];
	struct batch *cur;               /* the producer's */
};

/* ---- producer side ---------------------------------------------------------------- */

static void hand_over(struct record_pipe *p)
{
	td_queue_push(&p->full, p->cur);
	p->cur = td_queue_pop(&p->empty);
	p->cur->len = 0;
}

/* Room for n more bytes (n < BATCH_BYTES) in the current batch. */
static unsigned char *reserve(struct record_pipe *p, size_t n)
{
	if (p->cur->len + n > BATCH_BYTES)
		hand_over(p);
	unsigned char *at = p->cur->data + p->cur->len;
	p->cur->len += n;
	return at;
}

/* The callchain is copied: the copy is warm in this thread's cache, where
 * the other thread reading it in the mapped file would miss. */
static void put_sample(struct record_pipe *p, const struct pd_record *rec)
{
	const struct pd_sample *s = &rec->u.sample;
	size_t copy = s->nr_callchain * sizeof(uint64_t);
	size_t regs = s->regs_user && s->regs_user_abi && s->stack_user ? (size_t)(s->stack_user - s->regs_user) : 0;
	size_t stack = regs ? s->stack_user_size : 0;
	struct msg_sample m = { rec->misc, s->attr, s->sample_type, s->ip, s->time, s->period, s->nr_callchain,
				s->pid, s->tid, s->cpu, regs ? s->regs_user_abi : 0, stack, s->stack_user_dyn_size,
				(uint32_t)regs };
	unsigned char *w = reserve(p, 1 + sizeof m + copy + regs + stack);
	*w = MSG_SAMPLE;
	memcpy(w + 1, &m, sizeof m);
	if (copy)
		memcpy(w + 1 + sizeof m, s->callchain, copy);
	if (regs)      /* the registers, the stack size word, the stack: one span of the record */
		memcpy(w + 1 + sizeof m + copy, s->regs_user, regs + stack);
}

/* MMAP, MMAP2, COMM, FORK, EXIT: the record and the one string it points
 * to (none for FORK and EXIT). */
static bool has_no_string(const struct pd_record *rec)
{
	return rec->type == PERF_RECORD_FORK || rec->type == PERF_RECORD_EXIT;
}

static void put_record(struct record_pipe *p, const struct pd_record *rec)
{
	const char *str = rec->type == PERF_RECORD_COMM ? rec->u.comm.comm
			  : has_no_string(rec) ? NULL : rec->u.mmap.filename;
	size_t n = str ? strnlen(str, 4096) : 0;
	unsigned char *w = reserve(p, 1 + sizeof *rec + sizeof n + n + 1);
	*w = MSG_RECORD;
	memcpy(w + 1, rec, sizeof *rec);
	memcpy(w + 1 + sizeof *rec, &n, sizeof n);
	if (str)
		memcpy(w + 1 + sizeof *rec + sizeof n, str, n);
	w[1 + sizeof *rec + sizeof n + n] = '\0';
}

void record_pipe_put(struct record_pipe *p, const struct pd_record *rec)
{
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (rec->decoded && rec->u.sample.nr_callchain < (BATCH_BYTES - 256) / 8 - 65536 / 8)
			put_sample(p, rec);
	} else if (rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2 || rec->type == PERF_RECORD_COMM ||
		   rec->type == PERF_RECORD_FORK || rec->type == PERF_RECORD_EXIT) {
		put_record(p, rec);
	}
}

/* ---- consumer side ---------------------------------------------------------------- */

static const unsigned char *take_sample(struct record_pipe *p, const unsigned char *at, struct pd_record *rec)
{
	struct msg_sample m;
	memcpy(&m, at, sizeof m);
	at += sizeof m;
	struct pd_sample *s = &rec->u.sample;
	rec->type = PERF_RECORD_SAMPLE;
	rec->misc = m.misc;
	rec->decoded = true;
	rec->attr = m.attr;
	/* the fields a replay reads; the rest of the sample is not looked at */
	s->attr = m.attr;
	s->sample_type = m.sample_type;
	s->ip = m.ip;
	s->time = m.time;
	s->period = m.period;
	s->pid = m.pid;
	s->tid = m.tid;
	s->cpu = m.cpu;
	s->nr_callchain = m.nr;
	s->callchain = (const uint64_t *)(const void *)at;   /* may sit unaligned: the replay reads it with memcpy */
	at += m.nr * sizeof(uint64_t);
	s->regs_user_abi = m.regs_abi;
	s->regs_user = m.regs_len ? at : NULL;
	s->stack_user = m.regs_len ? at + m.regs_len : NULL;
	s->stack_user_size = m.stack_size;
	s->stack_user_dyn_size = m.stack_dyn_size;
	at += m.regs_len + m.stack_size;
	p->fn(p->ctx, rec);
	return at;
}

static const unsigned char *take_record(struct record_pipe *p, const unsigned char *at, struct pd_record *rec)
{
	size_t n;
	memcpy(rec, at, sizeof *rec);
	memcpy(&n, at + sizeof *rec, sizeof n);
	const char *str = (const char *)at + sizeof *rec + sizeof n;
	if (rec->type == PERF_RECORD_COMM)
		rec->u.comm.comm = rec->u.comm.comm ? str : NULL;
	else if (!has_no_string(rec))
		rec->u.mmap.filename = rec->u.mmap.filename ? str : NULL;
	rec->raw = NULL;
	p->fn(p->ctx, rec);
	return at + sizeof *rec + sizeof n + n + 1;
}

static void deliver(struct record_pipe *p, const unsigned char *at, size_t len)
{
	const unsigned char *end = at + len;
	struct pd_record rec;
	memset(&rec, 0, sizeof rec);
	while (at < end) {
		int kind = *at++;
		at = kind == MSG_SAMPLE ? take_sample(p, at, &rec) : take_record(p, at, &rec);
	}
}

static void *consume(void *arg)
{
	struct record_pipe *p = arg;
	struct batch *b;
	while ((b = td_queue_pop(&p->full))) {
		deliver(p, b->data, b->len);
		td_queue_push(&p->empty, b);
	}
	return NULL;
}

/* ---- life ------------------------------------------------------------------------- */

struct record_pipe *record_pipe_start(record_fn fn, void *ctx)
{
	struct record_pipe *p = td_calloc(1, sizeof(*p));
	p->fn = fn;
	p->ctx = ctx;
	td_queue_init(&p->full, NBATCH);
	td_queue_init(&p->empty, NBATCH + 1);
	for (int i = 0; i <= NBATCH; i++) {
		p->batches[i] = (struct batch){ td_malloc(BATCH_BYTES), 0 };
		if (i)
			td_queue_push(&p->empty, &p->batches[i]);
	}
	p->cur = &p->batches[0];
	if (pthread_create(&p->thread, NULL, consume, p) != 0)
		td_die("cannot start a thread");
	return p;
}

void record_pipe_finish(struct record_pipe *p)
{
	if (p->cur->len)
		hand_over(p);
	td_queue_close(&p->full);
	pthread_join(p->thread, NULL);
	for (int i = 0; i <= NBATCH; i++)
		free(p->batches[i].data);
	td_queue_destroy(&p->full);
	td_queue_destroy(&p->empty);
	free(p);
}
