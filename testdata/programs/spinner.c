// SPDX-License-Identifier: MIT
/*
 * spinner.c - a long-running target for attach (-p PID) tests.
 *
 * Before it prints its pid it dlopen()s libm.so.6 and mmap()s a file, so a
 * profiler that attaches afterwards must discover those mappings from
 * /proc/PID/maps rather than from PERF_RECORD_MMAP2 events.  Then it spins
 * in spin_forever() (calling libm's cos() through the dlsym pointer now and
 * then) until SIGTERM/SIGINT or --seconds elapse, and exits 0.
 *
 *     main -> spin_forever -> cos (libm.so.6, dlopen()ed)
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* noclone: a clone (fn.isra.0) would rename the function tests look for. */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define DEFAULT_SECONDS 30u
#define MAX_SECONDS     3600u

typedef double (*cos_fn)(double);

static volatile sig_atomic_t stop_signal;
static volatile uint64_t sink;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spin until a signal or @deadline; returns the number of outer rounds. */
NOINLINE static uint64_t spin_forever(double deadline, cos_fn cosine)
{
	uint64_t rounds = 0, x = 1;
	double acc = 0;

	while (!stop_signal) {
		for (unsigned i = 0; i < 4096; i++)
			x = (x * 6364136223846793005ULL + i) ^ (x >> 29);
		acc += cosine((double)(x & 0xffff));
		if (++rounds % 256 == 0 && now_seconds() >= deadline)
			break;
	}
	sink = x + (uint64_t)acc;
	return rounds;
}

/* Map @path read-only and touch every page; returns 0 or -errno. */
static int map_file(const char *path, void **addr, size_t *len)
{
	struct stat st;
	int fd, err = 0;
	uint8_t sum = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (st.st_size <= 0) {
		err = -EINVAL;
		goto out;
	}
	*len = (size_t)st.st_size;
	*addr = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (*addr == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	for (size_t off = 0; off < *len; off += 4096)
		sum += ((const uint8_t *)*addr)[off];
	sink = sum;
out:
	close(fd);
	return err;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: spinner [--seconds N] [--map FILE]\n"
		"\n"
		"dlopen libm.so.6, mmap FILE (default: this executable), print the pid on\n"
		"stdout, then spin in spin_forever() until SIGTERM/SIGINT or N seconds\n"
		"(default %u, at most %u) have passed.  Exits 0 either way.\n",
		DEFAULT_SECONDS, MAX_SECONDS);
}

int main(int argc, char **argv)
{
	unsigned long seconds = DEFAULT_SECONDS;
	const char *map_path = "/proc/self/exe";
	struct sigaction sa;
	void *libm = NULL, *map = MAP_FAILED;
	size_t map_len = 0;
	cos_fn cosine;
	uint64_t rounds;
	int rc = 1, err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			char *end;

			errno = 0;
			seconds = strtoul(argv[++i], &end, 10);
			if (errno || *end || argv[i][0] < '0' || argv[i][0] > '9' ||
			    seconds > MAX_SECONDS) {
				fprintf(stderr, "spinner: error: bad --seconds '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--map") && i + 1 < argc) {
			map_path = argv[++i];
		} else {
			fprintf(stderr, "spinner: error: unknown or incomplete option '%s'\n",
				argv[i]);
			usage(stderr);
			return 2;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL)) {
		fprintf(stderr, "spinner: error: sigaction: %s\n", strerror(errno));
		return 1;
	}

	libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	if (!libm) {
		fprintf(stderr, "spinner: error: dlopen libm.so.6: %s\n", dlerror());
		goto out;
	}
	*(void **)&cosine = dlsym(libm, "cos");
	if (!cosine) {
		fprintf(stderr, "spinner: error: dlsym cos in libm.so.6: %s\n", dlerror());
		goto out;
	}
	err = map_file(map_path, &map, &map_len);
	if (err) {
		fprintf(stderr, "spinner: error: mmap %s: %s\n", map_path, strerror(-err));
		goto out;
	}

	/* Everything is mapped: now tell the test whom to attach to. */
	printf("%d\n", (int)getpid());
	fflush(stdout);

	rounds = spin_forever(now_seconds() + (double)seconds, cosine);
	if (stop_signal)
		fprintf(stderr, "spinner: stopped by signal %d after %llu rounds\n",
			(int)stop_signal, (unsigned long long)rounds);
	else
		fprintf(stderr, "spinner: %lu s elapsed after %llu rounds\n", seconds,
			(unsigned long long)rounds);
	rc = 0;
out:
	if (map != MAP_FAILED)
		munmap(map, map_len);
	if (libm)
		dlclose(libm);
	return rc;
}
