// SPDX-License-Identifier: MIT
/*
 * workload.c - the bundled profiling target with a known call tree.
 *
 * main starts N worker threads ("worker-0", ...).  Each runs
 *
 *     worker_main -> run_mix -> hot_a                      (the tight loop)
 *                            -> hot_b -> mix_inline         (always inlined)
 *                            -> hot_c -> level1 -> level2 -> level3 -> level4
 *                                     -> sort_items -> qsort (libc) -> cmp_items
 *                 -> syscall_phase                          (--syscalls)
 *                 -> sleep_phase                            (--sleep-ms)
 *
 * The work of hot_a, hot_b and hot_c is split in the ratio given by --mix
 * (default 5:3:2) and each "part" costs about the same CPU time in each of
 * them, so a profile shows the ratio.  Everything is deterministic: the same
 * options give the same checksum on every run.  README.md in this directory
 * lists the split perf measures on the reference machine.
 *
 * Built twice: "workload" with frame pointers, "workload-nofp" without.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * noclone too: a clone (level1.constprop.0) would rename the frame the tests
 * look for.  Clang knows no noclone, and does not clone noinline functions.
 */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

/*
 * Per-part costs, calibrated so one part of hot_a, hot_b and hot_c takes
 * about the same time (~1 ms) on the reference machine.
 */
#define HOT_A_ITERS      640000u
#define HOT_B_OWN_ITERS   50000u
#define HOT_B_MIX_ITERS  520000u
#define SORT_ITEMS          512u
#define HOT_C_SORTS          23u

#define DEFAULT_THREADS 2u
#define DEFAULT_WORK    150u
#define MAX_THREADS     64u

struct item {
	uint64_t key;
	uint32_t idx;
};

struct options {
	unsigned threads;
	unsigned long work;      /* rounds of run_mix */
	unsigned mix[3];         /* parts of hot_a, hot_b, hot_c per round */
	unsigned long syscalls;  /* getppid+write pairs per worker */
	unsigned long sleep_ms;  /* 1 ms naps per worker */
};

struct worker {
	pthread_t thread;
	unsigned index;
	const struct options *opt;
	uint64_t result;
	int err;                 /* errno of a failed syscall phase, else 0 */
};

/* Results are stored here so the compiler must compute them. */
static volatile uint64_t sink;

/*
 * Called at the end of hot_a and hot_b so that they are not leaf functions:
 * GCC 12 sets up no frame pointer in a leaf even with -fno-omit-frame-pointer,
 * and frame-pointer unwinding would then lose run_mix.
 */
NOINLINE static void publish(uint64_t x)
{
	sink = x;
}

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	return x;
}

NOINLINE static uint64_t hot_a(unsigned parts, uint64_t seed)
{
	uint64_t x = seed | 1;
	unsigned long n = (unsigned long)parts * HOT_A_ITERS;

	for (unsigned long i = 0; i < n; i++)
		x = (x * 6364136223846793005ULL + i) ^ (x >> 29); /* HOT-LOOP */
	publish(x);
	return x;
}

/* Most of hot_b's time is spent here, inlined into hot_b. */
__attribute__((always_inline)) static inline uint64_t mix_inline(uint64_t x, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		x = (x ^ (x << 7)) * 0x9e3779b97f4a7c15ULL + (x >> 17);
	return x;
}

NOINLINE static uint64_t hot_b(unsigned parts, uint64_t seed)
{
	uint64_t x = seed;

	for (unsigned p = 0; p < parts; p++) {
		for (unsigned i = 0; i < HOT_B_OWN_ITERS; i++)
			x = x * 31 + (x >> 11) + i;
		x = mix_inline(x, HOT_B_MIX_ITERS);
	}
	publish(x);
	return x;
}

/* The qsort callback: called from libc, so unwinding must cross libc. */
NOINLINE static int cmp_items(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

NOINLINE static uint64_t sort_items(struct item *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_items);
	return v[0].key ^ v[n / 2].key ^ v[n - 1].idx;
}

/* level1..level4 only deepen the stack; "+ k" keeps them from being tail calls. */
NOINLINE static uint64_t level4(struct item *v, size_t n)
{
	return sort_items(v, n) + 4;
}

NOINLINE static uint64_t level3(struct item *v, size_t n)
{
	return level4(v, n) + 3;
}

NOINLINE static uint64_t level2(struct item *v, size_t n)
{
	return level3(v, n) + 2;
}

NOINLINE static uint64_t level1(struct item *v, size_t n)
{
	return level2(v, n) + 1;
}

/*
 * Per thread, and off the stack: an 8 KiB array in hot_c's frame would keep
 * a default 8 KiB --call-graph dwarf stack copy from reaching run_mix.
 */
static __thread struct item sort_buf[SORT_ITEMS];

NOINLINE static uint64_t hot_c(unsigned parts, uint64_t seed)
{
	uint64_t x = seed, acc = seed;

	for (unsigned s = 0; s < parts * HOT_C_SORTS; s++) {
		for (unsigned i = 0; i < SORT_ITEMS; i++) {
			x = mix64(x + i);
			/* Few distinct keys, so cmp_items also compares idx. */
			sort_buf[i].key = x % (SORT_ITEMS / 4);
			sort_buf[i].idx = i;
		}
		acc = acc * 33 + level1(sort_buf, SORT_ITEMS);
	}
	return acc;
}

NOINLINE static uint64_t run_mix(const struct options *opt, uint64_t seed)
{
	uint64_t x = seed;

	for (unsigned long r = 0; r < opt->work; r++) {
		x = hot_a(opt->mix[0], x);
		x = hot_b(opt->mix[1], x);
		x = hot_c(opt->mix[2], x);
	}
	return x;
}

/* Returns 0 or a positive errno. */
NOINLINE static int syscall_phase(unsigned long n, uint64_t *acc)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return errno;
	for (unsigned long i = 0; i < n; i++) {
		/* syscall(2), not getppid(): no libc may ever cache it. */
		long ppid = syscall(SYS_getppid);
		char c = (char)i;

		if (write(fd, &c, 1) != 1) {
			err = errno ? errno : EIO;
			break;
		}
		/* The parent differs between runs; count, do not hash its value. */
		*acc += ppid > 0;
	}
	close(fd);
	return err;
}

NOINLINE static void sleep_phase(unsigned long ms)
{
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = 1000000 };

	for (unsigned long i = 0; i < ms; i++)
		nanosleep(&nap, NULL);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char name[16];
	uint64_t acc = 0;

	snprintf(name, sizeof(name), "worker-%u", w->index);
	pthread_setname_np(pthread_self(), name);

	if (w->opt->work)
		acc = run_mix(w->opt, mix64(0x5eed0000u + w->index));
	if (w->opt->syscalls)
		w->err = syscall_phase(w->opt->syscalls, &acc);
	if (w->opt->sleep_ms)
		sleep_phase(w->opt->sleep_ms);
	w->result = acc;
	sink = acc;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: workload [--threads N] [--work N] [--mix A,B,C] [--syscalls N] [--sleep-ms N]\n"
		"\n"
		"Run N worker threads (default %u) with a known call tree for profiler tests.\n"
		"  --threads N    worker threads, 1..%u\n"
		"  --work N       rounds of run_mix per worker (default %u, ~1.5 s of CPU); 0 = none\n"
		"  --mix A,B,C    parts of hot_a, hot_b, hot_c per round (default 5,3,2)\n"
		"  --syscalls N   then N getppid+write(/dev/null) pairs per worker\n"
		"  --sleep-ms N   then N sleeps of 1 ms per worker (sched_switch events)\n"
		"Prints \"workload: checksum 0x...\", identical for identical options.\n",
		DEFAULT_THREADS, MAX_THREADS, DEFAULT_WORK);
}

/* Parse a decimal in [0, max]; returns 0 or -1. */
static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_mix(const char *s, unsigned mix[3])
{
	unsigned long v[3];
	char buf[64], *save = NULL, *tok;
	int n = 0;

	if (!s || strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == 3 || parse_ulong(tok, 1000, &v[n]))
			return -1;
		n++;
	}
	if (n != 3)
		return -1;
	for (int i = 0; i < 3; i++)
		mix[i] = (unsigned)v[i];
	return 0;
}

static int parse_args(int argc, char **argv, struct options *opt)
{
	unsigned long v;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--threads")) {
			if (parse_ulong(val, MAX_THREADS, &v) || v == 0)
				goto bad;
			opt->threads = (unsigned)v;
		} else if (!strcmp(a, "--work")) {
			if (parse_ulong(val, 1000000, &opt->work))
				goto bad;
		} else if (!strcmp(a, "--mix")) {
			if (parse_mix(val, opt->mix))
				goto bad;
		} else if (!strcmp(a, "--syscalls")) {
			if (parse_ulong(val, 100000000, &opt->syscalls))
				goto bad;
		} else if (!strcmp(a, "--sleep-ms")) {
			if (parse_ulong(val, 600000, &opt->sleep_ms))
				goto bad;
		} else {
			fprintf(stderr, "workload: error: unknown option '%s'\n", a);
			return -1;
		}
		i++;
		continue;
bad:
		fprintf(stderr, "workload: error: bad or missing value for %s: '%s'\n", a,
			val ? val : "");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options opt = {
		.threads = DEFAULT_THREADS,
		.work = DEFAULT_WORK,
		.mix = { 5, 3, 2 },
	};
	struct worker *w;
	uint64_t checksum = 0;
	unsigned started = 0;
	int rc = 1;

	if (parse_args(argc, argv, &opt)) {
		usage(stderr);
		return 2;
	}
	w = calloc(opt.threads, sizeof(*w));
	if (!w) {
		fprintf(stderr, "workload: error: out of memory\n");
		return 1;
	}
	for (; started < opt.threads; started++) {
		int err;

		w[started].index = started;
		w[started].opt = &opt;
		err = pthread_create(&w[started].thread, NULL, worker_main, &w[started]);
		if (err) {
			fprintf(stderr, "workload: error: starting worker-%u: %s\n", started,
				strerror(err));
			goto out;
		}
	}
	rc = 0;
out:
	for (unsigned i = 0; i < started; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].err) {
			fprintf(stderr, "workload: error: worker-%u: syscall phase: %s\n", i,
				strerror(w[i].err));
			rc = 1;
		}
		checksum = mix64(checksum ^ w[i].result) + i;
	}
	if (rc == 0)
		printf("workload: checksum 0x%016" PRIx64 "\n", checksum);
	free(w);
	return rc;
}
