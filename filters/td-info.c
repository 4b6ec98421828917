/* td-info: what a perf.data file holds: perf version, host, CPU, command
 * line, events with their attributes and sample counts, records by type,
 * lost samples, time span, features present. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/opts.h"
#include "parsers/perf_data.h"
#include "reports/table.h"

static bool opt_json;

static const struct td_option options[] = {
	{ 0, "json", TD_OPT_FLAG, &opt_json, NULL, "one JSON document per file", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-info", "[--json] FILE...",
	"Describe perf.data files (file or pipe mode): header, features, events, records, lost samples.",
	options,
};

struct stats {
	unsigned long records[128], other_records, samples[PD_MAX_ATTRS], unmatched_samples;
	unsigned long long lost, lost_samples;
	uint64_t first_time, last_time;
	bool has_time;
};

static void count(void *ctx, const struct perf_data *d, uint32_t type, uint16_t misc, const unsigned char *rec,
		  size_t size, const struct pd_sample *s)
{
	struct stats *st = ctx;
	(void)misc;
	if (type < 128)
		st->records[type]++;
	else
		st->other_records++;
	if (type == PERF_RECORD_LOST && size >= 24) {
		uint64_t lost;
		memcpy(&lost, rec + 16, 8);
		st->lost += lost;
	} else if (type == PERF_RECORD_LOST_SAMPLES && size >= 16) {
		uint64_t lost;
		memcpy(&lost, rec + 8, 8);
		st->lost_samples += lost;
	}
	if (type != PERF_RECORD_SAMPLE)
		return;
	if (!s) {
		st->unmatched_samples++;
		return;
	}
	st->samples[s->attr]++;
	if (d->attrs[s->attr].attr.sample_type & PERF_SAMPLE_TIME) {
		if (!st->has_time || s->time < st->first_time)
			st->first_time = s->time;
		if (!st->has_time || s->time > st->last_time)
			st->last_time = s->time;
		st->has_time = true;
	}
}

static const char *const hw_names[] = { "cycles", "instructions", "cache-references", "cache-misses",
					"branch-instructions", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
					"stalled-cycles-backend", "ref-cycles" };
static const char *const sw_names[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
					"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
					"emulation-faults", "dummy", "bpf-output", "cgroup-switches" };

static void event_name(const struct pd_attr *a, char *buf, size_t cap)
{
	const struct perf_event_attr *e = &a->attr;
	if (a->name[0])
		snprintf(buf, cap, "%s", a->name);
	else if (e->type == PERF_TYPE_HARDWARE && e->config < sizeof hw_names / sizeof *hw_names)
		snprintf(buf, cap, "%s", hw_names[e->config]);
	else if (e->type == PERF_TYPE_SOFTWARE && e->config < sizeof sw_names / sizeof *sw_names)
		snprintf(buf, cap, "%s", sw_names[e->config]);
	else
		snprintf(buf, cap, "type %u config %#llx", e->type, (unsigned long long)e->config);
}

static void sample_type_names(uint64_t st, char *buf, size_t cap)
{
	static const char *const names[] = { "IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
					     "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
					     "DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
					     "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT" };
	size_t w = 0;
	buf[0] = '\0';
	for (int b = 0; b < 64; b++)
		if (st >> b & 1)
			w += (size_t)snprintf(buf + w, w < cap ? cap - w : 0, "%s%s", w ? "|" : "",
					      b < (int)(sizeof names / sizeof *names) ? names[b] : "?");
}

enum { E_NAME, E_TYPE, E_CONFIG, E_SAMPLING, E_SAMPLE_TYPE, E_BRANCH, E_SAMPLES, NECOLS };

static struct td_table *events_table(const struct perf_data *d, const struct stats *st)
{
	static const struct td_column cols[NECOLS] = {
		{ "event", TD_COL_STR, 0 }, { "type", TD_COL_INT, 0 }, { "config", TD_COL_STR, 0 },
		{ "sampling", TD_COL_STR, 0 }, { "sample_type", TD_COL_STR, 0 }, { "branch_sample_type", TD_COL_STR, 0 },
		{ "samples", TD_COL_INT, 0 },
	};
	struct td_table *t = td_table_new(cols, NECOLS);
	for (int i = 0; i < d->nattrs; i++) {
		const struct perf_event_attr *a = &d->attrs[i].attr;
		char buf[512];
		td_table_row(t);
		event_name(&d->attrs[i], buf, sizeof buf);
		td_table_str(t, E_NAME, buf);
		td_table_int(t, E_TYPE, a->type);
		snprintf(buf, sizeof buf, "%#llx", (unsigned long long)a->config);
		td_table_str(t, E_CONFIG, buf);
		snprintf(buf, sizeof buf, "%s %llu", a->freq ? "freq" : "period", (unsigned long long)a->sample_period);
		td_table_str(t, E_SAMPLING, buf);
		sample_type_names(a->sample_type, buf, sizeof buf);
		td_table_str(t, E_SAMPLE_TYPE, buf);
		if (a->branch_sample_type)
			snprintf(buf, sizeof buf, "%#llx", (unsigned long long)a->branch_sample_type);
		td_table_str(t, E_BRANCH, a->branch_sample_type ? buf : "");
		td_table_int(t, E_SAMPLES, (long long)st->samples[i]);
	}
	return t;
}

static void write_text(const struct perf_data *d, const struct stats *st)
{
	const struct pd_feature_strings *s = &d->info;
	printf("file: %s (%s mode, %llu bytes)\n", d->path, d->pipe_mode ? "pipe" : "file", (unsigned long long)d->file_size);
	if (s->version[0])
		printf("perf version: %s\n", s->version);
	if (s->hostname[0] || s->osrelease[0] || s->arch[0])
		printf("host: %s, os release %s, arch %s\n", s->hostname, s->osrelease, s->arch);
	if (s->nr_cpus_online || s->nr_cpus_avail)
		printf("cpus: %u online of %u\n", s->nr_cpus_online, s->nr_cpus_avail);
	if (s->cpudesc[0] || s->cpuid[0])
		printf("cpu: %s%s%s\n", s->cpudesc, s->cpuid[0] ? ", cpuid " : "", s->cpuid);
	if (s->total_mem_kb)
		printf("memory: %llu kB\n", (unsigned long long)s->total_mem_kb);
	if (s->cmdline[0])
		printf("command: %s\n", s->cmdline);
	if (st->has_time)
		printf("time span: %.6f .. %.6f s (%.6f s)\n", st->first_time / 1e9, st->last_time / 1e9,
		       (st->last_time - st->first_time) / 1e9);
	printf("features:");
	for (int f = 0; f < 256; f++)
		if (perf_data_has_feature(d, f))
			printf(" %s", perf_data_feature_name(f) ? perf_data_feature_name(f) : "unknown");
	printf("\n\nevents:\n");
	struct td_table *t = events_table(d, st);
	td_table_write(t, stdout, TD_FMT_TEXT);
	td_table_free(t);
	printf("\nrecords:\n");
	for (int r = 0; r < 128; r++)
		if (st->records[r])
			printf("  %-20s %lu\n", perf_data_record_name((uint32_t)r), st->records[r]);
	if (st->other_records)
		printf("  %-20s %lu\n", "unknown types", st->other_records);
	printf("\nlost: %llu events in %lu LOST records, %llu samples in LOST_SAMPLES records\n", st->lost,
	       st->records[PERF_RECORD_LOST], st->lost_samples);
	if (st->unmatched_samples)
		printf("samples not matching any event's layout: %lu\n", st->unmatched_samples);
}

static void json_field(const char *key, const char *value, bool comma)
{
	printf("%s\"%s\": ", comma ? ", " : "", key);
	td_json_string(stdout, value);
}

static void write_json(const struct perf_data *d, const struct stats *st)
{
	const struct pd_feature_strings *s = &d->info;
	printf("{");
	json_field("file", d->path, false);
	printf(", \"mode\": \"%s\", \"bytes\": %llu", d->pipe_mode ? "pipe" : "file", (unsigned long long)d->file_size);
	json_field("perf_version", s->version, true);
	json_field("hostname", s->hostname, true);
	json_field("os_release", s->osrelease, true);
	json_field("arch", s->arch, true);
	json_field("cpu", s->cpudesc, true);
	json_field("cpuid", s->cpuid, true);
	json_field("command", s->cmdline, true);
	printf(", \"cpus_online\": %u, \"cpus_available\": %u, \"total_mem_kb\": %llu", s->nr_cpus_online, s->nr_cpus_avail,
	       (unsigned long long)s->total_mem_kb);
	if (st->has_time)
		printf(", \"first_sample_ns\": %llu, \"last_sample_ns\": %llu", (unsigned long long)st->first_time,
		       (unsigned long long)st->last_time);
	printf(",\n\"features\": [");
	bool first = true;
	for (int f = 0; f < 256; f++)
		if (perf_data_has_feature(d, f)) {
			printf("%s", first ? "" : ", ");
			td_json_string(stdout, perf_data_feature_name(f) ? perf_data_feature_name(f) : "unknown");
			first = false;
		}
	printf("],\n\"records\": {");
	first = true;
	for (int r = 0; r < 128; r++)
		if (st->records[r]) {
			printf("%s\"%s\": %lu", first ? "" : ", ", perf_data_record_name((uint32_t)r), st->records[r]);
			first = false;
		}
	printf("},\n\"lost\": %llu, \"lost_samples\": %llu, \"unmatched_samples\": %lu,\n\"events\": ", st->lost,
	       st->lost_samples, st->unmatched_samples);
	struct td_table *t = events_table(d, st);
	td_table_write(t, stdout, TD_FMT_JSON);
	td_table_free(t);
	printf("}\n");
}

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	if (n == 0)
		td_usage_error(&cmd, "name a perf.data file");
	for (int i = 0; i < n; i++) {
		struct perf_data *d = perf_data_open(argv[i]);
		if (!d)
			continue;
		struct stats *st = td_calloc(1, sizeof(*st));
		perf_data_walk(d, count, st);
		if (i && !opt_json)
			putchar('\n');
		if (opt_json)
			write_json(d, st);
		else
			write_text(d, st);
		free(st);
		perf_data_close(d);
	}
	return td_exit_code(TD_EXIT_OK);
}
