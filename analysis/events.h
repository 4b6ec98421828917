/* Event names as perf prints them, reduced to one canonical spelling so
 * that generic, Intel, AMD and ARM names feed the same formulas:
 *   "cpu_core/cycles/"      -> pmu "cpu_core", name "cycles"
 *   "armv8_pmuv3_0/inst_retired/" -> name "instructions"
 *   "INST_RETIRED.ANY:u"    -> name "instructions" (modifier dropped)
 *   "cpu/event=0x3c,umask=0x0/" -> name "cpu/event=0x3c,umask=0x0/"
 * Names without an alias keep their lowercased perf spelling. */
#ifndef TD_EVENTS_H
#define TD_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

struct event_name {
	char pmu[64];      /* "" when the event named none */
	char name[96];     /* canonical, lowercase */
};

void event_normalize(const char *raw, struct event_name *out);

/* A canonical name that marks a Top-down event (topdown-*, slots,
 * uops_*, de_no_dispatch*, cycle_activity*, anywhere in the name). */
bool event_has_topdown_mark(const char *name);

/* A software event the kernel counts without a PMU (task-clock,
 * context-switches, page-faults ...): what a VM or container still has. */
bool event_is_software(const char *name);

#endif
