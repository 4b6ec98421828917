/* perf's metric definitions for one CPU, as the installed perf prints them
 * (`PERF_CPUID=<cpuid> perf list --details`: the "Metric Groups:" section
 * gives each metric with its groups, description and expression; a
 * `perf list --details metric` file gives them without groups), each
 * expression compiled once (perf_expr.h) and evaluated over a counter set.
 *
 * The Top-down tree comes from the groups: TopdownL<n> is the level and
 * tma_<parent>_group the parent. perf 6.1 prints no thresholds. A metric
 * whose inputs the set lacks has no value and names what it needs; it is
 * never computed from the terms that are there. */
#ifndef TD_PERF_METRIC_TABLE_H
#define TD_PERF_METRIC_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include "analysis/metrics.h"

struct perf_metric_def {
	char *name;                /* perf's: "tma_dram_bound", "IPC" */
	char *pmu;                 /* "cpu_core" from the description's "Unit: cpu_core"; "" none */
	char *description;
	char *expr_text;
	char *lower;               /* the name in tdkit's lower case: "load_miss_real_latency" */
	char *groups;              /* ";"-separated, in the order perf listed them; "" none */
	int level;                 /* TopdownL<n>; 0: none */
	char *parent;              /* perf's name of the parent ("tma_memory_bound"), NULL at the top */
	struct perf_expr *expr;    /* NULL: the expression does not compile (error says why) */
	int *link;                 /* per expression id: >= 0 a metric, <= -2 the event -2-link, -1 other */
};

struct perf_metric_table {
	char source[512];          /* the file, or "perf VERSION PERF_CPUID=ID" */
	char cpuid[64];
	struct perf_metric_def *m;
	int n, cap;
	char **events;             /* canonical names (events.h) the expressions read */
	int nevents, evcap;
	int nbad;                  /* expressions that do not compile */
	/* literals the caller knows ("#smt_on"): the others are unknown */
	char *literal[8];
	double literal_value[8];
	int nliterals;
};

/* Reads perf list --details output (.gz/.zst too). NULL after an error
 * message when the file cannot be read or holds no metric; lines that are
 * not perf list's are reported as FILE:LINE. */
struct perf_metric_table *perf_metric_table_load(const char *path);
/* The installed perf's table for cpuid ("GenuineIntel-6-8F-0"), from the
 * cache ($XDG_CACHE_HOME/tdkit/, else ~/.cache/tdkit/) or by running perf
 * once and caching its output per perf version and cpuid. NULL with why
 * in err: no perf, or this perf knows no metric for that CPU (CPUs newer
 * than the perf build list nothing). */
struct perf_metric_table *perf_metric_table_for_cpuid(const char *cpuid, char *err, size_t cap);
void perf_metric_table_free(struct perf_metric_table *t);

/* A cpuid as perf's PERF_CPUID takes it: letters, digits, '-', '_', ','. */
bool perf_metric_cpuid_valid(const char *cpuid);

/* The metric by perf's name, the one of pmu first ("" any). -1: none. */
int perf_metric_find(const struct perf_metric_table *t, const char *name, const char *pmu);

/* Sets a literal's value ("#smt_on", 1). */
void perf_metric_table_set_literal(struct perf_metric_table *t, const char *literal, double value);

/* One metric's value over a set. */
struct perf_metric_result {
	double value;              /* NaN: none */
	const char *needs;         /* value NaN: the event, literal or metric it needs ("" none known) */
	bool divzero;              /* value NaN: a '/' by zero (perf drops the metric) */
	bool ambiguous;            /* value NaN: an unknown literal (#smt_on) would choose between values */
};

/* Every metric of t for the set (the metrics of s->pmu, and those of no
 * PMU), into out[t->n] (others: NaN, needs ""). A literal the caller did
 * not set is tried both ways (#smt_on 0 and 1, ...): the value is the one
 * the counted events allow, or none when both give different values. */
void perf_metric_table_eval(const struct perf_metric_table *t, const struct counter_set *s,
			    struct perf_metric_result *out);

/* --metrics FILE and --cpuid ID (either may be NULL): the table read
 * from FILE, else the installed perf's for ID. NULL when neither gives
 * one: said on stderr (a --metrics file that cannot be read is bad input;
 * a cpuid perf does not know is a note) unless quiet (a cpuid read from a
 * td-collect header: the tree is then tdkit's own, as without it). The
 * caller frees the table (perf_metric_table_free) after its last use. */
struct perf_metric_table *perf_metric_table_open(const char *file, const char *cpuid, bool quiet);

#endif
