/* Folding one input on several threads: the input is cut into blocks at
 * blank lines (sample boundaries), each worker folds blocks into its own
 * table, and the tables are merged at the end, so the output is the same
 * bytes for any thread count. */
#ifndef TD_FOLD_THREADS_H
#define TD_FOLD_THREADS_H

#include "analysis/fold.h"
#include "common/input.h"

/* Folds all of IN into F using NTHREADS workers (1: in this thread). */
void fold_input(struct fold *f, struct td_input *in, const struct fold_options *opts, int nthreads);

#endif
