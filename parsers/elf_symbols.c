#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/demangle.h"
#include "common/diag.h"
#include "common/sorted.h"
#include "elf_symbols.h"

struct sym {
	uint64_t start, end;
	const char *name;
	unsigned char bind;
	size_t index;                /* in the symbol table: perf keeps the first of equals */
};

#define MAX_LOADS 16

struct elf_symbols {
	struct sym *sym;
	size_t n;
	char *names;                 /* all names, back to back */
	char **demangled;            /* names that differ from the file's */
	size_t ndemangled;
	char *plt_names;             /* "name@plt" of the synthesized PLT entries */
	bool pie;
	struct load { uint64_t offset, vaddr, size; } load[MAX_LOADS];
	int nload;
	char build_id[41];           /* hex, "" when the file has none */
	bool from_debug_file;
};

static int count_underscores(const char *s)
{
	int n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* Of two symbols at one address, the one perf shows: sized, then not
 * weak, then global, then fewer leading underscores, then the longer name. */
static bool better(const struct sym *a, const struct sym *b)
{
	bool sa = a->end > a->start, sb = b->end > b->start;
	if (sa != sb)
		return sa;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	int ua = count_underscores(a->name), ub = count_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	return strlen(a->name) > strlen(b->name);
}

static int cmp_sym(const void *x, const void *y)
{
	const struct sym *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return better(a, b) ? -1 : better(b, a) ? 1 : (a->index < b->index ? -1 : a->index > b->index);
}

/* Keeps a demangled name for the table's life; NULL stays NULL. */
static const char *keep_demangled(struct elf_symbols *e, char *name)
{
	if (!name)
		return NULL;
	e->demangled = td_realloc(e->demangled, (e->ndemangled + 1) * sizeof(*e->demangled));
	e->demangled[e->ndemangled++] = name;
	return name;
}

/* The symbols perf keeps: functions (ifuncs too) and objects defined in
 * the file, plus untyped labels in text or data sections; not ARM mapping
 * symbols ($a $d $t $x). */
static bool wanted(Elf *elf, size_t shstrndx, const GElf_Sym *s, const char *name, bool arm)
{
	if (!*name || s->st_shndx == SHN_UNDEF)
		return false;
	if (arm && name[0] == '$' && name[1] && strchr("adtx", name[1]) && (name[2] == '\0' || name[2] == '.'))
		return false;
	int type = GELF_ST_TYPE(s->st_info);
	if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
		return true;
	int vis = GELF_ST_VISIBILITY(s->st_other);
	if (type != STT_NOTYPE || s->st_shndx == SHN_ABS || s->st_shndx >= SHN_LORESERVE ||
	    vis == STV_HIDDEN || vis == STV_INTERNAL)
		return false;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
	const char *sec = scn && gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
	return sec && (strstr(sec, "text") || strstr(sec, "data"));
}

static bool read_table(struct elf_symbols *e, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || sh->sh_entsize == 0)
		return false;
	GElf_Ehdr eh;
	size_t shstrndx = 0;
	bool arm = gelf_getehdr(elf, &eh) && (eh.e_machine == EM_ARM || eh.e_machine == EM_AARCH64);
	elf_getshdrstrndx(elf, &shstrndx);
	size_t count = sh->sh_size / sh->sh_entsize, names_len = 0;
	free(e->sym);                /* a table tried before held no functions */
	free(e->names);
	e->n = 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;
		if (gelf_getsym(data, (int)i, &s) && (name = elf_strptr(elf, sh->sh_link, s.st_name)) &&
		    wanted(elf, shstrndx, &s, name, arm))
			names_len += strlen(name) + 1;
	}
	e->sym = td_calloc(count + 1, sizeof(*e->sym));
	e->names = td_malloc(names_len + 1);
	char *w = e->names;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;
		if (!gelf_getsym(data, (int)i, &s) || !(name = elf_strptr(elf, sh->sh_link, s.st_name)) ||
		    !wanted(elf, shstrndx, &s, name, arm))
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		if (arm && eh.e_machine == EM_ARM && type == STT_FUNC && (s.st_value & 1))
			s.st_value--;        /* the thumb bit */
		const char *shown = keep_demangled(e, td_demangle(name));
		if (!shown) {
			size_t len = strlen(name) + 1;
			memcpy(w, name, len);
			shown = w;
			w += len;
		}
		e->sym[e->n++] = (struct sym){ s.st_value, s.st_value + s.st_size, shown, GELF_ST_BIND(s.st_info), i };
	}
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

struct plt_rel { uint64_t got; uint32_t sym; };

static int cmp_rel(const void *a, const void *b)
{
	const struct plt_rel *x = a, *y = b;
	return x->got < y->got ? -1 : x->got > y->got;
}

static void add_sym(struct elf_symbols *e, size_t *cap, uint64_t start, uint64_t size, const char *name)
{
	if (e->n == *cap) {
		*cap = *cap * 2 + 16;
		e->sym = td_realloc(e->sym, *cap * sizeof(*e->sym));
	}
	e->sym[e->n] = (struct sym){ start, start + size, name, STB_GLOBAL, SIZE_MAX - e->n };
	e->n++;
}

/* perf names the stubs of the procedure linkage table "callee@plt" (the
 * lazy .plt header ".plt"), from the .rela.plt entries in GOT order on x86. */
static void add_plt(struct elf_symbols *e, Elf *elf)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	bool x86 = eh.e_machine == EM_X86_64 || eh.e_machine == EM_386;
	uint64_t header = x86 ? 16 : eh.e_machine == EM_AARCH64 ? 32 : 0, entry = 16;
	GElf_Shdr plt, sec, rel, dyn;
	Elf_Scn *rel_scn;
	if (!header || !section(elf, shstrndx, ".plt", &plt) ||
	    (!(rel_scn = section(elf, shstrndx, ".rela.plt", &rel)) && !(rel_scn = section(elf, shstrndx, ".rel.plt", &rel))) ||
	    (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL) || rel.sh_entsize == 0)
		return;
	Elf_Scn *dyn_scn = elf_getscn(elf, rel.sh_link);
	Elf_Data *rdata = elf_getdata(rel_scn, NULL), *ddata = dyn_scn ? elf_getdata(dyn_scn, NULL) : NULL;
	if (!rdata || !ddata || !gelf_getshdr(dyn_scn, &dyn) || dyn.sh_type != SHT_DYNSYM)
		return;
	size_t nrel = rel.sh_size / rel.sh_entsize, cap = e->n, names_len = 0;
	struct plt_rel *rels = td_calloc(nrel + 1, sizeof(*rels));
	for (size_t i = 0; i < nrel; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		if (rel.sh_type == SHT_RELA && gelf_getrela(rdata, (int)i, &ra))
			rels[i] = (struct plt_rel){ ra.r_offset, (uint32_t)GELF_R_SYM(ra.r_info) };
		else if (rel.sh_type == SHT_REL && gelf_getrel(rdata, (int)i, &r))
			rels[i] = (struct plt_rel){ r.r_offset, (uint32_t)GELF_R_SYM(r.r_info) };
	}
	if (x86)
		qsort(rels, nrel, sizeof(*rels), cmp_rel);
	const char **names = td_calloc(nrel + 1, sizeof(*names));
	for (size_t i = 0; i < nrel; i++) {
		GElf_Sym sym;
		const char *name = gelf_getsym(ddata, (int)rels[i].sym, &sym) ? elf_strptr(elf, dyn.sh_link, sym.st_name) : NULL;
		const char *shown = name ? keep_demangled(e, td_demangle(name)) : NULL;
		names[i] = shown ? shown : name;
		names_len += (names[i] ? strlen(names[i]) : 0) + 40;
	}
	e->plt_names = td_malloc(names_len + 8);
	char *w = e->plt_names;
	uint64_t at = plt.sh_addr;
	if (x86 && section(elf, shstrndx, ".plt.sec", &sec)) {
		add_sym(e, &cap, plt.sh_addr, plt.sh_size, ".plt");
		at = sec.sh_addr;
	} else if (nrel * entry != plt.sh_size) {
		add_sym(e, &cap, plt.sh_addr, header, ".plt");
		at += header;
	}
	for (size_t i = 0; i < nrel; i++, at += entry) {
		const char *name = names[i];
		int k = name && *name ? sprintf(w, "%s@plt", name) : sprintf(w, "offset_%#llx@plt", (unsigned long long)at);
		add_sym(e, &cap, at, entry, w);
		w += k + 1;
	}
	free(names);
	free(rels);
}

/* Sorted, one symbol per address, zero sizes reaching to the next one. */
static void fix_up(struct elf_symbols *e)
{
	qsort(e->sym, e->n, sizeof(*e->sym), cmp_sym);
	size_t w = 0;
	for (size_t i = 0; i < e->n; i++)
		if (w == 0 || e->sym[i].start != e->sym[w - 1].start)
			e->sym[w++] = e->sym[i];
	e->n = w;
	for (size_t i = 0; i + 1 < e->n; i++)
		if (e->sym[i].end <= e->sym[i].start)
			e->sym[i].end = e->sym[i + 1].start;
	if (e->n && e->sym[e->n - 1].end <= e->sym[e->n - 1].start)   /* perf: to the end of the next page */
		e->sym[e->n - 1].end = ((e->sym[e->n - 1].start + 4095) & ~4095ULL) + 4096;
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
			ok = read_table(e, elf, scn, &sh);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	e->from_debug_file = ok;
	return ok;
}

const char *elf_symbols_build_id(const struct elf_symbols *e) { return e->build_id; }

static struct elf_symbols *open_elf(const char *path, bool quiet)
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
	e->pie = eh.e_type == ET_DYN;
	size_t nph = 0;
	elf_getphdrnum(elf, &nph);
	for (size_t i = 0; i < nph && e->nload < MAX_LOADS; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			e->load[e->nload++] = (struct load){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
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
	bool ok = (symtab && read_table(e, elf, symtab, &st_sh)) || read_debug_file(e) ||
		  (dynsym && read_table(e, elf, dynsym, &dyn_sh));
	if (ok)
		add_plt(e, elf);
	elf_end(elf);
	close(fd);
	if (!ok) {
		if (!quiet)
			td_warn(path, 0, "no function symbols (stripped): addresses stay as they are");
		e->n = 0;
		return e;
	}
	fix_up(e);
	return e;
}

struct elf_symbols *elf_symbols_open(const char *path) { return open_elf(path, false); }
struct elf_symbols *elf_symbols_try(const char *path) { return open_elf(path, true); }

void elf_symbols_close(struct elf_symbols *e)
{
	if (!e)
		return;
	free(e->sym);
	free(e->names);
	free(e->plt_names);
	for (size_t i = 0; i < e->ndemangled; i++)
		free(e->demangled[i]);
	free(e->demangled);
	free(e);
}

bool elf_symbols_is_pie(const struct elf_symbols *e) { return e->pie; }
size_t elf_symbols_count(const struct elf_symbols *e) { return e->n; }

uint64_t elf_symbols_vaddr(const struct elf_symbols *e, uint64_t addr, uint64_t map_start, uint64_t pgoff)
{
	if (!e->pie)
		return addr;
	uint64_t offset = addr - map_start + pgoff;      /* position in the file */
	for (int i = 0; i < e->nload; i++)
		if (offset >= e->load[i].offset && offset < e->load[i].offset + e->load[i].size)
			return offset - e->load[i].offset + e->load[i].vaddr;
	return offset;
}

const char *elf_symbols_find(const struct elf_symbols *e, uint64_t vaddr, uint64_t *start)
{
	size_t lo = td_count_at_or_before(e->sym, e->n, sizeof(*e->sym), offsetof(struct sym, start), vaddr);
	if (lo == 0 || vaddr >= e->sym[lo - 1].end)
		return NULL;
	*start = e->sym[lo - 1].start;
	return e->sym[lo - 1].name;
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
