/* td-diff: A/B comparison of perf stat counter files (verdicts and an exit
 * code for CI) or of folded stacks (difffolded.pl-compatible output and a
 * "what moved" summary). */
#include <stdlib.h>
#include <string.h>
#include "analysis/diff_counters.h"
#include "analysis/diff_folded.h"
#include "common/diag.h"
#include "common/input.h"
#include "parsers/folded.h"
#include "common/opts.h"
#include "reports/diff_counters_report.h"
#include "reports/diff_folded_report.h"
#include "reports/table.h"

static bool opt_folded, opt_csv, opt_json, opt_markdown, opt_per_scope;
static const char *opt_thresholds, *opt_format;
static const char *threshold_specs[64];
static int nthreshold_specs;

static int add_threshold(const char *arg, void *data)
{
	(void)data;
	if (nthreshold_specs == 64)
		return -1;
	threshold_specs[nthreshold_specs++] = arg;
	return 0;
}
static struct diff_folded_options dopts = { .alpha = 0.05 };
static long opt_top;
static const char *opt_alpha;

static const struct td_option options[] = {
	{ 0, "folded", TD_OPT_FLAG, &opt_folded, NULL, "inputs are folded stacks (td-fold output)", NULL },
	{ 'n', "normalize", TD_OPT_FLAG, &dopts.normalize, NULL, "scale base counts to the candidate's total (difffolded.pl -n)", NULL },
	{ 's', "strip-hex", TD_OPT_FLAG, &dopts.strip_hex, NULL, "replace 0x... addresses so they merge (difffolded.pl -s)", NULL },
	{ 0, "top", TD_OPT_INT, &opt_top, "N", "instead of the stack diff: the N functions whose self and total share moved most", NULL },
	{ 0, "alpha", TD_OPT_STRING, &opt_alpha, "P", "significance level of the share test (default 0.05)", NULL },
	{ 0, "threshold", TD_OPT_CALLBACK, NULL, "NAME=+P%", "counters: fail when NAME moves P% the bad way (repeatable; e.g. ipc=-3%)", add_threshold },
	{ 0, "thresholds", TD_OPT_STRING, &opt_thresholds, "FILE", "counters: NAME=+P% lines ('#' comments)", NULL },
	{ 0, "per-scope", TD_OPT_FLAG, &opt_per_scope, NULL, "counters: compare per CPU/core/socket instead of whole-run sums", NULL },
	{ 0, "format", TD_OPT_STRING, &opt_format, "csv|json|text", "counters: input layout (default: detected)", NULL },
	{ 0, "csv", TD_OPT_FLAG, &opt_csv, NULL, "counters and --top as CSV", NULL },
	{ 0, "json", TD_OPT_FLAG, &opt_json, NULL, "counters and --top as JSON", NULL },
	{ 0, "markdown", TD_OPT_FLAG, &opt_markdown, NULL, "counters and --top as markdown (a pull-request comment)", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-diff", "[options] BASE CAND | BASE... -- CAND...",
	"Compare perf stat counter files (exit 1 on a regression) or folded stacks (--folded).",
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

/* perf stat outputs: each file adds its runs to its side. */
static int diff_counter_files(char **files, int nbase, int ncand)
{
	struct diff_counters *d = diff_counters_new(opt_per_scope);
	diff_counters_default_thresholds(d);
	if (opt_thresholds && !diff_counters_load_thresholds(d, opt_thresholds)) {
		diff_counters_free(d);
		return td_exit_code(TD_EXIT_OK);
	}
	for (int i = 0; i < nthreshold_specs; i++)
		if (!diff_counters_set_threshold(d, threshold_specs[i]))
			td_usage_error(&cmd, "--threshold wants NAME=+P%% or NAME=-P%%, not '%s'", threshold_specs[i]);
	struct dc_files o = { files, nbase, ncand, input_format(), dopts.alpha,
			      td_pick_format(opt_csv, opt_json, opt_markdown) };
	int result = dc_report_files(d, &o, stdout);
	diff_counters_free(d);
	return td_exit_code(result);
}

static int diff_folded_files(char **argv)
{
	struct diff_folded *d = diff_folded_new(&dopts);
	bool base_ok = diff_folded_read(d, 0, argv[0]);   /* read both: report both */
	bool ok = diff_folded_read(d, 1, argv[1]) && base_ok;
	/* one empty side is a comparison (everything new or gone); two are none */
	if (ok && diff_folded_stacks(d, 0) == 0 && diff_folded_stacks(d, 1) == 0) {
		td_error("nothing to compare: no folded stacks on either side (a missing comparison is never a pass)");
		ok = false;
	}
	struct diff_folded_report_options o = { argv[0], argv[1], opt_top, dopts.alpha, dopts.normalize,
						td_pick_format(opt_csv, opt_json, opt_markdown) };
	if (ok)
		diff_folded_report_write(d, &o, stdout);
	diff_folded_free(d);
	return td_exit_code(TD_EXIT_OK);
}

/* "BASE... -- CAND...": the last "--" with files on both sides splits. */
static int find_split(int argc, char **argv)
{
	for (int i = argc - 2; i >= 2; i--)
		if (strcmp(argv[i], "--") == 0 && argv[i - 1][0] != '-')
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	int split = find_split(argc, argv);
	int nbase = -1;
	if (split > 0) {
		memmove(argv + split, argv + split + 1, (size_t)(argc - split) * sizeof(*argv));
		argc--;
	}
	int n = td_parse_options(&cmd, argc, argv);
	if (split > 0)
		nbase = n - (argc - split);
	if (opt_alpha) {
		char *end;
		dopts.alpha = strtod(opt_alpha, &end);
		if (*end || !(dopts.alpha > 0 && dopts.alpha < 1))
			td_usage_error(&cmd, "--alpha needs a number between 0 and 1, not '%s'", opt_alpha);
	}
	if (nbase < 0) {
		if (n != 2)
			td_usage_error(&cmd, "needs two inputs, BASE and CAND, or BASE... -- CAND... (got %d)", n);
		nbase = 1;
	}
	if (nbase < 1 || n - nbase < 1)
		td_usage_error(&cmd, "needs at least one file on each side of --");
	if (opt_folded) {
		if (n != 2)
			td_usage_error(&cmd, "--folded compares exactly two files");
		return diff_folded_files(argv);
	}
	int folded = 0, other = 0;
	for (int i = 0; i < n; i++) {
		enum folded_kind k = folded_file_kind(argv[i]);
		folded += k == FOLDED_STACKS;
		other += k == FOLDED_OTHER;
	}
	if (folded && other)
		td_usage_error(&cmd, "one side is folded stacks and the other perf stat output: compare like with like");
	if (!other && !folded) {
		for (int i = 0; i < n; i++)
			td_bad_input(td_input_display_name(argv[i]), 0, "empty input");
		td_error("nothing to compare: every input is empty (a missing comparison is never a pass)");
		return td_exit_code(TD_EXIT_OK);
	}
	if (!other && n == 2)
		return diff_folded_files(argv);
	return diff_counter_files(argv, nbase, n - nbase);
}
