// SPDX-License-Identifier: MIT
/*
 * record/events/tracefs.c - find (and if needed mount) tracefs, read its
 * files and walk its events/ tree.
 *
 * The recorder needs tracefs for tracepoint ids (events/SYS/NAME/id) and
 * for the format files it stores in the TRACEFS block (docs/FORMAT.md §4),
 * so that amber-analyze can decode tracepoint payloads on another machine.
 */
#include <amber/common.h>
#include "common/util.h"
#include "record/events/tracefs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* Format files are a few KiB; available_events is the largest, well below. */
#define TRACEFS_MAX_FILE (16u << 20)

static const char *const tracefs_candidates[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

/* The probed root, or the one a test installed; "" means unavailable. */
static char tracefs_root[PATH_MAX];
static bool tracefs_probed;
static bool tracefs_overridden;
/* Why the probe failed: ENOENT, or EACCES when tracefs is there but closed. */
static int tracefs_errno = ENOENT;

static bool tracefs_populated(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/events", dir) >= sizeof(path))
		return false;
	if (stat(path, &st) == 0)
		return S_ISDIR(st.st_mode);
	if (errno == EACCES)
		tracefs_errno = EACCES;
	return false;
}

static bool tracefs_probe(void)
{
	for (size_t i = 0; i < AMB_ARRAY_SIZE(tracefs_candidates); i++) {
		if (tracefs_populated(tracefs_candidates[i])) {
			strcpy(tracefs_root, tracefs_candidates[i]);
			return true;
		}
	}
	return false;
}

const char *rec_tracefs_root(void)
{
	if (tracefs_overridden || tracefs_probed) {
		if (!tracefs_root[0]) {
			errno = tracefs_overridden ? ENOENT : tracefs_errno;
			return NULL;
		}
		return tracefs_root;
	}
	if (!tracefs_probe() && geteuid() == 0) {
		/* What `mount -t tracefs nodev /sys/kernel/tracing` does; a
		 * failure (no tracefs in this kernel) just leaves it missing. */
		if (mount("nodev", tracefs_candidates[0], "tracefs", 0, NULL) == 0)
			tracefs_probe();
	}
	/* Probe (and try to mount) once: callers ask for every tracepoint. */
	tracefs_probed = true;
	if (!tracefs_root[0]) {
		errno = tracefs_errno;
		return NULL;
	}
	return tracefs_root;
}

int rec_tracefs_set_root(const char *path)
{
	if (!path) {
		tracefs_overridden = false;
		tracefs_probed = false;
		tracefs_root[0] = 0;
		return 0;
	}
	if (strlen(path) >= sizeof(tracefs_root))
		return -ENAMETOOLONG;
	strcpy(tracefs_root, path);
	tracefs_overridden = true;
	return 0;
}

/* A relative path that cannot leave the tracefs tree. */
static bool tracefs_rel_ok(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/')
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		if (*p == '/')
			p++;
	}
	return true;
}

char *rec_tracefs_read(const char *rel, size_t *len)
{
	const char *root = rec_tracefs_root();
	char path[PATH_MAX];

	if (!root)
		return NULL;
	if (!tracefs_rel_ok(rel)) {
		errno = EINVAL;
		return NULL;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return amb_read_file(path, TRACEFS_MAX_FILE, len);
}

/* scandir filter: subdirectories only (systems of events/, events of a system). */
static int tracefs_is_subdir(const struct dirent *d)
{
	if (d->d_name[0] == '.')
		return 0;
	return d->d_type == DT_DIR || d->d_type == DT_UNKNOWN;
}

static bool tracefs_isdir_at(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void tracefs_free_dirents(struct dirent **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int rec_tracefs_for_each_event(int (*fn)(void *ctx, const char *sys, const char *event),
			       void *ctx)
{
	const char *root = rec_tracefs_root();
	struct dirent **systems = NULL, **events = NULL;
	int nsys = 0, nev = 0, ret = 0;
	char dir[PATH_MAX];

	if (!root)
		return -ENOENT;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/events", root) >= sizeof(dir))
		return -ENAMETOOLONG;
	nsys = scandir(dir, &systems, tracefs_is_subdir, alphasort);
	if (nsys < 0) {
		nsys = 0;
		ret = -errno;
		goto out;
	}
	for (int s = 0; s < nsys && !ret; s++) {
		const char *sys = systems[s]->d_name;

		if ((size_t)snprintf(dir, sizeof(dir), "%s/events/%s", root, sys) >= sizeof(dir))
			continue;
		nev = scandir(dir, &events, tracefs_is_subdir, alphasort);
		if (nev < 0) {
			/* Not a directory after all (DT_UNKNOWN), or vanished. */
			nev = 0;
			continue;
		}
		for (int e = 0; e < nev && !ret; e++) {
			if (events[e]->d_type == DT_UNKNOWN &&
			    !tracefs_isdir_at(dir, events[e]->d_name))
				continue;
			ret = fn(ctx, sys, events[e]->d_name);
		}
		tracefs_free_dirents(events, nev);
		events = NULL;
		nev = 0;
	}
out:
	tracefs_free_dirents(events, nev);
	tracefs_free_dirents(systems, nsys);
	return ret;
}
