#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "common/diag.h"
#include "common/grow.h"
#include "common/input.h"
#include "common/plain.h"
#include "perf_data.h"

#define WINDOW (1u << 20)
#define MAX_FEATURE_BYTES (64u << 20)
#define MAX_INFLATED (256u << 20)
#define MAX_IDS (1u << 22)
#define REPORTED_BAD_SAMPLES 5

/* perf's own record types (tools/perf/util/event.h), not in the UAPI */
enum {
	HEADER_ATTR = 64, HEADER_EVENT_TYPE = 65, HEADER_TRACING_DATA = 66, HEADER_BUILD_ID = 67,
	FINISHED_ROUND = 68, ID_INDEX = 69, AUXTRACE_INFO = 70, AUXTRACE = 71, EVENT_UPDATE = 78,
	HEADER_FEATURE = 80, COMPRESSED = 81, FINISHED_INIT = 82, COMPRESSED2 = 83,
};
/* perf's feature bits (tools/perf/util/header.h) */
enum {
	F_TRACING_DATA = 1, F_BUILD_ID, F_HOSTNAME, F_OSRELEASE, F_VERSION, F_ARCH, F_NRCPUS, F_CPUDESC, F_CPUID,
	F_TOTAL_MEM, F_CMDLINE, F_EVENT_DESC, F_CPU_TOPOLOGY, F_NUMA_TOPOLOGY, F_BRANCH_STACK, F_PMU_MAPPINGS,
	F_GROUP_DESC, F_AUXTRACE, F_STAT, F_CACHE, F_SAMPLE_TIME, F_MEM_TOPOLOGY, F_CLOCKID, F_DIR_FORMAT,
	F_BPF_PROG_INFO, F_BPF_BTF, F_COMPRESSED, F_CPU_PMU_CAPS, F_CLOCK_DATA, F_HYBRID_TOPOLOGY, F_PMU_CAPS,
};
#define MISC_BUILD_ID_SIZE (1u << 15)        /* build-id records of the BUILD_ID feature */

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
	[19] = "CGROUP", [20] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID", [22] = "CALLCHAIN_DEFERRED",
	[64] = "HEADER_ATTR", [65] = "HEADER_EVENT_TYPE",
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

/* ---- sources: a file read with pread through a window, a caller's buffer,
 * or a td_input stream read forward only ------------------------------------- */

enum src_kind { SRC_FD, SRC_MEM, SRC_STREAM };

/* A window's buffer. A file's window (SRC_FD) moves on to a fresh buffer
 * when records in the old one are pinned (perf_data_pin): the old one
 * lives on until its last record is unpinned, then it is kept for reuse
 * (at most FREE_CHUNKS of them) or freed. */
struct pd_pin {
	unsigned pins;                    /* records pinned in buf */
	struct pd_pin *next;              /* on the free list */
	unsigned char buf[];              /* WINDOW bytes */
};
#define FREE_CHUNKS 2

struct pd_src {
	enum src_kind kind;
	int fd;
	const unsigned char *mem;
	struct td_input *in;
	bool own_in, eof;
	bool plain;                       /* td_plain(): no window is pinned, no sample read as a fixed layout */
	struct pd_pin *chunk;             /* the window's buffer (not SRC_MEM) */
	struct pd_pin *free_chunks;       /* unpinned buffers for the next windows */
	int nfree;
	struct pd_pin mem_pin;            /* what perf_data_pin gives for a reader over memory */
	unsigned char *win;               /* window: file bytes [wstart, wstart + wlen), in chunk->buf */
	size_t wcap, wlen;
	uint64_t wstart;
	/* the walk */
	uint64_t off, end;
	int state;                        /* 0 walking, 1 done, -1 stopped on bad input */
	struct pd_record rec;
	/* perf record -z: one zstd stream across the COMPRESSED records */
	ZSTD_DStream *z;
	unsigned char *zbuf;
	size_t zlen, zpos, zcap;
	uint64_t zoff;
	/* event ids -> attr index (open addressing) */
	uint64_t *hkey;
	int *hval;
	size_t hcap, hcount;
	int id_pos;                       /* 1 + where a sample's id is, -1 none, 0 not known yet */
	struct layout *layouts;           /* per event, worked out on its first sample */
	int nlayouts;
	/* decoded arrays of the current sample (a record is at most 64 KiB, so
	 * at most the _MAX elements), grown as samples need them */
	uint64_t *cc;
	struct pd_branch *br;
	struct pd_read_value *rv;
	char *str;
	size_t cc_cap, br_cap, rv_cap, str_cap;
};
#define RV_MAX (65536 / 8 + 1)

static uint64_t rd64(const struct perf_data *d, const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return d->swapped ? __builtin_bswap64(v) : v;
}

static uint32_t rd32(const struct perf_data *d, const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return d->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t rd16(const struct perf_data *d, const unsigned char *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return d->swapped ? __builtin_bswap16(v) : v;
}

static bool bad(struct perf_data *d, uint64_t offset, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool bad(struct perf_data *d, uint64_t offset, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	td_bad_input(d->path, 0, "offset %llu: %s", (unsigned long long)offset, msg);
	if (!d->bad_offset)
		d->bad_offset = offset ? offset : 1;
	return false;
}

static struct pd_pin *new_chunk(void)
{
	struct pd_pin *c = td_malloc(sizeof *c + WINDOW);
	c->pins = 0;
	c->next = NULL;
	return c;
}

/* The window's buffer holds pinned records: leave it to them, read on in
 * another. */
static void next_chunk(struct pd_src *s)
{
	struct pd_pin *c = s->free_chunks;
	if (c) {
		s->free_chunks = c->next;
		s->nfree--;
	} else {
		c = new_chunk();
	}
	s->chunk = c;
	s->win = c->buf;
	s->wlen = 0;
}

/* Bytes available at off, up to want (a stream is read forward: off must
 * not be before the window; bytes before off are dropped, or skipped). */
static size_t src_avail(struct perf_data *d, uint64_t off, size_t want)
{
	struct pd_src *s = d->src;
	if (s->kind == SRC_MEM)
		return off >= d->file_size ? 0 : d->file_size - off < want ? (size_t)(d->file_size - off) : want;
	if (off >= s->wstart && off - s->wstart <= s->wlen && s->wlen - (off - s->wstart) >= want)
		return want;
	if (want > s->wcap)
		return 0;              /* records are at most 64 KiB, the window 1 MiB */
	if (s->kind == SRC_FD) {
		if (off >= d->file_size)
			return 0;
		if (s->chunk->pins)
			next_chunk(s);
		size_t n = d->file_size - off < s->wcap ? (size_t)(d->file_size - off) : s->wcap;
		size_t got = 0;
		while (got < n) {
			ssize_t r = pread(s->fd, s->win + got, n - got, (off_t)(off + got));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		s->wstart = off;
		s->wlen = got;
		return got < want ? got : want;
	}
	/* stream: keep [off, ...), skip what lies between the window and off */
	if (off < s->wstart)
		return 0;
	if (off - s->wstart >= s->wlen) {
		uint64_t skip = off - s->wstart - s->wlen;
		s->wlen = 0;
		while (skip && !s->eof) {
			size_t k = skip < s->wcap ? (size_t)skip : s->wcap;
			size_t got = td_input_read(s->in, s->win, k);
			if (got < k)
				s->eof = true;
			skip -= got;
		}
		s->wstart = off - skip;
		if (skip)
			return 0;
	} else {
		size_t drop = (size_t)(off - s->wstart);
		memmove(s->win, s->win + drop, s->wlen - drop);
		s->wlen -= drop;
		s->wstart = off;
	}
	while (s->wlen < want && !s->eof) {
		size_t k = s->wcap - s->wlen;
		size_t got = td_input_read(s->in, s->win + s->wlen, k);
		if (got < k)
			s->eof = true;
		s->wlen += got;
	}
	return s->wlen < want ? s->wlen : want;
}

static __attribute__((noinline)) const unsigned char *src_read(struct perf_data *d, uint64_t off, size_t n)
{
	if (src_avail(d, off, n) < n)
		return NULL;
	return d->src->kind == SRC_MEM ? d->src->mem + off : d->src->win + (off - d->src->wstart);
}

/* The n bytes at off, NULL when the data ends before. */
static inline const unsigned char *src_get(struct perf_data *d, uint64_t off, size_t n)
{
	const struct pd_src *s = d->src;
	if (off - s->wstart <= s->wlen && s->wlen - (off - s->wstart) >= n && s->kind != SRC_MEM)
		return s->win + (off - s->wstart);       /* in the window: most records */
	return src_read(d, off, n);
}

/* n bytes at off into buf (file mode: header, attrs, features). */
static bool read_at(struct perf_data *d, uint64_t off, void *buf, size_t n, const char *what)
{
	if (off > d->file_size || n > d->file_size - off)
		return bad(d, off, "%s (%zu bytes) runs past the end of the file (truncated, or a size in the file lies)",
			   what, n);
	struct pd_src *s = d->src;
	if (s->kind == SRC_MEM) {
		memcpy(buf, s->mem + off, n);
		return true;
	}
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(s->fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return bad(d, off, "short read of %s", what);
		got += (size_t)r;
	}
	return true;
}

/* ---- attributes and ids -------------------------------------------------------- */

/* perf_event_attr fields by (offset, width), for byte-swapping. */
static const unsigned char attr_fields[][2] = {
	{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 }, { 40, 8 }, { 48, 4 }, { 52, 4 }, { 56, 8 },
	{ 64, 8 }, { 72, 8 }, { 80, 8 }, { 88, 4 }, { 92, 4 }, { 96, 8 }, { 104, 4 }, { 108, 2 }, { 110, 2 },
	{ 112, 4 }, { 116, 4 }, { 120, 8 }, { 128, 8 },
};

static uint64_t bitrev64(uint64_t v)
{
	uint64_t r = 0;
	for (int i = 0; i < 64; i++)
		r |= ((v >> i) & 1) << (63 - i);
	return r;
}

static void copy_attr(const struct perf_data *d, struct perf_event_attr *a, const unsigned char *p, size_t n)
{
	unsigned char raw[sizeof *a + 64];
	memset(raw, 0, sizeof raw);
	memcpy(raw, p, n < sizeof raw ? n : sizeof raw);
	if (d->swapped) {
		for (size_t i = 0; i < sizeof attr_fields / sizeof *attr_fields; i++) {
			unsigned char *f = raw + attr_fields[i][0];
			if (attr_fields[i][0] + attr_fields[i][1] > n)
				break;
			if (attr_fields[i][1] == 8) {
				uint64_t v;
				memcpy(&v, f, 8);
				v = __builtin_bswap64(v);
				if (attr_fields[i][0] == 40) {
					/* the flags bitfield: big-endian ABIs allocate from the
					 * top bit; every field is one bit but precise_ip:2 */
					uint64_t precise = (v >> (64 - 15 - 2)) & 3;
					v = (bitrev64(v) & ~(3ULL << 15)) | precise << 15;
				}
				memcpy(f, &v, 8);
			} else if (attr_fields[i][1] == 4) {
				uint32_t v;
				memcpy(&v, f, 4);
				v = __builtin_bswap32(v);
				memcpy(f, &v, 4);
			} else {
				uint16_t v;
				memcpy(&v, f, 2);
				v = __builtin_bswap16(v);
				memcpy(f, &v, 2);
			}
		}
	}
	memcpy(a, raw, sizeof *a);
	if (n < sizeof *a)
		memset((char *)a + n, 0, sizeof *a - n);
}

static void hash_put(struct pd_src *s, uint64_t id, int attr)
{
	if ((s->hcount + 1) * 2 > s->hcap) {
		size_t ocap = s->hcap;
		uint64_t *okey = s->hkey;
		int *oval = s->hval;
		s->hcap = ocap ? ocap * 2 : 256;
		s->hkey = td_malloc(s->hcap * sizeof *s->hkey);
		s->hval = td_malloc(s->hcap * sizeof *s->hval);
		for (size_t i = 0; i < s->hcap; i++)
			s->hval[i] = -1;
		s->hcount = 0;
		for (size_t i = 0; i < ocap; i++)
			if (oval[i] >= 0)
				hash_put(s, okey[i], oval[i]);
		free(okey);
		free(oval);
	}
	size_t m = s->hcap - 1, i = (size_t)(id * 0x9E3779B97F4A7C15ULL >> 20) & m;
	while (s->hval[i] >= 0 && s->hkey[i] != id)
		i = (i + 1) & m;
	if (s->hval[i] < 0)
		s->hcount++;
	s->hkey[i] = id;
	s->hval[i] = attr;
}

static int attr_of_id(const struct perf_data *d, uint64_t id)
{
	const struct pd_src *s = d->src;
	if (s->hcap) {
		size_t m = s->hcap - 1, i = (size_t)(id * 0x9E3779B97F4A7C15ULL >> 20) & m;
		for (; s->hval[i] >= 0; i = (i + 1) & m)
			if (s->hkey[i] == id)
				return s->hval[i];
	}
	return d->nattrs == 1 ? 0 : -1;
}

static struct pd_attr *new_attr(struct perf_data *d, uint64_t offset)
{
	if (d->nattrs == PD_MAX_ATTRS) {
		bad(d, offset, "more than %d event attributes", PD_MAX_ATTRS);
		return NULL;
	}
	if (!d->attrs || (d->nattrs & (d->nattrs - 1)) == 0 || d->nattrs < 8) {
		size_t cap = d->nattrs < 8 ? 8 : (size_t)d->nattrs * 2;
		d->attrs = td_realloc(d->attrs, cap * sizeof *d->attrs);
	}
	struct pd_attr *a = &d->attrs[d->nattrs++];
	memset(a, 0, sizeof *a);
	return a;
}

static bool add_ids(struct perf_data *d, int ai, const unsigned char *p, size_t bytes, uint64_t offset)
{
	struct pd_attr *a = &d->attrs[ai];
	size_t n = bytes / 8;
	if (n > MAX_IDS || a->nids > MAX_IDS - n)
		return bad(d, offset, "absurd number of event ids (%zu)", n);
	a->ids = td_realloc(a->ids, (a->nids + n + 1) * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++) {
		a->ids[a->nids++] = rd64(d, p + 8 * i);
		hash_put(d->src, a->ids[a->nids - 1], ai);
	}
	return true;
}

static bool read_file_attrs(struct perf_data *d, uint64_t attr_size, uint64_t off, uint64_t size)
{
	if (attr_size < 16 + PERF_ATTR_SIZE_VER0 || attr_size > 4096)
		return bad(d, 16, "implausible attribute size %llu", (unsigned long long)attr_size);
	if (size % attr_size || size / attr_size > PD_MAX_ATTRS)
		return bad(d, 32, "attribute section of %llu bytes is not a whole number of %llu-byte attributes (or too many)",
			   (unsigned long long)size, (unsigned long long)attr_size);
	unsigned char buf[4096];
	for (uint64_t i = 0; i < size / attr_size; i++) {
		uint64_t at = off + i * attr_size;
		if (!read_at(d, at, buf, attr_size, "an event attribute"))
			return false;
		struct pd_attr *a = new_attr(d, at);
		if (!a)
			return false;
		copy_attr(d, &a->attr, buf, attr_size - 16);
		uint64_t ids_off = rd64(d, buf + attr_size - 16), ids_size = rd64(d, buf + attr_size - 8);
		if (ids_size > 8ULL * MAX_IDS || ids_size % 8)
			return bad(d, at + attr_size - 8, "absurd id section size %llu", (unsigned long long)ids_size);
		unsigned char *ids = td_malloc(ids_size + 1);
		bool ok = read_at(d, ids_off, ids, ids_size, "the ids of an event") &&
			  add_ids(d, d->nattrs - 1, ids, ids_size, ids_off);
		free(ids);
		if (!ok)
			return false;
	}
	return true;
}

/* ---- features ------------------------------------------------------------------ */

struct cursor {
	struct perf_data *d;
	const unsigned char *p;
	size_t n, at;
	uint64_t base;                   /* file offset of p[0], for messages */
	bool ok;
};

static bool cur_fail(struct cursor *c, const char *what)
{
	if (c->ok)
		bad(c->d, c->base + c->at, "%s", what);
	c->ok = false;
	return false;
}

static uint32_t cur32(struct cursor *c)
{
	if (!c->ok || c->n - c->at < 4)
		return cur_fail(c, "feature section cut short"), 0;
	c->at += 4;
	return rd32(c->d, c->p + c->at - 4);
}

static uint64_t cur64(struct cursor *c)
{
	if (!c->ok || c->n - c->at < 8)
		return cur_fail(c, "feature section cut short"), 0;
	c->at += 8;
	return rd64(c->d, c->p + c->at - 8);
}

/* perf's header strings: u32 length (padding and NUL included), the bytes. */
static char *cur_str(struct cursor *c, char *out, size_t cap)
{
	uint32_t len = cur32(c);
	if (!c->ok)
		return NULL;
	if (len > c->n - c->at)
		return cur_fail(c, "string longer than its feature section"), NULL;
	size_t k = strnlen((const char *)c->p + c->at, len);
	if (!out) {
		out = td_malloc(k + 1);
		cap = k + 1;
	}
	if (k >= cap)
		k = cap - 1;
	memcpy(out, c->p + c->at, k);
	out[k] = '\0';
	c->at += len;
	return out;
}

static void event_desc(struct cursor *c)
{
	struct perf_data *d = c->d;
	uint32_t nr = cur32(c), attr_size = cur32(c);
	if (!c->ok)
		return;
	if (attr_size < PERF_ATTR_SIZE_VER0 || attr_size > 4096) {
		cur_fail(c, "implausible attribute size in event_desc");
		return;
	}
	for (uint32_t e = 0; e < nr && c->ok; e++) {
		if (c->n - c->at < attr_size) {
			cur_fail(c, "event_desc cut short");
			return;
		}
		c->at += attr_size;
		uint32_t nr_ids = cur32(c);
		char *name = cur_str(c, NULL, 0);
		if (!name)
			return;
		if (nr_ids > (c->n - c->at) / 8) {
			free(name);
			cur_fail(c, "event_desc: more ids than bytes");
			return;
		}
		int owner = (int)e < d->nattrs ? (int)e : -1;
		if (nr_ids) {
			int a = attr_of_id(d, rd64(d, c->p + c->at));
			if (a >= 0)
				owner = a;
		}
		if (owner >= 0 && !d->attrs[owner].name && name[0])
			d->attrs[owner].name = name;
		else
			free(name);
		c->at += (size_t)nr_ids * 8;
	}
}

static void build_ids(struct cursor *c)
{
	struct perf_data *d = c->d;
	struct pd_info *in = &d->info;
	while (c->ok && c->n - c->at >= 8) {
		const unsigned char *r = c->p + c->at;
		uint16_t misc = rd16(d, r + 4), size = rd16(d, r + 6);
		if (size < 8 + 4 + 24 || size > c->n - c->at) {
			cur_fail(c, size == 0 ? "build id record of size 0" : "build id record size outside its section");
			return;
		}
		if (in->nr_build_ids % 64 == 0)
			in->build_ids = td_realloc(in->build_ids, (in->nr_build_ids + 64) * sizeof *in->build_ids);
		struct pd_build_id *b = &in->build_ids[in->nr_build_ids++];
		b->pid = (int32_t)rd32(d, r + 8);
		b->misc = misc;
		size_t len = 20;
		if ((misc & MISC_BUILD_ID_SIZE) && r[12 + 20] <= 20)
			len = r[12 + 20];
		for (size_t i = 0; i < len; i++)
			snprintf(b->hex + 2 * i, 3, "%02x", r[12 + i]);
		b->hex[2 * len] = '\0';
		size_t flen = strnlen((const char *)r + 36, size - 36u);
		b->filename = td_strndup((const char *)r + 36, flen);
		c->at += size;
	}
}

static char **str_list(struct cursor *c, uint32_t *nr_out)
{
	uint32_t nr = cur32(c);
	if (!c->ok || nr > (c->n - c->at) / 4) {
		cur_fail(c, "absurd count of strings");
		return NULL;
	}
	char **v = td_calloc(nr + 1, sizeof *v);
	for (uint32_t i = 0; i < nr; i++)
		if (!(v[i] = cur_str(c, NULL, 0)))
			break;
	*nr_out = nr;
	return v;
}

static void cpu_topology(struct cursor *c)
{
	struct pd_info *in = &c->d->info;
	in->core_siblings = str_list(c, &in->nr_core_siblings);
	if (c->ok)
		in->thread_siblings = str_list(c, &in->nr_thread_siblings);
	in->nr_cores = in->nr_core_siblings;
	in->nr_threads = in->nr_thread_siblings;
	uint32_t ncpu = in->nr_cpus_avail;
	if (c->ok && ncpu && ncpu <= (c->n - c->at) / 8) {      /* core_id, socket_id per cpu (perf >= 4.x) */
		uint32_t sockets[256];
		uint32_t ns = 0;
		for (uint32_t i = 0; i < ncpu; i++) {
			c->at += 4;
			uint32_t sock = cur32(c), k;
			for (k = 0; k < ns && sockets[k] != sock; k++)
				;
			if (k == ns && ns < 256)
				sockets[ns++] = sock;
		}
		in->nr_sockets = ns;
	}
}

static void parse_feature(struct perf_data *d, int f, const unsigned char *p, size_t n, uint64_t base)
{
	struct pd_info *s = &d->info;
	struct cursor c = { d, p, n, 0, base, true };
	if ((f == F_CPU_TOPOLOGY && s->core_siblings) || (f == F_PMU_MAPPINGS && s->pmus) ||
	    (f == F_GROUP_DESC && s->groups) || (f == F_HYBRID_TOPOLOGY && s->hybrid))
		return;                 /* a pipe repeating a feature: the first one stands */
	switch (f) {
	case F_HOSTNAME: cur_str(&c, s->hostname, sizeof s->hostname); break;
	case F_OSRELEASE: cur_str(&c, s->osrelease, sizeof s->osrelease); break;
	case F_VERSION: cur_str(&c, s->version, sizeof s->version); break;
	case F_ARCH: cur_str(&c, s->arch, sizeof s->arch); break;
	case F_CPUDESC: cur_str(&c, s->cpudesc, sizeof s->cpudesc); break;
	case F_CPUID: cur_str(&c, s->cpuid, sizeof s->cpuid); break;
	case F_NRCPUS:
		s->nr_cpus_avail = cur32(&c);
		s->nr_cpus_online = cur32(&c);
		break;
	case F_TOTAL_MEM: s->total_mem_kb = cur64(&c); break;
	case F_SAMPLE_TIME:
		s->sample_time_first = cur64(&c);
		s->sample_time_last = cur64(&c);
		break;
	case F_CMDLINE: {
		uint32_t nr = cur32(&c);
		size_t w = 0;
		for (uint32_t i = 0; i < nr && c.ok; i++) {
			char arg[1024];
			if (!cur_str(&c, arg, sizeof arg))
				break;
			if (w < sizeof s->cmdline)
				w += (size_t)snprintf(s->cmdline + w, sizeof s->cmdline - w, "%s%s", i ? " " : "", arg);
		}
		break;
	}
	case F_EVENT_DESC: event_desc(&c); break;
	case F_BUILD_ID: build_ids(&c); break;
	case F_CPU_TOPOLOGY: cpu_topology(&c); break;
	case F_PMU_MAPPINGS: {
		uint32_t nr = cur32(&c);
		if (c.ok && nr > (n - c.at) / 8) {
			cur_fail(&c, "absurd number of PMU mappings");
			break;
		}
		s->pmus = td_calloc(nr + 1, sizeof *s->pmus);
		for (uint32_t i = 0; i < nr && c.ok; i++) {
			s->pmus[i].id = cur32(&c);
			if (!(s->pmus[i].name = cur_str(&c, NULL, 0)))
				break;
			s->nr_pmus++;
		}
		break;
	}
	case F_GROUP_DESC: {
		uint32_t nr = cur32(&c);
		if (c.ok && nr > (n - c.at) / 12) {
			cur_fail(&c, "absurd number of groups");
			break;
		}
		s->groups = td_calloc(nr + 1, sizeof *s->groups);
		for (uint32_t i = 0; i < nr && c.ok; i++) {
			struct pd_group *g = &s->groups[i];
			if (!(g->name = cur_str(&c, NULL, 0)))
				break;
			g->leader = cur32(&c);
			g->nr_members = cur32(&c);
			s->nr_groups++;
		}
		break;
	}
	case F_HYBRID_TOPOLOGY: {
		uint32_t nr = cur32(&c);
		if (c.ok && nr > (n - c.at) / 8) {
			cur_fail(&c, "absurd number of hybrid PMUs");
			break;
		}
		s->hybrid = td_calloc(nr + 1, sizeof *s->hybrid);
		for (uint32_t i = 0; i < nr && c.ok; i++) {
			struct pd_hybrid *h = &s->hybrid[i];
			if (!(h->pmu = cur_str(&c, NULL, 0)))
				break;
			if (!(h->cpus = cur_str(&c, NULL, 0))) {
				free(h->pmu);
				h->pmu = NULL;
				break;
			}
			s->nr_hybrid++;
		}
		break;
	}
	case F_COMPRESSED:
		cur32(&c);          /* version */
		s->compressed_type = cur32(&c);
		s->compressed_level = cur32(&c);
		s->compressed_ratio = cur32(&c);
		break;
	default:
		break;              /* the others are skipped by their recorded size */
	}
}

static bool parsed_feature(int f)
{
	return (f >= F_BUILD_ID && f <= F_CPU_TOPOLOGY) || f == F_PMU_MAPPINGS || f == F_GROUP_DESC ||
	       f == F_SAMPLE_TIME || f == F_COMPRESSED || f == F_HYBRID_TOPOLOGY;
}

static void read_file_features(struct perf_data *d)
{
	uint64_t off = d->data_offset + d->data_size;
	/* nrcpus before cpu_topology: bits are in order, and the sections too */
	for (int f = 0; f < 256; f++) {
		if (!perf_data_has_feature(d, f))
			continue;
		unsigned char sec[16];
		if (!read_at(d, off, sec, 16, "the feature section table"))
			return;
		off += 16;
		uint64_t foff = rd64(d, sec), fsize = rd64(d, sec + 8);
		if (foff > d->file_size || fsize > d->file_size - foff) {
			bad(d, off - 16, "feature %s: section [%llu, +%llu) outside the file; features after it ignored",
			    perf_data_feature_name(f) ? perf_data_feature_name(f) : "?", (unsigned long long)foff,
			    (unsigned long long)fsize);
			return;
		}
		if (!parsed_feature(f))
			continue;
		if (fsize > MAX_FEATURE_BYTES) {
			bad(d, off - 8, "feature %s of %llu bytes is absurdly large; skipped", perf_data_feature_name(f),
			    (unsigned long long)fsize);
			continue;
		}
		unsigned char *buf = td_malloc(fsize + 1);
		if (read_at(d, foff, buf, fsize, "a feature section"))
			parse_feature(d, f, buf, fsize, foff);
		free(buf);
	}
}

/* ---- open ---------------------------------------------------------------------- */

static struct perf_data *new_reader(const char *name, enum src_kind kind)
{
	struct perf_data *d = td_calloc(1, sizeof(*d));
	d->path = td_strndup(td_input_display_name(name), strlen(td_input_display_name(name)));
	d->src = td_calloc(1, sizeof(*d->src));
	d->src->kind = kind;
	d->src->fd = -1;
	if (kind != SRC_MEM) {
		d->src->chunk = new_chunk();
		d->src->wcap = WINDOW;
		d->src->win = d->src->chunk->buf;
	}
	d->src->plain = td_plain();
	return d;
}

/* The header; false (reported) when this is not readable perf.data. */
static bool read_header(struct perf_data *d)
{
	unsigned char h[104];
	size_t got = src_avail(d, 0, 16);
	if (got < 16)
		return bad(d, 0, "too short for a perf.data header (%zu bytes)", got);
	memcpy(h, src_get(d, 0, 16), 16);
	if (!memcmp(h, "2ELIFREP", 8))
		d->swapped = true;
	else if (!memcmp(h, "PERFFILE", 8))
		return bad(d, 0, "perf.data version 1 (before perf 2.6.36) is not supported");
	else if (memcmp(h, "PERFILE2", 8))
		return bad(d, 0, "not perf.data (no PERFILE2 magic)");
	uint64_t hsize = rd64(d, h + 8);
	if (hsize == 16) {                         /* pipe mode: everything is in the stream */
		d->pipe_mode = true;
		d->data_offset = 16;
		d->data_size = d->file_size - 16;
		return true;
	}
	if (d->src->kind == SRC_STREAM)
		return bad(d, 8, "file-mode perf.data cannot be read from a stream");
	if (hsize < 104 || hsize > d->file_size)
		return bad(d, 8, "implausible header size %llu", (unsigned long long)hsize);
	if (!read_at(d, 0, h, 104, "the file header"))
		return false;
	uint64_t attr_size = rd64(d, h + 16), attrs_off = rd64(d, h + 24), attrs_size = rd64(d, h + 32);
	d->data_offset = rd64(d, h + 40);
	d->data_size = rd64(d, h + 48);
	for (int i = 0; i < 4; i++)
		d->features[i] = rd64(d, h + 72 + 8 * i);
	if (!read_file_attrs(d, attr_size, attrs_off, attrs_size))
		return false;
	if (d->data_offset > d->file_size || d->data_size > d->file_size - d->data_offset) {
		/* perf killed while recording leaves data.size 0 or a file cut short:
		 * read the records that are there, report it once, no features */
		if (d->data_offset > d->file_size)
			return bad(d, 40, "data section starts at %llu, past the end of the file (%llu bytes)",
				   (unsigned long long)d->data_offset, (unsigned long long)d->file_size);
		bad(d, 48, "data section of %llu bytes runs past the end of the file (truncated?); reading what is there",
		    (unsigned long long)d->data_size);
		d->data_size = d->file_size - d->data_offset;
		d->bad_offset = 0;
		memset(d->features, 0, sizeof d->features);
	} else {
		read_file_features(d);
	}
	return true;
}

static struct perf_data *finish_open(struct perf_data *d)
{
	if (!read_header(d)) {
		perf_data_close(d);
		return NULL;
	}
	d->src->off = d->data_offset;
	d->src->end = d->data_offset + d->data_size;
	return d;
}

struct perf_data *perf_data_open_buffer(const void *buf, size_t len, const char *name)
{
	struct perf_data *d = new_reader(name ? name : "<buffer>", SRC_MEM);
	d->src->mem = buf;
	d->file_size = len;
	return finish_open(d);
}

struct perf_data *perf_data_open_input(struct td_input *in)
{
	size_t n = 16;
	const unsigned char *p = td_input_peek(in, &n);
	bool pipe = n == 16 && (!memcmp(p, "PERFILE2", 8) || !memcmp(p, "2ELIFREP", 8)) &&
		    ((p[0] == 'P' && p[8] == 16) || (p[0] == '2' && p[15] == 16));
	struct perf_data *d;
	if (pipe || n < 16) {
		d = new_reader(td_input_name(in), SRC_STREAM);
		d->src->in = in;
		d->file_size = UINT64_MAX;
		return finish_open(d);
	}
	/* file mode needs random access: spool the (decompressed) bytes to an
	 * unlinked temporary file, a window at a time */
	d = new_reader(td_input_name(in), SRC_FD);
	FILE *tmp = tmpfile();
	if (!tmp) {
		td_bad_input(d->path, 0, "cannot create a temporary file for file-mode perf.data: %s", strerror(errno));
		perf_data_close(d);
		return NULL;
	}
	size_t got;
	uint64_t total = 0;
	while ((got = td_input_read(in, d->src->win, d->src->wcap)) > 0) {
		if (fwrite(d->src->win, 1, got, tmp) != got) {
			td_bad_input(d->path, 0, "cannot spool perf.data to a temporary file: %s", strerror(errno));
			fclose(tmp);
			perf_data_close(d);
			return NULL;
		}
		total += got;
	}
	fflush(tmp);
	d->src->fd = dup(fileno(tmp));
	fclose(tmp);
	d->file_size = total;
	return finish_open(d);
}

struct perf_data *perf_data_open(const char *path)
{
	if (path && strcmp(path, "-") != 0) {
		int fd = open(path, O_RDONLY);
		struct stat st;
		unsigned char m[4] = { 0 };
		if (fd < 0 || fstat(fd, &st)) {
			td_bad_input(path, 0, "cannot read: %s", strerror(errno));
			if (fd >= 0)
				close(fd);
			return NULL;
		}
		bool compressed = S_ISREG(st.st_mode) && pread(fd, m, 4, 0) == 4 &&
				  ((m[0] == 0x1f && m[1] == 0x8b) || !memcmp(m, "\x28\xb5\x2f\xfd", 4));
		/* read through a window, not mapped: in a virtual machine the
		 * first touch of each mapped page walks two sets of page tables,
		 * which cost the reading thread more than pread's copy */
		if (S_ISREG(st.st_mode) && !compressed) {
			struct perf_data *d = new_reader(path, SRC_FD);
			d->src->fd = fd;
			d->file_size = (uint64_t)st.st_size;
			return finish_open(d);
		}
		close(fd);
	}
	struct td_input *in = td_input_open(path);
	if (!in)
		return NULL;
	struct perf_data *d = perf_data_open_input(in);
	if (!d) {
		td_input_close(in);
		return NULL;
	}
	if (d->src->kind == SRC_STREAM)
		d->src->own_in = true;
	else
		td_input_close(in);
	return d;
}

void perf_data_close(struct perf_data *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nattrs; i++) {
		free(d->attrs[i].ids);
		free(d->attrs[i].name);
	}
	free(d->attrs);
	struct pd_info *in = &d->info;
	for (size_t i = 0; i < in->nr_build_ids; i++)
		free(in->build_ids[i].filename);
	free(in->build_ids);
	for (size_t i = 0; i < in->nr_pmus; i++)
		free(in->pmus[i].name);
	free(in->pmus);
	for (size_t i = 0; i < in->nr_groups; i++)
		free(in->groups[i].name);
	free(in->groups);
	for (size_t i = 0; i < in->nr_hybrid; i++) {
		free(in->hybrid[i].pmu);
		free(in->hybrid[i].cpus);
	}
	free(in->hybrid);
	for (char **v = in->core_siblings; v && *v; v++)
		free(*v);
	free(in->core_siblings);
	for (char **v = in->thread_siblings; v && *v; v++)
		free(*v);
	free(in->thread_siblings);
	struct pd_src *s = d->src;
	if (s) {
		if (s->fd >= 0)
			close(s->fd);
		if (s->own_in)
			td_input_close(s->in);
		ZSTD_freeDStream(s->z);
		free(s->zbuf);
		free(s->cc);
		free(s->br);
		free(s->rv);
		free(s->str);
		free(s->chunk);              /* chunks still pinned are the pinner's bug */
		while (s->free_chunks) {
			struct pd_pin *c = s->free_chunks;
			s->free_chunks = c->next;
			free(c);
		}
		free(s->layouts);
		free(s->hkey);
		free(s->hval);
		free(s);
	}
	free((char *)d->path);
	free(d);
}

/* ---- records ------------------------------------------------------------------- */

/* Where every event puts its id: in a sample, from the start; in a
 * sample_id_all trailer, from the end. perf keeps these the same for all
 * events of a file, so the first one's layout decides. */
static int sample_attr(const struct perf_data *d, const unsigned char *p, size_t n)
{
	if (d->nattrs <= 1)
		return d->nattrs - 1;
	struct pd_src *s = d->src;
	if (!s->id_pos) {                      /* attrs[0] is there now and never changes */
		uint64_t st = d->attrs[0].attr.sample_type;
		s->id_pos = -1;
		if (st & PERF_SAMPLE_IDENTIFIER)
			s->id_pos = 1;
		else if (st & PERF_SAMPLE_ID)
			s->id_pos = 1 + 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
					     !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
	}
	if (s->id_pos < 0)
		return -1;
	size_t pos = (size_t)s->id_pos - 1;
	return pos + 8 <= n ? attr_of_id(d, rd64(d, p + pos)) : -1;
}

#define NEED(k) do { if (n - at < (uint64_t)(k)) return false; } while (0)
#define U64(dst) do { NEED(8); (dst) = rd64(d, p + at); at += 8; } while (0)

/* A branch entry's flags word; big-endian ABIs allocate bitfields from
 * the top bit: a field at little-endian bit o of width w is at 64-o-w. */
static uint64_t bits(const struct perf_data *d, uint64_t v, int o, int w)
{
	return (d->swapped ? v >> (64 - o - w) : v >> o) & ((1ULL << w) - 1);
}

/* The layout most samples have (perf record -g, -a): 8-byte words of
 * fixed fields, then maybe a callchain, no other field. A sample of such
 * an event, in this machine's byte order, is read by each field's word
 * index instead of a test per field (decode_fixed). */
#define FIXED_FIELDS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		      PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
enum { W_IP, W_TID, W_TIME, W_ADDR, W_ID, W_STREAM_ID, W_CPU, W_PERIOD, NW };
struct layout {
	bool known, fixed;                /* worked out; fixed: decode_fixed reads it */
	uint8_t nwords;                   /* fixed words, before the callchain if any */
	uint8_t word[NW];                 /* each field's word; nwords when absent (read as 0) */
};

static const struct layout *layout_of(struct perf_data *d, int attr)
{
	struct pd_src *s = d->src;
	if (attr >= s->nlayouts) {
		int n = d->nattrs > attr ? d->nattrs : attr + 1;
		s->layouts = td_realloc(s->layouts, (size_t)n * sizeof *s->layouts);
		memset(s->layouts + s->nlayouts, 0, (size_t)(n - s->nlayouts) * sizeof *s->layouts);
		s->nlayouts = n;
	}
	struct layout *l = &s->layouts[attr];
	if (l->known)
		return l;
	uint64_t st = d->attrs[attr].attr.sample_type;
	l->known = true;
	l->fixed = !d->swapped && !s->plain && !(st & ~(FIXED_FIELDS | PERF_SAMPLE_CALLCHAIN));
	/* the order of the fields in a sample */
	static const uint64_t bit[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
					PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					PERF_SAMPLE_PERIOD };
	static const int field[] = { W_ID, W_IP, W_TID, W_TIME, W_ADDR, W_ID, W_STREAM_ID, W_CPU, W_PERIOD };
	uint8_t w = 0;
	for (int f = 0; f < NW; f++)
		l->word[f] = 0xff;
	for (size_t i = 0; i < sizeof bit / sizeof *bit; i++)
		if (st & bit[i])
			l->word[field[i]] = w++;          /* ID after IDENTIFIER: the id is the later one */
	l->nwords = w;
	for (int f = 0; f < NW; f++)
		if (l->word[f] == 0xff)
			l->word[f] = w;
	return l;
}

/* Field f's word of a fixed-layout sample, 0 when the layout has none
 * (read in place: copying the words out first made every read wait for
 * the copy's stores). */
static inline uint64_t fixed_word(const unsigned char *p, const struct layout *l, int f)
{
	uint64_t v = 0;
	if (l->word[f] < l->nwords)
		memcpy(&v, p + 8u * l->word[f], 8);
	return v;
}

/* A sample of a fixed layout; false when it does not fit (or its
 * callchain would need a copy): decode_sample reads it then. */
static bool decode_fixed(const struct layout *l, const struct perf_event_attr *a, const unsigned char *p, size_t n,
			 struct pd_sample *s)
{
	size_t at = 8u * l->nwords;
	if (n < at)
		return false;
	s->ip = fixed_word(p, l, W_IP);
	/* u32 pid, u32 tid and u32 cpu, u32 res: halves of a word, in memory
	 * order (which half of the u64 that is depends on the byte order) */
	uint64_t tid = fixed_word(p, l, W_TID), cpu = fixed_word(p, l, W_CPU);
	memcpy(&s->pid, &tid, 4);
	memcpy(&s->tid, (const unsigned char *)&tid + 4, 4);
	s->time = fixed_word(p, l, W_TIME);
	s->addr = fixed_word(p, l, W_ADDR);
	s->id = fixed_word(p, l, W_ID);
	s->stream_id = fixed_word(p, l, W_STREAM_ID);
	memcpy(&s->cpu, &cpu, 4);
	s->period = s->sample_type & PERF_SAMPLE_PERIOD ? fixed_word(p, l, W_PERIOD) : a->sample_period;
	if (s->sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (n - at < 8)
			return false;
		uint64_t nr;
		memcpy(&nr, p + at, 8);
		at += 8;
		if (nr > (n - at) / 8 || ((uintptr_t)(p + at) & 7))
			return false;
		s->callchain = (const uint64_t *)(const void *)(p + at);
		s->nr_callchain = nr;
	}
	return true;
}

/* attr: the sample's event, as sample_attr finds it */
static bool decode_sample(struct perf_data *d, const unsigned char *p, size_t n, struct pd_sample *s, int attr)
{
	struct pd_src *src = d->src;
	memset(s, 0, sizeof(*s));
	s->attr = attr;
	if (s->attr < 0)
		return false;
	const struct layout *l = layout_of(d, attr);
	if (l->fixed) {
		s->sample_type = d->attrs[attr].attr.sample_type;
		if (decode_fixed(l, &d->attrs[attr].attr, p, n, s))
			return true;
		memset(s, 0, sizeof(*s));             /* the long way, as if never begun */
		s->attr = attr;
	}
	const struct perf_event_attr *a = &d->attrs[s->attr].attr;
	uint64_t st = a->sample_type, v;
	size_t at = 0;
	s->sample_type = st;
	if (st & PERF_SAMPLE_IDENTIFIER) U64(s->id);
	if (st & PERF_SAMPLE_IP) U64(s->ip);
	if (st & PERF_SAMPLE_TID) { NEED(8); s->pid = rd32(d, p + at); s->tid = rd32(d, p + at + 4); at += 8; }
	if (st & PERF_SAMPLE_TIME) U64(s->time);
	if (st & PERF_SAMPLE_ADDR) U64(s->addr);
	if (st & PERF_SAMPLE_ID) U64(s->id);
	if (st & PERF_SAMPLE_STREAM_ID) U64(s->stream_id);
	if (st & PERF_SAMPLE_CPU) { NEED(8); s->cpu = rd32(d, p + at); at += 8; }
	if (st & PERF_SAMPLE_PERIOD)
		U64(s->period);
	else
		s->period = a->sample_period;          /* as perf does: the fixed period (or frequency) */
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = a->read_format, nr = 1;
		if (rf & PERF_FORMAT_GROUP)
			U64(nr);
		else {
			TD_ALLOC_GROW(src->rv, 1, src->rv_cap);
			U64(src->rv[0].value);
		}
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) U64(s->time_enabled);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) U64(s->time_running);
		size_t per = 8 * (!!(rf & PERF_FORMAT_GROUP) + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
		if (per && nr > (n - at) / per)
			return false;
		if (nr > RV_MAX)
			return false;
		TD_ALLOC_GROW(src->rv, nr, src->rv_cap);
		for (uint64_t i = 0; i < nr; i++) {
			struct pd_read_value *r = &src->rv[i];
			if (rf & PERF_FORMAT_GROUP)
				U64(r->value);
			r->id = r->lost = 0;
			if (rf & PERF_FORMAT_ID) U64(r->id);
			if (rf & PERF_FORMAT_LOST) U64(r->lost);
		}
		s->read = src->rv;
		s->nr_read = nr;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;
		U64(nr);
		if (nr > (n - at) / 8)
			return false;
		if (!d->swapped && ((uintptr_t)(p + at) & 7) == 0) {
			s->callchain = (const uint64_t *)(const void *)(p + at);   /* in place: no copy */
		} else {
			TD_ALLOC_GROW(src->cc, nr, src->cc_cap);
			for (uint64_t i = 0; i < nr; i++)
				src->cc[i] = rd64(d, p + at + 8 * i);
			s->callchain = src->cc;
		}
		s->nr_callchain = nr;
		at += nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		NEED(4);
		s->raw_size = rd32(d, p + at);
		if (s->raw_size > n - at - 4)
			return false;
		s->raw = p + at + 4;
		at += 4 + s->raw_size;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr;
		U64(nr);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			U64(s->hw_idx);
			s->has_hw_idx = true;
		}
		if (nr > (n - at) / 24)
			return false;
		TD_ALLOC_GROW(src->br, nr, src->br_cap);
		for (uint64_t i = 0; i < nr; i++) {
			struct pd_branch *b = &src->br[i];
			const unsigned char *e = p + at + 24 * i;
			b->from = rd64(d, e);
			b->to = rd64(d, e + 8);
			v = rd64(d, e + 16);
			b->mispred = (uint8_t)bits(d, v, 0, 1);
			b->predicted = (uint8_t)bits(d, v, 1, 1);
			b->in_tx = (uint8_t)bits(d, v, 2, 1);
			b->abort = (uint8_t)bits(d, v, 3, 1);
			b->cycles = (uint16_t)bits(d, v, 4, 16);
			b->type = (uint8_t)bits(d, v, 20, 4);
			b->spec = (uint8_t)bits(d, v, 24, 2);
			b->new_type = (uint8_t)bits(d, v, 26, 4);
			b->priv = (uint8_t)bits(d, v, 30, 3);
		}
		s->nr_branches = nr;
		s->branches = src->br;
		at += nr * 24;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		U64(s->regs_user_abi);
		if (s->regs_user_abi) {
			size_t k = 8 * (size_t)__builtin_popcountll(a->sample_regs_user);
			NEED(k);
			s->regs_user = p + at;
			at += k;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		U64(s->stack_user_size);
		NEED(s->stack_user_size);
		s->stack_user = p + at;
		at += s->stack_user_size;
		if (s->stack_user_size)
			U64(s->stack_user_dyn_size);
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		U64(v);
		s->weight = v;
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {  /* u32 var1_dw, u16 var2_w, u16 var3_w, each in file order */
			s->weight = rd32(d, p + at - 8);
			s->ins_lat = rd16(d, p + at - 4);
			s->weight3 = rd16(d, p + at - 2);
		}
	}
	if (st & PERF_SAMPLE_DATA_SRC) U64(s->data_src);
	if (st & PERF_SAMPLE_TRANSACTION) U64(s->transaction);
	if (st & PERF_SAMPLE_REGS_INTR) {
		U64(s->regs_intr_abi);
		if (s->regs_intr_abi) {
			size_t k = 8 * (size_t)__builtin_popcountll(a->sample_regs_intr);
			NEED(k);
			s->regs_intr = p + at;
			at += k;
		}
	}
	if (st & PERF_SAMPLE_PHYS_ADDR) U64(s->phys_addr);
	if (st & PERF_SAMPLE_CGROUP) U64(s->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE) U64(s->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE) U64(s->code_page_size);
	if (st & PERF_SAMPLE_AUX) {
		U64(s->aux_size);
		NEED(s->aux_size);
		s->aux = p + at;
		at += s->aux_size;
	}
	return at <= n;
}

/* What time-ordering needs of a sample: its event, layout and time. */
static bool peek_sample(struct perf_data *d, const unsigned char *p, size_t n, struct pd_sample *s)
{
	s->attr = sample_attr(d, p, n);
	if (s->attr < 0)
		return false;
	uint64_t st = d->attrs[s->attr].attr.sample_type;
	size_t at = 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID));
	s->sample_type = st;
	s->time = 0;
	if (st & PERF_SAMPLE_TIME)
		U64(s->time);
	return at <= n;
}

/* The sample_id_all trailer at the end of a non-sample kernel record;
 * returns its size (0 when there is none). */
static size_t decode_sample_id(struct perf_data *d, const unsigned char *p, size_t n, struct pd_record *r, int known)
{
	if (!d->nattrs || !d->attrs[0].attr.sample_id_all)
		return 0;
	uint64_t st = d->attrs[0].attr.sample_type &
		      (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		       PERF_SAMPLE_IDENTIFIER);
	size_t size = 8 * (size_t)__builtin_popcountll(st);
	if (!size || size > n)
		return 0;
	const unsigned char *t = p + n - size;
	struct pd_sample_id *s = &r->sid;
	if (st & PERF_SAMPLE_TID) { s->pid = rd32(d, t); s->tid = rd32(d, t + 4); t += 8; }
	if (st & PERF_SAMPLE_TIME) { s->time = rd64(d, t); t += 8; }
	if (st & PERF_SAMPLE_ID) { s->id = rd64(d, t); t += 8; }
	if (st & PERF_SAMPLE_STREAM_ID) { s->stream_id = rd64(d, t); t += 8; }
	if (st & PERF_SAMPLE_CPU) { s->cpu = rd32(d, t); t += 8; }
	if (st & PERF_SAMPLE_IDENTIFIER) s->id = rd64(d, t);
	s->valid = true;
	r->attr = known >= 0 ? known
		  : (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) ? attr_of_id(d, s->id) : d->nattrs == 1 ? 0 : -1;
	return size;
}

/* A NUL-terminated string in [p, p + n): in place, or copied when the
 * record lacks the NUL. */
static const char *rec_str(struct perf_data *d, const unsigned char *p, size_t n)
{
	size_t k = strnlen((const char *)p, n);
	if (k < n)
		return (const char *)p;
	TD_ALLOC_GROW(d->src->str, k + 1, d->src->str_cap);
	memcpy(d->src->str, p, k);
	d->src->str[k] = '\0';
	return d->src->str;
}

/* whole: all of a sample, else what peek_sample reads. known: the
 * record's event when an earlier decode found it (>= 0), else -1. */
static void decode_record(struct perf_data *d, struct pd_record *r, bool whole, int known)
{
	const unsigned char *p = r->raw + 8;
	size_t n = r->size - 8u;
	r->attr = -1;
	r->decoded = false;
	memset(&r->sid, 0, sizeof r->sid);
	if (r->type == PERF_RECORD_SAMPLE) {
		r->decoded = whole ? decode_sample(d, p, n, &r->u.sample, known >= 0 ? known : sample_attr(d, p, n))
				   : peek_sample(d, p, n, &r->u.sample);
		r->attr = r->u.sample.attr;
		return;
	}
	memset(&r->u, 0, sizeof r->u);
	if (r->type < HEADER_ATTR)
		n -= decode_sample_id(d, p, n, r, known);
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		size_t fixed = r->type == PERF_RECORD_MMAP ? 32 : 64;
		if (n < fixed)
			return;
		r->u.mmap.pid = rd32(d, p);
		r->u.mmap.tid = rd32(d, p + 4);
		r->u.mmap.start = rd64(d, p + 8);
		r->u.mmap.len = rd64(d, p + 16);
		r->u.mmap.pgoff = rd64(d, p + 24);
		if (r->type == PERF_RECORD_MMAP2) {
			if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				r->u.mmap.has_build_id = true;
				r->u.mmap.build_id_size = p[32] <= 20 ? p[32] : 20;
				memcpy(r->u.mmap.build_id, p + 36, 20);
			} else {
				r->u.mmap.maj = rd32(d, p + 32);
				r->u.mmap.min = rd32(d, p + 36);
				r->u.mmap.ino = rd64(d, p + 40);
				r->u.mmap.ino_generation = rd64(d, p + 48);
			}
			r->u.mmap.prot = rd32(d, p + 56);
			r->u.mmap.flags = rd32(d, p + 60);
		}
		r->u.mmap.filename = rec_str(d, p + fixed, n - fixed);
		break;
	}
	case PERF_RECORD_COMM:
		if (n < 8)
			return;
		r->u.comm.pid = rd32(d, p);
		r->u.comm.tid = rd32(d, p + 4);
		r->u.comm.exec = r->misc & PERF_RECORD_MISC_COMM_EXEC;
		r->u.comm.comm = rec_str(d, p + 8, n - 8);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (n < 24)
			return;
		r->u.task.pid = rd32(d, p);
		r->u.task.ppid = rd32(d, p + 4);
		r->u.task.tid = rd32(d, p + 8);
		r->u.task.ptid = rd32(d, p + 12);
		r->u.task.time = rd64(d, p + 16);
		break;
	case PERF_RECORD_LOST:
		if (n < 16)
			return;
		r->u.lost.id = rd64(d, p);
		r->u.lost.lost = rd64(d, p + 8);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (n < 8)
			return;
		r->u.lost_samples.lost = rd64(d, p);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (n < 24)
			return;
		r->u.throttle.time = rd64(d, p);
		r->u.throttle.id = rd64(d, p + 8);
		r->u.throttle.stream_id = rd64(d, p + 16);
		break;
	case PERF_RECORD_AUX:
		if (n < 24)
			return;
		r->u.aux.aux_offset = rd64(d, p);
		r->u.aux.aux_size = rd64(d, p + 8);
		r->u.aux.flags = rd64(d, p + 16);
		break;
	case PERF_RECORD_ITRACE_START:
		if (n < 8)
			return;
		r->u.itrace_start.pid = rd32(d, p);
		r->u.itrace_start.tid = rd32(d, p + 4);
		break;
	case AUXTRACE:
		if (n < 36)
			return;
		r->u.auxtrace.size = rd64(d, p);
		r->u.auxtrace.offset = rd64(d, p + 8);
		r->u.auxtrace.reference = rd64(d, p + 16);
		r->u.auxtrace.idx = rd32(d, p + 24);
		r->u.auxtrace.tid = rd32(d, p + 28);
		r->u.auxtrace.cpu = rd32(d, p + 32);
		break;
	default:
		return;
	}
	r->decoded = true;
}

/* Pipe mode: attributes, features and event names come as records. */
static bool pipe_record(struct perf_data *d, const struct pd_record *r)
{
	const unsigned char *rec = r->raw;
	size_t size = r->size;
	if (r->type == HEADER_ATTR) {
		if (size < 8 + PERF_ATTR_SIZE_VER0)
			return bad(d, r->offset, "HEADER_ATTR record of %zu bytes is too small for an attribute", size);
		uint32_t asize = rd32(d, rec + 8 + 4);       /* attr.size */
		if (asize == 0)
			asize = PERF_ATTR_SIZE_VER0;
		if (asize < PERF_ATTR_SIZE_VER0 || asize > size - 8 || asize % 8)
			return bad(d, r->offset, "HEADER_ATTR: attribute size %u does not fit the record", asize);
		struct pd_attr *a = new_attr(d, r->offset);
		if (!a)
			return false;
		copy_attr(d, &a->attr, rec + 8, asize);
		return add_ids(d, d->nattrs - 1, rec + 8 + asize, size - 8 - asize, r->offset);
	}
	if (r->type == HEADER_FEATURE && size >= 16) {
		uint64_t f = rd64(d, rec + 8);
		if (f < 256) {
			d->features[f / 64] |= 1ULL << (f % 64);
			if (parsed_feature((int)f))
				parse_feature(d, (int)f, rec + 16, size - 16, r->offset + 16);
		}
	}
	if (r->type == EVENT_UPDATE && size > 24 && rd64(d, rec + 8) == 2) {   /* PERF_EVENT_UPDATE__NAME */
		int a = attr_of_id(d, rd64(d, rec + 16));
		if (a >= 0) {
			size_t k = strnlen((const char *)rec + 24, size - 24);
			free(d->attrs[a].name);
			d->attrs[a].name = k ? td_strndup((const char *)rec + 24, k) : NULL;
		}
	}
	return true;
}

/* Appends the decompressed bytes of one COMPRESSED record to zbuf. */
static bool inflate(struct perf_data *d, const unsigned char *src, size_t n, uint64_t off)
{
	struct pd_src *s = d->src;
	if (!s->z) {
		s->z = ZSTD_createDStream();
		if (!s->z)
			td_die("out of memory");
		ZSTD_initDStream(s->z);
	}
	if (s->zpos) {
		memmove(s->zbuf, s->zbuf + s->zpos, s->zlen - s->zpos);
		s->zlen -= s->zpos;
		s->zpos = 0;
	}
	ZSTD_inBuffer in = { src, n, 0 };
	for (;;) {
		if (s->zcap - s->zlen < 65536) {
			if (s->zcap >= MAX_INFLATED)
				return bad(d, off, "compressed records expand beyond %u MiB without a whole record",
					   MAX_INFLATED >> 20);
			s->zcap = s->zcap ? s->zcap * 2 : 1 << 20;
			s->zbuf = td_realloc(s->zbuf, s->zcap);
		}
		ZSTD_outBuffer out = { s->zbuf + s->zlen, s->zcap - s->zlen, 0 };
		size_t r = ZSTD_decompressStream(s->z, &out, &in);
		if (ZSTD_isError(r))
			return bad(d, off, "zstd data of a COMPRESSED record is corrupt: %s", ZSTD_getErrorName(r));
		s->zlen += out.pos;
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	s->zoff = off;
	return true;
}

static int stop(struct perf_data *d)
{
	if (d->file_size == UINT64_MAX)                /* a stream: now its length is known */
		d->file_size = d->src->off;
	d->src->state = -1;
	return -1;
}

static int finish(struct perf_data *d)
{
	struct pd_src *s = d->src;
	if (s->zlen > s->zpos) {
		bad(d, s->zoff, "the last COMPRESSED record ends inside a record");
		return stop(d);
	}
	if (d->bad_samples > REPORTED_BAD_SAMPLES)
		td_bad_input(d->path, 0, "%lu samples in all did not fit their event's layout (skipped)", d->bad_samples);
	if (d->file_size == UINT64_MAX)
		d->file_size = s->off;
	s->state = 1;
	return 0;
}

static void deliver_checks(struct perf_data *d, struct pd_record *r)
{
	if (r->type != PERF_RECORD_SAMPLE || r->decoded)
		return;
	if (++d->bad_samples > REPORTED_BAD_SAMPLES)
		return;
	if (r->attr < 0)
		td_bad_input(d->path, 0, "offset %llu: sample of no known event (id not in any attribute); skipped",
			     (unsigned long long)r->offset);
	else
		td_bad_input(d->path, 0, "offset %llu: sample does not fit its event's layout (sample_type %#llx); skipped",
			     (unsigned long long)r->offset, (unsigned long long)d->attrs[r->attr].attr.sample_type);
}

/* A record as perf_data_next gives it. */
static void next_decode(struct perf_data *d, struct pd_record *r)
{
	decode_record(d, r, !d->samples_decoded_later, -1);
	if (!d->samples_decoded_later)
		deliver_checks(d, r);
}

int perf_data_next(struct perf_data *d, const struct pd_record **out)
{
	struct pd_src *s = d->src;
	struct pd_record *r = &s->rec;
	if (s->state)
		return s->state > 0 ? 0 : -1;
	for (;;) {
		if (s->zlen - s->zpos >= 8) {          /* records inside COMPRESSED ones first */
			const unsigned char *h = s->zbuf + s->zpos;
			uint16_t size = rd16(d, h + 6);
			if (size < 8) {
				bad(d, s->zoff, "a record inside a COMPRESSED record is smaller than its header");
				return stop(d);
			}
			if (size <= s->zlen - s->zpos) {
				r->type = rd32(d, h);
				r->misc = rd16(d, h + 4);
				r->size = size;
				r->offset = s->zoff;
				r->in_compressed = true;
				r->raw = h;
				s->zpos += size;
				next_decode(d, r);
				*out = r;
				return 1;
			}
		}
		if (s->off >= s->end)
			return finish(d);
		const unsigned char *h = src_get(d, s->off, 8);
		if (!h) {
			size_t avail = src_avail(d, s->off, 8);
			if (avail == 0 && s->kind == SRC_STREAM && s->eof) {
				s->end = s->off;
				return finish(d);
			}
			bad(d, s->off, "record header cut off at the end of the data (%zu of 8 bytes)", avail);
			return stop(d);
		}
		uint32_t type = rd32(d, h);
		uint16_t misc = rd16(d, h + 4), size = rd16(d, h + 6);
		if (size < 8) {
			bad(d, s->off, "record of type %u claims %u bytes, smaller than its header", type, size);
			return stop(d);
		}
		if (size > s->end - s->off || !(h = src_get(d, s->off, size))) {
			bad(d, s->off, "record of type %s (%u bytes) runs past the end of the data (truncated file?)",
			    perf_data_record_name(type), size);
			return stop(d);
		}
		r->type = type;
		r->misc = misc;
		r->size = size;
		r->offset = s->off;
		r->in_compressed = false;
		r->raw = h;
		uint64_t skip = size;
		if (type == AUXTRACE && size >= 16) {              /* the trace follows the record */
			uint64_t payload = rd64(d, h + 8);
			if (payload > s->end - s->off - size) {
				bad(d, s->off, "AUXTRACE payload of %llu bytes runs past the end of the data",
				    (unsigned long long)payload);
				return stop(d);
			}
			skip += payload;
		}
		if (type == HEADER_TRACING_DATA && d->pipe_mode && size >= 12) {   /* so does the tracing data */
			uint64_t payload = (rd32(d, h + 8) + 7ULL) & ~7ULL;
			if (payload > s->end - s->off - size) {
				bad(d, s->off, "tracing data of %llu bytes runs past the end of the data",
				    (unsigned long long)payload);
				return stop(d);
			}
			skip += payload;
		}
		if (d->pipe_mode && !pipe_record(d, r))
			return stop(d);
		next_decode(d, r);
		if (type == COMPRESSED || (type == COMPRESSED2 && size >= 16)) {
			size_t head = type == COMPRESSED ? 8 : 16;
			size_t n = size - head;
			if (type == COMPRESSED2 && rd64(d, h + 8) < n)
				n = (size_t)rd64(d, h + 8);
			if (!inflate(d, h + head, n, s->off))
				return stop(d);
		}
		s->off += skip;
		*out = r;
		return 1;
	}
}

struct pd_pin *perf_data_pin(struct perf_data *d, const struct pd_record *rec)
{
	struct pd_src *s = d->src;
	if (rec->in_compressed)
		return NULL;
	if (s->kind == SRC_MEM)
		return &s->mem_pin;
	if (s->kind != SRC_FD || s->plain)
		return NULL;
	s->chunk->pins++;
	return s->chunk;
}

void perf_data_unpin(struct perf_data *d, struct pd_pin *c)
{
	struct pd_src *s = d->src;
	if (c == &s->mem_pin || --c->pins || c == s->chunk)
		return;
	if (s->nfree < FREE_CHUNKS) {
		c->next = s->free_chunks;
		s->free_chunks = c;
		s->nfree++;
	} else {
		free(c);
	}
}

void perf_data_decode(struct perf_data *d, const void *raw, uint64_t offset, int attr, struct pd_record *out)
{
	const unsigned char *h = raw;
	out->type = rd32(d, h);
	out->misc = rd16(d, h + 4);
	out->size = rd16(d, h + 6);
	out->offset = offset;
	out->in_compressed = false;
	out->raw = h;
	/* a file's ids name the same events to the end: what the first decode
	 * found holds (a stream may bring the same id again for a new event) */
	decode_record(d, out, true, d->pipe_mode ? -1 : attr);
	if (d->samples_decoded_later)
		deliver_checks(d, out);
}

bool perf_data_walk(struct perf_data *d, pd_record_fn fn, void *ctx)
{
	const struct pd_record *r;
	int k;
	while ((k = perf_data_next(d, &r)) > 0)
		fn(ctx, d, r);
	return k == 0;
}

/* ---- names ------------------------------------------------------------------------ */

static const char *const hw_names[] = { "cycles", "instructions", "cache-references", "cache-misses",
					"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
					"stalled-cycles-backend", "ref-cycles" };
static const char *const sw_names[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
					"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
					"emulation-faults", "dummy", "bpf-output", "cgroup-switches" };

/* perf's modifiers after a generic name: the contexts counted when some
 * are excluded (k u h), precise level (p), host/guest (H G). */
static void add_modifiers(const struct perf_event_attr *e, char *buf, size_t cap)
{
	char mod[16];
	size_t n = 0;
	bool guest_default = false;
	if (e->exclude_kernel || e->exclude_user || e->exclude_hv) {
		if (!e->exclude_kernel) mod[n++] = 'k';
		if (!e->exclude_user) mod[n++] = 'u';
		if (!e->exclude_hv) mod[n++] = 'h';
		guest_default = true;
	}
	for (unsigned i = 0; i < e->precise_ip && i < 3; i++)
		mod[n++] = 'p';
	if (e->precise_ip)
		guest_default = true;
	if (e->exclude_host || e->exclude_guest == guest_default) {
		if (!e->exclude_host) mod[n++] = 'H';
		if (!e->exclude_guest) mod[n++] = 'G';
	}
	size_t len = strlen(buf);
	if (n && len + n + 2 <= cap)
		snprintf(buf + len, cap - len, ":%.*s", (int)n, mod);
}

static void generic_name(const struct perf_data *d, const struct perf_event_attr *e, char *buf, size_t cap)
{
	if (e->type == PERF_TYPE_HARDWARE && e->config < sizeof hw_names / sizeof *hw_names)
		snprintf(buf, cap, "%s", hw_names[e->config]);
	else if (e->type == PERF_TYPE_SOFTWARE && e->config < sizeof sw_names / sizeof *sw_names)
		snprintf(buf, cap, "%s", sw_names[e->config]);
	else if (e->type == PERF_TYPE_RAW)
		snprintf(buf, cap, "r%llx", (unsigned long long)e->config);
	else {
		for (size_t i = 0; i < d->info.nr_pmus; i++)
			if (d->info.pmus[i].id == e->type && e->type >= PERF_TYPE_MAX) {
				snprintf(buf, cap, "%s/config=%#llx/", d->info.pmus[i].name, (unsigned long long)e->config);
				return;
			}
		snprintf(buf, cap, "type %u config %#llx", e->type, (unsigned long long)e->config);
		return;
	}
	add_modifiers(e, buf, cap);
}

size_t perf_data_event_name(const struct perf_data *d, int ai, char *buf, size_t cap)
{
	if (ai < 0 || ai >= d->nattrs)
		return (size_t)snprintf(buf, cap, "unknown");
	const struct pd_attr *a = &d->attrs[ai];
	if (a->name)
		return (size_t)snprintf(buf, cap, "%s", a->name);
	generic_name(d, &a->attr, buf, cap);          /* short: a PMU name, hex and modifiers */
	return strlen(buf);
}

char *perf_data_event_name_dup(const struct perf_data *d, int ai)
{
	char buf[128];
	size_t n = perf_data_event_name(d, ai, buf, sizeof buf);
	char *s = td_malloc(n + 1);
	perf_data_event_name(d, ai, s, n + 1);
	return s;
}

static void flag_names(uint64_t v, const char *const *names, int nnames, char *buf, size_t cap)
{
	size_t w = 0;
	buf[0] = '\0';
	for (int b = 0; b < 64; b++)
		if (v >> b & 1 && w < cap) {
			if (b < nnames && names[b])
				w += (size_t)snprintf(buf + w, cap - w, "%s%s", w ? "|" : "", names[b]);
			else
				w += (size_t)snprintf(buf + w, cap - w, "%sbit%d", w ? "|" : "", b);
		}
}

void perf_data_sample_type_str(uint64_t st, char *buf, size_t cap)
{
	static const char *const names[] = { "IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
					     "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
					     "DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
					     "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT" };
	flag_names(st, names, (int)(sizeof names / sizeof *names), buf, cap);
}

void perf_data_branch_type_str(uint64_t bt, char *buf, size_t cap)
{
	static const char *const names[] = { "USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL",
					     "ABORT_TX", "IN_TX", "NO_TX", "COND", "CALL_STACK", "IND_JUMP", "CALL",
					     "NO_FLAGS", "NO_CYCLES", "TYPE_SAVE", "HW_INDEX", "PRIV_SAVE", "COUNTERS" };
	flag_names(bt, names, (int)(sizeof names / sizeof *names), buf, cap);
}
