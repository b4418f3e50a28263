// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/resolve/filter.c: perf's --time forms (absolute
 * timestamps as script prints them, percentages, several ranges), the
 * "+SECONDS" relative form, wall-clock times, the messages of bad ones,
 * and the warning for a range outside the recording.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/resolve/filter.h"
#include "common/util.h"
#include <amber/common.h>

#define S 1000000000ull
/* A recording from 300.5 s to 310.5 s of perf time. */
#define FIRST (300 * S + S / 2)
#define LAST (310 * S + S / 2)

static char warned[512];
static int nr_warned;

static void catch_warning(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(warned, sizeof(warned), "%s", msg);
	nr_warned++;
}

/* @spec set and resolved against the span above: 0 or the error. */
static int prepare(struct ana_filter *f, const char *spec)
{
	int err;

	ana_filter_init(f);
	warned[0] = 0;
	nr_warned = 0;
	amb_errmsg_clear();
	err = ana_filter_set(f, ANA_FILTER_TIME, spec);
	if (!err)
		err = ana_filter_prepare_span(f, FIRST, LAST, false, 0, 0);
	return err;
}

static void test_absolute(void **state)
{
	struct ana_filter f;

	(void)state;
	/* As script prints them: seconds and microseconds.  The end holds
	 * its whole microsecond. */
	assert_int_equal(prepare(&f, "301.000000,302.000005"), 0);
	assert_false(ana_filter_time(&f, 300 * S + 999999999));
	assert_true(ana_filter_time(&f, 301 * S));
	assert_true(ana_filter_time(&f, 302 * S + 5999));
	assert_false(ana_filter_time(&f, 302 * S + 6000));
	ana_filter_free(&f);
	assert_int_equal(prepare(&f, "301,302.5"), 0);
	assert_true(ana_filter_time(&f, 302 * S + S / 2 + 999));
	assert_false(ana_filter_time(&f, 302 * S + S / 2 + 1000));
	/* Nanoseconds are exact; open ends. */
	ana_filter_free(&f);
	assert_int_equal(prepare(&f, "301.000000001,"), 0);
	assert_false(ana_filter_time(&f, 301 * S));
	assert_true(ana_filter_time(&f, 301 * S + 1));
	assert_true(ana_filter_time(&f, UINT64_MAX));
	ana_filter_free(&f);
	assert_int_equal(prepare(&f, ",301.000000000"), 0);
	assert_true(ana_filter_time(&f, 1));
	assert_true(ana_filter_time(&f, 301 * S));
	assert_false(ana_filter_time(&f, 301 * S + 1));
	ana_filter_free(&f);
	assert_int_equal(prepare(&f, ",301.0000001"), 0);
	assert_true(ana_filter_time(&f, 301 * S + 100));
	assert_false(ana_filter_time(&f, 301 * S + 101));
	assert_int_equal(nr_warned, 0);
	ana_filter_free(&f);
}

static void test_several(void **state)
{
	struct ana_filter f;

	(void)state;
	/* perf separates absolute ranges with spaces. */
	assert_int_equal(prepare(&f, "301,302 305,306"), 0);
	assert_int_equal(f.nr_time, 2);
	assert_true(ana_filter_time(&f, 301 * S + 5));
	assert_false(ana_filter_time(&f, 303 * S));
	assert_true(ana_filter_time(&f, 305 * S + 5));
	assert_false(ana_filter_time(&f, 307 * S));
	ana_filter_free(&f);
}

static void test_relative(void **state)
{
	struct ana_filter f;

	(void)state;
	/* +SECONDS count from the start of the recording. */
	assert_int_equal(prepare(&f, "+1,+2.5"), 0);
	assert_false(ana_filter_time(&f, FIRST + S - 1));
	assert_true(ana_filter_time(&f, FIRST + S));
	assert_true(ana_filter_time(&f, FIRST + 2 * S + S / 2));
	assert_false(ana_filter_time(&f, FIRST + 2 * S + S / 2 + 1000));
	ana_filter_free(&f);
	/* Mixed with an absolute end. */
	assert_int_equal(prepare(&f, "+0.5,302"), 0);
	assert_true(ana_filter_time(&f, 301 * S));
	assert_false(ana_filter_time(&f, 300 * S + S / 2 + S / 4));
	ana_filter_free(&f);
}

static void test_percent(void **state)
{
	struct ana_filter f;

	(void)state;
	/* 10%/2: the second tenth of the 10 s span, 301.5 .. 302.5. */
	assert_int_equal(prepare(&f, "10%/2"), 0);
	assert_false(ana_filter_time(&f, 301 * S + S / 2 - 1));
	assert_true(ana_filter_time(&f, 302 * S));
	assert_false(ana_filter_time(&f, 302 * S + S / 2 + 1));
	ana_filter_free(&f);
	/* Several slices and ranges, comma-separated. */
	assert_int_equal(prepare(&f, "10%/1,10%/10"), 0);
	assert_int_equal(f.nr_time, 2);
	assert_true(ana_filter_time(&f, FIRST));
	assert_false(ana_filter_time(&f, 305 * S));
	assert_true(ana_filter_time(&f, LAST));
	ana_filter_free(&f);
	assert_int_equal(prepare(&f, "0%-10%,50%-100%"), 0);
	assert_true(ana_filter_time(&f, FIRST + S / 2));
	assert_false(ana_filter_time(&f, FIRST + 2 * S));
	assert_true(ana_filter_time(&f, FIRST + 6 * S));
	assert_true(ana_filter_time(&f, LAST));
	ana_filter_free(&f);
}

static void test_clock(void **state)
{
	struct ana_filter f;

	(void)state;
	/* A time of day needs the recording's clock reference. */
	ana_filter_init(&f);
	amb_errmsg_clear();
	assert_int_equal(ana_filter_set(&f, ANA_FILTER_TIME, "10:00:00,10:00:01"), 0);
	assert_int_equal(ana_filter_prepare_span(&f, FIRST, LAST, false, 0, 0), -ENODATA);
	assert_non_null(strstr(amb_errmsg(), "clock reference"));
	ana_filter_free(&f);
}

static void test_outside(void **state)
{
	struct ana_filter f;

	(void)state;
	amb_set_warn(catch_warning, NULL);
	/* The old relative form, now an absolute time before the recording:
	 * said, with the way to write it. */
	assert_int_equal(prepare(&f, "0.1,0.5"), 0);
	assert_int_equal(nr_warned, 1);
	assert_non_null(strstr(warned, "lies outside the recording (300.500000 .. 310.500000)"));
	assert_non_null(strstr(warned, "+SECONDS"));
	assert_false(ana_filter_time(&f, FIRST));
	ana_filter_free(&f);
	/* After the end; one range of two. */
	assert_int_equal(prepare(&f, "301,302 400,401"), 0);
	assert_int_equal(nr_warned, 1);
	assert_non_null(strstr(warned, "range 400,401 lies outside"));
	ana_filter_free(&f);
	assert_int_equal(prepare(&f, "305,301"), 0);
	assert_non_null(strstr(warned, "ends before it starts"));
	ana_filter_free(&f);
	assert_int_equal(prepare(&f, "+1,+2"), 0);
	assert_int_equal(nr_warned, 0);
	ana_filter_free(&f);
	amb_set_warn(NULL, NULL);
}

static void test_bad(void **state)
{
	static const char *const bad[] = {
		"", "1", "1,2,3", "x,1", "1,2s", "+,1", "10%", "10%/0", "10%/11", "0%/1",
		"20%-10%", "10%-101%", "a%-b%", "1,2 3", "25:00:00,", "10%/1,1,2",
	};
	struct ana_filter f;
	char many[32 * 8 + 8] = "";

	(void)state;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(bad); i++) {
		ana_filter_init(&f);
		amb_errmsg_clear();
		assert_int_equal(ana_filter_set(&f, ANA_FILTER_TIME, bad[i]), -EINVAL);
		assert_null(f.time_spec);
		ana_filter_free(&f);
	}
	/* The message names the part that is wrong. */
	ana_filter_init(&f);
	amb_errmsg_clear();
	assert_int_equal(ana_filter_set(&f, ANA_FILTER_TIME, "301,302 x,1"), -EINVAL);
	assert_non_null(strstr(amb_errmsg(), "'x,1' is not START,END"));
	ana_filter_free(&f);
	/* More ranges than kept. */
	for (int i = 0; i < ANA_TIME_RANGES_MAX + 1; i++)
		strcat(many, "1,2 ");
	ana_filter_init(&f);
	assert_int_equal(ana_filter_set(&f, ANA_FILTER_TIME, many), -E2BIG);
	ana_filter_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absolute), cmocka_unit_test(test_several),
		cmocka_unit_test(test_relative), cmocka_unit_test(test_percent),
		cmocka_unit_test(test_clock),    cmocka_unit_test(test_outside),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
