/* Function symbols of an ELF file (.symtab, else .dynsym) through libelf,
 * for turning branch addresses into "sym+0xoff" the way perf prints them. */
#ifndef TD_ELF_SYMBOLS_H
#define TD_ELF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_symbols;

/* NULL after "tool: PATH: why" (counted as bad input). */
struct elf_symbols *elf_symbols_open(const char *path);
/* The same, silent: NULL when the file cannot be read or is not ELF, and
 * an empty table (no warning) when it has no symbols. PLT stubs are read
 * from runtime, the binary itself, when path is a separate debug file
 * (NULL: from path). */
struct elf_symbols *elf_symbols_try(const char *path, const char *runtime);
/* The GNU build id of an ELF file in hex ("" if none); false if the file
 * is not a readable ELF file. */
bool elf_file_build_id(const char *path, char hex[41]);
void elf_symbols_close(struct elf_symbols *e);

/* Symbols are looked up the way perf looks them up: by offset into the
 * file (the key). The key of a runtime address, from where the file was
 * mapped (map_start, file offset pgoff of that mapping): */
uint64_t elf_symbols_key(const struct elf_symbols *e, uint64_t addr, uint64_t map_start, uint64_t pgoff);
/* The key of an address as the file itself places it (its segments'). */
uint64_t elf_symbols_key_of_vaddr(const struct elf_symbols *e, uint64_t vaddr);
/* The address the file itself gives a key (inverse of the above). */
uint64_t elf_symbols_vaddr_of_key(const struct elf_symbols *e, uint64_t key);
/* The file the symbols were read from (perf's symsrc: a debug file when
 * one was used), and the binary that ran (NULL when not known). */
const char *elf_symbols_source(const struct elf_symbols *e);
const char *elf_symbols_runtime(const struct elf_symbols *e);
/* The file name in the binary's .gnu_debuglink section; false if none. */
bool elf_file_debuglink(const char *path, char *name, size_t cap);
bool elf_symbols_is_pie(const struct elf_symbols *e);

/* "sym+0xoff" for a key; false when no symbol covers it. */
bool elf_symbols_lookup(const struct elf_symbols *e, uint64_t key, char *buf, size_t cap);
/* The symbol covering key (its name, *start its key); NULL if none. */
const char *elf_symbols_find(const struct elf_symbols *e, uint64_t key, uint64_t *start);
/* The same, with *note pointing at a number the caller keeps with the
 * symbol found (0 until the caller sets it; NULL when no symbol covers
 * key). The pointer is valid until the next lookup in e. */
const char *elf_symbols_find_noted(const struct elf_symbols *e, uint64_t key, uint64_t *start, uint32_t **note);
size_t elf_symbols_count(const struct elf_symbols *e);
/* The GNU build id in hex ("" if none). Symbols come from the file's
 * .symtab, else from /usr/lib/debug/.build-id/xx/rest.debug, else .dynsym. */
const char *elf_symbols_build_id(const struct elf_symbols *e);

#endif
