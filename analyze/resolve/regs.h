/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/regs.h - sampled registers (regs.c): how perf numbers
 * each architecture's registers and which DWARF register each one is.
 */
#ifndef AMB_ANALYZE_REGS_H
#define AMB_ANALYZE_REGS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * How one architecture's sampled registers map to DWARF registers.  perf
 * numbers them as arch/<arch>/include/uapi/asm/perf_regs.h does; a sample
 * carries the registers of attr.sample_regs_user in increasing bit order.
 */
struct ana_regs_arch {
	uint16_t e_machine;           /* EM_X86_64, EM_AARCH64 */
	const char *name;
	unsigned nr_dwarf;            /* DWARF registers 0 .. nr_dwarf-1 come from a sample */
	const uint8_t *perf_of_dwarf; /* [DWARF regno] = perf register index */
	unsigned perf_sp, perf_ip;    /* perf indices of the stack pointer and pc */
	unsigned dwarf_fp;            /* DWARF regno of the frame pointer */
};

/* The register mapping of ELF machine @e_machine, or NULL when amber
 * cannot unwind for it. */
const struct ana_regs_arch *ana_regs_arch(uint16_t e_machine);

/*
 * The value of perf register @perf_idx in a sample's register block
 * @regs, which holds popcount(@mask) values in increasing bit order.
 * Returns false when @mask does not include the register (or @regs is NULL).
 */
bool ana_regs_value(uint64_t mask, const uint64_t *regs, unsigned perf_idx, uint64_t *val);

#endif /* AMB_ANALYZE_REGS_H */
