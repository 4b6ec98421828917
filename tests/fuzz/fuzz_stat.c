/* libFuzzer target: bytes through the perf stat readers (CSV, JSON and text,
 * the layout detected per line as td-derive does) into the model and
 * metrics; and the same records read through stat_pipe, which must hand
 * them on unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/stat_model.h"
#include "common/diag.h"
#include "tests/fuzz/fuzz_input.h"
#include "parsers/stat_pipe.h"

static void each_interval(void *ctx, const struct stat_model *m)
{
	struct metric_value mv[32];
	(void)ctx;
	for (int i = 0; i < m->ncur; i++)
		stat_model_metrics(m, &m->cur[i], mv, 32);
}

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

static void compare_with_pipe(const char *path, enum stat_format fmt)
{
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
	stat_read(path, fmt, record, fa);
	struct stat_pipe *p = stat_pipe_start(record, fb);
	if (p) {
		stat_read(path, fmt, stat_pipe_emit, p);
		stat_pipe_finish(p);
	} else {
		stat_read(path, fmt, record, fb);
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
	const char *path = fuzz_input_file("stat", data, size);
	if (!path)
		return 0;
	td_quiet = 1;
	struct stat_model m;
	stat_model_init(&m);
	m.on_interval = each_interval;
	enum stat_format fmt = (enum stat_format)(size % 4);
	stat_read(path, fmt, stat_model_add, &m);
	stat_model_finish(&m);
	struct metric_value mv[32];
	int nsum;
	const struct counter_set *sum = stat_model_summary(&m, &nsum);
	for (int i = 0; i < nsum; i++)
		stat_model_metrics(&m, &sum[i], mv, 32);
	stat_model_free(&m);
	compare_with_pipe(path, fmt);
	return 0;
}
