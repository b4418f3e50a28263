// SPDX-License-Identifier: MIT
/*
 * Unit tests for record/output.c: what -o may name, older recordings moved
 * aside without ever replacing one, the file held by descriptor and
 * followed when it is moved, its replacement under its lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/output.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/amber-test-output.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static const char *at(const char *name)
{
	static char bufs[4][256];
	static unsigned n;
	char *b = bufs[n++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	return b;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_check(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(rec_output_check(at("new.amber"), err, sizeof(err)), 0);
	put(at("file"), "x");
	assert_int_equal(rec_output_check(at("file"), err, sizeof(err)), 0);
	assert_int_equal(symlink("file", at("link")), 0);
	assert_int_equal(rec_output_check(at("link"), err, sizeof(err)), 0);
	assert_int_equal(rec_output_check(dir, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "is a directory"));
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	assert_int_equal(rec_output_check(at("fifo"), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is a FIFO"));
	assert_int_equal(rec_output_check("-", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "standard output"));
	/* Only checked: nothing is moved or made here. */
	assert_int_equal(rec_output_check("/dev/null", err, sizeof(err)), 0);
	assert_int_equal(rec_output_check("/dev/zero", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is a character device"));
}

/* FILE.old, FILE.old.1 ... the first free name: nothing is replaced. */
static void test_old_names(void **state)
{
	struct rec_output o;
	char err[512], where[512];

	(void)state;
	put(at("r"), "first");
	put(at("r.old"), "older");
	put(at("r.old.2"), "oldest");
	assert_int_equal(rec_output_create(&o, at("r"), err, sizeof(err)), 0);
	assert_string_equal(o.moved_to, at("r.old.1"));
	assert_string_equal(get(at("r.old.1")), "first");
	assert_string_equal(get(at("r.old")), "older");
	assert_string_equal(get(at("r.old.2")), "oldest");
	assert_string_equal(rec_output_where(&o, where, sizeof(where)), at("r"));
	assert_int_equal(rec_output_size(&o), 0);

	/* Held by descriptor: followed when moved. */
	assert_int_equal(write(o.fd, "rec", 3), 3);
	assert_int_equal(rename(at("r"), at("moved")), 0);
	assert_string_equal(rec_output_where(&o, where, sizeof(where)), at("moved"));
	assert_int_equal(rec_output_size(&o), 3);
	rec_output_close(&o);

	/* A symbolic link is moved itself. */
	assert_int_equal(symlink("moved", at("s")), 0);
	assert_int_equal(rec_output_create(&o, at("s"), err, sizeof(err)), 0);
	assert_string_equal(o.moved_to, at("s.old"));
	assert_string_equal(get(at("moved")), "rec");
	rec_output_close(&o);
}

/* The trimmed copy replaces the recording where it is, under its lock;
 * a file being moved aside waits for that lock. */
static void test_replace(void **state)
{
	struct rec_output o;
	char err[512], where[512];
	int tmp, held;

	(void)state;
	assert_int_equal(rec_output_create(&o, at("t"), err, sizeof(err)), 0);
	assert_int_equal(write(o.fd, "long recording", 14), 14);
	assert_int_equal(rename(at("t"), at("t.elsewhere")), 0);
	tmp = open(at("t.trim"), O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(tmp >= 0);
	assert_int_equal(write(tmp, "short", 5), 5);
	assert_int_equal(rec_output_replace(&o, at("t.trim"), tmp), 0);
	assert_int_equal(o.fd, tmp);
	assert_string_equal(get(at("t.elsewhere")), "short");
	assert_null(get(at("t.trim")));
	assert_string_equal(rec_output_where(&o, where, sizeof(where)), at("t.elsewhere"));

	/* While another holds the recording's lock, it cannot be replaced
	 * by a second process's move (flock is per open file). */
	held = open(at("t.elsewhere"), O_RDONLY);
	assert_true(held >= 0);
	assert_int_equal(flock(held, LOCK_EX | LOCK_NB), 0);
	assert_int_equal(flock(o.fd, LOCK_EX | LOCK_NB), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	close(held);
	rec_output_close(&o);
}

/* -o /dev/null, on a node of the test's own with its numbers: a bug here
 * must not take the system's /dev/null away. */
static void test_discard(void **state)
{
	struct rec_output o;
	char err[512], where[300];
	struct stat st;

	(void)state;
	if (mknod(at("null"), S_IFCHR | 0666, makedev(1, 3))) {
		skip();   /* needs root */
		return;
	}
	assert_int_equal(rec_output_create(&o, at("null"), err, sizeof(err)), 0);
	assert_true(o.discard);
	assert_null(o.moved_to);
	assert_string_equal(rec_output_where(&o, where, sizeof(where)), at("null"));
	assert_int_equal(rec_output_samples(&o), -1);
	rec_output_close(&o);
	assert_int_equal(lstat(at("null"), &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_discard, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
