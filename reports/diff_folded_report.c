#include "reports/diff_folded_report.h"

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
