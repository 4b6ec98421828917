/* libFuzzer target: perf script text through the td-fold parser and folder. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "analysis/fold.h"
#include "common/diag.h"

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
	const char *p = (const char *)data, *end = p + size;
	unsigned long line = 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		fold_line(f, p, n, "fuzz", line++);
		p += n + 1;
	}
	fold_end_input(f, "fuzz", line);
	fold_write(f, sink);
	fold_free(f);
	return 0;
}
