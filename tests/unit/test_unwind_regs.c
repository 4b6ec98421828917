/* The sampled user registers as DWARF registers: perf's x86_64 and
 * aarch64 layouts (arch/<arch>/include/uapi/asm/perf_regs.h) against the
 * DWARF numbering libdw unwinds with. */
#include <elf.h>
#include <string.h>
#include "analysis/unwind_user.h"
#include "tap.h"

/* A register block as perf writes it: the value of each bit of mask,
 * lowest bit first; here each register's value is 1000 + its perf id. */
static size_t block(uint64_t mask, unsigned char *out)
{
	size_t n = 0;
	for (int id = 0; id < 64; id++)
		if (mask >> id & 1) {
			uint64_t v = 1000 + (uint64_t)id;
			memcpy(out + 8 * n++, &v, 8);
		}
	return n;
}

int main(void)
{
	unsigned char regs[64 * 8];
	uint64_t dwarf[64], pc, sp;
	int n;

	/* x86_64: perf records AX..SS and R8..R15 (mask 0xff0fff) with --call-graph dwarf */
	block(0xff0fffULL, regs);
	ok(unwind_user_regs(EM_X86_64, regs, 0xff0fffULL, dwarf, &n, &pc, &sp), "x86_64: the regs perf samples suffice");
	ok(n == 17, "x86_64: 17 DWARF registers (rax..r15, rip)");
	ok(dwarf[0] == 1000 && dwarf[1] == 1003 && dwarf[2] == 1002 && dwarf[3] == 1001,
	   "x86_64: DWARF rax, rdx, rcx, rbx = perf AX(0), DX(3), CX(2), BX(1)");
	ok(dwarf[4] == 1004 && dwarf[5] == 1005 && dwarf[6] == 1006 && dwarf[7] == 1007,
	   "x86_64: DWARF rsi, rdi, rbp, rsp = perf SI, DI, BP, SP (4..7)");
	ok(dwarf[8] == 1016 && dwarf[15] == 1023, "x86_64: DWARF r8..r15 = perf R8..R15 (16..23), past the unsampled DS..GS");
	ok(dwarf[16] == 1008 && pc == 1008 && sp == 1007, "x86_64: rip (DWARF 16) and the pc = perf IP (8), sp = SP (7)");
	ok(!unwind_user_regs(EM_X86_64, regs, 0xff0fffULL & ~(1ULL << 6), dwarf, &n, &pc, &sp),
	   "x86_64: a register missing from the sample: no unwinding");

	/* aarch64: perf's x0..x30, sp, pc are 0..32 (mask 0x1ffffffff) */
	block(0x1ffffffffULL, regs);
	ok(unwind_user_regs(EM_AARCH64, regs, 0x1ffffffffULL, dwarf, &n, &pc, &sp), "aarch64: the regs perf samples suffice");
	ok(n == 32, "aarch64: 32 DWARF registers (x0..x30, sp)");
	ok(dwarf[0] == 1000 && dwarf[29] == 1029 && dwarf[30] == 1030, "aarch64: x0, x29 (fp), x30 (lr) = perf 0, 29, 30");
	ok(dwarf[31] == 1031 && sp == 1031, "aarch64: sp (DWARF 31) = perf SP (31)");
	ok(pc == 1032, "aarch64: the pc = perf PC (32), no DWARF register of its own");
	ok(!unwind_user_regs(EM_ARM, regs, 0x1ffffffffULL, dwarf, &n, &pc, &sp), "an unknown machine: no unwinding");
	return tap_done();
}
