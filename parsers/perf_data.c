#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "common/diag.h"
#include "perf_data.h"

#define MAGIC2 0x32454c4946524550ULL         /* "PERFILE2" */
#define MAGIC2_SWAPPED 0x50455246494c4532ULL
#define WINDOW (1u << 20)
#define MAX_FEATURE_BYTES (16u << 20)

enum { HEADER_ATTR = 64, HEADER_FEATURE = 80, AUXTRACE = 71, COMPRESSED = 81, COMPRESSED2 = 83 };

static const char *const feature_names[] = {
	[1] = "tracing_data", [2] = "build_id", [3] = "hostname", [4] = "osrelease", [5] = "version", [6] = "arch",
	[7] = "nrcpus", [8] = "cpudesc", [9] = "cpuid", [10] = "total_mem", [11] = "cmdline", [12] = "event_desc",
	[13] = "cpu_topology", [14] = "numa_topology", [15] = "branch_stack", [16] = "pmu_mappings",
	[17] = "group_desc", [18] = "auxtrace", [19] = "stat", [20] = "cache", [21] = "sample_time",
	[22] = "mem_topology", [23] = "clockid", [24] = "dir_format", [25] = "bpf_prog_info", [26] = "bpf_btf",
	[27] = "compressed", [28] = "cpu_pmu_caps", [29] = "clock_data", [30] = "hybrid_topology", [31] = "pmu_caps",
};

const char *perf_data_feature_name(int f)
{
	return f > 0 && f < (int)(sizeof feature_names / sizeof *feature_names) && feature_names[f] ? feature_names[f] : NULL;
}

static const char *const record_names[] = {
	[1] = "MMAP", [2] = "LOST", [3] = "COMM", [4] = "EXIT", [5] = "THROTTLE", [6] = "UNTHROTTLE", [7] = "FORK",
	[8] = "READ", [9] = "SAMPLE", [10] = "MMAP2", [11] = "AUX", [12] = "ITRACE_START", [13] = "LOST_SAMPLES",
	[14] = "SWITCH", [15] = "SWITCH_CPU_WIDE", [16] = "NAMESPACES", [17] = "KSYMBOL", [18] = "BPF_EVENT",
	[19] = "CGROUP", [20] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID", [64] = "HEADER_ATTR", [65] = "HEADER_EVENT_TYPE",
	[66] = "HEADER_TRACING_DATA", [67] = "HEADER_BUILD_ID", [68] = "FINISHED_ROUND", [69] = "ID_INDEX",
	[70] = "AUXTRACE_INFO", [71] = "AUXTRACE", [72] = "AUXTRACE_ERROR", [73] = "THREAD_MAP", [74] = "CPU_MAP",
	[75] = "STAT_CONFIG", [76] = "STAT", [77] = "STAT_ROUND", [78] = "EVENT_UPDATE", [79] = "TIME_CONV",
	[80] = "HEADER_FEATURE", [81] = "COMPRESSED", [82] = "FINISHED_INIT", [83] = "COMPRESSED2",
};

const char *perf_data_record_name(uint32_t type)
{
	return type < sizeof record_names / sizeof *record_names && record_names[type] ? record_names[type] : "UNKNOWN";
}

bool perf_data_has_feature(const struct perf_data *d, int f)
{
	return f >= 0 && f < 256 && (d->features[f / 64] >> (f % 64)) & 1;
}

static bool bad(struct perf_data *d, uint64_t offset, const char *what)
{
	td_bad_input(d->path, 0, "offset %llu: %s", (unsigned long long)offset, what);
	if (!d->bad_offset)
		d->bad_offset = offset ? offset : 1;
	return false;
}

static bool read_at(struct perf_data *d, uint64_t off, void *buf, size_t n)
{
	if (off > d->file_size || n > d->file_size - off)
		return bad(d, off, "read past the end of the file (truncated, or a size in the file lies)");
	ssize_t got = pread(d->fd, buf, n, (off_t)off);
	if (got != (ssize_t)n)
		return bad(d, off, "short read");
	return true;
}

static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* ---- attributes ---------------------------------------------------------- */

static void copy_attr(struct pd_attr *a, const unsigned char *p, size_t n)
{
	memset(&a->attr, 0, sizeof a->attr);
	memcpy(&a->attr, p, n < sizeof a->attr ? n : sizeof a->attr);
}

static bool add_ids(struct perf_data *d, struct pd_attr *a, const unsigned char *p, size_t bytes)
{
	size_t n = bytes / 8;
	if (n > (1u << 20))
		return bad(d, 0, "absurd number of event ids");
	a->ids = td_realloc(a->ids, (a->nids + n + 1) * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++)
		a->ids[a->nids++] = get64(p + 8 * i);
	return true;
}

static bool read_file_attrs(struct perf_data *d, uint64_t attr_size, uint64_t off, uint64_t size)
{
	if (attr_size < 16 + PERF_ATTR_SIZE_VER0 || attr_size > 4096)
		return bad(d, 16, "implausible attribute size");
	if (size % attr_size || size / attr_size > PD_MAX_ATTRS)
		return bad(d, off, "attribute section is not a whole number of attributes (or too many)");
	unsigned char buf[4096];
	for (uint64_t i = 0; i < size / attr_size; i++) {
		if (!read_at(d, off + i * attr_size, buf, attr_size))
			return false;
		struct pd_attr *a = &d->attrs[d->nattrs++];
		copy_attr(a, buf, attr_size - 16);
		uint64_t ids_off = get64(buf + attr_size - 16), ids_size = get64(buf + attr_size - 8);
		if (ids_size > (8u << 20))
			return bad(d, off + i * attr_size, "absurd id section size");
		unsigned char *ids = td_malloc(ids_size + 1);
		bool ok = read_at(d, ids_off, ids, ids_size) && add_ids(d, a, ids, ids_size);
		free(ids);
		if (!ok)
			return false;
	}
	return true;
}

/* ---- features -------------------------------------------------------------- */

/* perf's header strings: u32 length (padded), then the bytes. */
static size_t get_string(const unsigned char *p, size_t avail, char *out, size_t cap)
{
	out[0] = '\0';
	if (avail < 4)
		return 0;
	uint32_t len = get32(p);
	if (len > avail - 4)
		return 0;
	size_t n = strnlen((const char *)p + 4, len);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, p + 4, n);
	out[n] = '\0';
	return 4 + len;
}

static void event_desc(struct perf_data *d, const unsigned char *p, size_t n)
{
	if (n < 8)
		return;
	uint32_t nr = get32(p), attr_size = get32(p + 4);
	size_t at = 8;
	for (uint32_t e = 0; e < nr && at + attr_size + 4 <= n && attr_size >= PERF_ATTR_SIZE_VER0; e++) {
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof attr);
		memcpy(&attr, p + at, attr_size < sizeof attr ? attr_size : sizeof attr);
		at += attr_size;
		uint32_t nr_ids = get32(p + at);
		at += 4;
		char name[128];
		size_t used = get_string(p + at, n - at, name, sizeof name);
		if (!used)
			return;
		at += used;
		if ((uint64_t)nr_ids * 8 > n - at)
			return;
		for (uint32_t k = 0; k < nr_ids; k++) {       /* name the attr owning these ids */
			uint64_t id = get64(p + at + 8 * k);
			for (int a = 0; a < d->nattrs; a++)
				for (size_t j = 0; j < d->attrs[a].nids; j++)
					if (d->attrs[a].ids[j] == id && !d->attrs[a].name[0])
						snprintf(d->attrs[a].name, sizeof d->attrs[a].name, "%s", name);
		}
		if (nr_ids == 0 && (int)e < d->nattrs && !d->attrs[e].name[0])
			snprintf(d->attrs[e].name, sizeof d->attrs[e].name, "%s", name);
		at += (size_t)nr_ids * 8;
	}
}

static void parse_feature(struct perf_data *d, int f, const unsigned char *p, size_t n)
{
	struct pd_feature_strings *s = &d->info;
	switch (f) {
	case 3: get_string(p, n, s->hostname, sizeof s->hostname); break;
	case 4: get_string(p, n, s->osrelease, sizeof s->osrelease); break;
	case 5: get_string(p, n, s->version, sizeof s->version); break;
	case 6: get_string(p, n, s->arch, sizeof s->arch); break;
	case 8: get_string(p, n, s->cpudesc, sizeof s->cpudesc); break;
	case 9: get_string(p, n, s->cpuid, sizeof s->cpuid); break;
	case 7:
		if (n >= 8) {
			s->nr_cpus_avail = get32(p);
			s->nr_cpus_online = get32(p + 4);
		}
		break;
	case 10:
		if (n >= 8)
			s->total_mem_kb = get64(p);
		break;
	case 21:
		if (n >= 16) {
			s->sample_time_first = get64(p);
			s->sample_time_last = get64(p + 8);
		}
		break;
	case 11: {
		if (n < 4)
			break;
		uint32_t nr = get32(p);
		size_t at = 4, w = 0;
		for (uint32_t i = 0; i < nr && at < n; i++) {
			char arg[512];
			size_t used = get_string(p + at, n - at, arg, sizeof arg);
			if (!used)
				break;
			at += used;
			w += (size_t)snprintf(s->cmdline + w, w < sizeof s->cmdline ? sizeof s->cmdline - w : 0, "%s%s", i ? " " : "", arg);
		}
		break;
	}
	case 12:
		event_desc(d, p, n);
		break;
	default:
		break;                  /* others are skipped by their recorded size */
	}
}

static bool read_file_features(struct perf_data *d)
{
	uint64_t off = d->data_offset + d->data_size;
	for (int f = 0; f < 256; f++) {
		if (!perf_data_has_feature(d, f))
			continue;
		unsigned char sec[16];
		if (!read_at(d, off, sec, 16))
			return false;
		off += 16;
		uint64_t foff = get64(sec), fsize = get64(sec + 8);
		if (fsize > MAX_FEATURE_BYTES || foff > d->file_size || fsize > d->file_size - foff) {
			bad(d, off - 16, "feature section outside the file; features after it ignored");
			return false;
		}
		unsigned char *buf = td_malloc(fsize + 1);
		if (read_at(d, foff, buf, fsize))
			parse_feature(d, f, buf, fsize);
		free(buf);
	}
	return true;
}

/* ---- open -------------------------------------------------------------------- */

struct perf_data *perf_data_open(const char *path)
{
	struct perf_data *d = td_calloc(1, sizeof(*d));
	d->path = path;
	d->fd = open(path, O_RDONLY);
	struct stat st;
	if (d->fd < 0 || fstat(d->fd, &st) || !S_ISREG(st.st_mode)) {
		td_bad_input(path, 0, "cannot read: %s", d->fd < 0 ? strerror(errno) : "not a regular file");
		perf_data_close(d);
		return NULL;
	}
	d->file_size = (uint64_t)st.st_size;
	unsigned char h[104];
	if (d->file_size < 16 || !read_at(d, 0, h, 16)) {
		if (d->file_size < 16)
			bad(d, 0, "too short for a perf.data header");
		perf_data_close(d);
		return NULL;
	}
	uint64_t magic = get64(h), hsize = get64(h + 8);
	if (magic == MAGIC2_SWAPPED || (magic != MAGIC2 && !memcmp(h, "PERFFILE", 8))) {
		bad(d, 0, magic == MAGIC2_SWAPPED ? "big-endian perf.data is not supported" : "perf.data version 1 is not supported");
		perf_data_close(d);
		return NULL;
	}
	if (magic != MAGIC2) {
		bad(d, 0, "not perf.data (no PERFILE2 magic)");
		perf_data_close(d);
		return NULL;
	}
	if (hsize == 16) {                         /* pipe mode: everything is in the stream */
		d->pipe_mode = true;
		d->data_offset = 16;
		d->data_size = d->file_size - 16;
		return d;
	}
	if (hsize < 104 || !read_at(d, 0, h, 104)) {
		if (hsize < 104)
			bad(d, 8, "implausible header size");
		perf_data_close(d);
		return NULL;
	}
	uint64_t attr_size = get64(h + 16), attrs_off = get64(h + 24), attrs_size = get64(h + 32);
	d->data_offset = get64(h + 40);
	d->data_size = get64(h + 48);
	memcpy(d->features, h + 72, 32);
	if (d->data_offset > d->file_size || d->data_size > d->file_size - d->data_offset) {
		bad(d, 40, "data section outside the file (truncated?); reading what is there");
		d->data_size = d->data_offset <= d->file_size ? d->file_size - d->data_offset : 0;
		d->bad_offset = 0;
		memset(d->features, 0, sizeof d->features);
	}
	if (!read_file_attrs(d, attr_size, attrs_off, attrs_size)) {
		perf_data_close(d);
		return NULL;
	}
	read_file_features(d);
	return d;
}

void perf_data_close(struct perf_data *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nattrs; i++)
		free(d->attrs[i].ids);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}

/* ---- samples ------------------------------------------------------------------- */

static int attr_of_id(const struct perf_data *d, uint64_t id)
{
	for (int a = 0; a < d->nattrs; a++)
		for (size_t i = 0; i < d->attrs[a].nids; i++)
			if (d->attrs[a].ids[i] == id)
				return a;
	return -1;
}

/* The attr a sample belongs to: the only one, or by the id every attr puts
 * at the same place (first with IDENTIFIER, else after IP, TID, TIME, ADDR). */
static int sample_attr(const struct perf_data *d, const unsigned char *p, size_t n)
{
	if (d->nattrs == 1)
		return 0;
	if (d->nattrs == 0)
		return -1;
	uint64_t st = d->attrs[0].attr.sample_type;
	size_t pos = 0;
	if (!(st & PERF_SAMPLE_IDENTIFIER)) {
		if (!(st & PERF_SAMPLE_ID))
			return -1;
		pos = 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
			   !!(st & PERF_SAMPLE_ADDR));
	}
	return pos + 8 <= n ? attr_of_id(d, get64(p + pos)) : -1;
}

#define NEED(k) do { if (n - at < (k)) return false; } while (0)

static bool decode_read(const struct perf_event_attr *a, const unsigned char *p, size_t n, size_t *at_io)
{
	size_t at = *at_io;
	uint64_t rf = a->read_format, per = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	if (rf & PERF_FORMAT_GROUP) {
		NEED(8);
		uint64_t nr = get64(p + at);
		at += 8 + 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
		if (nr > (n - at) / per)
			return false;
		at += nr * per;
	} else {
		at += per + 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
	}
	if (at > n)
		return false;
	*at_io = at;
	return true;
}

static bool decode_sample(const struct perf_data *d, const unsigned char *p, size_t n, struct pd_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->attr = sample_attr(d, p, n);
	if (s->attr < 0)
		return false;
	const struct perf_event_attr *a = &d->attrs[s->attr].attr;
	uint64_t st = a->sample_type;
	size_t at = 0;
	if (st & PERF_SAMPLE_IDENTIFIER) { NEED(8); s->id = get64(p + at); at += 8; }
	if (st & PERF_SAMPLE_IP) { NEED(8); s->ip = get64(p + at); at += 8; }
	if (st & PERF_SAMPLE_TID) { NEED(8); s->pid = get32(p + at); s->tid = get32(p + at + 4); at += 8; }
	if (st & PERF_SAMPLE_TIME) { NEED(8); s->time = get64(p + at); at += 8; }
	if (st & PERF_SAMPLE_ADDR) { NEED(8); s->addr = get64(p + at); at += 8; }
	if (st & PERF_SAMPLE_ID) { NEED(8); s->id = get64(p + at); at += 8; }
	if (st & PERF_SAMPLE_STREAM_ID) { NEED(8); at += 8; }
	if (st & PERF_SAMPLE_CPU) { NEED(8); s->cpu = get32(p + at); at += 8; }
	if (st & PERF_SAMPLE_PERIOD) { NEED(8); s->period = get64(p + at); at += 8; }
	if ((st & PERF_SAMPLE_READ) && !decode_read(a, p, n, &at))
		return false;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(8);
		uint64_t nr = get64(p + at);
		at += 8;
		if (nr > (n - at) / 8)
			return false;
		s->nr_callchain = nr;
		s->callchain = p + at;
		at += nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		NEED(4);
		uint32_t size = get32(p + at);
		if (size > n - at - 4)
			return false;
		at += 4 + size;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		NEED(8);
		uint64_t nr = get64(p + at);
		at += 8;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			NEED(8);
			at += 8;
		}
		if (nr > (n - at) / sizeof(struct perf_branch_entry))
			return false;
		s->nr_branches = nr;
		s->branches = p + at;
		at += nr * sizeof(struct perf_branch_entry);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		NEED(8);
		uint64_t abi = get64(p + at);
		at += 8;
		if (abi)
			at += 8 * (size_t)__builtin_popcountll(a->sample_regs_user);
		if (at > n)
			return false;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		NEED(8);
		uint64_t size = get64(p + at);
		at += 8;
		if (size > n - at)
			return false;
		at += size;
		if (size) {
			NEED(8);
			at += 8;        /* dyn_size */
		}
	}
	return at <= n;
}

uint64_t pd_callchain(const struct pd_sample *s, uint64_t i) { return get64(s->callchain + 8 * i); }

void pd_branch(const struct pd_sample *s, uint64_t i, struct perf_branch_entry *out)
{
	memcpy(out, s->branches + i * sizeof(*out), sizeof(*out));
}

/* ---- the walk ---------------------------------------------------------------------- */

struct window {
	unsigned char *buf;
	uint64_t start;          /* file offset of buf[0] */
	size_t len;
};

/* Makes [off, off + n) available in the window. */
static const unsigned char *window_at(struct perf_data *d, struct window *w, uint64_t off, size_t n)
{
	if (off >= w->start && off + n <= w->start + w->len)
		return w->buf + (off - w->start);
	uint64_t end = d->data_offset + d->data_size;
	size_t want = WINDOW;
	if (off > end || n > end - off)
		return NULL;
	if (want > end - off)
		want = (size_t)(end - off);
	if (want < n)
		want = n;
	if (!read_at(d, off, w->buf, want))
		return NULL;
	w->start = off;
	w->len = want;
	return w->buf;
}

static bool pipe_record(struct perf_data *d, uint32_t type, const unsigned char *rec, size_t size, uint64_t off)
{
	if (type == HEADER_ATTR) {
		if (size < 8 + PERF_ATTR_SIZE_VER0 || d->nattrs == PD_MAX_ATTRS)
			return bad(d, off, "bad HEADER_ATTR record");
		uint32_t asize = get32(rec + 8 + 4);       /* attr.size */
		if (asize < PERF_ATTR_SIZE_VER0 || asize > size - 8)
			asize = PERF_ATTR_SIZE_VER0;
		struct pd_attr *a = &d->attrs[d->nattrs++];
		copy_attr(a, rec + 8, asize);
		return add_ids(d, a, rec + 8 + asize, size - 8 - asize);
	}
	if (type == HEADER_FEATURE && size >= 16) {
		uint64_t f = get64(rec + 8);
		if (f < 256) {
			d->features[f / 64] |= 1ULL << (f % 64);
			parse_feature(d, (int)f, rec + 16, size - 16);
		}
	}
	return true;
}

/* One record, handed to fn (with its decoded sample). */
static void deliver(struct perf_data *d, uint32_t type, uint16_t misc, const unsigned char *rec, size_t size,
		    uint64_t off, pd_record_fn fn, void *ctx)
{
	struct pd_sample sample, *sp = NULL;
	if (type == PERF_RECORD_SAMPLE) {
		if (decode_sample(d, rec + 8, size - 8, &sample))
			sp = &sample;
		else
			td_bad_input(d->path, 0, "offset %llu: sample does not match its event's layout; skipped",
				     (unsigned long long)off);
	}
	fn(ctx, d, type, misc, rec, size, sp);
}

/* perf record -z: the records inside are one zstd stream across all
 * COMPRESSED records, and a record may continue in the next one. */
struct unzstd {
	ZSTD_DStream *z;
	unsigned char *buf;          /* decompressed bytes not yet delivered */
	size_t len, cap;
};

static bool inflate_records(struct perf_data *d, struct unzstd *u, const unsigned char *src, size_t n, uint64_t off,
			    pd_record_fn fn, void *ctx)
{
	if (!u->z) {
		u->z = ZSTD_createDStream();
		ZSTD_initDStream(u->z);
	}
	ZSTD_inBuffer in = { src, n, 0 };
	while (in.pos < in.size) {
		if (u->cap - u->len < 65536) {
			u->cap = u->cap ? u->cap * 2 : 1 << 20;
			if (u->cap > (256u << 20))
				return bad(d, off, "compressed records expand beyond 256 MiB without a whole record");
			u->buf = td_realloc(u->buf, u->cap);
		}
		ZSTD_outBuffer out = { u->buf + u->len, u->cap - u->len, 0 };
		size_t r = ZSTD_decompressStream(u->z, &out, &in);
		if (ZSTD_isError(r))
			return bad(d, off, "zstd data of a COMPRESSED record is corrupt");
		u->len += out.pos;
		if (out.pos == 0 && in.pos < in.size && r != 0)
			continue;
	}
	size_t at = 0;
	while (u->len - at >= 8) {
		uint32_t type = get32(u->buf + at);
		uint16_t misc, size;
		memcpy(&misc, u->buf + at + 4, 2);
		memcpy(&size, u->buf + at + 6, 2);
		if (size < 8)
			return bad(d, off, "a record inside a COMPRESSED record is smaller than its header");
		if (size > u->len - at)
			break;                   /* continues in the next COMPRESSED record */
		deliver(d, type, misc, u->buf + at, size, off, fn, ctx);
		at += size;
	}
	if (at) {
		memmove(u->buf, u->buf + at, u->len - at);
		u->len -= at;
	}
	return true;
}

bool perf_data_walk(struct perf_data *d, pd_record_fn fn, void *ctx)
{
	struct window w = { td_malloc(WINDOW > 65536 ? WINDOW : 65536), 0, 0 };
	struct unzstd u = { NULL, NULL, 0, 0 };
	uint64_t off = d->data_offset, end = d->data_offset + d->data_size;
	bool ok = true;
	while (off < end) {
		if (end - off < 8) {
			ok = bad(d, off, "record header cut off at the end of the data");
			break;
		}
		const unsigned char *h = window_at(d, &w, off, 8);
		if (!h) {
			ok = false;
			break;
		}
		uint32_t type = get32(h);
		uint16_t misc, size;
		memcpy(&misc, h + 4, 2);
		memcpy(&size, h + 6, 2);
		if (size < 8) {
			ok = bad(d, off, "record smaller than its header");
			break;
		}
		const unsigned char *rec = window_at(d, &w, off, size);
		if (!rec) {
			ok = bad(d, off, "record runs past the end of the data (truncated file)");
			break;
		}
		uint64_t skip = size;
		if (type == AUXTRACE && size >= 16)           /* the trace follows the record */
			skip += get64(rec + 8);
		if (d->pipe_mode && !pipe_record(d, type, rec, size, off)) {
			ok = false;
			break;
		}
		deliver(d, type, misc, rec, size, off, fn, ctx);
		if (type == COMPRESSED || (type == COMPRESSED2 && size >= 16)) {
			size_t head = type == COMPRESSED ? 8 : 16;
			size_t n = size - head;
			if (type == COMPRESSED2 && get64(rec + 8) < n)
				n = get64(rec + 8);
			if (!inflate_records(d, &u, rec + head, n, off, fn, ctx)) {
				ok = false;
				break;
			}
		}
		if (skip > end - off) {
			ok = bad(d, off, "AUXTRACE payload runs past the end of the data");
			break;
		}
		off += skip;
	}
	if (ok && u.len)
		ok = bad(d, end, "the last COMPRESSED record ends inside a record");
	ZSTD_freeDStream(u.z);
	free(u.buf);
	free(w.buf);
	return ok;
}
