/* td-diff's folded comparison (analysis/diff_folded.h) written out: the
 * stack diff (difffolded.pl's lines), or the functions whose share moved
 * most as a table in text, CSV, JSON or markdown. */
#ifndef TD_DIFF_FOLDED_REPORT_H
#define TD_DIFF_FOLDED_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "analysis/diff_folded.h"
#include "reports/table.h"

/* The moves as one table: kind, function, base_share, cand_share,
 * delta_pts (2 decimals), z (1 decimal), significant (yes/no), status. */
void diff_folded_report_moves(const struct diff_folded_moves *m, FILE *f, enum td_format fmt);

struct diff_folded_report_options {
	const char *base, *cand;   /* the two files, named as given */
	long top;                  /* > 0: the N functions that moved most instead of the stack diff */
	double alpha;              /* the share test's level, said in the header of --top */
	bool normalize;            /* base scaled to the candidate's total: no warning on totals */
	enum td_format format;     /* of the --top output; the stack diff has one layout */
};

/* The comparison of d: with top, each side's total and stacks, then the
 * moves; else the stack diff, with a warning on stderr when the totals
 * differ by more than 10 % and normalize is off (shapes compare better). */
void diff_folded_report_write(const struct diff_folded *d, const struct diff_folded_report_options *o, FILE *f);

#endif
