#include <elf.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/diag.h"
#include "common/grow.h"
#include "common/intern.h"
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

/* ---- spaces ---------------------------------------------------------------------- */

struct unwind_space {
	atomic_int refs;
	int32_t pid;
	uint32_t gen;
	size_t nmods, nmaps;
	struct machine_module *mods;     /* names and paths: the machine's strings */
	struct machine_user_map *maps;
};

struct unwind_space *unwind_space_new(struct machine *m, int32_t pid)
{
	const struct machine_module *mods;
	const struct machine_user_map *maps;
	struct unwind_space *sp = td_calloc(1, sizeof(*sp));
	atomic_init(&sp->refs, 1);
	sp->pid = pid;
	sp->nmods = machine_modules(m, pid, &mods, &sp->gen);
	sp->nmaps = machine_user_maps(m, pid, mods, sp->nmods, &maps);
	sp->mods = td_malloc((sp->nmods + 1) * sizeof(*sp->mods));
	if (sp->nmods)                  /* a process whose maps were let go has none (NULL) */
		memcpy(sp->mods, mods, sp->nmods * sizeof(*sp->mods));
	sp->maps = td_malloc((sp->nmaps + 1) * sizeof(*sp->maps));
	if (sp->nmaps)
		memcpy(sp->maps, maps, sp->nmaps * sizeof(*sp->maps));
	return sp;
}

struct unwind_space *unwind_space_ref(struct unwind_space *sp)
{
	atomic_fetch_add_explicit(&sp->refs, 1, memory_order_relaxed);
	return sp;
}

void unwind_space_unref(struct unwind_space *sp)
{
	if (!sp || atomic_fetch_sub_explicit(&sp->refs, 1, memory_order_acq_rel) != 1)
		return;
	free(sp->mods);
	free(sp->maps);
	free(sp);
}

uint32_t unwind_space_gen(const struct unwind_space *sp)
{
	return sp->gen;
}

/* ---- one thread's state ---------------------------------------------------------- */

#define PROC_SLOTS 64

/* A binary opened once per unwinder: every dwfl of the thread gets a
 * reference to the same Elf (so its file is mapped and its pages are
 * read once), and reads of its bytes come from that mapping. */
struct binary {
	int fd;                       /* -1: could not be opened */
	Elf *elf;
	const char *image;            /* the whole file (NULL: read it with pread) */
	size_t size;
};

struct unwinder {
	int e_machine;
	Dwfl_Callbacks callbacks;
	struct td_intern *paths;      /* path -> index into bins */
	struct binary **bins;         /* each allocated alone: modules point to them */
	size_t bins_cap;
	struct proc {
		int32_t pid;
		uint32_t gen;
		bool used, usable;        /* usable: a binary of the machine is mapped */
		Dwfl *dwfl;
	} procs[PROC_SLOTS];
	/* the sample being unwound */
	const struct unwind_space *sp;
	const struct pd_sample *s;
	uint64_t mask, sp_reg;
	unsigned step_reads;          /* memory reads since the last frame */
	Dwarf_Addr last_pc;           /* the last frame's, in last_mod */
	Dwfl_Module *last_mod;
	uint64_t last_read;
	uint64_t *ips;
	size_t n, max;
};

static struct binary *binary_of(struct unwinder *u, const char *path)
{
	uint32_t n = td_intern_count(u->paths);
	uint32_t id = td_intern(u->paths, path, strlen(path));
	if (id < n)
		return u->bins[id];
	TD_ALLOC_GROW(u->bins, (size_t)id + 1, u->bins_cap);
	struct binary *b = u->bins[id] = td_malloc(sizeof(*b));
	*b = (struct binary){ open(path, O_RDONLY | O_CLOEXEC), NULL, NULL, 0 };
	if (b->fd >= 0)
		b->elf = elf_begin(b->fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (b->elf && elf_kind(b->elf) != ELF_K_ELF) {
		elf_end(b->elf);
		b->elf = NULL;
	}
	if (b->elf)
		b->image = elf_rawfile(b->elf, &b->size);
	return b;
}

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file, (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

/* The module's Elf: a new reference to the unwinder's (the module's
 * userdata is its binary). */
static int shared_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
		      Elf **elfp)
{
	(void)mod, (void)modname, (void)base;
	struct binary *b = *userdata;
	*elfp = b && b->elf ? elf_begin(-1, ELF_C_READ_MMAP_PRIVATE, b->elf) : NULL;
	*file_name = NULL;
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

/* Process memory outside the stack copy, read as machine_read_user reads
 * it: -1 where no map covers addr, else the bytes of the binary mapped
 * there, zero when there is none or it is too short. */
static int space_read(struct unwinder *u, uint64_t addr, uint64_t *val)
{
	const struct unwind_space *sp = u->sp;
	size_t lo = 0, hi = sp->nmaps;
	while (lo < hi) {                /* the first map starting after addr */
		size_t mid = lo + (hi - lo) / 2;
		if (sp->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= sp->maps[lo - 1].end)
		return -1;
	const struct machine_user_map *mp = &sp->maps[lo - 1];
	*val = 0;
	if (mp->module < 0)
		return 0;
	struct binary *b = binary_of(u, sp->mods[mp->module].path);
	uint64_t off = addr - mp->start + mp->pgoff, v;
	if (b->image) {
		if (b->size >= 8 && off <= b->size - 8) {
			memcpy(&v, b->image + off, 8);
			*val = v;
		}
	} else if (b->fd >= 0 && pread(b->fd, &v, sizeof v, (off_t)off) == (ssize_t)sizeof v) {
		*val = v;
	}
	return 0;
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
	if (addr >= u->sp_reg && addr + 8 > addr && addr + 8 < u->sp_reg + size)
		memcpy(&v, u->s->stack_user + (addr - u->sp_reg), 8);
	else if (space_read(u, addr, &v) != 0)
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

struct unwinder *unwinder_new(int e_machine)
{
	struct unwinder *u = td_calloc(1, sizeof(*u));
	u->e_machine = e_machine;
	u->callbacks.find_elf = shared_elf;
	u->callbacks.find_debuginfo = no_debuginfo;
	u->paths = td_intern_new();
	elf_version(EV_CURRENT);
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (int i = 0; i < PROC_SLOTS; i++)
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
	for (uint32_t i = 0; i < td_intern_count(u->paths); i++) {
		if (u->bins[i]->elf)
			elf_end(u->bins[i]->elf);
		if (u->bins[i]->fd >= 0)
			close(u->bins[i]->fd);
		free(u->bins[i]);
	}
	free(u->bins);
	td_intern_free(u->paths);
	free(u);
}

/* The addresses a binary mapped with load bias bias covers, as
 * dwfl_report_elf computes them: from its first PT_LOAD (aligned down)
 * to the end of its last. */
static bool elf_range(Elf *elf, uint64_t bias, uint64_t *start, uint64_t *end)
{
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum) != 0)
		return false;
	bool first = true;
	*start = *end = 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			return false;
		if (ph.p_type != PT_LOAD)
			continue;
		if (first)
			*start = bias + (ph.p_vaddr & -ph.p_align);
		first = false;
		if (ph.p_vaddr + ph.p_memsz > 0)
			*end = bias + ph.p_vaddr + ph.p_memsz;
	}
	return *end != 0;
}

/* The process's binaries reported at their places; modules that did not
 * move since the last report are kept with their CFI. */
static bool report_space(struct unwinder *u, Dwfl *dwfl, const struct unwind_space *sp, Elf **first)
{
	dwfl_report_begin(dwfl);
	bool any = false;
	*first = NULL;
	for (size_t i = 0; i < sp->nmods; i++) {
		const struct machine_module *mod = &sp->mods[i];
		struct binary *b = binary_of(u, mod->path);
		GElf_Ehdr eh;
		uint64_t start, end;
		if (!b->elf || !gelf_getehdr(b->elf, &eh) || eh.e_type == ET_REL ||
		    !elf_range(b->elf, mod->bias, &start, &end))
			continue;
		Dwfl_Module *m = dwfl_report_module(dwfl, mod->name, start, end);
		if (!m)
			continue;
		void **userdata;
		dwfl_module_info(m, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		*userdata = b;
		any |= eh.e_machine == u->e_machine;
		size_t len = strlen(mod->name);
		if (!*first && strncmp(mod->name, "[vdso: ", 7) != 0 &&
		    (len < 10 || strcmp(mod->name + len - 10, " (deleted)") != 0))
			*first = b->elf;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	return any;
}

static struct proc *proc_of(struct unwinder *u, int32_t pid, const struct unwind_space *sp)
{
	struct proc *p = &u->procs[(uint32_t)pid % PROC_SLOTS];
	if (p->used && p->pid == pid && p->gen == sp->gen)
		return p;
	if (p->dwfl && p->pid != pid) {
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
	}
	p->pid = pid;
	p->gen = sp->gen;
	p->used = true;
	p->usable = false;
	if (!p->dwfl)
		p->dwfl = dwfl_begin(&u->callbacks);
	if (!p->dwfl)
		return p;
	Elf *first;
	bool any = report_space(u, p->dwfl, sp, &first);
	/* the machine's backend from the first binary, as dwfl_attach_state
	 * takes it, but owned by the process: the module it would come from
	 * may be gone with a later report */
	p->usable = any && (dwfl_pid(p->dwfl) > 0 || dwfl_attach_state(p->dwfl, first, pid, &thread_callbacks, u));
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

size_t unwind_user(struct unwinder *u, const struct unwind_space *sp, const struct pd_sample *s, uint64_t mask,
		   uint64_t *ips, size_t max)
{
	if (!s->regs_user || !s->regs_user_abi || !s->stack_user_size || !s->stack_user_dyn_size || max == 0)
		return 0;
	u->sp = sp;
	u->s = s;
	u->mask = mask;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	uint64_t regs[64], pc = 0;
	int nregs;
	/* perf sets up unwinding for a process once one of its binaries can
	 * be read: before that (or never), its samples get no user frames,
	 * not even the sampled ip */
	struct proc *p = proc_of(u, sp->pid, sp);
	if (!p->usable)
		return 0;
	if (!unwind_user_regs(u->e_machine, s->regs_user, mask, regs, &nregs, &pc, &u->sp_reg)) {
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
