/* td-diff: A/B comparison. Folded stacks today (difffolded.pl-compatible
 * output and a "what moved" summary); perf stat counter files next. */
#include <stdlib.h>
#include <string.h>
#include "analysis/diff_folded.h"
#include "common/diag.h"
#include "common/input.h"
#include "parsers/folded.h"
#include "common/opts.h"
#include "reports/table.h"

static bool opt_folded, opt_csv, opt_json, opt_markdown;
static struct diff_folded_options dopts = { .alpha = 0.05 };
static long opt_top;
static const char *opt_alpha;

static const struct td_option options[] = {
	{ 0, "folded", TD_OPT_FLAG, &opt_folded, NULL, "inputs are folded stacks (td-fold output)", NULL },
	{ 'n', "normalize", TD_OPT_FLAG, &dopts.normalize, NULL, "scale base counts to the candidate's total (difffolded.pl -n)", NULL },
	{ 's', "strip-hex", TD_OPT_FLAG, &dopts.strip_hex, NULL, "replace 0x... addresses so they merge (difffolded.pl -s)", NULL },
	{ 0, "top", TD_OPT_INT, &opt_top, "N", "instead of the stack diff: the N functions whose self and total share moved most", NULL },
	{ 0, "alpha", TD_OPT_STRING, &opt_alpha, "P", "significance level of the share test (default 0.05)", NULL },
	{ 0, "csv", TD_OPT_FLAG, &opt_csv, NULL, "--top as CSV", NULL },
	{ 0, "json", TD_OPT_FLAG, &opt_json, NULL, "--top as JSON", NULL },
	{ 0, "markdown", TD_OPT_FLAG, &opt_markdown, NULL, "--top as a markdown table", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-diff", "--folded [options] BASE CAND",
	"Compare two profiles: folded stacks side by side for flamegraph.pl, or what moved (--top).",
	options,
};

/* Folded unless the first line says otherwise; an unreadable or binary
 * file is left to the reader, which reports it with file and line. */
static bool looks_folded(const char *path)
{
	struct td_input *in = td_input_open(path);
	if (!in)
		return true;
	const char *line;
	size_t len;
	struct folded_line fl;
	bool folded = true;
	while (td_input_next(in, &line, &len))
		if (len) {
			folded = folded_parse(line, len, &fl);
			if (!folded)
				td_bad_input(td_input_name(in), td_input_lineno(in),
					     "not a folded stack; comparing perf stat counter files is not implemented yet");
			break;
		}
	td_input_close(in);
	return folded;
}

static void write_top(const struct diff_folded *d, const char *base, const char *cand, enum td_format fmt)
{
	struct td_table *t = diff_folded_top(d, (int)opt_top);
	double tb = diff_folded_total(d, 0), tc = diff_folded_total(d, 1);
	if (fmt == TD_FMT_JSON) {
		printf("{\"base\": ");
		td_json_string(stdout, base);
		printf(", \"cand\": ");
		td_json_string(stdout, cand);
		printf(", \"base_total\": %.15g, \"cand_total\": %.15g, \"alpha\": %g,\n\"moved\": ", tb, tc, dopts.alpha);
		td_table_write(t, stdout, fmt);
		printf("}\n");
	} else if (fmt == TD_FMT_CSV) {
		td_table_write(t, stdout, fmt);
	} else {
		printf("%sbase: %s (total %.15g in %lu stacks)\n%scand: %s (total %.15g in %lu stacks)\n",
		       fmt == TD_FMT_MARKDOWN ? "- " : "", base, tb, diff_folded_stacks(d, 0),
		       fmt == TD_FMT_MARKDOWN ? "- " : "", cand, tc, diff_folded_stacks(d, 1));
		printf("%sshares are %% of each side's total; significant: two-proportion test at alpha %g\n\n",
		       fmt == TD_FMT_MARKDOWN ? "- " : "", dopts.alpha);
		td_table_write(t, stdout, fmt);
	}
	td_table_free(t);
}

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	if (n != 2)
		td_usage_error(&cmd, "needs two inputs, BASE and CAND (got %d)", n);
	if (opt_alpha) {
		char *end;
		dopts.alpha = strtod(opt_alpha, &end);
		if (*end || !(dopts.alpha > 0 && dopts.alpha < 1))
			td_usage_error(&cmd, "--alpha needs a number between 0 and 1, not '%s'", opt_alpha);
	}
	if (!opt_folded && !(looks_folded(argv[0]) && looks_folded(argv[1])))
		return td_exit_code(TD_EXIT_OK);
	struct diff_folded *d = diff_folded_new(&dopts);
	bool base_ok = diff_folded_read(d, 0, argv[0]);   /* read both: report both */
	bool ok = diff_folded_read(d, 1, argv[1]) && base_ok;
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
