// SPDX-License-Identifier: MIT
/*
 * record/events/pmu.c - the kernel's PMUs as sysfs describes them, for
 * perf's "pmu/terms/" event syntax.
 *
 * Every PMU is a directory under /sys/bus/event_source/devices holding
 *
 *     type           the perf_event_attr.type to open its events with
 *     format/NAME    where term NAME goes: "config:0-7", "config1:0-3,8",
 *                    a word of the attr and its bits, low bits first
 *     events/NAME    a named event as terms: "event=0xcd,umask=0x1";
 *                    NAME.scale, NAME.unit, NAME.per-pkg and NAME.snapshot
 *                    describe NAME's counts and are no events
 *
 * (the kernel's Documentation/ABI/testing/sysfs-bus-event_source-devices-*,
 * which perf's util/pmu.c reads the same way).  This file only reads and
 * decodes them; events.c parses the terms a user writes.
 */
#include <amber/common.h>
#include "common/util.h"
#include "record/events/pmu.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define PMU_DEFAULT_ROOT "/sys/bus/event_source/devices"
/* type and format files are a line; event files a few terms. */
#define PMU_MAX_FILE 4096u

static char pmu_root[PATH_MAX] = PMU_DEFAULT_ROOT;

struct rec_pmu {
	char dir[PATH_MAX];        /* ROOT/NAME */
	uint32_t type;
	struct dirent **formats;   /* format/ entries, sorted */
	int nr_formats;
	struct dirent **events;    /* events/ entries that are events, sorted */
	int nr_events;
};

int rec_pmu_set_root(const char *path)
{
	if (!path)
		path = PMU_DEFAULT_ROOT;
	if (strlen(path) >= sizeof(pmu_root))
		return -ENAMETOOLONG;
	strcpy(pmu_root, path);
	return 0;
}

const char *rec_pmu_root(void)
{
	return pmu_root;
}

/* A single path component that cannot leave its directory. */
static bool pmu_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..") &&
	       strlen(name) <= NAME_MAX;
}

static void pmu_free_dirents(struct dirent **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int pmu_is_entry(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

/* The files of events/ that describe another event's counts. */
static int pmu_is_event(const struct dirent *d)
{
	static const char *const not_events[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };

	if (!pmu_is_entry(d))
		return 0;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(not_events); i++)
		if (has_suffix(d->d_name, not_events[i]))
			return 0;
	return 1;
}

/* scandir DIR/SUB; a missing directory is an empty list.  Returns the
 * count or -errno. */
static int pmu_scan(const char *dir, const char *sub, int (*filter)(const struct dirent *),
		    struct dirent ***out)
{
	char path[PATH_MAX];
	int n;

	*out = NULL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, sub) >= sizeof(path))
		return -ENAMETOOLONG;
	n = scandir(path, out, filter, alphasort);
	if (n < 0) {
		int err = errno;

		*out = NULL;
		return err == ENOENT || err == ENOTDIR ? 0 : -err;
	}
	return n;
}

/* Read DIR/SUB/NAME with trailing white space removed.  NULL with errno. */
static char *pmu_read(const char *dir, const char *sub, const char *name)
{
	char path[PATH_MAX], *text;
	size_t len;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s%s%s", dir, sub, *sub ? "/" : "", name) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	text = amb_read_file(path, PMU_MAX_FILE, &len);
	if (!text)
		return NULL;
	while (len && strchr(" \t\r\n", text[len - 1]))
		text[--len] = 0;
	return text;
}

static int pmu_read_type(const char *dir, uint32_t *type)
{
	char *text = pmu_read(dir, "", "type"), *end;
	unsigned long long v;
	int ret = 0;

	if (!text)
		return -errno;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || v > UINT32_MAX)
		ret = -EINVAL;
	else
		*type = (uint32_t)v;
	free(text);
	return ret;
}

void rec_pmu_free(struct rec_pmu *pmu)
{
	if (!pmu)
		return;
	pmu_free_dirents(pmu->formats, pmu->nr_formats);
	pmu_free_dirents(pmu->events, pmu->nr_events);
	free(pmu);
}

int rec_pmu_open(const char *name, struct rec_pmu **out)
{
	struct rec_pmu *pmu;
	struct stat st;
	int n, ret;

	*out = NULL;
	if (!pmu_name_ok(name) || !pmu_root[0])
		return -ENOENT;
	pmu = calloc(1, sizeof(*pmu));
	if (!pmu)
		return -ENOMEM;
	if ((size_t)snprintf(pmu->dir, sizeof(pmu->dir), "%s/%s", pmu_root, name) >=
	    sizeof(pmu->dir)) {
		ret = -ENAMETOOLONG;
		goto out;
	}
	if (stat(pmu->dir, &st) || !S_ISDIR(st.st_mode)) {
		ret = -ENOENT;
		goto out;
	}
	/* A directory without a type file is no PMU (-ENOENT). */
	ret = pmu_read_type(pmu->dir, &pmu->type);
	if (ret)
		goto out;
	n = pmu_scan(pmu->dir, "format", pmu_is_entry, &pmu->formats);
	if (n < 0) {
		ret = n;
		goto out;
	}
	pmu->nr_formats = n;
	n = pmu_scan(pmu->dir, "events", pmu_is_event, &pmu->events);
	if (n < 0) {
		ret = n;
		goto out;
	}
	pmu->nr_events = n;
	ret = 0;
out:
	if (ret)
		rec_pmu_free(pmu);
	else
		*out = pmu;
	return ret;
}

uint32_t rec_pmu_type(const struct rec_pmu *pmu)
{
	return pmu->type;
}

size_t rec_pmu_nr_formats(const struct rec_pmu *pmu)
{
	return (size_t)pmu->nr_formats;
}

const char *rec_pmu_format_name(const struct rec_pmu *pmu, size_t i)
{
	assert(i < (size_t)pmu->nr_formats);
	return pmu->formats[i]->d_name;
}

size_t rec_pmu_nr_events(const struct rec_pmu *pmu)
{
	return (size_t)pmu->nr_events;
}

const char *rec_pmu_event_name(const struct rec_pmu *pmu, size_t i)
{
	assert(i < (size_t)pmu->nr_events);
	return pmu->events[i]->d_name;
}

/* "N" or "N-M" at *@sp, 0 <= N <= M <= 63: the mask of those bits. */
static int pmu_parse_range(const char **sp, uint64_t *mask)
{
	const char *s = *sp;
	unsigned long lo, hi;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	lo = strtoul(s, &end, 10);
	hi = lo;
	if (*end == '-') {
		s = end + 1;
		if (*s < '0' || *s > '9')
			return -EINVAL;
		hi = strtoul(s, &end, 10);
	}
	if (lo > hi || hi > 63)
		return -EINVAL;
	*mask = (hi == 63 ? ~0ull : (1ull << (hi + 1)) - 1) & ~((1ull << lo) - 1);
	*sp = end;
	return 0;
}

int rec_pmu_format_parse(const char *text, struct rec_pmu_field *f)
{
	static const char *const words[] = { "config", "config1", "config2" };
	const char *colon = strchr(text, ':'), *s;
	size_t wlen;

	memset(f, 0, sizeof(*f));
	if (!colon)
		return -EINVAL;
	wlen = (size_t)(colon - text);
	f->word = AMB_ARRAY_SIZE(words);
	for (unsigned w = 0; w < AMB_ARRAY_SIZE(words); w++)
		if (strlen(words[w]) == wlen && !memcmp(words[w], text, wlen))
			f->word = w;
	if (f->word == AMB_ARRAY_SIZE(words))
		return -EINVAL;
	s = colon + 1;
	for (;;) {
		uint64_t m;

		if (pmu_parse_range(&s, &m))
			return -EINVAL;
		f->mask |= m;
		if (!*s)
			break;
		if (*s++ != ',')
			return -EINVAL;
	}
	f->width = (unsigned)__builtin_popcountll(f->mask);
	return 0;
}

int rec_pmu_format(const struct rec_pmu *pmu, const char *name, struct rec_pmu_field *f)
{
	char *text;
	int ret;

	for (int i = 0; i < pmu->nr_formats; i++) {
		if (strcmp(pmu->formats[i]->d_name, name))
			continue;
		text = pmu_read(pmu->dir, "format", name);
		if (!text)
			return -errno;
		ret = rec_pmu_format_parse(text, f);
		free(text);
		return ret;
	}
	return -ENOENT;
}

int rec_pmu_field_set(const struct rec_pmu_field *f, uint64_t value, struct perf_event_attr *attr)
{
	__u64 *word = f->word == 0 ? &attr->config : f->word == 1 ? &attr->config1 : &attr->config2;
	uint64_t bits = 0;
	unsigned n = 0;

	assert(f->word < 3);
	if (f->width < 64 && value >> f->width)
		return -ERANGE;
	/* The value's bits fill the field's bits from the lowest up. */
	for (unsigned b = 0; b < 64; b++) {
		if (!(f->mask >> b & 1))
			continue;
		if (value >> n++ & 1)
			bits |= 1ull << b;
	}
	*word = (*word & ~f->mask) | bits;
	return 0;
}

char *rec_pmu_event_terms(const struct rec_pmu *pmu, const char *name)
{
	/* perf looks up sysfs event names ignoring case. */
	for (int i = 0; i < pmu->nr_events; i++)
		if (!strcasecmp(pmu->events[i]->d_name, name))
			return pmu_read(pmu->dir, "events", pmu->events[i]->d_name);
	errno = ENOENT;
	return NULL;
}

int rec_pmu_for_each(int (*fn)(void *ctx, const char *pmu), void *ctx)
{
	struct dirent **v = NULL;
	int n, ret = 0;

	if (!pmu_root[0])
		return 0;
	n = scandir(pmu_root, &v, pmu_is_entry, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	for (int i = 0; i < n && !ret; i++)
		ret = fn(ctx, v[i]->d_name);
	pmu_free_dirents(v, n);
	return ret;
}

struct pmu_walk {
	int (*fn)(void *ctx, const char *pmu, const char *event);
	void *ctx;
};

static int pmu_walk_events(void *ctx, const char *name)
{
	struct pmu_walk *w = ctx;
	struct dirent **v = NULL;
	char dir[PATH_MAX];
	int n, ret = 0;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", pmu_root, name) >= sizeof(dir))
		return 0;
	n = pmu_scan(dir, "events", pmu_is_event, &v);
	/* An unreadable PMU does not hide the others. */
	if (n < 0)
		return 0;
	for (int i = 0; i < n && !ret; i++)
		ret = w->fn(w->ctx, name, v[i]->d_name);
	pmu_free_dirents(v, n);
	return ret;
}

int rec_pmu_for_each_event(int (*fn)(void *ctx, const char *pmu, const char *event), void *ctx)
{
	struct pmu_walk w = { fn, ctx };

	return rec_pmu_for_each(pmu_walk_events, &w);
}
