/* One metric group's view of a counter set: perf prints an event once per
 * metric group that uses it (each group multiplexed on its own), and
 * computes each group's metrics from that group's copies. */
#ifndef TD_COUNTER_GROUPS_H
#define TD_COUNTER_GROUPS_H

#include <stdbool.h>
#include "analysis/metrics.h"

/* Some event of s was printed more than once. */
bool counter_set_has_copies(const struct counter_set *s);

/* view (initialised here; counter_set_free it) holds every counter of s
 * with the value of its copy printed in group, else of its copy in the
 * nearest group (perf's groups are printed in order), else (more copies
 * than a counter keeps) the mean of its copies. */
void counter_set_group_view(const struct counter_set *s, unsigned group, struct counter_set *view);

#endif
