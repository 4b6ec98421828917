#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>
#include "common/diag.h"
#include "common/intern.h"
#include "common/sorted.h"
#include "common/demangle.h"
#include "parsers/dwarf_inlines.h"
#include "common/grow.h"
#include "common/plain.h"
#include "parsers/elf_symbols.h"
#include "parsers/kallsyms.h"
#include "symbol_loader.h"
#include "machine.h"

enum dso_kind { DSO_FILE, DSO_VDSO, DSO_PERF_MAP, DSO_KERNEL, DSO_MODULE, DSO_NONE };

struct jit_sym { uint64_t start, end; char *name; };

struct dso {
	const char *name;            /* as perf prints it (interned) */
	enum dso_kind kind;
	char build_id[41];           /* "" when none was recorded */
	bool loaded;
	struct elf_symbols *elf;     /* DSO_FILE, DSO_VDSO */
	struct jit_sym *jit;         /* DSO_PERF_MAP, sorted */
	size_t njit;
	char module[64];             /* DSO_MODULE: name in kallsyms */
	bool dw_tried;
	struct dwarf_inlines *dw;    /* DSO_FILE with debug info: its inline chains */
	uint32_t no_sym_id;          /* pair_id(NULL, name) + 1, once asked (0: not yet) */
};

struct map {
	uint64_t start, end, pgoff;
	uint32_t dso;
	bool identity;               /* anonymous, perf map and kernel maps: addresses as they are */
};

struct maps {
	struct map *v;
	size_t n, cap;
	uint32_t gen;                /* a process's: renewed whenever its maps change */
	uint32_t live;               /* a process's threads seen and not exited */
	bool disjoint;               /* known: every map is non-empty and ends at or before the next starts
					(false: not known) */
	uint32_t hint[2];            /* the indexes maps_find_hinted() found last, latest first (may be out
					of date) */
};

struct thread {
	int32_t pid;
	uint32_t comm;               /* id in comms; UINT32_MAX: never named */
	bool live;                   /* counted in its process's live */
	bool exited;                 /* an EXIT seen, and no FORK since: samples after it do not revive it */
};

#define COMM_SLOTS 256
#define TID_SLOTS 256
#define PROC_SLOTS 256

struct machine {
	struct machine_options opt;
	char buildid_dir[512];
	struct td_intern *names;     /* dso names -> index into dsos */
	struct dso *dsos;
	size_t ndsos, dsos_cap;
	struct td_intern *pids;      /* pid -> index into procs */
	struct maps *procs;
	size_t procs_cap;
	struct td_intern *tids;      /* tid -> index into threads */
	struct thread *threads;
	size_t threads_cap;
	struct td_intern *comms;
	struct maps kmaps;
	bool kernel_mapped;          /* a kernel MMAP was seen (or the host default made) */
	uint32_t kernel_dso;
	uint64_t ref_addr;           /* recorded address of ref_name (_text), 0 if hidden */
	char ref_name[32];
	struct kallsyms *ksyms;
	bool ksyms_tried;
	struct comm_slot { int32_t pid, tid; uint32_t thread; } comm_cache[COMM_SLOTS];   /* thread: index + 1 */
	struct tid_slot { int32_t tid; uint32_t id; } tid_cache[TID_SLOTS];   /* id: index + 1; 0 empty */
	uint32_t last_dso;           /* the dso dso_of() gave last, + 1 (0: none) */
	char ksyms_path[700];        /* where they come from */
	struct symbol_places places;
	struct symbol_loader *loader;   /* reading kallsyms ahead; NULL: read when needed */
	const struct perf_data *data;
	uint32_t kernel_gen;         /* bumped whenever a kernel lookup could change */
	uint32_t next_gen;           /* the last generation handed out to a process */
	struct proc_slot { int32_t pid; uint32_t id; } proc_cache[PROC_SLOTS];   /* id: index + 1; 0 empty */
	int32_t last_pid;            /* the process last looked up, */
	uint32_t last_proc;          /* its index + 1 (0: none) */
	char *caches;                /* the region holding cache and syms (map_caches) */
	struct resolved *cache;      /* direct-mapped, by (pid, cpumode, ip) */
	struct sym_slot *syms;       /* two-way set associative, by (dso, key) */
	uint32_t no_sym_id;          /* the sym_id of (no symbol, no dso) */
	struct td_intern *bid_names; /* the file's build-id table: file names, */
	size_t *bid_first;           /* by their id: the index of their first entry */
	size_t bid_cap, bid_seen;    /* entries indexed */
	bool plain;                  /* td_plain(): no syms, maps_insert walks */
	struct td_intern *sym_ids;   /* (sym, dso) pointer pairs not noted in a symbol table */
	uint32_t *pair_ids;          /* by sym_ids' id: the pair's sym_id */
	size_t pair_ids_cap;
	uint32_t nsym_ids;           /* sym_ids handed out */
	struct td_intern *inl_keys;  /* (dso, key) of the addresses whose inline chains are known */
	struct inl_chain { uint32_t first, n; } *inl;
	size_t inl_cap;
	struct inl_entry { const char *sym; bool inlined; } *inl_pool;
	size_t inl_used, inl_pool_cap;
	struct td_intern *inl_names; /* demangled names of inlined functions */
	struct machine_module *modules;
	size_t modules_cap;
	struct machine_user_map *user_maps;
	size_t user_maps_cap;
	uint64_t kernel_start;       /* 0 until kernel_start() first computes it */
	uint64_t now;                /* the latest time of a record applied */
	struct exited { int32_t pid; uint32_t gen; uint64_t time; } *exited;   /* processes whose threads all exited */
	size_t exited_head, nexited, exited_cap;
	char tmp[64];
};

/* A resolved address; valid while its gen is the machine's. */
struct resolved {
	uint64_t ip;
	int32_t pid;
	int16_t cpumode;
	uint64_t gen;                /* the kernel's or its process's (generation()); 0: empty */
	struct machine_frame f;
};

#define CACHE_BITS 14

/* A binary's symbol at a key (see map_symbol). A set is SYM_WAYS slots
 * in one cache line, the one used last first: a system-wide recording
 * meets a few hundred thousand (binary, key) pairs, and with one slot per
 * set a third of the lookups that missed had been evicted by another pair
 * of the same slot. */
#define SYM_WAYS 2
struct sym_slot {
	uint64_t key, start;
	const char *sym;
	uint32_t dso;                /* index + 1; 0: empty */
	uint32_t sym_id;
};
_Static_assert(SYM_WAYS * sizeof(struct sym_slot) == 64, "a set is one cache line");

#define SYM_BITS 15
#define CACHES_BYTES ((size_t)2 << 20)
_Static_assert(((size_t)1 << CACHE_BITS) * sizeof(struct resolved) + ((size_t)1 << SYM_BITS) * sizeof(struct sym_slot) <=
	       CACHES_BYTES, "the caches fit their region");

static void maps_insert(struct maps *ms, const struct map *mp, bool bisect);

/* ---- dsos ------------------------------------------------------------------------- */

/* The file's build-id table by file name, the first entry of a name
 * winning. Indexed when the machine is made; entries that arrive later
 * (pipe mode, played on one thread) are indexed at the next lookup, so in
 * file mode lookups from the reading thread only read. */
static void index_build_ids(struct machine *m)
{
	const struct pd_info *in = &m->data->info;
	for (; m->bid_seen < in->nr_build_ids; m->bid_seen++) {
		const char *f = in->build_ids[m->bid_seen].filename;
		if (!f)
			continue;
		uint32_t n = td_intern_count(m->bid_names), id = td_intern(m->bid_names, f, strlen(f));
		if (id == n) {
			TD_ALLOC_GROW(m->bid_first, (size_t)n + 1, m->bid_cap);
			m->bid_first[id] = m->bid_seen;
		}
	}
}

static const char *recorded_build_id(struct machine *m, const char *name)
{
	if (m->bid_seen < m->data->info.nr_build_ids)
		index_build_ids(m);
	uint32_t id = td_intern_find(m->bid_names, name, strlen(name));
	return id == UINT32_MAX ? "" : m->data->info.build_ids[m->bid_first[id]].hex;
}

static uint32_t dso_of(struct machine *m, const char *name, enum dso_kind kind)
{
	size_t len = strlen(name), last_len;
	if (m->last_dso) {            /* a binary's MMAPs come one after another */
		const char *last = td_intern_str(m->names, m->last_dso - 1, &last_len);
		if (last_len == len && memcmp(last, name, len) == 0)
			return m->last_dso - 1;
	}
	uint32_t id = td_intern(m->names, name, len);
	m->last_dso = id + 1;
	if (id < m->ndsos)
		return id;
	TD_ALLOC_GROW(m->dsos, m->ndsos + 1, m->dsos_cap);
	struct dso *d = &m->dsos[m->ndsos++];
	memset(d, 0, sizeof(*d));
	d->name = td_intern_str(m->names, id, NULL);
	d->kind = kind;
	snprintf(d->build_id, sizeof d->build_id, "%s", recorded_build_id(m, name));
	return id;
}

static int cmp_jit(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* /tmp/perf-PID.map, written by JITs: "START SIZE NAME" in hex per line. */
static void load_perf_map(struct dso *d)
{
	FILE *f = fopen(d->name, "r");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0, jcap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		char *p = line, *e;
		unsigned long long start = strtoull(p, &e, 16), size;
		if (e == p || *e != ' ')
			continue;
		p = e + 1;
		size = strtoull(p, &e, 16);
		if (e == p || *e != ' ' || !e[1])
			continue;
		TD_ALLOC_GROW(d->jit, d->njit + 1, jcap);
		d->jit[d->njit++] = (struct jit_sym){ start, start + size, td_strndup(e + 1, strlen(e + 1)) };
	}
	free(line);
	fclose(f);
	qsort(d->jit, d->njit, sizeof(*d->jit), cmp_jit);
}

static const char *find_jit(const struct dso *d, uint64_t addr, uint64_t *start)
{
	size_t lo = td_count_at_or_before(d->jit, d->njit, sizeof(*d->jit), offsetof(struct jit_sym, start), addr);
	if (lo == 0 || addr >= d->jit[lo - 1].end)
		return NULL;
	*start = d->jit[lo - 1].start;
	return d->jit[lo - 1].name;
}

/* ---- kernel symbols ---------------------------------------------------------------- */

/* The GNU build id of the running kernel, from /sys/kernel/notes. */
static void running_kernel_build_id(char *hex, size_t cap)
{
	*hex = '\0';
	FILE *f = fopen("/sys/kernel/notes", "rb");
	if (!f)
		return;
	unsigned char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, f), off = 0;
	fclose(f);
	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name_at = off + 12, desc_at = name_at + ((namesz + 3) & ~3u);
		if (desc_at + descsz > n)
			return;
		if (type == 3 && namesz == 4 && memcmp(buf + name_at, "GNU", 4) == 0 && descsz <= 20 && cap > 2 * descsz) {
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", buf[desc_at + i]);
			return;
		}
		off = desc_at + ((descsz + 3) & ~3u);
	}
}

static bool no_modules_loaded(void)
{
	FILE *f = fopen("/proc/modules", "r");
	if (!f)
		return false;
	bool empty = fgetc(f) == EOF;
	fclose(f);
	return empty;
}

/* On the recording host perf reads the kernel's layout from /proc/kcore
 * (when the boot and the modules are the ones recorded): every executable
 * segment becomes part of [kernel.kallsyms], init text included. */
static void use_kcore(struct machine *m)
{
	uint64_t text;
	if (!m->ksyms || !kallsyms_addr_of(m->ksyms, "_stext", &text) || !no_modules_loaded())
		return;
	uint64_t host_ref;
	if (m->ref_addr && (!kallsyms_addr_of(m->ksyms, m->ref_name, &host_ref) || host_ref != m->ref_addr))
		return;
	for (size_t i = 0; i < m->kmaps.n; i++)
		if (m->dsos[m->kmaps.v[i].dso].kind == DSO_MODULE)
			return;
	int fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t nph = 0;
	if (elf && elf_getphdrnum(elf, &nph) == 0 && nph > 0) {
		struct maps kmaps = { NULL, 0, 0, 0, 0, false, { 0, 0 } };
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			uint64_t size;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
			    !(size = ph.p_memsz < ph.p_filesz ? ph.p_memsz : ph.p_filesz))
				continue;
			struct map mp = { ph.p_vaddr, ph.p_vaddr + size, 0, m->kernel_dso, true };
			maps_insert(&kmaps, &mp, !m->plain);
		}
		if (kmaps.n) {
			free(m->kmaps.v);
			m->kmaps = kmaps;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
}

/* Once kallsyms is loaded, perf's kernel map reaches the end of the last
 * kernel symbol (init text lies past _etext), short of the next map. */
static void stretch_kernel_map(struct machine *m)
{
	if (!m->ksyms)
		return;
	uint64_t end = kallsyms_kernel_end(m->ksyms);
	for (size_t i = 0; i < m->kmaps.n; i++) {
		struct map *mp = &m->kmaps.v[i];
		if (mp->dso != m->kernel_dso || mp->end >= end)
			continue;
		uint64_t limit = i + 1 < m->kmaps.n ? m->kmaps.v[i + 1].start : UINT64_MAX;
		mp->end = end < limit ? end : limit;
	}
}

/* Which kallsyms perf would read (the kernel's recorded build id is known
 * from the file's header, so this is fixed from the start). */
static void choose_kallsyms(struct machine *m)
{
	const char *bid = m->dsos[m->kernel_dso].build_id;
	char *path = m->ksyms_path;
	size_t cap = sizeof m->ksyms_path;
	if (m->opt.kallsyms) {
		snprintf(path, cap, "%s", m->opt.kallsyms);
	} else {
		char running[41];
		running_kernel_build_id(running, sizeof running);
		if (!*bid || strcmp(running, bid) == 0)
			snprintf(path, cap, "/proc/kallsyms");
		else
			snprintf(path, cap, "%s/[kernel.kallsyms]/%s/kallsyms", m->buildid_dir, bid);
	}
}

/* Reading kallsyms takes tens of milliseconds (the kernel formats
 * /proc/kallsyms line by line): the loader starts with them when the file
 * may hold kernel addresses; load_kernel_symbols() collects them. */
static void start_loader(struct machine *m, const struct perf_data *d)
{
	bool kernel = false;
	for (int i = 0; i < d->nattrs; i++)
		kernel |= !d->attrs[i].attr.exclude_kernel;
	m->loader = kernel ? symbol_loader_start(m->ksyms_path) : NULL;
}

static struct kallsyms *collect_kallsyms(struct machine *m)
{
	return m->loader ? symbol_loader_kallsyms(m->loader) : kallsyms_load(m->ksyms_path);
}

bool machine_kernel_ready(const struct machine *m)
{
	return !m->loader || m->ksyms_tried || symbol_loader_kallsyms_ready(m->loader);
}

static void load_kernel_symbols(struct machine *m)
{
	m->ksyms_tried = true;
	const char *path = m->ksyms_path;
	m->ksyms = collect_kallsyms(m);
	if (strcmp(path, "/proc/kallsyms") == 0)
		use_kcore(m);
	stretch_kernel_map(m);
	uint64_t ref;
	if (m->ksyms && m->ref_addr && kallsyms_addr_of(m->ksyms, m->ref_name, &ref) && ref != m->ref_addr)
		kallsyms_relocate(m->ksyms, ref - m->ref_addr);     /* another boot's KASLR offset */
}

/* ---- maps ------------------------------------------------------------------------- */

static void maps_push(struct maps *ms, const struct map *mp, size_t at)
{
	TD_ALLOC_GROW(ms->v, ms->n + 1, ms->cap);
	memmove(ms->v + at + 1, ms->v + at, (ms->n - at) * sizeof(*ms->v));
	ms->v[at] = *mp;
	ms->n++;
}

static bool maps_are_disjoint(const struct maps *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i].start >= ms->v[i].end || (i + 1 < ms->n && ms->v[i].end > ms->v[i + 1].start))
			return false;
	return true;
}

/* maps_insert on disjoint maps: the maps the new one overlaps are a run
 * [a, b) found by bisection (ends ascend with starts), replaced by the
 * part of the first before it, the new map, and the part of the last
 * after it: what the general walk below leaves, without walking. */
static void maps_insert_disjoint(struct maps *ms, const struct map *mp)
{
	size_t a = 0, b = ms->n;
	while (a < b) {               /* the first map ending after the new one starts */
		size_t mid = a + (b - a) / 2;
		if (ms->v[mid].end <= mp->start)
			a = mid + 1;
		else
			b = mid;
	}
	b = a;
	while (b < ms->n && ms->v[b].start < mp->end)
		b++;
	struct map keep[3];
	int nkeep = 0;
	if (a < b && ms->v[a].start < mp->start) {
		keep[nkeep] = ms->v[a];
		keep[nkeep++].end = mp->start;
	}
	keep[nkeep++] = *mp;
	if (a < b && ms->v[b - 1].end > mp->end) {
		keep[nkeep] = ms->v[b - 1];
		keep[nkeep].start = mp->end;
		if (!ms->v[b - 1].identity)
			keep[nkeep].pgoff += mp->end - ms->v[b - 1].start;
		nkeep++;
	}
	size_t n = ms->n - (b - a) + (size_t)nkeep;
	TD_ALLOC_GROW(ms->v, n, ms->cap);
	memmove(ms->v + a + nkeep, ms->v + b, (ms->n - b) * sizeof(*ms->v));
	memcpy(ms->v + a, keep, (size_t)nkeep * sizeof(*keep));
	ms->n = n;
}

/* Insert, cutting whatever the new map covers out of older ones (perf
 * keeps the parts of an old map before and after the new one); bisect:
 * by maps_insert_disjoint when it can (not under td_plain()). */
static void maps_insert(struct maps *ms, const struct map *mp, bool bisect)
{
	if (bisect && ms->disjoint && mp->start < mp->end) {
		maps_insert_disjoint(ms, mp);
		return;
	}
	size_t w = 0;
	struct map keep[3];              /* the part before, the part after, the new map */
	int nkeep = 0;
	for (size_t i = 0; i < ms->n; i++) {
		struct map *o = &ms->v[i];
		if (o->end <= mp->start || o->start >= mp->end) {
			ms->v[w++] = *o;
			continue;
		}
		if (o->start < mp->start && nkeep < 2) {
			keep[nkeep] = *o;
			keep[nkeep++].end = mp->start;
		}
		if (o->end > mp->end && nkeep < 2) {
			keep[nkeep] = *o;
			keep[nkeep].start = mp->end;
			if (!o->identity)
				keep[nkeep].pgoff += mp->end - o->start;
			nkeep++;
		}
	}
	ms->n = w;
	keep[nkeep++] = *mp;
	for (int k = 0; k < nkeep; k++) {
		size_t at = 0;
		while (at < ms->n && ms->v[at].start < keep[k].start)
			at++;
		maps_push(ms, &keep[k], at);
	}
	ms->disjoint = maps_are_disjoint(ms);
}

static const struct map *maps_find(const struct maps *ms, uint64_t addr)
{
	size_t lo = td_count_at_or_before(ms->v, ms->n, sizeof(*ms->v), offsetof(struct map, start), addr);
	if (lo == 0 || addr >= ms->v[lo - 1].end)
		return NULL;
	return &ms->v[lo - 1];
}

/* Whether map h is the one maps_find would end its search on: its
 * start at or before addr and the next one's after it, whatever the maps
 * are. */
static inline bool maps_ends_at(const struct maps *ms, size_t h, uint64_t addr)
{
	return h < ms->n && ms->v[h].start <= addr && (h + 1 == ms->n || addr < ms->v[h + 1].start);
}

/* maps_find, first trying the two maps found last: a process's frames lie
 * in a few maps, a callchain going back and forth between its binary's
 * text and libc's. */
static const struct map *maps_find_hinted(struct maps *ms, uint64_t addr)
{
	size_t h = ms->hint[0];
	if (!maps_ends_at(ms, h, addr)) {
		h = ms->hint[1];
		if (maps_ends_at(ms, h, addr)) {
			ms->hint[1] = ms->hint[0];
			ms->hint[0] = (uint32_t)h;
		} else {
			const struct map *mp = maps_find(ms, addr);
			if (!mp)
				return NULL;
			h = (size_t)(mp - ms->v);
			ms->hint[1] = ms->hint[0];
			ms->hint[0] = (uint32_t)h;
		}
	}
	return addr < ms->v[h].end ? &ms->v[h] : NULL;
}

/* Samples come from a few processes at a time: their indexes are kept by
 * pid (a process's index never changes). */
static uint32_t process_index(struct machine *m, int32_t pid)
{
	struct proc_slot *c = &m->proc_cache[(uint32_t)pid % PROC_SLOTS];
	if (c->id == 0 || c->pid != pid)
		*c = (struct proc_slot){ pid, td_intern(m->pids, (const char *)&pid, sizeof pid) + 1 };
	return c->id - 1;
}

static struct maps * __attribute__((noinline)) process_lookup_slow(struct machine *m, int32_t pid)
{
	uint32_t id = process_index(m, pid);
	if (id >= m->procs_cap) {
		size_t cap = td_alloc_nr(m->procs_cap, (size_t)id + 1, sizeof(*m->procs));
		m->procs = td_realloc_array(m->procs, cap, sizeof(*m->procs));
		memset(m->procs + m->procs_cap, 0, (cap - m->procs_cap) * sizeof(*m->procs));
		m->procs_cap = cap;
	}
	m->last_pid = pid;
	m->last_proc = id + 1;
	return &m->procs[id];
}

/* process_lookup_slow when pid's index is kept and has its maps: this
 * runs at nearly every sample (consecutive samples are mostly of other
 * processes), and apart from the slow part it needs no stack frame. */
static struct maps * __attribute__((noinline)) process_lookup(struct machine *m, int32_t pid)
{
	const struct proc_slot *c = &m->proc_cache[(uint32_t)pid % PROC_SLOTS];
	if (m->plain || c->id == 0 || c->pid != pid || c->id > m->procs_cap)
		return process_lookup_slow(m, pid);
	m->last_pid = pid;
	m->last_proc = c->id;
	return &m->procs[c->id - 1];
}

static inline struct maps *process(struct machine *m, int32_t pid)
{
	if (m->last_proc && m->last_pid == pid)     /* a sample's frames are all one process's */
		return &m->procs[m->last_proc - 1];
	return process_lookup(m, pid);
}

static void thread_exited(struct machine *m, struct thread *t);

/* The index of thread tid in threads (new: == td_intern_count before).
 * Side-band records come in runs per thread (a process's MMAPs): the
 * index is kept by tid, as a tid's index never changes. */
static uint32_t thread_index(struct machine *m, int32_t tid)
{
	struct tid_slot *c = &m->tid_cache[(uint32_t)tid % TID_SLOTS];
	if (c->id == 0 || c->tid != tid)
		*c = (struct tid_slot){ tid, td_intern(m->tids, (const char *)&tid, sizeof tid) + 1 };
	return c->id - 1;
}

static struct thread *thread(struct machine *m, int32_t pid, int32_t tid, bool *created)
{
	uint32_t n = td_intern_count(m->tids);
	uint32_t id = thread_index(m, tid);
	if (id >= m->threads_cap) {
		size_t cap = td_alloc_nr(m->threads_cap, (size_t)id + 1, sizeof(*m->threads));
		m->threads = td_realloc_array(m->threads, cap, sizeof(*m->threads));
		m->threads_cap = cap;
	}
	struct thread *t = &m->threads[id];
	if (id == n)
		*t = (struct thread){ pid, UINT32_MAX, false, false };
	else if (pid != -1 && pid != 0 && pid != t->pid) {
		thread_exited(m, t);
		t->pid = pid;
		t->exited = false;
	}
	if (!t->live && !t->exited && t->pid > 0) {
		t->live = true;
		process(m, t->pid)->live++;
	}
	if (created)
		*created = id == n;
	return t;
}

/* perf keeps an exited process's maps for good; here they are let go
 * EXIT_GRACE_NS of recorded time after the last of its threads seen
 * exited, if nothing touched them since. The kernel writes EXIT from
 * do_exit(), and samples of the dying task may follow it, with the user
 * address it entered the kernel from (its exit_group call) still in the
 * callchain; the rest of do_exit() takes far less than the grace. A pid
 * used again comes with a FORK, which gives the new process its maps.
 * Memory then follows the processes alive at a time, not all a
 * system-wide recording saw. */
#define EXIT_GRACE_NS 1000000000ull

static void thread_exited(struct machine *m, struct thread *t)
{
	if (!t->live)
		return;
	t->live = false;
	struct maps *ms = process(m, t->pid);
	if (ms->live && --ms->live == 0) {
		TD_ALLOC_GROW(m->exited, m->nexited + 1, m->exited_cap);
		m->exited[m->nexited++] = (struct exited){ t->pid, ms->gen, m->now };
	}
}

/* The maps of processes gone for EXIT_GRACE_NS, oldest first. */
static void release_exited(struct machine *m)
{
	size_t i = m->exited_head;
	for (; i < m->nexited && m->exited[i].time + EXIT_GRACE_NS <= m->now; i++) {
		struct maps *ms = process(m, m->exited[i].pid);
		if (ms->live == 0 && ms->gen == m->exited[i].gen) {
			free(ms->v);
			*ms = (struct maps){ NULL, 0, 0, ++m->next_gen, 0, false, { 0, 0 } };
		}
	}
	m->exited_head = i;
	if (i == m->nexited)
		m->exited_head = m->nexited = 0;
	else if (i > 4096 && i > m->nexited / 2) {
		memmove(m->exited, m->exited + i, (m->nexited - i) * sizeof(*m->exited));
		m->nexited -= i;
		m->exited_head = 0;
	}
}

static void apply_exit(struct machine *m, const struct pd_record *r)
{
	int32_t tid = (int32_t)r->u.task.tid;
	uint32_t id = td_intern_find(m->tids, (const char *)&tid, sizeof tid);
	if (id != UINT32_MAX && m->threads[id].pid == (int32_t)r->u.task.pid) {
		thread_exited(m, &m->threads[id]);
		m->threads[id].exited = true;
	}
}

/* ---- records ---------------------------------------------------------------------- */

static void set_comm(struct machine *m, struct thread *t, const char *comm)
{
	t->comm = td_intern(m->comms, comm, strlen(comm));
}

static void apply_fork(struct machine *m, const struct pd_record *r)
{
	uint32_t pid = r->u.task.pid, tid = r->u.task.tid, ppid = r->u.task.ppid, ptid = r->u.task.ptid;
	struct thread *parent = thread(m, (int32_t)ppid, (int32_t)ptid, NULL);
	uint32_t comm = parent->comm;
	struct thread *child = thread(m, (int32_t)pid, (int32_t)tid, NULL);
	if (child->pid != (int32_t)pid) {
		thread_exited(m, child);
		child->pid = (int32_t)pid;
	}
	if (child->exited) {             /* the tid used again: a new task */
		child->exited = false;
		child = thread(m, (int32_t)pid, (int32_t)tid, NULL);
	}
	child->comm = comm;
	if (pid == ppid)
		return;                 /* a new thread shares its process's maps */
	/* perf record synthesizes these from /proc with this flag; the
	 * process's own MMAPs follow, and perf does not give it its parent's */
	bool clone = !(r->misc & PERF_RECORD_MISC_FORK_EXEC);
	struct maps *from = process(m, (int32_t)ppid);
	struct map *copy = NULL;
	size_t n = clone ? from->n : 0;
	bool from_disjoint = from->disjoint;
	if (n) {
		copy = td_malloc(n * sizeof(*copy));
		memcpy(copy, from->v, n * sizeof(*copy));
	}
	struct maps *to = process(m, (int32_t)pid);   /* may move procs: from is stale now */
	free(to->v);
	*to = (struct maps){ copy, n, n, ++m->next_gen, to->live, n && from_disjoint, { 0, 0 } };
}

static void kernel_mmap(struct machine *m, const struct pd_record *r)
{
	const char *name = r->u.mmap.filename;
	bool is_kernel = strncmp(name, "[kernel.kallsyms", 16) == 0;
	struct map mp = { r->u.mmap.start, r->u.mmap.start + r->u.mmap.len, 0, 0, true };
	if (name[0] == '/' || (!is_kernel && name[0] == '[')) {
		const char *base = strrchr(name, '/');
		base = base ? base + 1 : name;
		char mod[64];
		size_t n = strcspn(base, ".");
		if (base[0] == '[')
			snprintf(mod, sizeof mod, "%.*s", (int)strcspn(base + 1, "]"), base + 1);
		else
			snprintf(mod, sizeof mod, "%.*s", (int)(n < sizeof mod ? n : sizeof mod - 1), base);
		for (char *c = mod; *c; c++)
			if (*c == '-')
				*c = '_';
		/* perf prints the path when the build-id table names it, else [module] */
		char dname[80];
		snprintf(dname, sizeof dname, "[%s]", mod);
		mp.dso = dso_of(m, *recorded_build_id(m, name) ? name : dname, DSO_MODULE);
		snprintf(m->dsos[mp.dso].module, sizeof m->dsos[mp.dso].module, "%s", mod);
		maps_insert(&m->kmaps, &mp, !m->plain);
	} else if (is_kernel) {
		mp.dso = m->kernel_dso;
		snprintf(m->ref_name, sizeof m->ref_name, "%s", name + 17);
		m->ref_addr = r->u.mmap.pgoff;
		for (size_t i = 0; i < m->kmaps.n; i++)    /* the kernel map moves */
			if (m->kmaps.v[i].dso == m->kernel_dso) {
				memmove(m->kmaps.v + i, m->kmaps.v + i + 1, (m->kmaps.n - i - 1) * sizeof(*m->kmaps.v));
				m->kmaps.n--;
				break;
			}
		maps_insert(&m->kmaps, &mp, !m->plain);
		m->kernel_mapped = true;
	}
}

/* What a user MMAP maps: its dso's kind and name (jit: room for a perf
 * map's), and whether addresses in it are taken as they are. */
static enum dso_kind user_map_kind(const struct pd_record *r, const char **name, char jit[64], bool *identity)
{
	*name = r->u.mmap.filename;
	uint32_t prot = r->type == PERF_RECORD_MMAP2 ? r->u.mmap.prot
			: (r->misc & PERF_RECORD_MISC_MMAP_DATA) ? PROT_READ : PROT_EXEC;
	const char *n = *name;
	/* most are paths of binaries, which start like none of these names */
	bool special = n[0] != '/' || n[1] == '/' || n[1] == 'd' || n[1] == 'a' || n[1] == 'S';
	bool anon = (special && (strcmp(n, "//anon") == 0 || strncmp(n, "/dev/zero", 9) == 0 ||
				 strncmp(n, "/anon_hugepage", 14) == 0)) ||
		    (r->type == PERF_RECORD_MMAP2 && (r->u.mmap.flags & MAP_HUGETLB));
	bool no_dso = special && (strncmp(n, "[stack", 6) == 0 || strncmp(n, "/SYSV", 5) == 0 || strcmp(n, "[heap]") == 0);
	*identity = anon || no_dso;
	if ((anon || no_dso) && (prot & PROT_EXEC)) {
		snprintf(jit, 64, "/tmp/perf-%d.map", (int)r->u.mmap.pid);
		*name = jit;
		return DSO_PERF_MAP;
	}
	if (anon || no_dso || (n[0] == '[' && strcmp(n, "[vdso]") != 0))
		return DSO_NONE;
	return n[0] == '[' ? DSO_VDSO : DSO_FILE;
}

/* The build id an MMAP2 record carries ("" if none). */
static void record_build_id(const struct pd_record *r, char hex[41])
{
	static const char digits[] = "0123456789abcdef";
	int n = 0;
	if (r->type == PERF_RECORD_MMAP2 && r->u.mmap.has_build_id)
		for (; n < r->u.mmap.build_id_size && n < 20; n++) {
			hex[2 * n] = digits[r->u.mmap.build_id[n] >> 4];
			hex[2 * n + 1] = digits[r->u.mmap.build_id[n] & 15];
		}
	hex[2 * n] = '\0';
}

static void user_mmap(struct machine *m, const struct pd_record *r)
{
	const char *name;
	char jit[64];
	bool identity;
	enum dso_kind kind = user_map_kind(r, &name, jit, &identity);
	struct map mp = { r->u.mmap.start, r->u.mmap.start + r->u.mmap.len, kind == DSO_VDSO ? 0 : r->u.mmap.pgoff, 0,
			  identity };
	mp.dso = dso_of(m, name, kind);
	struct dso *d = &m->dsos[mp.dso];
	if (!*d->build_id)
		record_build_id(r, d->build_id);
	thread(m, (int32_t)r->u.mmap.pid, (int32_t)r->u.mmap.tid, NULL);
	struct maps *ms = process(m, (int32_t)r->u.mmap.pid);
	maps_insert(ms, &mp, !m->plain);
	ms->gen = ++m->next_gen;
}

void machine_apply(struct machine *m, const struct pd_record *r)
{
	if (!r->decoded && r->type != PERF_RECORD_MMAP && r->type != PERF_RECORD_MMAP2)
		return;
	if ((r->type == PERF_RECORD_MMAP || r->type == PERF_RECORD_MMAP2) &&
	    (r->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		m->kernel_gen++;
	uint64_t time = r->type == PERF_RECORD_EXIT || r->type == PERF_RECORD_FORK ? r->u.task.time
			: r->sid.valid ? r->sid.time : 0;
	if (time > m->now) {
		m->now = time;
		if (m->exited_head < m->nexited)
			release_exited(m);
	}
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		if (!r->u.mmap.filename)
			return;
		int cpumode = r->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		if (cpumode == PERF_RECORD_MISC_KERNEL)
			kernel_mmap(m, r);
		else if (cpumode != PERF_RECORD_MISC_GUEST_KERNEL && cpumode != PERF_RECORD_MISC_GUEST_USER)
			user_mmap(m, r);
		break;
	}
	case PERF_RECORD_COMM:
		if (r->u.comm.comm)
			set_comm(m, thread(m, (int32_t)r->u.comm.pid, (int32_t)r->u.comm.tid, NULL), r->u.comm.comm);
		break;
	case PERF_RECORD_FORK:
		apply_fork(m, r);
		break;
	case PERF_RECORD_EXIT:
		apply_exit(m, r);
		break;
	default:
		break;
	}
}

/* ---- lookups ---------------------------------------------------------------------- */

static const char *comm_of(struct machine *m, const struct thread *t, int32_t tid)
{
	if (t->comm == UINT32_MAX) {
		snprintf(m->tmp, sizeof m->tmp, ":%d", (int)tid);
		return m->tmp;
	}
	return td_intern_str(m->comms, t->comm, NULL);
}

/* Samples come from a few threads at a time: their thread's index is
 * kept by tid (a tid's index never changes), and used while looking the
 * thread up would change nothing (the same process, alive or exited). */
const char *machine_comm(struct machine *m, int32_t pid, int32_t tid)
{
	struct comm_slot *c = &m->comm_cache[(uint32_t)tid % COMM_SLOTS];
	if (c->thread && c->pid == pid && c->tid == tid) {
		const struct thread *t = &m->threads[c->thread - 1];
		if ((pid == -1 || pid == 0 || pid == t->pid) && (t->live || t->exited || t->pid <= 0))
			return comm_of(m, t, tid);
	}
	const struct thread *t = thread(m, pid, tid, NULL);
	*c = (struct comm_slot){ pid, tid, (uint32_t)(t - m->threads) + 1 };
	return comm_of(m, t, tid);
}

static void load_symbols(struct machine *m, struct dso *d)
{
	d->loaded = true;
	if (d->kind == DSO_KERNEL || d->kind == DSO_MODULE)
		m->kernel_gen++;             /* kallsyms may stretch the kernel map */
	if (d->kind == DSO_FILE || d->kind == DSO_VDSO)     /* at its first address: see symbol_loader.h */
		d->elf = symbol_places_load(&m->places, d->name, d->build_id, d->kind == DSO_VDSO);
	else if (d->kind == DSO_PERF_MAP)
		load_perf_map(d);
	else if ((d->kind == DSO_KERNEL || d->kind == DSO_MODULE) && !m->ksyms_tried)
		load_kernel_symbols(m);
}

/* Where perf looks ip up in the map's binary: the key. */
static uint64_t symbol_key(const struct dso *d, const struct map *mp, uint64_t ip)
{
	return (d->kind == DSO_FILE || d->kind == DSO_VDSO) && d->elf ? elf_symbols_key(d->elf, ip, mp->start, mp->pgoff) : ip;
}

/* The symbol covering key in the binary (*start its key), or NULL. */
static const char *symbol_at(struct machine *m, const struct dso *d, uint64_t key, uint64_t *start)
{
	*start = 0;
	switch (d->kind) {
	case DSO_FILE:
	case DSO_VDSO:
		return d->elf ? elf_symbols_find(d->elf, key, start) : NULL;
	case DSO_PERF_MAP:
		return find_jit(d, key, start);
	case DSO_KERNEL:
	case DSO_MODULE:
		return m->ksyms ? kallsyms_find(m->ksyms, d->kind == DSO_MODULE ? d->module : NULL, key, start) : NULL;
	default:
		return NULL;
	}
}

/* Symbols found in a binary stay what they are once its symbols (the
 * kernel's: kallsyms) were read: they are kept by (binary, key) as well,
 * for the processes that map it next and the addresses the cache by
 * (pid, ip) let go. */
static bool symbols_final(const struct machine *m, const struct dso *d)
{
	return d->loaded && (d->kind == DSO_FILE || d->kind == DSO_VDSO || d->kind == DSO_PERF_MAP ||
			     ((d->kind == DSO_KERNEL || d->kind == DSO_MODULE) && m->ksyms_tried));
}

/* A sym_id names one (symbol, binary) pair. A symbol of a binary's
 * table gets its own from a counter and keeps it in the table
 * (elf_symbols_find_noted): a pair found there is never hashed. Other
 * pairs (kernel, JIT, inline frames, none; all of them under
 * td_plain()) are interned by their pointers. */
static uint32_t pair_id(struct machine *m, const char *sym, const char *dso)
{
	const char *pair[2] = { sym, dso };
	uint32_t n = td_intern_count(m->sym_ids), id = td_intern(m->sym_ids, (const char *)pair, sizeof pair);
	if (id == n) {
		TD_ALLOC_GROW(m->pair_ids, (size_t)n + 1, m->pair_ids_cap);
		m->pair_ids[id] = m->nsym_ids++;
	}
	return m->pair_ids[id];
}

static struct sym_slot *sym_set(const struct machine *m, uint32_t dso, uint64_t key)
{
	uint64_t h = (key ^ (uint64_t)dso << 40) * 0x9e3779b97f4a7c15u;
	return &m->syms[(h >> (64 - SYM_BITS + 1)) * SYM_WAYS];
}

/* The symbol of ip in the map's binary, ip's offset into it and the
 * (symbol, binary) pair's id. */
static void map_symbol(struct machine *m, const struct map *mp, uint64_t ip, struct machine_frame *out)
{
	struct dso *d = &m->dsos[mp->dso];
	if (!d->loaded)
		load_symbols(m, d);
	uint64_t key = symbol_key(d, mp, ip), start;
	struct sym_slot *set = !m->plain && symbols_final(m, d) ? sym_set(m, mp->dso, key) : NULL;
	for (int w = 0; set && w < SYM_WAYS; w++)
		if (set[w].dso == mp->dso + 1 && set[w].key == key) {
			struct sym_slot hit = set[w];
			set[w] = set[0];      /* two ways: the other one becomes the older */
			set[0] = hit;
			out->sym = hit.sym;
			out->sym_off = key - hit.start;
			out->sym_id = hit.sym_id;
			return;
		}
	uint32_t *note = NULL;
	if (!m->plain && (d->kind == DSO_FILE || d->kind == DSO_VDSO) && d->elf) {
		start = 0;
		out->sym = elf_symbols_find_noted(d->elf, key, &start, &note);
	} else {
		out->sym = symbol_at(m, d, key, &start);
	}
	out->sym_off = key - start;
	if (note) {
		if (!*note)
			*note = ++m->nsym_ids;
		out->sym_id = *note - 1;
	} else if (!out->sym && !m->plain) {  /* a stripped binary's addresses: its one pair */
		if (!d->no_sym_id)
			d->no_sym_id = pair_id(m, NULL, out->dso) + 1;
		out->sym_id = d->no_sym_id - 1;
	} else {
		out->sym_id = pair_id(m, out->sym, out->dso);
	}
	if (set) {
		set[1] = set[0];
		set[0] = (struct sym_slot){ key, start, out->sym, mp->dso + 1, out->sym_id };
	}
}

/* Without a kernel MMAP record perf keeps the map it made at start-up
 * from the host's kallsyms: _text to _etext. */
static void default_kernel_map(struct machine *m)
{
	m->kernel_mapped = true;
	m->kernel_gen++;
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	unsigned long long addr, start = 0, end = UINT64_MAX;
	char line[512], type, name[256];
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3) {
			if (!start && (strcmp(name, "_text") == 0 || strcmp(name, "_stext") == 0))
				start = addr;
			else if (strcmp(name, "_etext") == 0)
				end = addr;
		}
	fclose(f);
	if (!start)
		return;
	struct map mp = { start, end, 0, m->kernel_dso, true };
	maps_insert(&m->kmaps, &mp, !m->plain);
}

static void resolve(struct machine *m, int32_t pid, int cpumode, uint64_t ip, struct machine_frame *out)
{
	*out = (struct machine_frame){ NULL, 0, NULL, ip, m->no_sym_id };
	struct maps *ms;
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		if (!m->kernel_mapped)
			default_kernel_map(m);
		ms = &m->kmaps;
	} else if (cpumode == PERF_RECORD_MISC_USER) {
		ms = process(m, pid);
	} else {
		return;
	}
	const struct map *mp = m->plain ? maps_find(ms, ip) : maps_find_hinted(ms, ip);
	if (!mp)
		return;
	out->dso = m->dsos[mp->dso].name;
	out->addr = mp->identity ? ip : ip - mp->start + mp->pgoff;
	struct map copy = *mp;        /* loading kernel symbols can rebuild kmaps (kcore, stretch): mp may move */
	map_symbol(m, &copy, ip, out);
}

/* Samples hit the same addresses over and over: remember the answers
 * until a record or a symbol load may change them. A user-space answer
 * lasts while its process's maps stay as they were, a kernel one while
 * the kernel's do. */

/* Whether answers in cpumode are kept by (pid, ip): not a user address's
 * beside the (binary, key) set (see machine_resolve), except under
 * td_plain(), which has no set. */
static inline bool pid_cached(const struct machine *m, int cpumode)
{
	return cpumode != PERF_RECORD_MISC_USER || m->plain;
}

static inline struct resolved *cache_slot(const struct machine *m, int32_t pid, int cpumode, uint64_t ip)
{
	uint64_t h = (ip ^ ((uint64_t)(uint32_t)pid << 32 | (uint32_t)cpumode)) * 0x9e3779b97f4a7c15u;
	return &m->cache[h >> (64 - CACHE_BITS)];
}

void machine_prefetch(const struct machine *m, int32_t pid, int cpumode, uint64_t ip)
{
	if (!pid_cached(m, cpumode))
		return;
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		pid = -1;
	__builtin_prefetch(cache_slot(m, pid, cpumode, ip));
}

/* The generation an answer for (pid, cpumode) must carry to hold (never
 * 0, the empty slot's). */
static uint64_t generation(struct machine *m, int32_t pid, int cpumode)
{
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		return (uint64_t)m->kernel_gen << 32;
	return (uint64_t)1 << 63 | process(m, pid)->gen;
}

/* The cache's answer for (pid, cpumode, ip) if it holds one. */
static inline bool cache_hit(const struct resolved *c, uint64_t gen, int32_t pid, int cpumode, uint64_t ip)
{
	return c->gen == gen && c->ip == ip && c->pid == pid && c->cpumode == cpumode;
}

/* Not answered by machine_resolve's first look (a cache miss, or another
 * process than the last one's frames): out of line, with few enough
 * arguments to be jumped to, so that a hit saves and restores no
 * registers for it. */
static void __attribute__((noinline)) resolve_missed(struct machine *m, int32_t pid, int cpumode, uint64_t ip,
						      struct machine_frame *out)
{
	struct resolved *c = cache_slot(m, pid, cpumode, ip);
	uint64_t gen = generation(m, pid, cpumode);
	if (cache_hit(c, gen, pid, cpumode, ip)) {
		*out = c->f;
		return;
	}
	resolve(m, pid, cpumode, ip, out);
	if (generation(m, pid, cpumode) != gen)
		return;                       /* symbols or maps were loaded on the way */
	*c = (struct resolved){ ip, pid, (int16_t)cpumode, gen, *out };
}

/* A user address goes to its map and the (binary, key) set straight:
 * a system-wide recording has thousands of short-lived processes, and
 * two thirds of the (pid, ip) lookups missed, each a cache miss before
 * the set's own; the kernel's addresses, one map for all, stay cached. */
void machine_resolve(struct machine *m, int32_t pid, int cpumode, uint64_t ip, struct machine_frame *out)
{
	uint64_t gen;
	if (!pid_cached(m, cpumode)) {
		resolve(m, pid, cpumode, ip, out);
		return;
	}
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		pid = -1;                     /* one kernel for all */
		gen = (uint64_t)m->kernel_gen << 32;
	} else if (m->last_proc && m->last_pid == pid) {    /* generation(), when process() needs no lookup */
		gen = (uint64_t)1 << 63 | m->procs[m->last_proc - 1].gen;
	} else {
		resolve_missed(m, pid, cpumode, ip, out);
		return;
	}
	const struct resolved *c = cache_slot(m, pid, cpumode, ip);
	if (__builtin_expect(cache_hit(c, gen, pid, cpumode, ip), 1)) {
		*out = c->f;
		return;
	}
	resolve_missed(m, pid, cpumode, ip, out);
}

/* perf's machine__kernel_start, computed once, at the first need. */
static uint64_t kernel_start(struct machine *m)
{
	if (m->kernel_start)
		return m->kernel_start;
	m->kernel_start = (uint64_t)1 << 63;
	struct utsname host;
	const char *arch = m->data->info.arch;       /* perf_env__raw_arch: the recording's, else this host's */
	if (!*arch)
		arch = uname(&host) == 0 ? host.machine : "";
	if (strcmp(arch, "x86_64") == 0)
		return m->kernel_start;       /* entry trampolines lie below the kernel text */
	if (!m->kernel_mapped)
		default_kernel_map(m);
	struct dso *d = &m->dsos[m->kernel_dso];
	if (!d->loaded)
		load_symbols(m, d);
	for (size_t i = 0; m->ksyms && i < m->kmaps.n; i++)
		if (m->kmaps.v[i].dso == m->kernel_dso) {
			m->kernel_start = m->kmaps.v[i].start;
			break;
		}
	return m->kernel_start;
}

void machine_resolve_fb(struct machine *m, int32_t pid, int cpumode, uint64_t ip, struct machine_frame *out)
{
	machine_resolve(m, pid, cpumode, ip, out);
	if (out->dso || (cpumode != PERF_RECORD_MISC_KERNEL && cpumode != PERF_RECORD_MISC_USER))
		return;
	int mode = ip >= kernel_start(m) ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	if (mode != cpumode)
		machine_resolve(m, pid, mode, ip, out);
}

/* ---- inline frames and modules -------------------------------------------------- */

static const char inlined_dso[] = "inlined";   /* perf prints "(inlined)" where the dso goes */

/* The inline chain of a key in a binary, computed once: the demangled
 * names addr2line gives, each marked inlined unless it is the ELF
 * symbol's own name (perf reuses the symbol then). */
static const struct inl_chain *inline_chain(struct machine *m, uint32_t dso_id, struct dso *d, uint64_t key,
					    const char *base, uint64_t base_key)
{
	struct { uint32_t dso; uint64_t key; } __attribute__((packed)) k = { dso_id, key };
	uint32_t id = td_intern(m->inl_keys, (const char *)&k, sizeof k);
	if (id >= m->inl_cap) {
		size_t cap = m->inl_cap ? m->inl_cap * 2 : 1024;
		m->inl = td_realloc(m->inl, cap * sizeof(*m->inl));
		for (size_t i = m->inl_cap; i < cap; i++)
			m->inl[i] = (struct inl_chain){ UINT32_MAX, 0 };
		m->inl_cap = cap;
	}
	struct inl_chain *c = &m->inl[id];
	if (c->first != UINT32_MAX)
		return c;
	const char *names[64];
	int n = dwarf_inlines_at(d->dw, elf_symbols_vaddr_of_key(d->elf, key), base,
				 elf_symbols_vaddr_of_key(d->elf, base_key), names, 64);
	if (m->inl_used + (size_t)n > m->inl_pool_cap) {
		m->inl_pool_cap = m->inl_pool_cap ? m->inl_pool_cap * 2 : 4096;
		while (m->inl_used + (size_t)n > m->inl_pool_cap)
			m->inl_pool_cap *= 2;
		m->inl_pool = td_realloc(m->inl_pool, m->inl_pool_cap * sizeof(*m->inl_pool));
	}
	c->first = (uint32_t)m->inl_used;
	c->n = (uint32_t)n;
	for (int i = 0; i < n; i++) {
		char *dem = td_demangle(names[i]);
		const char *name = dem ? dem : names[i];
		struct inl_entry *e = &m->inl_pool[m->inl_used++];
		e->inlined = strcmp(name, base) != 0;
		e->sym = td_intern_str(m->inl_names, td_intern(m->inl_names, name, strlen(name)), NULL);
		free(dem);
	}
	return c;
}

int machine_resolve_user(struct machine *m, int32_t pid, uint64_t ip, struct machine_frame *out, int max)
{
	machine_resolve(m, pid, PERF_RECORD_MISC_USER, ip, &out[0]);
	if (!out[0].sym || max < 2)
		return 1;
	const struct map *mp = maps_find(process(m, pid), ip);
	if (!mp)
		return 1;
	struct dso *d = &m->dsos[mp->dso];
	if (d->kind != DSO_FILE || !d->elf)
		return 1;
	if (!d->dw_tried) {
		d->dw_tried = true;
		d->dw = dwarf_inlines_open(elf_symbols_source(d->elf));
	}
	if (!d->dw)
		return 1;
	uint64_t key = elf_symbols_key(d->elf, ip, mp->start, mp->pgoff);
	const struct inl_chain *c = inline_chain(m, mp->dso, d, key, out[0].sym, key - out[0].sym_off);
	if (c->n == 0)
		return 1;
	struct machine_frame base = out[0];
	int n = (int)c->n < max ? (int)c->n : max;
	for (int i = 0; i < n; i++) {
		const struct inl_entry *e = &m->inl_pool[c->first + (uint32_t)i];
		out[i] = base;
		if (!e->inlined)
			continue;
		out[i].sym = e->sym;
		out[i].dso = inlined_dso;
		out[i].sym_id = pair_id(m, e->sym, inlined_dso);
	}
	return n;
}

int machine_read_user(struct machine *m, int32_t pid, uint64_t addr, uint64_t *val)
{
	const struct map *mp = maps_find(process(m, pid), addr);
	if (!mp)
		return -1;
	*val = 0;
	const struct dso *d = &m->dsos[mp->dso];
	const char *path = d->kind == DSO_FILE && d->elf ? elf_symbols_runtime(d->elf) : NULL;
	int fd = path ? open(path, O_RDONLY) : -1;
	if (fd >= 0) {
		uint64_t v;
		if (pread(fd, &v, sizeof v, (off_t)(addr - mp->start + mp->pgoff)) == (ssize_t)sizeof v)
			*val = v;
		close(fd);
	}
	return 0;
}

size_t machine_modules(struct machine *m, int32_t pid, const struct machine_module **out, uint32_t *gen)
{
	struct maps *ms = process(m, pid);
	*gen = ms->gen;
	size_t n = 0;
	for (size_t i = 0; i < ms->n; i++) {
		struct map mp = ms->v[i];
		struct dso *d = &m->dsos[mp.dso];
		if (d->kind != DSO_FILE)
			continue;
		bool seen = false;
		for (size_t k = 0; k < n && !seen; k++)
			seen = m->modules[k].name == d->name;
		if (seen)
			continue;
		if (!d->loaded)
			load_symbols(m, d);
		ms = process(m, pid);          /* loading may not move it, but stay safe */
		if (!d->elf || !elf_symbols_runtime(d->elf))
			continue;
		if (n == m->modules_cap) {
			m->modules_cap = m->modules_cap ? m->modules_cap * 2 : 64;
			m->modules = td_realloc(m->modules, m->modules_cap * sizeof(*m->modules));
		}
		m->modules[n++] = (struct machine_module){
			mp.start, mp.end, mp.start - elf_symbols_vaddr_of_key(d->elf, mp.pgoff), d->name,
			elf_symbols_runtime(d->elf),
		};
	}
	*out = m->modules;
	return n;
}

uint32_t machine_maps_gen(struct machine *m, int32_t pid)
{
	return process(m, pid)->gen;
}

size_t machine_user_maps(struct machine *m, int32_t pid, const struct machine_module *mods, size_t nmods,
			 const struct machine_user_map **out)
{
	const struct maps *ms = process(m, pid);
	TD_ALLOC_GROW(m->user_maps, ms->n, m->user_maps_cap);
	for (size_t i = 0; i < ms->n; i++) {
		const struct map *mp = &ms->v[i];
		const struct dso *d = &m->dsos[mp->dso];
		int module = -1;
		for (size_t k = 0; k < nmods && module < 0 && d->kind == DSO_FILE && d->elf; k++)
			if (mods[k].name == d->name)
				module = (int)k;
		m->user_maps[i] = (struct machine_user_map){ mp->start, mp->end, mp->pgoff, module };
	}
	*out = m->user_maps;
	return ms->n;
}

/* ---- life ------------------------------------------------------------------------- */

/* Both caches in one region of CACHES_BYTES, aligned to its size and
 * asked to be one huge page: their lookups land anywhere in 1.5 MiB, and
 * with 4 KiB pages most of them missed the TLB as well as the caches.
 * The region is zeroed by the kernel (an empty cache) and resident as
 * soon as it is touched, as the caches were. */
static void map_caches(struct machine *m)
{
	size_t len = 2 * CACHES_BYTES;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		td_die("out of memory");
	size_t lead = (CACHES_BYTES - (uintptr_t)p % CACHES_BYTES) % CACHES_BYTES;
	if (lead)
		munmap(p, lead);
	munmap(p + lead + CACHES_BYTES, CACHES_BYTES - lead);
	m->caches = p + lead;
#ifdef MADV_HUGEPAGE
	madvise(m->caches, CACHES_BYTES, MADV_HUGEPAGE);
#endif
	m->cache = (struct resolved *)m->caches;
	m->syms = m->plain ? NULL : (struct sym_slot *)(m->caches + ((size_t)1 << CACHE_BITS) * sizeof(*m->cache));
}

struct machine *machine_new(const struct perf_data *d, const struct machine_options *o)
{
	struct machine *m = td_calloc(1, sizeof(*m));
	m->opt = *o;
	m->data = d;
	if (o->buildid_dir)
		snprintf(m->buildid_dir, sizeof m->buildid_dir, "%s", o->buildid_dir);
	else
		snprintf(m->buildid_dir, sizeof m->buildid_dir, "%s/.debug", getenv("HOME") ? getenv("HOME") : "");
	m->bid_names = td_intern_new();
	index_build_ids(m);
	m->names = td_intern_new();
	m->pids = td_intern_new();
	m->tids = td_intern_new();
	m->comms = td_intern_new();
	m->kernel_dso = dso_of(m, "[kernel.kallsyms]", DSO_KERNEL);
	m->kernel_gen = 1;
	choose_kallsyms(m);
	start_loader(m, d);
	m->places = (struct symbol_places){ m->buildid_dir, m->opt.symfs };
	m->plain = td_plain();
	map_caches(m);
	m->sym_ids = td_intern_new();
	m->no_sym_id = pair_id(m, NULL, NULL);
	m->inl_keys = td_intern_new();
	m->inl_names = td_intern_new();
	set_comm(m, thread(m, 0, 0, NULL), "swapper");    /* perf's idle thread */
	return m;
}

void machine_free(struct machine *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ndsos; i++) {
		elf_symbols_close(m->dsos[i].elf);
		dwarf_inlines_close(m->dsos[i].dw);
		for (size_t j = 0; j < m->dsos[i].njit; j++)
			free(m->dsos[i].jit[j].name);
		free(m->dsos[i].jit);
	}
	free(m->dsos);
	for (size_t i = 0; i < m->procs_cap; i++)
		free(m->procs[i].v);
	free(m->procs);
	free(m->exited);
	free(m->threads);
	free(m->kmaps.v);
	munmap(m->caches, CACHES_BYTES);
	td_intern_free(m->sym_ids);
	free(m->pair_ids);
	td_intern_free(m->inl_keys);
	td_intern_free(m->inl_names);
	free(m->inl);
	free(m->inl_pool);
	free(m->modules);
	free(m->user_maps);
	symbol_loader_stop(m->loader);
	kallsyms_free(m->ksyms);
	td_intern_free(m->bid_names);
	free(m->bid_first);
	td_intern_free(m->names);
	td_intern_free(m->pids);
	td_intern_free(m->tids);
	td_intern_free(m->comms);
	free(m);
}
