/* Branch stacks read from perf.data instead of perf script text, in either
 * of perf script's spellings of an entry:
 *  - brstack: 0x addresses, as -F ip,brstack prints them (file order; no
 *    symbols needed);
 *  - brstacksym: each address named as -F ip,brstacksym names it
 *    ("sym+0xoff", "[unknown]" where perf finds no symbol), the recording
 *    replayed in perf's time order with its threads, maps, binaries and
 *    kernel symbols (analysis/machine.h: the rules td-fold uses), each
 *    address looked up in the sample's cpumode, else in the mode its
 *    address belongs to (perf's thread__find_symbol_fb). */
#ifndef TD_BRANCHES_PERF_DATA_H
#define TD_BRANCHES_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include "analysis/branches.h"
#include "analysis/machine.h"
#include "parsers/perf_data.h"

struct br_perf_data_options {
	bool symbols;                    /* brstacksym's spelling, else brstack's */
	struct machine_options machine;  /* where symbols come from (symbols only) */
};

/* Every sample of the file into b (samples without a branch stack count as
 * samples); false after a bad-input message when the file is damaged. */
bool branches_read_perf_data(struct branches *b, const char *path, const struct br_perf_data_options *o);

/* addr of a sample of process pid in cpumode as perf script -F brstacksym
 * names it, NUL-terminated in buf (cut to cap - 1 bytes); returns the
 * length of the whole name, as snprintf does: cap or more means it was cut. */
size_t branches_symbol_name(struct machine *m, int32_t pid, int cpumode, uint64_t addr, char *buf, size_t cap);

#endif
