// SPDX-License-Identifier: MIT
/*
 * record/cgroup.c - the cgroup of -G: perf_event_open(2) with
 * PERF_FLAG_PID_CGROUP takes, in place of a pid, a descriptor of the
 * cgroup's directory in the hierarchy the perf_event controller belongs
 * to, and counts only the tasks of that cgroup on the CPU given.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "common/util.h"
#include "record/cgroup.h"

/* Copy mountinfo field @f (up to a blank or the end) into @out, decoding
 * the kernel's octal escapes.  Returns 0 or -ENAMETOOLONG. */
static int copy_field(const char *f, char *out, size_t outlen)
{
	size_t n = 0;

	while (*f && *f != ' ' && *f != '\n') {
		char c = *f++;

		if (c == '\\' && f[0] >= '0' && f[0] <= '3' && f[1] >= '0' && f[1] <= '7' &&
		    f[2] >= '0' && f[2] <= '7') {
			c = (char)((f[0] - '0') << 6 | (f[1] - '0') << 3 | (f[2] - '0'));
			f += 3;
		}
		if (n + 1 >= outlen)
			return -ENAMETOOLONG;
		out[n++] = c;
	}
	out[n] = '\0';
	return 0;
}

/* Field @i (from 0) of the line at @line, or NULL. */
static const char *field(const char *line, int i)
{
	const char *p = line;

	for (; i > 0; i--) {
		p = strpbrk(p, " \n");
		if (!p || *p == '\n')
			return NULL;
		p++;
	}
	return p;
}

/* Whether comma-separated @opts (ending at a blank or newline) holds @want. */
static bool has_option(const char *opts, const char *want)
{
	size_t n = strlen(want), end = strcspn(opts, " \n");

	for (size_t i = 0; i < end;) {
		size_t len = strcspn(opts + i, ", \n");

		if (len == n && !strncmp(opts + i, want, n))
			return true;
		i += len + 1;
	}
	return false;
}

int rec_cgroup_mount(const char *info, char *out, size_t outlen)
{
	char v2[4096] = "";
	int err;

	for (const char *line = info; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SRC SUPEROPTS" */
		const char *sep = strstr(line, " - "), *nl = strchr(line, '\n');
		const char *mp = field(line, 4), *type, *super;

		if (!sep || (nl && sep > nl) || !mp || mp > sep)
			continue;
		type = sep + 3;
		super = field(type, 2);
		if (!strncmp(type, "cgroup ", 7) && super && has_option(super, "perf_event"))
			return copy_field(mp, out, outlen);
		if (!strncmp(type, "cgroup2 ", 8) && !v2[0]) {
			err = copy_field(mp, v2, sizeof(v2));
			if (err)
				return err;
		}
	}
	if (!v2[0])
		return -ENOENT;
	if (strlen(v2) >= outlen)
		return -ENAMETOOLONG;
	strcpy(out, v2);
	return 0;
}

static bool is_cgroup_dir(const char *path)
{
	struct statfs sf;

	return !statfs(path, &sf) &&
	       (sf.f_type == CGROUP2_SUPER_MAGIC || sf.f_type == CGROUP_SUPER_MAGIC);
}

int rec_cgroup_open(const char *name, char *err, size_t errlen)
{
	char mount[4096], path[8192];
	char *info;
	int fd, e;

	info = amb_read_file("/proc/self/mountinfo", 16u << 20, NULL);
	if (!info) {
		e = -errno;
		snprintf(err, errlen, "-G %s: cannot read /proc/self/mountinfo: %s", name,
			 strerror(-e));
		return e;
	}
	e = rec_cgroup_mount(info, mount, sizeof(mount));
	free(info);
	if (e) {
		snprintf(err, errlen, "-G %s: %s", name, e == -ENOENT
			 ? "no cgroup hierarchy with the perf_event controller is mounted "
			   "(mount -t cgroup2 none /sys/fs/cgroup)"
			 : strerror(-e));
		return e;
	}
	if (snprintf(path, sizeof(path), "%s/%s", mount, name + strspn(name, "/")) >=
	    (int)sizeof(path)) {
		snprintf(err, errlen, "-G %s: name too long", name);
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Or the absolute path of a cgroup's directory. */
	if (fd < 0 && errno == ENOENT && name[0] == '/' && is_cgroup_dir(name))
		fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "-G %s: cannot open %s: %s%s", name, path, strerror(-e),
			 e == -ENOENT ? " (no such cgroup; see the directories under the mount)" : "");
		return e;
	}
	return fd;
}
