// SPDX-License-Identifier: MIT
/*
 * record/privileges.c - the kernel's rules for perf_event_open(2), asked
 * before opening anything, so that a refusal names what is missing and
 * the ways to get it.
 *
 * kernel.perf_event_paranoid (Documentation/admin-guide/sysctl/kernel.rst,
 * kernel/events/core.c): without CAP_PERFMON (or CAP_SYS_ADMIN before
 * Linux 5.8, which perfmon_capable() still accepts)
 *   >= 2  no kernel samples (exclude_kernel is required),
 *   >= 1  no events on a whole CPU (-a, -C, -G),
 *   >= 0  no raw tracepoint data (PERF_SAMPLE_RAW; syscall tracepoints of
 *         one's own tasks excepted),
 *   -1    everything;
 * and Debian and Ubuntu kernels read 3 as "no perf_event_open at all".
 * Ring buffers are locked memory: beyond kernel.perf_event_mlock_kb per
 * CPU the user's RLIMIT_MEMLOCK applies, unless CAP_IPC_LOCK or -1.
 * /proc/kallsyms shows addresses when kptr_restrict is 0 and
 * perf_event_paranoid <= 1, or kptr_restrict <= 1 and CAP_SYSLOG.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/util.h"
#include "record/events/tracefs.h"
#include "record/privileges.h"
#include "record/sysutil.h"

#define CAP_BIT_IPC_LOCK   14
#define CAP_BIT_SYS_ADMIN  21
#define CAP_BIT_SYSLOG     34
#define CAP_BIT_PERFMON    38

void rec_priv_probe(struct rec_priv_state *st, bool tracepoints)
{
	struct rlimit rl;
	unsigned long long eff = 0;
	char *status;

	memset(st, 0, sizeof(*st));
	st->paranoid = rec_proc_sys_long("perf_event_paranoid", LONG_MIN);
	st->kptr_restrict = rec_proc_sys_long("kptr_restrict", -1);
	st->mlock_kb = rec_proc_sys_long("perf_event_mlock_kb", 516);
	st->uid = (unsigned)geteuid();
	st->memlock_bytes = UINT64_MAX;
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		st->memlock_bytes = (uint64_t)rl.rlim_cur;
	status = amb_read_file("/proc/self/status", 1 << 16, NULL);
	if (status) {
		const char *p = strstr(status, "\nCapEff:");

		if (p)
			eff = strtoull(p + 8, NULL, 16);
		free(status);
	}
	st->cap_perfmon = eff >> CAP_BIT_PERFMON & 1;
	st->cap_sys_admin = eff >> CAP_BIT_SYS_ADMIN & 1;
	st->cap_syslog = eff >> CAP_BIT_SYSLOG & 1;
	st->cap_ipc_lock = eff >> CAP_BIT_IPC_LOCK & 1;
	if (tracepoints) {
		st->tracefs = rec_tracefs_root();
		st->tracefs_errno = st->tracefs ? 0 : errno;
	}
}

bool rec_priv_perfmon(const struct rec_priv_state *st)
{
	return st->cap_perfmon || st->cap_sys_admin;
}

bool rec_priv_kallsyms_visible(const struct rec_priv_state *st)
{
	if (st->kptr_restrict == 0 && (st->paranoid <= 1 || st->cap_syslog))
		return true;
	return st->kptr_restrict == 1 && st->cap_syslog;
}

/* Locked pages the user may have for rings: perf_event_mlock_kb per CPU
 * (the kernel multiplies by the online CPUs; one ring per CPU here) and
 * RLIMIT_MEMLOCK beyond it.  UINT64_MAX when no limit applies. */
static uint64_t lockable_pages(const struct rec_priv_state *st, size_t nr_rings, size_t psz)
{
	if (st->cap_ipc_lock || st->paranoid <= -1 || st->memlock_bytes == UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)(st->mlock_kb > 0 ? st->mlock_kb : 0) * 1024 / psz * nr_rings +
	       st->memlock_bytes / psz;
}

unsigned rec_priv_ring_pages(const struct rec_priv_state *st, unsigned want, size_t nr_rings,
			     size_t page_size)
{
	uint64_t limit = lockable_pages(st, nr_rings, page_size ? page_size : 4096);
	unsigned pages = want;

	if (limit == UINT64_MAX || !nr_rings)
		return want;
	/* Each ring maps its data pages and one metadata page. */
	while (pages && ((uint64_t)pages + 1) * nr_rings > limit)
		pages /= 2;
	return pages;
}

/* Append to @buf (@len, NUL-terminated) like snprintf. */
static void add(char *buf, size_t len, const char *fmt, ...) AMB_PRINTF(3, 4);
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strnlen(buf, len);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* The ways to be allowed what needs perf_event_paranoid <= @level. */
static void ways(char *err, size_t errlen, long level)
{
	add(err, errlen,
	    "\n  Any one of these allows it:"
	    "\n    run amber-rec as root (sudo amber-rec ...);"
	    "\n    give it the capabilities (Linux 5.8 or later): "
	    "sudo setcap cap_perfmon,cap_ipc_lock,cap_syslog+ep amber-rec;"
	    "\n    lower the limit for every user: sudo sysctl kernel.perf_event_paranoid=%ld",
	    level);
}

void rec_priv_tracefs_why(int tracefs_errno, unsigned uid, char *buf, size_t len)
{
	if (tracefs_errno == EACCES)
		snprintf(buf, len, "tracepoints are read from tracefs, which you (uid %u) may "
			 "not read.\n  Run as root, or let a group of yours read it: "
			 "sudo chgrp -R GROUP /sys/kernel/tracing && "
			 "sudo chmod -R g+rx /sys/kernel/tracing", uid);
	else
		snprintf(buf, len, "tracepoints are read from tracefs, which is not mounted "
			 "here.\n  Mount it (as root): mount -t tracefs nodev /sys/kernel/tracing");
}

int rec_priv_check(const struct rec_priv_need *need, const struct rec_priv_state *st,
		   char *err, size_t errlen, char *notes, size_t noteslen)
{
	bool perfmon = rec_priv_perfmon(st);
	uint64_t limit;

	err[0] = '\0';
	if (notes && noteslen)
		notes[0] = '\0';
	if (st->paranoid == LONG_MIN) {
		snprintf(err, errlen, "this kernel has no perf events "
			 "(/proc/sys/kernel/perf_event_paranoid is missing: built without "
			 "CONFIG_PERF_EVENTS, or /proc is not mounted)");
		return -EACCES;
	}
	if (need->tracepoints && !st->tracefs) {
		rec_priv_tracefs_why(st->tracefs_errno, st->uid, err, errlen);
		return -EACCES;
	}
	if (perfmon)
		goto allowed;
	if (need->cpu_wide && st->paranoid > 0) {
		snprintf(err, errlen, "%s records every task on a CPU, which needs CAP_PERFMON "
			 "(or CAP_SYS_ADMIN) or kernel.perf_event_paranoid 0 or less; you "
			 "(uid %u) have no such capability and perf_event_paranoid is %ld.",
			 need->cpu_wide_why ? need->cpu_wide_why : "-a", st->uid, st->paranoid);
		ways(err, errlen, 0);
		add(err, errlen, "\n  Without them you may record your own commands and "
		    "processes: amber-rec -- COMMAND, amber-rec -p PID");
		return -EACCES;
	}
	if (need->raw_tracepoints && st->paranoid > -1) {
		snprintf(err, errlen, "tracepoint samples carry the kernel's raw event data, "
			 "which needs CAP_PERFMON (or CAP_SYS_ADMIN) or "
			 "kernel.perf_event_paranoid -1; you (uid %u) have no such capability and "
			 "perf_event_paranoid is %ld.", st->uid, st->paranoid);
		ways(err, errlen, -1);
		return -EACCES;
	}
	if (st->paranoid >= 3 && notes)
		add(notes, noteslen, "kernel.perf_event_paranoid is %ld: Debian and Ubuntu "
		    "kernels then refuse perf_event_open to every user without CAP_PERFMON "
		    "(sudo sysctl kernel.perf_event_paranoid=2 allows user-space samples "
		    "of your own processes)\n", st->paranoid);
	if (need->kernel && st->paranoid > 1 && notes)
		add(notes, noteslen, "kernel.perf_event_paranoid is %ld: without CAP_PERFMON only "
		    "user space is sampled (uid %u); kernel samples need "
		    "perf_event_paranoid 1 or less, or root\n", st->paranoid, st->uid);
allowed:
	limit = lockable_pages(st, need->nr_rings, need->page_size ? need->page_size : 4096);
	if (limit != UINT64_MAX &&
	    ((uint64_t)need->ring_pages + 1) * need->nr_rings > limit) {
		snprintf(err, errlen, "%zu ring buffers of %u pages lock %llu KiB of memory; "
			 "you may lock %llu KiB (kernel.perf_event_mlock_kb %ld per CPU, then "
			 "'ulimit -l' %llu KiB).\n  Use a smaller -m (%u fits), raise 'ulimit -l', "
			 "or give amber-rec CAP_IPC_LOCK", need->nr_rings, need->ring_pages,
			 (unsigned long long)(((uint64_t)need->ring_pages + 1) * need->nr_rings *
					      need->page_size / 1024),
			 (unsigned long long)(limit * need->page_size / 1024), st->mlock_kb,
			 (unsigned long long)(st->memlock_bytes / 1024),
			 rec_priv_ring_pages(st, need->ring_pages, need->nr_rings, need->page_size));
		return -EACCES;
	}
	/* Kernel samples that will be taken, but not named. */
	if (notes && need->kernel && (perfmon || st->paranoid <= 1) &&
	    !rec_priv_kallsyms_visible(st))
		add(notes, noteslen, "kernel.kptr_restrict is %ld: /proc/kallsyms hides kernel "
		    "addresses from you (uid %u), so kernel frames will not be named; "
		    "sudo sysctl kernel.kptr_restrict=0, or CAP_SYSLOG, shows them\n",
		    st->kptr_restrict, st->uid);
	return 0;
}
