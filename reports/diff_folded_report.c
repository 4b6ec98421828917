#include "reports/diff_folded_report.h"
#include "common/diag.h"
#include "reports/escape.h"

static const struct td_column move_cols[] = {
	{ "kind", TD_COL_STR, 0 },
	{ "function", TD_COL_STR, 0 },
	{ "base_share", TD_COL_NUM, 2 },
	{ "cand_share", TD_COL_NUM, 2 },
	{ "delta_pts", TD_COL_NUM, 2 },
	{ "z", TD_COL_NUM, 1 },
	{ "significant", TD_COL_STR, 0 },
	{ "status", TD_COL_STR, 0 },
};

void diff_folded_report_moves(const struct diff_folded_moves *m, FILE *f, enum td_format fmt)
{
	struct td_table *t = td_table_new(move_cols, (int)(sizeof move_cols / sizeof *move_cols));
	for (int i = 0; i < m->n; i++) {
		const struct diff_folded_move *r = &m->row[i];
		td_table_row(t);
		td_table_str(t, 0, r->kind);
		td_table_str(t, 1, r->function);
		td_table_num(t, 2, r->base_share);
		td_table_num(t, 3, r->cand_share);
		td_table_num(t, 4, r->delta_pts);
		td_table_num(t, 5, r->z);
		td_table_str(t, 6, r->significant ? "yes" : "no");
		td_table_str(t, 7, r->status);
	}
	td_table_write(t, f, fmt);
	td_table_free(t);
}

static void write_top(const struct diff_folded *d, const struct diff_folded_report_options *o, FILE *f)
{
	struct diff_folded_moves *moved = diff_folded_top(d, (int)o->top);
	double tb = diff_folded_total(d, 0), tc = diff_folded_total(d, 1);
	const char *item = o->format == TD_FMT_MARKDOWN ? "- " : "";
	if (o->format == TD_FMT_JSON) {
		fprintf(f, "{\"base\": ");
		td_json_string(f, o->base);
		fprintf(f, ", \"cand\": ");
		td_json_string(f, o->cand);
		fprintf(f, ", \"base_total\": %.15g, \"cand_total\": %.15g, \"alpha\": %g,\n\"moved\": ", tb, tc, o->alpha);
		diff_folded_report_moves(moved, f, o->format);
		fprintf(f, "}\n");
	} else if (o->format == TD_FMT_CSV) {
		diff_folded_report_moves(moved, f, o->format);
	} else {
		fprintf(f, "%sbase: %s (total %.15g in %lu stacks)\n%scand: %s (total %.15g in %lu stacks)\n",
			item, o->base, tb, diff_folded_stacks(d, 0), item, o->cand, tc, diff_folded_stacks(d, 1));
		fprintf(f, "%sshares are %% of each side's total; significant: two-proportion test at alpha %g\n\n",
			item, o->alpha);
		diff_folded_report_moves(moved, f, o->format);
	}
	diff_folded_moves_free(moved);
}

void diff_folded_report_write(const struct diff_folded *d, const struct diff_folded_report_options *o, FILE *f)
{
	if (o->top > 0) {
		write_top(d, o, f);
		return;
	}
	diff_folded_write(d, f);
	double tb = diff_folded_total(d, 0), tc = diff_folded_total(d, 1);
	if (!o->normalize && tb > 0 && tc > 0 && (tb / tc > 1.1 || tc / tb > 1.1))
		td_warn(NULL, 0, "totals differ (base %.15g, cand %.15g): consider -n to compare shapes", tb, tc);
}
