/* Branch stacks read from perf.data instead of perf script text. */
#ifndef TD_BRANCHES_PERF_DATA_H
#define TD_BRANCHES_PERF_DATA_H

#include <stdbool.h>
#include "analysis/branches.h"
#include "parsers/perf_data.h"

/* Every sample of the file into b (samples without a branch stack count as
 * samples); false after a bad-input message when the file is damaged. */
bool branches_read_perf_data(struct branches *b, const char *path);

#endif
