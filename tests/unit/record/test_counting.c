// SPDX-License-Identifier: MIT
/* Unit tests for record/counting.c on this thread's own software events:
 * a group is read in one read(2), so its members share one enabled and
 * running time; an event the machine cannot count leaves its group with
 * the reason and the next member leads; the reads are cumulative.  Skipped
 * where perf_event_open refuses software events (a container). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/counting.h"
#include "record/events/probe.h"

/* This thread as a -t target. */
static void self_target(struct rec_target *t, pid_t *tid)
{
	memset(t, 0, sizeof(*t));
	t->kind = REC_TARGET_TID;
	*tid = (pid_t)syscall(SYS_gettid);
	t->threads = tid;
	t->nr_threads = 1;
	t->go_fd = t->err_fd = -1;
}

/* Touch 256 fresh pages (a page fault each) and spin (task-clock).  The
 * pages are mapped here, not malloc()ed: after the first free() glibc
 * raises its mmap threshold and serves the next MiB from the heap, whose
 * pages may be faulted in already; and no transparent huge page may make
 * them one fault. */
static void busy(void)
{
	volatile char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	madvise((void *)p, 1 << 20, MADV_NOHUGEPAGE);
	for (int i = 0; i < (1 << 20); i += 4096)
		p[i] = 1;
	for (volatile int i = 0; i < 2000000; i++)
		;
	munmap((void *)p, 1 << 20);
}

static void open_or_skip(struct rec_counting *c, struct rec_event_list *l, const char *spec,
			 struct rec_target *t)
{
	char err[512];
	int ret;

	memset(l, 0, sizeof(*l));
	assert_int_equal(rec_events_parse(l, spec, err, sizeof(err)), 0);
	ret = rec_counting_open(c, l, t, err, sizeof(err));
	if (ret == -EACCES || ret == -EPERM || ret == -ENOSYS) {
		printf("cannot count here: %s\n", err);
		rec_counting_close(c);
		rec_events_free(l);
		skip();
	}
	if (ret)
		fail_msg("%s: %d %s", spec, ret, err);
}

static void test_group(void **state)
{
	struct rec_counting c;
	struct rec_event_list l;
	struct rec_target t;
	struct amb_stat_count first[3];
	pid_t tid;

	(void)state;
	self_target(&t, &tid);
	open_or_skip(&c, &l, "{task-clock,page-faults},context-switches", &t);
	assert_int_equal(c.nr_cells, 1);
	assert_int_equal(c.cpu[0], -1);
	assert_int_equal(c.tid[0], tid);
	assert_int_equal(c.lead[0], 0);
	assert_int_equal(c.lead[1], 0);
	assert_int_equal(c.lead[2], 2);
	for (size_t e = 0; e < 3; e++) {
		assert_null(c.unsupported[e]);
		assert_true(l.v[e].attr.read_format & PERF_FORMAT_GROUP);
		assert_int_equal(l.v[e].attr.sample_period, 0);
	}
	assert_int_equal(l.v[0].attr.disabled, 1);
	assert_int_equal(l.v[1].attr.disabled, 0);
	assert_int_equal(l.v[2].attr.disabled, 1);
	rec_counting_enable(&c, true);
	busy();
	/* Two groups, one read each. */
	assert_int_equal(rec_counting_read(&c), 2);
	for (size_t e = 0; e < 3; e++) {
		assert_true(c.have[e]);
		first[e] = c.now[e];
	}
	assert_true(c.now[0].val > 0);
	assert_true(c.now[1].val >= 200);    /* 256 fresh pages */
	/* One read(2) of the group: one enabled and running time for both. */
	assert_true(c.now[0].ena == c.now[1].ena && c.now[0].run == c.now[1].run);
	assert_true(c.now[0].run > 0 && c.now[0].run <= c.now[0].ena);
	busy();
	rec_counting_enable(&c, false);
	assert_int_equal(rec_counting_read(&c), 2);
	for (size_t e = 0; e < 3; e++) {
		assert_true(c.now[e].val >= first[e].val);
		assert_true(c.now[e].ena >= first[e].ena);
	}
	assert_true(c.now[1].val >= first[1].val + 200);
	rec_counting_close(&c);
	rec_events_free(&l);
}

/* A hardware leader on a machine without a PMU: it is <not supported>,
 * with the reason, and task-clock leads what is left of the group. */
static void test_unsupported_leader(void **state)
{
	struct perf_event_attr hw = { .size = sizeof(hw), .type = PERF_TYPE_HARDWARE,
				      .config = PERF_COUNT_HW_INSTRUCTIONS };
	struct rec_counting c;
	struct rec_event_list l;
	struct rec_target t;
	pid_t tid;

	(void)state;
	if (!rec_probe_unsupported(-rec_probe_open(&hw))) {
		printf("this machine counts instructions\n");
		skip();
	}
	self_target(&t, &tid);
	open_or_skip(&c, &l, "{instructions,task-clock,page-faults}", &t);
	assert_non_null(c.unsupported[0]);
	assert_non_null(strstr(c.unsupported[0], "PMU"));
	assert_int_equal(c.lead[0], -1);
	assert_int_equal(c.lead[1], 1);
	assert_int_equal(c.lead[2], 1);
	assert_int_equal(l.v[1].attr.disabled, 1);
	assert_int_equal(l.v[2].attr.disabled, 0);
	rec_counting_enable(&c, true);
	busy();
	assert_int_equal(rec_counting_read(&c), 1);
	assert_false(c.have[0]);
	assert_true(c.have[1] && c.have[2]);
	assert_true(c.now[1].run == c.now[2].run);
	rec_counting_close(&c);
	rec_events_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_unsupported_leader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
