#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include "common/diag.h"
#include "dwarf_inlines.h"

/* What binutils remembers of a function DIE once a query met it. */
struct fn_state {
	Dwarf_Off off;               /* 0: empty slot */
	const char *name;
	bool linkage;                /* the name is final */
};

struct dwarf_inlines {
	int fd;
	Dwarf *dbg;
	struct fn_state *fn;
	size_t nfn, fn_cap;
};

struct dwarf_inlines *dwarf_inlines_open(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	Dwarf *dbg = dwarf_begin(fd, DWARF_C_READ);
	if (!dbg) {
		close(fd);
		return NULL;
	}
	struct dwarf_inlines *d = td_calloc(1, sizeof(*d));
	d->fd = fd;
	d->dbg = dbg;
	return d;
}

void dwarf_inlines_close(struct dwarf_inlines *d)
{
	if (!d)
		return;
	dwarf_end(d->dbg);
	close(d->fd);
	free(d->fn);
	free(d);
}

/* Languages whose DW_AT_name is the symbol's name (binutils' mangle_style
 * 0); in the others a plain name is not a linkage name. */
static bool plain_names(int lang)
{
	static const int langs[] = {
		DW_LANG_C89, DW_LANG_C, DW_LANG_Cobol74, DW_LANG_Cobol85, DW_LANG_Fortran77, DW_LANG_Fortran90,
		DW_LANG_Pascal83, DW_LANG_Modula2, DW_LANG_C99, DW_LANG_Fortran95, DW_LANG_PLI, DW_LANG_UPC,
		DW_LANG_C11, DW_LANG_Fortran03, DW_LANG_Fortran08,
	};
	for (size_t i = 0; i < sizeof langs / sizeof *langs; i++)
		if (langs[i] == lang)
			return true;
	return false;
}

static struct fn_state *fn_slot(struct dwarf_inlines *d, Dwarf_Off off)
{
	if ((d->nfn + 1) * 2 > d->fn_cap) {
		struct fn_state *old = d->fn;
		size_t ocap = d->fn_cap;
		d->fn_cap = ocap ? ocap * 2 : 1024;
		d->fn = td_calloc(d->fn_cap, sizeof(*d->fn));
		for (size_t i = 0; i < ocap; i++)
			if (old[i].off) {
				size_t j = (size_t)(old[i].off * 0x9E3779B97F4A7C15ULL >> 20) & (d->fn_cap - 1);
				while (d->fn[j].off)
					j = (j + 1) & (d->fn_cap - 1);
				d->fn[j] = old[i];
			}
		free(old);
	}
	size_t j = (size_t)(off * 0x9E3779B97F4A7C15ULL >> 20) & (d->fn_cap - 1);
	while (d->fn[j].off && d->fn[j].off != off)
		j = (j + 1) & (d->fn_cap - 1);
	return &d->fn[j];
}

/* The function's state, made on first sight. */
static struct fn_state *function(struct dwarf_inlines *d, Dwarf_Die *die, int lang)
{
	Dwarf_Off off = dwarf_dieoffset(die) + 1;
	struct fn_state *f = fn_slot(d, off);
	if (f->off)
		return f;
	Dwarf_Attribute attr;
	const char *name = NULL;
	bool linkage = false;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		linkage = (name = dwarf_formstring(&attr)) != NULL;
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr)) {
		name = dwarf_formstring(&attr);
		linkage = name && plain_names(lang);
	}
	*f = (struct fn_state){ off, name, linkage };
	d->nfn++;
	return f;
}

/* The low end of the function's first range, as binutils keeps it. */
static bool first_low(Dwarf_Die *die, uint64_t *low)
{
	Dwarf_Addr lo, base, start, end;
	if (dwarf_lowpc(die, &lo) == 0) {
		*low = lo;
		return true;
	}
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*low = start;
		return true;
	}
	return false;
}

/* .debug_aranges may leave units out (Rust's std has none there):
 * binutils then looks through every unit's own ranges, and so does this. */
static bool cu_by_scan(struct dwarf_inlines *d, uint64_t vaddr, Dwarf_Die *cudie)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(d->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(d->dbg, off + hsize, cudie) && dwarf_haspc(cudie, vaddr) > 0)
			return true;
		off = next;
	}
	return false;
}

#define MAX_DEPTH 256

static bool is_function(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

/* The functions containing vaddr below parent, outermost first, after
 * the n in chain; returns the new count. binutils finds them wherever
 * they are nested (LLVM puts Rust's inside namespaces and types, where
 * dwarf_getscopes does not look), and code scopes that do not contain
 * vaddr are not searched. */
static int innermost(Dwarf_Die *parent, uint64_t vaddr, Dwarf_Die *chain, int n)
{
	Dwarf_Die child;
	if (n >= MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return n;
	do {
		int tag = dwarf_tag(&child);
		bool code = is_function(tag) || tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
			    tag == DW_TAG_catch_block;
		if (code && dwarf_haspc(&child, vaddr) <= 0)
			continue;
		if (!dwarf_haschildren(&child)) {
			if (code && is_function(tag))
				chain[n++] = child;
			if (code)
				return n;
			continue;
		}
		int k = n;
		if (is_function(tag))
			chain[k++] = child;
		int deeper = innermost(&child, vaddr, chain, k);
		if (code || deeper > k)
			return deeper;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* The ELF symbol binutils names an address by when no DWARF function
 * covers it (_bfd_elf_find_function): of the function symbols of the
 * address's section at or before it, the closest; of several there, the
 * first in table order, unless a later one covers the address where the
 * first does not (then the larger) or covers it more tightly. */
static const char *elf_function_at(struct dwarf_inlines *d, uint64_t vaddr, uint64_t *start)
{
	Elf *elf = dwarf_getelf(d->dbg);
	size_t shndx = 0;
	Elf_Scn *symtab = NULL;
	GElf_Shdr symsh = { 0 };
	for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn, symsh = sh;
		else if ((sh.sh_flags & SHF_ALLOC) && vaddr >= sh.sh_addr && vaddr - sh.sh_addr < sh.sh_size && !shndx)
			shndx = elf_ndxscn(scn);
	}
	Elf_Data *data = symtab ? elf_getdata(symtab, NULL) : NULL;
	if (!data || !shndx || !symsh.sh_entsize)
		return NULL;
	const char *best = NULL;
	uint64_t best_off = 0, best_size = 0;
	size_t n = symsh.sh_size / symsh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != shndx || sym.st_value > vaddr)
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		bool take = !best || sym.st_value > best_off;
		if (!take && sym.st_value == best_off) {
			if (best_off + best_size <= vaddr)
				take = sym.st_size > best_size;
			else if (sym.st_value + sym.st_size > vaddr)
				take = sym.st_size < best_size;
		}
		if (take) {
			const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (name && *name) {
				best = name;
				best_off = sym.st_value;
				best_size = sym.st_size;
			}
		}
	}
	if (start)
		*start = best_off;
	return best;
}

int dwarf_inlines_at(struct dwarf_inlines *d, uint64_t vaddr, const char *sym, uint64_t sym_vaddr,
		     const char **names, int max)
{
	Dwarf_Die cudie;
	if (!d || max <= 0)
		return 0;
	if (!dwarf_addrdie(d->dbg, vaddr, &cudie) && !cu_by_scan(d, vaddr, &cudie)) {
		/* no unit: binutils falls back to the symbol table alone */
		const char *name = elf_function_at(d, vaddr, NULL);
		if (!name)
			return 0;
		names[0] = name;
		return 1;
	}
	int lang = dwarf_srclang(&cudie);
	Dwarf_Die chain[MAX_DEPTH];
	int nchain = innermost(&cudie, vaddr, chain, 0);
	if (nchain == 0) {             /* a unit with lines but no function there (assembler) */
		const char *name = elf_function_at(d, vaddr, NULL);
		if (!name)
			return 0;
		names[0] = name;
		return 1;
	}
	int k = 0;
	for (int i = nchain - 1; i >= 0 && k < max; i--) {
		int tag = dwarf_tag(&chain[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram && tag != DW_TAG_entry_point)
			continue;
		struct fn_state *f = function(d, &chain[i], lang);
		const char *name = f->name;
		if (k == 0 && !f->linkage) {
			uint64_t low, start = sym_vaddr;
			const char *pick = elf_function_at(d, vaddr, &start);
			if (!pick)
				pick = sym, start = sym_vaddr;
			if (pick) {
				name = pick;
				if (first_low(&chain[i], &low) && low == start)
					f->name = pick;
			}
			f->linkage = true;
		}
		names[k++] = name ? name : "??";
		if (tag == DW_TAG_subprogram)
			break;
	}
	return k;
}
