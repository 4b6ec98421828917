/* td-diff: A/B comparison of perf stat counter files (verdicts and an exit
 * code for CI) or of folded stacks (difffolded.pl-compatible output and a
 * "what moved" summary). */
#include <math.h>
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

enum input_kind { INPUT_EMPTY, INPUT_FOLDED, INPUT_OTHER };

/* Decided by the first line that is not a comment; an unreadable or binary
 * file counts as folded and is left to the reader, which reports it. */
static enum input_kind input_kind(const char *path)
{
	struct td_input *in = td_input_open(path);
	if (!in)
		return INPUT_FOLDED;
	const char *line;
	size_t len;
	struct folded_line fl;
	enum input_kind kind = INPUT_EMPTY;
	while (td_input_next(in, &line, &len))
		if (len && line[0] != '#') {      /* perf stat -o files start with "# started on" */
			kind = folded_parse(line, len, &fl) ? INPUT_FOLDED : INPUT_OTHER;
			break;
		}
	td_input_close(in);
	return kind;
}

static void write_top(const struct diff_folded *d, const char *base, const char *cand, enum td_format fmt)
{
	struct diff_folded_moves *moved = diff_folded_top(d, (int)opt_top);
	double tb = diff_folded_total(d, 0), tc = diff_folded_total(d, 1);
	if (fmt == TD_FMT_JSON) {
		printf("{\"base\": ");
		td_json_string(stdout, base);
		printf(", \"cand\": ");
		td_json_string(stdout, cand);
		printf(", \"base_total\": %.15g, \"cand_total\": %.15g, \"alpha\": %g,\n\"moved\": ", tb, tc, dopts.alpha);
		diff_folded_report_moves(moved, stdout, fmt);
		printf("}\n");
	} else if (fmt == TD_FMT_CSV) {
		diff_folded_report_moves(moved, stdout, fmt);
	} else {
		printf("%sbase: %s (total %.15g in %lu stacks)\n%scand: %s (total %.15g in %lu stacks)\n",
		       fmt == TD_FMT_MARKDOWN ? "- " : "", base, tb, diff_folded_stacks(d, 0),
		       fmt == TD_FMT_MARKDOWN ? "- " : "", cand, tc, diff_folded_stacks(d, 1));
		printf("%sshares are %% of each side's total; significant: two-proportion test at alpha %g\n\n",
		       fmt == TD_FMT_MARKDOWN ? "- " : "", dopts.alpha);
		diff_folded_report_moves(moved, stdout, fmt);
	}
	diff_folded_moves_free(moved);
}

static enum stat_format input_format(void)
{
	enum stat_format f;
	if (!stat_format_parse(opt_format, &f))
		td_usage_error(&cmd, "--format must be csv, json or text, not '%s'", opt_format);
	return f;
}

static void join_names(char *buf, size_t cap, char **files, int n)
{
	size_t w = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && w < cap; i++)
		w += (size_t)snprintf(buf + w, cap - w, "%s%s", i ? ", " : "", td_input_display_name(files[i]));
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
	enum stat_format fmt = input_format();
	bool ok = true;
	for (int i = 0; i < nbase + ncand; i++)
		ok &= diff_counters_read(d, i >= nbase, files[i], fmt);
	char base[1024], cand[1024];
	join_names(base, sizeof base, files, nbase);
	join_names(cand, sizeof cand, files + nbase, ncand);
	int result = TD_EXIT_OK;
	if (ok) {
		/* what both sides counted, then what could not be compared (exit 2) */
		const struct dc_result *res;
		int n = diff_counters_compare(d, dopts.alpha, &res);
		struct dc_report rep = { base, cand, dopts.alpha, d, res, n };
		dc_report_write(&rep, stdout, td_pick_format(opt_csv, opt_json, opt_markdown));
		fflush(stdout);
		for (int i = 0; i < n; i++)
			if (strcmp(res[i].verdict, "regression") == 0)
				result = TD_EXIT_FOUND;
		int missing = diff_counters_check(d, base, cand);
		if (missing)
			td_error("%d event%s not compared (named above), %d value%s compared: a missing comparison is never a pass",
				 missing, missing == 1 ? "" : "s", n, n == 1 ? "" : "s");
	} else {
		td_error("inputs not compared: fix the problems above (a missing comparison is never a pass)");
	}
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
	if (ok) {
		if (opt_top > 0) {
			write_top(d, argv[0], argv[1], td_pick_format(opt_csv, opt_json, opt_markdown));
		} else {
			diff_folded_write(d, stdout);
			double tb = diff_folded_total(d, 0), tc = diff_folded_total(d, 1);
			if (!dopts.normalize && tb > 0 && tc > 0 && (tb / tc > 1.1 || tc / tb > 1.1))
				td_warn(NULL, 0, "totals differ (base %.15g, cand %.15g): consider -n to compare shapes", tb, tc);
		}
	}
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
		enum input_kind k = input_kind(argv[i]);
		folded += k == INPUT_FOLDED;
		other += k == INPUT_OTHER;
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
