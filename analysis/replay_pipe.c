#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "replay_pipe.h"

#define BATCH_BYTES (1u << 20)
#define NBATCH 4                 /* in flight: bounds memory */

enum { MSG_LINE = 1, MSG_HEADER, MSG_FRAME };

struct batch {
	unsigned char *data;
	size_t len;
};

struct replay_pipe {
	struct replay_sink up, down;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct batch filled[NBATCH];     /* FIFO, for the consumer */
	int head, nfilled;
	unsigned char *spare[NBATCH];    /* empty buffers, for the producer */
	int nspare;
	bool closed;
	struct batch cur;                /* the producer's */
};

/* ---- producer side ---------------------------------------------------------------- */

static void hand_over(struct replay_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	while (p->nfilled == NBATCH)
		pthread_cond_wait(&p->changed, &p->lock);
	p->filled[(p->head + p->nfilled) % NBATCH] = p->cur;
	p->nfilled++;
	while (p->nspare == 0)
		pthread_cond_wait(&p->changed, &p->lock);
	p->cur = (struct batch){ p->spare[--p->nspare], 0 };
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
}

/* Room for n more bytes in the current batch. */
static unsigned char *reserve(struct replay_pipe *p, size_t n)
{
	if (p->cur.len + n > BATCH_BYTES)
		hand_over(p);
	unsigned char *at = p->cur.data + p->cur.len;
	p->cur.len += n;
	return at;
}

static void put_line(void *ctx, const char *line, size_t len)
{
	struct replay_pipe *p = ctx;
	if (len > BATCH_BYTES - 16)
		len = BATCH_BYTES - 16;
	unsigned char *w = reserve(p, 1 + sizeof len + len);
	*w = MSG_LINE;
	memcpy(w + 1, &len, sizeof len);
	memcpy(w + 1 + sizeof len, line, len);
}

static void put_header(void *ctx, const struct replay_header *h)
{
	struct replay_pipe *p = ctx;
	size_t nc = strnlen(h->comm, 4096), ne = strnlen(h->event, 4096);
	unsigned char *w = reserve(p, 1 + sizeof *h + 2 * sizeof(size_t) + nc + ne + 2);
	*w++ = MSG_HEADER;
	memcpy(w, h, sizeof *h);
	w += sizeof *h;
	memcpy(w, &nc, sizeof nc);
	memcpy(w + sizeof nc, &ne, sizeof ne);
	w += 2 * sizeof(size_t);
	memcpy(w, h->comm, nc);
	w[nc] = '\0';
	memcpy(w + nc + 1, h->event, ne);
	w[nc + 1 + ne] = '\0';
}

static void put_frame(void *ctx, const struct machine_frame *f)
{
	struct replay_pipe *p = ctx;
	unsigned char *w = reserve(p, 1 + sizeof *f);
	*w = MSG_FRAME;
	memcpy(w + 1, f, sizeof *f);
}

/* The end of the replay: whatever is queued is delivered before the
 * replay frees the strings frames point to. */
static void drain(void *ctx)
{
	struct replay_pipe *p = ctx;
	if (p->cur.len)
		hand_over(p);
	pthread_mutex_lock(&p->lock);
	while (p->nfilled)
		pthread_cond_wait(&p->changed, &p->lock);
	pthread_mutex_unlock(&p->lock);
	if (p->down.end)             /* the consumer is idle now */
		p->down.end(p->down.ctx);
}

/* ---- consumer side ---------------------------------------------------------------- */

static void header_down(const struct replay_sink *down, struct replay_header *h)
{
	if (down->header) {
		down->header(down->ctx, h);
		return;
	}
	char text[8192 + 128];
	size_t n = replay_header_text(h, text, sizeof text);
	down->line(down->ctx, text, n);
}

static void deliver(const struct replay_sink *down, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	while (p < end) {
		int kind = *p++;
		if (kind == MSG_LINE) {
			size_t n;
			memcpy(&n, p, sizeof n);
			down->line(down->ctx, (const char *)p + sizeof n, n);
			p += sizeof n + n;
		} else if (kind == MSG_HEADER) {
			struct replay_header h;
			size_t nc, ne;
			memcpy(&h, p, sizeof h);
			memcpy(&nc, p + sizeof h, sizeof nc);
			memcpy(&ne, p + sizeof h + sizeof nc, sizeof ne);
			p += sizeof h + 2 * sizeof(size_t);
			h.comm = (const char *)p;
			h.event = (const char *)p + nc + 1;
			header_down(down, &h);
			p += nc + ne + 2;
		} else {
			struct machine_frame f;
			memcpy(&f, p, sizeof f);
			if (down->frame)
				down->frame(down->ctx, &f);
			p += sizeof f;
		}
	}
}

static void *consume(void *arg)
{
	struct replay_pipe *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->nfilled == 0 && !p->closed)
			pthread_cond_wait(&p->changed, &p->lock);
		if (p->nfilled == 0)
			break;
		struct batch b = p->filled[p->head];
		pthread_mutex_unlock(&p->lock);
		deliver(&p->down, b.data, b.len);
		pthread_mutex_lock(&p->lock);
		p->head = (p->head + 1) % NBATCH;
		p->nfilled--;
		p->spare[p->nspare++] = b.data;
		pthread_cond_broadcast(&p->changed);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* ---- life ------------------------------------------------------------------------- */

struct replay_pipe *replay_pipe_start(const struct replay_sink *downstream)
{
	struct replay_pipe *p = td_calloc(1, sizeof(*p));
	p->down = *downstream;
	p->up = (struct replay_sink){ put_line, put_header, downstream->frame ? put_frame : NULL, drain, p };
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->changed, NULL);
	p->cur = (struct batch){ td_malloc(BATCH_BYTES), 0 };
	for (int i = 0; i < NBATCH; i++)
		p->spare[p->nspare++] = td_malloc(BATCH_BYTES);
	if (pthread_create(&p->thread, NULL, consume, p) != 0)
		td_die("cannot start a thread");
	return p;
}

const struct replay_sink *replay_pipe_sink(struct replay_pipe *p)
{
	return &p->up;
}

void replay_pipe_finish(struct replay_pipe *p)
{
	if (p->cur.len)
		hand_over(p);
	pthread_mutex_lock(&p->lock);
	p->closed = true;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	free(p->cur.data);
	for (int i = 0; i < p->nspare; i++)
		free(p->spare[i]);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->changed);
	free(p);
}
