/* td-store query: questions over the runs a filter selects.
 *   --bottlenecks   Top-down nodes ranked by mean share, with spread and
 *                   how many runs have each on the bottleneck path
 *   --node N --min P   runs where node N is at least P %
 *   --metric M [--min X] [--max Y]   runs where metric M is in range
 *   --funnel        where the slots go, averaged over the runs */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/tma_explain.h"
#include "common/diag.h"
#include "common/opts.h"
#include "common/grow.h"
#include "filters/td-store/nodes.h"
#include "filters/td-store/verbs.h"
#include "reports/table.h"

static bool opt_bottlenecks, opt_funnel;
static const char *opt_node, *opt_metric, *opt_min, *opt_max;
static long opt_top;

static const struct td_option options[] = {
	{ 0, "bottlenecks", TD_OPT_FLAG, &opt_bottlenecks, NULL, "Top-down nodes ranked by mean share over the runs", NULL },
	{ 0, "top", TD_OPT_INT, &opt_top, "N", "--bottlenecks: the first N nodes", NULL },
	{ 0, "node", TD_OPT_STRING, &opt_node, "NAME", "runs by a Top-down node (any vendor's name, as td-explain)", NULL },
	{ 0, "metric", TD_OPT_STRING, &opt_metric, "NAME", "runs by a metric (ipc, branch_miss_rate, ...)", NULL },
	{ 0, "min", TD_OPT_STRING, &opt_min, "X", "--node/--metric: at least X (a node in %)", NULL },
	{ 0, "max", TD_OPT_STRING, &opt_max, "Y", "--node/--metric: at most Y", NULL },
	{ 0, "funnel", TD_OPT_FLAG, &opt_funnel, NULL, "where the pipeline slots go, averaged over the runs", NULL },
	VERB_FILTER_OPTIONS,
	VERB_FORMAT_OPTIONS,
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store query", "(--bottlenecks | --node NAME --min PCT | --metric NAME [--min X] [--max Y] | --funnel) [filters]",
	"Questions over the stored runs a label filter selects.",
	options,
	"Reads no file: the runs come from the store --db names (default: $TD_DB, else ~/.local/share/tdkit/runs.db).",
};

static long count_runs(struct td_store *s)
{
	long n = verb_select_runs(s, 0, NULL, NULL);
	if (n < 0)
		verb_store_failed(s);
	return n;
}

enum { R_ID, R_TIME, R_NAME, R_VALUE, R_UNIT, R_SCOPE, R_PMU, NRCOLS };
static const struct td_column run_cols[NRCOLS] = {
	{ "id", TD_COL_STR, 0 }, { "time", TD_COL_STR, 0 }, { "name", TD_COL_STR, 0 }, { "value", TD_COL_NUM, 3 },
	{ "unit", TD_COL_STR, 0 }, { "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 },
};

static int run_value_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct td_table *t = ctx;
	if (n < NRCOLS)
		return 0;
	td_table_row(t);
	for (int i = 0; i < NRCOLS; i++) {
		if (i == R_VALUE)
			td_table_num(t, i, cols[i] ? strtod(cols[i], NULL) : NAN);
		else
			td_table_str(t, i, cols[i]);
	}
	return 0;
}

static double bound(const char *arg, const char *opt)
{
	char *end;
	double v = arg ? strtod(arg, &end) : NAN;
	if (arg && (end == arg || *end))
		td_usage_error(&cmd, "%s: '%s' is not a number", opt, arg);
	return v;
}

/* Runs where a node (level > 0) or a metric (level 0) is within [min, max]. */
static struct td_table *runs_by_value(struct td_store *s, const char *name, bool node)
{
	struct verb_sql q;
	verb_sql_start(&q, "SELECT r.id, r.time, m.name, m.value, m.unit, m.scope, m.pmu FROM metrics m JOIN runs r"
			   " ON r.id = m.run_id WHERE m.name = ? AND m.interval_s IS NULL");
	verb_sql_add(&q, node ? " AND m.level > 0" : " AND m.level = 0");
	verb_sql_param(&q, SV_STR(name));
	double lo = bound(opt_min, "--min"), hi = bound(opt_max, "--max");
	if (!isnan(lo)) {
		verb_sql_add(&q, " AND m.value >= ?");
		verb_sql_param(&q, SV_D(lo));
	}
	if (!isnan(hi)) {
		verb_sql_add(&q, " AND m.value <= ?");
		verb_sql_param(&q, SV_D(hi));
	}
	verb_sql_filter(&q, s, &verb_filter);
	verb_sql_add(&q, " ORDER BY m.value DESC, r.time DESC, r.seq DESC");
	struct td_table *t = td_table_new(run_cols, NRCOLS);
	verb_sql_run(s, &q, run_value_row, t);
	return t;
}

int cmd_query(int argc, char **argv)
{
	verb_start(&cmd, argc, argv, VERB_SELECTS_RUNS);
	int asked = opt_bottlenecks + opt_funnel + !!opt_node + !!opt_metric;
	if (asked != 1)
		td_usage_error(&cmd, "ask one question: --bottlenecks, --node, --metric or --funnel");
	if (opt_node && !opt_min && !opt_max)
		td_usage_error(&cmd, "--node needs --min PCT (or --max)");
	const char *node = opt_node;
	if (node) {
		const struct tma_explanation *e = tma_explain(node);
		if (!e)
			td_usage_error(&cmd, "--node: '%s' is no Top-down node tdkit knows (see td-explain --list)", node);
		node = e->node;
	}
	struct td_store *s = verb_open();
	struct td_table *t;
	if (opt_bottlenecks || opt_funnel) {
		struct nodes ns = { 0 };
		struct verb_sql q;
		verb_sql_start(&q, NODES_SELECT " JOIN runs r ON r.id = m.run_id WHERE m.level > 0 AND m.interval_s IS NULL");
		verb_sql_filter(&q, s, &verb_filter);
		verb_sql_add(&q, " ORDER BY r.time, r.seq, m.ord");
		nodes_load(s, &q, &ns);
		if (ns.n == 0)
			td_warn(NULL, 0, "no Top-down node in the %ld runs selected", count_runs(s));
		t = opt_bottlenecks ? nodes_bottlenecks(&ns, opt_top) : nodes_funnel(&ns);
		free(ns.s);
	} else {
		t = runs_by_value(s, node ? node : opt_metric, node != NULL);
	}
	td_table_write(t, stdout, td_pick_format(verb_csv, verb_json, verb_markdown));
	td_table_free(t);
	store_filter_free(&verb_filter);
	store_close(s);
	return td_exit_code(TD_EXIT_OK);
}
