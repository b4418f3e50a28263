// SPDX-License-Identifier: MIT
/*
 * switcher.c - context-switch-heavy workloads for the scheduler
 * benchmarks (README.md in this directory): a pipe ping-pong between two
 * threads, or many threads taking turns on one mutex, for a given time.
 *
 *   pingpong:  ping_thread and pong_thread pass one byte back and forth
 *              through two pipes; every pass blocks the sender in read()
 *              and wakes the other (two switches per round trip on one
 *              CPU, two wakeups).
 *   mutex:     N threads pass a turn around a ring under one pthread
 *              mutex: each waits in pthread_cond_wait (take_turn) until
 *              the turn is its own, does a little work holding the mutex
 *              (in_lock), hands the turn on and signals the next thread's
 *              condition variable.  Every pass wakes a thread, which must
 *              take the mutex again before it can run on: a convoy on one
 *              lock, as threads queueing for a lock hand it over.  (Plain
 *              lock/unlock loops rarely block: the holder takes the free
 *              lock again before the woken waiter runs.)
 *
 * It prints the work done and its own CPU time, "switcher: pingpong
 * 123456 round trips in 3.000 s, cpu 2.345 s" or "switcher: mutex 8
 * threads 123456 passes in 3.000 s, cpu 2.345 s", so that a benchmark
 * sees how much a recorder slowed it down, and can take the workload's
 * CPU time out of the recorder's.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define MAX_THREADS 256

static double seconds = 3.0;
static unsigned nthreads = 8;
static uint64_t deadline_ns;
static bool stop;                /* mutex: under the mutex */
static int ping[2], pong[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turns[MAX_THREADS];
static unsigned turn;
static uint64_t passes;
static volatile uint64_t shared;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* User and system time of the whole process so far. */
static double cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* ---- pingpong ---------------------------------------------------------------- */

static void *pong_thread(void *arg)
{
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "pong");
	while (read(ping[0], &c, 1) == 1 && c == 'p')
		if (write(pong[1], "o", 1) != 1)
			break;
	return NULL;
}

static NOINLINE uint64_t ping_thread(void)
{
	uint64_t n = 0;
	char c;

	while (now_ns() < deadline_ns) {
		if (write(ping[1], "p", 1) != 1 || read(pong[0], &c, 1) != 1)
			return UINT64_MAX;
		n++;
	}
	return n;
}

static int run_pingpong(void)
{
	pthread_t t;
	uint64_t n;

	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, pong_thread, NULL)) {
		perror("switcher: pingpong");
		return 1;
	}
	deadline_ns = now_ns() + (uint64_t)(seconds * 1e9);
	n = ping_thread();
	if (write(ping[1], "q", 1) != 1 || pthread_join(t, NULL) || n == UINT64_MAX) {
		fprintf(stderr, "switcher: pingpong: a pipe failed\n");
		return 1;
	}
	printf("switcher: pingpong %" PRIu64 " round trips in %.3f s, cpu %.3f s\n", n, seconds,
	       cpu_seconds());
	return 0;
}

/* ---- mutex -------------------------------------------------------------------- */

static NOINLINE void in_lock(void)
{
	for (unsigned i = 0; i < 100; i++)
		shared = shared * 2862933555777941757ull + 3037000493ull;
}

/* Wait, holding the mutex, until it is @me's turn (or the end). */
static NOINLINE void take_turn(unsigned me)
{
	while (turn != me && !stop)
		pthread_cond_wait(&turns[me], &lock);
}

static void *mutex_thread(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;

	pthread_setname_np(pthread_self(), "locker");
	pthread_mutex_lock(&lock);
	for (;;) {
		take_turn(me);
		if (stop)
			break;
		in_lock();
		passes++;
		if (now_ns() >= deadline_ns) {
			stop = true;
			for (unsigned i = 0; i < nthreads; i++)
				pthread_cond_signal(&turns[i]);
			break;
		}
		turn = (me + 1) % nthreads;
		pthread_cond_signal(&turns[turn]);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static int run_mutex(void)
{
	static pthread_t t[MAX_THREADS];

	for (unsigned i = 0; i < nthreads; i++)
		pthread_cond_init(&turns[i], NULL);
	deadline_ns = now_ns() + (uint64_t)(seconds * 1e9);
	for (unsigned i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, mutex_thread, (void *)(uintptr_t)i)) {
			perror("switcher: mutex");
			return 1;
		}
	for (unsigned i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("switcher: mutex %u threads %" PRIu64 " passes in %.3f s, cpu %.3f s\n", nthreads,
	       passes, seconds, cpu_seconds());
	return 0;
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: switcher pingpong|mutex [--seconds S] [--threads N]\n"
		"  pingpong        two threads pass a byte through two pipes\n"
		"  mutex           --threads N (default 8, 2..%d) threads pass a turn around\n"
		"                  a ring under one mutex\n"
		"  --seconds S     how long (default 3, 0.1..3600)\n", MAX_THREADS);
	return rc;
}

int main(int argc, char **argv)
{
	const char *mode = NULL;

	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(stdout, 0);
		if (!strcmp(argv[i], "pingpong") || !strcmp(argv[i], "mutex")) {
			mode = argv[i];
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = strtod(argv[++i], &end);
			if (*end || !(seconds >= 0.1 && seconds <= 3600))
				return usage(stderr, 2);
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (*end || v < 2 || v > MAX_THREADS || *argv[i] == '-')
				return usage(stderr, 2);
			nthreads = (unsigned)v;
		} else {
			return usage(stderr, 2);
		}
	}
	if (!mode)
		return usage(stderr, 2);
	return !strcmp(mode, "pingpong") ? run_pingpong() : run_mutex();
}
