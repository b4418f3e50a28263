// SPDX-License-Identifier: MIT
/*
 * record/evsel.c - turn the parsed events into a recording: apply the
 * sampling settings every event shares, open each event on every CPU (and
 * thread), build groups, and funnel every fd of a CPU into one ring with
 * PERF_EVENT_IOC_SET_OUTPUT (tools/lib/perf evlist.c does the same).
 */
#include <asm/perf_regs.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <amber/common.h>
#include "record/events/probe.h"
#include "record/evsel.h"
#include "record/ring.h"
#include "record/sysutil.h"

/* Every user register the unwinder may need, for --call-graph dwarf. */
#if defined(__x86_64__)
#define USER_REGS_MASK (((1ULL << PERF_REG_X86_64_MAX) - 1) & \
			~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) | \
			  (1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS)))
#elif defined(__aarch64__)
#define USER_REGS_MASK ((1ULL << PERF_REG_ARM64_MAX) - 1)
#else
#define USER_REGS_MASK 0ULL
#endif

uint64_t rec_sample_type(const struct rec_sampling *s)
{
	/* IDENTIFIER first: it locates the event in samples and trailers
	 * whatever else is recorded (FORMAT.md §5.6). */
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

	if (s->raw)
		st |= PERF_SAMPLE_RAW;
	if (s->callgraph != REC_CG_NONE)
		st |= PERF_SAMPLE_CALLCHAIN;
	if (s->callgraph == REC_CG_DWARF)
		st |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	/* As perf record: -d is the data address and its source (what the
	 * PMU says of it; PERF_MEM_NA from others), -W the access cost. */
	if (s->data)
		st |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	if (s->phys_data)
		st |= PERF_SAMPLE_PHYS_ADDR;
	if (s->data_page_size)
		st |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (s->weight)
		st |= s->weight_struct ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT;
	if (s->branch)
		st |= PERF_SAMPLE_BRANCH_STACK;
	return st;
}

void rec_attr_apply(struct rec_event *ev, const struct rec_sampling *s, bool first)
{
	struct perf_event_attr *a = &ev->attr;

	a->size = sizeof(*a);
	a->sample_type = rec_sample_type(s);
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			 PERF_FORMAT_ID;
	if (ev->tracepoint) {
		a->freq = 0;
		a->sample_period = 1;
	} else if (ev->period) {
		a->freq = 0;
		a->sample_period = ev->period;
	} else if (ev->freq) {
		a->freq = 1;
		a->sample_freq = ev->freq;
	} else if (s->period) {
		a->freq = 0;
		a->sample_period = s->period;
	} else {
		a->freq = 1;
		a->sample_freq = s->freq;
	}
	if (s->callgraph == REC_CG_DWARF) {
		/* The kernel part of the chain comes from CALLCHAIN, the user
		 * part is unwound later from the registers and stack copy. */
		a->exclude_callchain_user = 1;
		a->sample_regs_user = USER_REGS_MASK;
		a->sample_stack_user = s->stack_size;
	}
	if (s->branch)
		a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->inherit = s->inherit;
	a->watermark = 1;
	a->wakeup_watermark = s->wakeup_bytes;
	if (first) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = 1;
		/* Data addresses are named by the mappings that hold them:
		 * the heap, stacks, anonymous and file data too. */
		a->mmap_data = s->data;
		a->context_switch = s->switch_events;
	}
}

bool rec_weight_struct(void)
{
#if defined(__x86_64__) || defined(__i386__)
	static int known = -1;

	if (known < 0) {
		struct perf_event_attr a = {
			.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_DUMMY, .disabled = 1,
			.sample_period = 1, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_WEIGHT_STRUCT,
			.exclude_kernel = 1, .exclude_hv = 1,
		};
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

		/* Only EINVAL says the kernel does not know the bit. */
		known = fd >= 0 || errno != EINVAL;
		if (fd >= 0)
			close(fd);
	}
	return known;
#else
	return false;
#endif
}

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group, unsigned long fl)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group, fl);
}

static bool is_hardware(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW;
}

/* Does @a open here with the sampling removed (and, if that fails, the
 * exclude bits too), while plain sampling, without -g, -d or -b, does
 * not?  Then the PMU only counts (msr, most uncore PMUs). */
static bool counts_only(const struct perf_event_attr *a, int cpu, pid_t pid)
{
	struct perf_event_attr t = *a;
	bool count;
	int fd;

	t.sample_period = 0;
	t.freq = 0;
	t.sample_type = 0;
	t.precise_ip = 0;
	t.branch_sample_type = 0;
	t.sample_regs_user = 0;
	t.sample_stack_user = 0;
	t.exclude_callchain_user = 0;
	t.enable_on_exec = 0;
	t.disabled = 1;
	fd = sys_perf_event_open(&t, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		t.exclude_user = t.exclude_kernel = t.exclude_hv = 0;
		t.exclude_guest = t.exclude_host = t.exclude_idle = 0;
		fd = sys_perf_event_open(&t, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	count = fd >= 0;
	if (fd >= 0)
		close(fd);
	if (!count)
		return false;
	t.sample_type = PERF_SAMPLE_IP;
	t.sample_period = 1000000;
	fd = sys_perf_event_open(&t, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd < 0;
}

/* The user-facing explanation of a failed perf_event_open. */
static void open_error(char *err, size_t errlen, const struct rec_event *ev,
		       const struct rec_sampling *s, int cpu, pid_t pid, int e)
{
	char where[64], why[256];
	int n;

	if (pid > 0)
		snprintf(where, sizeof(where), "cpu %d, thread %d", cpu, (int)pid);
	else
		snprintf(where, sizeof(where), "cpu %d", cpu);
	/* ENOENT's "No such file or directory" says nothing about an event. */
	if (rec_probe_unsupported(e))
		rec_probe_why(&ev->attr, e, false, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "%s", strerror(e));
	n = snprintf(err, errlen, "cannot open event '%s' (%s): %s", ev->name, where, why);
	if (n < 0 || (size_t)n >= errlen)
		return;
	err += n;
	errlen -= (size_t)n;
	if (e == EACCES || e == EPERM) {
		snprintf(err, errlen,
			 "\n  kernel.perf_event_paranoid is %ld: only root (or CAP_PERFMON) may "
			 "record %s.\n  Run as root, or lower it: sysctl kernel.perf_event_paranoid=%d",
			 rec_proc_sys_long("perf_event_paranoid", 2),
			 pid > 0 ? "kernel samples of a process" : "system-wide",
			 pid > 0 ? 1 : -1);
	} else if ((e == EOPNOTSUPP || e == EINVAL) && counts_only(&ev->attr, cpu, pid)) {
		snprintf(err, errlen,
			 "\n  this PMU does not support sampling: it can only count, and amber-rec "
			 "records samples (amber-rec stat counts it)");
	} else if (e == EOPNOTSUPP && s->branch) {
		snprintf(err, errlen, "\n  this PMU cannot sample branch stacks (--branch)");
	} else if ((e == EOPNOTSUPP || e == EINVAL) && s->data) {
		snprintf(err, errlen, "\n  this PMU cannot sample data addresses (-d)");
	} else if ((e == EOPNOTSUPP || e == EINVAL) && ev->attr.precise_ip) {
		snprintf(err, errlen, "\n  this PMU has no precise sampling (the :p modifier)");
	} else if (e == EMFILE) {
		snprintf(err, errlen, "\n  too many open files: raise 'ulimit -n'");
	} else if (rec_probe_unsupported(e)) {
		rec_probe_why(&ev->attr, e, true, why, sizeof(why));
		snprintf(err, errlen, "\n  not supported here: %s", why);
	}
}

static size_t fd_index(const struct rec_evlist *el, size_t e, size_t c, size_t th)
{
	return (e * el->nr_cpus + c) * el->nr_threads + th;
}

/* Open event @e everywhere.  Returns 0 or -errno (message in @err). */
static int open_event(struct rec_evlist *el, size_t e, const struct rec_sampling *s,
		      const struct rec_target *t, char *err, size_t errlen)
{
	struct rec_event *ev = &el->events->v[e];
	bool per_thread = t->kind == REC_TARGET_PID || t->kind == REC_TARGET_TID;
	bool grouped_member = ev->leader >= 0 && (size_t)ev->leader != e;
	size_t opened = 0;

	for (size_t c = 0; c < el->nr_cpus; c++) {
		for (size_t th = 0; th < el->nr_threads; th++) {
			pid_t pid = t->kind == REC_TARGET_SYSTEM ? -1 : t->threads[th];
			int group = grouped_member ? el->fds[fd_index(el, (size_t)ev->leader, c, th)] : -1;
			unsigned long flags = PERF_FLAG_FD_CLOEXEC;
			int fd;

			if (grouped_member && group < 0)
				continue; /* the leader is missing here */
			/* -G: the cgroup's directory stands for the pid. */
			if (t->kind == REC_TARGET_SYSTEM && t->cgroup) {
				pid = t->cgroup_fd;
				flags |= PERF_FLAG_PID_CGROUP;
			}
			fd = sys_perf_event_open(&ev->attr, pid, t->cpus[c], group, flags);
			if (fd < 0) {
				int en = errno;

				/* A thread of -p may exit between listing and opening. */
				if (per_thread && en == ESRCH)
					continue;
				open_error(err, errlen, ev, s, t->cpus[c],
					   flags & PERF_FLAG_PID_CGROUP ? -1 : pid, en);
				return -en;
			}
			el->fds[fd_index(el, e, c, th)] = fd;
			if (ioctl(fd, PERF_EVENT_IOC_ID, &el->ids[fd_index(el, e, c, th)]) < 0) {
				int en = errno;

				snprintf(err, errlen, "event '%s' on cpu %d: PERF_EVENT_IOC_ID: %s",
					 ev->name, t->cpus[c], strerror(en));
				return -en;
			}
			opened++;
		}
	}
	if (!opened) {
		snprintf(err, errlen, "event '%s': every target thread has exited", ev->name);
		return -ESRCH;
	}
	return 0;
}

/* Close whatever open_event() managed to open of event @e. */
static void close_event(struct rec_evlist *el, size_t e)
{
	for (size_t c = 0; c < el->nr_cpus; c++)
		for (size_t th = 0; th < el->nr_threads; th++) {
			int *fd = &el->fds[fd_index(el, e, c, th)];

			if (*fd >= 0)
				close(*fd);
			*fd = -1;
		}
}

/* Give each CPU's first fd a ring and redirect every other fd into it. */
static int setup_rings(struct rec_evlist *el, const struct rec_target *t, unsigned pages,
		       char *err, size_t errlen)
{
	for (size_t c = 0; c < el->nr_cpus; c++) {
		struct rec_ring *ring = NULL;

		for (size_t e = 0; e < el->events->n; e++) {
			for (size_t th = 0; th < el->nr_threads; th++) {
				int fd = el->fds[fd_index(el, e, c, th)];
				int ret;

				if (fd < 0)
					continue;
				if (ring) {
					if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) < 0) {
						int en = errno;

						snprintf(err, errlen, "cpu %d: redirecting '%s' into the "
							 "CPU's ring: %s", t->cpus[c],
							 el->events->v[e].name, strerror(en));
						return -en;
					}
					continue;
				}
				ring = &el->rings[el->nr_rings];
				ret = rec_ring_mmap(ring, fd, t->cpus[c], pages);
				if (ret) {
					snprintf(err, errlen, "cpu %d: cannot map a ring of %u pages: %s%s",
						 t->cpus[c], pages, strerror(-ret),
						 ret == -EPERM ? " (see kernel.perf_event_mlock_kb, or use a smaller -m)" : "");
					return ret;
				}
				el->nr_rings++;
			}
		}
	}
	return 0;
}

/* Settings of event @e that do not depend on the kernel's answer. */
static void prepare_event(struct rec_event *ev, size_t e, const struct rec_sampling *s)
{
	bool leader = ev->leader < 0 || (size_t)ev->leader == e;

	rec_attr_apply(ev, s, e == 0);
	/* Groups start through their leader; CMD events start at exec. */
	ev->attr.disabled = leader;
	ev->attr.enable_on_exec = leader && s->enable_on_exec;
}

/*
 * Open event @e, stepping back as perf does when the kernel refuses: to
 * user space only when perf_event_paranoid forbids kernel samples of a
 * task, and to cpu-clock when there is no PMU for a hardware event.
 */
static int open_with_fallbacks(struct rec_evlist *el, size_t e, const struct rec_sampling *s,
			       const struct rec_target *t, char *err, size_t errlen)
{
	struct rec_event *ev = &el->events->v[e];
	bool per_task = t->kind != REC_TARGET_SYSTEM;
	int ret;

	prepare_event(ev, e, s);
	ret = open_event(el, e, s, t, err, errlen);
	/* P: the highest precise_ip the PMU takes, as perf's
	 * evsel__precise_ip_fallback() finds it. */
	while ((ret == -EOPNOTSUPP || ret == -EINVAL || ret == -ENOENT) && ev->precise_max &&
	       ev->attr.precise_ip) {
		close_event(el, e);
		ev->attr.precise_ip--;
		ret = open_event(el, e, s, t, err, errlen);
	}
	if ((ret == -EACCES || ret == -EPERM) && per_task && !ev->user_modifiers &&
	    !ev->attr.exclude_kernel && rec_proc_sys_long("perf_event_paranoid", 2) > 1) {
		close_event(el, e);
		ev->attr.exclude_kernel = 1;
		ev->attr.exclude_hv = 1;
		ret = open_event(el, e, s, t, err, errlen);
		if (!ret || ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ENODEV)
			amb_warn("kernel.perf_event_paranoid forbids kernel samples: "
				 "recording user space only for '%s'", ev->name);
	}
	if (ret && ev->implicit && is_hardware(&ev->attr) && !ev->fallback &&
	    rec_probe_unsupported(-ret)) {
		char *name = strdup(ev->name), why[256];

		rec_probe_why(&ev->attr, -ret, false, why, sizeof(why));
		close_event(el, e);
		ret = rec_events_fallback_cpu_clock(el->events, e);
		if (!ret) {
			amb_warn("the default event %s is not supported here (%s): sampling "
				 "cpu-clock instead (-e names the event to sample)",
				 name ? name : "event", why);
			ev = &el->events->v[e];
			prepare_event(ev, e, s);
			ret = open_event(el, e, s, t, err, errlen);
		}
		free(name);
	}
	return ret;
}

/*
 * perf's globs leave out what cannot be a perf event; so do ours: each
 * event a tracepoint glob expanded to is opened once on the first CPU
 * (and thread), and left out when the kernel refuses it (ftrace:function
 * has an id, yet perf_event_open() says EINVAL), with one warning per
 * glob saying how many.  A glob none of whose events opens is an error
 * naming it.  Events that lead others in a group are opened as usual.
 */
static int drop_unopenable(struct rec_event_list *events, const struct rec_sampling *s,
			   const struct rec_target *t, char *err, size_t errlen)
{
	pid_t pid = t->kind == REC_TARGET_SYSTEM ? -1 : t->threads[0];

	for (size_t i = 0; i < events->n;) {
		size_t total = 0, left = 0;
		char glob[300], first[300] = "";
		int first_err = 0;

		if (!events->v[i].glob) {
			i++;
			continue;
		}
		/* A copy: the events (and their strings) may be removed below. */
		snprintf(glob, sizeof(glob), "%s", events->v[i].glob);
		/* The events of one glob follow each other. */
		for (size_t k = i; k < events->n && events->v[k].glob &&
				   !strcmp(events->v[k].glob, glob);) {
			struct rec_event *ev = &events->v[k];
			int fd, en;

			total++;
			prepare_event(ev, k, s);
			fd = sys_perf_event_open(&ev->attr, pid, t->cpus[0], -1, PERF_FLAG_FD_CLOEXEC);
			if (fd >= 0) {
				close(fd);
				k++;
				continue;
			}
			en = errno;
			/* Not the event's fault: let the real open say what it is. */
			if (en == EMFILE || en == ENFILE || en == ENOMEM || en == ESRCH) {
				k++;
				continue;
			}
			if (!left) {
				snprintf(first, sizeof(first), "%s", ev->name);
				first_err = en;
			}
			/* Events before @k stay where they are: k is its place. */
			if (rec_events_remove(events, k)) {
				k++;
				continue;
			}
			left++;
		}
		if (left && left == total) {
			snprintf(err, errlen, "no event that '%s' matches can be opened here (%s: %s)",
				 glob, first, strerror(first_err));
			return -first_err;
		}
		if (left)
			amb_warn("'%s': left out %zu of its %zu tracepoints, which cannot be opened "
				 "here (%s: %s%s)", glob, left, total, first, strerror(first_err),
				 left > 1 ? ", ..." : "");
		i += total - left;
	}
	return 0;
}

int rec_evlist_open(struct rec_evlist *el, struct rec_event_list *events,
		    const struct rec_sampling *s, const struct rec_target *t,
		    unsigned pages, char *err, size_t errlen)
{
	size_t total;
	int ret;

	memset(el, 0, sizeof(*el));
	el->events = events;
	el->nr_cpus = t->nr_cpus;
	el->nr_threads = t->kind == REC_TARGET_SYSTEM || t->kind == REC_TARGET_CMD ? 1 : t->nr_threads;
	if (!events->n || !el->nr_cpus || !el->nr_threads) {
		snprintf(err, errlen, "nothing to open: %zu events, %zu CPUs, %zu threads",
			 events->n, el->nr_cpus, el->nr_threads);
		return -EINVAL;
	}
	if (el->nr_cpus > SIZE_MAX / el->nr_threads ||
	    events->n > SIZE_MAX / sizeof(*el->ids) / (el->nr_cpus * el->nr_threads)) {
		snprintf(err, errlen, "%zu events on %zu CPUs and %zu threads: too many to open",
			 events->n, el->nr_cpus, el->nr_threads);
		return -E2BIG;
	}
	/* Fewer events, never more: the checks above still hold. */
	ret = drop_unopenable(events, s, t, err, errlen);
	if (ret)
		return ret;
	total = events->n * el->nr_cpus * el->nr_threads;
	/* Every fd reads -1 before anything else can fail: rec_evlist_close()
	 * closes what is not -1. */
	el->fds = malloc(total * sizeof(*el->fds));
	if (!el->fds)
		return -ENOMEM;
	for (size_t i = 0; i < total; i++)
		el->fds[i] = -1;
	el->ids = calloc(total, sizeof(*el->ids));
	el->rings = calloc(el->nr_cpus, sizeof(*el->rings));
	if (!el->ids || !el->rings)
		return -ENOMEM;

	for (size_t e = 0; e < events->n; e++) {
		ret = open_with_fallbacks(el, e, s, t, err, errlen);
		if (ret)
			return ret;
	}
	return setup_rings(el, t, pages, err, errlen);
}

void rec_evlist_enable(struct rec_evlist *el, bool on)
{
	size_t total = el->events ? el->events->n * el->nr_cpus * el->nr_threads : 0;
	size_t per_event = el->nr_cpus * el->nr_threads;

	for (size_t i = 0; el->fds && i < total; i++) {
		if (el->fds[i] < 0 ||
		    !ioctl(el->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
			continue;
		/* An event that stays disabled records nothing: say so. */
		amb_warn("event '%s' (fd %zu of %zu): %s: %s", el->events->v[i / per_event].name,
			 i % per_event + 1, per_event,
			 on ? "PERF_EVENT_IOC_ENABLE" : "PERF_EVENT_IOC_DISABLE", strerror(errno));
	}
}

uint64_t rec_evlist_first_id(const struct rec_evlist *el, size_t e)
{
	size_t per = el->nr_cpus * el->nr_threads;

	for (size_t i = 0; i < per; i++)
		if (el->fds[e * per + i] >= 0)
			return el->ids[e * per + i];
	return 0;
}

void rec_evlist_close(struct rec_evlist *el)
{
	size_t total;

	if (!el || !el->events)
		return;
	total = el->events->n * el->nr_cpus * el->nr_threads;
	for (size_t r = 0; el->rings && r < el->nr_rings; r++)
		rec_ring_unmap(&el->rings[r]);
	for (size_t i = 0; el->fds && i < total; i++)
		if (el->fds[i] >= 0)
			close(el->fds[i]);
	free(el->fds);
	free(el->ids);
	free(el->rings);
	memset(el, 0, sizeof(*el));
}
