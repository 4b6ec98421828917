#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/demangle.h"
#include "common/diag.h"
#include "common/sorted.h"
#include "common/grow.h"
#include "common/plain.h"
#include "common/radix.h"
#include "perf_symtab.h"
#include "elf_symbols.h"

#define MAX_LOADS 16

/* A lookup range, 16 bytes: binaries have up to a few hundred thousand
 * and a system-wide recording maps hundreds of binaries. lo..lo+len holds
 * the symbol starting at lo, named by name: an offset into the string
 * table, then into plt_names after it; with NAME_EXTRA an index into
 * extra. With NAME_WIDE the symbol's start and the range's end are in
 * wide (a range cut out of an overlapped symbol, or longer than 4 GiB). */
struct rec {
	uint64_t lo;
	uint32_t len, name;
};
#define NAME_EXTRA 0x80000000u
#define NAME_WIDE 0x40000000u
#define NAME_INDEX 0x3fffffffu

struct wide {
	uint64_t rec;                /* the range's index in rec */
	uint64_t start, hi;
};

/* The shown (demangled) name of a range, kept once a lookup returned it. */
struct shown {
	uint32_t rec1;               /* rec + 1; 0: empty slot */
	uint32_t note;               /* the caller's (elf_symbols_find_noted); 0 until set */
	const char *name;
};

struct elf_symbols {
	struct perf_symtab *tab;     /* while loading: the table's symbols in its order, then the PLT stubs */
	size_t n;                    /* symbols from the table */
	struct rec *rec;             /* the lookup table perf's steps leave, sorted */
	size_t nrec, rec_cap, extra_cap, wide_cap;
	struct wide *wide;           /* by rec */
	size_t nwide;
	const char **extra;          /* names of ranges that are neither in the string table nor PLT names */
	size_t nextra;
	/* Where a lookup's search starts (see rec_index): bucket b holds
	 * the ranges starting in [rec[0].lo + (b << index_shift), + 1 <<
	 * index_shift), index[b] the first of them; index[nindex] = nrec. */
	uint32_t *index;
	size_t nindex;
	unsigned index_shift;
	bool index_tried;            /* built, or not worth it (NULL) */
	struct shown *shown;         /* open addressing by rec, power-of-two size */
	size_t nshown, shown_cap;
	/* The string table names point into: mapped from the file (only the
	 * pages lookups touch stay resident), or a copy when it cannot be. */
	const char *names;
	size_t names_len;
	void *map;                   /* the mapping holding names; NULL: names is a heap copy */
	size_t map_len;
	/* Once the ranges are built, a lookup reads its name from the file
	 * (fd, the table at names_at) rather than through the mapping: a
	 * fault there maps the pages around the name too (the kernel's fault
	 * around), and a large binary's lookups would keep most of its table
	 * resident. fd is opened at the first lookup (names_fd); -1 until then, or
	 * when it cannot be: the mapping is read. */
	int fd;
	bool fd_tried;
	uint64_t names_at;
	dev_t names_dev;             /* the mapped file's (the one fd must open) */
	ino_t names_ino;
	size_t compared;             /* names shown_of() was asked for */
	char **demangled;            /* names demangled, or read from the file, for the table's life */
	size_t ndemangled, demangled_cap;
	char *plt_names;             /* "name@plt" of the synthesized PLT entries */
	size_t plt_len;
	bool pie;
	struct load { uint64_t offset, vaddr, memsz; } load[MAX_LOADS];
	int nload;
	char build_id[41];           /* hex, "" when the file has none */
	bool from_debug_file;
	char *source;                /* the file the symbols came from */
	char *runtime;               /* the binary that ran (NULL: unknown) */
};

/* Keeps a demangled name for the table's life; NULL stays NULL. */
static const char *keep_demangled(struct elf_symbols *e, char *name)
{
	if (!name)
		return NULL;
	TD_ALLOC_GROW(e->demangled, e->ndemangled + 1, e->demangled_cap);
	e->demangled[e->ndemangled++] = name;
	return name;
}

static char *shown_of(void *ctx, const char *name);
static void shown_many(void *ctx, const char *const *names, size_t n, symtab_take_fn take, void *arg);

/* What perf's choice of symbols needs to know of the section one is in. */
struct section_kind {
	bool loaded;                 /* SHF_ALLOC: in memory at run time */
	bool text_or_data;           /* by its name: labels count only there */
	uint64_t addr, offset;
};

/* The file's sections by index (n of them), looked at once per table. */
static struct section_kind *section_kinds(Elf *elf, size_t *n)
{
	size_t shstrndx = 0, count = 0;
	elf_getshdrstrndx(elf, &shstrndx);
	elf_getshdrnum(elf, &count);
	struct section_kind *k = td_calloc(count + 1, sizeof(*k));
	for (size_t i = 0; i < count; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, i);
		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		k[i] = (struct section_kind){ (sh.sh_flags & SHF_ALLOC) != 0,
					      name && (strstr(name, "text") || strstr(name, "data")), sh.sh_addr, sh.sh_offset };
	}
	*n = count;
	return k;
}

/* perf's choice: named functions (ifuncs too) and objects, and labels (no
 * type) in a text or data section, that are not absolute (symbol versions
 * such as GLIBC_2.2.5) and live in a section loaded at run time; not ARM
 * mapping symbols ($a $d $t $x). */
static bool wanted_but_name(const struct section_kind *kinds, size_t nkinds, const GElf_Sym *s)
{
	if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS || s->st_shndx >= nkinds)
		return false;
	int type = GELF_ST_TYPE(s->st_info), vis = GELF_ST_VISIBILITY(s->st_other);
	bool label = type == STT_NOTYPE && vis != STV_HIDDEN && vis != STV_INTERNAL;
	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT && !label)
		return false;
	const struct section_kind *k = &kinds[s->st_shndx];
	return k->loaded && (!label || k->text_or_data);
}

/* The name's part of the choice: its first 3 bytes (or up to its NUL). */
static bool wanted_name(const char *name, bool arm)
{
	return *name && !(arm && name[0] == '$' && name[1] && strchr("adtx", name[1]) && (name[2] == '\0' || name[2] == '.'));
}

/* perf keeps a binary's symbols at file offsets ("adjusted"): its value
 * less the difference between address and offset of the loadable segment
 * holding it (else of its section), so that the offset of a sampled
 * address into the file finds them. */
static uint64_t file_offset_of(const struct elf_symbols *e, const struct section_kind *section, const GElf_Sym *s)
{
	for (int i = 0; i < e->nload; i++)
		if (s->st_value >= e->load[i].vaddr && s->st_value - e->load[i].vaddr < e->load[i].memsz)
			return s->st_value - e->load[i].vaddr + e->load[i].offset;
	return s->st_value - section->addr + section->offset;
}

/* Descriptors kept for reading names (see struct elf_symbols' fd), for
 * all tables together: past this many, lookups read through the mapping
 * (a recording can map more binaries than a process may open files). */
#define KEPT_FDS_MAX 256
static atomic_int kept_fds;

/* The descriptor lookups read names with, opened at the first lookup
 * (tables no sample needs hold none): false when over the budget or the
 * file is no longer the one mapped. */
static bool names_fd(struct elf_symbols *e)
{
	if (e->fd >= 0 || e->fd_tried)
		return e->fd >= 0;
	e->fd_tried = true;
	if (atomic_fetch_add(&kept_fds, 1) >= KEPT_FDS_MAX) {
		atomic_fetch_sub(&kept_fds, 1);
		return false;
	}
	struct stat st;
	e->fd = open(e->source, O_RDONLY | O_CLOEXEC);
	if (e->fd >= 0 && (fstat(e->fd, &st) != 0 || st.st_dev != e->names_dev || st.st_ino != e->names_ino)) {
		close(e->fd);
		e->fd = -1;
	}
	if (e->fd < 0)
		atomic_fetch_sub(&kept_fds, 1);
	return e->fd >= 0;
}

static void drop_fd(struct elf_symbols *e)
{
	if (e->fd < 0)
		return;
	close(e->fd);
	e->fd = -1;
	atomic_fetch_sub(&kept_fds, 1);
}

static void drop_names(struct elf_symbols *e)
{
	drop_fd(e);
	if (e->map)
		munmap(e->map, e->map_len);
	else
		free((char *)e->names);
	e->names = NULL;
	e->map = NULL;
	e->names_len = 0;
}

/* The string table mapped from the file when it is stored plain and ends
 * with its NUL (names then end inside it): NULL when not. */
static const char *map_strings(struct elf_symbols *e, int fd, const GElf_Shdr *sh)
{
	if (sh->sh_flags & SHF_COMPRESSED || sh->sh_size == 0 || sh->sh_size > SIZE_MAX / 2 ||
	    sh->sh_offset > (uint64_t)INT64_MAX - sh->sh_size)
		return NULL;
	char last;
	if (pread(fd, &last, 1, (off_t)(sh->sh_offset + sh->sh_size - 1)) != 1 || last != '\0')
		return NULL;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t skip = sh->sh_offset % (uint64_t)(page > 0 ? page : 4096);
	size_t len = (size_t)(sh->sh_size + skip);
	void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, (off_t)(sh->sh_offset - skip));
	if (map == MAP_FAILED)
		return NULL;
	madvise(map, len, MADV_RANDOM);      /* a lookup maps its name's page, not its neighbours too */
	e->map = map;
	e->map_len = len;
	e->names_at = sh->sh_offset;
	struct stat st;
	e->names_dev = fstat(fd, &st) == 0 ? st.st_dev : 0;
	e->names_ino = st.st_ino;
	e->fd_tried = e->names_dev == 0;
	return (const char *)map + skip;
}

/* The string table a symbol table names (its section index link), mapped
 * or else read into a buffer of its own: names point into it (e->names).
 * false when it cannot be read. */
static bool read_strings(struct elf_symbols *e, Elf *elf, int fd, size_t link)
{
	Elf_Scn *scn = elf_getscn(elf, link);
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size > SIZE_MAX - 1)
		return false;
	drop_names(e);
	const char *mapped = td_plain() ? NULL : map_strings(e, fd, &sh);
	if (mapped) {
		e->names = mapped;
		e->names_len = (size_t)sh.sh_size - 1;   /* the last NUL ends the last name */
		return true;
	}
	char *buf = td_malloc((size_t)sh.sh_size + 1);
	size_t got = 0;
	if (!(sh.sh_flags & SHF_COMPRESSED)) {     /* read once, not into libelf's copy and then ours */
		while (got < sh.sh_size) {
			ssize_t r = pread(fd, buf + got, (size_t)sh.sh_size - got, (off_t)(sh.sh_offset + got));
			if (r <= 0)
				break;
			got += (size_t)r;
		}
	}
	if (got < sh.sh_size) {
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf) {
			free(buf);
			return false;
		}
		buf = td_realloc(buf, d->d_size + 1);
		memcpy(buf, d->d_buf, d->d_size);
		got = d->d_size;
	}
	buf[got] = '\0';
	e->names = buf;
	e->names_len = got;
	return true;
}

/* A table is read in chunks of this many bytes into one buffer (libelf's
 * copy of a whole section is megabytes of fresh memory per binary), and
 * the first bytes of its names, which decide whether a symbol counts,
 * through a window of the string table as large (read in offset order,
 * see wanted_names): no page of the mapping is touched while reading. */
#define CHUNK (64u << 10)

/* Names read through the mapping touch its pages, and the kernel maps
 * their neighbours too: the pages are let go every this many names. */
#define SYMS_PER_RELEASE 512

/* The NUL-terminated string at file offset at, within room bytes, read
 * into a string of its own: NULL when it cannot be read or does not end. */
static char *read_cstr(int fd, uint64_t at, size_t room)
{
	size_t cap = 256, got = 0;
	char *buf = td_malloc(cap);
	for (;;) {
		size_t want = cap - got < room - got ? cap - got : room - got;
		ssize_t r = want ? pread(fd, buf + got, want, (off_t)(at + got)) : 0;
		if (r <= 0)
			break;
		char *z = memchr(buf + got, '\0', (size_t)r);
		got += (size_t)r;
		if (z)
			return buf;
		if (got == room)
			break;
		if (got == cap) {
			cap *= 2;
			buf = td_realloc(buf, cap);
		}
	}
	free(buf);
	return NULL;
}

/* Symbol entries read straight from the file, converted as libelf would. */
struct sym_reader {
	int fd;
	Elf *elf;
	int cls;
	unsigned char encoding;      /* the file's byte order (e_ident[EI_DATA]); 0 when unknown */
	uint64_t at, count;          /* the section's offset and entries */
	size_t entsize, chunk;       /* bytes read at once */
	unsigned char *buf, *conv;
	uint64_t first, n;           /* entries in buf */
	Elf_Data *data;              /* libelf's copy when the file cannot be read so */
};

static bool sym_reader_open(struct sym_reader *r, Elf *elf, int fd, Elf_Scn *scn, const GElf_Shdr *sh, size_t chunk)
{
	*r = (struct sym_reader){ .fd = fd, .elf = elf, .cls = gelf_getclass(elf), .at = sh->sh_offset,
				  .count = sh->sh_size / sh->sh_entsize, .entsize = sh->sh_entsize, .chunk = chunk };
	size_t want = r->cls == ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	if (td_plain() || (sh->sh_flags & SHF_COMPRESSED) || sh->sh_type == SHT_NOBITS || r->entsize != want ||
	    r->at > (uint64_t)INT64_MAX - sh->sh_size) {
		r->data = elf_getdata(scn, NULL);
		return r->data != NULL;
	}
	GElf_Ehdr eh;
	r->encoding = gelf_getehdr(elf, &eh) ? eh.e_ident[EI_DATA] : 0;
	r->buf = td_malloc(2 * chunk);
	r->conv = r->buf + chunk;
	return true;
}

static void sym_reader_close(struct sym_reader *r) { free(r->buf); }

static bool sym_reader_get(struct sym_reader *r, uint64_t i, GElf_Sym *s)
{
	if (r->data)
		return gelf_getsym(r->data, (int)i, s) != NULL;
	if (i >= r->count)
		return false;
	if (i < r->first || i >= r->first + r->n) {
		uint64_t per = r->chunk / r->entsize, n = r->count - i < per ? r->count - i : per;
		size_t bytes = (size_t)(n * r->entsize), got = 0;
		while (got < bytes) {
			ssize_t k = pread(r->fd, r->buf + got, bytes - got, (off_t)(r->at + i * r->entsize + got));
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		Elf_Data src = { .d_buf = r->buf, .d_type = ELF_T_SYM, .d_size = got - got % r->entsize,
				 .d_version = EV_CURRENT };
		Elf_Data dst = { .d_buf = r->conv, .d_type = ELF_T_SYM, .d_size = r->chunk, .d_version = EV_CURRENT };
		r->first = i;
		r->n = 0;
		if (src.d_size && r->encoding && gelf_xlatetom(r->elf, &dst, &src, r->encoding))
			r->n = src.d_size / r->entsize;
		if (i >= r->first + r->n)
			return false;
	}
	uint64_t k = i - r->first;
	if (r->cls == ELFCLASS64) {
		const Elf64_Sym *x = (const Elf64_Sym *)r->conv + k;
		*s = (GElf_Sym){ x->st_name, x->st_info, x->st_other, x->st_shndx, x->st_value, x->st_size };
	} else {
		const Elf32_Sym *x = (const Elf32_Sym *)r->conv + k;
		*s = (GElf_Sym){ x->st_name, x->st_info, x->st_other, x->st_shndx, x->st_value, x->st_size };
	}
	return true;
}

/* The first bytes of the names: see CHUNK. */
struct name_window {
	unsigned char *buf;
	uint64_t first, n;           /* string table offsets held */
	size_t mapped;               /* names read through the mapping */
};

/* Reads room bytes at the string table's offset k into the window. */
static bool fill_window(struct elf_symbols *e, int fd, struct name_window *w, uint64_t k, size_t room)
{
	size_t got = 0;
	while (got < room) {
		ssize_t r = pread(fd, w->buf + got, room - got, (off_t)(e->names_at + k + got));
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == 0)
		return false;
	w->first = k;
	w->n = got;
	w->buf[got] = '\0';
	return true;
}

/* The string table offsets, sorted, of the names wanted_name() keeps
 * among the symbols that pass the other checks (n of them). The names
 * are read in file order, CHUNK bytes at a time, the table front to back
 * once: in symbol order a large binary's names jump about the table, a
 * read for each jump. */
static uint32_t *wanted_names(struct elf_symbols *e, int fd, struct sym_reader *r, size_t count,
			      const struct section_kind *kinds, size_t nkinds, bool arm, size_t *n)
{
	uint32_t *offs = td_malloc((count + 1) * sizeof(*offs));
	size_t m = 0, kept = 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		if (sym_reader_get(r, i, &s) && s.st_name < e->names_len && wanted_but_name(kinds, nkinds, &s))
			offs[m++] = s.st_name;
	}
	td_radix_sort(offs, m, sizeof(*offs), 0, sizeof(*offs));
	struct name_window w = { 0 };
	for (size_t j = 0; j < m; j++) {
		if (j && offs[j] == offs[j - 1])
			continue;
		uint32_t k = offs[j];
		const char *name;
		if (k >= w.first && k + 3 <= w.first + w.n) {
			name = (const char *)w.buf + (k - w.first);
		} else {
			uint64_t room = e->names_len + 1 - k;
			if (!w.buf)
				w.buf = td_malloc(CHUNK + 1);
			if (fill_window(e, fd, &w, k, room < CHUNK ? (size_t)room : CHUNK)) {
				name = (const char *)w.buf;
			} else {
				if (++w.mapped % SYMS_PER_RELEASE == 0)
					madvise(e->map, e->map_len, MADV_DONTNEED);
				name = e->names + k;
			}
		}
		if (wanted_name(name, arm))
			offs[kept++] = k;
	}
	free(w.buf);
	*n = kept;
	return offs;
}

static bool has_offset(const uint32_t *offs, size_t n, uint32_t k)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (offs[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && offs[lo] == k;
}

static bool read_table(struct elf_symbols *e, Elf *elf, int fd, Elf_Scn *scn, const GElf_Shdr *sh)
{
	struct sym_reader r;
	if (sh->sh_entsize == 0 || !sym_reader_open(&r, elf, fd, scn, sh, CHUNK))
		return false;
	if (!read_strings(e, elf, fd, sh->sh_link)) {
		sym_reader_close(&r);
		return false;
	}
	size_t names_len = e->names_len;
	GElf_Ehdr eh;
	bool arm = gelf_getehdr(elf, &eh) && (eh.e_machine == EM_ARM || eh.e_machine == EM_AARCH64);
	size_t count = sh->sh_size / sh->sh_entsize, nkinds, ngood = 0;
	struct section_kind *kinds = section_kinds(elf, &nkinds);
	/* mapped names are read from the file first, in order (a heap copy is read in place) */
	uint32_t *good = e->map ? wanted_names(e, fd, &r, count, kinds, nkinds, arm, &ngood) : NULL;
	perf_symtab_free(e->tab);     /* a table tried before held no functions */
	e->n = 0;
	e->tab = perf_symtab_new(shown_of, e);
	if (!td_plain())
		perf_symtab_shown_batch(e->tab, shown_many);
	perf_symtab_reserve(e->tab, count + 1);
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		if (!sym_reader_get(&r, i, &s) || s.st_name >= names_len || !wanted_but_name(kinds, nkinds, &s))
			continue;
		if (good ? !has_offset(good, ngood, s.st_name) : !wanted_name(e->names + s.st_name, arm))
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		if (arm && eh.e_machine == EM_ARM && type == STT_FUNC && (s.st_value & 1))
			s.st_value--;        /* the thumb bit */
		uint64_t start = file_offset_of(e, &kinds[s.st_shndx], &s);
		perf_symtab_insert(e->tab, start, s.st_size, GELF_ST_BIND(s.st_info), e->names + s.st_name);
		e->n++;
	}
	free(good);
	sym_reader_close(&r);
	free(kinds);
	return e->n > 0;
}

static Elf_Scn *section(Elf *elf, size_t shstrndx, const char *want, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		const char *name;
		if (gelf_getshdr(scn, sh) && (name = elf_strptr(elf, shstrndx, sh->sh_name)) && strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

/* A name longer than this is read alone (read_cstr). */
#define NAMES_WINDOW (16u << 10)

struct name_ref {
	uint32_t key, i;             /* a name's offset in its table (or a symbol's index); where it goes */
};

/* The names at refs[0..m) (offsets into the string table of size bytes
 * at file offset at) read in file order through a window, each handed to
 * put(arg, i, copy) as it is read: NULL for one that cannot be read or
 * does not end. */
static void read_sorted_names(int fd, uint64_t at, uint64_t size, struct name_ref *refs, size_t m,
			      void (*put)(void *arg, size_t i, char *copy), void *arg)
{
	td_radix_sort(refs, m, sizeof(*refs), offsetof(struct name_ref, key), sizeof(uint32_t));
	char *win = td_malloc(NAMES_WINDOW);
	uint64_t first = 0, n = 0;
	for (size_t j = 0; j < m; j++) {
		uint64_t k = refs[j].key, room = size - k;
		const char *z = k >= first && k < first + n ? memchr(win + (k - first), '\0', first + n - k) : NULL;
		if (!z) {
			size_t want = room < NAMES_WINDOW ? (size_t)room : NAMES_WINDOW, got = 0;
			while (got < want) {
				ssize_t r = pread(fd, win + got, want - got, (off_t)(at + k + got));
				if (r <= 0)
					break;
				got += (size_t)r;
			}
			first = k;
			n = got;
			z = memchr(win, '\0', got);
		}
		put(arg, refs[j].i, z ? td_strndup(win + (k - first), (size_t)(z - (win + (k - first))))
				      : read_cstr(fd, at + k, (size_t)room));
	}
	free(win);
}

static void put_copy(void *arg, size_t i, char *copy)
{
	((char **)arg)[i] = copy;
}

/* The callees' names of the nrel relocations (their symbols' indexes in
 * rsym), read from the string table str into copies (NULL when one cannot
 * be read). The symbols and then the names are read in file order:
 * relocations name them in no order, and each out of order was a read. */
static void plt_callee_names(int fd, struct sym_reader *dsyms, const GElf_Shdr *str, const uint32_t *rsym, size_t nrel,
			     char **copies)
{
	struct name_ref *refs = td_malloc((nrel + 1) * sizeof(*refs));
	for (size_t i = 0; i < nrel; i++)
		refs[i] = (struct name_ref){ rsym[i], (uint32_t)i };
	td_radix_sort(refs, nrel, sizeof(*refs), offsetof(struct name_ref, key), sizeof(uint32_t));
	size_t m = 0;
	for (size_t j = 0; j < nrel; j++) {
		GElf_Sym sym;
		if (sym_reader_get(dsyms, refs[j].key, &sym) && sym.st_name < str->sh_size)
			refs[m++] = (struct name_ref){ sym.st_name, refs[j].i };
	}
	read_sorted_names(fd, str->sh_offset, str->sh_size, refs, m, put_copy, copies);
	free(refs);
}

/* perf 6.1 names the stubs of the procedure linkage table "callee@plt"
 * ("@plt" for a relocation without a symbol, such as an IFUNC's), one per
 * .rela.plt entry in table order, after a header the size of an entry on
 * x86 (20/12 bytes on ARM, 32/16 on AArch64). */
static void add_plt(struct elf_symbols *e, Elf *elf, int fd)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	GElf_Shdr plt, rel, dyn;
	Elf_Scn *rel_scn;
	if (!section(elf, shstrndx, ".plt", &plt) ||
	    (!(rel_scn = section(elf, shstrndx, ".rela.plt", &rel)) && !(rel_scn = section(elf, shstrndx, ".rel.plt", &rel))) ||
	    (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL) || rel.sh_entsize == 0)
		return;
	uint64_t header = plt.sh_entsize, entry = plt.sh_entsize;
	if (eh.e_machine == EM_ARM)
		header = 20, entry = 12;
	else if (eh.e_machine == EM_AARCH64)
		header = 32, entry = 16;
	Elf_Scn *dyn_scn = elf_getscn(elf, rel.sh_link), *str_scn;
	Elf_Data *rdata = elf_getdata(rel_scn, NULL);
	struct sym_reader dsyms;
	GElf_Shdr str;
	if (!rdata || !dyn_scn || !gelf_getshdr(dyn_scn, &dyn) || dyn.sh_type != SHT_DYNSYM || dyn.sh_entsize == 0 ||
	    !sym_reader_open(&dsyms, elf, fd, dyn_scn, &dyn, 4096))
		return;
	/* the callees' names read alone or in windows (plt_callee_names): the
	 * whole .dynstr (megabytes in a large binary) is not copied for a few
	 * hundred of them */
	bool read_str = !dsyms.data && (str_scn = elf_getscn(elf, dyn.sh_link)) && gelf_getshdr(str_scn, &str) &&
			str.sh_type == SHT_STRTAB && !(str.sh_flags & SHF_COMPRESSED) && str.sh_size <= SIZE_MAX / 2 &&
			str.sh_offset <= (uint64_t)INT64_MAX - str.sh_size;
	size_t nrel = rel.sh_size / rel.sh_entsize, names_len = 0;
	const char **names = td_calloc(nrel + 1, sizeof(*names));
	char **copies = td_calloc(nrel + 1, sizeof(*copies));
	uint32_t *rsym = td_malloc((nrel + 1) * sizeof(*rsym));
	for (size_t i = 0; i < nrel; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		uint64_t info = rel.sh_type == SHT_RELA ? (gelf_getrela(rdata, (int)i, &ra) ? ra.r_info : 0)
							: (gelf_getrel(rdata, (int)i, &r) ? r.r_info : 0);
		rsym[i] = (uint32_t)GELF_R_SYM(info);
	}
	bool batch = read_str && !td_plain() && nrel <= UINT32_MAX;
	if (batch)
		plt_callee_names(fd, &dsyms, &str, rsym, nrel, copies);
	for (size_t i = 0; i < nrel; i++) {
		GElf_Sym sym;
		const char *name = NULL;
		if (batch)
			name = copies[i];
		else if (sym_reader_get(&dsyms, rsym[i], &sym)) {
			if (!read_str)
				name = elf_strptr(elf, dyn.sh_link, sym.st_name);
			else if (sym.st_name < str.sh_size)
				name = copies[i] = read_cstr(fd, str.sh_offset + sym.st_name, (size_t)(str.sh_size - sym.st_name));
		}
		const char *shown = name ? keep_demangled(e, td_demangle(name)) : NULL;
		names[i] = shown ? shown : name ? name : "";
		names_len += strlen(names[i]) + 5;
	}
	free(rsym);
	sym_reader_close(&dsyms);
	e->plt_names = td_malloc(names_len + 8);
	e->plt_len = names_len + 8;
	char *w = e->plt_names;
	uint64_t at = plt.sh_offset + header;       /* perf's stubs are at file offsets too */
	perf_symtab_fixup(e->tab);                  /* the stubs come after the table's fix-ups */
	for (size_t i = 0; i < nrel; i++, at += entry) {
		int k = sprintf(w, "%s@plt", names[i]);
		perf_symtab_insert(e->tab, at, entry, STB_GLOBAL, w);
		w += k + 1;
	}
	for (size_t i = 0; i < nrel; i++)
		free(copies[i]);
	free(copies);
	free(names);
}


/* A name as perf shows it for perf_symtab's comparisons: the demangled
 * copy, a copy read from the file (the mapping's pages, faulted in with
 * their neighbours, would stay resident), or NULL when it shows as it is. */
static char *shown_of(void *ctx, const char *name)
{
	struct elf_symbols *e = ctx;
	if (e->map && name >= e->names && name <= e->names + e->names_len) {
		size_t k = (size_t)(name - e->names);
		char *copy = names_fd(e) ? read_cstr(e->fd, e->names_at + k, e->names_len + 1 - k) : NULL;
		if (copy) {
			char *d = td_demangle(copy);
			if (!d)
				return copy;
			free(copy);
			return d;
		}
		if (++e->compared % SYMS_PER_RELEASE == 0)
			madvise(e->map, e->map_len, MADV_DONTNEED);
	}
	return td_demangle(name);
}

/* shown_many's names on their way to take(). */
struct shown_batch {
	struct elf_symbols *e;
	const char *const *names;
	bool *done;
	symtab_take_fn take;
	void *arg;
};

static void put_shown(void *arg, size_t i, char *copy)
{
	struct shown_batch *b = arg;
	if (!copy)
		return;              /* shown_of() tries it again */
	b->done[i] = true;
	char *d = td_demangle(copy);
	if (d) {
		free(copy);
		copy = d;
	}
	b->take(b->arg, i, copy);
}

/* shown_of() for n names at once: those in the mapped table read from
 * the file in its order (perf compares the symbols sharing an address,
 * whose names lie all over the table), each measured as it is read. */
static void shown_many(void *ctx, const char *const *names, size_t n, symtab_take_fn take, void *arg)
{
	struct elf_symbols *e = ctx;
	bool read = e->map && e->names_len < UINT32_MAX && names_fd(e);
	struct name_ref *refs = read ? td_malloc((n + 1) * sizeof(*refs)) : NULL;
	struct shown_batch b = { e, names, td_calloc(n + 1, sizeof(bool)), take, arg };
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (read && names[i] >= e->names && names[i] <= e->names + e->names_len)
			refs[m++] = (struct name_ref){ (uint32_t)(names[i] - e->names), (uint32_t)i };
	if (m)
		read_sorted_names(e->fd, e->names_at, e->names_len + 1, refs, m, put_shown, &b);
	free(refs);
	for (size_t i = 0; i < n; i++)
		if (!b.done[i])
			take(arg, i, shown_of(e, names[i]));
	free(b.done);
}

/* The name number of a range's name (see struct rec). */
static uint32_t name_number(struct elf_symbols *e, const char *name)
{
	if (e->names && name >= e->names && name <= e->names + e->names_len &&
	    (uint64_t)(name - e->names) < NAME_INDEX)
		return (uint32_t)(name - e->names);
	if (e->plt_names && name >= e->plt_names && name < e->plt_names + e->plt_len) {
		uint64_t at = e->names_len + 1 + (uint64_t)(name - e->plt_names);
		if (at < NAME_INDEX)
			return (uint32_t)at;
	}
	if (e->nextra && e->extra[e->nextra - 1] == name)
		return NAME_EXTRA | (uint32_t)(e->nextra - 1);
	TD_ALLOC_GROW(e->extra, e->nextra + 1, e->extra_cap);
	e->extra[e->nextra++] = name;
	return NAME_EXTRA | (uint32_t)(e->nextra - 1);
}

/* One of perf's ranges as a 16-byte record (a range is twice that),
 * appended as perf_symtab hands them out: no array of ranges is made. */
static void add_range(void *ctx, const struct symtab_range *x)
{
	struct elf_symbols *e = ctx;
	uint32_t name = name_number(e, x->name);
	bool wide = x->start != x->lo || x->hi - x->lo > UINT32_MAX;
	if (wide) {
		TD_ALLOC_GROW(e->wide, e->nwide + 1, e->wide_cap);
		e->wide[e->nwide++] = (struct wide){ e->nrec, x->start, x->hi };
	}
	TD_ALLOC_GROW(e->rec, e->nrec + 1, e->rec_cap);
	e->rec[e->nrec++] = (struct rec){ x->lo, wide ? 0 : (uint32_t)(x->hi - x->lo), name | (wide ? NAME_WIDE : 0) };
}

/* The symbols through perf's tree: table symbols, fix-ups, PLT stubs. */
static void build_ranges(struct elf_symbols *e)
{
	struct perf_symtab *t = e->tab;
	perf_symtab_fixup(t);        /* no stubs: the fix-ups end the table */
	/* a table's ranges are about as many as its symbols: room for them
	 * at once (never written, never paged in) */
	e->rec_cap = e->n + 64;
	e->rec = td_malloc(e->rec_cap * sizeof(*e->rec));
	perf_symtab_each_range(t, add_range, e);
	perf_symtab_free(t);
	e->tab = NULL;
	e->rec = td_realloc(e->rec, (e->nrec + 1) * sizeof(*e->rec));
	e->rec_cap = e->nrec + 1;
	/* no range names a name demangled so far (extra holds none of them) */
	for (size_t i = 0; i < e->ndemangled; i++)
		free(e->demangled[i]);
	e->ndemangled = 0;
	if (e->map)                  /* the pages lookups need come back on their own */
		madvise(e->map, e->map_len, MADV_DONTNEED);
}

static void read_build_id(struct elf_symbols *e, Elf *elf)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz > 20 || desc_off + nh.n_descsz > data->d_size)
				continue;
			const unsigned char *d = (const unsigned char *)data->d_buf + desc_off;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(e->build_id + 2 * i, 3, "%02x", d[i]);
			return;
		}
	}
}

/* Debug symbols installed for this build (Debian's *-dbg / dbgsym
 * packages), which perf prefers: /usr/lib/debug/.build-id/ab/cdef.debug */
static bool read_debug_file(struct elf_symbols *e)
{
	if (strlen(e->build_id) < 4)
		return false;
	char path[128];
	snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%.2s/%s.debug", e->build_id, e->build_id + 2);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	bool ok = false;
	for (Elf_Scn *scn = NULL; elf && !ok && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			ok = read_table(e, elf, fd, scn, &sh);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	e->from_debug_file = ok;
	if (ok) {
		free(e->source);
		e->source = td_strndup(path, strlen(path));
	}
	return ok;
}

const char *elf_symbols_build_id(const struct elf_symbols *e) { return e->build_id; }

/* The loadable segments, which place symbols at file offsets: from the
 * binary that runs (a debug file's offsets are not the binary's). */
static void read_loads(struct elf_symbols *e, Elf *elf, const char *runtime)
{
	int fd = runtime ? open(runtime, O_RDONLY) : -1;
	Elf *run = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf *from = run && elf_kind(run) == ELF_K_ELF ? run : elf;
	size_t nph = 0;
	elf_getphdrnum(from, &nph);
	for (size_t i = 0; i < nph && e->nload < MAX_LOADS; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(from, (int)i, &ph) && ph.p_type == PT_LOAD)
			e->load[e->nload++] = (struct load){ ph.p_offset, ph.p_vaddr, ph.p_memsz };
	}
	if (run)
		elf_end(run);
	if (fd >= 0)
		close(fd);
}

/* The PLT stubs are only in a file that runs (a debug file has the
 * section headers but no contents): from runtime when it is given. */
static void add_plt_of(struct elf_symbols *e, Elf *elf, int elf_fd, const char *runtime)
{
	int fd = runtime ? open(runtime, O_RDONLY) : -1;
	Elf *run = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	bool own = run && elf_kind(run) == ELF_K_ELF;
	add_plt(e, own ? run : elf, own ? fd : elf_fd);
	if (run)
		elf_end(run);
	if (fd >= 0)
		close(fd);
}

static struct elf_symbols *open_elf(const char *path, bool quiet, const char *runtime)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		if (!quiet)
			td_bad_input(path, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		if (!quiet)
			td_bad_input(path, 0, "not an ELF file");
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	struct elf_symbols *e = td_calloc(1, sizeof(*e));
	e->fd = -1;
	e->pie = eh.e_type == ET_DYN;
	e->source = td_strndup(path, strlen(path));
	e->runtime = runtime ? td_strndup(runtime, strlen(runtime)) : NULL;
	read_loads(e, elf, runtime);
	read_build_id(e, elf);
	Elf_Scn *symtab = NULL, *dynsym = NULL;
	GElf_Shdr st_sh, dyn_sh;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn, st_sh = sh;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn, dyn_sh = sh;
	}
	bool ok = (symtab && read_table(e, elf, fd, symtab, &st_sh)) || read_debug_file(e);
	if (!ok && dynsym) {
		free(e->source);
		e->source = td_strndup(path, strlen(path));
		ok = read_table(e, elf, fd, dynsym, &dyn_sh);
	}
	if (ok)
		add_plt_of(e, elf, fd, runtime);
	elf_end(elf);
	close(fd);
	if (!ok) {
		if (!quiet)
			td_warn(path, 0, "no function symbols (stripped): addresses stay as they are");
		e->n = 0;
		perf_symtab_free(e->tab);
		e->tab = NULL;
		return e;
	}
	build_ranges(e);
	return e;
}

struct elf_symbols *elf_symbols_open(const char *path) { return open_elf(path, false, NULL); }
struct elf_symbols *elf_symbols_try(const char *path, const char *runtime) { return open_elf(path, true, runtime); }

bool elf_file_build_id(const char *path, char hex[41])
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	struct elf_symbols probe = { 0 };
	bool ok = elf && elf_kind(elf) == ELF_K_ELF;
	if (ok)
		read_build_id(&probe, elf);
	if (elf)
		elf_end(elf);
	close(fd);
	memcpy(hex, probe.build_id, sizeof probe.build_id);
	return ok;
}

void elf_symbols_close(struct elf_symbols *e)
{
	if (!e)
		return;
	perf_symtab_free(e->tab);
	free(e->rec);
	free(e->index);
	free(e->wide);
	free(e->extra);
	free(e->shown);
	drop_names(e);
	free(e->plt_names);
	free(e->source);
	free(e->runtime);
	for (size_t i = 0; i < e->ndemangled; i++)
		free(e->demangled[i]);
	free(e->demangled);
	free(e);
}

bool elf_symbols_is_pie(const struct elf_symbols *e) { return e->pie; }
size_t elf_symbols_count(const struct elf_symbols *e) { return e->nrec; }

uint64_t elf_symbols_key(const struct elf_symbols *e, uint64_t addr, uint64_t map_start, uint64_t pgoff)
{
	(void)e;
	return addr - map_start + pgoff;
}

uint64_t elf_symbols_vaddr_of_key(const struct elf_symbols *e, uint64_t key)
{
	for (int i = 0; i < e->nload; i++)
		if (key >= e->load[i].offset && key - e->load[i].offset < e->load[i].memsz)
			return key - e->load[i].offset + e->load[i].vaddr;
	return key;
}

const char *elf_symbols_source(const struct elf_symbols *e) { return e->source; }
const char *elf_symbols_runtime(const struct elf_symbols *e) { return e->runtime; }

bool elf_file_debuglink(const char *path, char *name, size_t cap)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	bool ok = false;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &shstrndx) == 0)
		for (Elf_Scn *scn = NULL; !ok && (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			const char *sname;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
			    !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(sname, ".gnu_debuglink") != 0)
				continue;
			Elf_Data *data = elf_getdata(scn, NULL);
			size_t k = data ? strnlen(data->d_buf, data->d_size) : 0;
			if (k && k < data->d_size && k < cap) {
				memcpy(name, data->d_buf, k);
				name[k] = '\0';
				ok = true;
			}
		}
	if (elf)
		elf_end(elf);
	close(fd);
	return ok;
}

uint64_t elf_symbols_key_of_vaddr(const struct elf_symbols *e, uint64_t vaddr)
{
	for (int i = 0; i < e->nload; i++)
		if (vaddr >= e->load[i].vaddr && vaddr - e->load[i].vaddr < e->load[i].memsz)
			return vaddr - e->load[i].vaddr + e->load[i].offset;
	return vaddr;
}

static const char *rec_name(const struct elf_symbols *e, uint32_t name)
{
	uint32_t k = name & NAME_INDEX;
	if (name & NAME_EXTRA)
		return e->extra[k];
	return k <= e->names_len ? e->names + k : e->plt_names + (k - e->names_len - 1);
}

/* A name in the string table read from the file into a string of its
 * own (NULL when it cannot be: the caller reads the mapping). */
static char *read_name(const struct elf_symbols *e, uint32_t k)
{
	return read_cstr(e->fd, e->names_at + k, e->names_len + 1 - k);
}

static struct shown *shown_slot(struct shown *t, size_t cap, uint32_t rec)
{
	size_t i = (rec * 0x9e3779b9u) & (cap - 1);
	while (t[i].rec1 && t[i].rec1 != rec + 1)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/* The range's name as perf shows it, demangled on first use. perf
 * demangles every name as it loads it; a large C++ library costs more to
 * demangle whole than to read, so names are demangled when a lookup first
 * returns them (or when perf compares two symbols at one address), and
 * kept by range from then on. */
static struct shown *shown_entry(struct elf_symbols *e, size_t r)
{
	if (e->shown_cap) {
		struct shown *s = shown_slot(e->shown, e->shown_cap, (uint32_t)r);
		if (s->rec1)
			return s;
	}
	if (2 * (e->nshown + 1) > e->shown_cap) {
		size_t cap = e->shown_cap ? 2 * e->shown_cap : 64;
		struct shown *t = td_calloc(cap, sizeof(*t));
		for (size_t i = 0; i < e->shown_cap; i++)
			if (e->shown[i].rec1)
				*shown_slot(t, cap, e->shown[i].rec1 - 1) = e->shown[i];
		free(e->shown);
		e->shown = t;
		e->shown_cap = cap;
	}
	uint32_t number = e->rec[r].name;
	char *copy = e->map && names_fd(e) && !(number & NAME_EXTRA) && (number & NAME_INDEX) <= e->names_len
		     ? read_name(e, number & NAME_INDEX) : NULL;
	const char *name = copy ? copy : rec_name(e, number);
	char *d = td_demangle(name);
	if (d) {
		free(copy);
		name = keep_demangled(e, d);
	} else if (copy) {
		name = keep_demangled(e, copy);
	}
	struct shown *s = shown_slot(e->shown, e->shown_cap, (uint32_t)r);
	*s = (struct shown){ (uint32_t)r + 1, 0, name };
	e->nshown++;
	return s;
}

static const struct wide *wide_of(const struct elf_symbols *e, size_t r)
{
	/* present (the range is marked wide): the last entry at or before r is r's */
	return &e->wide[td_count_at_or_before(e->wide, e->nwide, sizeof(*e->wide), offsetof(struct wide, rec), r) - 1];
}

/* Tables with fewer ranges are searched whole. */
#define INDEX_MIN_RECS 64

/* A large binary's search over all its ranges takes a score of steps,
 * each a likely cache miss: the ranges are bucketed by their start's high
 * bits (about two per bucket, a quarter of the ranges' own size), built
 * at the first lookup and never under td_plain(). */
static void rec_index(struct elf_symbols *e)
{
	e->index_tried = true;
	if (td_plain() || e->nrec < INDEX_MIN_RECS || e->nrec >= UINT32_MAX)
		return;
	uint64_t span = e->rec[e->nrec - 1].lo - e->rec[0].lo;
	unsigned shift = 0;
	while (shift < 63 && (span >> shift) >= e->nrec / 2)
		shift++;
	size_t nb = (size_t)(span >> shift) + 1;
	e->index = td_malloc((nb + 1) * sizeof(*e->index));
	size_t r = 0;
	for (size_t b = 0; b < nb; b++) {
		while (r < e->nrec && (e->rec[r].lo - e->rec[0].lo) >> shift < b)
			r++;
		e->index[b] = (uint32_t)r;
	}
	e->index[nb] = (uint32_t)e->nrec;
	e->nindex = nb;
	e->index_shift = shift;
}

/* How many ranges start at or before vaddr: td_count_at_or_before over
 * all of rec, searching only vaddr's bucket when there is an index (the
 * ranges before the bucket start before vaddr, those after it after). */
static size_t recs_at_or_before(struct elf_symbols *e, uint64_t vaddr)
{
	if (!e->index_tried)
		rec_index(e);
	if (!e->index)
		return td_count_at_or_before(e->rec, e->nrec, sizeof(*e->rec), offsetof(struct rec, lo), vaddr);
	if (vaddr < e->rec[0].lo)
		return 0;
	uint64_t b = (vaddr - e->rec[0].lo) >> e->index_shift;
	if (b >= e->nindex)
		return e->nrec;
	size_t first = e->index[b];
	return first + td_count_at_or_before(e->rec + first, e->index[b + 1] - first, sizeof(*e->rec),
					     offsetof(struct rec, lo), vaddr);
}

/* The entry of the range covering vaddr (*start its start), or NULL. */
static struct shown *find_shown(const struct elf_symbols *e, uint64_t vaddr, uint64_t *start)
{
	size_t lo = recs_at_or_before((struct elf_symbols *)e, vaddr);    /* may build the index, once */
	if (lo == 0)
		return NULL;
	const struct rec *r = &e->rec[lo - 1];
	if (r->name & NAME_WIDE) {
		const struct wide *w = wide_of(e, lo - 1);
		if (vaddr >= w->hi)
			return NULL;
		*start = w->start;
	} else {
		if (vaddr - r->lo >= r->len)
			return NULL;
		*start = r->lo;
	}
	return shown_entry((struct elf_symbols *)e, lo - 1);     /* a lookup may demangle, once */
}

const char *elf_symbols_find(const struct elf_symbols *e, uint64_t vaddr, uint64_t *start)
{
	const struct shown *s = find_shown(e, vaddr, start);
	return s ? s->name : NULL;
}

const char *elf_symbols_find_noted(const struct elf_symbols *e, uint64_t vaddr, uint64_t *start, uint32_t **note)
{
	struct shown *s = find_shown(e, vaddr, start);
	*note = s ? &s->note : NULL;
	return s ? s->name : NULL;
}

bool elf_symbols_lookup(const struct elf_symbols *e, uint64_t vaddr, char *buf, size_t cap)
{
	uint64_t start;
	const char *name = elf_symbols_find(e, vaddr, &start);
	if (!name)
		return false;
	snprintf(buf, cap, "%s+0x%llx", name, (unsigned long long)(vaddr - start));
	return true;
}
