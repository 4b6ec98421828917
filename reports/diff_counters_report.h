/* td-diff's counter comparison as text, CSV, JSON or a markdown
 * pull-request comment. */
#ifndef TD_DIFF_COUNTERS_REPORT_H
#define TD_DIFF_COUNTERS_REPORT_H

#include <stdio.h>
#include "analysis/diff_counters.h"
#include "reports/table.h"

struct dc_report {
	const char *base_name, *cand_name;   /* the files of each side */
	double alpha;
	const struct diff_counters *d;
	const struct dc_result *results;
	int n;
};

void dc_report_write(const struct dc_report *r, FILE *f, enum td_format fmt);

#endif
