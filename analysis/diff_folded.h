/* Two folded profiles side by side: per stack the base and candidate
 * counts (difffolded.pl's output), and per function the self and total
 * shares that moved most, with a significance test so that a 0 -> 1
 * sample change is never reported as a regression. */
#ifndef TD_DIFF_FOLDED_H
#define TD_DIFF_FOLDED_H

#include <stdbool.h>
#include <stdio.h>
#include "reports/table.h"

struct diff_folded_options {
	bool normalize;       /* -n: scale base counts to the candidate's total */
	bool strip_hex;       /* -s: 0x1234 -> 0x... */
	double alpha;         /* significance level of the share test */
};

struct diff_folded;

struct diff_folded *diff_folded_new(const struct diff_folded_options *opts);
void diff_folded_free(struct diff_folded *d);
/* Reads one side (0 base, 1 candidate); returns false if the file could
 * not be read at all. Malformed lines are reported with file:line. */
bool diff_folded_read(struct diff_folded *d, int side, const char *path);
/* "stack base cand" lines, sorted (difffolded.pl prints hash order). */
void diff_folded_write(const struct diff_folded *d, FILE *out);
/* The N functions whose share moved most, self and total, as a table. */
struct td_table *diff_folded_top(const struct diff_folded *d, int n);
/* Totals of each side (after -s merging). */
double diff_folded_total(const struct diff_folded *d, int side);
unsigned long diff_folded_stacks(const struct diff_folded *d, int side);

#endif
