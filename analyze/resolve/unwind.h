/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/unwind.h - DWARF call graphs: user stacks unwound offline
 * with libdwfl from the registers (PERF_SAMPLE_REGS_USER) and the stack
 * copy (PERF_SAMPLE_STACK_USER) of a sample (unwind.c).
 */
#ifndef AMB_ANALYZE_UNWIND_H
#define AMB_ANALYZE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/dso.h"
#include "analyze/resolve/machine.h"
#include "analyze/resolve/regs.h"

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
 * (the file header's producer_machine), whose DSOs come from @dsos
 * (borrowed; must outlive the unwinder).  It keeps one libdwfl session per
 * process (at most a few dozen, least recently used ones are dropped), to
 * which each DSO is reported once, so that its CFI is parsed once.
 * Returns NULL with errno = ENOTSUP for an architecture it does not know,
 * ENOMEM, or EINVAL when libdwfl has no unwinder for it.  Free with
 * ana_unwinder_free() (NULL accepted).
 */
struct ana_unwinder *ana_unwinder_new(uint16_t e_machine, struct ana_dso_table *dsos);
void ana_unwinder_free(struct ana_unwinder *u);

/* True when @s carries what unwinding needs: user registers with the
 * stack pointer and pc, and a non-empty stack copy. */
bool ana_unwind_usable(const struct ana_unwinder *u, const struct ana_sample *s);

/* The user pc sampled in @s, into *@pc; false (and *@pc untouched) when
 * @s has no such register. */
bool ana_unwind_sampled_pc(const struct ana_unwinder *u, const struct ana_sample *s, uint64_t *pc);

/* One user frame found by the unwinder. */
struct ana_unwind_frame {
	uint64_t pc;
	bool activation;      /* the sampled pc itself, not a return address */
	bool fallback;        /* found by the frame-pointer fallback after CFI failed */
};

/*
 * Unwind the user stack of sample @s of thread @t (whose address space
 * tells which DSO each pc is in) from its registers and stack copy: at
 * most @max frames (0: a built-in limit of 1024), leaf first, into
 * *@frames, which stays owned by @u and valid until the next call.
 * *@truncated says that the stack copy ended before the stack did.
 * Returns the number of frames; 0 when not even the first frame was found
 * (the caller shows the sampled pc alone).  Never fails: what cannot be
 * unwound is counted in the statistics.  Addresses only: resolving them
 * is the caller's (stackwalk.c).
 */
unsigned ana_unwind_user(struct ana_unwinder *u, struct ana_thread *t, const struct ana_sample *s,
			 unsigned max, const struct ana_unwind_frame **frames, bool *truncated);

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
