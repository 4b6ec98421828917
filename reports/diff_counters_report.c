#include <math.h>
#include <string.h>
#include "diff_counters_report.h"
#include "common/diag.h"
#include "common/input.h"

enum { R_NAME, R_KIND, R_UNIT, R_BASE, R_CAND, R_DELTA, R_REL, R_BETTER, R_P, R_SIG, R_THRESH, R_VERDICT, R_CONF, NRCOLS };

static const struct td_column columns[NRCOLS] = {
	{ "name", TD_COL_STR, 0 }, { "kind", TD_COL_STR, 0 }, { "unit", TD_COL_STR, 0 },
	{ "base", TD_COL_NUM, 0 }, { "cand", TD_COL_NUM, 0 }, { "delta", TD_COL_NUM, 0 },
	{ "delta_pct", TD_COL_NUM, 2 }, { "better", TD_COL_STR, 0 }, { "p_value", TD_COL_NUM, 4 },
	{ "significant", TD_COL_STR, 0 }, { "threshold_pct", TD_COL_NUM, 1 }, { "verdict", TD_COL_STR, 0 },
	{ "confidence", TD_COL_NUM, 2 },
};

/* Values span counts of 1e12 and ratios of 0.01: six significant digits. */
static void put_value(struct td_table *t, int col, double v)
{
	char buf[48];
	if (!isfinite(v))
		return;
	snprintf(buf, sizeof buf, "%.6g", v == 0 ? 0.0 : v);
	td_table_str(t, col, buf);
}

static struct td_table *build_table(const struct dc_report *r, int from, int to)
{
	struct td_table *t = td_table_new(columns, NRCOLS);
	for (int i = from; i < to; i++) {
		const struct dc_result *x = &r->results[i];
		td_table_row(t);
		td_table_str(t, R_NAME, x->q->name);
		td_table_str(t, R_KIND, x->q->is_metric ? "metric" : "counter");
		td_table_str(t, R_UNIT, x->q->unit);
		put_value(t, R_BASE, x->base);
		put_value(t, R_CAND, x->cand);
		put_value(t, R_DELTA, x->delta);
		td_table_num(t, R_REL, x->rel_pct);
		td_table_str(t, R_BETTER, !x->q->has_direction ? "" : x->q->higher_is_better ? "higher" : "lower");
		td_table_num(t, R_P, x->p);
		td_table_str(t, R_SIG, isnan(x->p) ? "no variance" : x->significant ? "yes" : "no");
		td_table_num(t, R_THRESH, x->threshold_pct);
		td_table_str(t, R_VERDICT, x->verdict);
		td_table_num(t, R_CONF, x->confidence);
	}
	return t;
}

static int count_verdict(const struct dc_report *r, const char *v)
{
	int k = 0;
	for (int i = 0; i < r->n; i++)
		k += strcmp(r->results[i].verdict, v) == 0;
	return k;
}

static bool any_variance(const struct dc_report *r)
{
	for (int i = 0; i < r->n; i++)
		if (!isnan(r->results[i].p))
			return true;
	return false;
}

static double lowest_confidence(const struct dc_report *r)
{
	double c = 100;
	for (int i = 0; i < r->n; i++)
		c = fmin(c, r->results[i].confidence);
	return c;
}

static void write_header(const struct dc_report *r, FILE *f, const char *bullet)
{
	char runs[2][128];
	fprintf(f, "%sbase: %s (%s)\n", bullet, r->base_name, diff_counters_runs_text(r->d, 0, runs[0], sizeof runs[0]));
	fprintf(f, "%scand: %s (%s)\n", bullet, r->cand_name, diff_counters_runs_text(r->d, 1, runs[1], sizeof runs[1]));
	if (any_variance(r))
		fprintf(f, "%ssignificance: Welch's t-test, two-sided, alpha %g (%g%% confidence)\n", bullet, r->alpha,
			100 * (1 - r->alpha));
	else
		fprintf(f, "%ssignificance: no variance: single run on each side; only the thresholds decide "
			"(use perf stat -r 5, or several files per side)\n", bullet);
	double c = lowest_confidence(r);
	if (c < 100)
		fprintf(f, "%smultiplexed: lowest enabled %.2f%%; scaled counts are estimates, treat small changes with care\n",
			bullet, c);
}

static void write_markdown(const struct dc_report *r, FILE *f, const char *why)
{
	int reg = count_verdict(r, "regression"), imp = count_verdict(r, "improvement");
	fprintf(f, "## td-diff: %s\n\n", reg ? "regression" : "no regression");
	write_header(r, f, "- ");
	fprintf(f, "\n**Why:** %s\n\n", why);
	static const char *const titles[] = { "Regressions", "Improvements" };
	int at = 0;
	for (int part = 0; part < 2; part++) {
		int k = part ? imp : reg;
		if (!k)
			continue;
		fprintf(f, "### %s\n\n", titles[part]);
		struct td_table *t = build_table(r, at, at + k);
		td_table_write(t, f, TD_FMT_MARKDOWN);
		td_table_free(t);
		fputc('\n', f);
		at += k;
	}
	if (at < r->n) {
		fprintf(f, "<details><summary>%d other counters and metrics</summary>\n\n", r->n - at);
		struct td_table *t = build_table(r, at, r->n);
		td_table_write(t, f, TD_FMT_MARKDOWN);
		td_table_free(t);
		fprintf(f, "\n</details>\n");
	}
}

void dc_report_write(const struct dc_report *r, FILE *f, enum td_format fmt)
{
	char why[2048];
	diff_counters_explain(r->d, r->results, r->n, why, sizeof why);
	int reg = count_verdict(r, "regression");
	if (fmt == TD_FMT_MARKDOWN) {
		write_markdown(r, f, why);
		return;
	}
	struct td_table *t = build_table(r, 0, r->n);
	if (fmt == TD_FMT_CSV) {
		td_table_write(t, f, fmt);
	} else if (fmt == TD_FMT_JSON) {
		fputs("{\"base\": ", f);
		td_json_string(f, r->base_name);
		fputs(", \"cand\": ", f);
		td_json_string(f, r->cand_name);
		fprintf(f, ", \"base_runs\": %d, \"cand_runs\": %d, \"alpha\": %g, \"test\": \"%s\", \"regressions\": %d,\n\"why\": ",
			diff_counters_runs(r->d, 0), diff_counters_runs(r->d, 1), r->alpha,
			any_variance(r) ? "welch" : "none: single run", reg);
		td_json_string(f, why);
		fputs(",\n\"rows\": ", f);
		td_table_write(t, f, fmt);
		fputs("}\n", f);
	} else {
		write_header(r, f, "");
		fputc('\n', f);
		td_table_write(t, f, fmt);
		fprintf(f, "\nwhy: %s\n", why);
		fprintf(f, "result: %d regression%s\n", reg, reg == 1 ? "" : "s");
	}
	td_table_free(t);
}

/* A side's files as one name: "a.csv, b.csv" (cut at cap). */
static void join_names(char *buf, size_t cap, char *const *files, int n)
{
	size_t w = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && w < cap; i++)
		w += (size_t)snprintf(buf + w, cap - w, "%s%s", i ? ", " : "", td_input_display_name(files[i]));
}

int dc_report_files(struct diff_counters *d, const struct dc_files *o, FILE *f)
{
	bool ok = true;
	for (int i = 0; i < o->nbase + o->ncand; i++)
		ok &= diff_counters_read(d, i >= o->nbase, o->files[i], o->input);
	char base[1024], cand[1024];
	join_names(base, sizeof base, o->files, o->nbase);
	join_names(cand, sizeof cand, o->files + o->nbase, o->ncand);
	if (!ok) {
		td_error("inputs not compared: fix the problems above (a missing comparison is never a pass)");
		return TD_EXIT_OK;
	}
	/* what both sides counted, then what could not be compared */
	const struct dc_result *res;
	int n = diff_counters_compare(d, o->alpha, &res);
	struct dc_report rep = { base, cand, o->alpha, d, res, n };
	dc_report_write(&rep, f, o->format);
	fflush(f);
	int result = TD_EXIT_OK;
	for (int i = 0; i < n; i++)
		if (strcmp(res[i].verdict, "regression") == 0)
			result = TD_EXIT_FOUND;
	int missing = diff_counters_check(d, base, cand);
	if (missing)
		td_error("%d event%s not compared (named above), %d value%s compared: a missing comparison is never a pass",
			 missing, missing == 1 ? "" : "s", n, n == 1 ? "" : "s");
	return result;
}
