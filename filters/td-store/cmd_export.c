/* td-store export: one row per run and metric (long format) with the run's
 * time and labels, for pandas, Grafana or a spreadsheet; `import` reads it
 * back. Numbers are written in their shortest form that reads back to the
 * same double, so export -> import -> export gives the same bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/opts.h"
#include "common/grow.h"
#include "filters/td-store/verbs.h"
#include "reports/table.h"

static bool opt_csv, opt_jsonl;

static const struct td_option options[] = {
	VERB_FILTER_OPTIONS,
	{ 0, "csv", TD_OPT_FLAG, &opt_csv, NULL, "CSV with a header row (the default)", NULL },
	{ 0, "jsonl", TD_OPT_FLAG, &opt_jsonl, NULL, "one JSON object a line", NULL },
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store export", "[--csv|--jsonl] [filters]",
	"One row per run and metric (and Top-down node), with the run's time and labels.",
	options,
	"Reads no file: the runs come from the store --db names (default: $TD_DB, else ~/.local/share/tdkit/runs.db).",
};

/* interval_s: the -I time stamp of an interval's row, empty for the whole
 * run (last, so that an export from before it had the same first 15). */
static const char *const columns[] = { "id", "time", "labels", "scope", "pmu", "name", "value", "unit",
				       "better", "level", "verdict", "confidence", "variance_pct", "on_path", "source",
				       "interval_s" };
#define NCOLS (sizeof columns / sizeof *columns)
enum { X_ID, X_TIME, X_LABELS, X_SCOPE, X_PMU, X_NAME, X_VALUE, X_UNIT, X_BETTER, X_LEVEL, X_VERDICT, X_CONF, X_VAR, X_PATH,
       X_SOURCE, X_INTERVAL };

/* A run's labels as one JSON object, by run id (runs in export order). */
struct run_labels {
	char id[STORE_ID_LEN];
	struct verb_buf json;
};

struct export_ctx {
	struct run_labels *runs;
	size_t n, cap, at;
};


static void selected(void *ctx, const char *id, const char *time, const char *summary)
{
	(void)time;
	(void)summary;
	struct export_ctx *x = ctx;
	TD_ALLOC_GROW(x->runs, x->n + 1, x->cap);
	struct run_labels *r = &x->runs[x->n++];
	snprintf(r->id, sizeof r->id, "%s", id);
	r->json = (struct verb_buf){ 0 };
}

static struct run_labels *run_of(struct export_ctx *x, const char *id)
{
	if (x->at < x->n && !strcmp(x->runs[x->at].id, id))
		return &x->runs[x->at];
	if (x->at + 1 < x->n && !strcmp(x->runs[x->at + 1].id, id))   /* rows come run after run */
		return &x->runs[++x->at];
	for (x->at = 0; x->at < x->n; x->at++)
		if (!strcmp(x->runs[x->at].id, id))
			return &x->runs[x->at];
	return NULL;
}

static int label_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct run_labels *r = n >= 3 ? run_of(ctx, cols[0]) : NULL;
	if (!r)
		return 0;
	verb_append_label_json(&r->json, cols[1], cols[2]);
	return 0;
}

/* The shortest text that reads back as the same double: "%.*g", or
 * "%.*f" where that would be an exponent of a plain-sized number (100,
 * not 1e+02). */
static void shortest(char *buf, size_t cap, const char *text)
{
	double v = strtod(text, NULL);
	int digits = 1;
	while (digits < 17) {
		snprintf(buf, cap, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
		digits++;
	}
	snprintf(buf, cap, "%.*g", digits, v);
	if (!strchr(buf, 'e') || fabs(v) < 1e-4 || fabs(v) >= 1e16)
		return;
	for (int decimals = 0; decimals <= 17; decimals++) {
		snprintf(buf, cap, "%.*f", decimals, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static int metric_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct export_ctx *x = ctx;
	if (n < (int)NCOLS - 1)
		return 0;
	/* the query's columns: id, time, scope ... source (labels come from x) */
	const char *cells[NCOLS];
	char nums[NCOLS][40];
	struct run_labels *r = run_of(x, cols[0]);
	cells[X_ID] = cols[0];
	cells[X_TIME] = cols[1];
	cells[X_LABELS] = r && r->json.s ? r->json.s : "{";
	for (size_t c = X_SCOPE; c < NCOLS; c++) {
		const char *v = cols[c - 1];
		if (v && (c == X_VALUE || c == X_CONF || c == X_VAR || c == X_INTERVAL)) {
			shortest(nums[c], sizeof nums[c], v);
			v = nums[c];
		}
		cells[c] = v;
	}
	if (opt_jsonl) {
		for (size_t c = 0; c < NCOLS; c++) {
			fputs(c ? ", " : "{", stdout);
			td_json_string(stdout, columns[c]);
			fputs(": ", stdout);
			if (c == X_LABELS)
				printf("%s}", cells[c]);
			else if (!cells[c])
				fputs("null", stdout);
			else if (c == X_VALUE || c == X_CONF || c == X_VAR || c == X_LEVEL || c == X_PATH || c == X_INTERVAL)
				fputs(cells[c], stdout);
			else
				td_json_string(stdout, cells[c]);
		}
		fputs("}\n", stdout);
	} else {
		for (size_t c = 0; c < NCOLS; c++) {
			if (c)
				putchar(',');
			if (c == X_LABELS) {
				struct verb_buf cell = { 0 };
				verb_append(&cell, cells[c], strlen(cells[c]));
				verb_append(&cell, "}", 1);
				td_csv_field(stdout, cell.s);
				free(cell.s);
			} else if (cells[c]) {
				td_csv_field(stdout, cells[c]);
			}
		}
		putchar('\n');
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	verb_start(&cmd, argc, argv, VERB_SELECTS_RUNS);
	if (opt_csv && opt_jsonl)
		td_usage_error(&cmd, "--csv or --jsonl, not both");
	struct td_store *s = verb_open();
	struct export_ctx x = { 0 };
	if (verb_select_runs(s, 0, selected, &x) < 0)
		verb_store_failed(s);
	struct verb_sql q;
	verb_sql_start(&q, "SELECT l.run_id, l.key, l.value FROM labels l JOIN runs r ON r.id = l.run_id WHERE 1 = 1");
	verb_sql_filter(&q, s, &verb_filter);
	verb_sql_add(&q, " ORDER BY r.time, r.seq, l.key");
	verb_sql_run(s, &q, label_row, &x);
	if (!opt_jsonl) {
		for (size_t c = 0; c < NCOLS; c++)
			printf("%s%s", c ? "," : "", columns[c]);
		putchar('\n');
	}
	verb_sql_start(&q, "SELECT r.id, r.time, m.scope, m.pmu, m.name, m.value, m.unit, m.better, m.level, m.verdict,"
			   " m.confidence, m.variance_pct, m.on_path, m.source, m.interval_s FROM metrics m JOIN runs r"
			   " ON r.id = m.run_id WHERE 1 = 1");
	verb_sql_filter(&q, s, &verb_filter);
	verb_sql_add(&q, " ORDER BY r.time, r.seq, m.ord");
	x.at = 0;
	verb_sql_run(s, &q, metric_row, &x);
	for (size_t i = 0; i < x.n; i++)
		free(x.runs[i].json.s);
	free(x.runs);
	store_filter_free(&verb_filter);
	store_close(s);
	return td_exit_code(TD_EXIT_OK);
}
