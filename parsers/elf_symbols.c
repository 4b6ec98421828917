#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/diag.h"
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

static bool read_table(struct elf_symbols *e, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || sh->sh_entsize == 0)
		return false;
	size_t count = sh->sh_size / sh->sh_entsize, names_len = 0;
	free(e->sym);                /* a table tried before held no functions */
	free(e->names);
	e->n = 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;
		if (gelf_getsym(data, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_shndx != SHN_UNDEF &&
		    (name = elf_strptr(elf, sh->sh_link, s.st_name)) && *name)
			names_len += strlen(name) + 1;
	}
	e->sym = td_calloc(count + 1, sizeof(*e->sym));
	e->names = td_malloc(names_len + 1);
	char *w = e->names;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;
		if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF ||
		    !(name = elf_strptr(elf, sh->sh_link, s.st_name)) || !*name)
			continue;
		size_t len = strlen(name) + 1;
		memcpy(w, name, len);
		e->sym[e->n++] = (struct sym){ s.st_value, s.st_value + s.st_size, w, GELF_ST_BIND(s.st_info), i };
		w += len;
	}
	return e->n > 0;
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

struct elf_symbols *elf_symbols_open(const char *path)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		td_bad_input(path, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
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
	elf_end(elf);
	close(fd);
	if (!ok) {
		td_warn(path, 0, "no function symbols (stripped): addresses stay as they are");
		return e;
	}
	fix_up(e);
	return e;
}

void elf_symbols_close(struct elf_symbols *e)
{
	if (!e)
		return;
	free(e->sym);
	free(e->names);
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

bool elf_symbols_lookup(const struct elf_symbols *e, uint64_t vaddr, char *buf, size_t cap)
{
	size_t lo = 0, hi = e->n;
	while (lo < hi) {                     /* last symbol starting at or before vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (e->sym[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || vaddr >= e->sym[lo - 1].end)
		return false;
	const struct sym *s = &e->sym[lo - 1];
	snprintf(buf, cap, "%s+0x%llx", s->name, (unsigned long long)(vaddr - s->start));
	return true;
}
