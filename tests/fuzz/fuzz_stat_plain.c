/* libFuzzer target, plain: bytes through stat_read (toplev's reader, then
 * CSV, JSON or text, the layout detected per line or given by the input's
 * size) into the model and every set's metrics, on one thread. The
 * differential checks (the pipe against direct reading) are fuzz_stat's. */
#include <stdint.h>
#include "analysis/stat_model.h"
#include "common/diag.h"
#include "tests/fuzz/fuzz_input.h"

static void each_interval(void *ctx, const struct stat_model *m)
{
	struct metric_value mv[64];
	(void)ctx;
	for (int i = 0; i < m->ncur; i++)
		stat_model_metrics(m, &m->cur[i], mv, 64);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_file("stat-plain", data, size);
	if (!path)
		return 0;
	td_quiet = 1;
	struct stat_model m;
	stat_model_init(&m);
	m.on_interval = each_interval;
	stat_read(path, (enum stat_format)(size % 4), stat_model_add, &m);
	stat_model_finish(&m);
	struct metric_value mv[64];
	int nsum;
	const struct counter_set *sum = stat_model_summary(&m, &nsum);
	for (int i = 0; i < nsum; i++)
		stat_model_metrics(&m, &sum[i], mv, 64);
	stat_model_free(&m);
	return 0;
}
