// SPDX-License-Identifier: MIT
/*
 * record/target.c - what to record: a command we fork (it waits on a pipe
 * until the events are open, then execs, so enable_on_exec starts counting
 * exactly at exec), running processes (-p) or threads (-t), or every task
 * on a set of CPUs (-a, -C).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "record/cgroup.h"
#include "record/target.h"

#define MAX_CPUS 4096

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int rec_proc_threads(pid_t pid, pid_t **out)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	pid_t *v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		if (amb_ensure_cap((void **)&v, &cap, sizeof(*v), n + 1)) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v[n++] = (pid_t)tid;
	}
	closedir(d);
	if (!n) {
		free(v);
		return -ESRCH;
	}
	qsort(v, n, sizeof(*v), cmp_pid);
	*out = v;
	return (int)n;
}

/* Append @p to the array *@v of *@n pids with room for *@cap. */
static int push_pid(pid_t **v, size_t *n, size_t *cap, pid_t p)
{
	if (amb_ensure_cap((void **)v, cap, sizeof(**v), *n + 1))
		return -ENOMEM;
	(*v)[(*n)++] = p;
	return 0;
}

/* The thread group (process) of thread @tid, from /proc/TID/status. */
static pid_t thread_tgid(pid_t tid)
{
	char path[64], *s, *p;
	pid_t tgid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	s = amb_read_file(path, 1 << 16, NULL);
	if (!s)
		return 0;
	p = strstr(s, "\nTgid:");
	if (p)
		tgid = (pid_t)strtol(p + 6, NULL, 10);
	free(s);
	return tgid;
}

static int init_cpus(struct rec_target *t, const char *list, char *err, size_t errlen)
{
	uint64_t set[MAX_CPUS / 64] = { 0 };
	char *online = NULL;
	int n;

	if (!list) {
		online = amb_read_file("/sys/devices/system/cpu/online", 4096, NULL);
		if (!online) {
			snprintf(err, errlen, "cannot read /sys/devices/system/cpu/online: %s",
				 strerror(errno));
			return -errno;
		}
		online[strcspn(online, "\n")] = '\0';
		list = online;
	}
	n = amb_cpulist_parse(list, set, MAX_CPUS);
	if (n <= 0) {
		snprintf(err, errlen, "invalid CPU list '%s'", list);
		free(online);
		return -EINVAL;
	}
	free(online);
	t->cpus = calloc((size_t)n, sizeof(*t->cpus));
	if (!t->cpus)
		return -ENOMEM;
	for (int c = 0; c < MAX_CPUS; c++)
		if (set[c / 64] >> (c % 64) & 1)
			t->cpus[t->nr_cpus++] = c;
	return 0;
}

/* Child side of the fork: wait for the go byte, exec, report errno. */
static void __attribute__((noreturn)) child_main(int go_rd, int err_wr, char **argv,
						 pid_t recorder)
{
	ssize_t r;
	char c;
	int e;

	/* A command amber-rec no longer observes does not run on: when the
	 * recorder dies (killed with SIGKILL, by the OOM killer), the command
	 * gets SIGKILL too.  The setting survives the exec (not of a set-uid
	 * program).  The recorder may have died before it was made. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != recorder)
		_exit(127);
	/* amber-rec's handlers only set its stop flag: the command gets the
	 * defaults, also while it waits below. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	/* If amber-rec dies before saying go, the read returns 0. */
	do
		r = read(go_rd, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		_exit(127);
	close(go_rd);
	execvp(argv[0], argv);
	e = errno;
	do
		r = write(err_wr, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	_exit(127);
}

static int fork_cmd(struct rec_target *t, char **argv, char *err, size_t errlen)
{
	pid_t pid, self = getpid();
	int go[2], ex[2];

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ex, O_CLOEXEC)) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		snprintf(err, errlen, "cannot fork for '%s': %s", argv[0], strerror(-e));
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return e;
	}
	if (pid == 0) {
		close(go[1]);
		close(ex[0]);
		child_main(go[0], ex[1], argv, self);
	}
	close(go[0]);
	close(ex[1]);
	t->child = pid;
	t->go_fd = go[1];
	t->err_fd = ex[0];
	return push_pid(&t->threads, &t->nr_threads, &t->cap_threads, pid);
}

int rec_target_check_cmd(const char *cmd, char *err, size_t errlen)
{
	const char *path = getenv("PATH");
	char full[4096];
	int e = ENOENT;

	/* execvp()'s search: a name with a slash is the file itself. */
	if (strchr(cmd, '/')) {
		if (!access(cmd, X_OK))
			return 0;
		e = errno;
	} else {
		if (!path)
			path = "/bin:/usr/bin";
		for (const char *p = path; ; p++) {
			const char *end = strchrnul(p, ':');
			int n = end == p ? snprintf(full, sizeof(full), "./%s", cmd)
					 : snprintf(full, sizeof(full), "%.*s/%s", (int)(end - p), p, cmd);

			if (n > 0 && (size_t)n < sizeof(full)) {
				if (!access(full, X_OK))
					return 0;
				/* execvp() reports EACCES when some candidate had it. */
				if (errno == EACCES)
					e = EACCES;
			}
			if (!*end)
				break;
			p = end;
		}
	}
	snprintf(err, errlen, "cannot run '%s': %s", cmd, strerror(e));
	return -e;
}

/* -u: a user name or number into *@uid. */
static int parse_user(const char *user, uid_t *uid, char *err, size_t errlen)
{
	struct passwd pw, *res = NULL;
	char buf[16384], *end;
	unsigned long v;
	int e;

	errno = 0;
	v = strtoul(user, &end, 10);
	if (!*end && end != user && !errno && v < (unsigned long)(uid_t)-1) {
		*uid = (uid_t)v;
		return 0;
	}
	e = getpwnam_r(user, &pw, buf, sizeof(buf), &res);
	if (!res) {
		snprintf(err, errlen, "-u %s: no such user%s%s", user, e ? ": " : "",
			 e ? strerror(e) : "");
		return -EINVAL;
	}
	*uid = pw.pw_uid;
	return 0;
}

/* The real user id of process @pid, from /proc/PID/status; -1 when gone. */
static long proc_real_uid(long pid)
{
	char path[64], *s, *p;
	long uid = -1;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	s = amb_read_file(path, 1 << 16, NULL);
	if (!s)
		return -1;
	p = strstr(s, "\nUid:");
	if (p)
		uid = strtol(p + 5, NULL, 10);
	free(s);
	return uid;
}

/* -u: every thread of every process of user t->uid now running, but ours
 * (perf's -u).  Children they start later are followed (inherit). */
static int init_user(struct rec_target *t, char *err, size_t errlen)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int ret = 0;

	if (!d) {
		ret = -errno;
		snprintf(err, errlen, "-u %s: cannot list /proc: %s", t->user, strerror(-ret));
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		pid_t *tids = NULL;
		int n;

		if (*end || pid <= 0 || pid == (long)getpid() || proc_real_uid(pid) != (long)t->uid)
			continue;
		n = rec_proc_threads((pid_t)pid, &tids);
		if (n < 0) {
			ret = n == -ENOMEM ? n : 0;  /* gone meanwhile */
			continue;
		}
		ret = push_pid(&t->procs, &t->nr_procs, &t->cap_procs, (pid_t)pid);
		for (int k = 0; k < n && !ret; k++)
			ret = push_pid(&t->threads, &t->nr_threads, &t->cap_threads, tids[k]);
		free(tids);
	}
	closedir(d);
	if (!ret && !t->nr_procs) {
		snprintf(err, errlen, "-u %s: user %u runs no process", t->user, (unsigned)t->uid);
		return -ESRCH;
	}
	return ret;
}

int rec_target_init(struct rec_target *t, const struct rec_opts *o, char *err, size_t errlen)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->go_fd = t->err_fd = -1;
	t->cgroup_fd = -1;
	if (o->uid) {
		t->kind = REC_TARGET_PID;
		t->user = o->uid;
		ret = parse_user(o->uid, &t->uid, err, errlen);
		if (!ret)
			ret = init_cpus(t, o->cpulist, err, errlen);
		return ret ? ret : init_user(t, err, errlen);
	}
	if (o->cgroup) {
		t->cgroup_fd = rec_cgroup_open(o->cgroup, err, errlen);
		if (t->cgroup_fd < 0)
			return t->cgroup_fd;
		t->cgroup = o->cgroup;
	}
	if (o->nr_pids)
		t->kind = REC_TARGET_PID;
	else if (o->nr_tids)
		t->kind = REC_TARGET_TID;
	else if (o->system_wide || o->cpulist || o->cgroup || !o->argc)
		t->kind = REC_TARGET_SYSTEM;  /* with a command: while it runs */
	else
		t->kind = REC_TARGET_CMD;

	ret = init_cpus(t, o->cpulist, err, errlen);
	if (ret)
		return ret;

	switch (t->kind) {
	case REC_TARGET_PID:
		for (size_t i = 0; i < o->nr_pids; i++) {
			pid_t *tids = NULL;
			int n = rec_proc_threads(o->pids[i], &tids);

			if (n < 0) {
				snprintf(err, errlen, "process %d: %s", (int)o->pids[i],
					 n == -ESRCH ? "no such process" : strerror(-n));
				return n;
			}
			ret = push_pid(&t->procs, &t->nr_procs, &t->cap_procs, o->pids[i]);
			for (int k = 0; k < n && !ret; k++)
				ret = push_pid(&t->threads, &t->nr_threads, &t->cap_threads, tids[k]);
			free(tids);
			if (ret)
				return ret;
		}
		return 0;
	case REC_TARGET_TID:
		for (size_t i = 0; i < o->nr_tids; i++) {
			pid_t tgid = thread_tgid(o->tids[i]);
			bool known = false;

			if (!tgid) {
				snprintf(err, errlen, "thread %d: no such thread", (int)o->tids[i]);
				return -ESRCH;
			}
			ret = push_pid(&t->threads, &t->nr_threads, &t->cap_threads, o->tids[i]);
			for (size_t k = 0; k < t->nr_procs; k++)
				known |= t->procs[k] == tgid;
			if (!ret && !known)
				ret = push_pid(&t->procs, &t->nr_procs, &t->cap_procs, tgid);
			if (ret)
				return ret;
		}
		return 0;
	case REC_TARGET_CMD:
		return fork_cmd(t, o->argv, err, errlen);
	case REC_TARGET_SYSTEM:
		return o->argc ? fork_cmd(t, o->argv, err, errlen) : 0;
	}
	return -EINVAL;
}

int rec_target_start(struct rec_target *t)
{
	ssize_t r;
	int e = 0;

	if (t->go_fd < 0)
		return 0;
	/* Our SIGINT/SIGTERM handlers have no SA_RESTART: retry after them,
	 * or an exec failure would pass for success. */
	do
		r = write(t->go_fd, "g", 1);
	while (r < 0 && errno == EINTR);
	close(t->go_fd);
	t->go_fd = -1;
	if (r != 1)
		return -EPIPE;
	/* EOF when exec succeeded (the pipe is close-on-exec). */
	do
		r = read(t->err_fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(t->err_fd);
	t->err_fd = -1;
	return r == (ssize_t)sizeof(e) ? -e : 0;
}

bool rec_target_alive(struct rec_target *t, int *wstatus)
{
	if (t->child > 0) {
		if (waitpid(t->child, wstatus, WNOHANG) == t->child) {
			t->child = 0;
			return false;
		}
		return true;
	}
	switch (t->kind) {
	case REC_TARGET_CMD:
		return false;
	case REC_TARGET_PID:
	case REC_TARGET_TID:
		for (size_t i = 0; i < t->nr_threads; i++)
			if (!kill(t->threads[i], 0) || errno == EPERM)
				return true;
		return false;
	case REC_TARGET_SYSTEM:
		return true;
	}
	return false;
}

void rec_target_free(struct rec_target *t)
{
	if (!t)
		return;
	if (t->go_fd >= 0)
		close(t->go_fd);  /* the child reads EOF and exits */
	if (t->err_fd >= 0)
		close(t->err_fd);
	if (t->child > 0) {
		kill(t->child, SIGTERM);
		rec_reap(t->child, NULL);
	}
	if (t->cgroup && t->cgroup_fd >= 0)
		close(t->cgroup_fd);
	free(t->cpus);
	free(t->threads);
	free(t->procs);
	memset(t, 0, sizeof(*t));
	t->go_fd = t->err_fd = -1;
	t->cgroup_fd = -1;
}

pid_t rec_reap(pid_t pid, int *wstatus)
{
	pid_t r;

	/* Our handlers run without SA_RESTART: a stop signal must not leave a
	 * zombie behind. */
	do
		r = waitpid(pid, wstatus, 0);
	while (r < 0 && errno == EINTR);
	return r;
}
