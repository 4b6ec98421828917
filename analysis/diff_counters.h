/* A/B comparison of perf stat counter files: every counter and derived
 * metric of each side, their means over the runs, Welch's test where the
 * runs or perf's -r variance allow it, thresholds, and a verdict. */
#ifndef TD_DIFF_COUNTERS_H
#define TD_DIFF_COUNTERS_H

#include <stdbool.h>
#include "parsers/stat.h"

#define DC_MAX_RUNS 200           /* a side's runs (stat_model keeps as many apart) */

/* One counter or metric, values per side and run. */
struct dc_quantity {
	char name[256];           /* "ipc", "cycles", "cpu_core/cycles", "CPU0 ipc" */
	bool is_metric;
	int tma_level;            /* a Top-down node's level; 0 for other quantities */
	const char *unit;
	bool has_direction, higher_is_better;
	int n[2];                 /* runs with a value */
	double v[2][DC_MAX_RUNS];
	double rel_se[2];         /* perf -r: relative error of the mean; NaN if none */
	int repeats[2];           /* perf -r N */
	double enabled[2];        /* lowest enabled % */
	int not_counted[2];       /* runs where it was <not counted>/<not supported> */
	bool not_meaningful[2];   /* a metric over a handful of events in some run (metrics.h) */
};

struct dc_threshold {
	char name[64];
	double pct;               /* +5: bad when it grows by 5% or more; -5: when it falls by 5% */
};

struct dc_result {
	const struct dc_quantity *q;
	double base, cand, delta, rel_pct;
	double p, df;             /* NaN: no variance */
	bool significant;
	double threshold_pct;     /* NaN: none */
	const char *verdict;      /* regression, improvement, worse, better, noise, unchanged */
	double confidence;        /* lowest enabled % of both sides */
};

struct diff_counters;

struct diff_counters *diff_counters_new(bool per_scope);
void diff_counters_free(struct diff_counters *d);
/* Adds the runs of one file to a side (0 base, 1 cand); false if it held no counters. */
bool diff_counters_read(struct diff_counters *d, int side, const char *path, enum stat_format fmt);
int diff_counters_runs(const struct diff_counters *d, int side);
const char *diff_counters_command(const struct diff_counters *d, int side);
/* The side's runs in words: "3 runs", "5 runs, perf -r" (perf -r N counts
 * its N runs; a file that does not say N says so), into buf. */
const char *diff_counters_runs_text(const struct diff_counters *d, int side, char *buf, size_t cap);

/* A side's runs from rows kept elsewhere (the run store) rather than from
 * a file: diff_counters_next_run starts a run; each value then names its
 * quantity ("cpu_core/ipc"), whether it is a metric (or a Top-down node:
 * tma_level > 0), its unit (a string that outlives d), which way is
 * better (+1 higher, -1 lower, 0 none: a counter then gets the rule
 * diff_counters_read applies) and perf's -r variance and enabled %. */
void diff_counters_next_run(struct diff_counters *d, int side);
void diff_counters_add_value(struct diff_counters *d, int side, const char *name, bool is_metric, int tma_level,
			     const char *unit, int better, double value, double variance_pct, double enabled_pct,
			     bool not_meaningful);

/* Events that cannot be compared (on one side only, counted on one side
 * only): each reported as bad input, naming it; returns how many. What both
 * sides counted is compared all the same (diff_counters_compare). */
int diff_counters_check(const struct diff_counters *d, const char *base_name, const char *cand_name);

/* Thresholds: defaults, then overrides "name=+5%" (false if malformed). */
void diff_counters_default_thresholds(struct diff_counters *d);
/* The default threshold of one quantity ("task-clock": +5), NaN if it has none. */
double diff_counters_default_threshold(const char *name);
bool diff_counters_set_threshold(struct diff_counters *d, const char *spec);
/* "name=+5%" lines, '#' comments. Reports bad lines with file:line. */
bool diff_counters_load_thresholds(struct diff_counters *d, const char *path);

/* Sorted: regressions, improvements, other significant changes, the rest
 * (by name within each). Returns the count; *out is owned by d. */
int diff_counters_compare(struct diff_counters *d, double alpha, const struct dc_result **out);

/* The seeds' A/B reasoning as a short paragraph (into buf). */
void diff_counters_explain(const struct diff_counters *d, const struct dc_result *r, int n, char *buf, size_t cap);

#endif
