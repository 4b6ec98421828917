/* Where a binary's symbols are found, and kallsyms read ahead of need.
 *
 * Reading /proc/kallsyms takes tens of milliseconds (the kernel formats
 * it line by line), and nearly every recording has kernel frames: the
 * loader reads them on a thread of its own from the start, while the
 * samples without kernel frames go on. A binary's symbols are read where
 * they are first needed: reading ahead every binary seen mapped read
 * tables no sample needed (a system-wide compile maps 178 files, its
 * samples hit 69), on the two cores the reading and resolving threads
 * already fill. */
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

/* Starts reading kallsyms_path on a thread. NULL when
 * no thread can be started. The string must outlive the loader. */
struct symbol_loader *symbol_loader_start(const char *kallsyms_path);
/* Waits for the thread; kallsyms never taken are freed. */
void symbol_loader_stop(struct symbol_loader *l);

/* kallsyms as read (NULL if unreadable), waiting for them; the caller
 * owns them. Only once. */
struct kallsyms *symbol_loader_kallsyms(struct symbol_loader *l);
/* Whether symbol_loader_kallsyms() would return at once. */
bool symbol_loader_kallsyms_ready(struct symbol_loader *l);

#endif
