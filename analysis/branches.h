/* Ranking branch sites: every branch-stack entry counted (as perf report -b
 * does) per (from, to) pair, with misprediction, type and cycles; grouped
 * per source site or function at output. Also the ARM SPE inputs: samples
 * of its synthesized branch-miss event and raw packet dumps. */
#ifndef TD_BRANCHES_H
#define TD_BRANCHES_H

#include <stdbool.h>
#include <stddef.h>
#include "parsers/brstack.h"

/* BR_BY_SYMBOL ranks pairs as BR_BY_PAIR does: it differs in what a
 * perf.data reader names them (branches_perf_data.h: brstacksym's names);
 * text is ranked by the names it carries. */
enum br_group { BR_BY_PAIR, BR_BY_SITE, BR_BY_FUNC, BR_BY_SYMBOL };

/* A likely cause is named only for a row of this many branches with a P or
 * M flag or more: below it the rate's 95% interval spans several causes
 * (3 of 10 is anywhere from 7% to 65%). */
#define BR_CAUSE_MIN_JUDGED 30
#define BR_CAUSE_TOO_FEW "too few branches to judge"
enum br_sort { BR_SORT_MISPREDICTED, BR_SORT_RATE, BR_SORT_COUNT };

struct br_totals {
	unsigned long samples, entries, mispredicted, no_info, empty, spe_records, spe_bad_packets;
	unsigned long skipped_events;     /* SPE samples of other events (l1d-access ...) */
};

/* One row of the ranking. */
struct br_row {
	const char *from, *to;            /* to is "" when grouped by site or function */
	unsigned long count, mispredicted, no_info, not_taken;
	double rate;                      /* mispredicted / (count - no_info), NaN if none judged */
	const char *type;                 /* "" when unknown */
	double cycles_mean, cycles_median;   /* NaN where the hardware gave none */
	const char *cause;
};

struct branches;

struct branches *branches_new(void);
void branches_free(struct branches *b);
/* One line of perf script (brstack, brstacksym, SPE samples) or perf report -D. */
void branches_line(struct branches *b, const char *line, size_t len, const char *file, unsigned long lineno);
/* A run of whole lines (td_input_next_lines), the first numbered lineno:
 * the same as branches_line() on each, a long run read by two threads.
 * Returns the number of lines. */
unsigned long branches_lines(struct branches *b, const char *p, size_t n, const char *file, unsigned long lineno);
/* How long a run to ask for next: long while the second thread reads its
 * whole half, short (cache-sized) when it gave up on the last one. */
size_t branches_run_bytes(const struct branches *b);
/* Runs this long or longer are split (default 256 KiB); for tests. */
void branches_split_min(struct branches *b, size_t bytes);
void branches_end_input(struct branches *b);
/* A sample decoded elsewhere (perf.data): its branch entries, possibly none. */
void branches_add_sample(struct branches *b, const struct br_entry *entries, size_t n);
const struct br_totals *branches_totals(const struct branches *b);

/* Resolve addresses in this ELF file (ownership stays with the caller):
 * through the MMAP/MMAP2 lines of perf script --show-mmap-events naming it,
 * else at base (when has_base), else as they are for a non-PIE file. */
struct elf_symbols;
void branches_add_binary(struct branches *b, const char *path, struct elf_symbols *e, unsigned long long base,
			 bool has_base);

/* The ranking; rows are owned by b until the next call. */
int branches_rank(struct branches *b, enum br_group group, enum br_sort sort, unsigned long min_count,
		  const struct br_row **rows);

#endif
