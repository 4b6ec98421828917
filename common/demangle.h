/* Symbol names as perf shows them for user-space binaries.
 *
 * perf demangles every ELF symbol it loads (not kernel ones) with
 * libiberty's cplus_demangle and no options: C++ names lose their
 * parameter lists ("ns::Box<long>::get", not "...::get(int) const"), Rust
 * names lose their hash; names libiberty does not know stay as they are,
 * except OCaml's ("camlModule__fn_123" -> "Module.fn_123", "$xx" is the
 * byte 0xxx). tdkit uses the same library for the same bytes. */
#ifndef TD_DEMANGLE_H
#define TD_DEMANGLE_H

/* The demangled name (malloc'd, the caller frees it), or NULL when name
 * is not mangled. */
char *td_demangle(const char *name);

#endif
