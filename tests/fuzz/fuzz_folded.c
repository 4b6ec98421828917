/* libFuzzer target: folded stacks ("frame;frame COUNT") line by line
 * through td-diff's reader: a line read has its count at its end and a
 * stack inside the line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "parsers/folded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct folded_line f;
		if (folded_parse(p, n, &f)) {
			if (f.stack < p || f.stack + f.stack_len > p + n || f.value < 0)
				abort();
			if (!f.fractional && (double)f.count != f.value && f.count < (1ull << 53))
				abort();
		}
		p += n + 1;
	}
	return 0;
}
