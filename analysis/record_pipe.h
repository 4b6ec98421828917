/* Time-ordered perf.data records handed to a second thread, which does
 * what the records are for (rebuilding the machine, resolving and folding
 * samples) while the first one goes on reading, decoding and ordering.
 * The second thread sees the same records in the same order.
 *
 * Only what a replay reads crosses: a sample's header fields and its
 * callchain, and a --call-graph dwarf sample's user registers and stack
 * (the sample's other fields are not set), and MMAP, MMAP2,
 * COMM, FORK and EXIT records with their strings. What fn reads of the
 * perf_data itself must not change while the pipe runs (file mode: its
 * attrs and header are fixed once opened).
 *
 * The way back: with a sink given, record_pipe_sink() is a sink for fn
 * to write to whose calls (header, frame, line; not end) are made again
 * on the first thread, to the given sink, in the order fn made them:
 * while the first thread waits for room to put records, and in
 * record_pipe_finish. Resolving is the second thread's and folding the
 * first one's: reading alone leaves the first one idle half the time.
 * Strings a call passes are copied, except a header's event and a
 * frame's sym and dso, which must stay valid until the pipe finishes. */
#ifndef TD_RECORD_PIPE_H
#define TD_RECORD_PIPE_H

#include "analysis/script_replay.h"
#include "parsers/perf_data.h"

typedef void (*record_fn)(void *ctx, const struct pd_record *rec);

struct record_pipe;

/* back: NULL, or the sink fn's calls to record_pipe_sink() go to */
struct record_pipe *record_pipe_start(record_fn fn, void *ctx, const struct replay_sink *back);
void record_pipe_put(struct record_pipe *p, const struct pd_record *rec);
/* For fn, on the second thread (started with a back sink). */
const struct replay_sink *record_pipe_sink(struct record_pipe *p);
/* Waits until fn has had every record and its sink calls were made
 * again, then stops the thread. */
void record_pipe_finish(struct record_pipe *p);

#endif
