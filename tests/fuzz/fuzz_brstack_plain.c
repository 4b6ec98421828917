/* libFuzzer target, plain: perf script branch-stack text, SPE samples and
 * SPE packet dumps through td-branches' reader and every ranking, on one
 * thread. The differential check (two threads against one) is
 * fuzz_brstack's. */
#include <stdint.h>
#include <string.h>
#include "analysis/branches.h"
#include "common/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	td_quiet = 1;
	struct branches *b = branches_new();
	const char *p = (const char *)data, *end = p + size;
	unsigned long line = 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		branches_line(b, p, n && p[n - 1] == '\r' ? n - 1 : n, "fuzz", line++);
		p += n + 1;
	}
	branches_end_input(b);
	for (int g = BR_BY_PAIR; g <= BR_BY_FUNC; g++) {
		const struct br_row *rows;
		branches_rank(b, (enum br_group)g, (enum br_sort)(size % 3), size % 4, &rows);
	}
	branches_free(b);
	return 0;
}
