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

/* One node's values over the runs. */
struct node_stats {
	char name[64];
	int level;
	double sum, sumsq;
	long n, on_path, high;
	char last_run[STORE_ID_LEN], last_path_run[STORE_ID_LEN];
	long runs;
};

struct nodes {
	struct node_stats *s;
	int n, cap;
};

static struct node_stats *node_of(struct nodes *ns, const char *name, int level)
{
	for (int i = 0; i < ns->n; i++)
		if (!strcmp(ns->s[i].name, name))
			return &ns->s[i];
	TD_ALLOC_GROW(ns->s, ns->n + 1, ns->cap);
	struct node_stats *s = &ns->s[ns->n++];
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	s->level = level;
	return s;
}

/* run_id, name, level, value, on_path, verdict */
static int node_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	if (n < 6 || !cols[3])
		return 0;
	struct node_stats *s = node_of(ctx, cols[1], atoi(cols[2]));
	double v = strtod(cols[3], NULL);
	s->sum += v;
	s->sumsq += v * v;
	s->n++;
	if (strcmp(s->last_run, cols[0])) {
		snprintf(s->last_run, sizeof s->last_run, "%s", cols[0]);
		s->runs++;
		s->high += cols[5] && !strcmp(cols[5], "high");
	}
	if (cols[4] && atoi(cols[4]) && strcmp(s->last_path_run, cols[0])) {
		snprintf(s->last_path_run, sizeof s->last_path_run, "%s", cols[0]);
		s->on_path++;
	}
	return 0;
}

static double mean_of(const struct node_stats *s) { return s->n ? s->sum / (double)s->n : NAN; }
static double sd_of(const struct node_stats *s)
{
	if (s->n < 2)
		return NAN;
	double m = mean_of(s), var = (s->sumsq - (double)s->n * m * m) / (double)(s->n - 1);
	return var > 0 ? sqrt(var) : 0;
}

static int by_mean(const void *a, const void *b)
{
	double x = mean_of(a), y = mean_of(b);
	const struct node_stats *p = a, *q = b;
	if (p->level != q->level)
		return p->level - q->level;
	return x < y ? 1 : x > y ? -1 : strcmp(p->name, q->name);
}

static void load_nodes(struct td_store *s, struct nodes *ns)
{
	char sql[8192] = "SELECT m.run_id, m.name, m.level, m.value, m.on_path, m.verdict FROM metrics m"
			 " JOIN runs r ON r.id = m.run_id WHERE m.level > 0";
	struct store_value params[64];
	int np = 0;
	store_filter_sql(&verb_filter, s->b->dialect, sql, sizeof sql - 64, params, &np, 63);
	size_t used = strlen(sql);
	snprintf(sql + used, sizeof sql - used, " ORDER BY r.time, r.seq, m.ord");
	if (s->b->ops->exec(s->b, sql, params, np, node_row, ns) < 0)
		verb_store_failed(s);
}

static long count_runs(struct td_store *s)
{
	long n = verb_select_runs(s, 0, NULL, NULL);
	if (n < 0)
		verb_store_failed(s);
	return n;
}

enum { B_NODE, B_LEVEL, B_MEAN, B_SD, B_RUNS, B_PATH, B_HIGH, NBCOLS };
static const struct td_column bottleneck_cols[NBCOLS] = {
	{ "node", TD_COL_STR, 0 }, { "level", TD_COL_INT, 0 }, { "mean_pct", TD_COL_NUM, 1 },
	{ "sd_pct", TD_COL_NUM, 1 }, { "runs", TD_COL_INT, 0 }, { "on_path_runs", TD_COL_INT, 0 },
	{ "high_runs", TD_COL_INT, 0 },
};

/* Ranked by mean share, whatever the level. */
static int by_share(const void *a, const void *b)
{
	const struct node_stats *p = a, *q = b;
	double x = mean_of(p), y = mean_of(q);
	return x < y ? 1 : x > y ? -1 : strcmp(p->name, q->name);
}

static struct td_table *bottlenecks(struct nodes *ns)
{
	qsort(ns->s, (size_t)ns->n, sizeof *ns->s, by_share);
	struct td_table *t = td_table_new(bottleneck_cols, NBCOLS);
	for (int i = 0; i < ns->n && (opt_top <= 0 || i < opt_top); i++) {
		const struct node_stats *s = &ns->s[i];
		td_table_row(t);
		td_table_str(t, B_NODE, s->name);
		td_table_int(t, B_LEVEL, s->level);
		td_table_num(t, B_MEAN, mean_of(s));
		td_table_num(t, B_SD, sd_of(s));
		td_table_int(t, B_RUNS, s->runs);
		td_table_int(t, B_PATH, s->on_path);
		td_table_int(t, B_HIGH, s->high);
	}
	return t;
}

enum { F_NODE, F_LEVEL, F_MEAN, F_KIND, F_MARK, NFCOLS };
static const struct td_column funnel_cols[NFCOLS] = {
	{ "node", TD_COL_STR, 0 }, { "level", TD_COL_INT, 0 }, { "mean_pct", TD_COL_NUM, 1 },
	{ "kind", TD_COL_STR, 0 }, { "mark", TD_COL_STR, 0 },
};

/* Levels 1 and 2: retiring is useful work, every other node waste; a node
 * high in most runs is marked ✗, the rest ✓. */
static struct td_table *funnel(struct nodes *ns)
{
	qsort(ns->s, (size_t)ns->n, sizeof *ns->s, by_mean);
	struct td_table *t = td_table_new(funnel_cols, NFCOLS);
	for (int i = 0; i < ns->n; i++) {
		const struct node_stats *s = &ns->s[i];
		if (s->level > 2)
			continue;
		td_table_row(t);
		td_table_str(t, F_NODE, s->name);
		td_table_int(t, F_LEVEL, s->level);
		td_table_num(t, F_MEAN, mean_of(s));
		bool useful = !strcmp(s->name, "retiring") || !strcmp(s->name, "light_operations") ||
			      !strcmp(s->name, "heavy_operations");
		td_table_str(t, F_KIND, useful ? "useful" : "waste");
		td_table_str(t, F_MARK, 2 * s->high > s->runs ? "\xe2\x9c\x97" : "\xe2\x9c\x93");
	}
	return t;
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
	char sql[8192];
	snprintf(sql, sizeof sql,
		 "SELECT r.id, r.time, m.name, m.value, m.unit, m.scope, m.pmu FROM metrics m JOIN runs r ON r.id = m.run_id"
		 " WHERE m.name = ? AND m.level %s 0", node ? ">" : "=");
	struct store_value params[64];
	int np = 0;
	params[np++] = SV_STR(name);
	double lo = bound(opt_min, "--min"), hi = bound(opt_max, "--max");
	if (!isnan(lo)) {
		strcat(sql, " AND m.value >= ?");
		params[np++] = SV_D(lo);
	}
	if (!isnan(hi)) {
		strcat(sql, " AND m.value <= ?");
		params[np++] = SV_D(hi);
	}
	store_filter_sql(&verb_filter, s->b->dialect, sql, sizeof sql - 64, params, &np, 63);
	strcat(sql, " ORDER BY m.value DESC, r.time DESC, r.seq DESC");
	struct td_table *t = td_table_new(run_cols, NRCOLS);
	if (s->b->ops->exec(s->b, sql, params, np, run_value_row, t) < 0)
		verb_store_failed(s);
	return t;
}

int cmd_query(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	td_progname = "td-store";
	if (n)
		td_usage_error(&cmd, "query takes no operands (filter with --label)");
	if (td_bad_input_count())
		return TD_EXIT_BAD;
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
		load_nodes(s, &ns);
		if (ns.n == 0)
			td_warn(NULL, 0, "no Top-down node in the %ld runs selected", count_runs(s));
		t = opt_bottlenecks ? bottlenecks(&ns) : funnel(&ns);
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
