/* libFuzzer target: bytes through the perf stat readers (CSV, JSON and text,
 * the layout detected per line as td-derive does) into the model and metrics. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "analysis/stat_model.h"
#include "common/diag.h"

static void each_interval(void *ctx, const struct stat_model *m)
{
	struct metric_value mv[32];
	(void)ctx;
	for (int i = 0; i < m->ncur; i++)
		stat_model_metrics(m, &m->cur[i], mv, 32);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof path, "/tmp/td-fuzz-stat-%d", (int)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
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
	return 0;
}
