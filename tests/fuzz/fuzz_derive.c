/* libFuzzer target: bytes through the derive engine (analysis/derive.h),
 * as td-store reads a capture: every run's counters and metrics touched,
 * and every value either a number or NaN with a name to file it under. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/derive.h"
#include "common/diag.h"

static void each_run(void *ctx, const struct derive_run *r)
{
	size_t *sum = ctx;
	for (size_t i = 0; i < r->ncounters; i++) {
		if (!r->counters[i].name || !r->counters[i].scope || !r->counters[i].pmu)
			abort();
		*sum += strlen(r->counters[i].name);
	}
	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct derive_metric *m = &r->metrics[i];
		if (!m->name || !m->unit || !m->verdict || !m->source || isinf(m->confidence))
			abort();
		*sum += strlen(m->name) + (size_t)m->on_path;
	}
	*sum += strlen(r->summary) + strlen(r->events) + strlen(r->command);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	td_quiet = 1;
	struct derive_options o = { .format = (enum stat_format)(size % 4), .cpu = NULL };
	size_t sum = 0;
	derive_memory(data, size, "fuzz", &o, each_run, &sum);
	return 0;
}
