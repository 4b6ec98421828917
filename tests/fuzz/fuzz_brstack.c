/* libFuzzer target: perf script branch-stack text, SPE samples and SPE
 * packet dumps through td-branches' reader and every ranking; read again as
 * one run of lines split between two threads, which must rank the same. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/branches.h"
#include "tests/fuzz/fuzz_input.h"

static bool same_num(double a, double c) { return (isnan(a) && isnan(c)) || a == c; }

/* The same ranking, row for row. */
static bool same(struct branches *a, struct branches *c, enum br_group g, enum br_sort s, unsigned long min)
{
	const struct br_row *ra, *rc;
	int na = branches_rank(a, g, s, min, &ra), nc = branches_rank(c, g, s, min, &rc);
	if (na != nc)
		return false;
	for (int i = 0; i < na; i++)
		if (strcmp(ra[i].from, rc[i].from) || strcmp(ra[i].to, rc[i].to) || strcmp(ra[i].type, rc[i].type) ||
		    strcmp(ra[i].cause, rc[i].cause) || ra[i].count != rc[i].count ||
		    ra[i].mispredicted != rc[i].mispredicted || ra[i].no_info != rc[i].no_info ||
		    ra[i].not_taken != rc[i].not_taken || !same_num(ra[i].rate, rc[i].rate) ||
		    !same_num(ra[i].cycles_mean, rc[i].cycles_mean) || !same_num(ra[i].cycles_median, rc[i].cycles_median))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct branches *b = fuzz_branches(data, size);
	/* the same bytes as one run of lines, its second half on another thread */
	struct branches *runs = branches_new();
	branches_split_min(runs, 1);
	branches_lines(runs, (const char *)data, size, "fuzz", 1);
	branches_end_input(runs);
	if (memcmp(branches_totals(b), branches_totals(runs), sizeof(struct br_totals)))
		abort();
	for (int g = BR_BY_PAIR; g <= BR_BY_FUNC; g++)
		if (!same(b, runs, (enum br_group)g, (enum br_sort)(size % 3), size % 4))
			abort();
	branches_free(runs);
	branches_free(b);
	return 0;
}
