// SPDX-License-Identifier: MIT
/*
 * Unit tests for the symbol lookup of analyze/symbols.c: the symbols
 * containing an address are found in the module's sorted table and
 * libdwfl's rules choose among them, and once a symbol is named, later
 * addresses inside it are answered from a range instead of another
 * search.  The oracle is dwfl_module_addrinfo() itself on a Dwfl of its
 * own, which walks the whole table: every
 * address probed must get the same name and offset from ana_sym_lookup(),
 * in an order that makes the table and the ranges answer (start first,
 * then inside).  Where several functions start at one address, the name
 * is the one perf keeps (see struct oracle).
 *
 * Two ELFs: one this test assembles, with the cases a range must not
 * cover (a sized symbol nested in another, a global sizeless label inside
 * a local function, aliases), and the system's libc, for thousands of
 * real functions and their weak/global aliases.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
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

/*
 * Offsets from outer: outer [0, 64) local, with label_in (global,
 * sizeless) at 16 and inner [32, 48) local inside it; alias_a and alias_b
 * (weak) share [64, 96); after [96, 128) follows with nothing around it.
 * Then the cases of libdwfl's rules: three aliases of each binding on
 * [128, 160); a global gouter [160, 224) over a local lnest [176, 192)
 * (the locals are not searched when a global contains the address); big
 * and small, both global, starting at 224, 64 and 16 bytes (the smaller
 * wins inside it), with a local small_l of 8 at 224 too; a weak wouter
 * [288, 352) over a local wnest [300, 310); a local lone [352, 384) with
 * a global sizeless glabel at its start.  The thread-local tls_buf of a
 * megabyte "starts" at 0, as the workload's does: libdwfl ignores it.
 * Then perf's choice among functions at one start, where it differs from
 * libdwfl's: weak_x and the local __local_x on [384, 416) (perf keeps the
 * non-weak one), the globals __two_g and two_g on [416, 448) (fewer
 * underscores), and long_a [448, 480) with short_a, 8 bytes at its start
 * (perf keeps short_a, the longer name, so beyond its 8 bytes libdwfl's
 * long_a stays).
 */
static const char assembly[] =
	"\t.section .tbss,\"awT\",@nobits\n"
	"\t.globl tls_buf\n"
	"\t.type tls_buf, @object\n"
	"tls_buf:\n"
	"\t.zero 1048576\n"
	"\t.size tls_buf, 1048576\n"
	"\t.text\n"
	"\t.type outer, @function\n"
	"outer:\n"
	"\t.fill 16, 1, 0x90\n"
	"\t.globl label_in\n"
	"label_in:\n"
	"\t.fill 16, 1, 0x90\n"
	"\t.type inner, @function\n"
	"inner:\n"
	"\t.fill 16, 1, 0x90\n"
	"\t.size inner, 16\n"
	"\t.fill 16, 1, 0x90\n"
	"\t.size outer, 64\n"
	"\t.globl alias_a\n"
	"\t.type alias_a, @function\n"
	"\t.weak alias_b\n"
	"\t.type alias_b, @function\n"
	"alias_a:\n"
	"alias_b:\n"
	"\t.fill 32, 1, 0x90\n"
	"\t.size alias_a, 32\n"
	"\t.size alias_b, 32\n"
	"\t.globl after\n"
	"\t.type after, @function\n"
	"after:\n"
	"\t.fill 32, 1, 0x90\n"
	"\t.size after, 32\n"
	"\t.weak trio_w\n"
	"\t.type trio_w, @function\n"
	"\t.type trio_l, @function\n"
	"\t.globl trio_g\n"
	"\t.type trio_g, @function\n"
	"trio_w:\n"
	"trio_l:\n"
	"trio_g:\n"
	"\t.fill 32, 1, 0x90\n"
	"\t.size trio_w, 32\n"
	"\t.size trio_l, 32\n"
	"\t.size trio_g, 32\n"
	"\t.globl gouter\n"
	"\t.type gouter, @function\n"
	"gouter:\n"
	"\t.fill 16, 1, 0x90\n"
	"\t.type lnest, @function\n"
	"lnest:\n"
	"\t.fill 16, 1, 0x90\n"
	"\t.size lnest, 16\n"
	"\t.fill 32, 1, 0x90\n"
	"\t.size gouter, 64\n"
	"\t.globl big\n"
	"\t.type big, @function\n"
	"\t.globl small\n"
	"\t.type small, @function\n"
	"\t.type small_l, @function\n"
	"big:\n"
	"small:\n"
	"small_l:\n"
	"\t.fill 64, 1, 0x90\n"
	"\t.size big, 64\n"
	"\t.size small, 16\n"
	"\t.size small_l, 8\n"
	"\t.weak wouter\n"
	"\t.type wouter, @function\n"
	"wouter:\n"
	"\t.fill 12, 1, 0x90\n"
	"\t.type wnest, @function\n"
	"wnest:\n"
	"\t.fill 10, 1, 0x90\n"
	"\t.size wnest, 10\n"
	"\t.fill 42, 1, 0x90\n"
	"\t.size wouter, 64\n"
	"\t.type lone, @function\n"
	"\t.globl glabel\n"
	"lone:\n"
	"glabel:\n"
	"\t.fill 32, 1, 0x90\n"
	"\t.size lone, 32\n"
	"\t.weak weak_x\n"
	"\t.type weak_x, @function\n"
	"\t.type __local_x, @function\n"
	"weak_x:\n"
	"__local_x:\n"
	"\t.fill 32, 1, 0x90\n"
	"\t.size weak_x, 32\n"
	"\t.size __local_x, 32\n"
	"\t.globl __two_g\n"
	"\t.type __two_g, @function\n"
	"\t.globl two_g\n"
	"\t.type two_g, @function\n"
	"__two_g:\n"
	"two_g:\n"
	"\t.fill 32, 1, 0x90\n"
	"\t.size __two_g, 32\n"
	"\t.size two_g, 32\n"
	"\t.globl long_a\n"
	"\t.type long_a, @function\n"
	"\t.globl short_a\n"
	"\t.type short_a, @function\n"
	"long_a:\n"
	"short_a:\n"
	"\t.fill 32, 1, 0x90\n"
	"\t.size long_a, 32\n"
	"\t.size short_a, 8\n";
#define ASM_END 480

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* A function of the table, for the oracle's perf choice. */
struct func {
	uint64_t start, size;
	const char *name;
	int bind;
};

/*
 * The oracle: dwfl_module_addrinfo() on a Dwfl of its own on @path, as
 * symbols.c reports it, and then perf's choice among the functions
 * starting where its answer starts, made here from the whole table the
 * way perf's symbols__fixup_duplicate() and choose_best_symbol() make it
 * (util/symbol.c): of two functions at one start perf keeps one with a
 * size, then a non-weak one, then a global one, then the one with fewer
 * leading underscores, then the longer name, else the first.  @best holds
 * the function perf keeps for each start, sorted by start.
 */
struct oracle {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct func *best;
	size_t nr_best;
};

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* choose_best_symbol(): true when perf keeps @b over @a. */
static bool perf_keeps(const struct func *a, const struct func *b)
{
	if (!a->size != !b->size)
		return b->size;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return a->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return b->bind == STB_GLOBAL;
	if (underscores(a->name) != underscores(b->name))
		return underscores(b->name) < underscores(a->name);
	return strlen(b->name) > strlen(a->name);
}

static int oracle_open(struct oracle *o, const char *path)
{
	int n, i;

	o->dwfl = dwfl_begin(&callbacks);
	if (!o->dwfl)
		return -1;
	dwfl_report_begin(o->dwfl);
	o->mod = dwfl_report_elf(o->dwfl, "oracle", path, -1, 0, true);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (!o->mod)
		return -1;
	n = dwfl_module_getsymtab(o->mod);
	o->best = calloc(n > 0 ? (size_t)n : 1, sizeof(*o->best));
	if (!o->best)
		return -1;
	/* In table order: a later function replaces the one kept for its
	 * start only when perf prefers it. */
	for (i = 1; i < n; i++) {
		GElf_Word shndx;
		GElf_Addr sa;
		GElf_Sym sym;
		const char *name = dwfl_module_getsym_info(o->mod, i, &sym, &sa, &shndx, NULL, NULL);
		struct func f;
		size_t k;

		if (!name || !name[0] || shndx == SHN_UNDEF ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC && GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		f = (struct func){ sa, sym.st_size, name, GELF_ST_BIND(sym.st_info) };
		for (k = 0; k < o->nr_best && o->best[k].start != sa; k++)
			;
		if (k == o->nr_best)
			o->best[o->nr_best++] = f;
		else if (perf_keeps(&o->best[k], &f))
			o->best[k] = f;
	}
	return 0;
}

static void oracle_close(struct oracle *o)
{
	free(o->best);
	dwfl_end(o->dwfl);
}

/* The answer for @addr: libdwfl's symbol, or the function perf keeps at
 * its start when libdwfl's is a function and perf's contains @addr. */
static const char *oracle_name(struct oracle *o, uint64_t addr, GElf_Off *off)
{
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(o->mod, addr, off, &sym, NULL, NULL, NULL);
	int type = GELF_ST_TYPE(sym.st_info);

	if (!name || (type != STT_FUNC && type != STT_GNU_IFUNC))
		return name;
	for (size_t k = 0; k < o->nr_best; k++)
		if (o->best[k].start == addr - *off)
			return o->best[k].size > *off ? o->best[k].name : name;
	return name;
}

/* Check ana_sym_lookup() against the oracle at @addr; counts mismatches. */
static unsigned check_addr(struct ana_dso *d, struct oracle *o, uint64_t addr)
{
	const struct ana_sym_info *info;
	GElf_Off off = 0;
	const char *want = oracle_name(o, addr, &off);

	if (ana_sym_lookup(d, addr, 0, &info))
		return 1;
	if (!want != !info->name || (want && (strcmp(want, info->name) || off != info->offset))) {
		print_error("0x%llx: expected %s+0x%llx, got %s+0x%llx\n", (unsigned long long)addr,
			    want ? want : "(none)", (unsigned long long)off,
			    info->name ? info->name : "(none)", (unsigned long long)info->offset);
		return 1;
	}
	return 0;
}

static struct ana_dso *dso_for(struct ana_dso_table *t, const char *path)
{
	struct ana_dso *d = ana_dso_table_get(t, path, NULL, 0, true, 1);

	if (!d || ana_dso_resolve(t, d) != ANA_DSO_FOUND)
		return NULL;
	return d;
}

static void test_tricky_symbols(void **state)
{
	char dir[] = "/tmp/amb-test-symranges-XXXXXX", src[96], so[96], cmd[320];
	struct ana_dso_table *t;
	struct oracle o = { 0 };
	struct ana_dso *d;
	uint64_t base = 0, a;
	unsigned bad = 0;
	FILE *f;
	int i, n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/t.s", dir);
	snprintf(so, sizeof(so), "%s/t.so", dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs(assembly, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -o %s %s 2>/dev/null", so, src);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
		skip();
	}
	assert_int_equal(oracle_open(&o, so), 0);
	n = dwfl_module_getsymtab(o.mod);
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr sa;
		const char *name = dwfl_module_getsym_info(o.mod, i, &sym, &sa, NULL, NULL, NULL);

		if (name && !strcmp(name, "outer"))
			base = sa;
	}
	assert_true(base != 0);

	t = ana_dso_table_new(NULL);
	assert_non_null(t);
	d = dso_for(t, so);
	assert_non_null(d);
	/* Each symbol's start first (a range is learnt there, if anywhere),
	 * then every byte, forwards and backwards. */
	for (a = base; a < base + ASM_END; a += 16)
		bad += check_addr(d, &o, a);
	for (a = base; a < base + ASM_END; a++)
		bad += check_addr(d, &o, a);
	for (a = base + ASM_END; a-- > base;)
		bad += check_addr(d, &o, a);
	assert_int_equal(bad, 0);

	ana_dso_table_free(t);
	oracle_close(&o);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_libc(void **state)
{
	const char *path = system_libc();
	struct ana_dso_table *t;
	struct oracle o = { 0 };
	struct ana_dso *d;
	unsigned bad = 0, funcs = 0;
	int i, n;

	(void)state;
	if (!path)
		skip();
	assert_int_equal(oracle_open(&o, path), 0);
	t = ana_dso_table_new(NULL);
	assert_non_null(t);
	d = dso_for(t, path);
	assert_non_null(d);
	n = dwfl_module_getsymtab(o.mod);
	assert_true(n > 100);
	/* Every other function: its start, middle and last byte, and the byte
	 * before it (another symbol's, or none). */
	for (i = 1; i < n; i += 2) {
		GElf_Sym sym;
		GElf_Addr sa;
		const char *name = dwfl_module_getsym_info(o.mod, i, &sym, &sa, NULL, NULL, NULL);

		if (!name || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size || !sa)
			continue;
		funcs++;
		bad += check_addr(d, &o, sa);
		bad += check_addr(d, &o, sa + sym.st_size / 2);
		bad += check_addr(d, &o, sa + sym.st_size - 1);
		bad += check_addr(d, &o, sa - 1);
	}
	assert_true(funcs > 50);
	assert_int_equal(bad, 0);
	ana_dso_table_free(t);
	oracle_close(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tricky_symbols),
		cmocka_unit_test(test_libc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
