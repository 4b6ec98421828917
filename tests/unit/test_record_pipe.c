/* analysis/record_pipe.h: records reach the second thread in order, and
 * the sink calls it makes come back to the first one in the order made,
 * with what they carried: headers, frames, empty and long lines, and
 * lines and headers longer than a batch. Enough comes back that the way back fills
 * while the first thread is still putting records (the second one then
 * waits for it), and the test would hang if either side missed a
 * wake-up. TAP. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/record_pipe.h"
#include "tests/unit/tap.h"

#define NRECORDS 20000

/* A running FNV-1a hash of the calls a sink had, and their count. */
struct calls {
	uint64_t hash;
	size_t n, headers, frames, lines, long_lines, long_events;
};

static void mix(struct calls *c, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		c->hash = (c->hash ^ b[i]) * 0x100000001b3u;
}

static void note_header(void *ctx, const struct replay_header *h)
{
	struct calls *c = ctx;
	c->n++, c->headers++;
	c->long_events += strlen(h->event) > (1u << 18);
	mix(c, "H", 1);
	mix(c, h->comm, strlen(h->comm) + 1);
	mix(c, h->event, strlen(h->event) + 1);
	mix(c, &h->tid, sizeof h->tid);
	mix(c, &h->time, sizeof h->time);
	mix(c, &h->period, sizeof h->period);
}

static void note_frame(void *ctx, const struct machine_frame *f)
{
	struct calls *c = ctx;
	c->n++, c->frames++;
	mix(c, "F", 1);
	mix(c, &f->sym, sizeof f->sym);
	mix(c, &f->dso, sizeof f->dso);
	mix(c, &f->sym_off, sizeof f->sym_off);
	mix(c, &f->addr, sizeof f->addr);
	mix(c, &f->sym_id, sizeof f->sym_id);
}

static void note_line(void *ctx, const char *line, size_t len)
{
	struct calls *c = ctx;
	c->n++, c->lines++;
	c->long_lines += len > (1u << 18);
	mix(c, "L", 1);
	mix(c, &len, sizeof len);
	mix(c, line, len);
}

static const char *syms[] = { "main", "std::vector<int>::push_back(int const&)", "[unknown]" };
static char *long_line;              /* 300,000 bytes: longer than a batch */
static char *long_event;             /* as long, and a string */

/* What the second thread makes of record i: a sample's calls. */
static void emit(const struct replay_sink *s, const char *comm, unsigned i)
{
	char event[32];
	snprintf(event, sizeof event, "cpu-clock:%u", i % 3);
	struct replay_header h = { .comm = comm, .event = i % 5000 == 1 ? long_event : event, .has_tid = true, .tid = (int32_t)i,
				   .time = (uint64_t)i * 1000003u, .period = i % 5 };
	s->header(s->ctx, &h);
	for (unsigned k = 0; k < i % 9; k++) {
		struct machine_frame f = { syms[k % 3], k * 16u, k % 2 ? "/usr/lib/libc.so.6" : NULL,
					   (uint64_t)i << 12 | k, i * 7u + k };
		s->frame(s->ctx, &f);
	}
	if (i % 1000 == 0)
		s->line(s->ctx, long_line, 300000);
	else if (i % 11 == 0)
		s->line(s->ctx, long_line, 1 + i % 4000);
	s->line(s->ctx, "", 0);
}

struct player {
	struct record_pipe *pipe;
	unsigned next;                   /* the record expected next */
	bool in_order;
	bool direct;                     /* no way back: only check the order */
};

static void play(void *ctx, const struct pd_record *rec)
{
	struct player *pl = ctx;
	unsigned i = (unsigned)strtoul(rec->u.comm.comm + 4, NULL, 10);
	pl->in_order &= rec->type == PERF_RECORD_COMM && i == pl->next++;
	if (!pl->direct)
		emit(record_pipe_sink(pl->pipe), rec->u.comm.comm, i);
}

static void run(bool direct, struct player *pl, struct calls *back)
{
	struct replay_sink to = { note_line, note_header, note_frame, NULL, back };
	*pl = (struct player){ .in_order = true, .direct = direct };
	pl->pipe = record_pipe_start(play, pl, direct ? NULL : &to);
	for (unsigned i = 0; i < NRECORDS; i++) {
		char comm[32];
		snprintf(comm, sizeof comm, "rec-%u", i);
		struct pd_record rec = { .type = PERF_RECORD_COMM, .decoded = true };
		rec.u.comm.comm = comm;
		record_pipe_put(pl->pipe, &rec);
	}
	record_pipe_finish(pl->pipe);
}

int main(void)
{
	long_line = malloc(300000);
	for (size_t i = 0; i < 300000; i++)
		long_line[i] = (char)('a' + i % 26);
	long_event = malloc(300001);
	memcpy(long_event, long_line, 300000);
	long_event[300000] = '\0';

	struct calls want = { 0xcbf29ce484222325u, 0, 0, 0, 0, 0, 0 };
	struct replay_sink direct = { note_line, note_header, note_frame, NULL, &want };
	for (unsigned i = 0; i < NRECORDS; i++) {
		char comm[32];
		snprintf(comm, sizeof comm, "rec-%u", i);
		emit(&direct, comm, i);
	}

	struct player pl;
	struct calls got = { 0xcbf29ce484222325u, 0, 0, 0, 0, 0, 0 };
	run(false, &pl, &got);
	ok(pl.in_order && pl.next == NRECORDS, "20,000 records reach the second thread in order");
	ok(got.n == want.n && got.headers == want.headers && got.frames == want.frames && got.lines == want.lines,
	   "as many headers, frames and lines come back as were made");
	ok(want.long_lines == 20 && got.long_lines == 20, "lines longer than a batch come back");
	ok(got.long_events == 4 && want.long_events == 4, "headers longer than a batch come back");
	ok(got.hash == want.hash, "the calls come back in order, with what they carried");

	struct calls none = { 0xcbf29ce484222325u, 0, 0, 0, 0, 0, 0 };
	run(true, &pl, &none);
	ok(pl.in_order && pl.next == NRECORDS && none.n == 0, "without a way back, records still reach it in order");
	free(long_line);
	free(long_event);
	return tap_done();
}
