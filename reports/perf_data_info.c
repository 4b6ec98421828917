/* td-info's views (perf_data_info.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reports/perf_data_info.h"
#include "reports/table.h"

void pd_info_write_record(FILE *f, const struct perf_data *d, const struct pd_record *r)
{
	fprintf(f, "%" PRIu64 "%s %s misc %#x size %u", r->offset, r->in_compressed ? "z" : "", perf_data_record_name(r->type),
	       r->misc, r->size);
	if (r->type == PERF_RECORD_SAMPLE && r->decoded) {
		const struct pd_sample *s = &r->u.sample;
		char *ev = perf_data_event_name_dup(d, s->attr);
		fprintf(f, ": %s pid %u tid %u cpu %u time %" PRIu64 " ip %#" PRIx64 " addr %#" PRIx64 " id %" PRIu64
		       " period %" PRIu64,
		       ev, s->pid, s->tid, s->cpu, s->time, s->ip, s->addr, s->id, s->period);
		free(ev);
		if (s->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
			fprintf(f, " weight %" PRIu64 "/%u/%u", s->weight, s->ins_lat, s->weight3);
		else if (s->sample_type & PERF_SAMPLE_WEIGHT)
			fprintf(f, " weight %" PRIu64, s->weight);
		if (s->sample_type & PERF_SAMPLE_DATA_SRC)
			fprintf(f, " data_src %#" PRIx64, s->data_src);
		if (s->sample_type & PERF_SAMPLE_READ) {
			fprintf(f, " read");
			for (uint64_t i = 0; i < s->nr_read; i++)
				fprintf(f, " %" PRIu64 "/%" PRIu64, s->read[i].value, s->read[i].id);
		}
		if (s->sample_type & PERF_SAMPLE_RAW)
			fprintf(f, " raw %u", s->raw_size);
		if (s->sample_type & PERF_SAMPLE_STACK_USER)
			fprintf(f, " stack %" PRIu64 "/%" PRIu64, s->stack_user_size, s->stack_user_dyn_size);
		if (s->nr_callchain) {
			fprintf(f, " callchain");
			for (uint64_t i = 0; i < s->nr_callchain; i++)
				fprintf(f, " 0x%" PRIx64, s->callchain[i]);
		}
		if (s->sample_type & PERF_SAMPLE_BRANCH_STACK) {
			fprintf(f, " branches %" PRIu64, s->nr_branches);
			if (s->has_hw_idx)
				fprintf(f, " hw_idx %" PRId64, (int64_t)s->hw_idx);
			for (uint64_t i = 0; i < s->nr_branches; i++) {
				const struct pd_branch *b = &s->branches[i];
				fprintf(f, " 0x%" PRIx64 "/0x%" PRIx64 "/%c/%c/%c/%u/%u", b->from, b->to,
				       b->mispred ? 'M' : b->predicted ? 'P' : '-', b->in_tx ? 'X' : '-',
				       b->abort ? 'A' : '-', b->cycles, b->type);
			}
		}
	} else if (r->decoded) {
		switch (r->type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			fprintf(f, ": %u/%u [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "] %s", r->u.mmap.pid, r->u.mmap.tid,
			       r->u.mmap.start, r->u.mmap.len, r->u.mmap.pgoff, r->u.mmap.filename);
			break;
		case PERF_RECORD_COMM:
			fprintf(f, ": %u/%u %s%s", r->u.comm.pid, r->u.comm.tid, r->u.comm.comm, r->u.comm.exec ? " (exec)" : "");
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			fprintf(f, ": %u(%u):(%u:%u) time %" PRIu64, r->u.task.pid, r->u.task.tid, r->u.task.ppid, r->u.task.ptid,
			       r->u.task.time);
			break;
		case PERF_RECORD_LOST:
			fprintf(f, ": id %" PRIu64 " lost %" PRIu64, r->u.lost.id, r->u.lost.lost);
			break;
		case PERF_RECORD_LOST_SAMPLES:
			fprintf(f, ": lost %" PRIu64, r->u.lost_samples.lost);
			break;
		default:
			break;
		}
	}
	if (r->sid.valid)
		fprintf(f, " [sample_id pid %u tid %u time %" PRIu64 " cpu %u]", r->sid.pid, r->sid.tid, r->sid.time, r->sid.cpu);
	putc('\n', f);
}

enum { E_NAME, E_TYPE, E_CONFIG, E_SAMPLING, E_SAMPLE_TYPE, E_BRANCH, E_SAMPLES, E_PERIOD, E_CALLCHAINS,
       E_BRANCH_ENTRIES, NECOLS };

static struct td_table *events_table(const struct perf_data *d, const struct pd_stats *st)
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
		char *name = perf_data_event_name_dup(d, i);
		td_table_str(t, E_NAME, name);
		free(name);
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

void pd_info_write_text(FILE *f, const struct perf_data *d, const struct pd_stats *st)
{
	const struct pd_info *s = &d->info;
	fprintf(f, "file: %s (%s mode%s, %llu bytes)\n", d->path, d->pipe_mode ? "pipe" : "file",
	       d->swapped ? ", byte-swapped" : "", (unsigned long long)d->file_size);
	if (s->version[0])
		fprintf(f, "perf version: %s\n", s->version);
	if (s->hostname[0] || s->osrelease[0] || s->arch[0])
		fprintf(f, "host: %s, os release %s, arch %s\n", s->hostname, s->osrelease, s->arch);
	if (s->nr_cpus_online || s->nr_cpus_avail)
		fprintf(f, "cpus: %u online of %u\n", s->nr_cpus_online, s->nr_cpus_avail);
	if (s->nr_sockets || s->nr_cores || s->nr_threads)
		fprintf(f, "topology: %u sockets, %u core sibling lists, %u thread sibling lists\n", s->nr_sockets, s->nr_cores,
		       s->nr_threads);
	for (size_t i = 0; i < s->nr_hybrid; i++)
		fprintf(f, "hybrid pmu: %s cpus %s\n", s->hybrid[i].pmu, s->hybrid[i].cpus);
	if (s->cpudesc[0] || s->cpuid[0])
		fprintf(f, "cpu: %s%s%s\n", s->cpudesc, s->cpuid[0] ? ", cpuid " : "", s->cpuid);
	if (s->total_mem_kb)
		fprintf(f, "memory: %llu kB\n", (unsigned long long)s->total_mem_kb);
	if (s->cmdline[0])
		fprintf(f, "command: %s\n", s->cmdline);
	if (st->has_time)
		fprintf(f, "time span: %.6f .. %.6f s (%.6f s)\n", st->first_time / 1e9, st->last_time / 1e9,
		       (st->last_time - st->first_time) / 1e9);
	fprintf(f, "features:");
	for (int k = 0; k < 256; k++)
		if (perf_data_has_feature(d, k))
			fprintf(f, " %s", perf_data_feature_name(k) ? perf_data_feature_name(k) : "unknown");
	fprintf(f, "\n");
	if (s->nr_build_ids)
		fprintf(f, "build ids: %zu (first: %s %s)\n", s->nr_build_ids, s->build_ids[0].hex, s->build_ids[0].filename);
	for (size_t i = 0; i < s->nr_groups; i++)
		fprintf(f, "group: %s leader %u, %u members\n", s->groups[i].name, s->groups[i].leader, s->groups[i].nr_members);
	if (s->nr_pmus) {
		fprintf(f, "pmus:");
		for (size_t i = 0; i < s->nr_pmus; i++)
			fprintf(f, " %s=%u", s->pmus[i].name, s->pmus[i].id);
		fprintf(f, "\n");
	}
	if (s->compressed_type)
		fprintf(f, "compressed: zstd level %u, ratio %u\n", s->compressed_level, s->compressed_ratio);
	fprintf(f, "\nevents:\n");
	struct td_table *t = events_table(d, st);
	td_table_write(t, f, TD_FMT_TEXT);
	td_table_free(t);
	fprintf(f, "\nrecords:\n");
	for (int r = 0; r < PD_STATS_NTYPES; r++)
		if (st->records[r])
			fprintf(f, "  %-20s %lu\n", perf_data_record_name((uint32_t)r), st->records[r]);
	if (st->other_records)
		fprintf(f, "  %-20s %lu\n", "unknown types", st->other_records);
	if (st->compressed_inner)
		fprintf(f, "  (%lu of them inside COMPRESSED records)\n", st->compressed_inner);
	fprintf(f, "\nlost: %llu events in %lu LOST records, %llu samples in LOST_SAMPLES records\n", st->lost,
	       st->records[PERF_RECORD_LOST], st->lost_samples);
	if (d->bad_samples)
		fprintf(f, "samples not matching any event's layout: %lu\n", d->bad_samples);
}

static void json_field(FILE *f, const char *key, const char *value, bool comma)
{
	fprintf(f, "%s\"%s\": ", comma ? ", " : "", key);
	td_json_string(f, value);
}

void pd_info_write_json(FILE *f, const struct perf_data *d, const struct pd_stats *st)
{
	const struct pd_info *s = &d->info;
	fprintf(f, "{");
	json_field(f, "file", d->path, false);
	fprintf(f, ", \"mode\": \"%s\", \"byte_swapped\": %s, \"bytes\": %llu", d->pipe_mode ? "pipe" : "file",
	       d->swapped ? "true" : "false", (unsigned long long)d->file_size);
	json_field(f, "perf_version", s->version, true);
	json_field(f, "hostname", s->hostname, true);
	json_field(f, "os_release", s->osrelease, true);
	json_field(f, "arch", s->arch, true);
	json_field(f, "cpu", s->cpudesc, true);
	json_field(f, "cpuid", s->cpuid, true);
	json_field(f, "command", s->cmdline, true);
	fprintf(f, ", \"cpus_online\": %u, \"cpus_available\": %u, \"sockets\": %u, \"total_mem_kb\": %llu", s->nr_cpus_online,
	       s->nr_cpus_avail, s->nr_sockets, (unsigned long long)s->total_mem_kb);
	if (st->has_time)
		fprintf(f, ", \"first_sample_ns\": %llu, \"last_sample_ns\": %llu", (unsigned long long)st->first_time,
		       (unsigned long long)st->last_time);
	fprintf(f, ",\n\"features\": [");
	bool first = true;
	for (int k = 0; k < 256; k++)
		if (perf_data_has_feature(d, k)) {
			fprintf(f, "%s", first ? "" : ", ");
			td_json_string(f, perf_data_feature_name(k) ? perf_data_feature_name(k) : "unknown");
			first = false;
		}
	fprintf(f, "],\n\"build_ids\": [");
	for (size_t i = 0; i < s->nr_build_ids; i++) {
		fprintf(f, "%s{\"pid\": %d, \"build_id\": \"%s\", \"file\": ", i ? ", " : "", s->build_ids[i].pid, s->build_ids[i].hex);
		td_json_string(f, s->build_ids[i].filename);
		fprintf(f, "}");
	}
	fprintf(f, "],\n\"groups\": [");
	for (size_t i = 0; i < s->nr_groups; i++) {
		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		td_json_string(f, s->groups[i].name);
		fprintf(f, ", \"leader\": %u, \"members\": %u}", s->groups[i].leader, s->groups[i].nr_members);
	}
	fprintf(f, "],\n\"pmus\": {");
	for (size_t i = 0; i < s->nr_pmus; i++) {
		fprintf(f, "%s", i ? ", " : "");
		td_json_string(f, s->pmus[i].name);
		fprintf(f, ": %u", s->pmus[i].id);
	}
	fprintf(f, "},\n\"hybrid\": {");
	for (size_t i = 0; i < s->nr_hybrid; i++) {
		fprintf(f, "%s", i ? ", " : "");
		td_json_string(f, s->hybrid[i].pmu);
		fprintf(f, ": ");
		td_json_string(f, s->hybrid[i].cpus);
	}
	fprintf(f, "},\n\"records\": {");
	first = true;
	for (int r = 0; r < PD_STATS_NTYPES; r++)
		if (st->records[r]) {
			fprintf(f, "%s\"%s\": %lu", first ? "" : ", ", perf_data_record_name((uint32_t)r), st->records[r]);
			first = false;
		}
	if (st->other_records)
		fprintf(f, "%s\"UNKNOWN\": %lu", first ? "" : ", ", st->other_records);
	fprintf(f, "},\n\"lost\": %llu, \"lost_samples\": %llu, \"unmatched_samples\": %lu,\n\"events\": ", st->lost,
	       st->lost_samples, d->bad_samples);
	struct td_table *t = events_table(d, st);
	td_table_write(t, f, TD_FMT_JSON);
	td_table_free(t);
	fprintf(f, "}\n");
}
