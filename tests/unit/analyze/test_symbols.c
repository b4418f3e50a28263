// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/symbols.c and analyze/dso.c on an ELF this test
 * builds itself (cc -g -O2, with a fixed build-id): symbol + offset, source
 * line, the inline chain of an always-inline function, and the build-id
 * rules of the ELF search (a file with another build-id is never used).
 * Oracles are the compiler's own tables read with nm and the fixed build-id.
 */
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

#include "analyze/resolve/resolve.h"
#include <amber/common.h>

#define BUILD_ID  "0123456789abcdef0123456789abcdef01234567"
#define BUILD_ID2 "fedcba9876543210fedcba9876543210fedcba98"

static const char program[] =
	"static inline __attribute__((always_inline)) int inl_fn(int x)\n" /* 1 */
	"{\n"                                                              /* 2 */
	"\tint s = 0;\n"                                                   /* 3 */
	"\tfor (int i = 0; i < x; i++)\n"                                  /* 4 */
	"\t\ts += (i * i) ^ x;\n"                                          /* 5 */
	"\treturn s;\n"                                                    /* 6 */
	"}\n"                                                              /* 7 */
	"__attribute__((noinline)) int outer_fn(int x)\n"                  /* 8 */
	"{\n"                                                              /* 9 */
	"\treturn inl_fn(x) + 1;\n"                                        /* 10: call line */
	"}\n"                                                              /* 11 */
	"int main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\treturn outer_fn(argc * 1000) & 1;\n"
	"}\n";

struct fixture {
	char dir[64];
	char elf[128];
	char other[128];          /* same source, other build-id */
	uint64_t fn_start, fn_size;
};

static char last_warning[1024];
static void catch_warning(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static int run(const char *cmd)
{
	int rc = system(cmd);

	return rc == 0 ? 0 : -1;
}

static int setup(void **state)
{
	static struct fixture f;
	char cmd[1024];
	FILE *p;

	strcpy(f.dir, "/tmp/amb-test-symbols-XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/prog.c", f.dir);
	p = fopen(cmd, "w");
	if (!p)
		return -1;
	fputs(program, p);
	fclose(p);
	snprintf(f.elf, sizeof(f.elf), "%s/prog", f.dir);
	snprintf(f.other, sizeof(f.other), "%s/prog-rebuilt", f.dir);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && cc -g -O2 -fno-omit-frame-pointer -Wl,--build-id=0x%s -o prog prog.c && "
		 "cc -g -O2 -Wl,--build-id=0x%s -o prog-rebuilt prog.c", f.dir, BUILD_ID, BUILD_ID2);
	if (run(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "nm -S %s | awk '$4 == \"outer_fn\" { print $1, $2 }'", f.elf);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fscanf(p, "%lx %lx", &f.fn_start, &f.fn_size) != 2) {
		pclose(p);
		return -1;
	}
	pclose(p);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	return run(cmd);
}

static void hex_to_bytes(const char *hex, uint8_t *b)
{
	for (size_t i = 0; i < 20; i++)
		sscanf(hex + 2 * i, "%2hhx", &b[i]);
}

static void test_symbol_line_inline(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_table *t = ana_dso_table_new(NULL);
	struct ana_dso *d;
	uint8_t id[20];
	unsigned inlined = 0, lines = 0;
	uint64_t vaddr;

	hex_to_bytes(BUILD_ID, id);
	d = ana_dso_table_get(t, f->elf, id, sizeof(id), true, 1);
	assert_non_null(d);
	assert_string_equal(d->short_name, "prog");
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_FOUND);
	assert_true(d->verified);
	assert_string_equal(d->elf_path, f->elf);

	/* gcc's PIE keeps text at equal file offsets and addresses. */
	assert_int_equal(ana_dso_file_to_vaddr(d, f->fn_start, &vaddr), 0);
	assert_int_equal(vaddr, f->fn_start);
	assert_int_equal(ana_dso_file_to_vaddr(d, 1ull << 40, &vaddr), -ENOENT);

	for (uint64_t a = f->fn_start; a < f->fn_start + f->fn_size; a++) {
		const struct ana_sym_info *si;

		assert_int_equal(ana_sym_lookup(d, a, ANA_SYM_SRCLINE | ANA_SYM_INLINE, &si), 0);
		assert_non_null(si->name);
		assert_string_equal(si->name, "outer_fn");
		assert_int_equal(si->offset, a - f->fn_start);
		if (si->file) {
			assert_non_null(strstr(si->file, "prog.c"));
			assert_true(si->line >= 1 && si->line <= 11);
			lines++;
		}
		if (si->nr_inl) {
			assert_string_equal(si->inl[0].name, "inl_fn");
			assert_int_equal(si->inl[0].line, 10);
			assert_non_null(strstr(si->inl[0].file, "prog.c"));
			/* Inside the inlined body the line is one of inl_fn's. */
			if (si->file)
				assert_true(si->line >= 1 && si->line <= 7);
			inlined++;
		}
		/* A second lookup hits the cache and returns the same entry. */
		{
			const struct ana_sym_info *again;

			assert_int_equal(ana_sym_lookup(d, a, 0, &again), 0);
			assert_ptr_equal(again, si);
		}
	}
	assert_true(lines > 0);
	assert_true(inlined > 0);
	ana_dso_table_free(t);
}

static void test_stale_build_id(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_table *t = ana_dso_table_new(NULL);
	struct ana_dso *d;
	const struct ana_sym_info *si;
	uint8_t id[20];

	amb_set_warn(catch_warning, NULL);
	last_warning[0] = '\0';
	/* The recorded build-id is BUILD_ID, but the file at the path was rebuilt. */
	hex_to_bytes(BUILD_ID, id);
	d = ana_dso_table_get(t, f->other, id, sizeof(id), true, 1);
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_MISMATCH);
	assert_null(d->elf_path);
	assert_non_null(strstr(last_warning, BUILD_ID));
	assert_non_null(strstr(last_warning, BUILD_ID2));
	assert_int_equal(ana_sym_lookup(d, f->fn_start, 0, &si), -ENOENT);
	/* One warning per DSO. */
	last_warning[0] = '\0';
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_MISMATCH);
	assert_string_equal(last_warning, "");
	ana_dso_table_free(t);
	amb_set_warn(NULL, NULL);
}

static void test_buildid_cache_and_symfs(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_opts o = { 0 };
	struct ana_dso_table *t;
	struct ana_dso *d;
	char cmd[512], want[256];
	uint8_t id[20];

	/* A recording moved elsewhere, the binary renamed: found in ~/.debug. */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/home/.debug/.build-id/01 && cp %s %s/home/.debug/.build-id/01/%s",
		 f->dir, f->elf, f->dir, BUILD_ID + 2);
	assert_int_equal(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/home", f->dir);
	o.home = cmd;
	o.debug_dir = "/nonexistent";
	t = ana_dso_table_new(&o);
	hex_to_bytes(BUILD_ID, id);
	d = ana_dso_table_get(t, "/gone/old-name", id, sizeof(id), true, 1);
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_FOUND);
	snprintf(want, sizeof(want), "%s/home/.debug/.build-id/01/%s", f->dir, BUILD_ID + 2);
	assert_string_equal(d->elf_path, want);
	ana_dso_table_free(t);

	/* --symfs DIR: DIR/<recorded path>. */
	o.home = "/nonexistent";
	o.symfs = f->dir;
	t = ana_dso_table_new(&o);
	d = ana_dso_table_get(t, "/prog", id, sizeof(id), true, 1);
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_FOUND);
	snprintf(want, sizeof(want), "%s/prog", f->dir);
	assert_string_equal(d->elf_path, want);
	/* Without any candidate: missing, and no symbols. */
	d = ana_dso_table_get(t, "/nowhere/x.so", (const uint8_t *)"\1\2\3\4", 4, true, 1);
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_MISSING);
	ana_dso_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbol_line_inline),
		cmocka_unit_test(test_stale_build_id),
		cmocka_unit_test(test_buildid_cache_and_symfs),
	};

	if (system("cc --version >/dev/null 2>&1 && nm --version >/dev/null 2>&1")) {
		printf("[  SKIPPED ] test_symbols: cc or nm missing\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
