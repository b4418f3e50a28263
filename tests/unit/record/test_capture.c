// SPDX-License-Identifier: MIT
/* Unit tests for what a production capture checks and finds before it
 * opens anything: the permission rules of perf_event_open on made-up
 * states (privileges.c), the cgroup hierarchy of perf_event in mountinfo
 * text (cgroup.c), and the kernel's words on a refused tracepoint filter
 * (tp_filter.c). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "record/cgroup.h"
#include "record/tp_filter.h"
#include "record/privileges.h"

/* A user without capabilities on a stock kernel. */
static struct rec_priv_state user_state(long paranoid)
{
	struct rec_priv_state st;

	memset(&st, 0, sizeof(st));
	st.paranoid = paranoid;
	st.kptr_restrict = 0;
	st.mlock_kb = 516;
	st.memlock_bytes = 8u << 20;
	st.uid = 1000;
	st.tracefs = "/sys/kernel/tracing";
	return st;
}

static struct rec_priv_need need_of(bool cpu_wide, bool kernel)
{
	struct rec_priv_need n;

	memset(&n, 0, sizeof(n));
	n.cpu_wide = cpu_wide;
	n.kernel = kernel;
	n.ring_pages = 256;
	n.nr_rings = 2;
	n.page_size = 4096;
	return n;
}

static void test_paranoid(void **state)
{
	struct rec_priv_state st = user_state(2);
	struct rec_priv_need n = need_of(false, true);
	char err[2048], notes[1024];

	(void)state;
	/* paranoid 2: a command of one's own, user space only, with a note */
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), notes, sizeof(notes)), 0);
	assert_non_null(strstr(notes, "only user space is sampled"));
	/* ... and -a is refused, saying why and how */
	n = need_of(true, true);
	n.cpu_wide_why = "-a";
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), notes, sizeof(notes)), -EACCES);
	assert_non_null(strstr(err, "-a records every task on a CPU"));
	assert_non_null(strstr(err, "perf_event_paranoid is 2"));
	assert_non_null(strstr(err, "CAP_PERFMON"));
	assert_non_null(strstr(err, "setcap cap_perfmon"));
	assert_non_null(strstr(err, "sysctl kernel.perf_event_paranoid=0"));
	/* paranoid 0 lets it through, kernel samples included */
	st = user_state(0);
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), notes, sizeof(notes)), 0);
	assert_string_equal(notes, "");
	/* so does CAP_PERFMON, and CAP_SYS_ADMIN */
	st = user_state(2);
	st.cap_perfmon = true;
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), notes, sizeof(notes)), 0);
	st.cap_perfmon = false;
	st.cap_sys_admin = true;
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), NULL, 0), 0);
	/* 3: a note on Debian's meaning */
	st = user_state(3);
	n = need_of(false, false);
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), notes, sizeof(notes)), 0);
	assert_non_null(strstr(notes, "Debian and Ubuntu"));
	/* no perf events at all */
	st = user_state(LONG_MIN);
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), notes, sizeof(notes)), -EACCES);
	assert_non_null(strstr(err, "no perf events"));
}

static void test_tracepoints(void **state)
{
	struct rec_priv_state st = user_state(0);
	struct rec_priv_need n = need_of(false, false);
	char err[2048];

	(void)state;
	n.tracepoints = n.raw_tracepoints = true;
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), NULL, 0), -EACCES);
	assert_non_null(strstr(err, "raw event data"));
	assert_non_null(strstr(err, "perf_event_paranoid=-1"));
	st.paranoid = -1;
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), NULL, 0), 0);
	/* tracefs closed, or not mounted */
	st.tracefs = NULL;
	st.tracefs_errno = EACCES;
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), NULL, 0), -EACCES);
	assert_non_null(strstr(err, "may not read"));
	st.tracefs_errno = ENOENT;
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), NULL, 0), -EACCES);
	assert_non_null(strstr(err, "mount -t tracefs"));
}

static void test_locked_memory(void **state)
{
	struct rec_priv_state st = user_state(2);
	struct rec_priv_need n = need_of(false, false);
	char err[2048];

	(void)state;
	/* 516 KiB per CPU (129 pages) x 2 + 8 MiB (2048 pages) = 2306 pages */
	assert_int_equal(rec_priv_ring_pages(&st, 4096, 2, 4096), 1024);
	assert_int_equal(rec_priv_ring_pages(&st, 256, 2, 4096), 256);
	n.ring_pages = 2048;
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), NULL, 0), -EACCES);
	assert_non_null(strstr(err, "smaller -m (1024 fits)"));
	st.cap_ipc_lock = true;
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), NULL, 0), 0);
	assert_int_equal(rec_priv_ring_pages(&st, 4096, 2, 4096), 4096);
	st = user_state(-1);
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), NULL, 0), 0);
	st = user_state(2);
	st.memlock_bytes = 0;
	st.mlock_kb = 0;
	assert_int_equal(rec_priv_ring_pages(&st, 256, 2, 4096), 0);
}

static void test_kallsyms(void **state)
{
	struct rec_priv_state st = user_state(1);
	struct rec_priv_need n = need_of(false, true);
	char err[2048], notes[1024];

	(void)state;
	assert_true(rec_priv_kallsyms_visible(&st));
	st.paranoid = 2;
	assert_false(rec_priv_kallsyms_visible(&st));
	st.cap_syslog = true;
	assert_true(rec_priv_kallsyms_visible(&st));
	st.kptr_restrict = 2;
	assert_false(rec_priv_kallsyms_visible(&st));
	/* kernel samples allowed, their names hidden: said */
	st = user_state(1);
	st.kptr_restrict = 1;
	assert_int_equal(rec_priv_check(&n, &st, err, sizeof(err), notes, sizeof(notes)), 0);
	assert_non_null(strstr(notes, "kptr_restrict is 1"));
	assert_non_null(strstr(notes, "CAP_SYSLOG"));
}

static void test_cgroup_mount(void **state)
{
	static const char v2[] =
		"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
		"41 31 0:38 / /sys/fs/cgroup/uni\\040fied rw,relatime shared:9 - cgroup2 cgroup2 rw\n";
	static const char v1[] =
		"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
		"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
		"42 31 0:39 / /sys/fs/cgroup/perf_event rw,relatime shared:3 - cgroup cgroup rw,perf_event\n";
	static const char none[] =
		"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		"22 1 0:21 / /proc rw - proc proc rw";
	char out[256], tiny[8];

	(void)state;
	assert_int_equal(rec_cgroup_mount(v2, out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/uni fied");
	assert_int_equal(rec_cgroup_mount(v1, out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/perf_event");
	assert_int_equal(rec_cgroup_mount(none, out, sizeof(out)), -ENOENT);
	assert_int_equal(rec_cgroup_mount("", out, sizeof(out)), -ENOENT);
	assert_int_equal(rec_cgroup_mount("garbage without fields\n - \n", out, sizeof(out)), -ENOENT);
	assert_int_equal(rec_cgroup_mount(v1, tiny, sizeof(tiny)), -ENAMETOOLONG);
}

static void test_filter_error(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(rec_filter_parse_error("prev_pid == abc\n             ^\n"
						"parse_error: Invalid value (did you forget quotes)?\n",
						out, sizeof(out)), 0);
	assert_string_equal(out, "Invalid value (did you forget quotes)?\n"
			    "    prev_pid == abc\n"
			    "                 ^");
	assert_int_equal(rec_filter_parse_error("parse_error: Field not found", out, sizeof(out)), 0);
	assert_string_equal(out, "Field not found");
	assert_int_equal(rec_filter_parse_error("none\n", out, sizeof(out)), -ENOENT);
	assert_int_equal(rec_filter_parse_error("prev_pid == 1\n", out, sizeof(out)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paranoid),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_locked_memory),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_cgroup_mount),
		cmocka_unit_test(test_filter_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
