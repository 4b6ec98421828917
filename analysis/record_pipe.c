#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/queue.h"
#include "record_pipe.h"

#define BATCH_BYTES (1u << 18)
#define NBATCH 4                 /* in flight each way: bounds memory */

enum { MSG_SAMPLE = 1, MSG_SAMPLE_STACK, MSG_RECORD };   /* _STACK: with the user's registers and stack */
enum { BACK_HEADER = 1, BACK_FRAME, BACK_LINE, BACK_END };   /* BACK_END: the empty line */

/* A sample as the replay reads it; its nr callchain entries follow
 * (after a msg_user_stack, for MSG_SAMPLE_STACK). */
struct msg_sample {
	uint64_t sample_type, ip, time, period;
	uint32_t pid, tid, cpu, nr;
	int32_t attr;
	uint16_t misc;
};

/* --call-graph dwarf: regs_len bytes of registers, then the stack, follow
 * the callchain. */
struct msg_user_stack {
	uint64_t regs_abi, stack_size, stack_dyn_size;
	uint32_t regs_len;
};

struct batch {
	unsigned char *data;
	size_t len;
	bool alone;                  /* one message too big for a batch: freed once read */
};

/* The batches of one way go round: the writer fills one and queues it
 * full, the reader empties it and queues it back; NBATCH + 1 in all. */
struct lane {
	struct td_queue full, empty;
	struct batch batches[NBATCH + 1];
	struct batch *cur;           /* the writer's */
};

/* Rung by the second thread whenever it queues a batch the first one
 * may wait for: an emptied record batch or a full batch of sink calls.
 * The first one waits for either with one wait. */
struct bell {
	pthread_mutex_t lock;
	pthread_cond_t rung;
	uint64_t rings;
};

struct record_pipe {
	record_fn fn;
	void *ctx;
	pthread_t thread;
	struct lane fwd;             /* records, to the second thread */
	struct lane back;            /* sink calls, from it (with a sink to make them to) */
	bool backed;
	struct replay_sink to;       /* where the calls go */
	struct replay_sink proxy;    /* record_pipe_sink() */
	struct bell bell;
};

static void lane_init(struct lane *l, int full_cap)
{
	td_queue_init(&l->full, full_cap);
	td_queue_init(&l->empty, NBATCH + 1);
	for (int i = 0; i <= NBATCH; i++) {
		l->batches[i] = (struct batch){ td_malloc(BATCH_BYTES), 0, false };
		if (i)
			td_queue_push(&l->empty, &l->batches[i]);
	}
	l->cur = &l->batches[0];
}

static void lane_free(struct lane *l)
{
	for (int i = 0; i <= NBATCH; i++)
		free(l->batches[i].data);
	td_queue_destroy(&l->full);
	td_queue_destroy(&l->empty);
}

/* n bytes at the end of the writer's batch, which has room for them. */
static inline unsigned char *lane_append(struct lane *l, size_t n)
{
	unsigned char *at = l->cur->data + l->cur->len;
	l->cur->len += n;
	return at;
}

/* A string in a batch: its length, its bytes and a NUL. */
static unsigned char *put_text(unsigned char *w, const char *s, size_t n)
{
	memcpy(w, &n, sizeof n);
	memcpy(w + sizeof n, s, n);
	w[sizeof n + n] = '\0';
	return w + sizeof n + n + 1;
}

/* A text put_text wrote: *s (NUL-terminated), *len its length. */
static const unsigned char *take_text(const unsigned char *at, const char **s, size_t *len)
{
	memcpy(len, at, sizeof *len);
	*s = (const char *)at + sizeof *len;
	return at + sizeof *len + *len + 1;
}

static uint64_t bell_rings(struct bell *b)
{
	pthread_mutex_lock(&b->lock);
	uint64_t n = b->rings;
	pthread_mutex_unlock(&b->lock);
	return n;
}

static void bell_ring(struct bell *b)
{
	pthread_mutex_lock(&b->lock);
	b->rings++;
	pthread_cond_signal(&b->rung);
	pthread_mutex_unlock(&b->lock);
}

/* Until it rang after seen (rings read before looking for batches, so
 * that a batch queued meanwhile is never missed). */
static void bell_wait(struct bell *b, uint64_t seen)
{
	pthread_mutex_lock(&b->lock);
	while (b->rings == seen)
		pthread_cond_wait(&b->rung, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

/* ---- sink calls made again, on the first thread ------------------------------------ */

static void replay_back(struct record_pipe *p, const struct batch *b)
{
	const unsigned char *at = b->data, *end = b->data + b->len;
	while (at < end) {
		int kind = *at++;
		if (kind == BACK_HEADER) {
			struct replay_header h;
			memcpy(&h, at, sizeof h);
			size_t nc, ne;
			at = take_text(take_text(at + sizeof h, &h.comm, &nc), &h.event, &ne);
			p->to.header(p->to.ctx, &h);
		} else if (kind == BACK_FRAME) {
			struct machine_frame f;
			memcpy(&f, at, sizeof f);
			at += sizeof f;
			p->to.frame(p->to.ctx, &f);
		} else if (kind == BACK_LINE) {
			size_t n;
			const char *line;
			at = take_text(at, &line, &n);
			p->to.line(p->to.ctx, line, n);
		} else {
			p->to.line(p->to.ctx, "", 0);
		}
	}
}

static void give_back(struct record_pipe *p, struct batch *b)
{
	if (b->alone) {
		free(b->data);
		free(b);
		return;
	}
	b->len = 0;
	td_queue_push(&p->back.empty, b);
}

/* The batches of calls queued by now; whether there were any. */
static bool drain_back(struct record_pipe *p)
{
	struct batch *b;
	bool any = false;
	while ((b = td_queue_try_pop(&p->back.full))) {
		replay_back(p, b);
		give_back(p, b);
		any = true;
	}
	return any;
}

/* ---- producer side ---------------------------------------------------------------- */

/* An emptied record batch; the calls that came back meanwhile are made
 * first, and made while waiting. */
static struct batch *take_room(struct record_pipe *p)
{
	if (!p->backed)
		return td_queue_pop(&p->fwd.empty);
	for (;;) {
		uint64_t seen = bell_rings(&p->bell);
		drain_back(p);
		struct batch *b = td_queue_try_pop(&p->fwd.empty);
		if (b)
			return b;
		bell_wait(&p->bell, seen);
	}
}

static void hand_over(struct record_pipe *p)
{
	td_queue_push(&p->fwd.full, p->fwd.cur);     /* never waits: the others are out */
	p->fwd.cur = take_room(p);
	p->fwd.cur->len = 0;
}

/* Room for n more bytes (n < BATCH_BYTES) in the current batch. */
static unsigned char *reserve(struct record_pipe *p, size_t n)
{
	if (p->fwd.cur->len + n > BATCH_BYTES)
		hand_over(p);
	return lane_append(&p->fwd, n);
}

/* The callchain is copied: the copy is warm in this thread's cache, where
 * the other thread reading it in the mapped file would miss. */
static void put_sample(struct record_pipe *p, const struct pd_record *rec)
{
	const struct pd_sample *s = &rec->u.sample;
	size_t copy = s->nr_callchain * sizeof(uint64_t);
	size_t regs = s->regs_user && s->regs_user_abi && s->stack_user ? (size_t)(s->stack_user - s->regs_user) : 0;
	size_t stack = regs ? s->stack_user_size : 0;
	struct msg_sample m = { s->sample_type, s->ip, s->time, s->period, s->pid, s->tid, s->cpu,
				(uint32_t)s->nr_callchain, s->attr, rec->misc };
	size_t head = 1 + sizeof m + (regs ? sizeof(struct msg_user_stack) : 0);
	unsigned char *w = reserve(p, head + copy + regs + stack);
	*w = regs ? MSG_SAMPLE_STACK : MSG_SAMPLE;
	memcpy(w + 1, &m, sizeof m);
	if (regs) {
		struct msg_user_stack u = { s->regs_user_abi, stack, s->stack_user_dyn_size, (uint32_t)regs };
		memcpy(w + 1 + sizeof m, &u, sizeof u);
	}
	if (copy)
		memcpy(w + head, s->callchain, copy);
	if (regs)      /* the registers, the stack size word, the stack: one span of the record */
		memcpy(w + head + copy, s->regs_user, regs + stack);
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
	put_text(w + 1 + sizeof *rec, str ? str : "", n);
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

static const unsigned char *take_sample(struct record_pipe *p, int kind, const unsigned char *at, struct pd_record *rec)
{
	struct msg_sample m;
	struct msg_user_stack u = { 0, 0, 0, 0 };
	memcpy(&m, at, sizeof m);
	at += sizeof m;
	if (kind == MSG_SAMPLE_STACK) {
		memcpy(&u, at, sizeof u);
		at += sizeof u;
	}
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
	at += (size_t)m.nr * sizeof(uint64_t);
	s->regs_user_abi = u.regs_abi;
	s->regs_user = u.regs_len ? at : NULL;
	s->stack_user = u.regs_len ? at + u.regs_len : NULL;
	s->stack_user_size = u.stack_size;
	s->stack_user_dyn_size = u.stack_dyn_size;
	at += u.regs_len + u.stack_size;
	p->fn(p->ctx, rec);
	return at;
}

static const unsigned char *take_record(struct record_pipe *p, const unsigned char *at, struct pd_record *rec)
{
	size_t n;
	const char *str;
	memcpy(rec, at, sizeof *rec);
	at = take_text(at + sizeof *rec, &str, &n);
	if (rec->type == PERF_RECORD_COMM)
		rec->u.comm.comm = rec->u.comm.comm ? str : NULL;
	else if (!has_no_string(rec))
		rec->u.mmap.filename = rec->u.mmap.filename ? str : NULL;
	rec->raw = NULL;
	p->fn(p->ctx, rec);
	return at;
}

static void deliver(struct record_pipe *p, const unsigned char *at, size_t len)
{
	const unsigned char *end = at + len;
	struct pd_record rec;
	memset(&rec, 0, sizeof rec);
	while (at < end) {
		int kind = *at++;
		at = kind == MSG_RECORD ? take_record(p, at, &rec) : take_sample(p, kind, at, &rec);
	}
}

/* ---- sink calls sent back, from the second thread --------------------------------- */

static void send_back(struct record_pipe *p, struct batch *b)
{
	td_queue_push(&p->back.full, b);
	bell_ring(&p->bell);
}

static void __attribute__((noinline)) next_back_batch(struct record_pipe *p)
{
	send_back(p, p->back.cur);
	p->back.cur = td_queue_pop(&p->back.empty);
}

/* Room for n more bytes (n <= BATCH_BYTES) in the current batch. */
static inline unsigned char *back_reserve(struct record_pipe *p, size_t n)
{
	if (__builtin_expect(p->back.cur->len + n > BATCH_BYTES, 0))
		next_back_batch(p);
	return lane_append(&p->back, n);
}

/* Room for n bytes of calls after those before: in the current batch,
 * or, when longer than a batch, in one of its own (*alone), sent with
 * sent_alone() once written. */
static unsigned char *back_room(struct record_pipe *p, size_t n, struct batch **alone)
{
	*alone = NULL;
	if (n <= BATCH_BYTES)
		return back_reserve(p, n);
	if (p->back.cur->len)
		next_back_batch(p);
	*alone = td_malloc(sizeof(**alone));
	**alone = (struct batch){ td_malloc(n), n, true };
	return (*alone)->data;
}

static void sent_alone(struct record_pipe *p, struct batch *alone)
{
	if (alone)
		send_back(p, alone);
}


/* comm and event are copied: the replay's may change before the call is
 * made again (a held sample's live in a buffer that moves). */
static void back_header(void *ctx, const struct replay_header *h)
{
	struct record_pipe *p = ctx;
	size_t nc = strlen(h->comm), ne = strlen(h->event);
	struct batch *alone;
	unsigned char *w = back_room(p, 1 + sizeof *h + 2 * (sizeof(size_t) + 1) + nc + ne, &alone);
	*w = BACK_HEADER;
	memcpy(w + 1, h, sizeof *h);
	put_text(put_text(w + 1 + sizeof *h, h->comm, nc), h->event, ne);
	sent_alone(p, alone);
}

static void back_frame(void *ctx, const struct machine_frame *f)
{
	struct record_pipe *p = ctx;
	unsigned char *w = back_reserve(p, 1 + sizeof *f);
	*w = BACK_FRAME;
	memcpy(w + 1, f, sizeof *f);
}

static void back_line(void *ctx, const char *line, size_t len)
{
	struct record_pipe *p = ctx;
	if (len == 0) {
		*back_reserve(p, 1) = BACK_END;
		return;
	}
	struct batch *alone;
	unsigned char *w = back_room(p, 1 + sizeof len + len + 1, &alone);
	*w = BACK_LINE;
	put_text(w + 1, line, len);
	sent_alone(p, alone);
}

static void *consume(void *arg)
{
	struct record_pipe *p = arg;
	struct batch *b;
	while ((b = td_queue_pop(&p->fwd.full))) {
		deliver(p, b->data, b->len);
		td_queue_push(&p->fwd.empty, b);
		if (p->backed)
			bell_ring(&p->bell);
	}
	if (p->backed) {
		send_back(p, p->back.cur);
		p->back.cur = NULL;
		td_queue_close(&p->back.full);
		bell_ring(&p->bell);
	}
	return NULL;
}

/* ---- life ------------------------------------------------------------------------- */

struct record_pipe *record_pipe_start(record_fn fn, void *ctx, const struct replay_sink *back)
{
	struct record_pipe *p = td_calloc(1, sizeof(*p));
	p->fn = fn;
	p->ctx = ctx;
	lane_init(&p->fwd, NBATCH);
	p->backed = back != NULL;
	if (back) {
		p->to = *back;
		p->proxy = (struct replay_sink){ back_line, back_header, back_frame, NULL, p };
		lane_init(&p->back, 2 * NBATCH + 2);     /* with room for a few lines alone */
		pthread_mutex_init(&p->bell.lock, NULL);
		pthread_cond_init(&p->bell.rung, NULL);
	}
	if (pthread_create(&p->thread, NULL, consume, p) != 0)
		td_die("cannot start a thread");
	return p;
}

const struct replay_sink *record_pipe_sink(struct record_pipe *p)
{
	return &p->proxy;
}

void record_pipe_finish(struct record_pipe *p)
{
	if (p->fwd.cur->len)
		hand_over(p);
	td_queue_close(&p->fwd.full);
	struct batch *b;
	while (p->backed && (b = td_queue_pop(&p->back.full))) {
		replay_back(p, b);
		give_back(p, b);
	}
	pthread_join(p->thread, NULL);
	lane_free(&p->fwd);
	if (p->backed) {
		lane_free(&p->back);
		pthread_mutex_destroy(&p->bell.lock);
		pthread_cond_destroy(&p->bell.rung);
	}
	free(p);
}
