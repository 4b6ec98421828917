/* td-store trend: one counter, metric or Top-down node over the selected
 * runs in time order, with rolling statistics, anomalies and change points
 * (analysis/trend.h); exit 1 when the newest run is an anomaly or a step
 * shows among the newest runs: a CI gate. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/diff_counters.h"
#include "analysis/tma_explain.h"
#include "analysis/trend.h"
#include "common/diag.h"
#include "common/opts.h"
#include "common/grow.h"
#include "filters/td-store/verbs.h"
#include "reports/table.h"
#include "reports/trend_svg.h"

#define MAX_CHANGES 64

static const char *opt_metric, *opt_svg, *opt_z, *opt_threshold, *opt_alpha;
static long opt_window, opt_min_runs = 5, opt_min_segment;

static const struct td_option options[] = {
	{ 0, "metric", TD_OPT_STRING, &opt_metric, "NAME", "the counter, metric or Top-down node to follow", NULL },
	VERB_FILTER_OPTIONS,
	{ 0, "window", TD_OPT_INT, &opt_window, "N", "runs in the rolling mean (default 10)", NULL },
	{ 0, "z", TD_OPT_STRING, &opt_z, "Z", "an anomaly is |z| at or above Z (default 3)", NULL },
	{ 0, "threshold", TD_OPT_STRING, &opt_threshold, "PCT", "... and a move of at least PCT % from the mean; a step too (default: td-diff's threshold of the metric, a node 2 points, else 2)", NULL },
	{ 0, "alpha", TD_OPT_STRING, &opt_alpha, "P", "a step's p-value is below P (default 0.001)", NULL },
	{ 0, "min-segment", TD_OPT_INT, &opt_min_segment, "N", "runs on each side of a step at least (default 5)", NULL },
	{ 0, "min-runs", TD_OPT_INT, &opt_min_runs, "N", "fewer runs than N is a usage error (default 5)", NULL },
	{ 0, "svg", TD_OPT_STRING, &opt_svg, "FILE", "also draw the series, its band, anomalies and steps", NULL },
	VERB_FORMAT_OPTIONS,
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store trend", "--metric NAME [filters] [--window N] [--z Z] [--svg FILE] [--csv|--json]",
	"A metric's history over the selected runs: rolling mean, anomalies, change points; exit 1 on a new one.",
	options,
	"Reads no file: the runs come from the store --db names (default: $TD_DB, else ~/.local/share/tdkit/runs.db).",
};

struct series {
	char (*id)[STORE_ID_LEN];
	char (*time)[32];
	double *value;
	size_t n, cap;
	char unit[32];
};

/* id, time, value, unit: the first row of each run (runs come in order). */
static int series_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct series *s = ctx;
	if (n < 4 || (s->n && !strcmp(s->id[s->n - 1], cols[0])))
		return 0;
	if (s->n == s->cap) {
		size_t cap = td_alloc_nr(s->cap, (size_t)s->n + 1, sizeof *s->id);
		s->id = td_realloc_array(s->id, cap, sizeof *s->id);
		s->time = td_realloc_array(s->time, cap, sizeof *s->time);
		s->value = td_realloc_array(s->value, cap, sizeof *s->value);
		TD_SET_CAP(s->cap, cap);
	}
	snprintf(s->id[s->n], STORE_ID_LEN, "%s", cols[0]);
	snprintf(s->time[s->n], 32, "%s", cols[1]);
	s->value[s->n] = cols[2] ? strtod(cols[2], NULL) : NAN;
	if (cols[3])
		snprintf(s->unit, sizeof s->unit, "%s", cols[3]);
	s->n++;
	return 0;
}

/* The series from the metrics (and nodes), else from the counters: the
 * whole machine's row ("all") first where a run has several scopes. */
static void load_series(struct td_store *st, const char *name, struct series *s)
{
	static const char *const from[2] = {
		"SELECT r.id, r.time, m.value, m.unit FROM metrics m JOIN runs r ON r.id = m.run_id WHERE m.name = ?"
		" AND m.interval_s IS NULL",
		"SELECT r.id, r.time, m.value, '' FROM counters m JOIN runs r ON r.id = m.run_id WHERE m.name = ?"
		" AND m.interval_s IS NULL",
	};
	for (int k = 0; k < 2 && s->n == 0; k++) {
		struct verb_sql q;
		verb_sql_start(&q, from[k]);
		verb_sql_param(&q, SV_STR(name));
		verb_sql_filter(&q, st, &verb_filter);
		verb_sql_add(&q, " ORDER BY r.time, r.seq, CASE WHEN m.scope = 'all' THEN 0 ELSE 1 END, m.ord");
		verb_sql_run(st, &q, series_row, s);
	}
}

static double number_option(const char *arg, const char *name, double fallback)
{
	if (!arg)
		return fallback;
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v >= 0))
		td_usage_error(&cmd, "%s: '%s' is not a number of 0 or more", name, arg);
	return v;
}

static void write_json(const char *name, const struct series *s, const struct trend_point *p,
		       const struct trend_change *c, size_t nc)
{
	printf("{\"metric\": ");
	td_json_string(stdout, name);
	printf(", \"points\": [");
	for (size_t i = 0; i < s->n; i++) {
		printf("%s\n  {\"id\": ", i ? "," : "");
		td_json_string(stdout, s->id[i]);
		printf(", \"time\": ");
		td_json_string(stdout, s->time[i]);
		double v[4] = { p[i].value, p[i].mean, p[i].stddev, p[i].z };
		const char *k[4] = { "value", "mean", "stddev", "z" };
		for (int j = 0; j < 4; j++)
			isfinite(v[j]) ? printf(", \"%s\": %.9g", k[j], v[j]) : printf(", \"%s\": null", k[j]);
		printf(", \"anomaly\": %s}", p[i].anomaly ? "true" : "false");
	}
	printf("%s], \"changes\": [", s->n ? "\n" : "");
	for (size_t i = 0; i < nc; i++) {
		printf("%s\n  {\"id\": ", i ? "," : "");
		td_json_string(stdout, s->id[c[i].at]);
		printf(", \"before\": %.9g, \"after\": %.9g, \"delta_pct\": %.4f, \"p_value\": %.3g}", c[i].before,
		       c[i].after, c[i].delta_pct, c[i].p_value);
	}
	printf("%s]}\n", nc ? "\n" : "");
}

enum { T_ID, T_TIME, T_VALUE, T_MEAN, T_SD, T_Z, T_ANOMALY, T_CHANGE, NTCOLS };
static const struct td_column columns[NTCOLS] = {
	{ "id", TD_COL_STR, 0 }, { "time", TD_COL_STR, 0 }, { "value", TD_COL_NUM, 4 }, { "mean", TD_COL_NUM, 4 },
	{ "stddev", TD_COL_NUM, 4 }, { "z", TD_COL_NUM, 2 }, { "anomaly", TD_COL_STR, 0 }, { "change", TD_COL_STR, 0 },
};

static void write_table(const struct series *s, const struct trend_point *p, const struct trend_change *c, size_t nc,
			enum td_format fmt)
{
	struct td_table *t = td_table_new(columns, NTCOLS);
	for (size_t i = 0; i < s->n; i++) {
		td_table_row(t);
		td_table_str(t, T_ID, s->id[i]);
		td_table_str(t, T_TIME, s->time[i]);
		td_table_num(t, T_VALUE, p[i].value);
		td_table_num(t, T_MEAN, p[i].mean);
		td_table_num(t, T_SD, p[i].stddev);
		td_table_num(t, T_Z, p[i].z);
		td_table_str(t, T_ANOMALY, p[i].anomaly ? "anomaly" : "");
		for (size_t k = 0; k < nc; k++)
			if (c[k].at == i) {
				char step[96];
				snprintf(step, sizeof step, "step %+.2f%% (%.6g -> %.6g, p %.2g)", c[k].delta_pct, c[k].before,
					 c[k].after, c[k].p_value);
				td_table_str(t, T_CHANGE, step);
			}
	}
	td_table_write(t, stdout, fmt);
	td_table_free(t);
}

int cmd_trend(int argc, char **argv)
{
	verb_start(&cmd, argc, argv, VERB_SELECTS_RUNS);
	if (!opt_metric)
		td_usage_error(&cmd, "--metric NAME: which counter, metric or node to follow");
	struct trend_options o;
	trend_options_default(&o);
	if (opt_window)
		o.window = (int)opt_window;
	o.z = number_option(opt_z, "--z", o.z);
	o.threshold_pct = number_option(opt_threshold, "--threshold", o.threshold_pct);
	o.alpha = number_option(opt_alpha, "--alpha", o.alpha);
	if (opt_min_segment)
		o.min_segment = (int)opt_min_segment;
	if (opt_window < 0 || opt_min_segment < 0 || opt_min_runs < 2)
		td_usage_error(&cmd, "--window, --min-segment: 1 or more; --min-runs: 2 or more");
	const struct tma_explanation *e = tma_explain(opt_metric);
	const char *name = e ? e->node : opt_metric;
	/* td-diff's threshold of the metric unless --threshold: a Top-down
	 * node moves by 2 points, task-clock by 5 %, ...; others by 2 % */
	if (!opt_threshold) {
		double known = diff_counters_default_threshold(name);
		if (e)
			o.threshold_abs = 2;
		else if (!isnan(known))
			o.threshold_pct = fabs(known);
	}
	struct td_store *st = verb_open();
	struct series s = { 0 };
	load_series(st, name, &s);
	if (s.n < (size_t)opt_min_runs) {
		td_error("--metric %s: %zu run%s selected, trend needs at least %ld (--min-runs)", name, s.n,
			 s.n == 1 ? "" : "s", opt_min_runs);
		free(s.id);
		free(s.time);
		free(s.value);
		store_close(st);
		return TD_EXIT_BAD;
	}
	struct trend_point *p = td_malloc(s.n * sizeof *p);
	trend_points(s.value, s.n, &o, p);
	struct trend_change changes[MAX_CHANGES];
	size_t nc = trend_changes(s.value, s.n, &o, changes, MAX_CHANGES);
	if (verb_json)
		write_json(name, &s, p, changes, nc);
	else
		write_table(&s, p, changes, nc, td_pick_format(verb_csv, false, verb_markdown));
	if (opt_svg) {
		FILE *f = fopen(opt_svg, "w");
		if (!f)
			td_die("%s: cannot write: %s", opt_svg, strerror(errno));
		char title[256];
		snprintf(title, sizeof title, "%s over %zu runs", name, s.n);
		struct trend_chart c = { title, s.unit, s.time[0], s.time[s.n - 1], p, s.n, changes, nc };
		trend_svg_write(f, &c);
		if (fclose(f))
			td_die("%s: cannot write: %s", opt_svg, strerror(errno));
	}
	/* the gate: the newest run is an anomaly, or a step became visible with
	 * the newest runs (a step needs min_segment runs after it to be seen) */
	bool newest_anomaly = p[s.n - 1].anomaly;
	bool new_step = nc && changes[nc - 1].at + (size_t)o.min_segment >= s.n;
	if (newest_anomaly)
		fprintf(stderr, "td-store: %s: the newest run (%s) is an anomaly: %.6g against a mean of %.6g (z %.1f)\n",
			name, s.id[s.n - 1], p[s.n - 1].value, p[s.n - 1].mean, p[s.n - 1].z);
	if (new_step)
		fprintf(stderr, "td-store: %s: a step of %+.2f%% starts at run %s (%.6g -> %.6g, p %.2g)\n", name,
			changes[nc - 1].delta_pct, s.id[changes[nc - 1].at], changes[nc - 1].before, changes[nc - 1].after,
			changes[nc - 1].p_value);
	free(p);
	free(s.id);
	free(s.time);
	free(s.value);
	store_filter_free(&verb_filter);
	store_close(st);
	return td_exit_code(newest_anomaly || new_step ? TD_EXIT_FOUND : TD_EXIT_OK);
}
