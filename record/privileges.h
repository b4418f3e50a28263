/* SPDX-License-Identifier: MIT */
/*
 * record/privileges.h - what a recording needs of the kernel's
 * permissions, checked before anything is opened (privileges.c): the
 * perf_event_paranoid level, CAP_PERFMON / CAP_SYS_ADMIN, tracefs access,
 * the locked-memory limit of the rings, and kptr_restrict hiding kernel
 * addresses.  What is missing is said with how to get it, instead of the
 * bare EACCES perf_event_open would give.
 */
#ifndef AMB_REC_PRIVILEGES_H
#define AMB_REC_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What this process may do (rec_priv_probe). */
struct rec_priv_state {
	long paranoid;             /* kernel.perf_event_paranoid; LONG_MIN: no perf events */
	long kptr_restrict;        /* kernel.kptr_restrict; -1 unknown */
	long mlock_kb;             /* kernel.perf_event_mlock_kb */
	uint64_t memlock_bytes;    /* RLIMIT_MEMLOCK, UINT64_MAX: unlimited */
	unsigned uid;
	bool cap_perfmon, cap_sys_admin, cap_syslog, cap_ipc_lock;
	const char *tracefs;       /* tracefs mount point, or NULL */
	int tracefs_errno;         /* why not: ENOENT, EACCES */
};

/* Fill @st for this process from /proc/sys/kernel, /proc/self/status,
 * getrlimit and tracefs (when @tracepoints: it may be mounted). */
void rec_priv_probe(struct rec_priv_state *st, bool tracepoints);

/* What a recording is about to open. */
struct rec_priv_need {
	bool cpu_wide;             /* -a, -C, -G: events on every task of a CPU */
	const char *cpu_wide_why;  /* the option that asks for it, for messages */
	bool kernel;               /* some event samples kernel space too */
	bool raw_tracepoints;      /* tracepoints other than syscalls' (RAW samples) */
	bool tracepoints;          /* any tracepoint (tracefs is read) */
	unsigned ring_pages;       /* data pages per ring */
	size_t nr_rings;
	size_t page_size;
};

/* Whether @st may open events on every task of a CPU, kernel samples
 * included. */
bool rec_priv_perfmon(const struct rec_priv_state *st);

/*
 * Check @need against @st.  Returns 0 when the recording can go on -
 * perhaps with less: @notes (may be NULL) then holds lines for amb_warn()
 * separated by '\n' (kernel samples left out, kernel symbols hidden) - or
 * -EACCES with a message for the user in @err: what is missing, why, and
 * each way of getting it.  Pure: tests call it with made-up states.
 */
int rec_priv_check(const struct rec_priv_need *need, const struct rec_priv_state *st,
		   char *err, size_t errlen, char *notes, size_t noteslen);

/*
 * The largest ring (data pages, a power of two, at most @want) that
 * @nr_rings rings may have under @st's locked-memory limit; @want when the
 * limit does not apply (CAP_IPC_LOCK, perf_event_paranoid -1).  0 when
 * even one page each does not fit.
 */
unsigned rec_priv_ring_pages(const struct rec_priv_state *st, unsigned want, size_t nr_rings,
			     size_t page_size);

/* Why tracefs cannot be read (@tracefs_errno: EACCES, or ENOENT when not
 * mounted) by user @uid, and how to fix it, into @buf. */
void rec_priv_tracefs_why(int tracefs_errno, unsigned uid, char *buf, size_t len);

/* Whether kernel addresses in /proc/kallsyms are shown to @st. */
bool rec_priv_kallsyms_visible(const struct rec_priv_state *st);

#endif /* AMB_REC_PRIVILEGES_H */
