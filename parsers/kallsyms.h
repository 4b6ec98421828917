/* Kernel symbols from a kallsyms file ("ADDR TYPE NAME [MODULE]" per line:
 * /proc/kallsyms, or the copy perf keeps in ~/.debug), kept the way perf
 * keeps them: only text, weak, data and bss symbols (types T W D B, either
 * case); of several at one address the one perf shows; each reaching to
 * the next symbol; kernel and module symbols in separate tables. */
#ifndef TD_KALLSYMS_H
#define TD_KALLSYMS_H

#include <stdbool.h>
#include <stdint.h>

struct kallsyms;

/* The file may be gzip or zstd compressed. NULL when it cannot be read
 * or holds no usable symbol (silent: a missing kallsyms only means frames
 * stay [unknown], as in perf). */
struct kallsyms *kallsyms_load(const char *path);
void kallsyms_free(struct kallsyms *k);

/* The symbol covering addr, in the kernel proper (module NULL) or in the
 * module of that name (without brackets); NULL if none. *start gets the
 * symbol's address. */
const char *kallsyms_find(const struct kallsyms *k, const char *module, uint64_t addr, uint64_t *start);
/* The address of _text or _stext (perf's relocation reference); false if absent. */
bool kallsyms_addr_of(const struct kallsyms *k, const char *name, uint64_t *addr);
/* Move every symbol by -delta (the kernel was relocated at boot, KASLR). */
void kallsyms_relocate(struct kallsyms *k, uint64_t delta);

/* Where the last kernel (not module) symbol ends. */
uint64_t kallsyms_kernel_end(const struct kallsyms *k);

#endif
