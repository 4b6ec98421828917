/* Two folded profiles side by side: per stack the base and candidate
 * counts (difffolded.pl's output), and per function the self and total
 * shares that moved most, with a significance test so that a 0 -> 1
 * sample change is never reported as a regression. */
#ifndef TD_DIFF_FOLDED_H
#define TD_DIFF_FOLDED_H

#include <stdbool.h>
#include <stdio.h>

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
/* A function whose share of a side's samples moved: its self share (the
 * samples where it is the leaf) or its total share (the stacks it is in). */
struct diff_folded_move {
	const char *kind;          /* "self" or "total" */
	const char *function;
	double base_share, cand_share;  /* % of each side's total */
	double delta_pts;          /* cand_share - base_share */
	double z;                  /* two-proportion z statistic */
	bool significant;          /* |z| at or beyond the critical value of the options' alpha */
	const char *status;        /* "new", "gone", "grew" or "shrank" */
};

struct diff_folded_moves {
	struct diff_folded_move *row;  /* self rows first, then total rows; each by |delta| */
	int n;
	struct td_intern *names;   /* the functions' names live here */
};

/* The N functions whose share moved most, self and total (no row for a
 * share that did not move). Free with diff_folded_moves_free. */
struct diff_folded_moves *diff_folded_top(const struct diff_folded *d, int n);
void diff_folded_moves_free(struct diff_folded_moves *m);
/* Totals of each side (after -s merging). */
double diff_folded_total(const struct diff_folded *d, int side);
unsigned long diff_folded_stacks(const struct diff_folded *d, int side);

#endif
