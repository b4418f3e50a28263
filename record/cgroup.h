/* SPDX-License-Identifier: MIT */
/*
 * record/cgroup.h - the cgroup of -G (cgroup.c): where the perf_event
 * controller's hierarchy is mounted, and a cgroup's directory, whose
 * descriptor perf_event_open takes with PERF_FLAG_PID_CGROUP.
 */
#ifndef AMB_REC_CGROUP_H
#define AMB_REC_CGROUP_H

#include <stddef.h>

/*
 * From /proc/self/mountinfo text @info: the mount point of the hierarchy
 * perf_event uses - a cgroup v1 mount whose options name perf_event, else
 * the cgroup2 mount (the controller is on v2 unless v1 claims it) - into
 * @out (@outlen bytes, octal escapes such as \040 decoded).  Returns 0 or
 * -ENOENT (none mounted), -ENAMETOOLONG.
 */
int rec_cgroup_mount(const char *info, char *out, size_t outlen);

/*
 * Open cgroup @name - a path relative to the perf_event hierarchy
 * ("system.slice/foo.service", as perf -G takes it; a leading '/' is
 * allowed), or the absolute path of its directory - as a directory.
 * Returns the descriptor (close-on-exec) or -errno with a message for the
 * user in @err.
 */
int rec_cgroup_open(const char *name, char *err, size_t errlen);

#endif /* AMB_REC_CGROUP_H */
