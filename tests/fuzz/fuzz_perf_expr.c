/* libFuzzer target: bytes as a perf metric expression (perf_expr.h),
 * compiled and, when it compiles, evaluated with every name given a value
 * (or missing, by the name's first byte) and reading its names back. An
 * error message must be set whenever compiling fails. Seeded with
 * expressions perf 6.1 lists for the five Intel CPUs of testdata/perf-list. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/perf_expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char err[128];
	struct perf_expr *e = perf_expr_compile(text, err, sizeof err);
	if (!e) {
		if (!err[0])
			__builtin_trap();
		free(text);
		return 0;
	}
	int n = perf_expr_nids(e);
	struct perf_expr_value *in = malloc((size_t)(n ? n : 1) * sizeof(*in));
	for (int i = 0; in && i < n; i++) {
		const char *name = perf_expr_id(e, i);
		bool missing = (unsigned char)name[0] % 5 == 0;
		in[i] = (struct perf_expr_value){ missing ? NAN : (double)((unsigned char)name[0] % 7), missing ? i : -1,
						  perf_expr_id_kind(e, i) == PERF_EXPR_LITERAL, false };
	}
	if (in) {
		struct perf_expr_value r = perf_expr_eval(e, in);
		if ((r.need >= 0 || r.divzero) && !isnan(r.v))
			__builtin_trap();        /* no value without all its inputs */
		if (r.need >= n)
			__builtin_trap();
	}
	free(in);
	perf_expr_free(e);
	free(text);
	return 0;
}
