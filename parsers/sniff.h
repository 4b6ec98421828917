/* Which tool's output a line looks like: a guess from its shape, so that a
 * file given to the wrong tool is named in one line ("this is perf script
 * output; use td-fold") instead of one complaint per line.
 *
 * A vote per line, a verdict per file: no line decides alone, and lines
 * of no known shape (prose, blank) do not vote. Each test is a few byte
 * comparisons over the line; the readers ask only about lines they could
 * not read, so a file of the right kind costs nothing. */
#ifndef TD_SNIFF_H
#define TD_SNIFF_H

#include <stdbool.h>
#include <stddef.h>

enum sniff_kind {
	SNIFF_NONE,            /* no known shape */
	SNIFF_PERF_STAT,       /* perf stat text, CSV or JSON */
	SNIFF_PERF_SCRIPT,     /* perf script: a sample header or a callchain frame */
	SNIFF_FOLDED,          /* folded stacks: "a;b;c 123" */
	SNIFF_PERF_REPORT,     /* perf report: "# Overhead  Command" or "  12.34%  comm ..." */
	SNIFF_PERF_DUMP,       /* perf report -D: ".  00000000:  b0 f4 d3 ..." */
	SNIFF_KINDS
};

enum sniff_kind sniff_line(const char *line, size_t len);

struct sniff_votes {
	unsigned long n[SNIFF_KINDS];
};

static inline void sniff_vote(struct sniff_votes *v, const char *line, size_t len)
{
	v->n[sniff_line(line, len)]++;
}

/* The kind most lines of known shape had, when at least half of all
 * voting lines had it; SNIFF_NONE when no kind did. */
enum sniff_kind sniff_verdict(const struct sniff_votes *v);

/* "perf script output", "folded stacks" ... */
const char *sniff_name(enum sniff_kind k);
/* What reads it: "td-fold (stacks) or td-branches (-F brstack)" ... */
const char *sniff_reader(enum sniff_kind k);

#endif
