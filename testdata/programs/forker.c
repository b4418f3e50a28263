// SPDX-License-Identifier: MIT
/*
 * forker.c - a target for follow-children tests: fork, then exec.
 *
 * The parent forks N children and works in parent_work() while they run.
 * Each child first works in forked_work() (a plain fork: it still runs the
 * parent's image and mappings), then execs this executable again with
 * --child, which works in exec_work() under the new image and exits.
 *
 *     parent:              main -> parent_work
 *     child, before exec:  main -> forked_work
 *     child, after exec:   main -> exec_work          (argv: forker --child)
 *
 * Each work unit is about 1 ms of CPU on the reference machine.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* noclone: a clone (fn.isra.0) would rename the function tests look for. */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define DEFAULT_CHILDREN 2u
#define MAX_CHILDREN     32u
#define DEFAULT_WORK     100u
#define UNIT_ITERS       640000u

static volatile uint64_t sink;

static uint64_t spin_units(unsigned long units, uint64_t x)
{
	unsigned long n = units * UNIT_ITERS;

	for (unsigned long i = 0; i < n; i++)
		x = (x * 6364136223846793005ULL + i) ^ (x >> 29);
	return x;
}

/* Three copies of the same loop, so a profile tells the phases apart. */
NOINLINE static uint64_t parent_work(unsigned long units)
{
	uint64_t x = spin_units(units, 1);

	sink = x;
	return x;
}

NOINLINE static uint64_t forked_work(unsigned long units)
{
	uint64_t x = spin_units(units, 2);

	sink = x;
	return x;
}

NOINLINE static uint64_t exec_work(unsigned long units)
{
	uint64_t x = spin_units(units, 3);

	sink = x;
	return x;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: forker [--children N] [--work N]\n"
		"\n"
		"Fork N children (default %u, at most %u).  Each works N units (default %u,\n"
		"~1 ms each) in forked_work(), then execs 'forker --child' which works N\n"
		"units in exec_work().  The parent works N units in parent_work() and waits.\n"
		"Exits 0 if every child exited 0.\n",
		DEFAULT_CHILDREN, MAX_CHILDREN, DEFAULT_WORK);
}

static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end || *out > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long children = DEFAULT_CHILDREN, work = DEFAULT_WORK;
	char self[PATH_MAX], work_arg[32];
	int child_mode = 0, rc = 0;
	unsigned long started = 0;
	ssize_t n;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--child")) {
			child_mode = 1;
		} else if (!strcmp(a, "--children") && !parse_ulong(val, MAX_CHILDREN, &children)) {
			i++;
		} else if (!strcmp(a, "--work") && !parse_ulong(val, 100000, &work)) {
			i++;
		} else {
			fprintf(stderr, "forker: error: bad option or value '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (child_mode) {
		exec_work(work);
		return 0;
	}

	/* Exec the real path: exec of /proc/self/exe would name the child "exe". */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		fprintf(stderr, "forker: error: readlink /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	self[n] = '\0';
	snprintf(work_arg, sizeof(work_arg), "%lu", work);

	for (; started < children; started++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "forker: error: fork of child %lu: %s\n", started,
				strerror(errno));
			rc = 1;
			break;
		}
		if (pid == 0) {
			forked_work(work);
			execl(self, "forker", "--child", "--work", work_arg, (char *)NULL);
			fprintf(stderr, "forker: error: exec %s: %s\n", self, strerror(errno));
			_exit(127);
		}
	}
	parent_work(work);
	for (unsigned long i = 0; i < started; i++) {
		int status;
		pid_t pid = wait(&status);

		if (pid < 0) {
			fprintf(stderr, "forker: error: wait: %s\n", strerror(errno));
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "forker: error: child %d failed (status 0x%x)\n",
				(int)pid, status);
			rc = 1;
		}
	}
	if (rc == 0)
		printf("forker: %lu children done\n", started);
	return rc;
}
