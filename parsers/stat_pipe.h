/* Records read on one thread, handed in order to a second thread that
 * takes them (a reader and its consumer running side by side).
 *
 * The second thread calls emit(ctx, r) for every record in the order they
 * were handed over, with the record's strings copied. While the pipe is
 * open, the messages the reading thread reports (bad input, warnings) go
 * through the pipe too and are printed by the second thread between the
 * same records as they would have been: stderr reads as one thread's. */
#ifndef TD_STAT_PIPE_H
#define TD_STAT_PIPE_H

#include "parsers/stat.h"

struct stat_pipe;

/* Starts the consumer; NULL when no thread can be started (then emit
 * directly). Messages of the calling thread go through the pipe from now. */
struct stat_pipe *stat_pipe_start(stat_emit_fn emit, void *ctx);
/* A stat_emit_fn: pass the pipe as ctx. A record's file name is copied
 * the first time its address is seen (one address, one name: stat.h). */
void stat_pipe_emit(void *pipe, const struct stat_record *r);
/* Waits until every record handed over was emitted and every message
 * printed, stops the consumer and frees the pipe; messages go to stderr again. */
void stat_pipe_finish(struct stat_pipe *p);

#endif
