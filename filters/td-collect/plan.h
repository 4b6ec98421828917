/* Which events td-collect counts on a machine, and in how many perf runs.
 *
 * Table-driven per Top-down kind (analysis/cpuid.h) as TMA.md and
 * WORKFLOWS.md give them: Intel perf-metrics (slots + topdown-*, or
 * -M TopdownL1... where this perf has the groups), Intel before Ice Lake
 * (-M TopdownL1, else the kernel's topdown-* events), hybrid (both PMUs),
 * AMD Zen 4/5 (-M PipelineL1/L2), Arm N1/V1 (cycle-based stalls) and
 * N2/V2 (slots), then IPC, branch, cache and TLB groups and the software
 * events. Each group is counted together ({...}); groups are packed into
 * passes that fit the counters, so that no group is multiplexed when the
 * passes are allowed. */
#ifndef TD_COLLECT_PLAN_H
#define TD_COLLECT_PLAN_H

#include <stdbool.h>
#include "filters/td-collect/detect.h"

#define PLAN_MAX_GROUPS 12
#define PLAN_MAX_NOTES 6

struct plan_group {
	char spec[768];            /* "-e" argument, or the metric groups for "-M" */
	bool metric_groups;        /* -M */
	int counters;              /* general-purpose counters it takes (a -M group: all of them) */
	const char *what;          /* "Top-down Level 1", "IPC", ... */
	int pass;                  /* 0, 1, ... */
};

struct plan {
	struct plan_group g[PLAN_MAX_GROUPS];
	int n;
	int counters;              /* general-purpose counters a pass may use */
	int passes_needed;         /* passes for no group to share counters */
	int passes;                /* passes planned: min(needed, the limit given) */
	bool hardware;             /* hardware events are planned */
	char no_hardware[512];     /* why not, and how to get them ("" when planned) */
	const char *topdown;       /* "perf metric groups TopdownL1", "raw events", ... or "none" */
	char notes[PLAN_MAX_NOTES][320];   /* what the user should know about the choice */
	int nnotes;
};

struct plan_options {
	int level;                 /* Top-down level asked, 1.. */
	bool system_wide;          /* -a: cpu-clock covers the CPUs */
	int max_passes;            /* --passes */
	const char *metric_groups; /* the groups this perf knows for the CPU, space-separated */
};

void plan_events(const struct machine_facts *m, const struct plan_options *o, struct plan *p);

/* What the user should know about the plan, as warnings on stderr: no
 * hardware counters (store: the run is kept all the same), the notes, and
 * multiplexing or passes (command: a command runs once per pass). */
void plan_warn(const struct plan *p, bool command, bool store);

#endif
