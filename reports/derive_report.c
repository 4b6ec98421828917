/* td-derive's reports (derive_report.h): the engine's sets as table rows
 * (streamed for CSV and JSON), the text and markdown views, the trees, the
 * diagnoses and the check against perf. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/tma_explain.h"
#include "common/diag.h"
#include "common/numfmt.h"
#include "reports/derive_report.h"
#include "reports/row_stream.h"
#include "reports/roofline_svg.h"
#include "reports/tma_svg.h"
#include "reports/tma_tree.h"

enum col { C_INTERVAL, C_SCOPE, C_PMU, C_METRIC, C_VALUE, C_UNIT, C_VERDICT, C_BAND, C_CONF, C_LOWCONF, C_VAR, C_NEXT,
	   C_LEVEL, C_NOTE, NCOLS };

static const struct td_column columns[NCOLS] = {
	{ "interval", TD_COL_NUM, 9 }, { "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 },
	{ "metric", TD_COL_STR, 0 }, { "value", TD_COL_NUM, 3 }, { "unit", TD_COL_STR, 0 },
	{ "verdict", TD_COL_STR, 0 }, { "band", TD_COL_STR, 0 }, { "confidence", TD_COL_NUM, 2 },
	{ "low_confidence", TD_COL_STR, 0 }, { "variance_pct", TD_COL_NUM, 2 }, { "next_step", TD_COL_STR, 0 },
	{ "tma_level", TD_COL_INT, 0 }, { "note", TD_COL_STR, 0 },
};

enum counter_col { K_INTERVAL, K_SCOPE, K_PMU, K_EVENT, K_VALUE, K_ENABLED, K_VAR, NKCOLS };

static const struct td_column counter_columns[NKCOLS] = {
	{ "interval", TD_COL_NUM, 9 }, { "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 },
	{ "event", TD_COL_STR, 0 }, { "value", TD_COL_NUM, 6 }, { "enabled_pct", TD_COL_NUM, 2 },
	{ "variance_pct", TD_COL_NUM, 2 },
};

/* The text view of the metric rows: every column as the text it shows. */
enum view_col { V_SCOPE, V_PMU, V_METRIC, V_VALUE, V_UNIT, V_VERDICT, V_CONF, NVCOLS };

static const struct td_column view_columns[NVCOLS] = {
	{ "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 }, { "metric", TD_COL_STR, 0 },
	{ "value", TD_COL_STR, 0 }, { "unit", TD_COL_STR, 0 }, { "verdict", TD_COL_STR, 0 },
	{ "confidence", TD_COL_STR, 0 },
};

struct derive_report {
	struct derive_report_options o;
	FILE *f;
	bool streaming;              /* CSV, JSON: rows written as they come */
	struct td_rows *stream;      /* ... by this */
	struct td_table *counters;   /* text: the counters' table */
	struct td_table *view;       /* text: the metric rows as shown */
	char *summary;               /* markdown: the summary table's rows */
	size_t summary_len;
	FILE *summary_f;
	struct tma_chart *chart;
	unsigned long chart_intervals;   /* trees the chart was given */
	/* --svg without -I: the roofline point of the first whole-run set with one */
	bool has_point;
	char point_label[320];
	double point_ai, point_gflops;
};

/* The engine delivers interval sets when a report shows them. */
static bool shows_intervals(const struct derive_report_options *o)
{
	return o->format == TD_FMT_CSV || o->format == TD_FMT_JSON ||
	       (o->format == TD_FMT_TEXT && (o->intervals || o->counters));
}

void derive_report_config(const struct derive_report_options *o, struct derive_config *c)
{
	*c = (struct derive_config){ .counters = o->counters, .intervals = shows_intervals(o), .chart = o->svg != NULL,
				     .peaks = o->peaks };
}

struct derive_report *derive_report_new(const struct derive_report_options *o, FILE *out)
{
	struct derive_report *r = td_calloc(1, sizeof(*r));
	r->o = *o;
	r->f = out;
	r->streaming = o->format == TD_FMT_CSV || o->format == TD_FMT_JSON;
	if (o->format == TD_FMT_JSON)
		fputs("{\"metrics\": ", out);
	if (r->streaming)
		r->stream = o->counters ? td_rows_new(counter_columns, NKCOLS, out, o->format)
					: td_rows_new(columns, NCOLS, out, o->format);
	else if (o->counters)
		r->counters = td_table_new(counter_columns, NKCOLS);
	else if (o->format == TD_FMT_MARKDOWN)
		r->summary_f = open_memstream(&r->summary, &r->summary_len);
	else
		r->view = td_table_new(view_columns, NVCOLS);
	if (o->svg)
		r->chart = tma_chart_new(o->level);
	return r;
}

static void counter_rows(struct derive_report *r, const struct derive_set *ds)
{
	const struct counter_set *s = ds->set;
	struct td_cell row[NKCOLS];
	for (int i = 0; i < s->n; i++) {
		row[K_INTERVAL] = ds->interval >= 0 ? TD_CELL_NUM(ds->interval) : TD_CELL_NONE;
		row[K_SCOPE] = TD_CELL_STR(ds->scope);
		row[K_PMU] = TD_CELL_STR(ds->pmu);
		row[K_EVENT] = TD_CELL_STR(s->c[i].name);
		row[K_VALUE] = TD_CELL_NUM(s->c[i].value);
		row[K_ENABLED] = TD_CELL_NUM(s->c[i].enabled_pct);
		row[K_VAR] = TD_CELL_NUM(s->c[i].variance_pct);
		if (r->stream)
			td_rows_put(r->stream, row, 1, NKCOLS);
		else
			td_table_put_row(r->counters, row);
	}
}

/* What a node's note says: the model (for a node tdkit computed), why its
 * value may be off, and what a cycles-domain node is a share of. */
static void node_note(char *note, size_t cap, const struct tma_tree *tree, const struct tma_node *n)
{
	char why[300];
	tma_node_note(why, sizeof why, n);
	bool arm = !strncmp(tree->model->id, "arm", 3);
	snprintf(note, cap, "%s%s%s%s", n->source ? "" : tree->model->id, n->source || !why[0] ? "" : "; ", why,
		 n->source ? "" : !strcmp(n->def->domain, "cycles") ? (arm ? "; scaled from stall cycles" : "; share of cycles")
		 : arm && !strcmp(n->def->domain, "aux") ? "; share of executed operations, not of slots" : "");
}

static void tree_rows(struct derive_report *r, const struct derive_set *ds)
{
	struct td_rows *t = r->stream;
	for (int i = 0; i < ds->tree->n; i++) {
		const struct derive_node *dn = &ds->nodes[i];
		const struct tma_node *n = dn->node;
		if (r->o.level && n->level > r->o.level)
			continue;
		td_rows_row(t);
		if (ds->interval >= 0)
			td_rows_num(t, C_INTERVAL, ds->interval);
		td_rows_str(t, C_SCOPE, ds->scope);
		td_rows_str(t, C_PMU, ds->pmu);
		td_rows_str(t, C_METRIC, n->def->name);
		td_rows_num(t, C_VALUE, 100 * n->value);
		td_rows_str(t, C_UNIT, "%");
		td_rows_str(t, C_VERDICT, tma_assessment(n));
		td_rows_str(t, C_BAND, n->on_path ? "bottleneck" : "");
		td_rows_num(t, C_CONF, dn->confidence);
		td_rows_str(t, C_LOWCONF, dn->confidence < 50 ? "yes" : "no");
		td_rows_str(t, C_NEXT, dn->next_step);
		td_rows_int(t, C_LEVEL, n->level);
		char note[360];
		node_note(note, sizeof note, ds->tree, n);
		td_rows_str(t, C_NOTE, note);
	}
}

/* CSV and JSON: the set's rows, streamed. */
static void table_rows(struct derive_report *r, const struct derive_set *ds)
{
	struct td_rows *t = r->stream;
	struct td_cell rows[METRICS_MAX][NCOLS];
	for (int i = 0; i < ds->nmetrics; i++) {
		const struct derive_value *v = &ds->metrics[i];
		struct td_cell *row = rows[i];
		row[C_INTERVAL] = ds->interval >= 0 ? TD_CELL_NUM(ds->interval) : TD_CELL_NONE;
		row[C_SCOPE] = TD_CELL_STR(ds->scope);
		row[C_PMU] = ds->pmu[0] ? TD_CELL_STR(ds->pmu) : TD_CELL_NONE;   /* "" is an empty cell */
		/* a metric's name, unit, verdict, band and next step are static strings (derive.h) */
		row[C_METRIC] = TD_CELL_LIT(v->name);
		row[C_VALUE] = TD_CELL_NUM(v->value);
		row[C_UNIT] = TD_CELL_LIT(v->unit);
		row[C_VERDICT] = TD_CELL_LIT(v->verdict);
		row[C_BAND] = TD_CELL_LIT(v->band);
		row[C_CONF] = TD_CELL_NUM(v->confidence);
		row[C_LOWCONF] = TD_CELL_LIT(v->confidence < 50 ? "yes" : "no");
		row[C_VAR] = TD_CELL_NUM(v->variance_pct);
		row[C_NEXT] = TD_CELL_LIT(v->next_step);
		row[C_LEVEL] = TD_CELL_NONE;
		row[C_NOTE] = v->note[0] ? TD_CELL_LIT(v->note) : TD_CELL_NONE;
	}
	td_rows_put(t, rows[0], ds->nmetrics, C_UNIT);     /* one set's rows; a metric's unit ... next step repeat */
	const struct derive_value *w = ds->perf_wall_share;
	if (w) {
		td_rows_row(t);
		td_rows_str(t, C_SCOPE, ds->scope);
		td_rows_str(t, C_PMU, ds->pmu);
		td_rows_str(t, C_METRIC, w->name);
		td_rows_num(t, C_VALUE, w->value);
		td_rows_str(t, C_UNIT, w->unit);
		td_rows_str(t, C_LOWCONF, "no");
		td_rows_str(t, C_NOTE, w->note);
	}
	if (ds->tree)
		tree_rows(r, ds);
}

/* v as a number column with prec digits shows it; NULL when not finite. */
static const char *num_text(char buf[48], double v, int prec)
{
	if (!isfinite(v))
		return NULL;
	if (td_format_fixed(buf, v, prec) >= 48)
		buf[47] = '\0';
	return buf;
}

static const char *nonempty(const char *s) { return s && s[0] ? s : NULL; }

/* A confidence shown at two digits as 100.00 (printf's rounding of the
 * doubles around it): the value is exact. */
static bool shows_exact(double conf) { return conf >= 99.995 && conf <= 100.005; }

/* Text: one metric row of the view. */
static void view_row(struct derive_report *r, const struct derive_set *ds, const struct derive_value *v)
{
	struct td_table *t = r->view;
	char iv[48], num[48], scope[400], verdict[128], conf[64];
	const char *ivt = ds->interval >= 0 ? num_text(iv, ds->interval, 9) : NULL;
	td_table_row(t);
	snprintf(scope, sizeof scope, "%s%s%s", ivt ? ivt : "", ivt ? " " : "", ds->scope);
	td_table_str(t, V_SCOPE, scope);
	td_table_str(t, V_PMU, ds->pmu);
	td_table_str(t, V_METRIC, v->name);
	td_table_str(t, V_VALUE, num_text(num, v->value, 3));
	td_table_str(t, V_UNIT, v->unit);
	const char *band = nonempty(v->band), *vd = nonempty(v->verdict);
	if (!vd)
		vd = nonempty(v->note);
	snprintf(verdict, sizeof verdict, "%s%s%s%s", vd ? vd : "", band ? " (" : "", band ? band : "", band ? ")" : "");
	td_table_str(t, V_VERDICT, verdict);
	bool low = v->confidence < 50;
	const char *c = num_text(num, v->confidence, 2);
	snprintf(conf, sizeof conf, "%s%s", c ? c : "", low ? " LOW" : "");
	td_table_str(t, V_CONF, !low && shows_exact(v->confidence) ? "exact" : conf);
}

/* Markdown: one row of the summary table. */
static void summary_row(struct derive_report *r, const struct derive_set *ds, const struct derive_value *v)
{
	char num[48];
	const char *value = num_text(num, v->value, 3), *vd = nonempty(v->verdict), *band = nonempty(v->band);
	const char *unit = nonempty(v->unit), *pmu = nonempty(ds->pmu);
	/* a value that is not a number shows as glibc's printf shows a NULL string */
	fprintf(r->summary_f, "| %s%s%s | %s | %s%s%s | %s%s%s%s |\n", ds->scope, pmu ? " " : "", pmu ? pmu : "", v->name,
		value ? value : "(null)", unit ? " " : "", unit ? unit : "", vd ? vd : "-", band ? " (" : "",
		band ? band : "", band ? ")" : "");
}

/* The set's roofline point, kept for --svg when it is the first. */
static void keep_point(struct derive_report *r, const struct derive_set *ds)
{
	double ai = NAN, gflops = NAN;
	for (int i = 0; i < ds->nmetrics; i++)
		if (!strcmp(ds->metrics[i].name, "arithmetic_intensity"))
			ai = ds->metrics[i].value;
		else if (!strcmp(ds->metrics[i].name, "gflops"))
			gflops = ds->metrics[i].value;
	if (isnan(ai) || isnan(gflops))
		return;
	r->has_point = true;
	r->point_ai = ai;
	r->point_gflops = gflops;
	snprintf(r->point_label, sizeof r->point_label, "%s%s%s", ds->scope, ds->pmu[0] ? " " : "", ds->pmu);
}

static void on_set(void *ctx, const struct derive_set *ds)
{
	struct derive_report *r = ctx;
	if (r->o.svg && !r->has_point && ds->interval < 0)
		keep_point(r, ds);
	if (r->o.counters) {
		counter_rows(r, ds);
		return;
	}
	if (r->streaming) {
		table_rows(r, ds);
		return;
	}
	for (int i = 0; i < ds->nmetrics; i++)
		if (r->view)
			view_row(r, ds, &ds->metrics[i]);
		else if (ds->interval < 0)
			summary_row(r, ds, &ds->metrics[i]);
	if (ds->perf_wall_share) {
		if (r->view)
			view_row(r, ds, ds->perf_wall_share);
		else
			summary_row(r, ds, ds->perf_wall_share);
	}
}

/* The input paused (a live perf stat -I): the rows so far are shown now. */
static void on_pause(void *ctx)
{
	struct derive_report *r = ctx;
	td_rows_flush(r->stream);
}

static void on_chart(void *ctx, const char *series, double interval, const struct tma_tree *t)
{
	struct derive_report *r = ctx;
	r->chart_intervals++;
	tma_chart_add(r->chart, series, interval, t);
}

void derive_report_callbacks(struct derive_report *r, struct derive_callbacks *cb)
{
	*cb = (struct derive_callbacks){ on_set, r->streaming ? on_pause : NULL, r->chart ? on_chart : NULL, r };
}

struct tree_writer {
	const struct derive_report *r;
	bool markdown;
};

static void write_tree(void *ctx, const char *title, const struct tma_tree *tree)
{
	const struct tree_writer *w = ctx;
	FILE *f = w->r->f;
	if (w->markdown) {
		tma_tree_write_markdown(f, tree, title, w->r->o.level);
		return;
	}
	tma_tree_write_text(f, tree, title, w->r->o.level);
	for (int k = 0; w->r->o.explain && k < tree->n; k++) {
		const struct tma_explanation *e = tma_explain(tree->node[k].def->name);
		if (tree->node[k].on_path && e) {
			fputc('\n', f);
			tma_explain_write(f, e, tma_vendor_of(tree->model->id));
		}
	}
}

/* Many scopes (-A, --per-core ...): Level 1 per scope in one table, sorted
 * by the category that dominates each, instead of a tree each. */
static void write_scope_table(const struct derive_engine *e, FILE *f)
{
	struct derive_scope_level1 *rows;
	int n = derive_scope_table(e, &rows);
	static const struct td_column cols[] = {
		{ "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 }, { "retiring", TD_COL_NUM, 1 },
		{ "bad_speculation", TD_COL_NUM, 1 }, { "frontend_bound", TD_COL_NUM, 1 }, { "backend_bound", TD_COL_NUM, 1 },
		{ "dominant", TD_COL_STR, 0 },
	};
	struct td_table *t = td_table_new(cols, 7);
	for (int i = 0; i < n; i++) {
		td_table_row(t);
		td_table_str(t, 0, rows[i].scope);
		td_table_str(t, 1, rows[i].pmu);
		for (int k = 0; k < 4; k++)
			td_table_num(t, 2 + k, 100 * rows[i].share[k]);
		td_table_str(t, 6, rows[i].dominant);
	}
	fprintf(f, "\nTop-down Level 1 per scope (%% of slots), grouped by the dominant stall category:\n");
	td_table_write(t, f, TD_FMT_TEXT);
	td_table_free(t);
	free(rows);
}

/* The Top-down tree of every whole-run set that has one; text: summed per
 * PMU after a Level 1 table when there are many scopes. */
static void write_trees(const struct derive_report *r, const struct derive_engine *e, bool markdown)
{
	if (!markdown && derive_many_scopes(e))
		write_scope_table(e, r->f);
	struct tree_writer w = { r, markdown };
	derive_each_tree(e, !markdown, write_tree, &w);
}

static void write_diagnoses_text(FILE *f, const struct derive_engine *e)
{
	struct derive_diagnosis *r;
	int n = derive_diagnoses(e, &r);
	if (n)
		fprintf(f, "\ndiagnosis (one per run):\n");
	for (int i = 0; i < n; i++) {
		fprintf(f, "  %s: %s\n", r[i].label, r[i].d.finding);
		if (r[i].d.next[0])
			fprintf(f, "    next: %s\n", r[i].d.next);
		if (r[i].d.complete[0])
			fprintf(f, "    to complete: %s\n", r[i].d.complete);
	}
	free(r);
}

static void write_diagnoses_markdown(FILE *f, const struct derive_engine *e)
{
	struct derive_diagnosis *r;
	int n = derive_diagnoses(e, &r);
	fprintf(f, "\n## Diagnosis\n\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "- **%s**: %s%s%s%s%s%s%s%s\n", r[i].label, r[i].d.finding, r[i].d.causes ? " Typical causes: " : "",
			r[i].d.causes ? r[i].d.causes : "", r[i].d.change ? " Remediation: " : "",
			r[i].d.change ? r[i].d.change : "", r[i].d.next[0] ? " Next: `" : "", r[i].d.next,
			r[i].d.next[0] ? "`" : "");
	for (int i = 0; i < n; i++)
		if (r[i].d.complete[0])
			fprintf(f, "- %s, to complete: %s\n", r[i].label, r[i].d.complete);
	fprintf(f, "\n## Validation plan\n\n");
	for (int i = 0; i < n; i++) {
		bool said = false;
		for (int k = 0; k < i && !said; k++)
			said = !strcmp(r[k].d.next, r[i].d.next);
		if (r[i].d.next[0] && !said)
			fprintf(f, "- %s: `%s`\n", r[i].label, r[i].d.next);
	}
	free(r);
}

static void write_diagnoses_json(FILE *f, const struct derive_engine *e)
{
	struct derive_diagnosis *r;
	int n = derive_diagnoses(e, &r);
	fprintf(f, ", \"diagnosis\": [");
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s{\"run\": ", i ? ", " : "");
		td_json_string(f, r[i].label);
		fprintf(f, ", \"finding\": ");
		td_json_string(f, r[i].d.finding);
		fprintf(f, ", \"next\": ");
		td_json_string(f, r[i].d.next);
		fprintf(f, ", \"to_complete\": ");
		td_json_string(f, r[i].d.complete);
		fprintf(f, "}");
	}
	fprintf(f, "]");
	free(r);
}

/* The roofs the roofline rows used and where they came from (said), or
 * NULL: --peaks, else the capture's td-collect headers. */
static const struct roofline_peaks *peaks_used(const struct derive_report *r, const struct derive_engine *e,
					       char *said, size_t cap)
{
	const char *source;
	const struct roofline_peaks *header = derive_header_peaks(e, &source);
	if (r->o.peaks)
		snprintf(said, cap, "from %s (--peaks%s)", r->o.peaks_file ? r->o.peaks_file : "the file given",
			 header ? ", over the capture header's" : "");
	else if (header)
		snprintf(said, cap, "from the capture header%s%s%s", source[0] ? " (" : "", source, source[0] ? ")" : "");
	return r->o.peaks ? r->o.peaks : header;
}

static void write_text(const struct derive_report *r, const struct derive_engine *e, const char *inputs)
{
	FILE *f = r->f;
	struct derive_capture c;
	derive_capture(e, &c);
	fprintf(f, "input: %s\n", inputs);
	if (c.command[0])
		fprintf(f, "command: %s\n", c.command);
	if (!isnan(c.elapsed_s))
		fprintf(f, "elapsed: %.3f s%s\n", c.elapsed_s, c.several_runs ? " (the sum of the runs' footers)" : "");
	char said[400];
	const struct roofline_peaks *k = peaks_used(r, e, said, sizeof said);
	if (k)
		fprintf(f, "peaks: %g GFLOP/s, %g GB/s, %s\n", k->gflops, k->gbs, said);
	fprintf(f, "counters: %lu rows (%lu not counted, %lu not supported); lowest enabled %.2f%%%s\n\n", c.counters,
		c.not_counted, c.not_supported, c.min_enabled_pct,
		c.min_enabled_pct < 100 ? " (multiplexed: values are scaled estimates)" : "");
	if (td_table_rows(r->view))
		td_table_write(r->view, f, TD_FMT_TEXT);
	else if (c.toplev_metrics && !c.counters)
		fprintf(f, "toplev's output: %lu node values, no counts (the Top-down tree below is toplev's)\n",
			c.toplev_metrics);
	else
		fprintf(f, "no derived metric: the events present allow none (need e.g. cycles and instructions)\n");
	if (c.has_intervals && !r->o.intervals)
		fprintf(f, "\n(whole-run sums shown; per-interval rows with --intervals, --csv or --json)\n");
	write_trees(r, e, false);
	write_diagnoses_text(f, e);
}

static void write_markdown(const struct derive_report *r, const struct derive_engine *e, const char *inputs)
{
	FILE *f = r->f;
	struct derive_capture c;
	derive_capture(e, &c);
	fprintf(f, "# Performance counter report\n\n## Environment\n\n");
	fprintf(f, "- Input: `%s`\n", inputs);
	if (c.command[0])
		fprintf(f, "- Command: `%s`\n", c.command);
	if (!isnan(c.elapsed_s))
		fprintf(f, "- Elapsed: %.3f s%s\n", c.elapsed_s, c.several_runs ? " (the sum of the runs' footers)" : "");
	char said[400];
	const struct roofline_peaks *k = peaks_used(r, e, said, sizeof said);
	if (k)
		fprintf(f, "- Peaks: %g GFLOP/s, %g GB/s, %s\n", k->gflops, k->gbs, said);
	fprintf(f, "- Counters: %lu rows, %lu not counted, %lu not supported; lowest enabled %.2f%%\n\n", c.counters,
		c.not_counted, c.not_supported, c.min_enabled_pct);
	fprintf(f, "## Summary\n\n| Scope | Metric | Value | Assessment |\n|---|---|---:|---|\n");
	fflush(r->summary_f);
	fwrite(r->summary, 1, r->summary_len, f);
	write_trees(r, e, true);
	write_diagnoses_markdown(f, e);
	fprintf(f, "- Re-run with repeats to judge noise: `perf stat -r 5 -x, ... | td-derive`\n");
}

static void write_json_tail(const struct derive_report *r, const struct derive_engine *e, const char *inputs)
{
	FILE *f = r->f;
	struct derive_capture c;
	derive_capture(e, &c);
	fprintf(f, ",\n\"input\": ");
	td_json_string(f, inputs);
	fprintf(f, ", \"command\": ");
	td_json_string(f, c.command);
	fprintf(f, ", \"elapsed_s\": ");
	if (isnan(c.elapsed_s))
		fprintf(f, "null");
	else
		fprintf(f, "%.9g", c.elapsed_s);
	fprintf(f, ", \"intervals\": %lu, \"counters\": %lu, \"not_counted\": %lu, \"not_supported\": %lu, "
		"\"min_enabled_pct\": %.2f,\n", c.intervals, c.counters, c.not_counted, c.not_supported, c.min_enabled_pct);
	char said[400];
	const struct roofline_peaks *k = peaks_used(r, e, said, sizeof said);
	if (k) {
		fprintf(f, "\"peaks\": {\"gflops\": %.9g, \"gbs\": %.9g, \"from\": ", k->gflops, k->gbs);
		td_json_string(f, said);
		fprintf(f, "},\n");
	}
	struct derive_perf_check p;
	derive_perf_check(e, &p);
	fprintf(f, "\"perf_check\": {\"printed\": %d, \"checked\": %d, \"agree\": %d, \"not_recomputable\": [", p.printed,
		p.checked, p.agree);
	for (int i = 0; i < p.n; i++) {
		fprintf(f, "%s{\"metric\": ", i ? ", " : "");
		td_json_string(f, p.not[i].metric);
		fprintf(f, ", \"count\": %d, \"why\": ", p.not[i].count);
		td_json_string(f, p.not[i].why);
		fprintf(f, "}");
	}
	fprintf(f, "]}");
	write_diagnoses_json(f, e);
	fprintf(f, "}\n");
}

static void write_perf_check(FILE *f, const struct derive_engine *e)
{
	struct derive_perf_check p;
	derive_perf_check(e, &p);
	if (p.checked)
		fprintf(f, "\nperf's own metrics: %d of %d agree with td-derive at perf's precision\n", p.agree, p.checked);
	if (p.n)
		fprintf(f, "%sperf's metrics td-derive cannot recompute (%d):\n", p.checked ? "" : "\n", p.total);
	for (int i = 0; i < p.n; i++)
		fprintf(f, "  %s%s%.0d%s: %s\n", p.not[i].metric, p.not[i].count > 1 ? " (" : "",
			p.not[i].count > 1 ? p.not[i].count : 0, p.not[i].count > 1 ? "x)" : "", p.not[i].why);
}

static void write_chart(const struct derive_report *r, const struct derive_engine *e, const char *inputs)
{
	char said[400];
	const struct roofline_peaks *k = peaks_used(r, e, said, sizeof said);
	FILE *svg = fopen(r->o.svg, "w");
	if (!svg) {
		td_error("%s: cannot write: %s", r->o.svg, strerror(errno));
	} else if (!r->chart_intervals && r->has_point) {
		struct roofline_svg_point p = { r->point_label, r->point_ai, r->point_gflops };
		char title[600];
		snprintf(title, sizeof title, "Roofline: %s", inputs);
		roofline_svg_write(svg, k, &p, title);
	} else if (!tma_chart_write(r->chart, svg, inputs))
		td_warn(NULL, 0, "--svg: no interval had a Top-down tree (needs -I input with Top-down events or tma_* metrics)");
	if (svg && fclose(svg))
		td_error("%s: cannot write: %s", r->o.svg, strerror(errno));
}

void derive_report_end(struct derive_report *r, const struct derive_engine *e, const char *inputs)
{
	if (r->streaming)
		td_rows_end(r->stream);
	if (r->o.format == TD_FMT_JSON) {
		write_json_tail(r, e, inputs);
	} else if (r->o.format == TD_FMT_MARKDOWN) {
		write_markdown(r, e, inputs);
	} else if (r->o.counters) {
		if (r->counters)        /* text: the counters' table (CSV: the rows streamed are all) */
			td_table_write(r->counters, r->f, TD_FMT_TEXT);
	} else if (r->o.format == TD_FMT_TEXT) {
		write_text(r, e, inputs);
		write_perf_check(r->f, e);
	}
	if (r->chart)
		write_chart(r, e, inputs);
}

void derive_report_free(struct derive_report *r)
{
	if (!r)
		return;
	td_rows_free(r->stream);
	td_table_free(r->counters);
	td_table_free(r->view);
	if (r->summary_f)
		fclose(r->summary_f);
	free(r->summary);
	tma_chart_free(r->chart);
	free(r);
}
