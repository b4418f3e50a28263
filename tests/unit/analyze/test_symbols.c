// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/symbols.c and analyze/dso.c on ELFs this test
 * builds itself (cc -g -O2, with fixed build-ids): symbol + offset, source
 * line, the inline chain of an always-inline function and of two nested
 * ones, and the build-id rules of the ELF search (a file with another
 * build-id is never used).  Oracles are the compiler's own tables read
 * with nm, binutils' addr2line -i for the inline chains (of the nested
 * program, and of the system's libc with its debug file), and the fixed
 * build-ids.
 */
#include <errno.h>
#include <inttypes.h>
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
#include "tests/unit/analyze/system_libc.h"
#include <amber/common.h>

#define BUILD_ID  "0123456789abcdef0123456789abcdef01234567"
#define BUILD_ID2 "fedcba9876543210fedcba9876543210fedcba98"
#define BUILD_ID3 "00112233445566778899aabbccddeeff00112233"

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

/* leaf_fn() inlined into mid_fn() inlined into top_fn(): two levels. */
static const char nested_program[] =
	"static inline __attribute__((always_inline)) unsigned leaf_fn(unsigned x)\n"
	"{\n"
	"\tunsigned s = 0;\n"
	"\tfor (unsigned i = 0; i < x; i++)\n"
	"\t\ts += (i * i) ^ (s >> 3);\n"
	"\treturn s;\n"
	"}\n"
	"static inline __attribute__((always_inline)) unsigned mid_fn(unsigned x)\n"
	"{\n"
	"\treturn leaf_fn(x) + 3 * leaf_fn(x / 2);\n"
	"}\n"
	"__attribute__((noinline)) unsigned top_fn(unsigned x)\n"
	"{\n"
	"\treturn mid_fn(x) * 3;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\treturn (int)top_fn((unsigned)argc * 1000) & 1;\n"
	"}\n";

struct fixture {
	char dir[64];
	char elf[128];
	char other[128];          /* same source, other build-id */
	char nested[128];         /* nested_program */
	uint64_t fn_start, fn_size;
	uint64_t top_start, top_size;
};

/* The start and size of @fn in @elf, by nm; -1 when it is not there. */
static int nm_symbol(const char *elf, const char *fn, uint64_t *start, uint64_t *size)
{
	char cmd[512];
	FILE *p;
	int n;

	snprintf(cmd, sizeof(cmd), "nm -S %s | awk '$4 == \"%s\" { print $1, $2 }'", elf, fn);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fscanf(p, "%" SCNx64 " %" SCNx64, start, size);
	pclose(p);
	return n == 2 ? 0 : -1;
}

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
	if (nm_symbol(f.elf, "outer_fn", &f.fn_start, &f.fn_size))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/nested.c", f.dir);
	p = fopen(cmd, "w");
	if (!p)
		return -1;
	fputs(nested_program, p);
	fclose(p);
	snprintf(f.nested, sizeof(f.nested), "%s/nested", f.dir);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && cc -g -O2 -fno-omit-frame-pointer -Wl,--build-id=0x%s -o nested nested.c",
		 f.dir, BUILD_ID3);
	if (run(cmd) || nm_symbol(f.nested, "top_fn", &f.top_start, &f.top_size))
		return -1;
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

/* One frame of addr2line -i: a function and the file and line it is at. */
struct a2l_frame {
	char func[64];
	char base[64];            /* the file's last component */
	int line;
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

struct a2l_count {
	unsigned compared;        /* addresses addr2line knows a function of */
	unsigned nested;          /* ... of which in two inlined functions or more */
};

/*
 * Each address in the file @addrs (one 0x<hex> a line) of @d, whose ELF
 * is @elf, against binutils' addr2line -i -f: its frames are the inlined
 * functions, innermost first, then the function they are inlined into,
 * each at the line where the one before it was inlined.  amber's inline
 * chain must be those functions, each with the call line addr2line gives
 * the next frame (and a file when @file_part is not NULL, with it in its
 * name), and the address's own line must be addr2line's first.  Addresses
 * addr2line knows no function of are left out.
 */
static struct a2l_count compare_inline(struct ana_dso *d, const char *elf, const char *addrs,
				       const char *file_part)
{
	struct a2l_frame fr[ANA_INLINE_MAX + 2];
	struct a2l_count cnt = { 0, 0 };
	char cmd[512], line[1024];
	uint64_t addr = 0;
	int n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "addr2line -a -i -f -e %s < %s", elf, addrs);
	p = popen(cmd, "r");
	assert_non_null(p);
	/* Groups: "0x<address>", then a function line and a file:line line
	 * per frame; the group ends where the next begins (or at EOF). */
	for (bool more = true; more;) {
		more = fgets(line, sizeof(line), p) != NULL;
		line[strcspn(line, "\n")] = '\0';
		if ((!more || !strncmp(line, "0x", 2)) && n > 0 && n <= ANA_INLINE_MAX + 1 &&
		    strcmp(fr[0].func, "??")) {
			const struct ana_sym_info *si;

			assert_int_equal(ana_sym_lookup(d, addr, ANA_SYM_INLINE | ANA_SYM_SRCLINE, &si), 0);
			/* The address's own line, from the line table.  Not its
			 * file: binutils 2.40 names some of DWARF 5's wrongly
			 * (libc's __ctype_b_loc in ctype-info.c where the line
			 * table and eu-addr2line say ctype.h). */
			if (si->line != fr[0].line)
				fail_msg("0x%" PRIx64 ": at line %d, addr2line says %s:%d", addr,
					 si->line, fr[0].base, fr[0].line);
			if (si->nr_inl != (unsigned)n - 1)
				fail_msg("0x%" PRIx64 ": %u inlined functions, addr2line says %d (innermost %s)",
					 addr, si->nr_inl, n - 1, fr[0].func);
			for (int i = 0; i + 1 < n; i++) {
				if (strcmp(si->inl[i].name, fr[i].func) || si->inl[i].line != fr[i + 1].line)
					fail_msg("0x%" PRIx64 ": inlined function %d is %s at line %d, addr2line says %s at %d",
						 addr, i, si->inl[i].name, si->inl[i].line, fr[i].func,
						 fr[i + 1].line);
				if (file_part) {
					assert_non_null(si->inl[i].file);
					assert_non_null(strstr(si->inl[i].file, file_part));
				}
			}
			cnt.nested += n >= 3;
			cnt.compared++;
		}
		if (!more)
			break;
		if (!strncmp(line, "0x", 2)) {
			addr = strtoull(line, NULL, 16);
			n = 0;
		} else if (n >= 0) {
			char *colon;

			/* A function name, then its file:line [(discriminator N)]. */
			if (n < (int)(sizeof(fr) / sizeof(fr[0])))
				snprintf(fr[n].func, sizeof(fr[n].func), "%.63s", line);
			assert_non_null(fgets(line, sizeof(line), p));
			colon = strrchr(line, ':');
			assert_non_null(colon);
			if (n < (int)(sizeof(fr) / sizeof(fr[0]))) {
				fr[n].line = atoi(colon + 1);
				*colon = '\0';
				snprintf(fr[n].base, sizeof(fr[n].base), "%.63s", base_name(line));
			}
			n++;
		}
	}
	assert_int_equal(pclose(p), 0);
	return cnt;
}

/* leaf_fn() in mid_fn() in top_fn(), every byte of top_fn(): two levels
 * where dwarf_getscopes() gave one (leaf_fn without mid_fn). */
static void test_nested_inline(void **state)
{
	struct fixture *f = *state;
	struct ana_dso_table *t = ana_dso_table_new(NULL);
	struct a2l_count cnt;
	struct ana_dso *d;
	char path[192];
	uint8_t id[20];
	FILE *out;

	hex_to_bytes(BUILD_ID3, id);
	d = ana_dso_table_get(t, f->nested, id, sizeof(id), true, 1);
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_FOUND);
	snprintf(path, sizeof(path), "%s/addrs", f->dir);
	out = fopen(path, "w");
	assert_non_null(out);
	for (uint64_t a = f->top_start; a < f->top_start + f->top_size; a++)
		fprintf(out, "0x%" PRIx64 "\n", a);
	fclose(out);
	cnt = compare_inline(d, f->nested, path, "nested.c");
	assert_true(cnt.compared > 0);
	assert_true(cnt.nested > 0);
	ana_dso_table_free(t);
}

/*
 * The system's libc (with its debug file where one is installed, Debian's
 * libc6-dbg): the first, middle and last byte of every exported function,
 * against addr2line -i.
 */
static void test_libc_inline(void **state)
{
	const char *libc = system_libc();
	struct fixture *f = *state;
	struct ana_dso_table *t;
	struct a2l_count cnt;
	struct ana_dso *d;
	char path[192], cmd[512], line[512];
	uint64_t start, size;
	FILE *p, *out;
	char type;

	if (!libc)
		skip();
	snprintf(path, sizeof(path), "%s/libc-addrs", f->dir);
	out = fopen(path, "w");
	assert_non_null(out);
	snprintf(cmd, sizeof(cmd), "nm -D -S --defined-only %s", libc);
	p = popen(cmd, "r");
	assert_non_null(p);
	/* "START SIZE TYPE NAME" for the functions with a size. */
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c", &start, &size, &type) == 3 &&
		    strchr("TtWi", type) && size)
			fprintf(out, "0x%" PRIx64 "\n0x%" PRIx64 "\n0x%" PRIx64 "\n", start,
				start + size / 2, start + size - 1);
	assert_int_equal(pclose(p), 0);
	fclose(out);
	t = ana_dso_table_new(NULL);
	d = ana_dso_table_get(t, libc, NULL, 0, true, 1);
	assert_non_null(d);
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_FOUND);
	cnt = compare_inline(d, libc, path, NULL);
	print_message("libc: %u addresses compared, %u in nested inlined functions\n",
		      cnt.compared, cnt.nested);
	/* tests/deps.sh installs libc's debug file: without it addr2line
	 * would know no function, and nothing would be compared. */
	assert_true(cnt.compared > 0);
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
		cmocka_unit_test(test_nested_inline),
		cmocka_unit_test(test_libc_inline),
		cmocka_unit_test(test_stale_build_id),
		cmocka_unit_test(test_buildid_cache_and_symfs),
	};

	if (system("cc --version >/dev/null 2>&1 && nm --version >/dev/null 2>&1 && "
		   "addr2line --version >/dev/null 2>&1")) {
		printf("[  SKIPPED ] test_symbols: cc, nm or addr2line missing\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
