/* libFuzzer target: perf script text through the td-fold parser and folder. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "analysis/fold.h"
#include "common/diag.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (!sink)
		sink = fopen("/dev/null", "w");
	td_quiet = 1;
	struct fold_options opts = { .pid = size & 1, .tid = size & 2, .kernel = size & 4,
				     .jit = size & 8, .addrs = size & 16, .exact_comm = size & 32,
				     .perl_compat = size & 128 };
	const char *skip[] = { "main" };
	opts.skip_after = skip;
	opts.nskip_after = (size & 64) ? 1 : 0;
	struct fold *f = fold_new(&opts);
	struct fuzz_lines it = fuzz_lines(data, size, false);
	const char *line;
	size_t n;
	while (fuzz_line(&it, &line, &n))
		fold_line(f, line, n, "fuzz", it.no);
	fold_end_input(f, "fuzz", it.no + 1);
	fold_write(f, sink);
	fold_free(f);
	return 0;
}
