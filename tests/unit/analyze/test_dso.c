// SPDX-License-Identifier: MIT
/*
 * Unit tests for the DSO search of analyze/dso.c (order documented at
 * ana_dso_resolve in symbols.h): --symfs hides this machine's paths and
 * debug directory, each step reports its origin, the embedded hook comes
 * first and is the only source of a [vdso], and debuginfod is asked last
 * and never with no_debuginfod.  The ELF is built here with a fixed
 * build-id; files are placed in a scratch tree per case.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/resolve/debuginfod.h"
#include "analyze/resolve/resolve.h"
#include <amber/common.h>

#define BUILD_ID "00112233445566778899aabbccddeeff00112233"

struct fixture {
	char dir[64];
	char elf[128];
	uint8_t id[20];
};

static char last_warning[1024];
static void catch_warning(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static int run(const char *fmt, ...) AMB_PRINTF(1, 2);
static int run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd) == 0 ? 0 : -1;
}

static int setup(void **state)
{
	static struct fixture f;

	strcpy(f.dir, "/tmp/amb-test-dso-XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	snprintf(f.elf, sizeof(f.elf), "%s/host/lib/libx.so", f.dir);
	if (run("mkdir -p %s/host/lib && printf 'int x(void) { return 1; }\\n' >%s/x.c && "
		"cc -shared -fPIC -Wl,--build-id=0x%s -o %s %s/x.c", f.dir, f.dir, BUILD_ID, f.elf,
		f.dir))
		return -1;
	for (size_t i = 0; i < sizeof(f.id); i++)
		sscanf(BUILD_ID + 2 * i, "%2hhx", &f.id[i]);
	amb_set_warn(catch_warning, NULL);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	return run("rm -rf %s", f->dir);
}

/* A fresh, empty directory "<fixture>/<name>" into @buf. */
static const char *scratch(const struct fixture *f, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", f->dir, name);
	assert_int_equal(run("rm -rf %s && mkdir -p %s", buf, buf), 0);
	return buf;
}

/* Resolve the library in a new table with @o; returns the table. */
static struct ana_dso_table *resolve(const struct fixture *f, const struct ana_dso_opts *o,
				     const char *path, struct ana_dso **out)
{
	struct ana_dso_table *t = ana_dso_table_new(o);

	assert_non_null(t);
	*out = ana_dso_table_get(t, path, f->id, sizeof(f->id), true, 1);
	assert_non_null(*out);
	ana_dso_resolve(t, *out);
	return t;
}

static void test_path_without_symfs(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_opts o = { .no_debuginfod = true };
	struct ana_dso_table *t;
	struct ana_dso *d;
	char home[256];

	o.home = scratch(f, "home0", home, sizeof(home));
	t = resolve(f, &o, f->elf, &d);
	assert_int_equal(d->status, ANA_DSO_FOUND);
	assert_int_equal(d->origin, ANA_DSO_FROM_PATH);
	assert_true(d->verified);
	assert_string_equal(d->elf_path, f->elf);
	ana_dso_table_free(t);
}

/* perf's --symfs: an empty root hides the recorded path, which exists. */
static void test_symfs_hides_host(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_opts o = { .no_debuginfod = true };
	struct ana_dso_table *t;
	struct ana_dso *d;
	char home[256], symfs[256], want[512];

	o.home = scratch(f, "home1", home, sizeof(home));
	o.symfs = scratch(f, "symfs1", symfs, sizeof(symfs));
	last_warning[0] = '\0';
	t = resolve(f, &o, f->elf, &d);
	assert_int_equal(d->status, ANA_DSO_MISSING);
	assert_null(d->elf_path);
	assert_non_null(strstr(last_warning, "--symfs"));
	assert_non_null(strstr(last_warning, symfs));
	ana_dso_table_free(t);

	/* The same path under the root is used. */
	assert_int_equal(run("mkdir -p %s%s && rmdir %s%s && cp %s %s%s", symfs, f->elf, symfs,
			     f->elf, f->elf, symfs, f->elf), 0);
	t = resolve(f, &o, f->elf, &d);
	assert_int_equal(d->status, ANA_DSO_FOUND);
	assert_int_equal(d->origin, ANA_DSO_FROM_SYMFS);
	snprintf(want, sizeof(want), "%s%s", symfs, f->elf);
	assert_string_equal(d->elf_path, want);
	ana_dso_table_free(t);
}

/* --symfs DIR is a root: a recorded path with ".." and a symbolic link in
 * DIR, absolute or relative, both stay inside it; ~/.debug is not
 * searched. */
static void test_symfs_confines(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_opts o = { .no_debuginfod = true };
	struct ana_dso_table *t;
	struct ana_dso *d;
	char home[256], symfs[256], up[512], want[600];

	o.home = scratch(f, "home5", home, sizeof(home));
	o.symfs = scratch(f, "symfs5", symfs, sizeof(symfs));
	/* <fixture>/symfs5/../host/lib/libx.so is the host's library. */
	snprintf(up, sizeof(up), "/../host/lib/libx.so");
	t = resolve(f, &o, up, &d);
	assert_int_equal(d->status, ANA_DSO_MISSING);
	ana_dso_table_free(t);
	snprintf(up, sizeof(up), "/../../../../../../../../..%s", f->elf);
	t = resolve(f, &o, up, &d);
	assert_int_equal(d->status, ANA_DSO_MISSING);
	ana_dso_table_free(t);

	/* A link in DIR to the host's file, absolute: resolved inside DIR. */
	assert_int_equal(run("mkdir -p %s/lib && ln -s %s %s/lib/abs.so && ln -s ../../host/lib/libx.so %s/lib/rel.so",
			     symfs, f->elf, symfs, symfs), 0);
	t = resolve(f, &o, "/lib/abs.so", &d);
	assert_int_equal(d->status, ANA_DSO_MISSING);
	ana_dso_table_free(t);
	t = resolve(f, &o, "/lib/rel.so", &d);
	assert_int_equal(d->status, ANA_DSO_MISSING);
	ana_dso_table_free(t);
	/* ... and the copy it names inside DIR is what it finds. */
	assert_int_equal(run("mkdir -p %s%s && rmdir %s%s && cp %s %s%s", symfs, f->elf, symfs,
			     f->elf, f->elf, symfs, f->elf), 0);
	t = resolve(f, &o, "/lib/abs.so", &d);
	assert_int_equal(d->status, ANA_DSO_FOUND);
	snprintf(want, sizeof(want), "%s%s", symfs, f->elf);
	assert_string_equal(d->elf_path, want);
	ana_dso_table_free(t);

	/* perf's ~/.debug holds it, but --symfs stands for another machine. */
	assert_int_equal(run("mkdir -p %s/.debug/.build-id/%.2s && cp %s %s/.debug/.build-id/%.2s/%s",
			     home, BUILD_ID, f->elf, home, BUILD_ID, BUILD_ID + 2), 0);
	last_warning[0] = '\0';
	t = resolve(f, &o, "/gone/libx.so", &d);
	assert_int_equal(d->status, ANA_DSO_MISSING);
	assert_null(strstr(last_warning, "~/.debug"));
	ana_dso_table_free(t);
	o.symfs = NULL;
	t = resolve(f, &o, "/gone/libx.so", &d);
	assert_int_equal(d->status, ANA_DSO_FOUND);
	assert_int_equal(d->origin, ANA_DSO_FROM_DOT_DEBUG);
	ana_dso_table_free(t);
}

/* With --symfs the debug directory is <symfs>/usr/lib/debug. */
static void test_symfs_debug_dir(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_opts o = { .no_debuginfod = true };
	struct ana_dso_table *t;
	struct ana_dso *d;
	char home[256], symfs[256], dbg[512];

	o.home = scratch(f, "home2", home, sizeof(home));
	o.symfs = scratch(f, "symfs2", symfs, sizeof(symfs));
	snprintf(dbg, sizeof(dbg), "%s/usr/lib/debug/.build-id/%.2s", symfs, BUILD_ID);
	assert_int_equal(run("mkdir -p %s && cp %s %s/%s.debug", dbg, f->elf, dbg, BUILD_ID + 2), 0);
	t = resolve(f, &o, "/gone/libx.so", &d);
	assert_int_equal(d->status, ANA_DSO_FOUND);
	assert_int_equal(d->origin, ANA_DSO_FROM_DEBUG_DIR);
	assert_non_null(strstr(d->elf_path, symfs));
	ana_dso_table_free(t);

	/* An explicit debug_dir wins over the symfs one. */
	o.debug_dir = "/nonexistent-debug-dir";
	t = resolve(f, &o, "/gone/libx.so", &d);
	assert_int_equal(d->status, ANA_DSO_MISSING);
	ana_dso_table_free(t);
}

/* perf's build-id cache: ~/.debug/.build-id/xx/rest/elf. */
static void test_dot_debug(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_opts o = { .no_debuginfod = true, .debug_dir = "/nonexistent-debug-dir" };
	struct ana_dso_table *t;
	struct ana_dso *d;
	char home[256];

	o.home = scratch(f, "home3", home, sizeof(home));
	assert_int_equal(run("mkdir -p %s/.debug/.build-id/%.2s/%s && cp %s %s/.debug/.build-id/%.2s/%s/elf",
			     home, BUILD_ID, BUILD_ID + 2, f->elf, home, BUILD_ID, BUILD_ID + 2), 0);
	t = resolve(f, &o, "/gone/libx.so", &d);
	assert_int_equal(d->status, ANA_DSO_FOUND);
	assert_int_equal(d->origin, ANA_DSO_FROM_DOT_DEBUG);
	ana_dso_table_free(t);
}

static const char *hook_path;
static unsigned hook_calls;
static const char *hook(void *ctx, const uint8_t *build_id, size_t len)
{
	const struct fixture *f = ctx;

	hook_calls++;
	return len == sizeof(f->id) && !memcmp(build_id, f->id, len) ? hook_path : NULL;
}

/* The embedded copy comes first, even when the recorded path exists. */
static void test_embedded_first(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_opts o = { .no_debuginfod = true };
	struct ana_dso_table *t = ana_dso_table_new(&o);
	struct ana_dso *d;
	char copy[256];

	snprintf(copy, sizeof(copy), "%s/embedded-copy", f->dir);
	assert_int_equal(run("cp %s %s", f->elf, copy), 0);
	hook_path = copy;
	ana_dso_table_set_embedded(t, hook, f);
	d = ana_dso_table_get(t, f->elf, f->id, sizeof(f->id), true, 1);
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_FOUND);
	assert_int_equal(d->origin, ANA_DSO_FROM_EMBEDDED);
	assert_string_equal(d->elf_path, copy);
	ana_dso_table_free(t);
}

/* A [vdso] is looked for only through the hook, by build-id; the BUILDID
 * table gives the build-id when the MMAP2 record has none. */
static void test_vdso(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_opts o = { .no_debuginfod = true };
	struct ana_dso_table *t = ana_dso_table_new(&o);
	struct ana_dso *d, *anon;
	char copy[256];

	/* No build-id anywhere: nothing to look for. */
	d = ana_dso_table_get(t, "[vdso]", NULL, 0, true, 1);
	assert_int_equal(d->type, ANA_DSO_TYPE_VDSO);
	assert_int_equal(d->status, ANA_DSO_NO_FILE);
	ana_dso_table_free(t);

	/* Known from the BUILDID table, not embedded: no file, no warning. */
	t = ana_dso_table_new(&o);
	assert_int_equal(ana_dso_table_add_buildid(t, "[vdso]", f->id, sizeof(f->id)), 0);
	d = ana_dso_table_get(t, "[vdso]", NULL, 0, true, 1);
	assert_int_equal(d->build_id_len, sizeof(f->id));
	assert_int_equal(d->status, ANA_DSO_UNRESOLVED);
	last_warning[0] = '\0';
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_NO_FILE);
	assert_string_equal(last_warning, "");
	ana_dso_table_free(t);

	/* Embedded: found, and anonymous memory still asks nobody. */
	snprintf(copy, sizeof(copy), "%s/vdso-copy", f->dir);
	assert_int_equal(run("cp %s %s", f->elf, copy), 0);
	hook_path = copy;
	hook_calls = 0;
	t = ana_dso_table_new(&o);
	ana_dso_table_set_embedded(t, hook, f);
	d = ana_dso_table_get(t, "[vdso]", f->id, sizeof(f->id), true, 1);
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_FOUND);
	assert_int_equal(d->origin, ANA_DSO_FROM_EMBEDDED);
	assert_string_equal(d->short_name, "[vdso]");
	assert_true(d->verified);
	anon = ana_dso_table_get(t, "//anon", NULL, 0, false, 1);
	assert_int_equal(ana_dso_resolve(t, anon), ANA_DSO_NO_FILE);
	assert_int_equal(hook_calls, 1);
	ana_dso_table_free(t);
}

/* Debuginfod is the last step: never asked with no_debuginfod, and a
 * server that does not answer leaves the DSO missing, named in the
 * warning. */
static void test_debuginfod_last(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_opts o = { .debug_dir = "/nonexistent-debug-dir" };
	struct ana_dso_table *t;
	struct ana_dso *d;
	char home[256], cache[256];
	const char *saved = getenv("DEBUGINFOD_URLS");
	char *keep = saved ? strdup(saved) : NULL;

	o.home = scratch(f, "home4", home, sizeof(home));
	setenv("DEBUGINFOD_CACHE_PATH", scratch(f, "dcache", cache, sizeof(cache)), 1);
	unsetenv("DEBUGINFOD_URLS");
	assert_null(ana_debuginfod_new());

	/* Port 1 on the loopback: refused at once. */
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	o.no_debuginfod = true;
	last_warning[0] = '\0';
	t = resolve(f, &o, "/gone/libx.so", &d);
	assert_int_equal(d->status, ANA_DSO_MISSING);
	assert_null(strstr(last_warning, "debuginfod"));
	ana_dso_table_free(t);

	o.no_debuginfod = false;
	last_warning[0] = '\0';
	t = resolve(f, &o, "/gone/libx.so", &d);
	assert_int_equal(d->status, ANA_DSO_MISSING);
	if (access("/usr/lib/x86_64-linux-gnu/libdebuginfod.so.1", F_OK) == 0)
		assert_non_null(strstr(last_warning, "and debuginfod"));
	ana_dso_table_free(t);

	if (keep)
		setenv("DEBUGINFOD_URLS", keep, 1);
	else
		unsetenv("DEBUGINFOD_URLS");
	free(keep);
	unsetenv("DEBUGINFOD_CACHE_PATH");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_without_symfs),
		cmocka_unit_test(test_symfs_hides_host),
		cmocka_unit_test(test_symfs_confines),
		cmocka_unit_test(test_symfs_debug_dir),
		cmocka_unit_test(test_dot_debug),
		cmocka_unit_test(test_embedded_first),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_debuginfod_last),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
