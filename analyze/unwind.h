/* SPDX-License-Identifier: MIT */
/*
 * analyze/unwind.h - DWARF call graphs: user stacks unwound offline with
 * libdwfl from the registers (PERF_SAMPLE_REGS_USER) and the stack copy
 * (PERF_SAMPLE_STACK_USER) of a sample (unwind.c), and the mapping from
 * perf's register numbering to DWARF's (regs.c).
 */
#ifndef AMB_ANALYZE_UNWIND_H
#define AMB_ANALYZE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyze.h"
#include "analyze/machine.h"

/* ---- registers (regs.c) --------------------------------------------------- */

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

/* ---- the captured stack ------------------------------------------------- */

/* A sample's user stack copy: @len readable bytes starting at address @sp. */
struct ana_unwind_stack {
	const uint8_t *data;
	uint64_t sp;
	uint64_t len;    /* min(dyn_size, size), never past the address space's end */
	bool full;       /* the copy used its whole size: the stack may go on above */
};

/*
 * Describe the stack copy of @s for @arch: the copy starts at the sampled
 * stack pointer.  Hostile sizes are clamped (dyn_size above size, a copy
 * that would wrap the address space).  Returns false (and an empty @st)
 * when @s has no usable registers or stack.
 */
bool ana_unwind_stack_init(struct ana_unwind_stack *st, const struct ana_sample *s,
			   const struct ana_regs_arch *arch);

/*
 * Read the little-endian 64-bit word at address @addr from @st.  Returns
 * false, touching nothing, when [addr, addr + 8) is not inside the copy.
 */
bool ana_unwind_stack_read(const struct ana_unwind_stack *st, uint64_t addr, uint64_t *val);

/* ---- the unwinder ------------------------------------------------------- */

struct ana_unwinder;

/*
 * An unwinder for samples of a machine whose ELF e_machine is @e_machine
 * (the file header's producer_machine).  It keeps one libdwfl session per
 * process (at most a few dozen, least recently used ones are dropped), to
 * which each DSO is reported once, so that its CFI is parsed once.
 * Returns NULL with errno = ENOTSUP for an architecture it does not know,
 * ENOMEM, or EINVAL when libdwfl has no unwinder for it.  Free with
 * ana_unwinder_free() (NULL accepted).
 */
struct ana_unwinder *ana_unwinder_new(uint16_t e_machine);
void ana_unwinder_free(struct ana_unwinder *u);

/* True when @s carries what unwinding needs: user registers with the
 * stack pointer and pc, and a non-empty stack copy. */
bool ana_unwind_usable(const struct ana_unwinder *u, const struct ana_sample *s);

/*
 * The stack of sample @s of thread @t, as ana_machine_walk_stack() delivers
 * it: the kernel part of the callchain (up to PERF_CONTEXT_USER), then the
 * user frames unwound from the registers and stack copy, leaf first, each
 * resolved with ana_machine_resolve() (return addresses looked up at
 * pc - 1).  Frames found by the frame-pointer fallback after CFI failed
 * have loc->fallback set.  A stack cut by the end of the stack copy ends
 * with one ANA_LOC_TRUNCATED frame.  At most @max_depth frames (0: a
 * built-in limit of 1024).  Returns the number of frames delivered.
 */
unsigned ana_unwind_walk_stack(struct ana_unwinder *u, struct ana_machine *m,
			       struct ana_thread *t, const struct ana_sample *s,
			       unsigned want, unsigned max_depth, ana_frame_fn fn, void *ctx);

struct ana_unwind_stats {
	uint64_t samples;     /* samples unwound */
	uint64_t complete;    /* reached a frame whose return address is undefined */
	uint64_t truncated;   /* ended at the end of the stack copy */
	uint64_t partial;     /* used the frame-pointer fallback */
	uint64_t failed;      /* stopped early for another reason */
	uint64_t sessions;    /* libdwfl sessions created (one per process, plus rebuilds) */
};

/* Counters since ana_unwinder_new(). */
void ana_unwind_get_stats(const struct ana_unwinder *u, struct ana_unwind_stats *st);

#endif /* AMB_ANALYZE_UNWIND_H */
