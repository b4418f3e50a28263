// SPDX-License-Identifier: MIT
/*
 * record/sysutil.c - the clock and /proc/sys/kernel knobs, asked by the
 * capture code (the drain's flush timer, the sampling rate limit) and the
 * describe code (META) alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "record/sysutil.h"
#include "common/util.h"

uint64_t rec_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rec_now_ns(void)
{
	return rec_clock_ns(CLOCK_MONOTONIC);
}

long rec_proc_sys_long(const char *name, long def)
{
	char path[256], *text, *end;
	long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	text = amb_read_file(path, 64, NULL);
	if (!text)
		return def;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text)
		v = def;
	free(text);
	return v;
}
