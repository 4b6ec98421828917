/* A replay's samples handed to a second thread: script_replay (reading,
 * ordering, resolving symbols) runs on the caller's thread while the sink
 * it feeds (formatting headers, folding) runs on the other. The
 * downstream sink gets the same calls in the same order, so the result
 * does not depend on the thread count; headers reach it as text when it
 * has no header callback. */
#ifndef TD_REPLAY_PIPE_H
#define TD_REPLAY_PIPE_H

#include "analysis/script_replay.h"

struct replay_pipe;

struct replay_pipe *replay_pipe_start(const struct replay_sink *downstream);
/* The sink to hand to script_replay (one replay per pipe: its end waits
 * until the downstream sink has had every call). */
const struct replay_sink *replay_pipe_sink(struct replay_pipe *p);
/* Delivers everything still queued, joins the thread, frees the pipe. */
void replay_pipe_finish(struct replay_pipe *p);

#endif
