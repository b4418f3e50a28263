// SPDX-License-Identifier: MIT
/* Unit tests for record/events/pmu.c and the pmu/terms/ syntax of
 * record/events/events_pmu.c, on a fake /sys/bus/event_source/devices
 * tree: formats put values into their bits of config, config1 and config2,
 * event aliases expand and later terms override them, modifiers and groups
 * work as for the other events, every error says what is wrong, and
 * --list-events shows the PMU events (and the real tree's, when it has the
 * msr PMU). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <amber/common.h>
#include "record/events/events.h"
#include "record/events/pmu.h"
#include "tests/unit/record/events_util.h"


/*
 * fake   type 42; formats event, umask, cmask, edge (one bit), ldlat
 *        (config1), split (config2, two ranges), two broken ones; events
 *        ev1, ev2 (two terms, with .scale and .unit), needs (umask=?),
 *        Mixed-Case, badalias, greedy and an unreadable one
 * other  type 7, no format/ or events/
 * broken a type that is no number; notapmu has no type at all
 */
static int fake_setup(void **state)
{
	(void)state;
	if (fake_root_make("/tmp/amber-test-pmu-XXXXXX"))
		return -1;
	fake_mkdir("fake");
	fake_write("fake/type", "42\n");
	fake_mkdir("fake/format");
	fake_write("fake/format/event", "config:0-7\n");
	fake_write("fake/format/umask", "config:8-15\n");
	fake_write("fake/format/cmask", "config:24-31\n");
	fake_write("fake/format/edge", "config:18\n");
	fake_write("fake/format/ldlat", "config1:0-15\n");
	fake_write("fake/format/split", "config2:0-3,32-35\n");
	fake_write("fake/format/bad", "config4:0-3\n");
	fake_mkdir("fake/format/unreadable");
	fake_mkdir("fake/events");
	fake_write("fake/events/ev1", "event=0x3c\n");
	fake_write("fake/events/ev2", "event=0xcd,umask=0x1\n");
	fake_write("fake/events/ev2.scale", "6.103515625e-5\n");
	fake_write("fake/events/ev2.unit", "MiB\n");
	fake_write("fake/events/needs", "event=0x40,umask=?\n");
	fake_write("fake/events/Mixed-Case", "event=0x7,edge\n");
	fake_write("fake/events/badalias", "event=0x1,nosuch=3\n");
	fake_write("fake/events/greedy",
		   "umask=?,umask=?,umask=?,umask=?,umask=?,umask=?,umask=?,umask=?,umask=?\n");
	fake_write("fake/events/named", "event=0x11,name=alias-name\n");
	fake_mkdir("fake/events/dir");
	fake_mkdir("other");
	fake_write("other/type", "7");
	fake_mkdir("broken");
	fake_write("broken/type", "x42\n");
	fake_mkdir("notapmu");
	fake_write("afile", "not a PMU\n");
	return rec_pmu_set_root(fake_root) ? -1 : 0;
}

static int fake_teardown(void **state)
{
	(void)state;
	rec_pmu_set_root(NULL);
	return fake_root_remove();
}

/* Each test starts on the fake tree, without tracefs. */
static int use_fake(void **state)
{
	(void)state;
	rec_tracefs_set_root("");
	return rec_pmu_set_root(fake_root);
}


/* @spec is one event of type 42 with these config words and name. */
static void expect_fake(const char *spec, uint64_t config, uint64_t config1, uint64_t config2,
			const char *name)
{
	struct rec_event_list l;

	parse_ok(&l, spec, 1);
	assert_int_equal(l.v[0].attr.type, 42);
	if (l.v[0].attr.config != config || l.v[0].attr.config1 != config1 ||
	    l.v[0].attr.config2 != config2)
		fail_msg("'%s': config %#llx/%#llx/%#llx, want %#llx/%#llx/%#llx", spec,
			 (unsigned long long)l.v[0].attr.config,
			 (unsigned long long)l.v[0].attr.config1,
			 (unsigned long long)l.v[0].attr.config2, (unsigned long long)config,
			 (unsigned long long)config1, (unsigned long long)config2);
	assert_string_equal(l.v[0].name, name);
	assert_int_equal(l.v[0].leader, -1);
	assert_false(l.v[0].tracepoint);
	assert_int_equal(l.v[0].attr.size, sizeof(struct perf_event_attr));
	rec_events_free(&l);
}

/* ---- pmu.c ---------------------------------------------------------------- */

static void test_format_parse(void **state)
{
	static const struct {
		const char *text;
		unsigned word;
		uint64_t mask;
		unsigned width;
	} good[] = {
		{ "config:0-7", 0, 0xff, 8 },
		{ "config:5", 0, 0x20, 1 },
		{ "config1:0-63", 1, ~0ull, 64 },
		{ "config2:0-3,32-35", 2, 0xf0000000full, 8 },
		{ "config:0-7,21,24-31", 0, 0xff2000ffull, 17 },
		{ "config:63", 0, 1ull << 63, 1 },
	};
	static const char *const bad[] = {
		"", "config", "config:", "config3:0-7", "conf:0", "config:8-7", "config:0-64",
		"config:64", "config:0-7,", "config:,0", "config:a-b", "config:1-", "config:0-7x",
		"config:-1", " config:0", "config:99999999999999999999",
	};
	struct rec_pmu_field f;

	(void)state;
	for (size_t i = 0; i < AMB_ARRAY_SIZE(good); i++) {
		if (rec_pmu_format_parse(good[i].text, &f))
			fail_msg("'%s' rejected", good[i].text);
		assert_int_equal(f.word, good[i].word);
		assert_int_equal(f.mask, good[i].mask);
		assert_int_equal(f.width, good[i].width);
	}
	for (size_t i = 0; i < AMB_ARRAY_SIZE(bad); i++)
		if (rec_pmu_format_parse(bad[i], &f) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
}

static void test_field_set(void **state)
{
	struct perf_event_attr a;
	struct rec_pmu_field f;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.config2 = ~0ull;
	assert_int_equal(rec_pmu_format_parse("config2:0-3,32-35", &f), 0);
	/* Low nibble to bits 0-3, high nibble to 32-35; the rest is kept. */
	assert_int_equal(rec_pmu_field_set(&f, 0xa5, &a), 0);
	assert_int_equal(a.config2, ~0xf0000000full | 0xa00000005ull);
	assert_int_equal(a.config, 0);
	assert_int_equal(rec_pmu_field_set(&f, 0x100, &a), -ERANGE);
	assert_int_equal(a.config2, ~0xf0000000full | 0xa00000005ull);

	assert_int_equal(rec_pmu_format_parse("config1:0-63", &f), 0);
	assert_int_equal(rec_pmu_field_set(&f, ~0ull, &a), 0);
	assert_int_equal(a.config1, ~0ull);
	assert_int_equal(rec_pmu_format_parse("config:63", &f), 0);
	assert_int_equal(rec_pmu_field_set(&f, 1, &a), 0);
	assert_int_equal(a.config, 1ull << 63);
	assert_int_equal(rec_pmu_field_set(&f, 2, &a), -ERANGE);
}

static int count_event(void *ctx, const char *pmu, const char *event)
{
	char **names = ctx;
	char *more;

	if (asprintf(&more, "%s%s/%s/ ", *names ? *names : "", pmu, event) < 0)
		return -ENOMEM;
	free(*names);
	*names = more;
	return 0;
}

static int stop_at_second(void *ctx, const char *pmu)
{
	(void)pmu;
	return ++*(int *)ctx == 2 ? 77 : 0;
}

static void test_pmu_open(void **state)
{
	struct rec_pmu *pmu;
	struct rec_pmu_field f;
	char *names = NULL, *text;
	int n = 0;

	(void)state;
	assert_string_equal(rec_pmu_root(), fake_root);
	assert_int_equal(rec_pmu_open("fake", &pmu), 0);
	assert_int_equal(rec_pmu_type(pmu), 42);
	assert_int_equal(rec_pmu_nr_formats(pmu), 8);
	assert_string_equal(rec_pmu_format_name(pmu, 0), "bad");
	assert_string_equal(rec_pmu_format_name(pmu, 7), "unreadable");
	/* ev2.scale and ev2.unit describe ev2: they are no events. */
	assert_int_equal(rec_pmu_nr_events(pmu), 8);
	assert_string_equal(rec_pmu_event_name(pmu, 0), "Mixed-Case");
	assert_string_equal(rec_pmu_event_name(pmu, 4), "ev2");
	assert_string_equal(rec_pmu_event_name(pmu, 5), "greedy");
	assert_int_equal(rec_pmu_format(pmu, "umask", &f), 0);
	assert_int_equal(f.word, 0);
	assert_int_equal(f.mask, 0xff00);
	assert_int_equal(rec_pmu_format(pmu, "nosuch", &f), -ENOENT);
	assert_int_equal(rec_pmu_format(pmu, "../type", &f), -ENOENT);
	assert_int_equal(rec_pmu_format(pmu, "bad", &f), -EINVAL);
	assert_int_equal(rec_pmu_format(pmu, "unreadable", &f), -EISDIR);
	text = rec_pmu_event_terms(pmu, "ev2");
	assert_non_null(text);
	assert_string_equal(text, "event=0xcd,umask=0x1");
	free(text);
	text = rec_pmu_event_terms(pmu, "MIXED-case");
	assert_non_null(text);
	assert_string_equal(text, "event=0x7,edge");
	free(text);
	errno = 0;
	assert_null(rec_pmu_event_terms(pmu, "ev2.scale"));
	assert_int_equal(errno, ENOENT);
	rec_pmu_free(pmu);
	rec_pmu_free(NULL);

	assert_int_equal(rec_pmu_open("other", &pmu), 0);
	assert_int_equal(rec_pmu_type(pmu), 7);
	assert_int_equal(rec_pmu_nr_formats(pmu), 0);
	assert_int_equal(rec_pmu_nr_events(pmu), 0);
	rec_pmu_free(pmu);

	assert_int_equal(rec_pmu_open("nosuch", &pmu), -ENOENT);
	assert_null(pmu);
	assert_int_equal(rec_pmu_open("notapmu", &pmu), -ENOENT);
	assert_int_equal(rec_pmu_open("afile", &pmu), -ENOENT);
	assert_int_equal(rec_pmu_open("broken", &pmu), -EINVAL);
	assert_int_equal(rec_pmu_open("..", &pmu), -ENOENT);
	assert_int_equal(rec_pmu_open("fake/format", &pmu), -ENOENT);
	assert_int_equal(rec_pmu_open("", &pmu), -ENOENT);

	assert_int_equal(rec_pmu_for_each_event(count_event, &names), 0);
	assert_string_equal(names, "fake/Mixed-Case/ fake/badalias/ fake/dir/ fake/ev1/ fake/ev2/ "
				   "fake/greedy/ fake/named/ fake/needs/ ");
	free(names);
	assert_int_equal(rec_pmu_for_each(stop_at_second, &n), 77);
	assert_int_equal(n, 2);

	/* "" is a machine without PMUs; NULL the real tree. */
	assert_int_equal(rec_pmu_set_root(""), 0);
	assert_int_equal(rec_pmu_open("fake", &pmu), -ENOENT);
	names = NULL;
	assert_int_equal(rec_pmu_for_each_event(count_event, &names), 0);
	assert_null(names);
	assert_int_equal(rec_pmu_set_root(NULL), 0);
	assert_string_equal(rec_pmu_root(), "/sys/bus/event_source/devices");
	{
		char long_path[8192];

		memset(long_path, 'a', sizeof(long_path) - 1);
		long_path[sizeof(long_path) - 1] = 0;
		assert_int_equal(rec_pmu_set_root(long_path), -ENAMETOOLONG);
	}
}

/* ---- the pmu/terms/ syntax ---------------------------------------------- */

static void test_terms(void **state)
{
	struct rec_event_list l;

	(void)state;
	expect_fake("fake/event=0x3c,umask=2/", 0x023c, 0, 0, "fake/event=0x3c,umask=2/");
	expect_fake("fake/event=60,umask=0x02,cmask=255/", 0xff00023c, 0, 0,
		    "fake/event=60,umask=0x02,cmask=255/");
	expect_fake("fake/ldlat=3/", 0, 3, 0, "fake/ldlat=3/");
	expect_fake("fake/split=0xab/", 0, 0, 0xa0000000bull, "fake/split=0xab/");
	expect_fake("fake/edge/", 1u << 18, 0, 0, "fake/edge/");
	expect_fake("fake/config=0x1234,config1=5,config2=0xffffffffffffffff/", 0x1234, 5, ~0ull,
		    "fake/config=0x1234,config1=5,config2=0xffffffffffffffff/");
	/* A later term replaces the bits an earlier one set. */
	expect_fake("fake/config=0xffff,umask=0/", 0xff, 0, 0, "fake/config=0xffff,umask=0/");
	expect_fake("fake/umask=1,umask=0x7f/", 0x7f00, 0, 0, "fake/umask=1,umask=0x7f/");
	expect_fake("fake/ umask = 1 , event=2 /", 0x102, 0, 0, "fake/ umask = 1 , event=2 /");
	expect_fake("fake//", 0, 0, 0, "fake//");
	expect_fake(" fake/event=1/ ", 1, 0, 0, "fake/event=1/");

	/* period= and freq= set the event's own sampling, not its config. */
	parse_ok(&l, "fake/ev1,period=100000/,fake/ev2,freq=99/,fake/ev1/", 3);
	assert_int_equal(l.v[0].attr.config, 0x3c);
	assert_int_equal(l.v[0].period, 100000);
	assert_int_equal(l.v[0].freq, 0);
	assert_int_equal(l.v[1].freq, 99);
	assert_int_equal(l.v[1].period, 0);
	assert_int_equal(l.v[2].period, 0);
	assert_int_equal(l.v[2].freq, 0);
	rec_events_free(&l);

	/* perf's generic events with terms: cycles/period=N/. */
	parse_ok(&l, "cpu-clock/period=0x1000,name=slow/u,cache-misses/freq=10/", 2);
	assert_int_equal(l.v[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(l.v[0].attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(l.v[0].period, 0x1000);
	assert_string_equal(l.v[0].name, "slow:u");
	assert_int_equal(l.v[0].attr.exclude_kernel, 1);
	assert_int_equal(l.v[1].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(l.v[1].attr.config, PERF_COUNT_HW_CACHE_MISSES);
	assert_int_equal(l.v[1].freq, 10);
	assert_string_equal(l.v[1].name, "cache-misses/freq=10/");
	rec_events_free(&l);

	/* Aliases: expanded where they stand, later terms override theirs. */
	expect_fake("fake/ev1/", 0x3c, 0, 0, "fake/ev1/");
	expect_fake("fake/ev2/", 0x01cd, 0, 0, "fake/ev2/");
	expect_fake("fake/ev2,umask=3/", 0x03cd, 0, 0, "fake/ev2,umask=3/");
	expect_fake("fake/umask=3,ev2/", 0x01cd, 0, 0, "fake/umask=3,ev2/");
	expect_fake("fake/ev2,cmask=1,ldlat=9/", 0x010001cd, 9, 0, "fake/ev2,cmask=1,ldlat=9/");
	expect_fake("fake/event=ev2/", 0x01cd, 0, 0, "fake/event=ev2/");
	expect_fake("fake/mixed-case/", 0x7 | 1u << 18, 0, 0, "fake/mixed-case/");
	expect_fake("fake/needs,umask=5/", 0x0540, 0, 0, "fake/needs,umask=5/");

	/* name= names the event; modifiers follow as for other names. */
	expect_fake("fake/ev1,name=loads/", 0x3c, 0, 0, "loads");
	expect_fake("fake/named/", 0x11, 0, 0, "alias-name");
	expect_fake("fake/named,name=mine/", 0x11, 0, 0, "mine");
	parse_ok(&l, "fake/ev1,name=loads/u", 1);
	assert_string_equal(l.v[0].name, "loads:u");
	assert_int_equal(l.v[0].attr.exclude_kernel, 1);
	rec_events_free(&l);

	parse_ok(&l, "other//", 1);
	assert_int_equal(l.v[0].attr.type, 7);
	assert_int_equal(l.v[0].attr.config, 0);
	rec_events_free(&l);
	parse_ok(&l, "other/config=99/", 1);
	assert_int_equal(l.v[0].attr.config, 99);
	rec_events_free(&l);
}

static void test_modifiers(void **state)
{
	struct rec_event_list l;

	(void)state;
	parse_ok(&l, "fake/ev1/u", 1);
	assert_string_equal(l.v[0].name, "fake/ev1/u");
	assert_int_equal(l.v[0].attr.config, 0x3c);
	assert_int_equal(l.v[0].attr.exclude_user, 0);
	assert_int_equal(l.v[0].attr.exclude_kernel, 1);
	assert_int_equal(l.v[0].attr.exclude_hv, 1);
	assert_true(l.v[0].user_modifiers);
	rec_events_free(&l);

	parse_ok(&l, "fake/event=0x3c/pp", 1);
	assert_int_equal(l.v[0].attr.precise_ip, 2);
	assert_int_equal(l.v[0].attr.exclude_kernel, 0);
	assert_false(l.v[0].user_modifiers);
	rec_events_free(&l);

	parse_ok(&l, "fake/ev1/:kH", 1);
	assert_string_equal(l.v[0].name, "fake/ev1/:kH");
	assert_int_equal(l.v[0].attr.exclude_user, 1);
	assert_int_equal(l.v[0].attr.exclude_kernel, 0);
	assert_int_equal(l.v[0].attr.exclude_guest, 1);
	rec_events_free(&l);

	parse_ok(&l, "fake/ev1/", 1);
	assert_false(l.v[0].user_modifiers);
	assert_int_equal(l.v[0].attr.exclude_kernel, 0);
	rec_events_free(&l);

	/* The fallback keeps the level modifiers of the name. */
	parse_ok(&l, "fake/ev1/up,fake/ev2/", 2);
	assert_int_equal(rec_events_fallback_cpu_clock(&l, 0), 0);
	assert_string_equal(l.v[0].name, "cpu-clock:u");
	assert_int_equal(l.v[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(l.v[0].attr.precise_ip, 0);
	assert_int_equal(rec_events_fallback_cpu_clock(&l, 1), 0);
	assert_string_equal(l.v[1].name, "cpu-clock");
	rec_events_free(&l);
}

static void test_groups(void **state)
{
	struct rec_event_list l;

	(void)state;
	parse_ok(&l, "{cpu-clock,fake/ev1/}", 2);
	assert_int_equal(l.v[0].leader, 0);
	assert_int_equal(l.v[1].leader, 0);
	assert_int_equal(l.v[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(l.v[1].attr.type, 42);
	assert_string_equal(l.v[1].name, "fake/ev1/");
	rec_events_free(&l);

	/* The commas between the slashes separate terms, not events. */
	parse_ok(&l, "fake/event=1,umask=2/,cpu-clock,{fake/ev2,cmask=3/u,task-clock}", 4);
	assert_int_equal(l.v[0].attr.config, 0x0201);
	assert_int_equal(l.v[0].leader, -1);
	assert_int_equal(l.v[1].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(l.v[2].attr.config, 0x030001cd);
	assert_int_equal(l.v[2].leader, 2);
	assert_int_equal(l.v[3].leader, 2);
	rec_events_free(&l);

	/* Group modifiers: appended to the names of members without their own. */
	parse_ok(&l, "{fake/ev1/,fake/ev2/k,fake/ev1,name=n/,cycles}:up", 4);
	assert_string_equal(l.v[0].name, "fake/ev1/up");
	assert_int_equal(l.v[0].attr.exclude_kernel, 1);
	assert_int_equal(l.v[0].attr.precise_ip, 1);
	assert_string_equal(l.v[1].name, "fake/ev2/kp");
	assert_int_equal(l.v[1].attr.exclude_kernel, 0);
	assert_int_equal(l.v[1].attr.exclude_user, 1);
	assert_int_equal(l.v[1].attr.precise_ip, 1);
	assert_string_equal(l.v[2].name, "n:up");
	assert_string_equal(l.v[3].name, "cycles:up");
	rec_events_free(&l);

	/* Braces between the slashes belong to the terms, not to a group. */
	parse_fails(" { fake/ev1/ , fake/{weird}/ } ", -ENOENT, "has no term '{weird}'");
}

static void test_errors(void **state)
{
	(void)state;
	parse_fails("nosuch/ev1/", -ENOENT, "event 'nosuch/ev1/': unknown PMU 'nosuch' (no ");
	parse_fails("fak/ev1/", -ENOENT, "/fak; PMUs, nearest first: fake, ");
	parse_fails("notapmu/ev1/", -ENOENT, "unknown PMU 'notapmu'");
	parse_fails("../ev1/", -ENOENT, "unknown PMU '..'");
	parse_fails("../fake/ev1/", -EINVAL, "invalid modifier 'e'");
	parse_fails("broken/ev1/", -EINVAL, "event 'broken/ev1/': malformed ");
	parse_fails("broken/ev1/", -EINVAL, "/broken/type (not a 32-bit number)");
	parse_fails("/ev1/", -EINVAL, "event '/ev1/': empty PMU name before '/'");
	parse_fails("fake/ev1", -EINVAL, "event 'fake/ev1': missing closing '/' after the terms");
	parse_fails("{fake/ev1,cycles}", -EINVAL, "event 'fake/ev1,cycles}': missing closing '/'");
	parse_fails("fake/ev1/q", -EINVAL, "event 'fake/ev1/q': invalid modifier 'q'");
	parse_fails("fake/ev1/u/", -EINVAL, "invalid modifier '/'");
	parse_fails("fake/ev1/:", -EINVAL, "event 'fake/ev1/:': empty modifier after ':'");
	parse_fails("fake/ev1/pppp", -EINVAL, "at most 3 'p'");

	/* Unknown terms list the formats and events, the nearest first. */
	parse_fails("fake/bogus=1/", -ENOENT,
		    "event 'fake/bogus=1/': PMU 'fake' has no term 'bogus' (formats: ");
	parse_fails("fake/umsk=1/", -ENOENT, "has no term 'umsk' (formats: umask, ");
	parse_fails("fake/ev3/", -ENOENT, "; events: ev1, ev2, ");
	parse_fails("fake/ev3/", -ENOENT, "; and config, config1, config2, name)");
	parse_fails("other/event=1/", -ENOENT, "(formats: none; events: none;");
	parse_fails("fake/ev2.scale/", -ENOENT, "has no term 'ev2.scale'");
	parse_fails("fake/cfg=1/", -ENOENT, "has no term 'cfg'");

	parse_fails("fake/umask=0x100/", -EINVAL,
		    "event 'fake/umask=0x100/': value 0x100 of term 'umask' does not fit its 8 bits "
		    "(at most 0xff)");
	parse_fails("fake/edge=2/", -EINVAL, "term 'edge' does not fit its 1 bit (at most 0x1)");
	parse_fails("fake/split=256/", -EINVAL, "does not fit its 8 bits");
	parse_fails("fake/umask=zz/", -EINVAL,
		    "event 'fake/umask=zz/': term 'umask': bad value 'zz' (a decimal or 0x hex");
	parse_fails("fake/umask=/", -EINVAL, "term 'umask': bad value ''");
	parse_fails("fake/umask=0x/", -EINVAL, "bad value '0x'");
	parse_fails("fake/umask=-1/", -EINVAL, "bad value '-1'");
	parse_fails("fake/umask=0x1g/", -EINVAL, "bad value '0x1g'");
	parse_fails("fake/event=18446744073709551616/", -EINVAL, "bad value '18446744073709551616'");
	parse_fails("fake/event=0x10000000000000000/", -EINVAL, "bad value");
	parse_fails("fake/umask=?/", -EINVAL, "term 'umask' needs a number, not '?'");
	parse_fails("fake/event=nosuchalias/", -EINVAL, "term 'event': bad value 'nosuchalias'");

	parse_fails("fake/ev1,,umask=1/", -EINVAL, "event 'fake/ev1,,umask=1/': empty term");
	parse_fails("fake/ev1,/", -EINVAL, "empty term");
	parse_fails("fake/=3/", -EINVAL, "event 'fake/=3/': term '=3' has no name before '='");
	parse_fails("fake/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1/",
		    -EINVAL, "longer than 64 bytes");
	parse_fails("fake/config=zz/", -EINVAL,
		    "term 'config' needs a decimal or 0x hex value of 64 bits at most");
	parse_fails("fake/config1/", -EINVAL, "term 'config1' needs a decimal");
	parse_fails("fake/name=/", -EINVAL, "event 'fake/name=/': term 'name' needs a value");
	parse_fails("fake/name/", -EINVAL, "term 'name' needs a value");
	parse_fails("fake/ev1,period=1000,freq=99/", -EINVAL,
		    "event 'fake/ev1,period=1000,freq=99/': period= and freq= exclude each other");
	parse_fails("fake/ev1,period=0/", -EINVAL, "term 'period' needs a number above 0");
	parse_fails("fake/ev1,freq/", -EINVAL, "term 'freq' needs a number above 0");
	parse_fails("cpu-clock/umask=1/", -EINVAL,
		    "event 'cpu-clock/umask=1/': 'cpu-clock' takes only the terms config, config1, "
		    "config2, name, period and freq (no term 'umask')");
	parse_fails("nosuchevent/period=1/", -ENOENT, "unknown PMU 'nosuchevent'");
	parse_fails("fake/ev1,inherit/", -EINVAL, "term 'inherit' is not supported");
	parse_fails("fake/ev1,no-inherit/", -EINVAL, "term 'no-inherit' is not supported");
	parse_fails("fake/call-graph=fp/", -EINVAL, "term 'call-graph' is not supported: use -g");
	parse_fails("fake/ev1=2/", -EINVAL, "'ev1' is an event of PMU 'fake' and takes no value");

	/* What sysfs itself gets wrong. */
	parse_fails("fake/bad=1/", -EINVAL, "event 'fake/bad=1/': malformed format file ");
	parse_fails("fake/bad=1/", -EINVAL, "/fake/format/bad");
	parse_fails("fake/unreadable=1/", -EISDIR, "cannot read ");
	parse_fails("fake/dir/", -EISDIR, "/fake/events/dir: Is a directory");
	parse_fails("fake/badalias/", -EINVAL,
		    "event 'fake/badalias/': term 'nosuch' of ");
	parse_fails("fake/badalias/", -EINVAL,
		    "/fake/events/badalias is not a format of PMU 'fake' (formats: ");
	parse_fails("fake/needs/", -EINVAL,
		    "event 'fake/needs/': term 'umask' needs a value (events/needs has umask=?)");
	parse_fails("fake/umask=5,needs/", -EINVAL, "term 'umask' needs a value");
	parse_fails("fake/greedy/", -EINVAL, "events/greedy asks for more than 8 terms");

	/* A failure leaves what was parsed before. */
	{
		struct rec_event_list l;
		char err[256];

		parse_ok(&l, "cpu-clock", 1);
		assert_int_equal(rec_events_parse(&l, "fake/ev1/,fake/nope/", err, sizeof(err)),
				 -ENOENT);
		assert_int_equal(l.n, 1);
		rec_events_free(&l);
	}

	assert_int_equal(rec_pmu_set_root(""), 0);
	parse_fails("fake/ev1/", -ENOENT, "event 'fake/ev1/': unknown PMU 'fake' (no PMUs are available)");
	assert_int_equal(rec_pmu_set_root("/nonexistent-amber-pmu-root"), 0);
	parse_fails("fake/ev1/", -ENOENT, "unknown PMU 'fake' (no /nonexistent-amber-pmu-root/fake; "
					  "PMUs, nearest first: none)");
}

/* ---- listing ---------------------------------------------------------- */

static char *list_to_string(const char *pattern)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	assert_int_equal(rec_events_list(f, pattern, false), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_list(void **state)
{
	char *text, line[128];

	(void)state;
	text = list_to_string("fake/*");
	/* The fake PMU's type is no PMU of the kernel's: each event says so. */
	snprintf(line, sizeof(line), "\n  %-50s [Kernel PMU event; unavailable: ", "fake/ev1/");
	assert_non_null(strstr(text, line));
	assert_non_null(strstr(text, "  fake/ev2/ "));
	assert_non_null(strstr(text, "  fake/Mixed-Case/ "));
	assert_null(strstr(text, "scale"));
	assert_null(strstr(text, "unit"));
	assert_null(strstr(text, "cpu-clock"));
	free(text);

	text = list_to_string("*/ev2/");
	assert_non_null(strstr(text, "fake/ev2/"));
	assert_null(strstr(text, "fake/ev1/"));
	free(text);

	text = list_to_string(NULL);
	assert_non_null(strstr(text, "cpu-clock"));
	assert_non_null(strstr(text, "fake/needs/"));
	assert_non_null(strstr(text, "[Kernel PMU event; "));
	free(text);

	text = list_to_string("cpu-clock");
	assert_null(strstr(text, "Kernel PMU event"));
	free(text);
}

/* The machine's own tree: msr/tsc/ where the msr PMU exists. */
static void test_real(void **state)
{
	struct rec_event_list l;
	struct rec_pmu *pmu;
	char *text;

	(void)state;
	rec_pmu_set_root(NULL);
	if (rec_pmu_open("msr", &pmu)) {
		printf("no msr PMU here\n");
		skip();
	}
	memset(&l, 0, sizeof(l));
	if (rec_pmu_nr_events(pmu) == 0 || rec_pmu_format(pmu, "event", &(struct rec_pmu_field){ 0 })) {
		rec_pmu_free(pmu);
		printf("msr has no events or no event format\n");
		skip();
	}
	parse_ok(&l, "msr/tsc/", 1);
	assert_int_equal(l.v[0].attr.type, rec_pmu_type(pmu));
	assert_string_equal(l.v[0].name, "msr/tsc/");
	rec_events_free(&l);
	rec_pmu_free(pmu);
	/* msr counts but cannot be sampled: the listing says so. */
	text = list_to_string("msr/*");
	assert_non_null(strstr(text, "msr/tsc/"));
	assert_non_null(strstr(text, "[Kernel PMU event; counts only]"));
	free(text);
	parse_fails("msr/bogus=1/", -ENOENT, "PMU 'msr' has no term 'bogus' (formats: event; events: ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_field_set),
		cmocka_unit_test_setup(test_pmu_open, use_fake),
		cmocka_unit_test_setup(test_terms, use_fake),
		cmocka_unit_test_setup(test_modifiers, use_fake),
		cmocka_unit_test_setup(test_groups, use_fake),
		cmocka_unit_test_setup(test_errors, use_fake),
		cmocka_unit_test_setup(test_list, use_fake),
		cmocka_unit_test_setup(test_real, use_fake),
	};

	return cmocka_run_group_tests(tests, fake_setup, fake_teardown);
}
