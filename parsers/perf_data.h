/* perf.data, read without libperf: the file header, the event attributes
 * and their ids, the feature sections, and a walk over the records of the
 * data section (file mode) or of the stream (pipe mode), layouts from the
 * kernel UAPI <linux/perf_event.h> and perf's header format.
 *
 * perf.data is untrusted input: every size and offset is checked before
 * use; a problem is reported as "tool: FILE: offset N: what is wrong"
 * (counted as bad input) and ends the walk, after everything before it
 * was delivered. The file is read through a bounded window, never whole. */
#ifndef TD_PERF_DATA_H
#define TD_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define PD_MAX_ATTRS 256

struct pd_attr {
	struct perf_event_attr attr;     /* zero-extended to this kernel's size */
	uint64_t *ids;
	size_t nids;
	char name[128];                  /* from the EVENT_DESC feature, else "" */
};

/* One decoded sample (fields absent from sample_type are 0 / NULL). */
struct pd_sample {
	int attr;                        /* index into the attrs, -1 if unknown */
	uint64_t ip, time, addr, id, period, cpu;
	uint32_t pid, tid;
	const unsigned char *callchain;  /* into the record (maybe unaligned): use pd_callchain() */
	uint64_t nr_callchain;
	uint64_t nr_branches;
	const unsigned char *branches;   /* use pd_branch() */
};

/* Entry i of the callchain / branch stack (records need not be aligned). */
uint64_t pd_callchain(const struct pd_sample *s, uint64_t i);
void pd_branch(const struct pd_sample *s, uint64_t i, struct perf_branch_entry *out);

struct pd_feature_strings {
	char hostname[128], osrelease[128], version[64], arch[64], cpudesc[256], cpuid[128];
	char cmdline[1024];
	uint32_t nr_cpus_online, nr_cpus_avail;
	uint64_t total_mem_kb, sample_time_first, sample_time_last;
};

struct perf_data {
	const char *path;
	int fd;
	bool pipe_mode;
	uint64_t file_size;
	uint64_t data_offset, data_size;
	uint64_t features[4];            /* the feature bitmap */
	struct pd_attr attrs[PD_MAX_ATTRS];
	int nattrs;
	struct pd_feature_strings info;
	uint64_t bad_offset;             /* where reading stopped on bad input; 0 if it did not */
};

/* NULL (and "tool: FILE: ...") when the file cannot be read as perf.data. */
struct perf_data *perf_data_open(const char *path);
void perf_data_close(struct perf_data *d);

/* Called for every record: type, misc, the whole record (header included)
 * and its size; for PERF_RECORD_SAMPLE also the decoded sample. */
typedef void (*pd_record_fn)(void *ctx, const struct perf_data *d, uint32_t type, uint16_t misc,
			     const unsigned char *rec, size_t size, const struct pd_sample *sample);

/* Walks every record in file order; false if it stopped on bad input. */
bool perf_data_walk(struct perf_data *d, pd_record_fn fn, void *ctx);

bool perf_data_has_feature(const struct perf_data *d, int feature);
const char *perf_data_record_name(uint32_t type);
const char *perf_data_feature_name(int feature);

#endif
