/* SPDX-License-Identifier: MIT */
/*
 * analyze/view/offcpu.h - time as the weight of a profile (offcpu.c), for
 * `report --off-cpu` and `flame --off-cpu` / `flame --wall-clock`.
 *
 * Off CPU: every wait of the scheduler model (resolve/sched.h), from a
 * thread's switch-out to its next switch-in, becomes one sample: the
 * sched_switch sample of the switch-out, whose stack says where the
 * thread blocked, weighted by the wait in nanoseconds (its period) and
 * handed over as a sample of one of ANA_SCHED_NR_STATES synthetic events,
 * one per state at switch-out ("off-cpu S (sleeping)" ...).  The
 * scheduler's own frames at the top of those stacks (__schedule,
 * schedule) are left out: the first frame is where the thread waited
 * (do_nanosleep, futex_wait, pipe_read ...).
 *
 * Wall clock: the same waits, and the on-CPU samples of one clock event
 * (cpu-clock or task-clock, whose period is nanoseconds of CPU time),
 * with their own event, their periods scaled per thread so that they add
 * up to the time the thread's switches say it ran (a busy machine fires
 * the sampling timer late, and a late sample still says one period).
 * For a thread, the weights then add up to the time it existed within
 * the recording; only a thread that no sample caught on CPU misses that
 * (little) time.  This reads the recording twice.
 *
 * A command reads those samples as it reads recorded ones: the sample
 * function gets each with its thread, walks its stack on
 * ana_offcpu_pipeline() and adds its period.
 */
#ifndef AMB_ANALYZE_OFFCPU_H
#define AMB_ANALYZE_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/resolve/resolve.h"

enum ana_offcpu_mode {
	ANA_OFFCPU_NONE = 0,   /* not used: the recorded samples, as they are */
	ANA_OFFCPU_WAITS,      /* the off-CPU time of waits only */
	ANA_OFFCPU_WALL,       /* on-CPU samples in ns and the off-CPU time */
};

struct ana_offcpu;

/*
 * Open the recording @path for @mode with the options @o (borrowed; see
 * ana_sched_open() for the filters).  Returns 0 with *@out set, or an
 * error of ana_sched_open() with *@out NULL and its detail in amb_errmsg(),
 * also -ENODATA for a wall-clock view of a recording without a clock
 * event (or -e naming one that is not).  Free with ana_offcpu_close()
 * (NULL accepted).
 */
int ana_offcpu_open(const char *path, struct ana_pipeline_opts *o, enum ana_offcpu_mode mode,
		    struct ana_offcpu **out);
void ana_offcpu_close(struct ana_offcpu *oc);

/* The mode @oc was opened for. */
enum ana_offcpu_mode ana_offcpu_mode(const struct ana_offcpu *oc);

/* The pipeline whose machine and unwinder walk the samples' stacks. */
struct ana_pipeline *ana_offcpu_pipeline(const struct ana_offcpu *oc);

/* The synthetic events of the off-CPU samples: @i below
 * ANA_SCHED_NR_STATES, numbered (ana_event.index) by their state. */
const struct ana_event *ana_offcpu_event(const struct ana_offcpu *oc, size_t i);

/*
 * The frame that names the state of an off-CPU sample @s ("[off-cpu S
 * sleeping]"), to add below its stack; NULL for an on-CPU sample.
 */
const char *ana_offcpu_state_frame(const struct ana_offcpu *oc, const struct ana_sample *s);

/*
 * Hand every off-CPU wait (and with ANA_OFFCPU_WALL every on-CPU sample
 * of the clock event) that passes the filters to @fn, with its period in
 * nanoseconds.  Waits without a switch-out sample (a new thread's first
 * wait, one seen by context-switch records only) have no stack: they are
 * counted as such, and handed over (as a sample of no address) for the
 * wall clock only.  Returns 0, @fn's nonzero value or -ENOMEM.
 */
int ana_offcpu_run(struct ana_offcpu *oc, ana_sample_fn fn, void *ctx);

/* True for a frame of the scheduler itself (__schedule, schedule), which
 * tops every switch-out stack and says nothing about the wait. */
bool ana_offcpu_scheduler_frame(const char *name);

struct ana_offcpu_stats {
	uint64_t waits;          /* with a stack, handed over */
	uint64_t wait_ns;        /* their time */
	uint64_t stackless;      /* waits without a switch-out sample */
	uint64_t stackless_ns;
	uint64_t samples;        /* on-CPU samples read (every event) */
	uint64_t filtered;       /* of those, left out by a filter */
	uint64_t on_cpu;         /* handed over (ANA_OFFCPU_WALL) */
	uint64_t on_cpu_ns;
};
void ana_offcpu_get_stats(const struct ana_offcpu *oc, struct ana_offcpu_stats *st);

#endif /* AMB_ANALYZE_OFFCPU_H */
