#include <elf.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "unwind_user.h"

/* perf's register numbers (arch/<arch>/include/uapi/asm/perf_regs.h) of
 * the DWARF registers 0..n-1, and of the pc and stack pointer. */
struct reg_layout {
	int e_machine;
	int nregs;
	signed char dwarf[40];        /* -1: none */
	int pc, sp;
	bool pc_is_dwarf;             /* the pc is DWARF register nregs - 1 (x86_64's rip, 16) */
};

enum { X86_AX, X86_BX, X86_CX, X86_DX, X86_SI, X86_DI, X86_BP, X86_SP, X86_IP, X86_R8 = 16 };

static const struct reg_layout layouts[] = {
	{ EM_X86_64, 17,
	  { X86_AX, X86_DX, X86_CX, X86_BX, X86_SI, X86_DI, X86_BP, X86_SP, X86_R8, X86_R8 + 1, X86_R8 + 2, X86_R8 + 3,
	    X86_R8 + 4, X86_R8 + 5, X86_R8 + 6, X86_R8 + 7, X86_IP },
	  X86_IP, X86_SP, true },
	/* x0..x30 and sp are perf's 0..31 in order, pc is 32 */
	{ EM_AARCH64, 32,
	  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
	    29, 30, 31 },
	  32, 31, false },
};

static bool reg_value(const unsigned char *regs, uint64_t mask, int id, uint64_t *v)
{
	if (id < 0 || id > 63 || !(mask >> id & 1))
		return false;
	int at = __builtin_popcountll(mask & ((1ULL << id) - 1));
	memcpy(v, regs + 8 * at, 8);
	return true;
}

bool unwind_user_regs(int e_machine, const unsigned char *regs, uint64_t mask, uint64_t *dwarf, int *nregs,
		      uint64_t *pc, uint64_t *sp)
{
	for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++) {
		const struct reg_layout *l = &layouts[i];
		if (l->e_machine != e_machine)
			continue;
		for (int r = 0; r < l->nregs; r++)
			if (!reg_value(regs, mask, l->dwarf[r], &dwarf[r]))
				return false;
		*nregs = l->nregs;
		return reg_value(regs, mask, l->pc, pc) && reg_value(regs, mask, l->sp, sp);
	}
	return false;
}

#define PROC_SLOTS 16

struct unwinder {
	struct machine *m;
	Dwfl_Callbacks callbacks;
	struct proc {
		int32_t pid;
		uint32_t gen;
		bool used;
		Dwfl *dwfl;               /* NULL: nothing readable to unwind with */
	} procs[PROC_SLOTS];
	/* the sample being unwound */
	const struct pd_sample *s;
	uint64_t mask, sp;
	int32_t pid;
	int e_machine;
	unsigned step_reads;          /* memory reads since the last frame */
	Dwarf_Addr last_pc;           /* the last frame's, in last_mod */
	Dwfl_Module *last_mod;
	uint64_t last_read;
	uint64_t *ips;
	size_t n, max;
};

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file, (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	*thread_argp = arg;
	return tid == 1;
}

/* The stack copy holds [sp, sp + size); as in perf, its last word is not
 * read from it. Other addresses are read as perf reads them: from the
 * file mapped there, zero when that fails, an error where nothing is
 * mapped. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	struct unwinder *u = arg;
	uint64_t size = u->s->stack_user_dyn_size < u->s->stack_user_size ? u->s->stack_user_dyn_size : u->s->stack_user_size;
	uint64_t v;
	if (addr >= u->sp && addr + 8 > addr && addr + 8 < u->sp + size)
		memcpy(&v, u->s->stack_user + (addr - u->sp), 8);
	else if (machine_read_user(u->m, u->pid, addr, &v) != 0)
		return false;
	*result = v;
	u->step_reads++;
	u->last_read = v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	uint64_t regs[64], pc, sp;
	int n;
	if (!unwind_user_regs(u->e_machine, u->s->regs_user, u->mask, regs, &n, &pc, &sp))
		return false;
	Dwarf_Word w[64];
	for (int i = 0; i < n; i++)
		w[i] = regs[i];
	if (!dwfl_thread_state_registers(thread, 0, (unsigned)n, w))
		return false;
	dwfl_thread_state_register_pc(thread, pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct unwinder *unwinder_new(struct machine *m, int e_machine)
{
	struct unwinder *u = td_calloc(1, sizeof(*u));
	u->m = m;
	u->e_machine = e_machine;
	u->callbacks.find_elf = dwfl_build_id_find_elf;
	u->callbacks.find_debuginfo = no_debuginfo;
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (int i = 0; i < PROC_SLOTS; i++)
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
	free(u);
}

/* A dwfl holding the process's binaries at their places. */
static Dwfl *process_dwfl(struct unwinder *u, int32_t pid, const struct machine_module *mods, size_t n, int e_machine)
{
	Dwfl *dwfl = dwfl_begin(&u->callbacks);
	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		Dwfl_Module *mod = dwfl_report_elf(dwfl, mods[i].name, mods[i].path, -1, mods[i].bias, true);
		if (!mod)
			continue;
		GElf_Addr bias;
		Elf *elf = dwfl_module_getelf(mod, &bias);
		GElf_Ehdr eh;
		if (elf && gelf_getehdr(elf, &eh) && eh.e_machine == e_machine)
			any = true;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (!any || !dwfl_attach_state(dwfl, NULL, pid, &thread_callbacks, u)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

static struct proc *proc_of(struct unwinder *u, int32_t pid)
{
	const struct machine_module *mods;
	uint32_t gen;
	size_t n = machine_modules(u->m, pid, &mods, &gen);
	struct proc *p = &u->procs[(uint32_t)pid % PROC_SLOTS];
	if (p->used && p->pid == pid && p->gen == gen)
		return p;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	*p = (struct proc){ pid, gen, true, NULL };
	p->dwfl = process_dwfl(u, pid, mods, n, u->e_machine);
	return p;
}

static int on_frame(Dwfl_Frame *frame, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (u->n > 0 && !activation)
		pc--;
	if (pc)
		u->ips[u->n++] = pc;
	u->step_reads = 0;
	if (u->n >= u->max)
		return DWARF_CB_ABORT;
	/* no binary here: perf's unwinder has no CFI to go on and stops */
	Dwfl_Thread *t = dwfl_frame_thread(frame);
	Dwfl_Module *mod = dwfl_addrmodule(dwfl_thread_dwfl(t), pc);
	if (!mod)
		return DWARF_CB_ABORT;
	u->last_pc = pc;
	u->last_mod = mod;
	return DWARF_CB_OK;
}

/* Whether the CFI of pc leaves the return address undefined (the end of
 * the stack, as in _start); false also when there is no CFI for pc. */
static bool ends_stack(Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Addr bias;
	Dwarf_Frame *frame;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0) {
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
			return false;
	}
	Dwarf_Op ops_mem[3], *ops;
	size_t nops;
	int ra = dwarf_frame_info(frame, NULL, NULL, NULL);
	bool undefined = ra >= 0 && dwarf_frame_register(frame, ra, ops_mem, &ops, &nops) == 0 && nops == 0 && ops == ops_mem;
	free(frame);
	return undefined;
}

size_t unwind_user(struct unwinder *u, int32_t pid, const struct pd_sample *s, uint64_t mask, uint64_t *ips, size_t max)
{
	if (!s->regs_user || !s->regs_user_abi || !s->stack_user_size || !s->stack_user_dyn_size || max == 0)
		return 0;
	struct proc *p = proc_of(u, pid);
	u->s = s;
	u->pid = pid;
	u->mask = mask;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	uint64_t regs[64], pc = 0;
	int nregs;
	/* perf sets up unwinding for a process once one of its binaries can
	 * be read: before that (or never), its samples get no user frames,
	 * not even the sampled ip */
	if (!p->dwfl)
		return 0;
	if (!unwind_user_regs(u->e_machine, s->regs_user, mask, regs, &nregs, &pc, &u->sp)) {
		if (pc)
			ips[u->n++] = pc;
		return u->n;
	}
	u->step_reads = 0;
	u->last_mod = NULL;
	int rc = dwfl_getthread_frames(p->dwfl, 1, on_frame, u);
	/* The walk ended other than at the end the CFI marks (an undefined
	 * return address): on a return address of zero (the last register a
	 * step reads), or with the return address out of reach. perf's
	 * libunwind makes a last frame of address zero then, which shows as
	 * -1 (zero minus one), [unknown]. */
	if (rc == 0 && u->n > 0 && u->n < max && u->last_mod &&
	    ((u->step_reads && u->last_read == 0) || (!u->step_reads && !ends_stack(u->last_mod, u->last_pc))))
		ips[u->n++] = (uint64_t)0 - 1;
	if (u->n == 0 && pc)
		ips[u->n++] = pc;
	return u->n;
}
