/* The derive engine: a perf stat capture in, per run what tdkit derives
 * from it out: the counters as read, every metric with its verdict and
 * confidence, and the Top-down tree with its bottleneck path, as flat rows
 * a caller can keep, compare or print without knowing the model behind
 * them.
 *
 * One run is one perf stat invocation in the file (perf's `# started on`
 * line, `--append`, `-r` summaries as perf printed them). Rows describe
 * the whole run per scope and PMU; interval input (-I) is summed per run
 * as td-derive's summary is, and on request each interval's rows come too.
 * Strings in the rows live until the callback returns.
 *
 * This is the engine's first client-facing form (td-store uses it); the
 * same computations back td-derive's own rows (metrics_compute, tma_build
 * through stat_model), so the numbers are td-derive's. */
#ifndef TD_DERIVE_H
#define TD_DERIVE_H

#include <stdbool.h>
#include <stddef.h>
#include "parsers/stat.h"

struct derive_options {
	enum stat_format format;     /* STAT_AUTO: detect */
	const char *cpu;             /* Top-down model id, NULL: detect (as td-derive --cpu) */
	bool intervals;              /* -I input: also each interval's rows (derive_run.intervals) */
};

struct derive_counter {
	const char *scope, *pmu, *name;
	double value, enabled_pct, variance_pct;
};

struct derive_metric {
	const char *scope, *pmu, *name;
	double value;                /* metrics in their unit; nodes in % of their domain */
	const char *unit;
	const char *better;          /* "higher", "lower" or "": which way is an improvement */
	int level;                   /* Top-down level; 0 for a metric */
	const char *verdict;         /* metric: healthy/ok/investigate; node: high/good/mismeasured; or "" */
	double confidence;           /* lowest enabled % of the inputs; NaN: not known */
	double variance_pct;
	bool on_path;
	const char *source;          /* "tdkit", or "perf" for a node perf printed */
};

struct derive_run {
	int index;                   /* 0, 1, ... in file order */
	const char *file;
	const char *layout;          /* "csv", "json", "text" */
	double elapsed_s;            /* NaN: the run printed no wall time */
	const char *command;         /* "" when the capture does not say */
	const char *model;           /* Top-down model id of the first tree, or "" */
	int deepest_level;           /* of the Top-down tree, 0: none */
	const char *summary;         /* one line: Level 1 of the tree, else IPC, else CPUs utilized */
	const char *events;          /* the counters' names, comma-separated, sorted */
	const struct derive_counter *counters;
	size_t ncounters;
	const struct derive_metric *metrics;
	size_t nmetrics;
	/* derive_options.intervals and -I input: the same rows for each
	 * interval of the run, in input order; counter_interval[i] and
	 * metric_interval[i] are their time stamps (s). Empty otherwise. */
	const struct derive_counter *interval_counters;
	const double *counter_interval;
	size_t ninterval_counters;
	const struct derive_metric *interval_metrics;
	const double *metric_interval;
	size_t ninterval_metrics;
};

typedef void (*derive_run_fn)(void *ctx, const struct derive_run *r);

/* Reads path ("-": stdin) and calls fn once per run, in file order.
 * Returns the number of runs; problems with the input are reported as
 * td-derive reports them (tool: FILE:LINE: ...). */
int derive_file(const char *path, const struct derive_options *o, derive_run_fn fn, void *ctx);

#endif
