/* The derive engine: perf stat output in (CSV -x, JSON -j, text, toplev;
 * any layout td-derive reads), what tdkit derives from it out: the
 * counters as read, every metric with its verdict, band, confidence,
 * variance and next step, the Top-down tree with its bottleneck path, and
 * the check of every metric perf printed against tdkit's own. It prints
 * nothing on stdout; problems with the input go to stderr as every tool
 * reports them (tool: FILE:LINE: ...) and count in td_exit_code.
 *
 * Two forms:
 *
 * 1. derive_file: one file, one callback per run with flat rows (whole-run
 *    sums per scope and PMU; with derive_options.intervals, each interval's
 *    rows too). For callers that keep or compare runs (td-store). Strings
 *    in the rows live until the callback returns.
 *
 * 2. The streaming engine (struct derive_engine), what td-derive prints:
 *
 *        struct derive_config c = { .cpu = NULL, .intervals = true };
 *        struct derive_callbacks cb = { .set = on_set, .ctx = me };
 *        struct derive_engine *e = derive_new(&c, &cb);
 *        for (each file)
 *                derive_read(e, path, STAT_AUTO);   // sets of -I input arrive as they complete
 *        derive_finish(e);                          // then the whole-run sets
 *        ... derive_capture(e), derive_each_tree(e, ...), derive_diagnoses(e, ...),
 *            derive_perf_check(e): the capture as a whole, for a report's head and tail
 *        derive_warn_input(e);                      // what the input lacked, on stderr
 *        derive_free(e);
 *
 *    A set is one (run, interval, scope, PMU): for -I input each interval's
 *    sets come first, one callback each, as soon as the interval is
 *    complete (memory does not grow with the input), then the whole-run
 *    sets (interval < 0; interval input summed per run). Reading happens on
 *    the caller's thread and the callbacks run on a second one (on the
 *    caller's with derive_config.one_thread), in input order; everything a
 *    callback is given lives until it returns.
 *
 * Runs: one perf stat invocation is one run (perf's `# started on` line,
 * --append, several files); a set's scope names its run when there are
 * several ("file.csv #2 CPU3"). Scopes are perf's -A / --per-core ...
 * labels, "all" for the whole machine. */
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
/* The same over len bytes in memory, named name (derive_run.file). */
int derive_memory(const void *data, size_t len, const char *name, const struct derive_options *o,
		  derive_run_fn fn, void *ctx);

/* ---- The streaming engine ---- */

#include "analysis/metrics.h"
#include "analysis/next_step.h"
#include "analysis/tma.h"

struct roofline_peaks;
struct derive_config {
	const char *cpu;             /* Top-down model id[:width] (td-derive --cpu; checked with
					tma_cpu_option_error first), NULL: detected per set */
	bool counters;               /* sets carry their counters only: no metrics, no tree */
	bool intervals;              /* the callback gets -I input's interval sets too (else they
					are only checked against perf's metrics) */
	bool chart;                  /* the chart callback gets every interval's trees */
	bool one_thread;             /* the callbacks run on the reading thread (a fuzz target:
					no thread per input); the same calls in the same order */
	/* perf's metric definitions (perf_metric_table.h): every tma_* node and
	 * Info metric they give is added to the sets' metrics and trees. From
	 * metrics_file (td-derive --metrics), else from the installed perf for
	 * cpuid (--cpuid), else for the CPU a td-collect header names (quietly
	 * none when perf or its table for that CPU is missing). Each engine
	 * keeps its own tables. */
	const char *metrics_file;
	const char *cpuid;
	bool no_header_metrics;      /* not from a td-collect header's cpuid */
	/* the machine's roofs (roofline.h): a whole-run set with FLOPs and DRAM
	 * traffic also gets roof_attainable_gflops and roof_share, whose
	 * verdict says memory-bound or compute-bound; NULL: the ones the
	 * capture's td-collect headers recorded (derive_header_peaks), if any */
	const struct roofline_peaks *peaks;
};

/* One metric of a set. name, unit, verdict, band, next_step and note are
 * static strings (the same pointer for the same text: a report may key on
 * them); "" where there is none. */
struct derive_value {
	const char *name;            /* "ipc", "branch_miss_rate", ... (td-derive(1) lists them) */
	double value;                /* in unit */
	const char *unit;            /* "", "%", "GHz", "CPUs", ... */
	const char *verdict;         /* "healthy", "ok", "investigate", "not meaningful", "" */
	const char *band;            /* IPC's band: "excellent" ... "critical", else "" */
	double confidence;           /* lowest enabled % of its inputs (100: exact); NaN: not known */
	double variance_pct;         /* perf -r: propagated relative error; NaN: none */
	const char *next_step;       /* the command to run next for this machine, or "" */
	const char *note;            /* "" for tdkit's own; set for a value perf printed */
};

/* One Top-down node of a set's tree, in tree order (parents first). */
struct derive_node {
	const struct tma_node *node; /* name (node->def->name), level, value (share 0..1; NaN: not
					computable), assessment (tma_assessment), on_path, source
					(NULL: tdkit computed it; else perf's or toplev's value) */
	double confidence;           /* lowest enabled % of the set; NaN for a node not computed here */
	const char *next_step;       /* on the bottleneck path: the command to run next; else "" */
};

struct derive_set {
	const struct counter_set *set;  /* the counters: set->c[0 .. set->n - 1] (name, value,
					   enabled_pct, variance_pct) */
	int run;                     /* 0, 1, ...: the perf stat run in input order */
	double interval;             /* -I time stamp (s); < 0: the whole run */
	const char *scope;           /* "all", "CPU3", "S0-D0-C1" ...; "LABEL scope" with several runs */
	const char *pmu;             /* "" for the only core PMU; "cpu_core", "cpu_atom" ... */
	/* the rest is empty with derive_config.counters */
	const struct derive_value *metrics;
	int nmetrics;
	/* whole run: CPUs utilized as perf printed it, where the input has no
	 * wall time to compute it from (note says so); else NULL */
	const struct derive_value *perf_wall_share;
	const struct tma_tree *tree; /* NULL: no Top-down model fits the set's events */
	const struct derive_node *nodes;   /* tree->n of them */
};

struct derive_callbacks {
	void (*set)(void *ctx, const struct derive_set *s);
	/* the input paused (a live perf stat -I): a streaming report shows its rows now; may be NULL */
	void (*pause)(void *ctx);
	/* derive_config.chart: per interval, the tree of each PMU's sets summed over their scopes;
	 * series names the run and PMU ("" for a single run's only PMU) */
	void (*chart)(void *ctx, const char *series, double interval, const struct tma_tree *t);
	void *ctx;
};

struct derive_engine;

struct derive_engine *derive_new(const struct derive_config *c, const struct derive_callbacks *cb);
/* Reads path ("-": stdin); returns the layout found, STAT_AUTO when the
 * file holds no perf stat output. format: STAT_AUTO to detect. */
enum stat_format derive_read(struct derive_engine *e, const char *path, enum stat_format format);
/* The same over len bytes in memory, named name in messages. */
enum stat_format derive_read_memory(struct derive_engine *e, const void *data, size_t len, const char *name,
				    enum stat_format format);
/* The input is complete: the last interval, the whole-run sets, the check
 * of perf's whole-run metrics. With config.cpu, a model that does not fit
 * the capture is reported (exit 2). */
void derive_finish(struct derive_engine *e);
/* The closing warnings about the input itself (only software events, an
 * event printed twice, no perf stat output at all); after the report. */
void derive_warn_input(const struct derive_engine *e);
void derive_free(struct derive_engine *e);

/* The capture as a whole (after derive_finish). */
struct derive_capture {
	const char *command;         /* "" when not printed */
	double elapsed_s;            /* sum of the runs' wall times; NaN: none printed */
	bool several_runs;
	bool has_intervals;
	unsigned long intervals, counters, not_counted, not_supported;
	unsigned long toplev_metrics;   /* node values toplev printed */
	double min_enabled_pct;
};
void derive_capture(const struct derive_engine *e, struct derive_capture *out);
/* After derive_finish: the peaks the capture's td-collect headers recorded
 * and what they are (*source: their peaks_source, "" when not said), or
 * NULL (stat_model_peaks). */
const struct roofline_peaks *derive_header_peaks(const struct derive_engine *e, const char **source);

/* The Top-down trees of the whole-run sets, each with its title ("scope
 * pmu"). per_pmu_if_many: when derive_many_scopes, the sets are summed per
 * PMU first (one tree per run's PMU instead of one per CPU). */
bool derive_many_scopes(const struct derive_engine *e);
void derive_each_tree(const struct derive_engine *e, bool per_pmu_if_many,
		      void (*fn)(void *ctx, const char *title, const struct tma_tree *t), void *ctx);

/* Level 1 of every whole-run set with a tree, sorted by the category that
 * dominates (the highest of the three stall categories), largest first. */
struct derive_scope_level1 {
	const char *scope, *pmu;
	double share[4];             /* retiring, bad_speculation, frontend_bound, backend_bound (0..1) */
	const char *dominant;        /* "" when none of the three is known */
	double dominant_share;       /* its share; -1 with "" */
};
extern const char *const derive_level1_names[4];
/* Returns the count; *out is the caller's to free. */
int derive_scope_table(const struct derive_engine *e, struct derive_scope_level1 **out);

/* One diagnosis per whole-run set (summed per PMU when derive_many_scopes),
 * labelled "scope pmu". Returns the count; *out is the caller's to free. */
struct derive_diagnosis {
	char label[200];
	struct diagnosis d;
};
int derive_diagnoses(const struct derive_engine *e, struct derive_diagnosis **out);

/* The check against perf: every metric perf printed (toplev's nodes aside)
 * is counted once: compared with tdkit's value at perf's printed precision
 * (a disagreement is also a warning on stderr), or not recomputable, with
 * the reason, counted per (metric, reason). */
struct derive_not_recomputable {
	char metric[128], why[256];
	int count;
};
struct derive_perf_check {
	int printed, checked, agree;
	int n;                       /* distinct (metric, reason) */
	int total;                   /* their counts summed */
	const struct derive_not_recomputable *not;
};
void derive_perf_check(const struct derive_engine *e, struct derive_perf_check *out);

/* ---- Runs side by side (td-diff) ----
 *
 * derive_compare_file reads one file and gives, per run, its whole-run sets
 * with their metrics and Top-down tree, as a comparison of runs wants them:
 * the scoped sets (CPUs, cores ...) of a run summed per PMU unless
 * per_scope; a tree from the raw counts, or from the nodes toplev printed
 * (a Top-down value perf printed is not a count: it is left out, so both
 * sides' nodes come from the same formulas). No check against perf, no
 * next steps. */
struct derive_compare_options {
	enum stat_format format;     /* STAT_AUTO: detect */
	bool per_scope;
};

struct derive_compare_set {
	const struct counter_set *set;   /* scope "" when summed; its counters set->c[0 .. n - 1] */
	const struct metric_value *metrics;   /* metrics.h's values, with direction and not_meaningful */
	int nmetrics;
	const struct tma_tree *tree;     /* NULL: none */
};

struct derive_compare_run {
	int index;                   /* 0, 1, ... in the file */
	int repeats;                 /* perf -r N as the run printed it; 0: not said */
	bool variance;               /* a counter of the run carries perf -r's variance */
	const struct derive_compare_set *sets;
	int nsets;
};

struct derive_compare_file {
	bool any;                    /* counters or toplev's values were found */
	int runs;                    /* runs in the file (also when !any) */
	char command[512];           /* the profiled command, "" if not printed */
};

/* fn returns false to be given no more runs. info: the file as a whole. */
void derive_compare_file(const char *path, const struct derive_compare_options *o,
			 bool (*fn)(void *ctx, const struct derive_compare_run *r), void *ctx,
			 struct derive_compare_file *info);

#endif
