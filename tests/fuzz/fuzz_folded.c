/* libFuzzer target: folded stacks ("frame;frame COUNT") line by line
 * through td-diff's reader: a line read has its count at its end and a
 * stack inside the line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "parsers/folded.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_lines it = fuzz_lines(data, size, false);
	const char *p;
	size_t n;
	while (fuzz_line(&it, &p, &n)) {
		struct folded_line f;
		if (folded_parse(p, n, &f)) {
			if (f.stack < p || f.stack + f.stack_len > p + n || f.value < 0)
				abort();
			if (!f.fractional && (double)f.count != f.value && f.count < (1ull << 53))
				abort();
		}
	}
	return 0;
}
