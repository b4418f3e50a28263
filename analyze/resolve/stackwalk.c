// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/stackwalk.c - a sample's stack as resolved frames: the
 * recorded callchain, or its kernel part and the unwound user frames.
 */
#include <string.h>

#include "analyze/resolve/stackwalk.h"

/*
 * Where the user part of @s's callchain stops making sense: after the last
 * return address that lies in a mapping of @t's process, when entries
 * follow it that lie in none.  The kernel follows saved frame pointers
 * through code that keeps none, into whatever such registers held; what
 * it finds past that point is no caller.  (A JIT's unmapped frames between
 * mapped ones are kept: only the tail goes.)  The first user entry, the
 * sampled or interrupted pc, always stays.  Returns the index of the first
 * entry cut, or nr_callchain, and the last one kept in *@last.
 */
static uint64_t broken_tail(struct ana_thread *t, const struct ana_sample *s, uint64_t *last)
{
	uint64_t i, first = UINT64_MAX, kept = UINT64_MAX;
	bool user = s->cpumode == PERF_RECORD_MISC_USER;

	for (i = 0; i < s->nr_callchain; i++) {
		uint64_t a = s->callchain[i];

		if (a >= PERF_CONTEXT_MAX) {
			user = a == PERF_CONTEXT_USER || a == PERF_CONTEXT_GUEST_USER;
			continue;
		}
		if (!user)
			continue;
		if (first == UINT64_MAX)
			kept = first = i;
		else if (ana_thread_find_map(t, a))
			kept = i;
	}
	if (kept == UINT64_MAX)
		return s->nr_callchain;
	/* Only user entries follow @kept: is there any? */
	for (i = kept + 1; i < s->nr_callchain && s->callchain[i] >= PERF_CONTEXT_MAX; i++)
		;
	if (i == s->nr_callchain)
		return s->nr_callchain;
	*last = kept;
	return kept + 1;
}

/* Deliver the callchain of @s; with @kernel_only, stop at its user part. */
static unsigned walk_callchain(struct ana_machine *m, struct ana_thread *t,
			       const struct ana_sample *s, bool kernel_only, unsigned want,
			       unsigned max_depth, ana_frame_fn fn, void *ctx, bool *stopped)
{
	unsigned cpumode = s->cpumode, depth = 0;
	uint64_t i, cut = s->nr_callchain, last = 0;
	struct ana_loc loc;

	if (t && !kernel_only && !(want & ANA_WALK_RAW))
		cut = broken_tail(t, s, &last);
	want &= ~ANA_WALK_RAW;
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
		if (i == cut) {
			const struct ana_map *map = ana_thread_find_map(t, s->callchain[last]);

			ana_machine_note_broken_chain(m, map ? map->dso : NULL);
			memset(&loc, 0, sizeof(loc));
			loc.kind = ANA_LOC_BROKEN_FP;
			loc.addr = a;
			for (uint64_t j = i; j < s->nr_callchain; j++)
				loc.dropped += s->callchain[j] < PERF_CONTEXT_MAX;
			fn(ctx, &loc, depth++);
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
		want &= ~ANA_WALK_RAW;
		ana_machine_resolve(m, t, s->cpumode, s->ip, s->ip, want, &loc);
		fn(ctx, &loc, 0);
		return 1;
	}
	/* The kernel's part of the callchain comes first, as recorded. */
	want &= ~ANA_WALK_RAW;
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
