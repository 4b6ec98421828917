/* What a perf stat file says, gathered for analysis: counter sets per
 * (interval, scope, PMU), whole-run sums per (scope, PMU), the metrics
 * perf itself printed (to check ours against), elapsed time, command.
 *
 * Interval input streams: the sets of one interval are complete when a
 * later interval (or the end) arrives; they are handed to on_interval and
 * then reused, so memory does not grow with the number of intervals. */
#ifndef TD_STAT_MODEL_H
#define TD_STAT_MODEL_H

#include <stdint.h>
#include "analysis/metrics.h"
#include "analysis/roofline.h"
#include "parsers/collect_header.h"
#include "parsers/stat.h"

#define STAT_MAX_SESSIONS 200     /* runs kept apart; a set key holds one in a byte */

struct perf_metric {            /* strings are interned: valid until free */
	int session;
	double interval;
	const char *scope, *pmu, *event, *unit, *file;
	double value;
	int decimals;
	unsigned long line;
	unsigned group;             /* the printed group of the counter it was printed with */
	unsigned key;               /* the model's key of its set (interval metrics) */
	enum stat_source source;    /* perf, or toplev: unit is "% Slots Backend_Bound.Memory_Bound" */
};

struct stat_model;
typedef void (*stat_interval_fn)(void *ctx, const struct stat_model *m);

struct perf_metric_table;
struct stat_model {
	struct counter_set *sets;       /* whole-run sets perf printed (no -I) */
	int nsets, cap_sets;
	struct counter_set *cur;        /* the open interval, sorted when handed out */
	int ncur, cap_cur;
	int cur_session;
	double cur_interval;            /* < 0: no interval open */
	struct counter_set *totals;     /* whole run per (scope, pmu), for interval input */
	int ntotals, cap_totals;
	struct perf_metric *perf;       /* perf-printed metrics of whole-run sets */
	int nperf, cap_perf;
	struct perf_metric *perf_cur;   /* ... and of the open interval */
	int nperf_cur, cap_perf_cur;
	stat_interval_fn on_interval;
	void *on_interval_ctx;
	void (*on_pause)(void *ctx);    /* the input paused (STAT_PAUSE): show what is streamed */
	void *on_pause_ctx;
	struct stat_lookup *lookup;     /* interned names and set indexes */
	const struct perf_metric_table *perf_table;   /* the CPU's perf metric definitions for
						 stat_model_metrics (metrics.h); NULL: none */
	int session;                    /* runs of perf stat found so far - 1 */
	bool session_has_counters;      /* ... or perf's metrics: a run marker now starts a new run */
	const char *session_file[STAT_MAX_SESSIONS];  /* the input a run came from (interned) */
	int session_run[STAT_MAX_SESSIONS];  /* its number within that input, from 1 */
	int session_repeats[STAT_MAX_SESSIONS];  /* perf -r N as the run printed it ("(N runs)"); 0: not said */
	bool session_variance[STAT_MAX_SESSIONS];  /* a counter of the run has perf -r's variance */
	int files;                      /* inputs read */
	struct collect_cpu header;      /* the CPU ids td-collect's headers of those inputs gave */
	struct roofline_header_peaks peaks;   /* ... and the machine's peaks */
	const void *file_raw;           /* the last record's file as the reader gave it */
	bool sessions_full;             /* a run past STAT_MAX_SESSIONS was merged into the last */
	double elapsed[STAT_MAX_SESSIONS];  /* NaN where a run has no footer */
	double elapsed_s;               /* sum over runs; NaN if none has a footer */
	double period[STAT_MAX_SESSIONS];   /* -I period per run (s); NaN until known */
	double first_interval[STAT_MAX_SESSIONS], last_interval[STAT_MAX_SESSIONS];
	char command[512];
	int runs;                       /* the last "(N runs)" read (session_repeats per run) */
	bool has_intervals;
	unsigned long toplev_metrics;   /* node values toplev printed (STAT_FROM_TOPLEV) */
	unsigned long records, counters, not_counted, not_supported, intervals;
	unsigned long repeated_events;  /* an event printed twice in one set */
	unsigned group;                 /* perf's groups: a row carrying a metric starts one, and so
					   does an event printed again within the open group */
	unsigned metric_group;          /* the group of the last counter row: its metrics' */
	struct counter_set *last_set;   /* where the last counter row went */
	int last_index, last_copy;
	unsigned long last_line;
	/* the counter whose text block (its row, then "#" continuation rows)
	 * is open: perf prints its variance and enabled % after its last metric */
	int block_set, block_counter;   /* indexes into cur (interval) or sets; -1: none */
	uint32_t block_event;           /* its event as printed (an id of the model's) */
	bool block_interval;
	unsigned long block_line;       /* the block's last line */
	char repeated_example[96];
	double min_enabled_pct;
};

void stat_model_init(struct stat_model *m);
void stat_model_free(struct stat_model *m);
/* stat_emit_fn: pass the model as ctx. */
void stat_model_add(void *model, const struct stat_record *r);
/* The CPU id the td-collect headers of every input read into m name
 * (collect_cpu_id): NULL when one has none or two differ. */
const char *stat_model_cpuid(const struct stat_model *m);
/* After stat_model_finish: the peaks every input's td-collect header
 * recorded (roofline_header_peaks), with *source; NULL when one has none,
 * a bad one or other ones. */
const struct roofline_peaks *stat_model_peaks(const struct stat_model *m, const char **source);
/* Hands out the last interval and sorts the whole-run sets by scope
 * (natural order) and PMU. */
void stat_model_finish(struct stat_model *m);

/* What tells a run apart from the others, written into buf: "" when the
 * input is one run of one file, "run2" for several runs of one file,
 * "FILE" or "FILE run2" when several files were read. */
const char *stat_model_run_label(const struct stat_model *m, int session, char *buf, size_t cap);

/* The set with exactly this key, or NULL. Interval sets are found only
 * while their interval is being handed out. */
const struct counter_set *stat_model_find(const struct stat_model *m, bool totals, int session,
					  double interval, const char *scope, const char *pmu);

/* stat_model_find(m, false, p->session, p->interval, p->scope, p->pmu) for
 * a metric perf printed, the open interval's found by its key. */
const struct counter_set *stat_model_find_perf(const struct stat_model *m, const struct perf_metric *p);

/* The whole-run sets: the file's own sets without intervals, else totals. */
const struct counter_set *stat_model_summary(const struct stat_model *m, int *n);

/* Metrics of a set; PMU-qualified sets borrow unqualified counters
 * (task-clock) of the same interval and scope. Wall time is derived. */
int stat_model_metrics(const struct stat_model *m, const struct counter_set *s,
		       struct metric_value *out, int max);

/* Every counter counted is a software event and some event was <not
 * supported>: perf had no hardware PMU (a VM, a container, a high
 * perf_event_paranoid). Call after stat_model_finish. */
bool stat_model_software_only(const struct stat_model *m);

/* perf's "/sec" for one event of s: its count per second of task-clock
 * (the unqualified set's for a PMU set). False when either is missing. */
bool stat_model_event_rate(const struct stat_model *m, const struct counter_set *s, const char *event,
			   struct metric_value *out);

/* metrics_missing over s with what stat_model_metrics borrows. */
const char *stat_model_missing(const struct stat_model *m, const struct counter_set *s, const char *metric,
			       char *buf, size_t cap);

#endif
