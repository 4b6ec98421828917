#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/ordered_records.h"
#include "analysis/record_pipe.h"
#include "analysis/unwind_pool.h"
#include "common/bytes.h"
#include "common/diag.h"
#include "common/put.h"
#include "common/grow.h"
#include "script_replay.h"

#define PD_AUXTRACE_INFO 70
#define PD_AUXTRACE 71

/* Callchain samples held back while the kernel's symbols are still being
 * read (see hold): headers with their strings copied, frames resolved
 * except the kernel's, kept as addresses. */
struct held {
	struct held_sample {
		struct replay_header h;
		size_t comm, event;          /* their copies' offsets in text */
		size_t first, n;             /* its frames */
		struct unwind_job *job;      /* its user stack, being unwound */
		size_t ufirst, un;           /* the unwound frames, once settled */
	} *sample;
	size_t head, nsamples, samples_cap;  /* [head, nsamples): waiting */
	size_t unsettled;            /* the samples before it have no job out */
	struct held_frame {
		struct machine_frame f;      /* a kernel frame's address in f.addr */
		bool kernel;
	} *frame;
	size_t nframes, frames_cap;
	char *text;
	size_t text_used, text_cap;
};

#define HELD_MAX_FRAMES (1u << 18)

struct replay {
	struct perf_data *d;
	struct machine *m;
	unsigned max_stack;
	struct replay_sink sink;
	struct held held;
	char **names;                /* per attr, whole (see set_names) */
	int nnames;
	int name_width;
	bool refused;
	struct record_pipe *pipe;    /* threaded: records are played on a second thread, whose
					sink calls come back to this one (sink: the pipe's) */
	struct unwind_pool *pool;    /* --call-graph dwarf samples */
	bool deferring;              /* their unwinding runs on the pool's workers */
	bool unwinding;              /* the frames played now were unwound */
	int32_t chain_pid;           /* resolve_to_sink's: the sample's pid */
	uint64_t ips[1024];
	char *line;                  /* a text line for sink.line, grown to fit */
	size_t line_cap;
	char *header_text;           /* a sample's header text, grown to fit */
	size_t header_text_cap;
};

#define MAX_INLINE 64

#if defined(__x86_64__)
#define HOST_ARCH "x86_64"
#elif defined(__aarch64__)
#define HOST_ARCH "aarch64"
#else
#define HOST_ARCH ""
#endif

size_t replay_header_room(const struct replay_header *h)
{
	size_t ev = strlen(h->event);
	if (h->event_width > 0 && (size_t)h->event_width > ev)
		ev = (size_t)h->event_width;
	/* the numbers take at most 5 + 20 + 20 + 20 bytes; comm is padded to 16 */
	return strlen(h->comm) + ev + 128;
}

/* "comm  tid [cpu] time: period event:" as perf script lays it out. */
size_t replay_header_text(const struct replay_header *h, char *buf, size_t cap)
{
	struct td_put b = { buf, 0, cap };
	buf[0] = '\0';
	td_put_str(&b, h->comm, h->callchain_layout ? 0 : 16);
	td_put_mem(&b, " ", 1);
	if (h->has_tid) {
		td_put_i64(&b, h->tid, 5);
		td_put_mem(&b, " ", 1);
	}
	if (h->has_cpu) {
		td_put_mem(&b, "[", 1);
		td_put_u64(&b, h->cpu, 3, 1);
		td_put_mem(&b, "] ", 2);
	}
	if (h->has_time) {
		char t[48];
		struct td_put tb = { t, 0, sizeof t };
		td_put_u64(&tb, h->time / 1000000000u, 0, 0);
		td_put_mem(&tb, ".", 1);
		td_put_u64(&tb, h->time % 1000000000u / 1000u, 6, 1);
		td_put_str(&b, t, 12);
		td_put_mem(&b, ": ", 2);
	}
	td_put_u64(&b, h->period, 10, 0);
	td_put_mem(&b, " ", 1);
	td_put_str(&b, h->event, h->event_width);
	td_put_mem(&b, ": ", 2);
	return b.n;
}

static struct replay_header header_of(struct replay *r, const struct pd_sample *s, bool callchain_layout)
{
	bool has_tid = s->sample_type & PERF_SAMPLE_TID;
	int32_t pid = has_tid ? (int32_t)s->pid : -1, tid = has_tid ? (int32_t)s->tid : -1;
	return (struct replay_header){
		.comm = machine_comm(r->m, pid, tid),
		.event = r->names[s->attr],
		.event_width = r->name_width,
		.has_tid = has_tid,
		.has_cpu = s->sample_type & PERF_SAMPLE_CPU,
		.has_time = s->sample_type & PERF_SAMPLE_TIME,
		.callchain_layout = callchain_layout,
		.tid = tid,
		.cpu = s->cpu,
		.time = s->time,
		/* perf prints a period even when none was sampled: the fixed one */
		.period = s->sample_type & PERF_SAMPLE_PERIOD ? s->period : (uint64_t)r->d->attrs[s->attr].attr.sample_period,
	};
}

/* "addr sym+0xoff (dso)" */
static void frame_text(struct td_put *b, const struct machine_frame *f)
{
	td_put_hex(b, f->addr, 16);
	td_put_mem(b, " ", 1);
	if (f->sym) {
		td_put_str(b, f->sym, 0);
		td_put_mem(b, "+0x", 3);
		td_put_hex(b, f->sym_off, 0);
	} else {
		td_put_mem(b, "[unknown]", 9);
	}
	td_put_mem(b, " (", 2);
	td_put_str(b, f->dso ? f->dso : "[unknown]", 0);
	td_put_mem(b, ")", 1);
}

/* r->line, with room for f's text after `before` bytes: a symbol has no
 * length limit (C++ template names run to kilobytes) and is never cut. */
static struct td_put frame_line_buf(struct replay *r, const struct machine_frame *f, size_t before)
{
	size_t need = before + 64 + (f->sym ? strlen(f->sym) : 0) + (f->dso ? strlen(f->dso) : 0);
	TD_ALLOC_GROW(r->line, need, r->line_cap);
	return (struct td_put){ r->line, 0, r->line_cap };
}

static uint64_t chain_entry(const struct pd_sample *s, uint64_t i)
{
	uint64_t ip;
	memcpy(&ip, &s->callchain[i], sizeof ip);    /* may sit unaligned in the record */
	return ip;
}

static int context_cpumode(uint64_t marker)
{
	return marker == (uint64_t)PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL
		: marker == (uint64_t)PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER
		: PERF_RECORD_MISC_HYPERVISOR;
}

static int32_t sample_pid(const struct pd_sample *s)
{
	return s->sample_type & PERF_SAMPLE_TID ? (int32_t)s->pid : -1;
}

/* perf discards the whole chain when it meets a context marker other than
 * kernel, user or hypervisor (guest markers, or the (u64)-1 some kernels
 * leave at the end of a user stack) before max_stack entries were taken.
 * Also starts fetching what resolving the frames will look at, and says
 * whether the chain has kernel frames. */
static bool chain_discarded(const struct replay *r, const struct pd_sample *s, bool *kernel)
{
	unsigned entries = 0;
	int cpumode = PERF_RECORD_MISC_USER;
	int32_t pid = sample_pid(s);
	*kernel = false;
	for (uint64_t i = 0; i < s->nr_callchain && entries < r->max_stack; i++) {
		uint64_t ip = chain_entry(s, i);
		if (!pd_is_context(ip)) {
			entries++;
			machine_prefetch(r->m, pid, cpumode, ip);
			*kernel |= cpumode == PERF_RECORD_MISC_KERNEL;
		} else if (ip != (uint64_t)PERF_CONTEXT_KERNEL && ip != (uint64_t)PERF_CONTEXT_USER &&
			   ip != (uint64_t)PERF_CONTEXT_HV) {
			return true;
		} else {
			cpumode = context_cpumode(ip);
		}
	}
	return false;
}

typedef void (*frame_fn)(struct replay *r, const struct pd_sample *s, int cpumode, uint64_t ip);

static inline __attribute__((always_inline)) void each_frame(struct replay *r, const struct pd_sample *s, frame_fn fn)
{
	int cpumode = PERF_RECORD_MISC_USER;
	unsigned entries = 0;
	for (uint64_t i = 0; i < s->nr_callchain && entries < r->max_stack; i++) {
		uint64_t ip = chain_entry(s, i);
		if (pd_is_context(ip)) {
			cpumode = context_cpumode(ip);
			continue;
		}
		entries++;
		fn(r, s, cpumode, ip);
	}
}

/* A user sample recorded with --call-graph dwarf: its user stack is
 * unwound into the callchain after the kernel's part, as perf does. */
static bool has_user_stack(const struct replay *r, const struct pd_sample *s)
{
	return r->pool && s->attr >= 0 && (s->sample_type & PERF_SAMPLE_REGS_USER) &&
	       (s->sample_type & PERF_SAMPLE_STACK_USER) && !r->d->swapped;
}

static struct unwind_job *start_unwinding(struct replay *r, const struct pd_sample *s)
{
	return unwind_pool_submit(r->pool, sample_pid(s), s, r->d->attrs[s->attr].attr.sample_regs_user,
				  r->max_stack < 1024 ? r->max_stack : 1024);
}

/* The job's frames (it is released). */
static void each_unwound_of(struct replay *r, const struct pd_sample *s, struct unwind_job *j, frame_fn fn)
{
	const uint64_t *ips;
	size_t n = unwind_job_wait(r->pool, j, &ips);
	r->unwinding = true;
	for (size_t i = 0; i < n; i++)
		fn(r, s, PERF_RECORD_MISC_USER, ips[i]);
	r->unwinding = false;
	unwind_job_release(r->pool, j);
}

static void settle_oldest(struct replay *r);

/* Unwound here and now (the pool is not full while jobs are out: the
 * oldest is settled first). */
static void each_unwound(struct replay *r, const struct pd_sample *s, frame_fn fn)
{
	if (!has_user_stack(r, s))
		return;
	while (unwind_pool_full(r->pool))
		settle_oldest(r);
	each_unwound_of(r, s, start_unwinding(r, s), fn);
}

/* The frames perf shows for one callchain entry: an unwound one stands
 * for the functions inlined there too (perf 6.1 looks for inline frames
 * in what it unwinds, not in the kernel's callchain entries). */
static int entry_frames(struct replay *r, const struct pd_sample *s, int cpumode, uint64_t ip,
			struct machine_frame *out)
{
	if (cpumode == PERF_RECORD_MISC_USER && r->unwinding)
		return machine_resolve_user(r->m, sample_pid(s), ip, out, MAX_INLINE);
	machine_resolve(r->m, sample_pid(s), cpumode, ip, out);
	return 1;
}

static void emit_frame(struct replay *r, const struct pd_sample *s, int cpumode, uint64_t ip)
{
	struct machine_frame f[MAX_INLINE];
	int n = entry_frames(r, s, cpumode, ip, f);
	for (int i = 0; i < n; i++) {
		if (r->sink.frame) {
			r->sink.frame(r->sink.ctx, &f[i]);
			continue;
		}
		struct td_put b = frame_line_buf(r, &f[i], 1);
		td_put_mem(&b, "\t", 1);
		frame_text(&b, &f[i]);
		r->sink.line(r->sink.ctx, b.p, b.n);
	}
}

/* A callchain entry to a sink that takes frames as values: resolved
 * straight into one frame (what emit_frame does for a callchain entry,
 * which never stands for inline frames), with no frame array. */
static void resolve_to_sink(struct replay *r, const struct pd_sample *s, int cpumode, uint64_t ip)
{
	(void)s;
	struct machine_frame f;
	machine_resolve(r->m, r->chain_pid, cpumode, ip, &f);
	r->sink.frame(r->sink.ctx, &f);
}

/* A callchain's frames; each_frame is inlined with each callee */
static void emit_chain(struct replay *r, const struct pd_sample *s)
{
	if (r->sink.frame) {
		r->chain_pid = sample_pid(s);
		each_frame(r, s, resolve_to_sink);
	} else {
		each_frame(r, s, emit_frame);
	}
}

/* ---- holding samples back --------------------------------------------------------- */

/* Reading /proc/kallsyms takes tens of milliseconds, and the first
 * kernel frame would wait for it. Folding does not depend on the order of
 * samples, so when frames go to the sink as values, a sample with kernel
 * frames is held back until the symbols are there, and the next samples
 * go on meanwhile. User frames are resolved at once (their maps change);
 * the kernel's are resolved when released, before any kernel map changes. */
static size_t held_text(struct held *hd, const char *s)
{
	return td_append_text(&hd->text, &hd->text_used, &hd->text_cap, s, strlen(s));
}

static void hold_frame(struct replay *r, const struct pd_sample *s, int cpumode, uint64_t ip)
{
	struct held *hd = &r->held;
	struct machine_frame fr[MAX_INLINE];
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL;
	int n = kernel ? 1 : entry_frames(r, s, cpumode, ip, fr);
	TD_ALLOC_GROW(hd->frame, hd->nframes + (size_t)n, hd->frames_cap);
	for (int i = 0; i < n; i++) {
		struct held_frame *f = &hd->frame[hd->nframes++];
		f->kernel = kernel;
		if (kernel)
			f->f.addr = ip;
		else
			f->f = fr[i];
	}
}

static void hold(struct replay *r, const struct pd_sample *s, const struct replay_header *h)
{
	struct held *hd = &r->held;
	TD_ALLOC_GROW(hd->sample, hd->nsamples + 1, hd->samples_cap);
	struct held_sample *hs = &hd->sample[hd->nsamples++];
	hs->h = *h;
	hs->comm = held_text(hd, h->comm);
	hs->event = held_text(hd, h->event);
	hs->first = hd->nframes;
	hs->job = NULL;
	hs->ufirst = hs->un = 0;
	each_frame(r, s, hold_frame);
	if (r->deferring && has_user_stack(r, s)) {
		hs->n = hd->nframes - hs->first;     /* settling appends frames of other samples */
		while (unwind_pool_full(r->pool))
			settle_oldest(r);
		hd->sample[hd->nsamples - 1].job = start_unwinding(r, s);
		return;
	}
	each_unwound(r, s, hold_frame);
	hs = &hd->sample[hd->nsamples - 1];
	hs->n = hd->nframes - hs->first;
}

/* A held sample's unwound frames resolved (with its process's maps as
 * they were when it was sampled: see settle_pid). */
static void settle(struct replay *r, struct held_sample *hs)
{
	if (!hs->job)
		return;
	struct held *hd = &r->held;
	struct unwind_job *j = hs->job;
	hs->job = NULL;
	hs->ufirst = hd->nframes;
	struct pd_sample pid_only = { .sample_type = PERF_SAMPLE_TID, .pid = (uint32_t)unwind_job_pid(j) };
	each_unwound_of(r, &pid_only, j, hold_frame);
	hs = &hd->sample[hs - hd->sample];
	hs->un = hd->nframes - hs->ufirst;
}

static void settle_oldest(struct replay *r)
{
	struct held *hd = &r->held;
	for (; hd->unsettled < hd->nsamples; hd->unsettled++)
		if (hd->sample[hd->unsettled].job) {
			settle(r, &hd->sample[hd->unsettled++]);
			return;
		}
}

/* Before the maps of process pid change, the unwound frames of its
 * samples are resolved (and those of the samples before them). */
static void settle_pid(struct replay *r, int32_t pid)
{
	struct held *hd = &r->held;
	size_t last = hd->nsamples;
	for (size_t i = hd->unsettled; i < hd->nsamples; i++)
		if (hd->sample[i].job && unwind_job_pid(hd->sample[i].job) == pid)
			last = i;
	for (; last < hd->nsamples && hd->unsettled <= last; hd->unsettled++)
		settle(r, &hd->sample[hd->unsettled]);
}

static void emit_held(struct replay *r, struct held_sample *hs)
{
	struct held *hd = &r->held;
	hs->h.comm = hd->text + hs->comm;
	hs->h.event = hd->text + hs->event;
	r->sink.header(r->sink.ctx, &hs->h);
	for (size_t k = hs->first; k < hs->first + hs->n; k++) {
		struct held_frame *f = &hd->frame[k];
		if (f->kernel)
			machine_resolve(r->m, -1, PERF_RECORD_MISC_KERNEL, f->f.addr, &f->f);
		r->sink.frame(r->sink.ctx, &f->f);
	}
	for (size_t k = hs->ufirst; k < hs->ufirst + hs->un; k++)
		r->sink.frame(r->sink.ctx, &hd->frame[k].f);
	r->sink.line(r->sink.ctx, "", 0);
}

/* The samples still waiting moved to the front, with their frames and
 * text, once the played ones take most of the room. */
static void compact_held(struct held *hd)
{
	if (hd->head == hd->nsamples) {
		hd->head = hd->nsamples = hd->unsettled = hd->nframes = hd->text_used = 0;
		return;
	}
	if (hd->head < 256 || hd->head * 2 < hd->nsamples)
		return;
	size_t f0 = hd->nframes, t0 = hd->text_used;
	for (size_t i = hd->head; i < hd->nsamples; i++) {
		const struct held_sample *hs = &hd->sample[i];
		f0 = hs->first < f0 ? hs->first : f0;
		f0 = hs->un && hs->ufirst < f0 ? hs->ufirst : f0;
		t0 = hs->comm < t0 ? hs->comm : t0;
		t0 = hs->event < t0 ? hs->event : t0;
	}
	size_t n = hd->nsamples - hd->head;
	memmove(hd->sample, hd->sample + hd->head, n * sizeof(*hd->sample));
	for (size_t i = 0; i < n; i++) {
		struct held_sample *hs = &hd->sample[i];
		hs->first -= f0;
		hs->ufirst = hs->un ? hs->ufirst - f0 : 0;
		hs->comm -= t0;
		hs->event -= t0;
	}
	memmove(hd->frame, hd->frame + f0, (hd->nframes - f0) * sizeof(*hd->frame));
	memmove(hd->text, hd->text + t0, hd->text_used - t0);
	hd->nframes -= f0;
	hd->text_used -= t0;
	hd->unsettled = hd->unsettled > hd->head ? hd->unsettled - hd->head : 0;
	hd->nsamples = n;
	hd->head = 0;
}

/* Plays the held samples, oldest first: all of them (waiting for their
 * unwinding and the kernel's symbols if need be), or only as long as
 * they are ready. */
static void release_held(struct replay *r, bool all)
{
	struct held *hd = &r->held;
	if (!all && !machine_kernel_ready(r->m))
		return;
	size_t i = hd->head;
	for (; i < hd->nsamples; i++) {
		struct held_sample *hs = &hd->sample[i];
		if (!all && hs->job && !unwind_job_done(hs->job))
			break;
		if (hs->job) {
			while (hd->unsettled <= i)        /* settled in order */
				settle(r, &hd->sample[hd->unsettled++]);
			hs = &hd->sample[i];
		}
		emit_held(r, hs);
	}
	hd->head = i;
	if (hd->unsettled < i)
		hd->unsettled = i;
	compact_held(hd);
}

static bool holding(const struct replay *r)
{
	return r->held.head < r->held.nsamples;
}

static void free_held(struct held *hd)
{
	free(hd->sample);
	free(hd->frame);
	free(hd->text);
}

static bool is_kernel_mmap(const struct pd_record *rec)
{
	return (rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2) &&
	       (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
}

static void sample(struct replay *r, const struct pd_record *rec)
{
	const struct pd_sample *s = &rec->u.sample;
	bool has_chain = s->sample_type & PERF_SAMPLE_CALLCHAIN;
	struct replay_header h = header_of(r, s, has_chain);
	size_t n = 0;
	if (!has_chain || !r->sink.header) {
		TD_ALLOC_GROW(r->header_text, replay_header_room(&h), r->header_text_cap);
		n = replay_header_text(&h, r->header_text, r->header_text_cap);
	}
	if (has_chain) {
		bool kernel, discarded = chain_discarded(r, s, &kernel);
		if (!discarded && r->deferring && has_user_stack(r, s)) {
			if (r->held.nframes >= HELD_MAX_FRAMES)
				release_held(r, true);
			hold(r, s, &h);
			return;
		}
		if (!discarded && kernel && r->sink.frame && r->held.nframes < HELD_MAX_FRAMES &&
		    (holding(r) || !machine_kernel_ready(r->m))) {
			hold(r, s, &h);
			return;
		}
		if (r->sink.header)
			r->sink.header(r->sink.ctx, &h);
		else
			r->sink.line(r->sink.ctx, r->header_text, n);
		if (!discarded) {
			emit_chain(r, s);
			each_unwound(r, s, emit_frame);
		}
		r->sink.line(r->sink.ctx, "", 0);
		return;
	}
	struct machine_frame f;
	machine_resolve(r->m, sample_pid(s), rec->misc & PERF_RECORD_MISC_CPUMODE_MASK, s->ip, &f);
	f.addr = s->ip;               /* a lone sample prints its ip as recorded */
	struct td_put b = frame_line_buf(r, &f, n + 1);
	td_put_mem(&b, r->header_text, n);
	td_put_mem(&b, " ", 1);
	frame_text(&b, &f);
	r->sink.line(r->sink.ctx, b.p, b.n);
}

/* The process whose maps rec changes (-1: none; 0 can be one). */
static bool changes_maps(const struct pd_record *rec, int32_t *pid)
{
	if ((rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2) && !is_kernel_mmap(rec)) {
		*pid = (int32_t)rec->u.mmap.pid;
		return true;
	}
	if (rec->type == PERF_RECORD_FORK && rec->decoded && rec->u.task.pid != rec->u.task.ppid) {
		*pid = (int32_t)rec->u.task.pid;
		return true;
	}
	return false;
}

static void play(void *ctx, const struct pd_record *rec)
{
	struct replay *r = ctx;
	int32_t pid;
	if (holding(r)) {
		if (is_kernel_mmap(rec))
			release_held(r, true);
		else
			release_held(r, false);
		if (holding(r) && changes_maps(rec, &pid))
			settle_pid(r, pid);
	}
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (rec->decoded)
			sample(r, rec);
	} else {
		machine_apply(r->m, rec);
	}
}

static void deliver(void *ctx, const struct pd_record *rec)
{
	struct replay *r = ctx;
	if (r->pipe)
		record_pipe_put(r->pipe, rec);
	else
		play(r, rec);
}

/* What perf script computes and a replay cannot: say so before any output. */
static bool refuse_attrs(const struct perf_data *d)
{
	for (int i = 0; i < d->nattrs; i++) {
		const struct perf_event_attr *a = &d->attrs[i].attr;
		const char *why = NULL;
		if ((a->sample_type & PERF_SAMPLE_BRANCH_STACK) && (a->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK))
			why = "was recorded with --call-graph lbr, whose stacks perf stitches from branch records; not implemented";
		else if (a->type == PERF_TYPE_TRACEPOINT)
			why = "holds tracepoint samples, which perf script prints with their trace fields; not implemented";
		if (why) {
			td_bad_input(d->path, 0, "%s; use: perf script -i %s | td-fold", why, d->path);
			return true;
		}
	}
	return false;
}

static void free_names(struct replay *r)
{
	for (int i = 0; r->names && i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	r->names = NULL;
	r->nnames = 0;
}

/* Each event's name, whole: a header line carries it, and td-fold tells
 * events apart by it, so two long names must never be cut to one. */
static void set_names(struct replay *r)
{
	free_names(r);
	r->nnames = r->d->nattrs;
	r->names = td_calloc((size_t)r->nnames + 1, sizeof(*r->names));
	r->name_width = 0;
	for (int i = 0; i < r->nnames; i++) {
		r->names[i] = perf_data_event_name_dup(r->d, i);
		int w = (int)strlen(r->names[i]);
		if (w > r->name_width)
			r->name_width = w;
	}
}

bool script_replay(struct perf_data *d, const struct replay_options *o, const struct replay_sink *sink)
{
	if (refuse_attrs(d))
		return false;
	struct replay r = { .d = d, .max_stack = o->max_stack ? o->max_stack : 127, .sink = *sink };
	r.m = machine_new(d, &o->machine);
	const char *arch = d->info.arch[0] ? d->info.arch : HOST_ARCH;    /* pipe mode: the header comes later */
	int e_machine = strcmp(arch, "x86_64") == 0 ? EM_X86_64
			: strcmp(arch, "aarch64") == 0 || strcmp(arch, "arm64") == 0 ? EM_AARCH64 : EM_NONE;
	r.pool = unwind_pool_new(r.m, e_machine, o->unwind_threads);
	r.deferring = unwind_pool_workers(r.pool) > 0 && sink->frame && sink->header;
	int nattrs = -1;
	struct ordered_records *q = ordered_new(d, deliver, &r);
	const struct pd_record *rec;
	int k;
	bool ok = true, aux_said = false;
	if (o->threaded && !d->pipe_mode) {       /* file mode: attrs and names are fixed from here on */
		set_names(&r);
		nattrs = d->nattrs;
		bool back = sink->header && sink->frame;   /* values: the calls come back to this thread */
		r.pipe = record_pipe_start(play, &r, back ? sink : NULL);
		if (back)
			r.sink = *record_pipe_sink(r.pipe);
	}
	while ((k = perf_data_next(d, &rec)) > 0) {
		if (!r.pipe && (d->nattrs != nattrs || rec->type >= 64)) {  /* pipe mode: events and names arrive as records */
			if (d->nattrs > nattrs && refuse_attrs(d)) {
				ok = false;
				break;
			}
			set_names(&r);
			nattrs = d->nattrs;
		}
		if (rec->type == PD_AUXTRACE_INFO || rec->type == PD_AUXTRACE) {
			if (!aux_said)
				td_warn(d->path, 0, "offset %llu: holds a hardware trace (AUX area: Intel PT, CoreSight, SPE), "
					"which is not decoded here; its regular samples are replayed (perf script -i %s "
					"decodes the trace into samples too)", (unsigned long long)rec->offset, d->path);
			aux_said = true;
			continue;
		}
		ordered_add(q, rec);
	}
	ordered_finish(q);
	ordered_free(q);
	if (r.pipe)
		record_pipe_finish(r.pipe);
	r.sink = *sink;
	release_held(&r, true);
	free_held(&r.held);
	if (r.sink.end)
		r.sink.end(r.sink.ctx);
	unwind_pool_free(r.pool);
	machine_free(r.m);
	free_names(&r);
	free(r.line);
	free(r.header_text);
	return ok && k == 0;
}
