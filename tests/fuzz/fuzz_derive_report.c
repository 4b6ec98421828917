/* libFuzzer target, plain: td-derive in memory on one thread: bytes
 * through the streaming derive engine (analysis/derive.h, one_thread) into
 * its report (reports/derive_report.h), written to /dev/null. The input's
 * size picks the report (text, CSV, JSON, markdown), --intervals,
 * --counters, --explain, --level, --cpu and the SVG chart, so one corpus
 * reaches every writer. */
#include <stdint.h>
#include <stdio.h>
#include "analysis/derive.h"
#include "reports/derive_report.h"
#include "tests/fuzz/fuzz_input.h"

static const char *const cpus[] = { NULL, NULL, NULL, "intel-perf-metrics", "intel-atom:6", "amd-zen5", "arm-v2" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (!sink)
		sink = fopen("/dev/null", "w");
	td_quiet = 1;
	struct derive_report_options ro = {
		.format = (enum td_format)(size % 4),
		.intervals = size & 4,
		.explain = size & 8,
		.level = (int)(size / 16 % (TMA_DEEPEST_LEVEL + 1)),
		.svg = size / 128 % 5 == 0 ? "/dev/null" : NULL,
	};
	ro.counters = ro.format != TD_FMT_MARKDOWN && size / 16 % 3 == 0;
	struct derive_report *report = derive_report_new(&ro, sink);
	struct derive_config cfg;
	struct derive_callbacks cb;
	derive_report_config(&ro, &cfg);
	cfg.one_thread = true;
	cfg.cpu = cpus[size / 8 % (sizeof cpus / sizeof *cpus)];
	if (cfg.cpu && tma_cpu_option_error(cfg.cpu))
		__builtin_trap();                /* the list above names models */
	derive_report_callbacks(report, &cb);
	struct derive_engine *e = derive_new(&cfg, &cb);
	enum stat_format got = derive_read_memory(e, data, size, "fuzz", STAT_AUTO);
	derive_finish(e);
	derive_report_end(report, e, got == STAT_AUTO ? "fuzz (no perf stat output)" : "fuzz");
	derive_warn_input(e);
	derive_report_free(report);
	derive_free(e);
	return 0;
}
