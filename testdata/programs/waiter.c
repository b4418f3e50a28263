// SPDX-License-Identifier: MIT
/*
 * waiter.c - threads that wait known times in known functions, for
 * off-CPU profiles and scheduler latency (README.md in this directory).
 *
 * Each kind of wait runs in its own thread, --rounds times --ms each:
 *
 *   nap           nap_sleep          nanosleep                         S
 *   futex         futex_timed_wait   futex(FUTEX_WAIT) timing out      S
 *   pipe-reader   pipe_wait          read() of a pipe; pipe-writer     S
 *                                    writes after writer_pause (--ms)
 *   mutex-waiter  mutex_wait         pthread_mutex_lock of a mutex     S
 *                                    mutex-holder keeps --ms (holder_pause)
 *
 * The partners (pipe-writer, mutex-holder) start their pause only once
 * the waiting thread says it is about to block (a semaphore it posts
 * right before its timed call): so each timed wait lasts at least --ms,
 * however late a loaded machine runs the waiting thread.
 *   vforker       vfork_wait         vfork(): blocked until the child, D
 *                                    which sleeps --ms in vfork_child, exits
 *
 * and --busy threads ("busy-0", ...) each spin in spin() until they have
 * used --busy-ms of CPU: more of them than CPUs keeps runnable threads
 * waiting for a CPU (state R).
 *
 * Every wait is timed by the thread itself (CLOCK_MONOTONIC around the
 * blocking call) and the totals printed at the end, with each thread's
 * wall-clock time from its first to its last instruction, so that a test
 * can compare what a profiler attributes with what really happened.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define MAX_BUSY 64

struct options {
	unsigned long rounds, ms, busy, busy_ms;
	unsigned kinds;          /* K_* bits */
};

enum { K_NAP = 1, K_FUTEX = 2, K_PIPE = 4, K_MUTEX = 8, K_VFORK = 16, K_ALL = 31 };

static struct options opt = { .rounds = 20, .ms = 10, .busy = 0, .busy_ms = 200, .kinds = K_ALL };

/* What a thread measured of itself, printed by main at the end. */
struct report {
	const char *name;        /* thread name */
	const char *wait_fn;     /* the function it waits in, or NULL */
	char state;              /* the state it waits in */
	pid_t tid;
	uint64_t wait_ns, waits, start_ns, end_ns, cpu_ns;
	int err;
};

static struct report reports[8 + MAX_BUSY];
static unsigned nr_reports;

static int pipe_fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t held, released;
static sem_t reading, locking;  /* the waiting thread is about to block */
static volatile uint64_t sink;
/*
 * Calls per wait function.  Each function counts its own, after its
 * blocking call: that keeps the call from being a tail call (the function
 * would leave no frame) and functions with the same body (nap_sleep,
 * writer_pause, holder_pause) from being folded into one symbol.
 */
static volatile unsigned long calls[8];

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The thread's report, named and started. */
static struct report *begin(struct report *r, const char *name, const char *fn, char state)
{
	r->name = name;
	r->wait_fn = fn;
	r->state = state;
	r->tid = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), name);
	r->start_ns = now_ns(CLOCK_MONOTONIC);
	return r;
}

static void end(struct report *r)
{
	r->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
	r->end_ns = now_ns(CLOCK_MONOTONIC);
}

/* ---- the waits: each in its own function, timed by its caller ---------------- */

static NOINLINE void nap_sleep(void)
{
	sleep_ms(opt.ms);
	calls[0]++;
}

static NOINLINE int futex_timed_wait(void)
{
	static uint32_t word;   /* nobody wakes it: the wait ends by its timeout */
	struct timespec ts = { (time_t)(opt.ms / 1000), (long)(opt.ms % 1000) * 1000000L };
	long rc = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);

	calls[1]++;
	return rc == -1 && errno == ETIMEDOUT ? 0 : -1;
}

static NOINLINE int pipe_wait(void)
{
	char c;
	ssize_t n = read(pipe_fds[0], &c, 1);

	calls[2]++;
	return n == 1 ? 0 : -1;
}

static NOINLINE void writer_pause(void)
{
	sleep_ms(opt.ms);
	calls[3]++;
}

static NOINLINE int mutex_wait(void)
{
	int rc = pthread_mutex_lock(&lock);

	calls[4]++;
	return rc;
}

static NOINLINE void holder_pause(void)
{
	sleep_ms(opt.ms);
	calls[5]++;
}

static NOINLINE void wait_turn(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
	calls[6]++;
}

static NOINLINE void vfork_child(void)
{
	struct timespec ts = { (time_t)(opt.ms / 1000), (long)(opt.ms % 1000) * 1000000L };

	/* Only system calls in a vfork child: it runs on its parent's memory. */
	syscall(SYS_nanosleep, &ts, NULL);
	syscall(SYS_exit, 0);
}

static NOINLINE pid_t vfork_wait(void)
{
	pid_t pid = vfork();

	if (pid == 0)
		vfork_child();
	calls[7]++;
	return pid;
}

static NOINLINE void spin(uint64_t budget_ns)
{
	uint64_t x = 0;

	while (now_ns(CLOCK_THREAD_CPUTIME_ID) < budget_ns)
		for (unsigned i = 0; i < 10000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

/* ---- the threads ------------------------------------------------------------------ */

/* Time one call of @fn into @r. */
#define TIMED(r, call)                                                    \
	do {                                                              \
		uint64_t t0_ = now_ns(CLOCK_MONOTONIC);                   \
		if ((call) < 0 && !(r)->err)                              \
			(r)->err = errno ? errno : EIO;                   \
		(r)->wait_ns += now_ns(CLOCK_MONOTONIC) - t0_;            \
		(r)->waits++;                                             \
	} while (0)

static NOINLINE int nap_call(void)
{
	nap_sleep();
	return 0;
}

static void *nap_thread(void *arg)
{
	struct report *r = begin(arg, "nap", "nap_sleep", 'S');

	for (unsigned long i = 0; i < opt.rounds; i++)
		TIMED(r, nap_call());
	end(r);
	return NULL;
}

static void *futex_thread(void *arg)
{
	struct report *r = begin(arg, "futex", "futex_timed_wait", 'S');

	for (unsigned long i = 0; i < opt.rounds; i++)
		TIMED(r, futex_timed_wait());
	end(r);
	return NULL;
}

static void *reader_thread(void *arg)
{
	struct report *r = begin(arg, "pipe-reader", "pipe_wait", 'S');

	for (unsigned long i = 0; i < opt.rounds; i++) {
		sem_post(&reading);
		TIMED(r, pipe_wait());
	}
	end(r);
	return NULL;
}

static void *writer_thread(void *arg)
{
	struct report *r = begin(arg, "pipe-writer", NULL, 'S');

	for (unsigned long i = 0; i < opt.rounds; i++) {
		wait_turn(&reading);
		writer_pause();
		if (write(pipe_fds[1], "x", 1) != 1 && !r->err)
			r->err = errno;
	}
	end(r);
	return NULL;
}

static void *waiter_thread(void *arg)
{
	struct report *r = begin(arg, "mutex-waiter", "mutex_wait", 'S');

	for (unsigned long i = 0; i < opt.rounds; i++) {
		wait_turn(&held);
		sem_post(&locking);
		TIMED(r, -mutex_wait());
		pthread_mutex_unlock(&lock);
		sem_post(&released);
	}
	end(r);
	return NULL;
}

static void *holder_thread(void *arg)
{
	struct report *r = begin(arg, "mutex-holder", NULL, 'S');

	for (unsigned long i = 0; i < opt.rounds; i++) {
		pthread_mutex_lock(&lock);
		sem_post(&held);
		wait_turn(&locking);
		holder_pause();
		pthread_mutex_unlock(&lock);
		wait_turn(&released);
	}
	end(r);
	return NULL;
}

static NOINLINE int vfork_call(void)
{
	int status;
	pid_t pid = vfork_wait();

	if (pid < 0)
		return -1;
	/* The child has exited when vfork returns: reaping does not wait. */
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status)
	       ? 0 : -1;
}

static void *vfork_thread(void *arg)
{
	struct report *r = begin(arg, "vforker", "vfork_wait", 'D');

	for (unsigned long i = 0; i < opt.rounds; i++)
		TIMED(r, vfork_call());
	end(r);
	return NULL;
}

static char busy_names[MAX_BUSY][16];

static void *busy_thread(void *arg)
{
	struct report *r = arg;

	r = begin(r, busy_names[r - reports - 8], NULL, 'R');
	spin(opt.busy_ms * 1000000u);
	end(r);
	return NULL;
}

/* ---- main -------------------------------------------------------------------------- */

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: waiter [--rounds N] [--ms MS] [--only KINDS] [--busy N] [--busy-ms MS]\n"
		"  --rounds N     waits per kind (default 20, 0..100000)\n"
		"  --ms MS        each wait's length in ms (default 10, 1..10000)\n"
		"  --only KINDS   comma-separated: nap,futex,pipe,mutex,vfork, or none\n"
		"                 (default: all)\n"
		"  --busy N       threads that spin for --busy-ms of CPU each (default 0, max %d)\n"
		"  --busy-ms MS   CPU time of each busy thread (default 200)\n", MAX_BUSY);
	return rc;
}

static int parse_ulong(const char *s, unsigned long lo, unsigned long hi, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return !*s || *end || errno || *v < lo || *v > hi || *s == '-' ? -1 : 0;
}

static int parse_kinds(const char *arg)
{
	static const char *const names[] = { "nap", "futex", "pipe", "mutex", "vfork" };
	char *copy = strdup(arg), *tok, *save = NULL;
	int rc = 0;

	opt.kinds = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		unsigned i;

		if (!strcmp(tok, "none"))
			continue;
		for (i = 0; i < 5 && strcmp(tok, names[i]); i++)
			;
		if (i == 5)
			rc = -1;
		else
			opt.kinds |= 1u << i;
	}
	free(copy);
	return rc;
}

static int parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			exit(usage(stdout, 0));
		if (!v)
			return usage(stderr, -1);
		if (!strcmp(a, "--rounds") ? parse_ulong(v, 0, 100000, &opt.rounds) :
		    !strcmp(a, "--ms") ? parse_ulong(v, 1, 10000, &opt.ms) :
		    !strcmp(a, "--busy") ? parse_ulong(v, 0, MAX_BUSY, &opt.busy) :
		    !strcmp(a, "--busy-ms") ? parse_ulong(v, 1, 100000, &opt.busy_ms) :
		    !strcmp(a, "--only") ? parse_kinds(v) : -1)
			return usage(stderr, -1);
		i++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static void *(*const fns[])(void *) = {
		nap_thread, futex_thread, reader_thread, writer_thread,
		waiter_thread, holder_thread, vfork_thread,
	};
	static const unsigned kind_of[] = { K_NAP, K_FUTEX, K_PIPE, K_PIPE, K_MUTEX, K_MUTEX, K_VFORK };
	pthread_t threads[8 + MAX_BUSY];
	bool started[8 + MAX_BUSY] = { false };
	int rc = 0;

	if (parse(argc, argv))
		return 2;
	if (pipe(pipe_fds) || sem_init(&held, 0, 0) || sem_init(&released, 0, 0) ||
	    sem_init(&reading, 0, 0) || sem_init(&locking, 0, 0)) {
		perror("waiter: setup");
		return 1;
	}
	for (unsigned i = 0; i < 7; i++) {
		if (!(opt.kinds & kind_of[i]))
			continue;
		if (pthread_create(&threads[i], NULL, fns[i], &reports[i])) {
			fprintf(stderr, "waiter: cannot start a thread\n");
			return 1;
		}
		started[i] = true;
	}
	for (unsigned long b = 0; b < opt.busy; b++) {
		snprintf(busy_names[b], sizeof(busy_names[b]), "busy-%lu", b);
		if (pthread_create(&threads[8 + b], NULL, busy_thread, &reports[8 + b])) {
			fprintf(stderr, "waiter: cannot start a thread\n");
			return 1;
		}
		started[8 + b] = true;
	}
	nr_reports = 8 + (unsigned)opt.busy;
	for (unsigned i = 0; i < nr_reports; i++) {
		struct report *r = &reports[i];

		if (!started[i])
			continue;
		pthread_join(threads[i], NULL);
		if (r->err) {
			fprintf(stderr, "waiter: %s: %s\n", r->name, strerror(r->err));
			rc = 1;
		}
		if (r->wait_fn)
			printf("waiter: wait %s %c %" PRIu64 " ns %" PRIu64 " waits\n", r->wait_fn,
			       r->state, r->wait_ns, r->waits);
		printf("waiter: thread %s %d wall %" PRIu64 " ns cpu %" PRIu64 " ns\n", r->name,
		       (int)r->tid, r->end_ns - r->start_ns, r->cpu_ns);
	}
	return rc;
}
