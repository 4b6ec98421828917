/* The recorded machine as perf script sees it while it replays a perf.data
 * file: threads with their comm, per-process address maps built from MMAP,
 * MMAP2, FORK and COMM records, the kernel and module maps, and the
 * binaries (dsos) behind the maps with their symbols.
 *
 * Symbols are found the way perf finds them, so that frames print the same:
 *  - a binary recorded with a build id is read only from a file with that
 *    build id: perf's build-id cache (BUILDID_DIR/.build-id/xx/rest, e.g.
 *    ~/.debug), then the path itself (under --symfs); otherwise the path;
 *  - .symtab (the file's or its /usr/lib/debug/.build-id debug file), else
 *    .dynsym; anonymous executable maps use /tmp/perf-PID.map (JIT);
 *  - the kernel from kallsyms: --kallsyms FILE, else /proc/kallsyms when
 *    the running kernel has the recorded build id (or none was recorded),
 *    else the copy in BUILDID_DIR/[kernel.kallsyms]/ID/kallsyms;
 *  - anything else stays unresolved ("[unknown]"), as in perf. */
#ifndef TD_MACHINE_H
#define TD_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include "parsers/perf_data.h"

struct machine_options {
	const char *symfs;           /* prefix of binary paths ("" or NULL: none) */
	const char *kallsyms;        /* kernel symbols file; NULL: perf's choice */
	const char *buildid_dir;     /* perf's build-id cache; NULL: $HOME/.debug */
};

/* Where an address landed. */
struct machine_frame {
	const char *sym;             /* NULL: no symbol */
	uint64_t sym_off;            /* addr - symbol start */
	const char *dso;             /* NULL: no map ("[unknown]") */
	uint64_t addr;               /* as perf prints it: map-relative for user maps */
	uint32_t sym_id;             /* dense id (0, 1, ...) naming the (sym, dso) pair: one pair
					each (a pair may have more than one) */
};

struct machine;

/* The build ids of the file's header feature are taken from d. */
struct machine *machine_new(const struct perf_data *d, const struct machine_options *o);
void machine_free(struct machine *m);

/* Apply a side-band record (MMAP, MMAP2, COMM, FORK, EXIT; others are
 * ignored). */
void machine_apply(struct machine *m, const struct pd_record *r);

/* The thread's comm as perf prints it (":TID" when never named). */
const char *machine_comm(struct machine *m, int32_t pid, int32_t tid);

/* Resolve ip in the given cpumode (PERF_RECORD_MISC_KERNEL / _USER; any
 * other mode resolves to nothing, as in perf) for process pid. */
void machine_resolve(struct machine *m, int32_t pid, int cpumode, uint64_t ip, struct machine_frame *out);
/* Resolve an address of a sample in cpumode the way perf's
 * thread__find_symbol_fb does for branch entries: where no map of that
 * mode covers it, in the mode its address belongs to (kernel from perf's
 * kernel start on: 2^63 on x86_64, else the kernel map's start once its
 * symbols loaded, else 2^63). */
void machine_resolve_fb(struct machine *m, int32_t pid, int cpumode, uint64_t ip, struct machine_frame *out);
/* A user-space ip as perf's callchains show it: the frames of the
 * functions inlined at it (perf's "(inlined)" ones: dso "inlined"),
 * innermost first, then the function itself, when the binary's debug
 * info has them (else the one frame machine_resolve gives). Returns how
 * many of out[max] were filled (at least 1). */
int machine_resolve_user(struct machine *m, int32_t pid, uint64_t ip, struct machine_frame *out, int max);

/* A binary mapped into a process, for unwinding: mapped at start..end with
 * load bias bias (runtime address - the file's own address); path is the
 * file that ran (under --symfs, or perf's build-id cache). */
struct machine_module {
	uint64_t start, end, bias;
	const char *name, *path;
};
/* The readable binaries of process pid, each once (valid until the next
 * call); *gen changes whenever its maps do. */
size_t machine_modules(struct machine *m, int32_t pid, const struct machine_module **out, uint32_t *gen);

/* machine_modules' gen of process pid, without the list. */
uint32_t machine_maps_gen(struct machine *m, int32_t pid);

/* The user maps of process pid, sorted by start, for reading its memory
 * on another thread as machine_read_user does: module is the index of the
 * map's binary in mods (what machine_modules gave for pid, just before),
 * -1 where no readable binary is mapped (reads give zero there). Valid
 * until the next call. */
struct machine_user_map {
	uint64_t start, end, pgoff;
	int module;
};
size_t machine_user_maps(struct machine *m, int32_t pid, const struct machine_module *mods, size_t nmods,
			 const struct machine_user_map **out);

/* Eight bytes of process pid's memory at addr as perf's unwinder reads
 * them outside the sampled stack: -1 when no map covers addr, else 0 and
 * the bytes of the mapped file there, or zero when it cannot be read
 * (perf's read fails then, but its unwinder is told it worked). */
int machine_read_user(struct machine *m, int32_t pid, uint64_t addr, uint64_t *val);

/* Starts fetching the cache line machine_resolve will look at first (a
 * callchain's frames are resolved one after another; their lines come in
 * parallel this way). */
void machine_prefetch(const struct machine *m, int32_t pid, int cpumode, uint64_t ip);
/* false while the kernel's symbols are being read on another thread (a
 * kernel lookup would wait for them). */
bool machine_kernel_ready(const struct machine *m);

#endif
