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
 * attrs and header are fixed once opened). */
#ifndef TD_RECORD_PIPE_H
#define TD_RECORD_PIPE_H

#include "parsers/perf_data.h"

typedef void (*record_fn)(void *ctx, const struct pd_record *rec);

struct record_pipe;

struct record_pipe *record_pipe_start(record_fn fn, void *ctx);
void record_pipe_put(struct record_pipe *p, const struct pd_record *rec);
/* Waits until fn has had every record, then stops the thread. */
void record_pipe_finish(struct record_pipe *p);

#endif
