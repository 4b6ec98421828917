/* td-store show: one stored run. By default td-derive's own report of it:
 * the kept capture read again by the derive engine and written by
 * td-derive's report (reports/derive_report.h), so values, verdicts, next
 * steps and the check against perf are td-derive's. From the stored rows
 * instead (--stored, --tree, --funnel; and for a run whose capture is not
 * kept, as after import, or holds other runs too): its metrics as derived
 * when it was added, its Top-down tree drawn by td-derive's tree writer, or
 * its counters. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/derive.h"
#include "analysis/tma.h"
#include "common/diag.h"
#include "common/opts.h"
#include "filters/td-store/nodes.h"
#include "filters/td-store/verbs.h"
#include "reports/derive_report.h"
#include "reports/table.h"
#include "reports/tma_tree.h"

static bool opt_tree, opt_counters, opt_intervals, opt_funnel, opt_stored;

static const struct td_option options[] = {
	{ 0, "tree", TD_OPT_FLAG, &opt_tree, NULL, "only the Top-down tree", NULL },
	{ 0, "counters", TD_OPT_FLAG, &opt_counters, NULL, "the counters as read", NULL },
	{ 0, "funnel", TD_OPT_FLAG, &opt_funnel, NULL, "where the pipeline slots went (Levels 1 and 2, useful or waste)", NULL },
	{ 0, "stored", TD_OPT_FLAG, &opt_stored, NULL, "the stored rows instead of td-derive's report of the kept capture", NULL },
	{ 0, "intervals", TD_OPT_FLAG, &opt_intervals, NULL, "-I input: each interval's rows too (interval column, s)", NULL },
	VERB_FORMAT_OPTIONS,
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store show", "[options] RUN",
	"One stored run: its metrics and Top-down tree (or --counters), from the stored rows.",
	options,
	"Reads no file: the runs come from the store --db names (default: $TD_DB, else ~/.local/share/tdkit/runs.db).",
};

struct run_info {
	bool found;
	char time[32], model[64], source[512], summary[256];
	char host[256], perf_version[64], command[512], duration[32];
	char capture[80];
	long capture_runs;           /* runs stored from the same capture */
};

static void copy_cell(char *dst, size_t cap, const char *s) { snprintf(dst, cap, "%s", s ? s : ""); }

static int info_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct run_info *r = ctx;
	if (n < 10)
		return 1;
	r->found = true;
	copy_cell(r->time, sizeof r->time, cols[0]);
	copy_cell(r->model, sizeof r->model, cols[1]);
	copy_cell(r->source, sizeof r->source, cols[2]);
	copy_cell(r->summary, sizeof r->summary, cols[3]);
	copy_cell(r->host, sizeof r->host, cols[4]);
	copy_cell(r->perf_version, sizeof r->perf_version, cols[5]);
	copy_cell(r->command, sizeof r->command, cols[6]);
	if (cols[7])
		snprintf(r->duration, sizeof r->duration, "%.3f s", strtod(cols[7], NULL));
	copy_cell(r->capture, sizeof r->capture, cols[8]);
	r->capture_runs = cols[9] ? strtol(cols[9], NULL, 10) : 0;
	return 1;
}

/* Column 0 is the interval (s; empty for the whole run), shown with --intervals. */
enum { M_INTERVAL, M_SCOPE, M_PMU, M_NAME, M_VALUE, M_UNIT, M_VERDICT, M_CONF, M_VAR, M_LEVEL, M_PATH, M_SOURCE, NMCOLS };
static const struct td_column metric_cols[NMCOLS] = {
	{ "interval", TD_COL_NUM, 6 },
	{ "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 }, { "metric", TD_COL_STR, 0 },
	{ "value", TD_COL_NUM, 3 }, { "unit", TD_COL_STR, 0 }, { "verdict", TD_COL_STR, 0 },
	{ "confidence", TD_COL_NUM, 2 }, { "variance_pct", TD_COL_NUM, 2 }, { "tma_level", TD_COL_INT, 0 },
	{ "bottleneck", TD_COL_STR, 0 }, { "source", TD_COL_STR, 0 },
};

enum { K_INTERVAL, K_SCOPE, K_PMU, K_EVENT, K_VALUE, K_ENABLED, K_VAR, NKCOLS };
static const struct td_column counter_cols[NKCOLS] = {
	{ "interval", TD_COL_NUM, 6 },
	{ "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 }, { "event", TD_COL_STR, 0 },
	{ "value", TD_COL_NUM, 6 }, { "enabled_pct", TD_COL_NUM, 2 }, { "variance_pct", TD_COL_NUM, 2 },
};

static double cell_number(const char *s) { return s ? strtod(s, NULL) : NAN; }

/* The query's columns, interval first; without --intervals the table has
 * no interval column and every cell shifts left by one. */
static int table_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct td_table *t = ctx;
	td_table_row(t);
	int shift = opt_intervals ? 0 : 1;
	for (int i = shift; i < n; i++) {
		bool number = i == 0 || (opt_counters ? i >= K_VALUE : (i == M_VALUE || i == M_CONF || i == M_VAR));
		int col = i - shift;
		if (!opt_counters && i == M_LEVEL) {
			if (cols[i] && atoi(cols[i]))
				td_table_int(t, col, atoi(cols[i]));
		} else if (!opt_counters && i == M_PATH) {
			td_table_str(t, col, cols[i] && atoi(cols[i]) ? "yes" : "");
		} else if (number) {
			td_table_num(t, col, cell_number(cols[i]));
		} else {
			td_table_str(t, col, cols[i]);
		}
	}
	return 0;
}

/* The tree of one scope and PMU, rebuilt from its stored nodes on the
 * model's own definitions, so the tree writer draws it as td-derive does. */
struct tree_ctx {
	const struct tma_model *model;
	struct tma_tree tree;
	char scope[128], pmu[64];
	int trees;
};

static void write_tree(struct tree_ctx *c)
{
	if (!c->tree.n)
		return;
	char title[256];
	snprintf(title, sizeof title, "%s%s%s", c->scope, c->pmu[0] ? " " : "", c->pmu);
	tma_tree_write_text(stdout, &c->tree, title, 0);
	c->tree.n = 0;
	c->trees++;
}

/* scope, pmu, name, value, level, verdict, on_path, source */
static int node_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct tree_ctx *c = ctx;
	if (n < 8)
		return 0;
	if (strcmp(c->scope, cols[0] ? cols[0] : "") || strcmp(c->pmu, cols[1] ? cols[1] : "")) {
		write_tree(c);
		copy_cell(c->scope, sizeof c->scope, cols[0]);
		copy_cell(c->pmu, sizeof c->pmu, cols[1]);
	}
	const struct tma_def *def = NULL;
	for (int i = 0; i < c->model->ndefs && !def; i++)
		if (!strcmp(c->model->defs[i].name, cols[2]))
			def = &c->model->defs[i];
	if (!def)                  /* a deeper node perf printed */
		def = tma_deeper_def(cols[2]);
	if (!def || c->tree.n == TMA_MAX_NODES)
		return 0;
	struct tma_node *node = &c->tree.node[c->tree.n++];
	memset(node, 0, sizeof *node);
	node->def = def;
	node->level = atoi(cols[4]);
	node->value = cell_number(cols[3]) / 100;
	node->high = cols[5] && !strcmp(cols[5], "high");
	node->on_path = cols[6] && atoi(cols[6]);
	node->source = !cols[7] || !strcmp(cols[7], "tdkit") ? NULL : !strcmp(cols[7], "toplev") ? "toplev" : "perf";
	node->mismeasured = cols[5] && !strcmp(cols[5], "mismeasured") ? "when it was stored" : NULL;
	c->tree.model = c->model;
	c->tree.width = c->model->width;
	return 0;
}

static const struct tma_model *model_by_id(const char *id)
{
	for (const struct tma_model *const *m = tma_models(); *m; m++)
		if (!strcmp((*m)->id, id))
			return *m;
	return NULL;
}

/* td-derive's report of the run's kept capture; false when it cannot be
 * given (no capture kept, or one that holds other runs too). */
static bool derive_report_of(struct td_store *s, const char *id, const struct run_info *info, enum td_format fmt)
{
	char path[256];
	if (opt_stored || opt_tree || opt_funnel)
		return false;
	if (info->capture_runs > 1)
		td_warn(id, 0, "its capture holds %ld runs, and td-derive's report would cover them all: the rows stored for this run",
			info->capture_runs);
	if (!info->capture[0] || info->capture_runs != 1 ||
	    (opt_counters && fmt == TD_FMT_MARKDOWN) || !verb_capture_file(s, info->capture, path, sizeof path))
		return false;
	/* read as "run-ID" in a folder of its own, so that what the engine
	 * says about the input names the run, not a temporary file */
	char dir[] = "/tmp/td-store-show-XXXXXX", name[96];
	snprintf(name, sizeof name, "run-%s", id);
	if (!mkdtemp(dir) || chdir(dir) || rename(path, name)) {
		td_error("%s: cannot unpack its capture: %s", id, strerror(errno));
		unlink(path);
		return false;
	}
	struct derive_report_options ro = { .format = fmt, .intervals = opt_intervals, .counters = opt_counters };
	struct derive_report *report = derive_report_new(&ro, stdout);
	struct derive_config cfg;
	struct derive_callbacks cb;
	derive_report_config(&ro, &cfg);
	derive_report_callbacks(report, &cb);
	struct derive_engine *e = derive_new(&cfg, &cb);
	enum stat_format got = derive_read(e, name, STAT_AUTO);
	derive_finish(e);
	char input[160];
	snprintf(input, sizeof input, "run %s (%s)", id, got == STAT_AUTO ? "no perf stat output" : stat_format_name(got));
	derive_report_end(report, e, input);
	derive_warn_input(e);
	derive_report_free(report);
	derive_free(e);
	unlink(name);
	rmdir(dir);
	return true;
}

int cmd_show(int argc, char **argv)
{
	int n = verb_start(&cmd, argc, argv, VERB_OPERANDS);
	if (n != 1)
		td_usage_error(&cmd, "name one run (td-store list shows their ids)");
	if (opt_tree + opt_counters + opt_funnel > 1)
		td_usage_error(&cmd, "one of --tree, --counters and --funnel");
	struct td_store *s = verb_open();
	struct store_value id = SV_STR(argv[0]);
	struct run_info info = { 0 };
	if (s->b->ops->exec(s->b, "SELECT time, cpu, source, summary, host, perf_version, command, duration_s, capture,"
				   " (SELECT COUNT(*) FROM runs o WHERE o.capture = runs.capture) FROM runs WHERE id = ?", &id, 1, info_row, &info) < 0)
		verb_store_failed(s);
	if (!info.found) {
		td_error("%s: no such run", argv[0]);
		store_close(s);
		return TD_EXIT_BAD;
	}
	enum td_format fmt = td_pick_format(verb_csv, verb_json, verb_markdown);
	if (fmt == TD_FMT_TEXT) {
		printf("run %s  %s  %s\n", argv[0], info.time, info.source);
		/* what the capture said about itself, where it said it */
		const char *what[4][2] = { { "command", info.command }, { "elapsed", info.duration },
					   { "host", info.host }, { "perf", info.perf_version } };
		bool any = false;
		for (int i = 0; i < 4; i++)
			if (what[i][1][0]) {
				printf("%s%s %s", any ? "  " : "", what[i][0], what[i][1]);
				any = true;
			}
		printf("%s%s%s", any ? "\n" : "", info.summary, info.summary[0] ? "\n\n" : "\n");
	}
	if (derive_report_of(s, argv[0], &info, fmt)) {
		store_close(s);
		return td_exit_code(TD_EXIT_OK);
	}
	if (opt_funnel) {
		struct nodes ns = { 0 };
		struct verb_sql q;
		verb_sql_start(&q, NODES_SELECT " WHERE m.run_id = ? AND m.level > 0 AND m.interval_s IS NULL ORDER BY m.ord");
		verb_sql_param(&q, id);
		nodes_load(s, &q, &ns);
		if (ns.n) {
			struct td_table *t = nodes_funnel(&ns);
			td_table_write(t, stdout, fmt);
			td_table_free(t);
		} else
			td_error("%s: no Top-down tree in this run: no funnel", argv[0]);
		free(ns.s);
		store_close(s);
		return td_exit_code(TD_EXIT_OK);
	}
	if (!opt_tree) {
		int shift = opt_intervals ? 0 : 1;
		struct td_table *t = opt_counters ? td_table_new(counter_cols + shift, NKCOLS - shift)
						  : td_table_new(metric_cols + shift, NMCOLS - shift);
		char sql[512];
		snprintf(sql, sizeof sql, "%s WHERE run_id = ?%s ORDER BY ord", opt_counters
			 ? "SELECT interval_s, scope, pmu, name, value, enabled_pct, variance_pct FROM counters"
			 : "SELECT interval_s, scope, pmu, name, value, unit, verdict, confidence, variance_pct, level, on_path,"
			   " source FROM metrics", opt_intervals ? "" : " AND interval_s IS NULL");
		if (s->b->ops->exec(s->b, sql, &id, 1, table_row, t) < 0)
			verb_store_failed(s);
		td_table_write(t, stdout, fmt);
		td_table_free(t);
	}
	const struct tma_model *model = info.model[0] ? model_by_id(info.model) : NULL;
	if (fmt == TD_FMT_TEXT && !opt_counters && model) {
		static struct tree_ctx c;
		memset(&c, 0, sizeof c);
		c.model = model;
		if (s->b->ops->exec(s->b, "SELECT scope, pmu, name, value, level, verdict, on_path, source FROM metrics"
					  " WHERE run_id = ? AND level > 0 AND interval_s IS NULL ORDER BY ord", &id, 1, node_row, &c) < 0)
			verb_store_failed(s);
		write_tree(&c);
	} else if (opt_tree && fmt == TD_FMT_TEXT) {
		printf("(no Top-down tree in this run)\n");
	}
	store_close(s);
	return td_exit_code(TD_EXIT_OK);
}
