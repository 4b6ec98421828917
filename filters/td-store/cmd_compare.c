/* td-store compare: A/B over stored runs, every run each side selects, with
 * td-diff's statistics, thresholds, verdicts and "why" (the same
 * analysis/diff_counters.c fed from the store's rows) and td-diff's report.
 * Exit 1 on a significant regression, as td-diff. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/diff_counters.h"
#include "common/diag.h"
#include "common/opts.h"
#include "common/grow.h"
#include "filters/td-store/verbs.h"
#include "reports/diff_counters_report.h"

#define MAX_SPECS 64

static struct store_filter side_filter[2];
static char side_text[2][512];
static const char *threshold_specs[MAX_SPECS];
static int nthreshold_specs;
static const char *opt_alpha;
static long opt_latest;

static int add_side(int side, const char *arg)
{
	char err[512];
	if (store_filter_add_labels(&side_filter[side], arg, err, sizeof err) < 0) {
		td_error("%s", err);
		return -1;
	}
	size_t used = strlen(side_text[side]);
	snprintf(side_text[side] + used, sizeof side_text[side] - used, "%s%s", used ? "," : "", arg);
	return 0;
}

static int side_a(const char *arg, void *data) { (void)data; return add_side(0, arg); }
static int side_b(const char *arg, void *data) { (void)data; return add_side(1, arg); }

static int add_threshold(const char *arg, void *data)
{
	(void)data;
	if (nthreshold_specs == MAX_SPECS)
		return -1;
	threshold_specs[nthreshold_specs++] = arg;
	return 0;
}

static const struct td_option options[] = {
	{ 0, "a", TD_OPT_CALLBACK, NULL, "FILTER", "side A: the runs with these labels (k=v[,k=v...], as list --label)", side_a },
	{ 0, "b", TD_OPT_CALLBACK, NULL, "FILTER", "side B, the candidate", side_b },
	{ 0, "latest", TD_OPT_INT, &opt_latest, "N", "the newest N runs of each side (default: all)", NULL },
	{ 0, "threshold", TD_OPT_CALLBACK, NULL, "NAME=+P%", "a threshold of td-diff's, changed (repeatable)", add_threshold },
	{ 0, "alpha", TD_OPT_STRING, &opt_alpha, "P", "significance level of Welch's test (default 0.05)", NULL },
	VERB_FORMAT_OPTIONS,
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store compare", "--a FILTER --b FILTER [options] | RUN_A RUN_B",
	"A/B over stored runs with td-diff's statistics and verdicts; exit 1 on a significant regression.",
	options,
	"Reads no file: the runs come from the store --db names (default: $TD_DB, else ~/.local/share/tdkit/runs.db).",
};

struct side_runs {
	char (*id)[STORE_ID_LEN];
	size_t n, cap;
};

static void collect(void *ctx, const char *id, const char *time, const char *summary)
{
	(void)time;
	(void)summary;
	struct side_runs *r = ctx;
	TD_ALLOC_GROW(r->id, r->n + 1, r->cap);
	snprintf(r->id[r->n++], STORE_ID_LEN, "%s", id);
}

/* Units outlive the rows they came in: kept once each. */
static const char *unit_of(const char *u)
{
	static char *units[256];
	static int n;
	if (!u)
		return "";
	for (int i = 0; i < n; i++)
		if (!strcmp(units[i], u))
			return units[i];
	if (n == 256)
		return "";
	return units[n++] = td_strndup(u, strlen(u));
}

struct feed {
	struct diff_counters *d;
	int side;
};

static void quantity_name(char *buf, size_t cap, const char *pmu, const char *name)
{
	snprintf(buf, cap, "%s%s%s", pmu ? pmu : "", pmu && *pmu ? "/" : "", name);
}

static double cell(const char *s) { return s ? strtod(s, NULL) : NAN; }

/* pmu, name, value, enabled_pct, variance_pct */
static int counter_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct feed *f = ctx;
	if (n < 5)
		return 0;
	char name[256];
	quantity_name(name, sizeof name, cols[0], cols[1]);
	diff_counters_add_value(f->d, f->side, name, false, 0, "", 0, cell(cols[2]), cell(cols[4]), cell(cols[3]), false);
	return 0;
}

/* pmu, name, value, unit, better, level, verdict, confidence, variance_pct */
static int metric_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct feed *f = ctx;
	if (n < 9)
		return 0;
	char name[256];
	quantity_name(name, sizeof name, cols[0], cols[1]);
	int better = cols[4] && !strcmp(cols[4], "higher") ? 1 : cols[4] && !strcmp(cols[4], "lower") ? -1 : 0;
	int level = cols[5] ? atoi(cols[5]) : 0;
	bool not_meaningful = cols[6] && !strcmp(cols[6], "not meaningful");
	diff_counters_add_value(f->d, f->side, name, true, level, unit_of(cols[3]), better, cell(cols[2]),
				cell(cols[8]), cell(cols[7]), not_meaningful);
	return 0;
}

/* Every run of a side into d, in two queries (counters, then metrics and
 * nodes): the whole machine's rows ("all") of the runs the side's filter
 * (or its one run id) selects, the newest --latest of them. */
static void feed_side(struct td_store *s, struct diff_counters *d, int side, const struct side_runs *r, bool by_filter)
{
	for (size_t i = 0; i < r->n; i++)
		diff_counters_next_run(d, side);
	static const char *const what[2] = {
		"SELECT x.pmu, x.name, x.value, x.enabled_pct, x.variance_pct FROM counters x",
		"SELECT x.pmu, x.name, x.value, x.unit, x.better, x.level, x.verdict, x.confidence, x.variance_pct FROM metrics x",
	};
	for (int k = 0; k < 2; k++) {
		struct verb_sql q;
		verb_sql_start(&q, what[k]);
		verb_sql_add(&q, " WHERE x.scope = 'all' AND x.interval_s IS NULL AND x.run_id IN (SELECT r.id FROM runs r WHERE 1 = 1");
		if (by_filter) {
			verb_sql_filter(&q, s, &side_filter[side]);
		} else {
			verb_sql_add(&q, " AND r.id = ?");
			verb_sql_param(&q, SV_STR(r->id[0]));
		}
		if (opt_latest > 0) {
			verb_sql_add(&q, " ORDER BY r.time DESC, r.seq DESC LIMIT ?");
			verb_sql_param(&q, SV_I(opt_latest));
		}
		verb_sql_add(&q, ") ORDER BY x.run_id, x.ord");
		struct feed f = { d, side };
		verb_sql_run(s, &q, k ? metric_row : counter_row, &f);
	}
}

int cmd_compare(int argc, char **argv)
{
	int n = verb_start(&cmd, argc, argv, VERB_OPERANDS);
	bool by_filter = side_filter[0].n || side_filter[1].n;
	if (by_filter && (n || !side_filter[0].n || !side_filter[1].n))
		td_usage_error(&cmd, "give --a FILTER and --b FILTER, or two run ids");
	if (!by_filter && n != 2)
		td_usage_error(&cmd, "give --a FILTER and --b FILTER, or two run ids");
	double alpha = 0.05;
	if (opt_alpha) {
		char *end;
		alpha = strtod(opt_alpha, &end);
		if (end == opt_alpha || *end || !(alpha > 0 && alpha < 1))
			td_usage_error(&cmd, "--alpha: a probability between 0 and 1");
	}
	if (opt_latest < 0)
		td_usage_error(&cmd, "--latest: a count of runs, 1 or more");
	struct diff_counters *d = diff_counters_new(false);
	diff_counters_default_thresholds(d);
	for (int i = 0; i < nthreshold_specs; i++)
		if (!diff_counters_set_threshold(d, threshold_specs[i]))
			td_usage_error(&cmd, "--threshold wants NAME=+P%% or NAME=-P%%, not '%s'", threshold_specs[i]);
	struct td_store *s = verb_open();
	struct side_runs runs[2] = { 0 };
	char names[2][600];
	for (int side = 0; side < 2; side++) {
		if (by_filter) {
			if (verb_select_filtered(s, &side_filter[side], opt_latest, collect, &runs[side]) < 0)
				verb_store_failed(s);
			snprintf(names[side], sizeof names[side], "%s", side_text[side]);
		} else {
			if (verb_run_exists(s, argv[side]))
				collect(&runs[side], argv[side], NULL, NULL);
			snprintf(names[side], sizeof names[side], "%s", argv[side]);
		}
		if (runs[side].n == 0) {
			td_error("side %c (%s): no run selected", 'A' + side, by_filter ? side_text[side] : argv[side]);
			diff_counters_free(d);
			free(runs[0].id);
			free(runs[1].id);
			store_close(s);
			return TD_EXIT_BAD;
		}
		feed_side(s, d, side, &runs[side], by_filter);
	}
	const struct dc_result *res;
	int nres = diff_counters_compare(d, alpha, &res);
	int result = TD_EXIT_OK;
	if (nres == 0) {
		td_error("the two sides have no counter, metric or node in common: nothing to compare");
		result = TD_EXIT_BAD;
	} else {
		struct dc_report rep = { names[0], names[1], alpha, d, res, nres };
		dc_report_write(&rep, stdout, td_pick_format(verb_csv, verb_json, verb_markdown));
		for (int i = 0; i < nres; i++)
			if (!strcmp(res[i].verdict, "regression"))
				result = TD_EXIT_FOUND;
	}
	diff_counters_free(d);
	free(runs[0].id);
	free(runs[1].id);
	store_close(s);
	return td_exit_code(result);
}
