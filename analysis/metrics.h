/* Derived metrics over one set of counters (one interval, scope and PMU):
 * IPC, CPI, branch, cache and TLB rates, misses per 1,000 instructions,
 * ARM stall shares, GHz, CPU utilisation, events per second, RAPL power,
 * each with the seed thresholds' verdict, a multiplexing confidence and
 * the next command to run. Formulas live in tables (metrics.c), one row per
 * metric with its alternatives per vendor; every shadow metric perf 6.1
 * prints has a row with perf's definition, so perf's value can be checked. */
#ifndef TD_METRICS_H
#define TD_METRICS_H

#include <stdbool.h>
#include <stddef.h>

struct counter {
	char name[96];           /* canonical (events.h) */
	const char *name_id;     /* NULL, or the caller's one copy of name: same pointer, same name */
	double value;            /* NaN: not counted / not supported */
	double enabled_pct;      /* lowest seen */
	double variance_pct;     /* -r: relative error of the mean, NaN if none */
	int copies;              /* times perf printed it in one set (metric groups) */
	unsigned group;          /* the printed group of the first copy */
	double copy_value[4];    /* the first copies as printed, for group-local formulas */
	unsigned copy_group[4];
};

struct counter_set {
	int session;             /* which perf stat run of the file (0, 1, ...) */
	double interval;         /* < 0: whole run */
	char scope[64];
	char pmu[64];
	unsigned key;            /* the model's lookup key (interval sets) */
	bool topdown_events;     /* a counter's name has a Top-down mark (event_has_topdown_mark) */
	int n, cap;
	struct counter *c;
	int kept;                /* after counter_set_reset, while the counters added are the ones
				    before in the same order: c[n] ... c[kept - 1] are the rest of them */
};

void counter_set_init(struct counter_set *s, double interval, const char *scope, const char *pmu);
/* Empties the set for reuse, keeping its storage. */
void counter_set_reset(struct counter_set *s, double interval, const char *scope, const char *pmu);
/* The same, the scope and PMU kept too. */
void counter_set_empty(struct counter_set *s, double interval);
void counter_set_free(struct counter_set *s);
/* Adds every counter of from into into (sums; variance dropped). */
void counter_set_merge(struct counter_set *into, const struct counter_set *from);
/* Adds (sums) a counter; a missing value makes the sum missing. */
void counter_set_add(struct counter_set *s, const char *name, double value, double enabled_pct, double variance_pct);
const struct counter *counter_set_get(const struct counter_set *s, const char *name);
/* The lowest enabled % of the counters that have a value: what anything
 * computed from the whole set can claim as its confidence (100: exact). */
double counter_set_lowest_enabled(const struct counter_set *s);
/* The same event printed again in one set (each metric group gets its own
 * multiplexed copy): the copies are averaged. Returns the copies so far. */
int counter_set_add_copy(struct counter_set *s, const char *name, double value, double enabled_pct, double variance_pct,
			 unsigned group);
/* The same, telling where the counter is in s->c. */
int counter_set_add_copy_at(struct counter_set *s, const char *name, double value, double enabled_pct,
			    double variance_pct, unsigned group, int *at);
/* The same, the caller telling strlen(name) and whether name has a Top-down
 * mark (it asked event_has_topdown_mark once for the name). name is the
 * caller's one copy of the name (interned), alive as long as the set: its
 * address tells counters apart where a compare of names would. */
int counter_set_add_copy_marked(struct counter_set *s, const char *name, size_t len, bool topdown_mark, double value,
				double enabled_pct, double variance_pct, unsigned group, int *at);
/* The copy of name printed in the same group as the event near (else the
 * nearest group): perf computes a group's metric from its own copy. */
double counter_set_near(const struct counter_set *s, const char *name, const char *near);

/* Its strings are literals: they never change and live as long as the program. */
struct metric_value {
	const char *name;        /* "ipc", "branch_miss_rate", ... */
	double value;
	const char *unit;        /* "", "%", "GHz", "CPUs", "s" */
	const char *verdict;     /* "healthy", "ok", "investigate", "not meaningful", or "" */
	const char *band;        /* IPC band: excellent ... critical, else "" */
	double confidence;       /* lowest enabled % of the inputs (100 = exact) */
	double variance_pct;     /* propagated relative error, NaN if none */
	const char *next_step;   /* a command, or "" */
	bool higher_is_better;
	bool has_direction;
	bool not_meaningful;     /* a ratio over fewer than 100 events: shown, not judged */
	double rounding;         /* relative error the inputs' printed digits allow (counts to
				    the unit, clocks to 10 us), for comparing with perf */
	const char *input[2];    /* the counters' names it was computed from, NULL where none;
				    valid while the counter set is */
};

#define METRICS_MAX 64           /* metrics one set can have */
/* The next steps that depend on the machine (next_step.h gives each
 * vendor's form): a metric_value's next_step is one of these pointers. */
extern const char metrics_next_topdown[], metrics_next_branches[];

/* elapsed_s: wall time of the set (NaN when unknown); perf: as for
 * metrics_compute_planned below. Returns the count. */
struct perf_metric_table;
int metrics_compute(const struct counter_set *s, double elapsed_s, const struct perf_metric_table *perf,
		    struct metric_value *out, int max);

/* Which counters feed which metric, found by name once for a list of
 * counter names and reused while a set (the same scope in every interval)
 * has the same names in the same order: metrics_compute without its name
 * lookups, with the same result. */
struct metrics_plan;
struct metrics_plan *metrics_plan_new(void);
void metrics_plan_free(struct metrics_plan *p);
/* Makes p fit s: kept when s has p's names, else rebuilt. */
void metrics_plan_update(struct metrics_plan *p, const struct counter_set *s);
/* perf: the capture CPU's metric definitions (perf_metric_table.h); each
 * of its metrics the set's events give, that is no Top-down node and no
 * metric of tdkit's own, comes after tdkit's (NULL: none). */
struct perf_metric_table;
int metrics_compute_planned(const struct metrics_plan *p, const struct counter_set *s, double elapsed_s,
			    const struct perf_metric_table *perf, struct metric_value *out, int max);

/* The metric a perf-printed unit corresponds to ("insn per cycle" -> "ipc"),
 * and the factor from tdkit's value to perf's (e.g. 1 for %). NULL if none.
 * METRICS_EVENT_RATE: perf's "/sec" column, the rate of the event the
 * metric was printed with (metrics_event_rate). */
const char *metrics_for_perf_unit(const char *unit, double *factor);
#define METRICS_EVENT_RATE "event_per_s"

/* event per second of clock (task-clock or cpu-clock, in ms), as perf's
 * "/sec": false when either is missing or the clock is 0. */
bool metrics_event_rate(const struct counter *event, const struct counter *clock, struct metric_value *out);

/* Why metric name cannot be computed from s, in words: "l1-icache-loads",
 * "cycles (not counted) and task-clock"; "" when nothing is missing. */
const char *metrics_missing(const struct counter_set *s, const char *name, char *buf, size_t cap);

/* Metric names, for the man page and tests. */
const char *const *metrics_names(void);

#endif
