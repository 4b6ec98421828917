/* td-branches: the branches that cost most, from perf script branch stacks
 * (LBR, AMD LbrExtV2/BRS, ARM BRBE/ETM) and ARM SPE. */
#include <stdlib.h>
#include <string.h>
#include "analysis/branches.h"
#include "analysis/branches_perf_data.h"
#include "common/diag.h"
#include "common/input.h"
#include "common/opts.h"
#include "parsers/elf_symbols.h"
#include "reports/branches_report.h"

static bool opt_csv, opt_json, opt_markdown;
static const char *opt_by = "pair", *opt_sort = "mispredicted";
static long opt_top = 20, opt_min_count;
static const char *binaries[8], *opt_base;
static int nbinaries;
static struct br_perf_data_options pd_opts;

static int add_binary(const char *arg, void *data)
{
	(void)data;
	if (nbinaries == 8)
		return -1;
	binaries[nbinaries++] = arg;
	return 0;
}

static const struct td_option options[] = {
	{ 0, "by", TD_OPT_STRING, &opt_by, "pair|site|func|symbol", "group by (from, to) pair (default), source site, function, or symbol pair (perf.data: named as brstacksym)", NULL },
	{ 0, "sort", TD_OPT_STRING, &opt_sort, "mispredicted|rate|count", "order (default: mispredicted count)", NULL },
	{ 0, "binary", TD_OPT_CALLBACK, NULL, "PATH", "resolve addresses in this ELF file (repeatable; placed by --show-mmap-events lines or --base)", add_binary },
	{ 0, "base", TD_OPT_STRING, &opt_base, "ADDR", "where a position-independent --binary was loaded (hex), when the input has no mmap events", NULL },
	{ 0, "symfs", TD_OPT_STRING, &pd_opts.machine.symfs, "DIR", "perf.data input: look for binaries under DIR", NULL },
	{ 0, "kallsyms", TD_OPT_STRING, &pd_opts.machine.kallsyms, "FILE", "perf.data input: kernel symbols from FILE", NULL },
	{ 0, "min-count", TD_OPT_INT, &opt_min_count, "N", "leave out rows with fewer than N branches (use with --sort rate)", NULL },
	{ 0, "top", TD_OPT_INT, &opt_top, "N", "rows to print (default 20; 0: all)", NULL },
	{ 0, "csv", TD_OPT_FLAG, &opt_csv, NULL, "CSV with a header row", NULL },
	{ 0, "json", TD_OPT_FLAG, &opt_json, NULL, "one JSON document with totals", NULL },
	{ 0, "markdown", TD_OPT_FLAG, &opt_markdown, NULL, "the Branch Trace Hotspots table", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-branches", "[options] [FILE...]",
	"Rank branch misprediction sites from perf script -F ...,brstack output (LBR, BRBE, SPE).",
	options,
	NULL,
};

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	enum br_group group = !strcmp(opt_by, "pair") ? BR_BY_PAIR : !strcmp(opt_by, "site") ? BR_BY_SITE
			    : !strcmp(opt_by, "func") ? BR_BY_FUNC : !strcmp(opt_by, "symbol") ? BR_BY_SYMBOL : (enum br_group)-1;
	if ((int)group < 0)
		td_usage_error(&cmd, "--by must be pair, site, func or symbol, not '%s'", opt_by);
	/* names for functions and symbol pairs; pairs and sites keep brstack's addresses */
	pd_opts.symbols = group == BR_BY_FUNC || group == BR_BY_SYMBOL;
	pd_opts.machine.buildid_dir = getenv("PERF_BUILDID_DIR");
	enum br_sort sort = !strcmp(opt_sort, "mispredicted") ? BR_SORT_MISPREDICTED : !strcmp(opt_sort, "rate") ? BR_SORT_RATE
			  : !strcmp(opt_sort, "count") ? BR_SORT_COUNT : (enum br_sort)-1;
	if ((int)sort < 0)
		td_usage_error(&cmd, "--sort must be mispredicted, rate or count, not '%s'", opt_sort);
	if (opt_top < 0 || opt_min_count < 0)
		td_usage_error(&cmd, "--top and --min-count take a count >= 0");
	struct branches *b = branches_new();
	unsigned long long base = 0;
	if (opt_base) {
		char *end;
		base = strtoull(opt_base, &end, 16);
		if (*end || end == opt_base)
			td_usage_error(&cmd, "--base wants a hex address, not '%s'", opt_base);
	}
	struct elf_symbols *elf[8] = { NULL };
	for (int i = 0; i < nbinaries; i++)
		if ((elf[i] = elf_symbols_open(binaries[i])))
			branches_add_binary(b, binaries[i], elf[i], base, opt_base != NULL);
	const char *stdin_only[] = { "-" };
	const char **files = n ? (const char **)argv : stdin_only;
	for (int i = 0; i < (n ? n : 1); i++) {
		struct td_input *in = td_input_open(files[i]);
		if (!in)
			continue;
		if (td_input_is_perf_data(in)) {       /* read it directly: same entries as perf script */
			td_input_close(in);
			if (!strcmp(files[i], "-"))
				td_bad_input("<stdin>", 0, "perf.data on stdin: give it as a file (it needs random access)");
			else
				branches_read_perf_data(b, files[i], &pd_opts);
			continue;
		}
		const char *run, *line;
		size_t n, len;
		while ((n = td_input_next_lines(in, branches_run_bytes(b), &run)))
			td_input_count_lines(in, branches_lines(b, run, n, td_input_name(in), td_input_lineno(in) + 1));
		while (td_input_next(in, &line, &len))    /* what runs leave: a line with a NUL byte */
			branches_line(b, line, len, td_input_name(in), td_input_lineno(in));
		branches_end_input(b);
		td_input_close(in);
	}
	const struct br_row *rows;
	/* every row first, to tell "no branches" from "none left by --min-count" */
	int unfiltered = branches_rank(b, group, BR_SORT_COUNT, 0, &rows);
	unsigned long most = unfiltered ? rows[0].count : 0;
	int nrows = branches_rank(b, group, sort, (unsigned long)opt_min_count, &rows);
	if (nrows == 0 && unfiltered)
		td_warn(NULL, 0, "--min-count %ld leaves none of the %d rows (the largest has %lu branches)", opt_min_count,
			unfiltered, most);
	int shown = opt_top && opt_top < nrows ? (int)opt_top : nrows;
	const struct br_totals *tot = branches_totals(b);
	struct br_report rep = { td_pick_format(opt_csv, opt_json, opt_markdown), opt_by, opt_min_count, tot, rows, shown,
				 nrows, unfiltered, most };
	br_report_write(stdout, &rep);
	if (tot->spe_bad_packets)
		td_warn(NULL, 0, "%lu SPE packets perf could not decode (\"Bad packet!\") were skipped", tot->spe_bad_packets);
	branches_free(b);
	for (int i = 0; i < nbinaries; i++)
		elf_symbols_close(elf[i]);
	return td_exit_code(TD_EXIT_OK);
}
