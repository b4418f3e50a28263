/* SPDX-License-Identifier: MIT */
/*
 * record/evsel.h - the sampling settings every event gets, and opening
 * the events per CPU (and thread) with one ring per CPU (evsel.c).
 */
#ifndef AMB_REC_EVSEL_H
#define AMB_REC_EVSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/events/events.h"
#include "record/options.h"
#include "record/target.h"

/* Sampling settings common to every event (rec_attr_apply). */
struct rec_sampling {
	unsigned freq;
	uint64_t period;
	enum rec_callgraph callgraph;
	uint32_t stack_size;
	bool data, branch;
	bool phys_data;            /* --phys-data */
	bool data_page_size;       /* --data-page-size */
	bool weight;               /* -W */
	bool weight_struct;        /* -W as PERF_SAMPLE_WEIGHT_STRUCT (perf's x86
				    * choice, where the kernel takes it) */
	bool raw;                  /* some event is a tracepoint: RAW on all */
	bool switch_events;        /* PERF_RECORD_SWITCH records (first event) */
	bool enable_on_exec;       /* CMD targets */
	bool inherit;
	uint32_t wakeup_bytes;     /* watermark */
};

/* The sample_type every event of a recording shares (FORMAT.md §5.6). */
uint64_t rec_sample_type(const struct rec_sampling *s);

/*
 * Whether -W is recorded as PERF_SAMPLE_WEIGHT_STRUCT, as perf does on
 * x86 (the latency in the low 32 bits, instruction latency above it): on
 * x86 when this kernel takes it (Linux 5.12 and later; probed once with a
 * software event), elsewhere never (PERF_SAMPLE_WEIGHT).
 */
bool rec_weight_struct(void);

/*
 * Fill the sampling part of @ev's attr (already typed by rec_events_parse)
 * from @s, or from the event's own period=/freq= terms when it has them.
 * @first marks the event that also tracks mmap/comm/task, and context
 * switches when asked (perf does the same on one event only); tracepoints
 * sample every hit with RAW payloads.
 */
void rec_attr_apply(struct rec_event *ev, const struct rec_sampling *s, bool first);

struct rec_ring;

/* All the events of a recording opened on a target. */
struct rec_evlist {
	struct rec_event_list *events;
	size_t nr_cpus, nr_threads;     /* nr_threads = 1 for per-CPU opens */
	int *fds;                       /* [event][cpu][thread], -1 when unopened */
	uint64_t *ids;                  /* same shape: PERF_EVENT_IOC_ID */
	struct rec_ring *rings;         /* one per CPU */
	size_t nr_rings;
};

/*
 * Apply @s to every event of @events and open them on @t: per CPU, per
 * thread for PID/TID targets, disabled unless enable_on_exec.  A default
 * (implicit) hardware event the machine has no PMU for is replaced by
 * cpu-clock, with a warning; an event the user named is an error.  The first fd of each CPU owns a ring of @pages pages; every
 * other fd of that CPU is redirected into it.  Errors: -errno with a
 * message naming the event, CPU and thread in @err, explaining
 * perf_event_paranoid for EACCES/EPERM.
 */
int rec_evlist_open(struct rec_evlist *el, struct rec_event_list *events,
		    const struct rec_sampling *s, const struct rec_target *t,
		    unsigned pages, char *err, size_t errlen);

/* PERF_EVENT_IOC_ENABLE / _DISABLE on every fd; a refused ioctl is
 * reported through amb_warn() naming the event. */
void rec_evlist_enable(struct rec_evlist *el, bool on);

/* Unmap the rings, close the fds, free the arrays (NULL-safe). */
void rec_evlist_close(struct rec_evlist *el);

/* The id the kernel gave the first fd of event @e (for SYNTH trailers). */
uint64_t rec_evlist_first_id(const struct rec_evlist *el, size_t e);

#endif /* AMB_REC_EVSEL_H */
