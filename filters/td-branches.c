/* td-branches: the branches that cost most, from perf script branch stacks
 * (LBR, AMD LbrExtV2/BRS, ARM BRBE/ETM) and ARM SPE. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/branches.h"
#include "analysis/branches_perf_data.h"
#include "common/diag.h"
#include "common/input.h"
#include "common/opts.h"
#include "parsers/elf_symbols.h"
#include "reports/table.h"

static bool opt_csv, opt_json, opt_markdown;
static const char *opt_by = "pair", *opt_sort = "mispredicted";
static long opt_top = 20, opt_min_count;
static const char *binaries[8], *opt_base;
static int nbinaries;

static int add_binary(const char *arg, void *data)
{
	(void)data;
	if (nbinaries == 8)
		return -1;
	binaries[nbinaries++] = arg;
	return 0;
}

static const struct td_option options[] = {
	{ 0, "by", TD_OPT_STRING, &opt_by, "pair|site|func", "group by (from, to) pair (default), source site, or function", NULL },
	{ 0, "sort", TD_OPT_STRING, &opt_sort, "mispredicted|rate|count", "order (default: mispredicted count)", NULL },
	{ 0, "binary", TD_OPT_CALLBACK, NULL, "PATH", "resolve addresses in this ELF file (repeatable; placed by --show-mmap-events lines or --base)", add_binary },
	{ 0, "base", TD_OPT_STRING, &opt_base, "ADDR", "where a position-independent --binary was loaded (hex), when the input has no mmap events", NULL },
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

enum { B_RANK, B_FROM, B_TO, B_COUNT, B_MISP, B_RATE, B_NOINFO, B_TYPE, B_CMEAN, B_CMED, B_CAUSE, NBCOLS };

static const struct td_column columns[NBCOLS] = {
	{ "rank", TD_COL_INT, 0 }, { "from", TD_COL_STR, 0 }, { "to", TD_COL_STR, 0 }, { "count", TD_COL_INT, 0 },
	{ "mispredicted", TD_COL_INT, 0 }, { "rate", TD_COL_NUM, 4 }, { "no_info", TD_COL_INT, 0 },
	{ "type", TD_COL_STR, 0 }, { "cycles_mean", TD_COL_NUM, 1 }, { "cycles_median", TD_COL_NUM, 1 },
	{ "likely_cause", TD_COL_STR, 0 },
};

static struct td_table *ranking_table(const struct br_row *rows, int n)
{
	struct td_table *t = td_table_new(columns, NBCOLS);
	for (int i = 0; i < n; i++) {
		td_table_row(t);
		td_table_int(t, B_RANK, i + 1);
		td_table_str(t, B_FROM, rows[i].from);
		td_table_str(t, B_TO, rows[i].to);
		td_table_int(t, B_COUNT, (long long)rows[i].count);
		td_table_int(t, B_MISP, (long long)rows[i].mispredicted);
		td_table_num(t, B_RATE, rows[i].rate);
		td_table_int(t, B_NOINFO, (long long)rows[i].no_info);
		td_table_str(t, B_TYPE, rows[i].type);
		td_table_num(t, B_CMEAN, rows[i].cycles_mean);
		td_table_num(t, B_CMED, rows[i].cycles_median);
		td_table_str(t, B_CAUSE, rows[i].cause);
	}
	return t;
}

static void write_cause_note(const struct br_row *rows, int n, const char *prefix)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(rows[i].cause, BR_CAUSE_TOO_FEW)) {
			printf("%slikely cause: named for rows of %d or more branches with a P or M flag; "
			       "fewer are too few to judge\n", prefix, BR_CAUSE_MIN_JUDGED);
			return;
		}
}

static void write_markdown(const struct br_totals *tot, const struct br_row *rows, int n)
{
	printf("## Branch Trace Hotspots\n\n%lu samples, %lu branch entries, %lu mispredicted (%.2f%%)\n\n", tot->samples,
	       tot->entries, tot->mispredicted, tot->entries ? 100.0 * (double)tot->mispredicted / (double)tot->entries : 0);
	printf("| Rank | From → To | Mispredict Rate | Type | Likely Cause | Count | Mispredicted | Cycles (mean) |\n");
	printf("|---:|---|---:|---|---|---:|---:|---:|\n");
	for (int i = 0; i < n; i++) {
		const struct br_row *r = &rows[i];
		printf("| %d | `%s`%s%s%s | ", i + 1, r->from, r->to[0] ? " → `" : "", r->to, r->to[0] ? "`" : "");
		if (isnan(r->rate))
			printf("n/a");
		else
			printf("%.2f%%", 100 * r->rate);
		printf(" | %s | %s | %lu | %lu | ", r->type[0] ? r->type : "-", r->cause, r->count, r->mispredicted);
		if (isnan(r->cycles_mean))
			printf("- |\n");
		else
			printf("%.1f |\n", r->cycles_mean);
	}
	write_cause_note(rows, n, "\n");
}

static void write_totals_note(const struct br_totals *t)
{
	printf("%lu samples, %lu branch entries (%lu unused 0x0 slots not ranked), %lu mispredicted, %lu without prediction info",
	       t->samples, t->entries, t->empty, t->mispredicted, t->no_info);
	if (t->spe_records)
		printf("; %lu SPE records (%lu bad packets)", t->spe_records, t->spe_bad_packets);
	if (t->skipped_events)
		printf("; %lu SPE samples of other events skipped", t->skipped_events);
	printf("\n\n");
}

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	enum br_group group = !strcmp(opt_by, "pair") ? BR_BY_PAIR : !strcmp(opt_by, "site") ? BR_BY_SITE
			    : !strcmp(opt_by, "func") ? BR_BY_FUNC : (enum br_group)-1;
	if ((int)group < 0)
		td_usage_error(&cmd, "--by must be pair, site or func, not '%s'", opt_by);
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
				branches_read_perf_data(b, files[i]);
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
	enum td_format fmt = td_pick_format(opt_csv, opt_json, opt_markdown);
	struct td_table *t = ranking_table(rows, shown);
	if (fmt == TD_FMT_MARKDOWN) {
		write_markdown(tot, rows, shown);
	} else if (fmt == TD_FMT_JSON) {
		printf("{\"totals\": {\"samples\": %lu, \"entries\": %lu, \"mispredicted\": %lu, \"no_info\": %lu, \"empty\": %lu, "
		       "\"spe_records\": %lu, \"spe_bad_packets\": %lu},\n\"by\": \"%s\", \"rows_total\": %d, "
		       "\"rows_before_min_count\": %d, \"cause_min_judged\": %d,\n\"rows\": ",
		       tot->samples, tot->entries, tot->mispredicted, tot->no_info, tot->empty, tot->spe_records,
		       tot->spe_bad_packets, opt_by, nrows, unfiltered, BR_CAUSE_MIN_JUDGED);
		td_table_write(t, stdout, fmt);
		printf("}\n");
	} else if (fmt == TD_FMT_CSV) {
		td_table_write(t, stdout, fmt);
	} else {
		write_totals_note(tot);
		if (shown)
			td_table_write(t, stdout, fmt);
		else if (unfiltered)
			printf("no row has --min-count %ld branches or more (%d rows; the largest has %lu)\n", opt_min_count,
			       unfiltered, most);
		else if (tot->spe_records)
			printf("no branch in these SPE records (no B operation packet with a PC)\n");
		else
			printf("no branch entries in the input (record with perf record -b, or -e arm_spe//)\n");
		if (shown < nrows)
			printf("\n(%d of %d rows; --top 0 for all)\n", shown, nrows);
		write_cause_note(rows, shown, "\n");
	}
	if (tot->spe_bad_packets)
		td_warn(NULL, 0, "%lu SPE packets perf could not decode (\"Bad packet!\") were skipped", tot->spe_bad_packets);
	td_table_free(t);
	branches_free(b);
	for (int i = 0; i < nbinaries; i++)
		elf_symbols_close(elf[i]);
	return td_exit_code(TD_EXIT_OK);
}
