/* perf script without perf: replay a perf.data file (records in perf's
 * time order, the machine's threads and maps kept up to date) and render
 * each sample as the lines `perf script` prints by default:
 *
 *   comm  tid [cpu] time: period event:
 *   \t     addr sym+0xoff (dso)          one per callchain entry, leaf first
 *   (blank line)
 *
 * or, for an event recorded without a callchain, the header followed on
 * the same line by "addr sym+0xoff (dso)". Callchains are cut at
 * max_stack entries (perf script's --max-stack, 127 by default).
 *
 * User stacks recorded with --call-graph dwarf are unwound (unwind_user.h)
 * after the kernel's part of the chain, and an unwound address of a
 * binary with debug info stands for the functions inlined there too, as
 * perf 6.1 shows them ("(inlined)").
 *
 * A hardware trace in AUX areas (Intel PT, CoreSight, SPE), which perf
 * decodes into samples, is not decoded: the file's regular samples are
 * replayed, after one warning saying so.
 *
 * What perf script would compute and this cannot is refused up front with
 * the reason (tool: FILE: ...): LBR call graphs and tracepoint samples. */
#ifndef TD_SCRIPT_REPLAY_H
#define TD_SCRIPT_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include "analysis/machine.h"

struct replay_options {
	struct machine_options machine;
	unsigned max_stack;          /* 0: 127 */
	bool threaded;               /* file mode: play records on a second thread (same output) */
	int unwind_threads;          /* --call-graph dwarf stacks unwound on this many threads (<= 1: the
					playing one); held back meanwhile, so for value sinks only */
};

/* The header line of a sample with a callchain, as values. */
struct replay_header {
	const char *comm, *event;    /* valid during the call only */
	int event_width;             /* the event column's width */
	bool has_tid, has_cpu, has_time, callchain_layout;
	int32_t tid;
	uint32_t cpu;
	uint64_t time, period;
};

/* The text perf script prints for it (no newline); returns its length.
 * A buf of replay_header_room(h) bytes always holds all of it. */
size_t replay_header_text(const struct replay_header *h, char *buf, size_t cap);
size_t replay_header_room(const struct replay_header *h);

/* Where the samples go: every line as text, or, with header and frame
 * set, callchain samples' headers and frames as values (the rest of the
 * lines stay text). A consumer that only needs their parts saves perf
 * script's formatting and its own re-parsing, or can format them on
 * another thread; sym and dso strings stay valid until the replay ends. */
struct replay_sink {
	void (*line)(void *ctx, const char *line, size_t len);
	void (*header)(void *ctx, const struct replay_header *h);   /* NULL: headers as lines */
	void (*frame)(void *ctx, const struct machine_frame *f);    /* NULL: frames as lines */
	void (*end)(void *ctx);      /* NULL, or called last, while those strings are valid */
	void *ctx;
};

/* false if the file was refused or reading stopped on bad input (both
 * reported); lines of every sample read before that were delivered. */
bool script_replay(struct perf_data *d, const struct replay_options *o, const struct replay_sink *sink);

#endif
