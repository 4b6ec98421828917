/* td-store: perf stat runs kept with their labels, on SQLite or PostgreSQL;
 * git-style verbs, one file each (filters/td-store/cmd_*.c). */
#include <stdio.h>
#include <string.h>
#include "common/diag.h"
#include "common/opts.h"
#include "filters/td-store/verbs.h"

static const struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} verbs[] = {
	{ "add", cmd_add, "keep perf stat captures as runs, with labels" },
	{ "list", cmd_list, "the runs, newest first, with their labels and a summary" },
	{ "show", cmd_show, "one run: its metrics and Top-down tree, or its counters" },
	{ "query", cmd_query, "bottlenecks, runs by node or metric, the funnel" },
	{ "compare", cmd_compare, "A/B over stored runs: Welch's test, td-diff's thresholds and verdicts (exit 1 on a regression)" },
	{ "trend", cmd_trend, "one metric over time: rolling mean, anomalies, change points (exit 1 on a new one)" },
	{ "export", cmd_export, "one row per run and metric (CSV or JSON lines)" },
	{ "import", cmd_import, "read an export back" },
	{ "rm", cmd_rm, "remove runs" },
	{ "rederive", cmd_rederive, "derive runs again from their kept captures, report what changed" },
	{ "migrate", cmd_migrate, "bring the database's schema up to this version" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: td-store VERB [options] ...\n"
		   "Keeps perf stat runs with their labels, counters, metrics and Top-down trees.\n\n"
		   "verbs:\n");
	for (const struct verb *v = verbs; v->name; v++)
		fprintf(f, "  %-10s %s\n", v->name, v->summary);
	fprintf(f, "\nEvery verb takes --db URL (an SQLite file or a PostgreSQL URL; default $TD_DB,\n"
		   "else ~/.local/share/tdkit/runs.db) and --help. See td-store(1).\n");
}

int main(int argc, char **argv)
{
	td_progname = "td-store";
	if (argc < 2) {
		usage(stderr);
		return TD_EXIT_BAD;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return TD_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("td-store (tdkit) %s, store schema %d\n", td_version, store_schema_latest());
		return TD_EXIT_OK;
	}
	for (const struct verb *v = verbs; v->name; v++)
		if (!strcmp(argv[1], v->name))
			return v->run(argc - 1, argv + 1);
	td_error("'%s' is not a td-store verb (see td-store --help)", argv[1]);
	return TD_EXIT_BAD;
}
