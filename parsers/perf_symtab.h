/* A binary's symbol table as perf 6.1 builds and searches it, so that
 * addresses get the names perf script prints.
 *
 * perf keeps a dso's symbols in a red-black tree keyed by start address:
 * it inserts them in symbol-table order, gives each zero-size symbol the
 * room up to the next one (the last one to the end of the next page),
 * drops all but the best of symbols sharing an address, and only then
 * inserts the PLT stubs. A stretched symbol (_init, say) can therefore
 * overlap stubs, and which of them an address gets depends on where the
 * tree's descent meets them first. This module replays those steps on
 * the same kind of tree and flattens the result into sorted, disjoint
 * ranges for binary search. Insert and fixup only record the steps; the
 * ranges replay them. */
#ifndef TD_PERF_SYMTAB_H
#define TD_PERF_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct perf_symtab;

/* What an address between lo and hi resolves to. */
struct symtab_range {
	uint64_t lo, hi;
	uint64_t start;              /* the symbol's own start (for +0xoff) */
	const char *name;
};

/* The name perf shows for a symbol's name in the file (demangled), for
 * the comparisons perf makes between symbols at one address: a malloc'd
 * string perf_symtab frees once it has measured it, or NULL when the
 * name shows as it is. Ranges carry the file's names. */
typedef char *(*symtab_name_fn)(void *ctx, const char *name);

struct perf_symtab *perf_symtab_new(symtab_name_fn shown, void *ctx);
/* Optional: the same for n names at once, handed to take(arg, i, shown)
 * one by one in any order (shown as the name function's result for
 * names[i]), asked for the symbols sharing a start before perf's
 * comparisons of them, so that a file's names can be read in its order. */
typedef void (*symtab_take_fn)(void *arg, size_t i, char *shown);
typedef void (*symtab_names_fn)(void *ctx, const char *const *names, size_t n, symtab_take_fn take, void *arg);
void perf_symtab_shown_batch(struct perf_symtab *t, symtab_names_fn shown_all);
void perf_symtab_free(struct perf_symtab *t);

/* bind is the ELF binding (STB_LOCAL, STB_GLOBAL, STB_WEAK); name must
 * stay valid as long as the ranges are used. */
/* Room for n symbols at once (a table's count is known before it is read;
 * room never written is never paged in). */
void perf_symtab_reserve(struct perf_symtab *t, size_t n);
void perf_symtab_insert(struct perf_symtab *t, uint64_t start, uint64_t size, int bind, const char *name);
/* perf's fix-ups after loading a symbol table: ends, then duplicates. */
void perf_symtab_fixup(struct perf_symtab *t);
/* The ranges (malloc'd, sorted, disjoint); returns their count. When no
 * two symbols overlap after the fix-ups (nearly always) the tree's shape
 * cannot matter and is not built. The ranges are made once: the symbols
 * may be let go as they are made (only perf_symtab_free follows). */
size_t perf_symtab_ranges(struct perf_symtab *t, struct symtab_range **out);
/* The same ranges handed to emit one at a time in order (no array of
 * them is made); returns their count. */
typedef void (*symtab_range_fn)(void *ctx, const struct symtab_range *r);
size_t perf_symtab_each_range(struct perf_symtab *t, symtab_range_fn emit, void *ctx);
/* The same, always through the replayed tree (for tests). */
size_t perf_symtab_ranges_replayed(struct perf_symtab *t, struct symtab_range **out);

#endif
