// SPDX-License-Identifier: MIT
/*
 * record/sched_events.c - what `--off-cpu` and `amber-rec sched` add to a
 * recording.  The analyzer rebuilds every thread's switch-outs, wakeups and
 * switch-ins from these (analyze/resolve/sched.c); nothing is decoded here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <amber/common.h>
#include "common/util.h"
#include "record/sched_events.h"

const char *const rec_sched_events[4] = {
	"sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup_new",
	"sched:sched_migrate_task",
};

static bool has_spec(const struct rec_opts *o, const char *spec)
{
	for (size_t i = 0; i < o->nr_event_specs; i++)
		if (!strcmp(o->event_specs[i], spec))
			return true;
	return false;
}

static int add_spec(struct rec_opts *o, const char *spec)
{
	if (has_spec(o, spec))
		return 0;
	if (amb_ensure_cap((void **)&o->event_specs, &o->cap_event_specs,
			   sizeof(*o->event_specs), o->nr_event_specs + 1))
		return -ENOMEM;
	/* The list holds argv's strings, never written to: a constant fits. */
	o->event_specs[o->nr_event_specs++] = (char *)spec;
	return 0;
}

int rec_sched_apply(struct rec_opts *o)
{
	if (!o->off_cpu && !o->sched)
		return 0;
	if (o->off_cpu && !o->sched && !o->nr_event_specs && add_spec(o, REC_DEFAULT_EVENT))
		return -ENOMEM;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(rec_sched_events); i++)
		if (add_spec(o, rec_sched_events[i]))
			return -ENOMEM;
	if (o->sched && !o->nr_pids && !o->nr_tids)
		o->system_wide = true;
	/* System-wide, sched_switch names the task switched in as well. */
	if (!o->system_wide && !o->cpulist)
		o->switch_events = true;
	if (!o->mmap_pages && o->callgraph != REC_CG_DWARF)
		o->mmap_pages = REC_SCHED_PAGES;
	return 0;
}

void rec_sched_usage(FILE *f)
{
	fprintf(f,
		"usage: amber-rec sched [OPTIONS] [-- COMMAND [ARGS]]\n\n"
		"Record the scheduler, as perf sched record does: every context switch,\n"
		"wakeup and migration of every CPU while COMMAND runs (or for --duration,\n"
		"or until Ctrl-C), for amber-analyze sched latency|timehist|wakers.\n"
		"The same as amber-rec --sched; the events are\n ");
	for (size_t i = 0; i < AMB_ARRAY_SIZE(rec_sched_events); i++)
		fprintf(f, " %s%s", rec_sched_events[i],
			i + 1 == AMB_ARRAY_SIZE(rec_sched_events) ? ".\n\n" : i % 2 ? ",\n " : ",");
	fprintf(f,
		"Every option of amber-rec applies (amber-rec --help), among them:\n"
		"  -p, --pid PIDS, -t, --tid TIDS  only these tasks (with context-switch\n"
		"                           records for their switch-ins), not system-wide\n"
		"  -g, --call-graph MODE    stacks at every switch and wakeup (for sched\n"
		"                           wakers, report --off-cpu)\n"
		"  -e SPEC                  more events\n"
		"  --duration SECONDS, -o FILE, -m PAGES (default %u)\n", REC_SCHED_PAGES);
}
