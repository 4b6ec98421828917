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
#include "reports/table.h"

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

#define NTYPES 256

struct stats {
	unsigned long records[NTYPES], other_records, compressed_inner;
	unsigned long *samples, *callchains, *branch_samples;
	unsigned long long *periods, *branch_entries;
	unsigned long long lost, lost_samples;
	uint64_t first_time, last_time;
	bool has_time;
	int nattrs;
};

static void grow(struct stats *st, int nattrs)
{
	if (nattrs <= st->nattrs)
		return;
	int n = nattrs + 16;
	st->samples = td_realloc(st->samples, (size_t)n * sizeof *st->samples);
	st->callchains = td_realloc(st->callchains, (size_t)n * sizeof *st->callchains);
	st->branch_samples = td_realloc(st->branch_samples, (size_t)n * sizeof *st->branch_samples);
	st->periods = td_realloc(st->periods, (size_t)n * sizeof *st->periods);
	st->branch_entries = td_realloc(st->branch_entries, (size_t)n * sizeof *st->branch_entries);
	for (int i = st->nattrs; i < n; i++) {
		st->samples[i] = st->callchains[i] = st->branch_samples[i] = 0;
		st->periods[i] = st->branch_entries[i] = 0;
	}
	st->nattrs = n;
}

static void dump(const struct perf_data *d, const struct pd_record *r)
{
	printf("%" PRIu64 "%s %s misc %#x size %u", r->offset, r->in_compressed ? "z" : "", perf_data_record_name(r->type),
	       r->misc, r->size);
	if (r->type == PERF_RECORD_SAMPLE && r->decoded) {
		const struct pd_sample *s = &r->u.sample;
		char ev[160];
		perf_data_event_name(d, s->attr, ev, sizeof ev);
		printf(": %s pid %u tid %u cpu %u time %" PRIu64 " ip %#" PRIx64 " addr %#" PRIx64 " id %" PRIu64
		       " period %" PRIu64,
		       ev, s->pid, s->tid, s->cpu, s->time, s->ip, s->addr, s->id, s->period);
		if (s->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
			printf(" weight %" PRIu64 "/%u/%u", s->weight, s->ins_lat, s->weight3);
		else if (s->sample_type & PERF_SAMPLE_WEIGHT)
			printf(" weight %" PRIu64, s->weight);
		if (s->sample_type & PERF_SAMPLE_DATA_SRC)
			printf(" data_src %#" PRIx64, s->data_src);
		if (s->sample_type & PERF_SAMPLE_READ) {
			printf(" read");
			for (uint64_t i = 0; i < s->nr_read; i++)
				printf(" %" PRIu64 "/%" PRIu64, s->read[i].value, s->read[i].id);
		}
		if (s->sample_type & PERF_SAMPLE_RAW)
			printf(" raw %u", s->raw_size);
		if (s->sample_type & PERF_SAMPLE_STACK_USER)
			printf(" stack %" PRIu64 "/%" PRIu64, s->stack_user_size, s->stack_user_dyn_size);
		if (s->nr_callchain) {
			printf(" callchain");
			for (uint64_t i = 0; i < s->nr_callchain; i++)
				printf(" 0x%" PRIx64, s->callchain[i]);
		}
		if (s->sample_type & PERF_SAMPLE_BRANCH_STACK) {
			printf(" branches %" PRIu64, s->nr_branches);
			if (s->has_hw_idx)
				printf(" hw_idx %" PRId64, (int64_t)s->hw_idx);
			for (uint64_t i = 0; i < s->nr_branches; i++) {
				const struct pd_branch *b = &s->branches[i];
				printf(" 0x%" PRIx64 "/0x%" PRIx64 "/%c/%c/%c/%u/%u", b->from, b->to,
				       b->mispred ? 'M' : b->predicted ? 'P' : '-', b->in_tx ? 'X' : '-',
				       b->abort ? 'A' : '-', b->cycles, b->type);
			}
		}
	} else if (r->decoded) {
		switch (r->type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			printf(": %u/%u [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "] %s", r->u.mmap.pid, r->u.mmap.tid,
			       r->u.mmap.start, r->u.mmap.len, r->u.mmap.pgoff, r->u.mmap.filename);
			break;
		case PERF_RECORD_COMM:
			printf(": %u/%u %s%s", r->u.comm.pid, r->u.comm.tid, r->u.comm.comm, r->u.comm.exec ? " (exec)" : "");
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			printf(": %u(%u):(%u:%u) time %" PRIu64, r->u.task.pid, r->u.task.tid, r->u.task.ppid, r->u.task.ptid,
			       r->u.task.time);
			break;
		case PERF_RECORD_LOST:
			printf(": id %" PRIu64 " lost %" PRIu64, r->u.lost.id, r->u.lost.lost);
			break;
		case PERF_RECORD_LOST_SAMPLES:
			printf(": lost %" PRIu64, r->u.lost_samples.lost);
			break;
		default:
			break;
		}
	}
	if (r->sid.valid)
		printf(" [sample_id pid %u tid %u time %" PRIu64 " cpu %u]", r->sid.pid, r->sid.tid, r->sid.time, r->sid.cpu);
	putchar('\n');
}

static void count(void *ctx, const struct perf_data *d, const struct pd_record *r)
{
	struct stats *st = ctx;
	if (opt_dump)
		dump(d, r);
	if (r->type < NTYPES)
		st->records[r->type]++;
	else
		st->other_records++;
	st->compressed_inner += r->in_compressed;
	if (r->type == PERF_RECORD_LOST && r->decoded)
		st->lost += r->u.lost.lost;
	else if (r->type == PERF_RECORD_LOST_SAMPLES && r->decoded)
		st->lost_samples += r->u.lost_samples.lost;
	if (r->type != PERF_RECORD_SAMPLE || !r->decoded)
		return;
	const struct pd_sample *s = &r->u.sample;
	grow(st, d->nattrs);
	st->samples[s->attr]++;
	st->periods[s->attr] += s->period;
	st->callchains[s->attr] += s->nr_callchain > 0;
	st->branch_samples[s->attr] += (s->sample_type & PERF_SAMPLE_BRANCH_STACK) != 0;
	st->branch_entries[s->attr] += s->nr_branches;
	if (s->sample_type & PERF_SAMPLE_TIME) {
		if (!st->has_time || s->time < st->first_time)
			st->first_time = s->time;
		if (!st->has_time || s->time > st->last_time)
			st->last_time = s->time;
		st->has_time = true;
	}
}

enum { E_NAME, E_TYPE, E_CONFIG, E_SAMPLING, E_SAMPLE_TYPE, E_BRANCH, E_SAMPLES, E_PERIOD, E_CALLCHAINS,
       E_BRANCH_ENTRIES, NECOLS };

static struct td_table *events_table(const struct perf_data *d, const struct stats *st)
{
	static const struct td_column cols[NECOLS] = {
		{ "event", TD_COL_STR, 0 }, { "type", TD_COL_INT, 0 }, { "config", TD_COL_STR, 0 },
		{ "sampling", TD_COL_STR, 0 }, { "sample_type", TD_COL_STR, 0 }, { "branch_sample_type", TD_COL_STR, 0 },
		{ "samples", TD_COL_INT, 0 }, { "period", TD_COL_INT, 0 }, { "with_callchain", TD_COL_INT, 0 },
		{ "branch_entries", TD_COL_INT, 0 },
	};
	struct td_table *t = td_table_new(cols, NECOLS);
	for (int i = 0; i < d->nattrs; i++) {
		const struct perf_event_attr *a = &d->attrs[i].attr;
		char buf[512];
		td_table_row(t);
		perf_data_event_name(d, i, buf, sizeof buf);
		td_table_str(t, E_NAME, buf);
		td_table_int(t, E_TYPE, a->type);
		snprintf(buf, sizeof buf, "%#llx", (unsigned long long)a->config);
		td_table_str(t, E_CONFIG, buf);
		snprintf(buf, sizeof buf, "%s %llu", a->freq ? "freq" : "period", (unsigned long long)a->sample_period);
		td_table_str(t, E_SAMPLING, buf);
		perf_data_sample_type_str(a->sample_type, buf, sizeof buf);
		td_table_str(t, E_SAMPLE_TYPE, buf);
		perf_data_branch_type_str(a->branch_sample_type, buf, sizeof buf);
		td_table_str(t, E_BRANCH, buf);
		bool have = i < st->nattrs;
		td_table_int(t, E_SAMPLES, have ? (long long)st->samples[i] : 0);
		td_table_int(t, E_PERIOD, have ? (long long)st->periods[i] : 0);
		td_table_int(t, E_CALLCHAINS, have ? (long long)st->callchains[i] : 0);
		td_table_int(t, E_BRANCH_ENTRIES, have ? (long long)st->branch_entries[i] : 0);
	}
	return t;
}

static void write_text(const struct perf_data *d, const struct stats *st)
{
	const struct pd_info *s = &d->info;
	printf("file: %s (%s mode%s, %llu bytes)\n", d->path, d->pipe_mode ? "pipe" : "file",
	       d->swapped ? ", byte-swapped" : "", (unsigned long long)d->file_size);
	if (s->version[0])
		printf("perf version: %s\n", s->version);
	if (s->hostname[0] || s->osrelease[0] || s->arch[0])
		printf("host: %s, os release %s, arch %s\n", s->hostname, s->osrelease, s->arch);
	if (s->nr_cpus_online || s->nr_cpus_avail)
		printf("cpus: %u online of %u\n", s->nr_cpus_online, s->nr_cpus_avail);
	if (s->nr_sockets || s->nr_cores || s->nr_threads)
		printf("topology: %u sockets, %u core sibling lists, %u thread sibling lists\n", s->nr_sockets, s->nr_cores,
		       s->nr_threads);
	for (size_t i = 0; i < s->nr_hybrid; i++)
		printf("hybrid pmu: %s cpus %s\n", s->hybrid[i].pmu, s->hybrid[i].cpus);
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
	printf("\n");
	if (s->nr_build_ids)
		printf("build ids: %zu (first: %s %s)\n", s->nr_build_ids, s->build_ids[0].hex, s->build_ids[0].filename);
	for (size_t i = 0; i < s->nr_groups; i++)
		printf("group: %s leader %u, %u members\n", s->groups[i].name, s->groups[i].leader, s->groups[i].nr_members);
	if (s->nr_pmus) {
		printf("pmus:");
		for (size_t i = 0; i < s->nr_pmus; i++)
			printf(" %s=%u", s->pmus[i].name, s->pmus[i].id);
		printf("\n");
	}
	if (s->compressed_type)
		printf("compressed: zstd level %u, ratio %u\n", s->compressed_level, s->compressed_ratio);
	printf("\nevents:\n");
	struct td_table *t = events_table(d, st);
	td_table_write(t, stdout, TD_FMT_TEXT);
	td_table_free(t);
	printf("\nrecords:\n");
	for (int r = 0; r < NTYPES; r++)
		if (st->records[r])
			printf("  %-20s %lu\n", perf_data_record_name((uint32_t)r), st->records[r]);
	if (st->other_records)
		printf("  %-20s %lu\n", "unknown types", st->other_records);
	if (st->compressed_inner)
		printf("  (%lu of them inside COMPRESSED records)\n", st->compressed_inner);
	printf("\nlost: %llu events in %lu LOST records, %llu samples in LOST_SAMPLES records\n", st->lost,
	       st->records[PERF_RECORD_LOST], st->lost_samples);
	if (d->bad_samples)
		printf("samples not matching any event's layout: %lu\n", d->bad_samples);
}

static void json_field(const char *key, const char *value, bool comma)
{
	printf("%s\"%s\": ", comma ? ", " : "", key);
	td_json_string(stdout, value);
}

static void write_json(const struct perf_data *d, const struct stats *st)
{
	const struct pd_info *s = &d->info;
	printf("{");
	json_field("file", d->path, false);
	printf(", \"mode\": \"%s\", \"byte_swapped\": %s, \"bytes\": %llu", d->pipe_mode ? "pipe" : "file",
	       d->swapped ? "true" : "false", (unsigned long long)d->file_size);
	json_field("perf_version", s->version, true);
	json_field("hostname", s->hostname, true);
	json_field("os_release", s->osrelease, true);
	json_field("arch", s->arch, true);
	json_field("cpu", s->cpudesc, true);
	json_field("cpuid", s->cpuid, true);
	json_field("command", s->cmdline, true);
	printf(", \"cpus_online\": %u, \"cpus_available\": %u, \"sockets\": %u, \"total_mem_kb\": %llu", s->nr_cpus_online,
	       s->nr_cpus_avail, s->nr_sockets, (unsigned long long)s->total_mem_kb);
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
	printf("],\n\"build_ids\": [");
	for (size_t i = 0; i < s->nr_build_ids; i++) {
		printf("%s{\"pid\": %d, \"build_id\": \"%s\", \"file\": ", i ? ", " : "", s->build_ids[i].pid, s->build_ids[i].hex);
		td_json_string(stdout, s->build_ids[i].filename);
		printf("}");
	}
	printf("],\n\"groups\": [");
	for (size_t i = 0; i < s->nr_groups; i++) {
		printf("%s{\"name\": ", i ? ", " : "");
		td_json_string(stdout, s->groups[i].name);
		printf(", \"leader\": %u, \"members\": %u}", s->groups[i].leader, s->groups[i].nr_members);
	}
	printf("],\n\"pmus\": {");
	for (size_t i = 0; i < s->nr_pmus; i++) {
		printf("%s", i ? ", " : "");
		td_json_string(stdout, s->pmus[i].name);
		printf(": %u", s->pmus[i].id);
	}
	printf("},\n\"hybrid\": {");
	for (size_t i = 0; i < s->nr_hybrid; i++) {
		printf("%s", i ? ", " : "");
		td_json_string(stdout, s->hybrid[i].pmu);
		printf(": ");
		td_json_string(stdout, s->hybrid[i].cpus);
	}
	printf("},\n\"records\": {");
	first = true;
	for (int r = 0; r < NTYPES; r++)
		if (st->records[r]) {
			printf("%s\"%s\": %lu", first ? "" : ", ", perf_data_record_name((uint32_t)r), st->records[r]);
			first = false;
		}
	if (st->other_records)
		printf("%s\"UNKNOWN\": %lu", first ? "" : ", ", st->other_records);
	printf("},\n\"lost\": %llu, \"lost_samples\": %llu, \"unmatched_samples\": %lu,\n\"events\": ", st->lost,
	       st->lost_samples, d->bad_samples);
	struct td_table *t = events_table(d, st);
	td_table_write(t, stdout, TD_FMT_JSON);
	td_table_free(t);
	printf("}\n");
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
		struct stats *st = td_calloc(1, sizeof(*st));
		perf_data_walk(d, count, st);
		if (i && !opt_json)
			putchar('\n');
		if (opt_json) {
			if (json_array)
				fputs(json_started ? ",\n" : "[\n", stdout);
			json_started = true;
			write_json(d, st);
		} else {
			write_text(d, st);
		}
		free(st->samples);
		free(st->callchains);
		free(st->branch_samples);
		free(st->periods);
		free(st->branch_entries);
		free(st);
		perf_data_close(d);
	}
	if (json_array)
		fputs(json_started ? "]\n" : "[]\n", stdout);
	return td_exit_code(TD_EXIT_OK);
}
