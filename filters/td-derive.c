/* td-derive: perf stat output in, derived metrics with verdicts and the
 * next command out. The derive engine (analysis/derive.h) computes; the
 * report (reports/derive_report.h) writes. */
#include <string.h>
#include "analysis/derive.h"
#include "common/diag.h"
#include "common/opts.h"
#include "reports/derive_report.h"

static bool opt_csv, opt_json, opt_markdown, opt_intervals, opt_counters, opt_explain;
static const char *opt_format, *opt_cpu, *opt_svg, *opt_metrics, *opt_cpuid, *opt_peaks;
static long opt_level = -1;        /* -1: not given */

static const struct td_option options[] = {
	{ 0, "csv", TD_OPT_FLAG, &opt_csv, NULL, "CSV with a header row", NULL },
	{ 0, "json", TD_OPT_FLAG, &opt_json, NULL, "one JSON document", NULL },
	{ 0, "markdown", TD_OPT_FLAG, &opt_markdown, NULL, "a markdown report", NULL },
	{ 0, "intervals", TD_OPT_FLAG, &opt_intervals, NULL, "text: also every -I interval (CSV/JSON always have them)", NULL },
	{ 0, "counters", TD_OPT_FLAG, &opt_counters, NULL, "the counters as read (normalized names, summed per scope) instead of metrics", NULL },
	{ 0, "explain", TD_OPT_FLAG, &opt_explain, NULL, "text: explain every node on the bottleneck path (see td-explain)", NULL },
	{ 0, "svg", TD_OPT_STRING, &opt_svg, "FILE", "-I input: a stacked-area chart of Top-down Level 1 (--level 2: Level 2) over time; else the roofline", NULL },
	{ 0, "level", TD_OPT_INT, &opt_level, "N", "Top-down tree down to level N (default: as deep as the events allow)", NULL },
	{ 0, "cpu", TD_OPT_STRING, &opt_cpu, "MODEL[:WIDTH]", "Top-down model instead of detecting it (see td-derive(1): intel-atom:6, arm-v2, amd-zen5 ...)", NULL },
	{ 0, "metrics", TD_OPT_STRING, &opt_metrics, "FILE", "perf's metric definitions (PERF_CPUID=ID perf list --details > FILE): every tma_* node they give", NULL },
	{ 0, "cpuid", TD_OPT_STRING, &opt_cpuid, "ID", "the capture's CPU (GenuineIntel-6-8F-0): its metric definitions from the installed perf", NULL },
	{ 0, "peaks", TD_OPT_STRING, &opt_peaks, "FILE", "the machine's roofs (peak_gflops, peak_gbs lines; over those a td-collect header recorded): memory- or compute-bound, and how far below the roof", NULL },
	{ 0, "format", TD_OPT_STRING, &opt_format, "csv|json|text", "input layout (default: detected)", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-derive", "[options] [FILE...]",
	"Derived metrics from perf stat output (CSV -x, JSON -j or text): IPC, cache, TLB and branch rates, verdicts, next steps.",
	options,
	NULL,
};

static enum stat_format input_format(void)
{
	enum stat_format f;
	if (!stat_format_parse(opt_format, &f))
		td_usage_error(&cmd, "--format must be csv, json or text, not '%s'", opt_format);
	return f;
}

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	enum stat_format fmt = input_format();
	if (opt_level != -1 && (opt_level < 1 || opt_level > TMA_DEEPEST_LEVEL))
		td_usage_error(&cmd, "--level is a Top-down level, 1 to %d, not %ld", TMA_DEEPEST_LEVEL, opt_level);
	const char *cpu_error = opt_cpu ? tma_cpu_option_error(opt_cpu) : NULL;
	if (cpu_error)
		td_usage_error(&cmd, "%s", cpu_error);
	struct roofline_peaks peaks;
	if (opt_peaks && !roofline_peaks_load(opt_peaks, &peaks))
		return td_exit_code(TD_EXIT_OK);
	struct derive_report_options ro = {
		.format = td_pick_format(opt_csv, opt_json, opt_markdown),
		.level = opt_level == -1 ? 0 : (int)opt_level,
		.intervals = opt_intervals,
		.counters = opt_counters,
		.explain = opt_explain,
		.svg = opt_svg,
		.peaks = opt_peaks ? &peaks : NULL,
		.peaks_file = opt_peaks,
	};
	if (opt_counters && ro.format == TD_FMT_MARKDOWN)
		td_usage_error(&cmd, "--counters writes text, CSV or JSON");
	struct derive_report *report = derive_report_new(&ro, stdout);
	struct derive_config cfg;
	struct derive_callbacks cb;
	derive_report_config(&ro, &cfg);
	cfg.cpu = opt_cpu;
	cfg.metrics_file = opt_metrics;
	cfg.cpuid = opt_cpuid;
	derive_report_callbacks(report, &cb);
	struct derive_engine *e = derive_new(&cfg, &cb);
	char inputs[1024] = "";
	const char *stdin_only[] = { "-" };
	const char **files = n ? (const char **)argv : stdin_only;
	for (int i = 0; i < (n ? n : 1); i++) {
		enum stat_format got = derive_read(e, files[i], fmt);
		size_t used = strlen(inputs);
		snprintf(inputs + used, sizeof inputs - used, "%s%s (%s)", i ? ", " : "",
			 strcmp(files[i], "-") ? files[i] : "<stdin>",
			 got == STAT_AUTO ? "no perf stat output" : stat_format_name(got));
	}
	derive_finish(e);
	derive_report_end(report, e, inputs);
	derive_warn_input(e);
	derive_report_free(report);
	derive_free(e);
	return td_exit_code(TD_EXIT_OK);
}
