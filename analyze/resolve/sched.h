/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/sched.h - the scheduler model (sched.c): a recording's
 * scheduler events replayed into what every thread did with its wall-clock
 * time, as intervals on and off a CPU.
 *
 * A thread leaves its CPU at a sched:sched_switch sample (its state then,
 * and its stack when the recording has call chains) or, without one, at a
 * context-switch record (PERF_RECORD_SWITCH, amber-rec --switch-events:
 * preempted or not, no stack).  It becomes runnable again at a
 * sched:sched_waking sample naming it (sched_wakeup when waking was not
 * recorded, sched_wakeup_new for a new thread), made by the waker in its
 * own context, and runs again at the switch-in: the next_pid of a
 * sched_switch (system-wide recordings see every CPU's) or its own
 * context-switch record (recordings of a command, -p or -t, where the
 * kernel reports only what the targets' threads do: a wakeup of a target
 * by another task, such as a timer interrupt, is not seen there).
 *
 * The model hands over, through callbacks:
 *   a wait: switch-out to switch-in, with the state and stack at
 *     switch-out and, when seen, the wakeup between them and its waker;
 *   a run: switch-in to switch-out, with the wait before it (what perf
 *     sched timehist prints a line for);
 *   every other sample (cpu-clock ...), filtered as the pipeline does.
 * Waits and runs still open when the recording ends are handed over at
 * its end, marked open.  A thread's last run ends at its last switch-out
 * (state X) system-wide; in a recording of a command, -p or -t, at its
 * PERF_RECORD_EXIT, after which the kernel records no switch-out of it:
 * wakeups and switch-ins of it that other threads' samples show after
 * that are ignored until its tid is created again (FORK) or records a
 * sample or switch of its own.
 *
 * The filters of the options apply to what is handed over: --pid, --tid
 * and --comm to the thread that waited or ran, --cpu to the CPU it left
 * (a wait) or ran on (a run), --time clips intervals to the window, -e
 * selects the other samples; --dso/--sym look at the first frame as the
 * pipeline does.  The scheduler's own samples are never filtered, since
 * a switch-in is recorded in another task's sample.
 */
#ifndef AMB_ANALYZE_SCHED_H
#define AMB_ANALYZE_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/machine.h"
#include "analyze/resolve/pipeline.h"

/* A thread's state when it left the CPU (sched_switch's prev_state). */
enum ana_sched_state {
	ANA_SCHED_RUNNABLE = 0,  /* R: preempted, still runnable */
	ANA_SCHED_SLEEPING,      /* S: interruptible sleep */
	ANA_SCHED_BLOCKED,       /* D: uninterruptible (disk, vfork, mutex_lock) */
	ANA_SCHED_IDLE,          /* I: an idle kernel thread (TASK_IDLE) */
	ANA_SCHED_STOPPED,       /* T, t: stopped or traced */
	ANA_SCHED_PARKED,        /* P: a parked kernel thread */
	ANA_SCHED_DEAD,          /* X, Z: exiting */
	ANA_SCHED_UNKNOWN,       /* ?: seen by a context-switch record only,
				  * which tells preempted (R) from not */
	ANA_SCHED_NR_STATES
};

/* 'R', 'S', 'D', 'I', 'T', 'P', 'X', '?'. */
char ana_sched_state_letter(enum ana_sched_state st);
/* "runnable", "sleeping", "uninterruptible", "idle", "stopped", "parked",
 * "dead", "unknown". */
const char *ana_sched_state_name(enum ana_sched_state st);

/*
 * The state of a sched_switch prev_state value: the kernel reports one
 * bit of TASK_REPORT (since Linux 4.14: S 0x01, D 0x02, T 0x04, t 0x08,
 * X 0x10, Z 0x20, P 0x40, I 0x80; earlier kernels agree on S and D), none
 * for R, and 0x100 (TASK_REPORT_MAX) for a task preempted while runnable.
 */
enum ana_sched_state ana_sched_state_of(uint64_t prev_state);

/* A thread off CPU: from its switch-out to its switch-in. */
struct ana_sched_wait {
	struct ana_thread *t;          /* the thread that waited */
	uint64_t out_time;             /* its switch-out; 0 when not seen (a new thread) */
	uint64_t ready_time;           /* when it became runnable: its wakeup, or
					* out_time when it was preempted; 0: not seen */
	uint64_t in_time;              /* its switch-in, or the recording's end when @open */
	uint64_t start, end;           /* [out_time (else ready_time), in_time]
					* clipped to --time; never empty */
	enum ana_sched_state state;    /* at switch-out */
	uint32_t cpu_out, cpu_in;
	bool open;                     /* still off CPU when the recording ended */
	bool inferred;                 /* its switch-in was not recorded (a lost
					* event, or a task the kernel hides): it is
					* put at the last switch seen on the CPU
					* before the thread's next switch-out, as
					* perf sched timehist does */
	const struct ana_sample *out;  /* the sched_switch sample of the switch-out
					* (its stack), or NULL */
	struct ana_thread *waker;      /* the thread that woke it, or NULL */
	const struct ana_sample *wake; /* the waker's sched_waking sample (with
					* ANA_SCHED_KEEP_WAKERS), or NULL */
};

/* A thread on CPU: from its switch-in to its switch-out. */
struct ana_sched_run {
	struct ana_thread *t;
	uint64_t in_time, out_time;    /* out_time: the recording's end when @open */
	uint64_t start, end;           /* clipped to --time; never empty */
	uint32_t cpu;
	enum ana_sched_state state;    /* at the switch-out ending it */
	bool open;                     /* still running when the recording ended */
	/* The wait before it (ready_time 0: no wakeup seen; out_time 0: the
	 * thread's first switch-in). */
	uint64_t wait_out_time, wait_ready_time;
	enum ana_sched_state wait_state;
	uint32_t migrations;           /* sched_migrate_task of the thread so far */
};

/* Callbacks of ana_sched_run(); any may be NULL.  The structures and the
 * samples they point to are valid during the call only.  A nonzero return
 * stops the run and is returned by it. */
struct ana_sched_ops {
	int (*wait)(void *ctx, const struct ana_sched_wait *w);
	int (*run)(void *ctx, const struct ana_sched_run *r);
	ana_sample_fn sample;          /* every other sample that passes the filters */
};

/* What an analysis needs of a recording (ana_sched_open's @flags). */
#define ANA_SCHED_NEED_SWITCH_TP 0x1u  /* sched:sched_switch samples, not
					* context-switch records only */
#define ANA_SCHED_KEEP_WAKERS    0x2u  /* keep waking samples for ->wake */

struct ana_sched;

/*
 * Open the recording @path for the scheduler model with the options @o
 * (borrowed: they must outlive the model).  The pipeline under it is
 * opened without filters; the model applies them itself (above).
 * Returns 0 with *@out set, or an error with *@out NULL and its detail in
 * amb_errmsg():
 *   an error of ana_pipeline_open();
 *   -ENODATA: the recording has no scheduler events (sched_switch samples,
 *     or context-switch records unless ANA_SCHED_NEED_SWITCH_TP): the
 *     detail names what to record;
 *   -ENOENT: @o->event names no event of the recording;
 *   -EINVAL: @o has a --field-filter, which does not apply to time;
 *   -ENOMEM.
 * Free with ana_sched_close() (NULL accepted).
 */
int ana_sched_open(const char *path, struct ana_pipeline_opts *o, unsigned flags,
		   struct ana_sched **out);
void ana_sched_close(struct ana_sched *s);

/* The pipeline the model reads (owned by the model): stacks of the
 * samples handed over are walked with ana_pipeline_walk() on it. */
struct ana_pipeline *ana_sched_pipeline(const struct ana_sched *s);

/* What the recording holds. */
bool ana_sched_has_callchains(const struct ana_sched *s);  /* sched_switch samples carry stacks */
bool ana_sched_has_wakeups(const struct ana_sched *s);     /* sched_waking or sched_wakeup */
bool ana_sched_system_wide(const struct ana_sched *s);     /* not a command, -p or -t */

/*
 * Replay the recording through @ops: waits at their switch-in, runs at
 * their switch-out, other samples in time order, then what is still open
 * at the end (in thread id order).  Returns 0, the first nonzero value of
 * a callback, or -ENOMEM.  Each run starts from the recording's start
 * (the machine keeps what earlier runs taught it of threads and maps).
 */
int ana_sched_run(struct ana_sched *s, const struct ana_sched_ops *ops, void *ctx);

struct ana_sched_stats {
	uint64_t switches;      /* switch-outs seen */
	uint64_t wakeups;       /* wakeups seen */
	uint64_t waits, runs;   /* handed over (after the filters) */
	uint64_t unmatched;     /* switch-outs of a thread already off CPU: the
				 * switch-in between them was not recorded
				 * (ana_sched_wait.inferred) */
	uint64_t samples;       /* other samples read */
	uint64_t filtered;      /* of those, left out by a filter */
	uint64_t passed;        /* of those, handed over */
	uint64_t first_time, last_time; /* of all records */
};
/* Counts of the last ana_sched_run(). */
void ana_sched_get_stats(const struct ana_sched *s, struct ana_sched_stats *st);

#endif /* AMB_ANALYZE_SCHED_H */
