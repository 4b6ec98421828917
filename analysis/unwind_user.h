/* User stacks of --call-graph dwarf samples unwound as perf 6.1 unwinds
 * them: the sampled user registers and the copy of the stack above the
 * stack pointer, walked frame by frame with each binary's CFI (.eh_frame,
 * else .debug_frame) through libdw's dwfl.
 *
 * The result is the list of addresses perf puts in the callchain: the
 * sampled ip, then each caller's return address minus one (so that it
 * lies in the call instruction's line and function), zeros left out,
 * at most max_stack of them. The walk stops where perf's stops: at a
 * frame whose address no readable binary covers (no CFI to go on), at
 * the end of the CFI (the return address undefined, as in _start); a
 * walk cut short otherwise (a return address of zero, or out of the
 * copied stack) ends with an address of -1, as perf's libunwind leaves
 * it. A process none of whose binaries can be read gets no user frames
 * at all. */
#ifndef TD_UNWIND_USER_H
#define TD_UNWIND_USER_H

#include <stddef.h>
#include <stdint.h>
#include "analysis/machine.h"
#include "parsers/perf_data.h"

/* The DWARF register file of a sample's user registers (perf's layout
 * for the ELF machine e_machine: EM_X86_64 or EM_AARCH64). regs holds
 * the values of the bits of mask, lowest bit first, 8 bytes each, in the
 * file's byte order already; *nregs DWARF registers are written to
 * dwarf (room for 64) and the pc to *pc. false when the machine is not
 * known or a register the walk needs was not sampled. */
bool unwind_user_regs(int e_machine, const unsigned char *regs, uint64_t mask, uint64_t *dwarf, int *nregs,
		      uint64_t *pc, uint64_t *sp);

struct unwinder;

/* e_machine: the recording's (EM_X86_64, EM_AARCH64; others unwind nothing). */
struct unwinder *unwinder_new(struct machine *m, int e_machine);
void unwinder_free(struct unwinder *u);

/* The user addresses of sample s of process pid (regs sampled with
 * mask); returns how many were written to ips (0: nothing to unwind). */
size_t unwind_user(struct unwinder *u, int32_t pid, const struct pd_sample *s, uint64_t mask, uint64_t *ips,
		   size_t max);

#endif
