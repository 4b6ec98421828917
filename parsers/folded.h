/* Folded stacks ("frame;frame;...;frame COUNT"), read the way FlameGraph's
 * difffolded.pl reads them: the count is the last number on the line (an
 * integer or a decimal), separated from the stack by one blank; any other
 * blanks before it stay part of the stack. */
#ifndef TD_FOLDED_H
#define TD_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct folded_line {
	const char *stack;
	size_t stack_len;
	uint64_t count;        /* integer part */
	double value;          /* the count as a number (decimals kept) */
	bool fractional;       /* the count had a decimal point */
};

bool folded_parse(const char *line, size_t len, struct folded_line *out);

enum folded_kind { FOLDED_EMPTY, FOLDED_STACKS, FOLDED_OTHER };

/* Whether a file holds folded stacks, decided by its first line that is
 * not a comment ('#': perf stat -o files start with "# started on");
 * FOLDED_EMPTY when it has none. A file td_input_open refuses (it says
 * why) counts as folded stacks, left to the reader. */
enum folded_kind folded_file_kind(const char *path);

#endif
