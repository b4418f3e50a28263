/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/stackwalk.h - a sample's stack, frame by frame, leaf
 * first (stackwalk.c): the callchain the kernel recorded, or for a sample
 * with user registers and a stack copy the kernel part of its callchain
 * followed by the user frames the DWARF unwinder finds; every frame
 * resolved by the machine (return addresses looked up at pc - 1, so that
 * the call's line and inline chain are found).
 */
#ifndef AMB_ANALYZE_STACKWALK_H
#define AMB_ANALYZE_STACKWALK_H

#include <stdint.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/machine.h"
#include "analyze/resolve/unwind.h"

/*
 * Called for each frame, leaf first; @depth counts from 0.  Return nonzero
 * to stop the walk.
 */
typedef int (*ana_frame_fn)(void *ctx, const struct ana_loc *loc, unsigned depth);

/* ana_stack_walk() @want: every recorded callchain entry, nothing cut. */
#define ANA_WALK_RAW 0x100u

/*
 * Resolve the stack of sample @s of thread @t (NULL: kernel frames only)
 * with @m, unwinding with @u (NULL: never) when @s carries registers and a
 * stack copy; else its callchain when it has one (PERF_CONTEXT_* markers
 * switch between kernel and user frames), else its ip alone.  Unwound
 * frames found by the frame-pointer fallback have loc->fallback set, and a
 * stack cut by the end of the stack copy ends with one ANA_LOC_TRUNCATED
 * frame.  A recorded callchain whose user part ends in return addresses
 * where nothing is mapped (frame pointers followed through code built
 * without them: python3, libc) ends instead, after the last mapped one,
 * with one ANA_LOC_BROKEN_FP frame, and the machine notes it
 * (ana_machine_note_broken_chain); ANA_WALK_RAW asks for the chain as
 * recorded.  @want is ANA_SYM_SRCLINE | ANA_SYM_INLINE | ANA_WALK_RAW or 0.  At most
 * @max_depth frames (0: no limit but the unwinder's 1024).  Returns the
 * number of frames delivered; a callback's stop ends the walk early.
 */
unsigned ana_stack_walk(struct ana_machine *m, struct ana_unwinder *u, struct ana_thread *t,
			const struct ana_sample *s, unsigned want, unsigned max_depth,
			ana_frame_fn fn, void *ctx);

/*
 * What ana_stack_walk() delivers for sample @s of @t depends on @s's
 * callchain (or ip alone), its cpumode, @want, @max_depth and the state of
 * @t's address space, except for a sample @u unwinds, whose stack bytes
 * matter too.  This returns a value that names that state (never reused
 * for another one while @m lives), or 0 for a sample that will be unwound:
 * a caller may reuse a walk for a sample with the same value, callchain
 * and cpumode.
 */
uint64_t ana_stack_key(const struct ana_machine *m, const struct ana_unwinder *u,
		       const struct ana_thread *t, const struct ana_sample *s);

#endif /* AMB_ANALYZE_STACKWALK_H */
