/* SPDX-License-Identifier: MIT */
/*
 * record/sysutil.h - small questions to the system that capture code and
 * describe code both ask (sysutil.c): the clock, and /proc/sys/kernel.
 */
#ifndef AMB_REC_SYSUTIL_H
#define AMB_REC_SYSUTIL_H

#include <stdint.h>
#include <time.h>

/* Clock @id now, in nanoseconds. */
uint64_t rec_clock_ns(clockid_t id);

/* CLOCK_MONOTONIC now, in nanoseconds: the perf clock the recorder asks
 * every event for. */
uint64_t rec_now_ns(void);

/* /proc/sys/kernel/@name read as an integer (e.g. "perf_event_paranoid");
 * @def when it cannot be read or is not a number. */
long rec_proc_sys_long(const char *name, long def);

#endif /* AMB_REC_SYSUTIL_H */
