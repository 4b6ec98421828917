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

struct dc_files {
	char *const *files;        /* the base side's nbase files, then the candidate's ncand */
	int nbase, ncand;
	enum stat_format input;    /* their layout (STAT_AUTO: detected per file) */
	double alpha;
	enum td_format format;
};

/* td-diff's counter comparison from the files on: each file's runs added
 * to its side of d (thresholds already set), the sides compared and
 * written to f, then every event that could not be compared reported on
 * stderr, as bad input. When a file held no counters nothing is compared
 * (one error says so). Returns TD_EXIT_FOUND when a quantity regressed,
 * else TD_EXIT_OK; td_exit_code turns reported bad input into 2. */
int dc_report_files(struct diff_counters *d, const struct dc_files *o, FILE *f);

#endif
