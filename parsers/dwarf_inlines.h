/* The functions an address lies in, inlined ones included, from the DWARF
 * of an ELF file (libdw), named as GNU addr2line names them with `-f -i`:
 * perf 6.1 (built without libbfd) asks one addr2line process per binary
 * for the inline chain of every callchain address it shows.
 *
 * The chain is the DW_TAG_inlined_subroutine scopes containing the
 * address, innermost first, ending with the DW_TAG_subprogram they were
 * inlined into. Each is named by its linkage name (DW_AT_linkage_name on
 * the DIE, its abstract origin or specification), else DW_AT_name. A
 * DW_AT_name counts as a linkage name in C-like languages only: for the
 * innermost function of a query, binutils otherwise takes the name of the
 * ELF symbol covering the address instead, and keeps that name for the
 * function from then on when the symbol starts where the function does
 * (either way the function's name is not looked up again). An address
 * in a unit with no function DIE there (assembler) is named by the ELF
 * symbol binutils picks among the aliases there. Answers thus
 * depend on the queries made before, as they do in perf's addr2line
 * process: ask in the order perf does (first use of each address).
 *
 * Cost: a scope (a unit, a function or block with children) is read once,
 * at its first query, into an index of the code DIEs it holds by address;
 * a query then costs a binary search per nesting level. Memory grows with
 * the scopes queried (about 50 bytes per code DIE in them), not with the
 * number of queries. Units missing from .debug_aranges are indexed the
 * same way, all at the first address aranges does not place. */
#ifndef TD_DWARF_INLINES_H
#define TD_DWARF_INLINES_H

#include <stdint.h>

struct dwarf_inlines;

/* NULL when path cannot be read or holds no DWARF (no message: most
 * binaries have none). */
struct dwarf_inlines *dwarf_inlines_open(const char *path);
void dwarf_inlines_close(struct dwarf_inlines *d);

/* The names around vaddr (the file's own addresses), innermost first, at
 * most max of them; returns how many (0: no function covers vaddr).
 * sym: the ELF symbol covering vaddr (NULL: none), starting at sym_vaddr;
 * it must outlive d, as the returned strings live as long as d. */
int dwarf_inlines_at(struct dwarf_inlines *d, uint64_t vaddr, const char *sym, uint64_t sym_vaddr,
		     const char **names, int max);

#endif
