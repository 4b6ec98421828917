/* td-branches' report (branches_report.h). */
#include <math.h>
#include <string.h>
#include "reports/branches_report.h"

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

static void write_cause_note(FILE *f, const struct br_row *rows, int n, const char *prefix)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(rows[i].cause, BR_CAUSE_TOO_FEW)) {
			fprintf(f, "%slikely cause: named for rows of %d or more branches with a P or M flag; "
			       "fewer are too few to judge\n", prefix, BR_CAUSE_MIN_JUDGED);
			return;
		}
}

static void write_markdown(FILE *f, const struct br_totals *tot, const struct br_row *rows, int n)
{
	fprintf(f, "## Branch Trace Hotspots\n\n%lu samples, %lu branch entries, %lu mispredicted (%.2f%%)\n\n", tot->samples,
	       tot->entries, tot->mispredicted, tot->entries ? 100.0 * (double)tot->mispredicted / (double)tot->entries : 0);
	fprintf(f, "| Rank | From → To | Mispredict Rate | Type | Likely Cause | Count | Mispredicted | Cycles (mean) |\n");
	fprintf(f, "|---:|---|---:|---|---|---:|---:|---:|\n");
	for (int i = 0; i < n; i++) {
		const struct br_row *r = &rows[i];
		fprintf(f, "| %d | `%s`%s%s%s | ", i + 1, r->from, r->to[0] ? " → `" : "", r->to, r->to[0] ? "`" : "");
		if (isnan(r->rate))
			fprintf(f, "n/a");
		else
			fprintf(f, "%.2f%%", 100 * r->rate);
		fprintf(f, " | %s | %s | %lu | %lu | ", r->type[0] ? r->type : "-", r->cause, r->count, r->mispredicted);
		if (isnan(r->cycles_mean))
			fprintf(f, "- |\n");
		else
			fprintf(f, "%.1f |\n", r->cycles_mean);
	}
	write_cause_note(f, rows, n, "\n");
}

static void write_totals_note(FILE *f, const struct br_totals *t)
{
	fprintf(f, "%lu samples, %lu branch entries (%lu unused 0x0 slots not ranked), %lu mispredicted, %lu without prediction info",
	       t->samples, t->entries, t->empty, t->mispredicted, t->no_info);
	if (t->spe_records)
		fprintf(f, "; %lu SPE records (%lu bad packets)", t->spe_records, t->spe_bad_packets);
	if (t->skipped_events)
		fprintf(f, "; %lu SPE samples of other events skipped", t->skipped_events);
	fprintf(f, "\n\n");
}

void br_report_write(FILE *f, const struct br_report *r)
{
	enum td_format fmt = r->format;
	const struct br_totals *tot = r->totals;
	const struct br_row *rows = r->rows;
	int shown = r->shown, nrows = r->nrows, unfiltered = r->unfiltered;
	unsigned long most = r->most;
	struct td_table *t = ranking_table(rows, shown);
	if (fmt == TD_FMT_MARKDOWN) {
		write_markdown(f, tot, rows, shown);
	} else if (fmt == TD_FMT_JSON) {
		fprintf(f, "{\"totals\": {\"samples\": %lu, \"entries\": %lu, \"mispredicted\": %lu, \"no_info\": %lu, \"empty\": %lu, "
		       "\"spe_records\": %lu, \"spe_bad_packets\": %lu},\n\"by\": \"%s\", \"rows_total\": %d, "
		       "\"rows_before_min_count\": %d, \"cause_min_judged\": %d,\n\"rows\": ",
		       tot->samples, tot->entries, tot->mispredicted, tot->no_info, tot->empty, tot->spe_records,
		       tot->spe_bad_packets, r->by, nrows, unfiltered, BR_CAUSE_MIN_JUDGED);
		td_table_write(t, f, fmt);
		fprintf(f, "}\n");
	} else if (fmt == TD_FMT_CSV) {
		td_table_write(t, f, fmt);
	} else {
		write_totals_note(f, tot);
		if (shown)
			td_table_write(t, f, fmt);
		else if (unfiltered)
			fprintf(f, "no row has --min-count %ld branches or more (%d rows; the largest has %lu)\n", r->min_count,
			       unfiltered, most);
		else if (tot->spe_records)
			fprintf(f, "no branch in these SPE records (no B operation packet with a PC)\n");
		else
			fprintf(f, "no branch entries in the input (record with perf record -b, or -e arm_spe//)\n");
		if (shown < nrows)
			fprintf(f, "\n(%d of %d rows; --top 0 for all)\n", shown, nrows);
		write_cause_note(f, rows, shown, "\n");
	}
	td_table_free(t);
}
