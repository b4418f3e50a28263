// SPDX-License-Identifier: MIT
/*
 * tests/tools/fmtbench.c - throughput of the format library.
 *
 *   fmtbench [-l LEVEL] [-b BLOCK_BYTES] [-t THREADS] [-r REPEAT] [-d DIR] INPUT
 *
 * Splits INPUT into blocks (default 1 MiB), writes them as RING blocks to a
 * scratch file in DIR (default $TMPDIR or /tmp) at zstd LEVEL, then loads
 * every block back; small inputs are written several times over, so that
 * each timed run handles at least 32 MiB.  Prints one line with the compression ratio and the
 * best write and read throughputs in MB/s (10^6 bytes of raw payload per
 * second) over REPEAT runs, the way `zstd -b` reports its speeds:
 *
 *   level=3 block=1048576 bytes=N stored=M ratio=R write_mbs=W read_mbs=X
 *   write_cpu_mbs=CW read_cpu_mbs=CX
 *
 * The _cpu_ figures divide by the process CPU time instead of the wall
 * clock: on a busy machine they are the stable ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <amber/common.h>
#include "common/util.h"
#include <amber/format.h>

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static double cpu_now(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static int bench_write(const char *path, const uint8_t *in, size_t len, size_t bs,
		       unsigned passes, int level, int threads, double *secs, uint64_t *stored)
{
	AMB_OPTS(amb_writer_opts, o);
	struct amb_writer_stats st;
	struct amb_writer *w;
	double t0;
	int err;

	o.zstd_level = level;
	o.threads = threads;
	unlink(path);
	t0 = now();
	err = amb_writer_open(path, &o, &w);
	if (err)
		return err;
	for (unsigned pass = 0; pass < passes; pass++) {
		for (size_t off = 0; off < len && !err; off += bs) {
			struct amb_block_desc d = { AMB_BLOCK_RING, 0, 1, 0, 0 };

			err = amb_writer_append(w, &d, in + off, AMB_MIN(bs, len - off));
		}
	}
	if (!err)
		err = amb_writer_flush(w);
	amb_writer_get_stats(w, &st);
	if (!err)
		err = amb_writer_close(w);
	else
		amb_writer_close(w);
	*secs = now() - t0;
	*stored = st.stored_bytes;
	return err;
}

static int bench_read(const char *path, size_t expect, double *secs)
{
	struct amb_payload *p = amb_payload_new();
	struct amb_block_filter f = AMB_FILTER_ANY;
	struct amb_reader *r = NULL;
	size_t i, total = 0;
	double t0 = now();
	int err;

	f.type = AMB_BLOCK_RING;
	if (!p)
		return -ENOMEM;
	err = amb_reader_open(path, 0, &r);
	if (err)
		goto out;
	amb_reader_for_each_block(r, &f, i) {
		const void *data;
		size_t len;

		err = amb_reader_load(r, i, p, &data, &len);
		if (err)
			goto out;
		total += len;
	}
	*secs = now() - t0;
	if (total != expect)
		err = -AMB_E_CORRUPT;
out:
	amb_reader_close(r);
	amb_payload_free(p);
	return err;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int level = AMB_DEFAULT_ZSTD_LEVEL, threads = 0, repeat = 3, opt, err;
	double wbest = 1e30, rbest = 1e30, wcpu = 1e30, rcpu = 1e30;
	size_t bs = 1u << 20, len, total;
	unsigned passes;
	uint64_t stored = 0;
	char path[4096];
	uint8_t *in;

	while ((opt = getopt(argc, argv, "l:b:t:r:d:")) != -1) {
		switch (opt) {
		case 'l': level = atoi(optarg); break;
		case 'b': bs = strtoul(optarg, NULL, 0); break;
		case 't': threads = atoi(optarg); break;
		case 'r': repeat = atoi(optarg); break;
		case 'd': dir = optarg; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || bs == 0 || bs > AMB_BLOCK_RAW_MAX || repeat < 1)
		goto usage;
	in = (uint8_t *)amb_read_file(argv[optind], 1u << 30, &len);
	if (!in) {
		fprintf(stderr, "fmtbench: error: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	if (len == 0) {
		fprintf(stderr, "fmtbench: error: %s: empty input\n", argv[optind]);
		return 1;
	}
	passes = (unsigned)AMB_MAX((size_t)1, ((size_t)32 << 20) / len);
	total = len * passes;
	snprintf(path, sizeof(path), "%s/fmtbench.%d.amber", dir, getpid());
	for (int i = 0; i < repeat; i++) {
		double w, r, c0, c1, c2;

		c0 = cpu_now();
		err = bench_write(path, in, len, bs, passes, level, threads, &w, &stored);
		c1 = cpu_now();
		if (!err)
			err = bench_read(path, total, &r);
		c2 = cpu_now();
		if (err) {
			fprintf(stderr, "fmtbench: error: %s: %s\n", path, amb_strerror(err));
			unlink(path);
			return 1;
		}
		wbest = AMB_MIN(wbest, w);
		rbest = AMB_MIN(rbest, r);
		wcpu = AMB_MIN(wcpu, c1 - c0);
		rcpu = AMB_MIN(rcpu, c2 - c1);
	}
	unlink(path);
	printf("level=%d block=%zu bytes=%zu stored=%llu ratio=%.3f write_mbs=%.1f read_mbs=%.1f "
	       "write_cpu_mbs=%.1f read_cpu_mbs=%.1f\n",
	       level, bs, len, (unsigned long long)(stored / passes), (double)total / (double)stored,
	       (double)total / wbest / 1e6, (double)total / rbest / 1e6,
	       (double)total / wcpu / 1e6, (double)total / rcpu / 1e6);
	free(in);
	return 0;
usage:
	fprintf(stderr, "usage: fmtbench [-l LEVEL] [-b BLOCK_BYTES] [-t THREADS] [-r REPEAT] [-d DIR] INPUT\n");
	return 2;
}
