/* perf.data, read without libperf: the file header, the event attributes
 * and their ids, the feature sections, and a walk over the records of the
 * data section (file mode) or of the stream (pipe mode), layouts from the
 * kernel UAPI <linux/perf_event.h> and perf's header format. Files written
 * on a big-endian machine are byte-swapped field by field (bitfields too).
 *
 * perf.data is untrusted input: every size and offset is checked before
 * use; a problem is reported as "tool: FILE: offset N: what is wrong"
 * (counted as bad input) and ends the walk, after everything before it
 * was delivered. The data is read through a bounded window (or a caller's
 * buffer, or a td_input stream), never slurped whole.
 *
 * Two ways to read records: perf_data_next() as an iterator, or
 * perf_data_walk() with a callback. Each yields a struct pd_record with
 * the decoded payload of the record types tools need (samples, maps,
 * comm, fork/exit, lost, throttle, aux), valid until the next record.
 *
 * Fast paths (records pinned in the window instead of copied, samples of
 * the common layout read by word index) are off under TD_PLAIN=1
 * (common/plain.h); both ways give the same records. */
#ifndef TD_PERF_DATA_H
#define TD_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct td_input;

#define PD_MAX_ATTRS 1024

struct pd_attr {
	struct perf_event_attr attr;     /* host byte order, zero-extended to this kernel's size */
	uint64_t *ids;
	size_t nids;
	char *name;                      /* from EVENT_DESC / EVENT_UPDATE, else NULL */
};

/* One branch stack entry, bitfields unpacked (either byte order). */
struct pd_branch {
	uint64_t from, to;
	uint16_t cycles;
	uint8_t mispred, predicted, in_tx, abort, type, spec, new_type, priv;
};

/* One value of PERF_SAMPLE_READ (read_format decides which are set). */
struct pd_read_value {
	uint64_t value, id, lost;
};

/* One decoded sample; fields absent from the attr's sample_type are 0 /
 * NULL. Arrays point into the reader and live until the next record. */
struct pd_sample {
	int attr;                        /* index into perf_data.attrs */
	uint64_t sample_type;
	uint64_t ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu;
	/* PERF_SAMPLE_CALLCHAIN: addresses and PERF_CONTEXT_* markers, see pd_context() */
	const uint64_t *callchain;
	uint64_t nr_callchain;
	/* PERF_SAMPLE_BRANCH_STACK (hw_idx only with PERF_SAMPLE_BRANCH_HW_INDEX) */
	const struct pd_branch *branches;
	uint64_t nr_branches, hw_idx;
	bool has_hw_idx;
	/* PERF_SAMPLE_READ */
	uint64_t time_enabled, time_running;
	const struct pd_read_value *read;
	uint64_t nr_read;
	/* PERF_SAMPLE_RAW, AUX, REGS_*, STACK_USER: in file byte order */
	const unsigned char *raw, *aux, *regs_user, *regs_intr, *stack_user;
	uint32_t raw_size;
	uint64_t aux_size, regs_user_abi, regs_intr_abi, stack_user_size, stack_user_dyn_size;
	/* WEIGHT (whole u64) or WEIGHT_STRUCT (weight = var1_dw, ins_lat = var2_w, weight3 = var3_w) */
	uint64_t weight;
	uint16_t ins_lat, weight3;
	uint64_t data_src, transaction, phys_addr, cgroup, data_page_size, code_page_size;
};

/* The sample_id_all trailer of a non-sample record. */
struct pd_sample_id {
	bool valid;
	uint32_t pid, tid, cpu;
	uint64_t time, id, stream_id;
};

struct pd_record {
	uint32_t type;                   /* PERF_RECORD_* */
	uint16_t misc, size;
	uint64_t offset;                 /* file offset (of the COMPRESSED record, for records inside one) */
	bool in_compressed;
	const unsigned char *raw;        /* the whole record, header included, file byte order */
	int attr;                        /* event of a sample or of a sample_id trailer, -1 if unknown */
	bool decoded;                    /* the payload below is valid (false: too short, or no matching event) */
	struct pd_sample_id sid;
	union {
		struct pd_sample sample;
		struct {                 /* MMAP, MMAP2 */
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t maj, min, prot, flags;
			uint64_t ino, ino_generation;
			bool has_build_id;       /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
			uint8_t build_id_size, build_id[20];
			const char *filename;
		} mmap;
		struct {                 /* COMM */
			uint32_t pid, tid;
			bool exec;
			const char *comm;
		} comm;
		struct {                 /* FORK, EXIT */
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task;
		struct { uint64_t id, lost; } lost;                 /* LOST */
		struct { uint64_t lost; } lost_samples;             /* LOST_SAMPLES */
		struct { uint64_t time, id, stream_id; } throttle;  /* THROTTLE, UNTHROTTLE */
		struct { uint64_t aux_offset, aux_size, flags; } aux; /* AUX */
		struct { uint32_t pid, tid; } itrace_start;         /* ITRACE_START */
		struct { uint64_t size, offset, reference; uint32_t idx, tid, cpu; } auxtrace; /* AUXTRACE */
	} u;
};

/* perf's PERF_CONTEXT_* markers inside a callchain. */
static inline bool pd_is_context(uint64_t ip) { return ip >= (uint64_t)PERF_CONTEXT_MAX; }

struct pd_build_id {
	int32_t pid;
	uint16_t misc;
	char hex[41];
	char *filename;
};

struct pd_name_id { uint32_t id; char *name; };            /* pmu_mappings */
struct pd_group { char *name; uint32_t leader, nr_members; };
struct pd_hybrid { char *pmu, *cpus; };

struct pd_info {
	char hostname[128], osrelease[128], version[64], arch[64], cpudesc[256], cpuid[128];
	char cmdline[2048];
	uint32_t nr_cpus_online, nr_cpus_avail;
	uint64_t total_mem_kb, sample_time_first, sample_time_last;
	uint32_t nr_sockets, nr_cores, nr_threads; /* cpu_topology: distinct core and thread sibling lists */
	char **core_siblings, **thread_siblings;
	uint32_t nr_core_siblings, nr_thread_siblings;
	struct pd_build_id *build_ids;
	size_t nr_build_ids;
	struct pd_name_id *pmus;
	size_t nr_pmus;
	struct pd_group *groups;
	size_t nr_groups;
	struct pd_hybrid *hybrid;
	size_t nr_hybrid;
	uint32_t compressed_type, compressed_level, compressed_ratio;
};

struct pd_src;

struct perf_data {
	const char *path;                /* name used in messages */
	bool pipe_mode, swapped;         /* swapped: written on a machine of the other byte order */
	uint64_t file_size;              /* UINT64_MAX for a stream of unknown length */
	uint64_t data_offset, data_size;
	uint64_t features[4];            /* the feature bitmap (pipe mode: features seen so far) */
	struct pd_attr *attrs;
	int nattrs;
	struct pd_info info;
	uint64_t bad_offset;             /* where reading stopped on bad input; 0 if it did not */
	unsigned long bad_samples;       /* samples that did not fit their event's layout (reported, skipped) */
	bool samples_decoded_later;      /* see perf_data_decode */
	struct pd_src *src;              /* reading state (private) */
};

/* NULL (and "tool: FILE: ...") when the input cannot be read as perf.data.
 * A path is read with pread through a window; "-", gzip or zstd files go
 * through the input layer (pipe mode streamed; file mode spooled to an
 * unlinked temporary file since it needs random access). */
struct perf_data *perf_data_open(const char *path);
/* From bytes in memory (not copied; must outlive the reader). */
struct perf_data *perf_data_open_buffer(const void *buf, size_t len, const char *name);
/* From an input already opened (not closed by the reader). */
struct perf_data *perf_data_open_input(struct td_input *in);
void perf_data_close(struct perf_data *d);

/* The next record: 1 and *rec set; 0 at the end; -1 when the walk stopped
 * on bad input (already reported). */
int perf_data_next(struct perf_data *d, const struct pd_record **rec);

/* Keeps rec->raw, of the record perf_data_next() just gave, valid until
 * perf_data_unpin(d, pin), so that it can be queued without a copy: its
 * window's buffer is left to it and the reader reads on into another.
 * NULL when it cannot be kept (a record unpacked from a COMPRESSED one, or
 * read from a stream; any window record under TD_PLAIN): copy it then.
 * Records of a reader over memory are always kept (unpinning does
 * nothing). Every pin is unpinned before perf_data_close(). */
struct pd_pin;
struct pd_pin *perf_data_pin(struct perf_data *d, const struct pd_record *rec);
void perf_data_unpin(struct perf_data *d, struct pd_pin *pin);

/* Decode again a record copied out of an earlier one's raw bytes (rec->raw,
 * rec->size bytes), e.g. after queueing records to sort them by time;
 * attr is that record's rec->attr (the event is not looked up again where
 * it cannot have changed). Arrays in *out live until the next record is
 * read or decoded.
 *
 * A reader that decodes every sample again this way sets
 * samples_decoded_later: then perf_data_next decodes of a sample only its
 * event (attr), sample_type and time (rec->decoded: those fit), and
 * perf_data_decode reports a sample that does not fit its layout. */
void perf_data_decode(struct perf_data *d, const void *raw, uint64_t offset, int attr, struct pd_record *out);

typedef void (*pd_record_fn)(void *ctx, const struct perf_data *d, const struct pd_record *rec);
/* Every record in file order; false if it stopped on bad input. */
bool perf_data_walk(struct perf_data *d, pd_record_fn fn, void *ctx);

/* A sample's event name: the recorded name, else perf's name of a generic
 * hardware/software event, else "type T config C"; NUL-terminated in buf
 * (cut to cap - 1 bytes). Returns the length of the whole name, as
 * snprintf does: cap or more means it was cut. */
size_t perf_data_event_name(const struct perf_data *d, int attr, char *buf, size_t cap);
/* The same name, whole, in a new string (free it). */
char *perf_data_event_name_dup(const struct perf_data *d, int attr);

bool perf_data_has_feature(const struct perf_data *d, int feature);
const char *perf_data_record_name(uint32_t type);
const char *perf_data_feature_name(int feature);
/* "IP|TID|..." for a sample_type; "ANY|USER|..." for a branch_sample_type. */
void perf_data_sample_type_str(uint64_t sample_type, char *buf, size_t cap);
void perf_data_branch_type_str(uint64_t branch_sample_type, char *buf, size_t cap);

#endif
