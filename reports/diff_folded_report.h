/* td-diff's folded comparison (analysis/diff_folded.h) as a table: the
 * functions whose share moved most, in text, CSV, JSON or markdown. */
#ifndef TD_DIFF_FOLDED_REPORT_H
#define TD_DIFF_FOLDED_REPORT_H

#include <stdio.h>
#include "analysis/diff_folded.h"
#include "reports/table.h"

/* The moves as one table: kind, function, base_share, cand_share,
 * delta_pts (2 decimals), z (1 decimal), significant (yes/no), status. */
void diff_folded_report_moves(const struct diff_folded_moves *m, FILE *f, enum td_format fmt);

#endif
