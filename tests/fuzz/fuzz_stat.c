/* libFuzzer target: bytes through the perf stat readers (CSV, JSON and text,
 * the layout detected per line as td-derive does) into the model and
 * metrics; and the same records read through stat_pipe, which must hand
 * them on unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parsers/stat_pipe.h"
#include "tests/fuzz/fuzz_input.h"

/* Every record as bytes, to compare reading with and without stat_pipe. */
static void record(void *ctx, const struct stat_record *r)
{
	FILE *f = ctx;
	const double d[] = { r->interval, r->value, r->enabled_pct, r->variance_pct, r->metric_value };
	fprintf(f, "%d %d %d %d %lu ", (int)r->kind, r->not_counted, r->not_supported, r->metric_decimals, r->line);
	fwrite(d, sizeof d, 1, f);
	const char *s[] = { r->scope, r->event, r->unit, r->metric_unit, r->threshold, r->file };
	for (size_t i = 0; i < sizeof s / sizeof *s; i++) {
		if (i < 5 && s[i] && r->len[i] >= 0 && (size_t)r->len[i] != strlen(s[i]))
			abort();                 /* a length that is not the string's */
		fprintf(f, "|%s", s[i] ? s[i] : "(null)");
	}
	fputc('\n', f);
}

static void compare_with_pipe(const uint8_t *data, size_t size, enum stat_format fmt)
{
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
	stat_read_memory(data, size, "fuzz", fmt, record, fa);
	struct stat_pipe *p = stat_pipe_start(record, fb);
	if (p) {
		stat_read_memory(data, size, "fuzz", fmt, stat_pipe_emit, p);
		stat_pipe_finish(p);
	} else {
		stat_read_memory(data, size, "fuzz", fmt, record, fb);
	}
	fclose(fa);
	fclose(fb);
	if (la != lb || memcmp(a, b, la) != 0)
		abort();                         /* the pipe changed a record */
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum stat_format fmt = (enum stat_format)(size % 4);
	fuzz_stat_model(data, size, fmt, fuzz_set_metrics);
	compare_with_pipe(data, size, fmt);
	return 0;
}
