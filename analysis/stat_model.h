/* What a perf stat file says, gathered for analysis: counter sets per
 * (interval, scope, PMU), whole-run sums per (scope, PMU), the metrics
 * perf itself printed (to check ours against), elapsed time, command. */
#ifndef TD_STAT_MODEL_H
#define TD_STAT_MODEL_H

#include "analysis/metrics.h"
#include "parsers/stat.h"

#define STAT_MAX_SESSIONS 64

struct perf_metric {
	int session;
	double interval;
	char scope[64], pmu[64], event[96];
	char unit[96];
	double value;
	int decimals;
	char file[256];
	unsigned long line;
};

struct stat_model {
	struct counter_set *sets;       /* per interval; interval < 0 when none */
	int nsets, cap_sets;
	struct counter_set *totals;     /* whole run per (scope, pmu), for interval input */
	int ntotals, cap_totals;
	struct perf_metric *perf;
	int nperf, cap_perf;
	int session;                    /* runs of perf stat found so far - 1 */
	bool session_has_counters;
	double elapsed[STAT_MAX_SESSIONS];  /* NaN where a run has no footer */
	double elapsed_s;               /* sum over runs; NaN if none has a footer */
	double period[STAT_MAX_SESSIONS];   /* -I period per run (s), set by finish */
	char command[512];
	int runs;
	bool has_intervals;
	unsigned long records, counters, not_counted, not_supported;
	double min_enabled_pct;
};

void stat_model_init(struct stat_model *m);
void stat_model_free(struct stat_model *m);
/* stat_emit_fn: pass the model as ctx. */
void stat_model_add(void *model, const struct stat_record *r);
/* Sorts sets by interval, scope (natural order) and PMU. */
void stat_model_finish(struct stat_model *m);

/* The set with exactly this key, or NULL (binary search; after finish). */
const struct counter_set *stat_model_find(const struct stat_model *m, bool totals, int session,
					  double interval, const char *scope, const char *pmu);

/* The whole-run sets: the file's own sets without intervals, else totals. */
const struct counter_set *stat_model_summary(const struct stat_model *m, int *n);

/* Metrics of a set; PMU-qualified sets borrow unqualified counters
 * (task-clock) of the same interval and scope. Wall time is derived. */
int stat_model_metrics(const struct stat_model *m, const struct counter_set *s,
		       struct metric_value *out, int max);

#endif
