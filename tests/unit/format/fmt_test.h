/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/format/fmt_test.h - helpers shared by the format unit tests:
 * a scratch directory, deterministic payloads, small file utilities.
 * Include after <cmocka.h>.
 */
#ifndef AMB_FMT_TEST_H
#define AMB_FMT_TEST_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <amber/common.h>
#include "common/util.h"
#include <amber/format.h>

/* A scratch directory under $TMPDIR (or /tmp), removed by tmpdir_free(). */
static inline char *tmpdir_new(void)
{
	const char *base = getenv("TMPDIR");
	char *d;

	if (asprintf(&d, "%s/amb-test-XXXXXX", base ? base : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(d)) {
		free(d);
		return NULL;
	}
	return d;
}

static inline void tmpdir_free(char *d)
{
	DIR *dir;
	struct dirent *de;

	if (!d)
		return;
	dir = opendir(d);
	while (dir && (de = readdir(dir))) {
		char *p;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&p, "%s/%s", d, de->d_name) >= 0) {
			unlink(p);
			free(p);
		}
	}
	if (dir)
		closedir(dir);
	rmdir(d);
	free(d);
}

/* "dir/name" in a static rotating buffer (enough for a test's few paths). */
static inline const char *tpath(const char *dir, const char *name)
{
	static char bufs[8][512];
	static unsigned n;
	char *b = bufs[n++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	return b;
}

/* Deterministic bytes: compressible when @text, else pseudo-random. */
static inline void fill_payload(uint8_t *p, size_t len, uint32_t seed, bool text)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (seed + 1);

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = text ? (uint8_t)("perf record amber ring "[(x >> 8) % 23]) : (uint8_t)x;
	}
}

/*
 * fill_payload(), and when @type is RING or SYNTH, whose payloads are whole
 * perf records (FORMAT.md §5.6; verify counts them against record_count),
 * @count record headers laid over the bytes: PERF_RECORD_SAMPLE, sizes as
 * even as 8-byte units allow, the last taking the rest, in the producer's
 * byte order (big-endian when @big).  @len must give every record 8 to
 * 65535 bytes.
 */
static inline void fill_block(uint8_t *p, size_t len, uint32_t seed, bool text, uint16_t type,
			      uint64_t count, bool big)
{
	size_t each, at = 0;

	fill_payload(p, len, seed, text);
	if (type != 3 && type != 4)  /* AMB_BLOCK_RING, AMB_BLOCK_SYNTH */
		return;
	if (!count) {
		if (len)
			fail_msg("fill_block: %zu bytes for no record", len);
		return;
	}
	each = len / count / 8 * 8;
	if (each < 8 || len - each * (count - 1) > 65535)
		fail_msg("fill_block: %llu records cannot share %zu bytes", (unsigned long long)count, len);
	for (uint64_t k = 0; k < count; k++) {
		uint16_t size = (uint16_t)(k + 1 < count ? each : len - at);

		/* PERF_RECORD_SAMPLE (9) and the size */
		memset(p + at, 0, 8);
		p[at + (big ? 3 : 0)] = 9;
		p[at + (big ? 6 : 7)] = (uint8_t)(size >> 8);
		p[at + (big ? 7 : 6)] = (uint8_t)size;
		at += size;
	}
}

static inline uint64_t file_size_of(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* Read a whole file into malloc'd memory. */
static inline uint8_t *slurp(const char *path, size_t *len)
{
	size_t n = 0;
	char *s = amb_read_file(path, 64u << 20, &n);

	*len = n;
	return (uint8_t *)s;
}

/* Write @len bytes to @path, replacing it. */
static inline int spew(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, p, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* Counts problems for amb_verify() and keeps the first message. */
struct problems {
	int n;
	int first_err;
	char first[240];
	char last[240];
};

static inline int collect_problem(void *ctx, const struct amb_problem *pb)
{
	struct problems *ps = ctx;

	if (ps->n++ == 0) {
		ps->first_err = pb->err;
		snprintf(ps->first, sizeof(ps->first), "%s", pb->msg);
	}
	snprintf(ps->last, sizeof(ps->last), "%s", pb->msg);
	return 0;
}

#endif /* AMB_FMT_TEST_H */
