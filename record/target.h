/* SPDX-License-Identifier: MIT */
/*
 * record/target.h - what to record (target.c): a forked command, the
 * threads of -p/-t, the CPUs.
 */
#ifndef AMB_REC_TARGET_H
#define AMB_REC_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "record/options.h"

enum rec_target_kind {
	REC_TARGET_CMD,     /* a command we fork and exec */
	REC_TARGET_PID,     /* -p: all threads of running processes */
	REC_TARGET_TID,     /* -t: single threads */
	REC_TARGET_SYSTEM,  /* -a, -C or -G: every task on the CPUs (while a
			     * command runs, when one is given); with -G only
			     * those of a cgroup */
};

/* What is recorded: CPUs, threads and processes, and the forked command. */
struct rec_target {
	enum rec_target_kind kind;
	int *cpus;          /* CPUs to open events on */
	size_t nr_cpus;
	pid_t *threads;     /* per-thread opens (PID/TID), or the child (CMD) */
	size_t nr_threads, cap_threads;
	pid_t *procs;       /* processes to synthesize (PID/TID: their tgids) */
	size_t nr_procs, cap_procs;
	pid_t child;        /* the forked command (CMD, or SYSTEM with one), else 0 */
	int go_fd;          /* CMD: writing a byte lets the child exec */
	int err_fd;         /* CMD: carries errno of a failed exec (CLOEXEC pipe) */
	const char *cgroup; /* -G (SYSTEM): the cgroup's name, else NULL */
	int cgroup_fd;      /* ... and its directory, when cgroup is set */
	const char *user;   /* -u (PID): as given, else NULL */
	uid_t uid;          /* ... its user id: the processes it ran at the start */
};

/*
 * Fill @t from @o: the CPU list (-C or every online CPU), the threads of
 * -p/-t (read from /proc/PID/task) or of the processes whose real user id
 * is -u's, the cgroup of -G (opened), or fork the command, which then
 * waits until rec_target_start() (and gets SIGKILL if amber-rec dies: it
 * never runs on unobserved, PR_SET_PDEATHSIG).  Errors: -ESRCH for a
 * missing process or a user without one (message in @err), -EINVAL for a
 * bad CPU list or an unknown user, -errno from fork/pipe or opening the
 * cgroup.
 */
int rec_target_init(struct rec_target *t, const struct rec_opts *o, char *err, size_t errlen);

/*
 * Whether the command @cmd can be executed, searched in $PATH as
 * execvp() does, checked before anything is recorded.  Returns 0, or
 * -ENOENT / -EACCES (the exit statuses 127 / 126) with a message in @err.
 * An exec can still fail later (a file of the wrong format): the
 * recording then holds no sample, and the summary says so.
 */
int rec_target_check_cmd(const char *cmd, char *err, size_t errlen);

/* CMD: let the child exec.  Returns 0, or -errno of a failed exec. */
int rec_target_start(struct rec_target *t);

/* True while at least one target process still exists (always true for
 * SYSTEM).  CMD: reaps the child and stores its wait status. */
bool rec_target_alive(struct rec_target *t, int *wstatus);

/* Kill and reap a CMD child that never ran; free the arrays. */
void rec_target_free(struct rec_target *t);

/* Read the threads of process @pid from /proc/PID/task into a malloc'ed
 * array.  Returns the count or -errno (-ESRCH when it does not exist). */
int rec_proc_threads(pid_t pid, pid_t **out);

/* waitpid(@pid, @wstatus, 0), retried on EINTR.  Returns waitpid's value. */
pid_t rec_reap(pid_t pid, int *wstatus);

#endif /* AMB_REC_TARGET_H */
