/* SPDX-License-Identifier: MIT */
/*
 * record/sched_events.h - the scheduler events of `--off-cpu` and of the
 * `amber-rec sched` preset (sched_events.c), added to the command line's choices
 * before the events are parsed.
 */
#ifndef AMB_REC_SCHED_EVENTS_H
#define AMB_REC_SCHED_EVENTS_H

#include <stdio.h>

#include "record/options.h"

/* Ring pages per CPU when -m is not given: a pipe ping-pong switches some
 * 10^5 times a second per CPU, at ~100 bytes a switch without call chains
 * and ~300 with (perf sched record uses the same 4 MiB). */
#define REC_SCHED_PAGES 1024u

/*
 * The tracepoints an off-CPU or scheduler analysis reads: sched_switch
 * (the switch-out, its state and stack; system-wide also the switch-in),
 * sched_waking (who makes a task runnable, with the waker's stack),
 * sched_wakeup_new (a new task's first wakeup) and sched_migrate_task.
 */
extern const char *const rec_sched_events[4];

/*
 * Complete @o for --off-cpu (o->off_cpu) and for the sched preset
 * (o->sched): append every event of rec_sched_events the command line
 * does not already name, after the default event when -e was not given to
 * --off-cpu (an off-CPU profile is added to a normal recording); ask for
 * context-switch records where sched_switch alone does not show
 * switch-ins (a command, -p, -t: the kernel only reports the switches of
 * the targets' own threads); make the sched preset system-wide unless -p
 * or -t is given, as `perf sched record` is; and use REC_SCHED_PAGES ring
 * pages unless -m or a DWARF call graph chose.  Does nothing for neither.
 * Returns 0 or -ENOMEM.
 */
int rec_sched_apply(struct rec_opts *o);

/* The --help text of `amber-rec sched`. */
void rec_sched_usage(FILE *f);

#endif /* AMB_REC_SCHED_EVENTS_H */
