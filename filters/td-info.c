/* td-info: what a perf.data file holds: perf version, host, CPU, command
 * line, events with their attributes and sample counts, records by type,
 * lost samples, time span, features present. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/script_replay.h"
#include "common/diag.h"
#include "common/opts.h"
#include "parsers/perf_data.h"
#include "reports/perf_data_info.h"

static bool opt_json, opt_dump, opt_script;
static struct replay_options replay;

static const struct td_option options[] = {
	{ 0, "json", TD_OPT_FLAG, &opt_json, NULL, "JSON: one document (an array of them for several files)", NULL },
	{ 0, "dump", TD_OPT_FLAG, &opt_dump, NULL, "one line per record, decoded (before the summary)", NULL },
	{ 0, "script", TD_OPT_FLAG, &opt_script, NULL, "print the samples as perf script does by default (symbols resolved here), nothing else", NULL },
	{ 0, "symfs", TD_OPT_STRING, &replay.machine.symfs, "DIR", "with --script: look for binaries under DIR", NULL },
	{ 0, "kallsyms", TD_OPT_STRING, &replay.machine.kallsyms, "FILE", "with --script: kernel symbols from FILE", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-info", "[--json] [--dump] [--script] FILE...",
	"Describe perf.data files (file or pipe mode, either byte order, -z): header, features, events, records, lost samples.",
	options,
	"Reads perf.data FILEs, file or pipe mode (- is stdin); with --json and several FILEs, one JSON array of their documents.",
};

/* Every record counted, and with --dump written as it comes. */
static void count(void *ctx, const struct perf_data *d, const struct pd_record *r)
{
	if (opt_dump)
		pd_info_write_record(stdout, d, r);
	pd_stats_add(ctx, d, r);
}

static void print_line(void *ctx, const char *line, size_t len)
{
	(void)ctx;
	fwrite(line, 1, len, stdout);
	putchar('\n');
}

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	if (n == 0)
		td_usage_error(&cmd, "name a perf.data file (- for stdin)");
	bool json_array = opt_json && n > 1;    /* several files: one array, so the output is one JSON document */
	bool json_started = false;
	for (int i = 0; i < n; i++) {
		struct perf_data *d = perf_data_open(argv[i]);
		if (!d)
			continue;
		if (opt_script) {
			if (!replay.machine.buildid_dir)
				replay.machine.buildid_dir = getenv("PERF_BUILDID_DIR");
			script_replay(d, &replay, &(struct replay_sink){ print_line, NULL, NULL, NULL, NULL });
			perf_data_close(d);
			continue;
		}
		struct pd_stats *st = td_calloc(1, sizeof(*st));
		perf_data_walk(d, count, st);
		if (i && !opt_json)
			putchar('\n');
		if (opt_json) {
			if (json_array)
				fputs(json_started ? ",\n" : "[\n", stdout);
			json_started = true;
			pd_info_write_json(stdout, d, st);
		} else {
			pd_info_write_text(stdout, d, st);
		}
		pd_stats_free(st);
		free(st);
		perf_data_close(d);
	}
	if (json_array)
		fputs(json_started ? "]\n" : "[]\n", stdout);
	return td_exit_code(TD_EXIT_OK);
}
