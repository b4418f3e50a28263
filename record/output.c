// SPDX-License-Identifier: MIT
/*
 * record/output.c - the recording's file: checking -o, moving an older
 * recording aside (never replacing one), creating the new file and
 * holding it by descriptor, and following it wherever it is moved.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "record/output.h"

/* Names tried for an older recording: FILE.old, then FILE.old.1 ... */
#define OLD_MAX 10000

static bool is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 3;
}

static const char *what_is(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	if (S_ISCHR(st->st_mode))
		return "a character device";
	if (S_ISBLK(st->st_mode))
		return "a block device";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	return "not a regular file";
}

int rec_output_check(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (!strcmp(path, "-")) {
		snprintf(err, errlen, "-o -: amber-rec does not write a recording to standard output "
			 "(it writes at offsets, and trims the file in place after a clean stop);\n"
			 "  record to a file and copy that");
		return -EINVAL;
	}
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "-o %s: %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) || is_dev_null(&st))
		return 0;
	snprintf(err, errlen, "-o %s: is %s; amber-rec writes a new regular file (an existing file "
		 "or symbolic link is moved aside), or nothing with -o /dev/null", path, what_is(&st));
	return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
}

/*
 * Rename @path to @to unless @to exists (RENAME_NOREPLACE; where the file
 * system lacks it, link and unlink, which never replace either).
 * Returns 0 or -errno (-EEXIST when @to is taken).
 */
static int rename_noreplace(const char *path, const char *to)
{
	if (!renameat2(AT_FDCWD, path, AT_FDCWD, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (link(path, to))
		return -errno;
	if (unlink(path)) {
		int e = -errno;

		unlink(to);
		return e;
	}
	return 0;
}

/* Rename @path to the first free FILE.old[.N] into @o->moved_to. */
static int move_to_old(struct rec_output *o, const char *path, char *err, size_t errlen)
{
	char to[4200];
	int ret = -EEXIST;

	for (unsigned n = 0; n < OLD_MAX && ret == -EEXIST; n++) {
		int len = n ? snprintf(to, sizeof(to), "%s.old.%u", path, n)
			    : snprintf(to, sizeof(to), "%s.old", path);

		if (len < 0 || (size_t)len >= sizeof(to)) {
			snprintf(err, errlen, "cannot move the existing %s aside: name too long", path);
			return -ENAMETOOLONG;
		}
		ret = rename_noreplace(path, to);
	}
	if (ret) {
		snprintf(err, errlen, "cannot move the existing %s aside: %s", path,
			 ret == -EEXIST ? "every name up to FILE.old.9999 is taken" : strerror(-ret));
		return ret;
	}
	free(o->moved_to);
	o->moved_to = strdup(to);
	return 0;
}

/*
 * Move what is at @path aside: a symbolic link as it is; a regular file
 * under its lock, so that a recorder putting its trimmed copy in place
 * (rec_output_replace()) and this one never rename it at once.  0 when
 * @path is free now (also when something else took it away), or -errno.
 */
static int move_aside(struct rec_output *o, const char *path, char *err, size_t errlen)
{
	struct stat st, held;
	int fd, ret;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return move_to_old(o, path, err, errlen);
	if (!S_ISREG(st.st_mode)) {
		/* Checked at the start; something else is there now. */
		snprintf(err, errlen, "-o %s: is %s now", path, what_is(&st));
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (flock(fd, LOCK_EX) || fstat(fd, &held)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	/* Still the file at @path?  Else the caller looks again. */
	if (lstat(path, &st) || st.st_dev != held.st_dev || st.st_ino != held.st_ino)
		ret = -EAGAIN;
	else
		ret = move_to_old(o, path, err, errlen);
	close(fd);   /* and the lock with it */
	return ret;
}

int rec_output_create(struct rec_output *o, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int ret = 0;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = -1;
	if (errlen)
		err[0] = '\0';
	if (!stat(path, &st) && is_dev_null(&st) && !lstat(path, &st) && !S_ISLNK(st.st_mode)) {
		o->discard = true;
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0) {
			snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
			return -errno;
		}
		return 0;
	}
	/* Another amber-rec may take the name between our steps: try again. */
	for (int attempt = 0; attempt < 20; attempt++) {
		ret = move_aside(o, path, err, errlen);
		if (ret == -EAGAIN || ret == -EEXIST)
			continue;
		if (ret) {
			if (!err[0])
				snprintf(err, errlen, "cannot move the existing %s aside: %s", path,
					 strerror(-ret));
			return ret;
		}
		/* §9: exclusive, 0600: a recording can hold the target's memory. */
		o->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (o->fd >= 0)
			break;
		ret = -errno;
		if (ret != -EEXIST) {
			snprintf(err, errlen, "cannot create %s: %s", path, strerror(-ret));
			return ret;
		}
	}
	if (o->fd < 0) {
		snprintf(err, errlen, "cannot create %s: it keeps being made by someone else", path);
		return -EEXIST;
	}
	return 0;
}

int rec_output_adopt(struct rec_output *o, const char *path)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (o->fd < 0)
		return -errno;
	if (fstat(o->fd, &st) || !S_ISREG(st.st_mode)) {
		close(o->fd);
		o->fd = -1;
		return -EINVAL;
	}
	return 0;
}

int rec_output_writer_fd(const struct rec_output *o)
{
	int fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);

	return fd < 0 ? -errno : fd;
}

const char *rec_output_where(const struct rec_output *o, char *buf, size_t len)
{
	char proc[64];
	ssize_t n;

	snprintf(buf, len, "%s", o->path);
	if (o->discard || o->fd < 0)
		return buf;
	/* The kernel follows renames of an open file. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	n = readlink(proc, buf, len - 1);
	if (n <= 0 || (size_t)n >= len - 1) {
		snprintf(buf, len, "%s", o->path);
		return buf;
	}
	buf[n] = '\0';
	return buf;
}

uint64_t rec_output_size(const struct rec_output *o)
{
	struct stat st;

	if (o->discard || o->fd < 0 || fstat(o->fd, &st))
		return 0;
	return (uint64_t)st.st_size;
}

int64_t rec_output_samples(const struct rec_output *o)
{
	const struct amb_block_filter ring = { AMB_BLOCK_RING, -1, 0, 0 };
	struct amb_payload *pl = NULL;
	struct amb_reader *r = NULL;
	amb_warn_fn old;
	int64_t n = -1;
	char proc[64];
	size_t i;

	if (o->discard || o->fd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	pl = amb_payload_new();
	/* A file cut short by a write error: that it has no trailer is known. */
	old = amb_set_warn(NULL, NULL);
	if (!pl || amb_reader_open(proc, 0, &r)) {
		amb_set_warn(old, NULL);
		goto out;
	}
	amb_set_warn(old, NULL);
	n = 0;
	amb_reader_for_each_block(r, &ring, i) {
		const uint8_t *p;
		const void *data;
		size_t len, pos = 0;

		if (amb_reader_load(r, i, pl, &data, &len))
			continue;
		/* This host wrote them: host byte order (FORMAT.md §5.6). */
		for (p = data; len - pos >= sizeof(struct perf_event_header);) {
			struct perf_event_header h;

			memcpy(&h, p + pos, sizeof(h));
			if (h.size < sizeof(h) || h.size > len - pos)
				break;
			n += h.type == PERF_RECORD_SAMPLE;
			pos += h.size;
		}
	}
out:
	amb_reader_close(r);
	amb_payload_free(pl);
	return n;
}

int rec_output_replace(struct rec_output *o, const char *tmp, int tmp_fd)
{
	char where[4200];
	size_t len;
	int ret = 0;

	/* Under the lock no other amber-rec moves the file away from @where. */
	if (flock(o->fd, LOCK_EX))
		return -errno;
	rec_output_where(o, where, sizeof(where));
	len = strlen(where);
	if (len > 10 && !strcmp(where + len - 10, " (deleted)"))
		ret = -ENOENT;   /* someone removed it: nothing to replace */
	else if (rename(tmp, where))
		ret = -errno;
	flock(o->fd, LOCK_UN);
	if (ret)
		return ret;
	close(o->fd);
	o->fd = tmp_fd;
	return 0;
}

void rec_output_close(struct rec_output *o)
{
	if (o->fd >= 0)
		close(o->fd);
	free(o->moved_to);
	o->fd = -1;
	o->moved_to = NULL;
}
