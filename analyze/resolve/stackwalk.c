// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/stackwalk.c - a sample's stack as resolved frames: the
 * recorded callchain, or its kernel part and the unwound user frames.
 */
#include <string.h>

#include "analyze/resolve/stackwalk.h"

/* Deliver the callchain of @s; with @kernel_only, stop at its user part. */
static unsigned walk_callchain(struct ana_machine *m, struct ana_thread *t,
			       const struct ana_sample *s, bool kernel_only, unsigned want,
			       unsigned max_depth, ana_frame_fn fn, void *ctx, bool *stopped)
{
	unsigned cpumode = s->cpumode, depth = 0;
	struct ana_loc loc;
	uint64_t i;

	for (i = 0; i < s->nr_callchain; i++) {
		uint64_t a = s->callchain[i];

		if (a >= PERF_CONTEXT_MAX) {
			if (a == PERF_CONTEXT_USER || a == PERF_CONTEXT_GUEST_USER) {
				if (kernel_only)
					break;
				cpumode = PERF_RECORD_MISC_USER;
			} else if (a == PERF_CONTEXT_KERNEL || a == PERF_CONTEXT_GUEST_KERNEL ||
				   kernel_only) {
				cpumode = PERF_RECORD_MISC_KERNEL;
			}
			continue;
		}
		if (max_depth && depth == max_depth) {
			*stopped = true;
			break;
		}
		/* Return addresses point after the call; its line is before. */
		ana_machine_resolve(m, t, cpumode, a, depth && a ? a - 1 : a, want, &loc);
		if (fn(ctx, &loc, depth++)) {
			*stopped = true;
			break;
		}
	}
	return depth;
}

unsigned ana_stack_walk(struct ana_machine *m, struct ana_unwinder *u, struct ana_thread *t,
			const struct ana_sample *s, unsigned want, unsigned max_depth,
			ana_frame_fn fn, void *ctx)
{
	const struct ana_unwind_frame *frames;
	unsigned depth, n, i;
	bool stopped = false, truncated;
	struct ana_loc loc;

	if (!u || !t || !ana_unwind_usable(u, s)) {
		if (s->nr_callchain && s->callchain)
			return walk_callchain(m, t, s, false, want, max_depth, fn, ctx, &stopped);
		ana_machine_resolve(m, t, s->cpumode, s->ip, s->ip, want, &loc);
		fn(ctx, &loc, 0);
		return 1;
	}
	/* The kernel's part of the callchain comes first, as recorded. */
	depth = s->callchain ? walk_callchain(m, t, s, true, want, max_depth, fn, ctx, &stopped) : 0;
	if (stopped || (max_depth && depth == max_depth))
		return depth;
	n = ana_unwind_user(u, t, s, max_depth ? max_depth - depth : 0, &frames, &truncated);
	if (!n) {
		/* Not even the first frame: show the sampled user pc alone. */
		uint64_t pc = s->ip;

		ana_unwind_sampled_pc(u, s, &pc);
		ana_machine_resolve(m, t, PERF_RECORD_MISC_USER, pc, pc, want, &loc);
		if (fn(ctx, &loc, depth++))
			return depth;
	}
	for (i = 0; i < n; i++) {
		uint64_t pc = frames[i].pc;

		ana_machine_resolve(m, t, PERF_RECORD_MISC_USER, pc,
				    frames[i].activation ? pc : pc - 1, want, &loc);
		loc.fallback = frames[i].fallback;
		if (fn(ctx, &loc, depth++))
			return depth;
	}
	if (truncated && !(max_depth && depth == max_depth)) {
		memset(&loc, 0, sizeof(loc));
		loc.kind = ANA_LOC_TRUNCATED;
		fn(ctx, &loc, depth++);
	}
	return depth;
}

uint64_t ana_stack_key(const struct ana_machine *m, const struct ana_unwinder *u,
		       const struct ana_thread *t, const struct ana_sample *s)
{
	if (t && u && ana_unwind_usable(u, s))
		return 0;
	return ana_machine_space_gen(m, t);
}
