/* Symbol tables read ahead of need, on a thread of their own.
 *
 * Reading /proc/kallsyms or a large binary's symbols takes milliseconds
 * to tens of them, and the thread resolving samples would otherwise stop
 * for each. The loader reads kallsyms and, in the order they are asked
 * for, the binaries whose mappings the reading thread has seen:
 * by the time a sample needs one, its table is usually there. A table
 * not begun yet is read on the caller's thread when it is taken. One
 * table is built at a time, whichever thread builds it. */
#ifndef TD_SYMBOL_LOADER_H
#define TD_SYMBOL_LOADER_H

#include <stdbool.h>
#include "parsers/elf_symbols.h"
#include "parsers/kallsyms.h"

/* Where a binary's symbols are looked for: the build-id cache (its
 * debug file first, as perf), then the path under symfs. */
struct symbol_places {
	const char *buildid_dir;     /* ~/.debug */
	const char *symfs;           /* NULL: / */
};

/* The symbols of binary name (a vdso when vdso) with the build id
 * ("" when none was recorded); NULL when no readable file matches. */
struct elf_symbols *symbol_places_load(const struct symbol_places *p, const char *name, const char *build_id,
				       bool vdso);

struct symbol_loader;

/* Starts reading kallsyms_path (NULL: no kernel) and the binaries asked
 * for, each on a thread. NULL when no thread can be started. The strings
 * must outlive the loader. */
struct symbol_loader *symbol_loader_start(const char *kallsyms_path, const struct symbol_places *p);
/* Stops the thread; tables never taken are freed. */
void symbol_loader_stop(struct symbol_loader *l);

/* kallsyms as read (NULL if unreadable), waiting for them; the caller
 * owns them. Only once. */
struct kallsyms *symbol_loader_kallsyms(struct symbol_loader *l);
/* Whether symbol_loader_kallsyms() would return at once. */
bool symbol_loader_kallsyms_ready(struct symbol_loader *l);

/* Asks for a binary's symbols (any thread; a name asked for again is
 * ignored). */
void symbol_loader_want(struct symbol_loader *l, const char *name, const char *build_id, bool vdso);
/* Whether name was asked for already (want() would ignore it). */
bool symbol_loader_asked(struct symbol_loader *l, const char *name);
/* The binary's table when it was asked for with this build id (waiting
 * for it, or reading it now when not begun): true, *out set (NULL: none
 * found), and the caller owns it. false when it was not asked for: the
 * caller reads it. */
bool symbol_loader_take(struct symbol_loader *l, const char *name, const char *build_id, struct elf_symbols **out);

#endif
