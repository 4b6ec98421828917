/* One td-collect job: a target, the plan, and runs of perf stat written
 * as self-describing captures (header.h), once or repeated as an agent.
 *
 * A run: resolve the target (PIDs by name again every run: a restarted
 * process is found), write the header into a temporary file, run each
 * pass of the plan with perf's output appended to it (--log-fd 3), then
 * copy the capture to stdout and hand it to td-store when asked. Passes
 * of a command run the command once per pass; passes of a process or
 * the system take turns over the duration. No run boundary is written
 * between passes: their counters are one run's. */
#ifndef TD_COLLECT_COLLECT_H
#define TD_COLLECT_COLLECT_H

#include <stdbool.h>
#include "filters/td-collect/detect.h"
#include "filters/td-collect/plan.h"
#include "analysis/roofline.h"

enum target_kind { TARGET_PROCESS, TARGET_PIDS, TARGET_SYSTEM, TARGET_COMMAND };

struct collect_job {
	const struct machine_facts *m;
	const struct plan *plan;
	const char *perf_version;
	int level;
	double duration_s;         /* process, PIDs, system */
	double interval_s;         /* 0: no -I */
	enum target_kind kind;
	const char *process, *pids;
	char *const *cmd;          /* TARGET_COMMAND */
	int ncmd;
	const char *const *labels; /* "k=v" */
	int nlabels;
	bool git_labels;
	bool store;
	const char *db;            /* NULL or "": the default store */
	const struct roofline_peaks *peaks;   /* recorded in the header; NULL: none */
	const char *peaks_source, *peaks_method;   /* what they are, how they were measured (or NULL) */
};

/* --dry-run: the perf command of each pass, one line each, on stdout.
 * Returns 0, or 2 after one message (a process name matching nothing). */
int collect_print(const struct collect_job *j);

/* One run; returns 0, or 2 after one "td-collect: ..." message. */
int collect_once(const struct collect_job *j);

/* The agent: a run every every_s seconds, count runs (0: until stopped);
 * SIGINT and SIGTERM stop it after the current run is written. */
int collect_agent(const struct collect_job *j, double every_s, long count);

#endif
