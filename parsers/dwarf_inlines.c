#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/diag.h"
#include "common/grow.h"
#include "common/intern.h"
#include "common/plain.h"
#include "common/sorted.h"
#include "dwarf_inlines.h"

/* What binutils remembers of a function DIE once a query met it. */
struct fn_state {
	Dwarf_Off off;               /* 0: empty slot */
	const char *name;
	bool linkage;                /* the name is final */
};

/* The code DIEs a scope holds (see innermost), indexed by address. */
struct scope_index {
	struct scope_entry {
		Dwarf_Die die;
		uint32_t skip_to;            /* the first entry past its enclosing non-code DIE */
		bool direct;                 /* a child of the scope itself */
		bool function, children;
	} *entry;
	size_t nentries, entries_cap;
	struct scope_span {
		uint64_t lo, hi;
		uint64_t reach;              /* the largest hi of this span and those before it */
		uint32_t entry;
	} *span;                         /* sorted by lo */
	size_t nspans, spans_cap;
};

struct dwarf_inlines {
	int fd;
	Elf *elf;
	Dwarf *dbg;
	struct fn_state *fn;
	size_t nfn, fn_cap;
	bool plain;                      /* td_plain(): every query walks the DIEs */
	struct td_intern *scope_ids;     /* a scope DIE's offset -> index into scopes */
	struct scope_index **scopes;
	size_t scopes_cap;
	struct scope_index *units;       /* every unit's own ranges, for cu_by_scan */
	uint32_t *hits;                  /* entries containing the address, a run per scope being searched */
	size_t nhits, hits_cap;
};

static void scope_index_free(struct scope_index *x)
{
	if (!x)
		return;
	free(x->entry);
	free(x->span);
	free(x);
}

/* libdw decompresses every compressed debug section it knows when it
 * opens a file (all of libc6-dbg's are): the line tables and location
 * lists, which naming functions never reads, are hidden from it first
 * (marked SHT_NOBITS in this process's private copy of the headers, which
 * libdw skips). */
static void drop_unused_sections(Elf *elf)
{
	static const char *const unused[] = { ".debug_line", ".debug_loc", ".debug_loclists", ".zdebug_line", ".zdebug_loc" };
	size_t shstrndx;
	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		bool compressed = (sh.sh_flags & SHF_COMPRESSED) || strncmp(name, ".zdebug", 7) == 0;
		for (size_t i = 0; compressed && i < sizeof unused / sizeof *unused; i++)
			if (strcmp(name, unused[i]) == 0) {
				sh.sh_type = SHT_NOBITS;
				gelf_update_shdr(scn, &sh);
			}
	}
}

struct dwarf_inlines *dwarf_inlines_open(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (elf)
		drop_unused_sections(elf);
	Dwarf *dbg = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	if (!dbg) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	struct dwarf_inlines *d = td_calloc(1, sizeof(*d));
	d->fd = fd;
	d->elf = elf;
	d->dbg = dbg;
	d->plain = td_plain();
	d->scope_ids = td_intern_new();
	return d;
}

void dwarf_inlines_close(struct dwarf_inlines *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < td_intern_count(d->scope_ids); i++)
		scope_index_free(d->scopes[i]);
	scope_index_free(d->units);
	td_intern_free(d->scope_ids);
	free(d->scopes);
	free(d->hits);
	dwarf_end(d->dbg);
	elf_end(d->elf);
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

#define MAX_DEPTH 256

static bool is_function(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

static bool is_code(int tag)
{
	return is_function(tag) || tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

/* .debug_aranges may leave units out (Rust's std has none there):
 * binutils then looks through every unit's own ranges, and so does this. */
static bool cu_by_walk(struct dwarf_inlines *d, uint64_t vaddr, Dwarf_Die *cudie)
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

/* The functions containing vaddr below parent, outermost first, after
 * the n in chain; returns the new count. binutils finds them wherever
 * they are nested (LLVM puts Rust's inside namespaces and types, where
 * dwarf_getscopes does not look), and code scopes that do not contain
 * vaddr are not searched. */
static int innermost_walk(Dwarf_Die *parent, uint64_t vaddr, Dwarf_Die *chain, int n)
{
	Dwarf_Die child;
	if (n >= MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return n;
	do {
		int tag = dwarf_tag(&child);
		bool code = is_code(tag);
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
		int deeper = innermost_walk(&child, vaddr, chain, k);
		if (code || deeper > k)
			return deeper;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* ---- the same answers from an index ----------------------------------------------
 *
 * innermost_walk reads every DIE of a scope before the one it is after,
 * for every address: a unit of CPython holds thousands. A scope's index
 * lists, once, the code DIEs the walk can stop at (those reached through
 * non-code DIEs only), in DIE order, with their ranges sorted by start.
 * The walk's answer is then the first of them, in DIE order, that contains
 * the address, with the walk's one twist kept: a code DIE inside a
 * non-code one (a namespace) that yields no function ends the search of
 * that namespace only (skip_to), where one directly in the scope ends it
 * all. Under td_plain() every query walks. */

static void add_spans(struct scope_index *x, Dwarf_Die *die, uint32_t e)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;                  /* contains nothing (dwarf_haspc) */
		TD_ALLOC_GROW(x->span, x->nspans + 1, x->spans_cap);
		x->span[x->nspans++] = (struct scope_span){ start, end, 0, e };
	}
}

static void add_entry(struct scope_index *x, Dwarf_Die *die, bool direct, bool function, bool children)
{
	TD_ALLOC_GROW(x->entry, x->nentries + 1, x->entries_cap);
	uint32_t e = (uint32_t)x->nentries++;
	x->entry[e] = (struct scope_entry){ *die, UINT32_MAX, direct, function, children };
	add_spans(x, die, e);
}

/* The code DIEs below parent as innermost_walk meets them. */
static void collect_scope(struct scope_index *x, Dwarf_Die *parent, bool direct)
{
	Dwarf_Die child;
	if (dwarf_child(parent, &child) != 0)
		return;
	size_t first = x->nentries;
	do {
		int tag = dwarf_tag(&child);
		if (is_code(tag))
			add_entry(x, &child, direct, is_function(tag), dwarf_haschildren(&child) > 0);
		else if (dwarf_haschildren(&child) > 0)
			collect_scope(x, &child, false);
	} while (dwarf_siblingof(&child, &child) == 0);
	for (size_t i = first; !direct && i < x->nentries; i++)
		if (x->entry[i].skip_to == UINT32_MAX)
			x->entry[i].skip_to = (uint32_t)x->nentries;
}

static int span_order(const void *a, const void *b)
{
	const struct scope_span *p = a, *q = b;
	if (p->lo != q->lo)
		return p->lo < q->lo ? -1 : 1;
	return p->entry < q->entry ? -1 : p->entry > q->entry;
}

static void sort_spans(struct scope_index *x)
{
	if (x->nspans)
		qsort(x->span, x->nspans, sizeof *x->span, span_order);
	uint64_t reach = 0;
	for (size_t i = 0; i < x->nspans; i++) {
		reach = x->span[i].hi > reach ? x->span[i].hi : reach;
		x->span[i].reach = reach;
	}
}

/* The index of the scope DIE die, made on first use. */
static struct scope_index *scope_of(struct dwarf_inlines *d, Dwarf_Die *die)
{
	uint32_t n = td_intern_count(d->scope_ids);
	uint32_t id = td_intern(d->scope_ids, (const char *)&die->addr, sizeof die->addr);
	if (id < n)
		return d->scopes[id];
	TD_ALLOC_GROW(d->scopes, (size_t)id + 1, d->scopes_cap);
	struct scope_index *x = d->scopes[id] = td_calloc(1, sizeof(*x));
	collect_scope(x, die, true);
	sort_spans(x);
	return x;
}

/* Appends to d->hits the entries of x whose ranges contain vaddr, in DIE
 * order, each once; returns how many. */
static size_t hits_at(struct dwarf_inlines *d, const struct scope_index *x, uint64_t vaddr)
{
	size_t last = td_count_at_or_before(x->span, x->nspans, sizeof *x->span, offsetof(struct scope_span, lo), vaddr);
	size_t lo = 0, hi = last;          /* the first span reaching past vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->span[mid].reach > vaddr)
			hi = mid;
		else
			lo = mid + 1;
	}
	size_t base = d->nhits;
	for (size_t i = lo; i < last; i++) {
		if (x->span[i].hi <= vaddr)
			continue;
		uint32_t e = x->span[i].entry;
		size_t j = d->nhits;
		TD_ALLOC_GROW(d->hits, d->nhits + 1, d->hits_cap);
		while (j > base && d->hits[j - 1] > e)      /* few: insertion keeps DIE order */
			j--;
		if (j > base && d->hits[j - 1] == e)
			continue;
		memmove(d->hits + j + 1, d->hits + j, (d->nhits - j) * sizeof *d->hits);
		d->hits[j] = e;
		d->nhits++;
	}
	return d->nhits - base;
}

/* innermost_walk's answer from the scopes' indexes. */
static int innermost(struct dwarf_inlines *d, Dwarf_Die *parent, uint64_t vaddr, Dwarf_Die *chain, int n)
{
	if (d->plain)
		return innermost_walk(parent, vaddr, chain, n);
	if (n >= MAX_DEPTH)
		return n;
	struct scope_index *x = scope_of(d, parent);
	size_t base = d->nhits, nhits = hits_at(d, x, vaddr);
	uint32_t from = 0;
	int result = n;
	for (size_t h = base; h < base + nhits; h++) {
		uint32_t e = d->hits[h];
		if (e < from)
			continue;
		struct scope_entry *en = &x->entry[e];
		int k = n;
		if (en->function)
			chain[k++] = en->die;
		int deeper = en->children ? innermost(d, &en->die, vaddr, chain, k) : k;
		if (en->direct || deeper > n) {
			result = deeper;
			break;
		}
		from = en->skip_to;
	}
	d->nhits = base;
	return result;
}

/* The first unit (in file order) whose own ranges contain vaddr. */
static bool cu_by_scan(struct dwarf_inlines *d, uint64_t vaddr, Dwarf_Die *cudie)
{
	if (d->plain)
		return cu_by_walk(d, vaddr, cudie);
	if (!d->units) {
		d->units = td_calloc(1, sizeof(*d->units));
		Dwarf_Off off = 0, next;
		size_t hsize;
		while (dwarf_nextcu(d->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			if (dwarf_offdie(d->dbg, off + hsize, cudie))
				add_entry(d->units, cudie, true, false, false);
			off = next;
		}
		sort_spans(d->units);
	}
	size_t base = d->nhits, nhits = hits_at(d, d->units, vaddr);
	if (nhits)
		*cudie = d->units->entry[d->hits[base]].die;
	d->nhits = base;
	return nhits > 0;
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
	int nchain = innermost(d, &cudie, vaddr, chain, 0);
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
