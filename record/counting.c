// SPDX-License-Identifier: MIT
/*
 * record/counting.c - open events for counting and read them by group.
 *
 * A group's members are scheduled on the PMU together or not at all, so
 * the ratios between them (IPC, miss rates) come from one window; the
 * leader starts disabled, and PERF_FORMAT_GROUP returns the whole group
 * with one time_enabled/time_running pair in one read(2)
 * ({nr, time_enabled, time_running, {value, id}[nr]}, perf_event.h's
 * read_format).  Ungrouped events are groups of one, so there is one way
 * to read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <amber/common.h>
#include "record/counting.h"
#include "record/events/probe.h"
#include "record/sysutil.h"

#define COUNTING_READ_FORMAT \
	(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | \
	 PERF_FORMAT_GROUP)

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

/* The group leader index the parser gave @e (its own index if alone). */
static size_t parsed_leader(const struct rec_event_list *l, size_t e)
{
	return l->v[e].leader >= 0 ? (size_t)l->v[e].leader : e;
}

/* The counting attr of event @e, leading its group as opened or not. */
static void counting_attr(struct rec_event *ev, bool lead, const struct rec_target *t)
{
	struct perf_event_attr *a = &ev->attr;

	a->size = sizeof(*a);
	a->sample_period = 0;
	a->freq = 0;
	a->sample_type = 0;
	a->read_format = COUNTING_READ_FORMAT;
	a->inherit = t->kind != REC_TARGET_SYSTEM;
	a->disabled = lead;
	a->enable_on_exec = lead && t->kind == REC_TARGET_CMD;
	a->watermark = 0;
	a->wakeup_events = 0;
}

/* "{a,b,c}" of the group of @e as parsed, or "'a'" for an event alone. */
static void group_name(const struct rec_event_list *l, size_t e, char *buf, size_t len)
{
	size_t lead = parsed_leader(l, e), off = 0;

	if (l->v[e].leader < 0) {
		snprintf(buf, len, "'%s'", l->v[e].name);
		return;
	}
	off += (size_t)snprintf(buf, len, "{");
	for (size_t i = 0; i < l->n && off < len; i++)
		if (l->v[i].leader >= 0 && (size_t)l->v[i].leader == lead)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off > 1 ? "," : "",
						l->v[i].name);
	if (off < len)
		snprintf(buf + off, len - off, "}");
}

static void open_error(const struct rec_counting *c, size_t e, size_t cell, int en, char *err,
		       size_t errlen)
{
	const struct rec_event *ev = &c->events->v[e];
	char why[256], where[64], group[512];

	rec_probe_why(&ev->attr, en, true, why, sizeof(why));
	if (c->tid[cell] > 0)
		snprintf(where, sizeof(where), "thread %d", (int)c->tid[cell]);
	else
		snprintf(where, sizeof(where), "cpu %d", c->cpu[cell]);
	group_name(c->events, e, group, sizeof(group));
	if (ev->leader >= 0)
		snprintf(err, errlen, "cannot count event '%s' of group %s (%s): %s", ev->name, group,
			 where, why);
	else
		snprintf(err, errlen, "cannot count event '%s' (%s): %s", ev->name, where, why);
}

static int set_unsupported(struct rec_counting *c, size_t e, int en)
{
	char why[256];

	rec_probe_why(&c->events->v[e].attr, en, false, why, sizeof(why));
	c->unsupported[e] = strdup(why);
	c->unsupported_err[e] = en;
	return c->unsupported[e] ? 0 : -ENOMEM;
}

/*
 * Open event @e at cell @cell as a member of the group led by event
 * @lead (-1: it leads).  Returns the fd, or -errno; on the first cell an
 * unsupported event is retried alone to tell "the machine has no such
 * counter" from "it cannot join this group".
 */
static int open_one(struct rec_counting *c, size_t e, size_t cell, int lead,
		    const struct rec_target *t, bool *alone_ok)
{
	struct rec_event *ev = &c->events->v[e];
	int group = lead >= 0 ? c->fds[rec_counting_at(c, (size_t)lead, cell)] : -1;
	pid_t pid = c->tid[cell];
	int fd, en;

	counting_attr(ev, lead < 0, t);
	fd = sys_perf_event_open(&ev->attr, pid, c->cpu[cell], group);
	if (fd >= 0)
		return fd;
	en = errno;
	/* As perf stat, and as the recorder: without the right to count the
	 * kernel, count user space and say so. */
	if ((en == EACCES || en == EPERM) && t->kind != REC_TARGET_SYSTEM &&
	    !ev->user_modifiers && !ev->attr.exclude_kernel &&
	    rec_proc_sys_long("perf_event_paranoid", 2) > 1) {
		ev->attr.exclude_kernel = 1;
		ev->attr.exclude_hv = 1;
		fd = sys_perf_event_open(&ev->attr, pid, c->cpu[cell], group);
		if (fd >= 0) {
			amb_warn("kernel.perf_event_paranoid forbids counting the kernel: counting "
				 "user space only for '%s'", ev->name);
			return fd;
		}
		en = errno;
	}
	*alone_ok = false;
	if (group >= 0 && cell == 0 && rec_probe_unsupported(en)) {
		counting_attr(ev, true, t);
		fd = sys_perf_event_open(&ev->attr, pid, c->cpu[cell], -1);
		if (fd >= 0) {
			close(fd);
			*alone_ok = true;
		}
	}
	return -en;
}

static int alloc_grid(struct rec_counting *c, const struct rec_target *t)
{
	size_t n = c->events->n, cells;

	if (t->kind == REC_TARGET_SYSTEM) {
		cells = t->nr_cpus;
	} else {
		cells = t->nr_threads;
	}
	if (!cells || !n || cells > SIZE_MAX / sizeof(struct amb_stat_count) / n)
		return -E2BIG;
	c->nr_cells = cells;
	c->cpu = calloc(cells, sizeof(*c->cpu));
	c->tid = calloc(cells, sizeof(*c->tid));
	c->fds = malloc(n * cells * sizeof(*c->fds));
	c->ids = calloc(n * cells, sizeof(*c->ids));
	c->now = calloc(n * cells, sizeof(*c->now));
	c->have = calloc(n * cells, sizeof(*c->have));
	c->lead = malloc(n * sizeof(*c->lead));
	c->unsupported = calloc(n, sizeof(*c->unsupported));
	c->unsupported_err = calloc(n, sizeof(*c->unsupported_err));
	if (!c->cpu || !c->tid || !c->fds || !c->ids || !c->now || !c->have || !c->lead ||
	    !c->unsupported || !c->unsupported_err)
		return -ENOMEM;
	for (size_t i = 0; i < n * cells; i++)
		c->fds[i] = -1;
	for (size_t i = 0; i < n; i++)
		c->lead[i] = -1;
	for (size_t i = 0; i < cells; i++) {
		c->cpu[i] = t->kind == REC_TARGET_SYSTEM ? t->cpus[i] : -1;
		c->tid[i] = t->kind == REC_TARGET_SYSTEM ? -1 : t->threads[i];
	}
	return 0;
}

/* Open the group whose parsed leader is @g, member by member. */
static int open_group(struct rec_counting *c, size_t g, const struct rec_target *t, char *err,
		      size_t errlen)
{
	struct rec_event_list *l = c->events;
	int lead = -1;

	for (size_t e = g; e < l->n; e++) {
		bool alone_ok = false;
		int fd;

		if (parsed_leader(l, e) != g)
			continue;
		/* The first cell decides who is in the group and who leads. */
		if (lead >= 0 && c->fds[rec_counting_at(c, (size_t)lead, 0)] < 0)
			fd = -ESRCH; /* the leader's thread exited */
		else
			fd = open_one(c, e, 0, lead, t, &alone_ok);
		if (fd == -ESRCH && t->kind != REC_TARGET_SYSTEM && t->kind != REC_TARGET_CMD &&
		    c->nr_cells > 1) {
			/* A thread of -p exited: the other cells decide. */
			fd = -ESRCH;
		} else if (fd < 0 && rec_probe_unsupported(-fd) && !alone_ok) {
			int ret = set_unsupported(c, e, -fd);

			if (ret)
				return ret;
			continue;
		} else if (fd < 0) {
			if (alone_ok) {
				char group[512], why[256];

				group_name(l, e, group, sizeof(group));
				rec_probe_why(&l->v[e].attr, -fd, true, why, sizeof(why));
				snprintf(err, errlen, "event '%s' counts alone but not in group %s: "
					 "%s; count it outside the group", l->v[e].name, group, why);
			} else {
				open_error(c, e, 0, -fd, err, errlen);
			}
			return fd;
		}
		if (fd >= 0)
			c->fds[rec_counting_at(c, e, 0)] = fd;
		c->lead[e] = lead >= 0 ? lead : (int)e;
		for (size_t cell = 1; cell < c->nr_cells; cell++) {
			if (lead >= 0 && c->fds[rec_counting_at(c, (size_t)lead, cell)] < 0)
				continue; /* the leader is not there */
			fd = open_one(c, e, cell, lead, t, &alone_ok);
			/* A thread of -p may exit between listing and opening; a
			 * PMU may be missing on some CPUs (hybrid machines). */
			if (fd == -ESRCH || (fd < 0 && rec_probe_unsupported(-fd)))
				continue;
			if (fd < 0) {
				open_error(c, e, cell, -fd, err, errlen);
				return fd;
			}
			c->fds[rec_counting_at(c, e, cell)] = fd;
		}
		if (lead < 0)
			lead = (int)e;
	}
	return 0;
}

int rec_counting_open(struct rec_counting *c, struct rec_event_list *events,
		      const struct rec_target *t, char *err, size_t errlen)
{
	bool any = false;
	int ret;

	memset(c, 0, sizeof(*c));
	c->events = events;
	ret = alloc_grid(c, t);
	if (ret) {
		snprintf(err, errlen, "%zu events on %s: %s", events->n,
			 t->kind == REC_TARGET_SYSTEM ? "these CPUs" : "these threads",
			 ret == -ENOMEM ? "out of memory" : "too many to open");
		return ret;
	}
	for (size_t g = 0; g < events->n; g++) {
		if (parsed_leader(events, g) != g)
			continue;
		ret = open_group(c, g, t, err, errlen);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < events->n * c->nr_cells; i++) {
		if (c->fds[i] < 0)
			continue;
		if (ioctl(c->fds[i], PERF_EVENT_IOC_ID, &c->ids[i]) < 0) {
			ret = -errno;
			snprintf(err, errlen, "event '%s': PERF_EVENT_IOC_ID: %s",
				 events->v[i / c->nr_cells].name, strerror(-ret));
			return ret;
		}
		any = true;
	}
	if (!any && t->kind != REC_TARGET_SYSTEM && t->kind != REC_TARGET_CMD) {
		for (size_t e = 0; e < events->n; e++)
			if (!c->unsupported[e]) {
				snprintf(err, errlen, "every target thread has exited");
				return -ESRCH;
			}
	}
	return 0;
}

void rec_counting_enable(struct rec_counting *c, bool on)
{
	for (size_t e = 0; c->fds && e < c->events->n; e++) {
		if (c->lead[e] != (int)e)
			continue;
		for (size_t cell = 0; cell < c->nr_cells; cell++) {
			int fd = c->fds[rec_counting_at(c, e, cell)];

			if (fd < 0 || !ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
					     PERF_IOC_FLAG_GROUP))
				continue;
			amb_warn("group of '%s': %s: %s", c->events->v[e].name,
				 on ? "PERF_EVENT_IOC_ENABLE" : "PERF_EVENT_IOC_DISABLE",
				 strerror(errno));
		}
	}
}

/* The member of the group led by @lead at @cell whose fd has id @id. */
static int member_of(const struct rec_counting *c, size_t lead, size_t cell, uint64_t id)
{
	for (size_t e = lead; e < c->events->n; e++) {
		size_t i = rec_counting_at(c, e, cell);

		if (c->lead[e] == (int)lead && c->fds[i] >= 0 && c->ids[i] == id)
			return (int)e;
	}
	return -1;
}

size_t rec_counting_read(struct rec_counting *c)
{
	size_t n = c->events->n, groups = 0;
	/* {nr, enabled, running} then {value, id} per member. */
	size_t words = 3 + 2 * n;
	uint64_t *buf = malloc(words * sizeof(*buf));

	if (!buf)
		return 0;
	for (size_t e = 0; e < n; e++) {
		if (c->lead[e] != (int)e)
			continue;
		for (size_t cell = 0; cell < c->nr_cells; cell++) {
			int fd = c->fds[rec_counting_at(c, e, cell)];
			ssize_t r;

			if (fd < 0)
				continue;
			do
				r = read(fd, buf, words * sizeof(*buf));
			while (r < 0 && errno == EINTR);
			if (r < (ssize_t)(3 * sizeof(*buf)) || buf[0] > n ||
			    (size_t)r < (3 + 2 * buf[0]) * sizeof(*buf)) {
				amb_warn("group of '%s' (%s %d): cannot read the counts: %s",
					 c->events->v[e].name, c->tid[cell] > 0 ? "thread" : "cpu",
					 c->tid[cell] > 0 ? (int)c->tid[cell] : c->cpu[cell],
					 r < 0 ? strerror(errno) : "short read");
				continue;
			}
			for (uint64_t k = 0; k < buf[0]; k++) {
				int m = member_of(c, e, cell, buf[3 + 2 * k + 1]);
				size_t i;

				if (m < 0)
					continue;
				i = rec_counting_at(c, (size_t)m, cell);
				c->now[i] = (struct amb_stat_count){ buf[3 + 2 * k], buf[1], buf[2] };
				c->have[i] = true;
			}
			groups++;
		}
	}
	free(buf);
	return groups;
}

void rec_counting_close(struct rec_counting *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->fds && c->events && i < c->events->n * c->nr_cells; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	for (size_t e = 0; c->unsupported && c->events && e < c->events->n; e++)
		free(c->unsupported[e]);
	free(c->cpu);
	free(c->tid);
	free(c->fds);
	free(c->ids);
	free(c->now);
	free(c->have);
	free(c->lead);
	free(c->unsupported);
	free(c->unsupported_err);
	memset(c, 0, sizeof(*c));
}
