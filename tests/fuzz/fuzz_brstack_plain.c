/* libFuzzer target, plain: perf script branch-stack text, SPE samples and
 * SPE packet dumps through td-branches' reader and every ranking, on one
 * thread. The differential check (two threads against one) is
 * fuzz_brstack's. */
#include <stdint.h>
#include <string.h>
#include "analysis/branches.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct branches *b = fuzz_branches(data, size);
	for (int g = BR_BY_PAIR; g <= BR_BY_FUNC; g++) {
		const struct br_row *rows;
		branches_rank(b, (enum br_group)g, (enum br_sort)(size % 3), size % 4, &rows);
	}
	branches_free(b);
	return 0;
}
