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

/* What unwinding reads of a process: its binaries and maps as the machine
 * has them at one moment. Made on the thread that replays the records,
 * read-only afterwards, so that an unwinder on any thread can use it while
 * the machine moves on; counted references (the last unref frees it). */
struct unwind_space;

struct unwind_space *unwind_space_new(struct machine *m, int32_t pid);
struct unwind_space *unwind_space_ref(struct unwind_space *sp);
void unwind_space_unref(struct unwind_space *sp);
/* Changes whenever the process's maps do (machine_modules' gen). */
uint32_t unwind_space_gen(const struct unwind_space *sp);

/* One thread's unwinding state: a dwfl per process and each binary opened
 * once (its CFI read once per process), so an unwinder is used by one
 * thread at a time. e_machine: the recording's (EM_X86_64, EM_AARCH64;
 * others unwind nothing). */
struct unwinder;

struct unwinder *unwinder_new(int e_machine);
void unwinder_free(struct unwinder *u);

/* The user addresses of sample s of the process sp holds (regs sampled
 * with mask); returns how many were written to ips (0: nothing to
 * unwind). Reads of s: regs_user, regs_user_abi, stack_user,
 * stack_user_size and stack_user_dyn_size. */
size_t unwind_user(struct unwinder *u, const struct unwind_space *sp, const struct pd_sample *s, uint64_t mask,
		   uint64_t *ips, size_t max);

#endif
