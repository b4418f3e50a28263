// SPDX-License-Identifier: MIT
/*
 * analyze/regs.c - perf's sampled user registers as DWARF registers.
 *
 * perf numbers registers per architecture (arch/x86/include/uapi/asm/
 * perf_regs.h, arch/arm64/include/uapi/asm/perf_regs.h); DWARF numbers them
 * as each psABI says (x86-64 psABI figure 3.36, AAPCS64 DWARF for the Arm
 * 64-bit architecture).  The tables here go from DWARF to perf, the way
 * libdwfl asks for the initial frame.
 */
#include <elf.h>
#include <stddef.h>

#include "analyze/resolve/regs.h"

/* perf_regs.h, x86: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15 */
enum {
	X86_AX = 0, X86_BX = 1, X86_CX = 2, X86_DX = 3, X86_SI = 4, X86_DI = 5,
	X86_BP = 6, X86_SP = 7, X86_IP = 8, X86_R8 = 16,
};

/* DWARF 0-16: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip (the return
 * address column). */
static const uint8_t x86_64_perf_of_dwarf[17] = {
	X86_AX, X86_DX, X86_CX, X86_BX, X86_SI, X86_DI, X86_BP, X86_SP,
	X86_R8 + 0, X86_R8 + 1, X86_R8 + 2, X86_R8 + 3,
	X86_R8 + 4, X86_R8 + 5, X86_R8 + 6, X86_R8 + 7,
	X86_IP,
};

/* perf_regs.h, arm64: X0..X30 (LR is X30), SP, PC.  DWARF 0-31 are x0-x30
 * and sp in the same order; the pc has no DWARF number of its own. */
enum { ARM64_SP = 31, ARM64_PC = 32 };

static const uint8_t aarch64_perf_of_dwarf[32] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, ARM64_SP,
};

static const struct ana_regs_arch arches[] = {
	{
		.e_machine = EM_X86_64,
		.name = "x86_64",
		.nr_dwarf = 17,
		.perf_of_dwarf = x86_64_perf_of_dwarf,
		.perf_sp = X86_SP,
		.perf_ip = X86_IP,
		.dwarf_fp = 6,
	},
	{
		.e_machine = EM_AARCH64,
		.name = "aarch64",
		.nr_dwarf = 32,
		.perf_of_dwarf = aarch64_perf_of_dwarf,
		.perf_sp = ARM64_SP,
		.perf_ip = ARM64_PC,
		.dwarf_fp = 29,
	},
};

const struct ana_regs_arch *ana_regs_arch(uint16_t e_machine)
{
	size_t i;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i].e_machine == e_machine)
			return &arches[i];
	return NULL;
}

bool ana_regs_value(uint64_t mask, const uint64_t *regs, unsigned perf_idx, uint64_t *val)
{
	if (!regs || perf_idx >= 64 || !(mask >> perf_idx & 1))
		return false;
	/* The block holds the masked registers in increasing bit order. */
	*val = regs[__builtin_popcountll(mask & ((1ULL << perf_idx) - 1))];
	return true;
}
