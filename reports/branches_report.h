/* td-branches' report: the branch ranking (analysis/branches.h) as text
 * (totals, the table, notes), CSV, JSON (totals and rows) or markdown. */
#ifndef TD_BRANCHES_REPORT_H
#define TD_BRANCHES_REPORT_H

#include <stdio.h>
#include "analysis/branches.h"
#include "reports/table.h"

struct br_report {
	enum td_format format;
	const char *by;              /* the grouping's name: pair, site, func */
	long min_count;              /* --min-count given */
	const struct br_totals *totals;
	const struct br_row *rows;   /* ranked, min_count applied */
	int shown;                   /* rows[0 .. shown - 1] are written (--top) */
	int nrows;                   /* rows left by min_count */
	int unfiltered;              /* rows before min_count */
	unsigned long most;          /* the largest row's count before min_count */
};

void br_report_write(FILE *f, const struct br_report *r);

#endif
