// SPDX-License-Identifier: MIT
/*
 * Unit tests for the names of PLT stubs (analyze/resolve/plt.c, through
 * ana_sym_lookup()).  The oracle is objdump: binutils names every stub
 * that jumps through a GOT slot "NAME@plt" (its synthetic symbols), and
 * leaves the rest of the PLT sections (the lazy .plt's first entry, the
 * lazy entries beside a .plt.sec) without a name.  Every byte of every
 * PLT section must get objdump's answer: the stub's name and the offset
 * into it, or no name.  Where objdump can only say "*ABS*+0xADDR@plt" (an
 * IRELATIVE slot), amber names the ifunc at ADDR, as libdwfl names the
 * function starting there.
 *
 * The ELFs: a program compiled here in four ways (lazy binding, BIND_NOW,
 * CET's .plt.sec, and a shared library), each with a call through the
 * PLT, a function both called and address-taken (.plt.got) and a local
 * ifunc (IRELATIVE); and the system's libc, whose own PLT is mostly
 * IRELATIVE.  The reduction of `archive --mini` (elfmini.c) must keep
 * every stub's name, and a C++ stub's name is demangled as perf demangles.
 * After that, ana_plt_load() itself: its entries sorted and
 * disjoint, objdump's name for an ifunc nobody names, and nothing named
 * in the ELF of another machine or where no stub jumps through a slot.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/resolve/elfmini.h"
#include "analyze/resolve/plt.h"
#include "analyze/resolve/resolve.h"
#include "tests/unit/analyze/system_libc.h"
#include <amber/common.h>

static const char program[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"size_t (*volatile taken)(const char *) = strlen;\n"
	"static int impl(void) { return 1; }\n"
	"static int (*pick(void))(void) { return impl; }\n"
	"int chosen(void) __attribute__((ifunc(\"pick\")));\n"
	"int entry(int argc, char **argv)\n"
	"{\n"
	"\tsize_t s = strlen(argv[0]) + (size_t)abs(argc) + (size_t)chosen();\n"
	"\tprintf(\"%zu %p\\n\", s, (void *)taken);\n"
	"\treturn 0;\n"
	"}\n"
	"int main(int argc, char **argv) { return entry(argc, argv); }\n";

/* A label objdump printed in a PLT section. */
struct label {
	uint64_t addr;
	char name[160];
};

/* A PLT section of the ELF: [start, end). */
struct section {
	uint64_t start, end;
	uint64_t offset;        /* in the file */
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static int cmp_label(const void *a, const void *b)
{
	const struct label *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* objdump's labels in @path's PLT sections, sorted, into *@out. */
static size_t objdump_labels(const char *path, struct label **out)
{
	char cmd[512], line[512];
	struct label *v = NULL;
	size_t n = 0, cap = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char name[160];

		/* "0000000000001030 <abs@plt>:" */
		if (sscanf(line, "%llx <%159[^>]>:", &addr, name) != 2)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		v[n].addr = addr;
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		n++;
	}
	assert_int_equal(pclose(f), 0);
	qsort(v, n, sizeof(*v), cmp_label);
	*out = v;
	return n;
}

/* The PLT sections of @elf into @s (at most 4). */
static size_t elf_plt_sections(Elf *elf, struct section *s)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, n = 0;

	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		assert_non_null(gelf_getshdr(scn, &sh));
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") ||
			     !strcmp(name, ".plt.got")) && sh.sh_type == SHT_PROGBITS && n < 4)
			s[n++] = (struct section){ sh.sh_addr, sh.sh_addr + sh.sh_size, sh.sh_offset };
	}
	return n;
}

/* @path's PLT sections into @s (at most 4). */
static size_t plt_sections(const char *path, struct section *s)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	size_t n;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	n = elf_plt_sections(elf, s);
	elf_end(elf);
	close(fd);
	return n;
}

/*
 * Every byte of @path's PLT sections: ana_sym_lookup() must name it as
 * objdump's labels do.  Returns how many stubs objdump named; @min_abs:
 * at least this many of them IRELATIVE ones.
 */
static size_t check_file(const char *path, size_t min_abs)
{
	struct ana_dso_table *t = ana_dso_table_new(NULL);
	struct section secs[4];
	struct label *labels;
	size_t nl = objdump_labels(path, &labels), ns = plt_sections(path, secs);
	size_t named = 0, abs_named = 0, bad = 0;
	struct ana_dso *d;
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *mod;

	assert_non_null(t);
	assert_non_null(dwfl);
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, "oracle", path, -1, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	assert_non_null(mod);
	d = ana_dso_table_get(t, path, NULL, 0, true, 1);
	assert_non_null(d);
	assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_FOUND);
	assert_true(ns > 0);

	for (size_t i = 0; i < nl; i++) {
		size_t len = strlen(labels[i].name);
		unsigned long long addend;

		if (len > 4 && !strcmp(labels[i].name + len - 4, "@plt")) {
			named++;
			/* objdump's "*ABS*+0xADDR@plt": the ifunc at ADDR. */
			if (sscanf(labels[i].name, "*ABS*+0x%llx@plt", &addend) == 1) {
				GElf_Off off = 0;
				GElf_Sym sym;
				const char *fn = dwfl_module_addrinfo(mod, addend, &off, &sym,
								      NULL, NULL, NULL);

				if (fn && !off) {
					snprintf(labels[i].name, sizeof(labels[i].name), "%s@plt", fn);
					abs_named++;
				}
			}
		} else {
			labels[i].name[0] = '\0';   /* <.plt>, <x@plt-0x10>: no stub */
		}
	}
	assert_true(abs_named >= min_abs);

	for (size_t k = 0; k < ns; k++) {
		for (uint64_t a = secs[k].start; a < secs[k].end; a++) {
			const struct label *at = NULL;
			const struct ana_sym_info *info;
			const char *want;
			uint64_t want_off = 0;

			for (size_t i = 0; i < nl && labels[i].addr <= a; i++)
				at = &labels[i];
			want = at && at->addr >= secs[k].start && at->name[0] ? at->name : NULL;
			if (want)
				want_off = a - at->addr;
			assert_int_equal(ana_sym_lookup(d, a, 0, &info), 0);
			if (!want != !info->name ||
			    (want && (strcmp(want, info->name) || info->offset != want_off))) {
				if (bad++ < 5)
					print_error("%s: 0x%" PRIx64 ": objdump %s+0x%" PRIx64
						    ", amber %s+0x%" PRIx64 "\n", path, a,
						    want ? want : "(none)", want_off,
						    info->name ? info->name : "(none)", info->offset);
			}
		}
	}
	assert_int_equal(bad, 0);
	free(labels);
	ana_dso_table_free(t);
	dwfl_end(dwfl);
	return named;
}

/* Build @program with @flags into @dir/@name; false without a compiler
 * that takes the flags. */
static bool build(const char *dir, const char *name, const char *flags, char *path, size_t len)
{
	char src[128], cmd[512];
	FILE *f;

	snprintf(src, sizeof(src), "%s/p.c", dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs(program, f);
	fclose(f);
	snprintf(path, len, "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "cc -O1 -fno-builtin %s -o %s %s 2>/dev/null", flags, path, src);
	return system(cmd) == 0;
}

static void test_programs(void **state)
{
	/* In the library, the ifunc is global: a JUMP_SLOT names it. */
	static const struct {
		const char *name, *flags;
		size_t min_abs;
	} builds[] = {
		{ "lazy", "-fPIE -pie", 1 },
		{ "now", "-fPIE -pie -Wl,-z,now", 1 },
		{ "ibt", "-fPIE -pie -fcf-protection=full -Wl,-z,ibtplt", 1 },
		{ "lib.so", "-fPIC -shared", 0 },
	};
	char dir[] = "/tmp/amb-test-plt-XXXXXX", path[160], cmd[200];

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < AMB_ARRAY_SIZE(builds); i++) {
		if (!build(dir, builds[i].name, builds[i].flags, path, sizeof(path))) {
			snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
			assert_int_equal(system(cmd), 0);
			skip();
		}
		/* strlen, abs, printf through the PLT; the ifunc's stub. */
		assert_true(check_file(path, builds[i].min_abs) >= 4);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * A C++ program's stub for operator new (objdump's label "_Znwm@plt"):
 * "operator new@plt", its name demangled as perf demangles names, and as
 * the ELF spells it with the table's no_demangle (--no-demangle).
 */
static void test_cxx_stub(void **state)
{
	static const char src[] =
		"#include <new>\n"
		"int *volatile kept;\n"
		"int main() { kept = new int(3); int r = *kept; delete kept; return r - 3; }\n";
	char dir[] = "/tmp/amb-test-plt-XXXXXX", path[160], cmd[512];
	struct label *labels;
	uint64_t stub = 0;
	size_t nl;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s/p.cc", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fputs(src, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/cxx", dir);
	snprintf(cmd, sizeof(cmd), "c++ -O1 -fPIE -pie -o %s %s/p.cc 2>/dev/null", path, dir);
	if (system(cmd)) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
		skip();
	}
	nl = objdump_labels(path, &labels);
	for (size_t i = 0; i < nl; i++)
		if (!strcmp(labels[i].name, "_Znwm@plt"))
			stub = labels[i].addr;
	free(labels);
	assert_true(stub != 0);
	for (int raw = 0; raw <= 1; raw++) {
		struct ana_dso_opts o = { .no_demangle = raw };
		struct ana_dso_table *t = ana_dso_table_new(&o);
		const struct ana_sym_info *info;
		struct ana_dso *d;

		assert_non_null(t);
		d = ana_dso_table_get(t, path, NULL, 0, true, 1);
		assert_non_null(d);
		assert_int_equal(ana_dso_resolve(t, d), ANA_DSO_FOUND);
		assert_int_equal(ana_sym_lookup(d, stub + 2, 0, &info), 0);
		assert_non_null(info->name);
		assert_string_equal(info->name, raw ? "_Znwm@plt" : "operator new@plt");
		assert_int_equal(info->offset, 2);
		/* The same answer again, from the cache. */
		assert_int_equal(ana_sym_lookup(d, stub + 2, 0, &info), 0);
		assert_string_equal(info->name, raw ? "_Znwm@plt" : "operator new@plt");
		ana_dso_table_free(t);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_libc(void **state)
{
	const char *path = system_libc();

	(void)state;
	if (!path)
		skip();
	assert_true(check_file(path, 1) > 0);
}

static const char *name_none(void *ctx, uint64_t addr)
{
	(void)ctx;
	(void)addr;
	return NULL;
}

/* A build with @flags as an ELF image in memory, NULL without a compiler. */
static uint8_t *load_image(const char *dir, const char *flags, size_t *len)
{
	char path[160];
	uint8_t *buf;
	FILE *f;
	long n;

	if (!build(dir, "img", flags, path, sizeof(path)))
		return NULL;
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The stubs of the ELF image @buf (@len bytes), every one named, with no
 * name for any ifunc. */
static size_t stubs_of(uint8_t *buf, size_t len, struct ana_plt *p)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)buf, len);
	assert_non_null(elf);
	assert_int_equal(ana_plt_load(elf, p), 0);
	elf_end(elf);
	for (size_t i = 0; i < p->n; i++)
		assert_non_null(ana_plt_name(p, &p->v[i], name_none, NULL));
	return p->n;
}

static void test_edited(void **state)
{
	char dir[] = "/tmp/amb-test-plt-XXXXXX", cmd[200];
	struct section secs[4];
	struct ana_plt p;
	size_t len, n, ns;
	uint8_t *buf;
	Elf *elf;
	GElf_Ehdr eh;

	(void)state;
	assert_non_null(mkdtemp(dir));
	buf = load_image(dir, "-fPIE -pie", &len);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	if (!buf)
		skip();

	n = stubs_of(buf, len, &p);
	assert_true(n >= 4);
	/* An IRELATIVE stub without a name for its ifunc: objdump's name. */
	for (size_t i = 0, abs_seen = 0; i < p.n; i++) {
		abs_seen += !strncmp(p.v[i].name, "*ABS*+0x", 8);
		if (i + 1 == p.n)
			assert_true(abs_seen >= 1);
	}
	/* Disjoint and sorted; found by any of their addresses. */
	for (size_t i = 0; i < p.n; i++) {
		assert_true(p.v[i].start < p.v[i].end);
		assert_true(!i || p.v[i - 1].end <= p.v[i].start);
		assert_ptr_equal(ana_plt_find(&p, p.v[i].start), &p.v[i]);
		assert_ptr_equal(ana_plt_find(&p, p.v[i].end - 1), &p.v[i]);
	}
	assert_null(ana_plt_find(&p, 0));
	ana_plt_free(&p);
	assert_int_equal(p.n, 0);

	/* The same file said to be another machine's: no stub decoded. */
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)buf, len);
	assert_non_null(elf);
	assert_non_null(gelf_getehdr(elf, &eh));
	elf_end(elf);
	if (eh.e_ident[EI_DATA] == ELFDATA2LSB) {
		uint16_t machine = EM_AARCH64;

		memcpy(buf + offsetof(Elf64_Ehdr, e_machine), &machine, 2);
		assert_int_equal(stubs_of(buf, len, &p), 0);
		machine = EM_X86_64;
		memcpy(buf + offsetof(Elf64_Ehdr, e_machine), &machine, 2);
	}

	/* Every stub's jmp opcode broken: nothing named. */
	elf = elf_memory((char *)buf, len);
	assert_non_null(elf);
	ns = elf_plt_sections(elf, secs);
	elf_end(elf);
	assert_true(ns > 0);
	for (size_t k = 0; k < ns; k++) {
		uint64_t end = secs[k].offset + (secs[k].end - secs[k].start);

		assert_true(end <= len);
		for (uint64_t o = secs[k].offset; o + 1 < end; o++)
			if (buf[o] == 0xff && buf[o + 1] == 0x25)
				buf[o + 1] = 0x35;
	}
	assert_int_equal(stubs_of(buf, len, &p), 0);
	free(buf);
}

/* archive --mini's reduction names the same stubs as the file. */
static void test_mini(void **state)
{
	static const char *const flags[] = {
		"-fPIE -pie", "-fPIE -pie -fcf-protection=full -Wl,-z,ibtplt", "-fPIC -shared",
	};
	char dir[] = "/tmp/amb-test-plt-XXXXXX", cmd[200];

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t k = 0; k < AMB_ARRAY_SIZE(flags); k++) {
		struct ana_plt full, mini;
		uint8_t *buf, *red;
		size_t len, red_len;

		buf = load_image(dir, flags[k], &len);
		if (!buf) {
			snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
			assert_int_equal(system(cmd), 0);
			skip();
		}
		assert_int_equal(ana_elf_reduce(buf, len, &red, &red_len), 0);
		assert_true(red_len < len);
		assert_true(stubs_of(buf, len, &full) >= 4);
		assert_int_equal(stubs_of(red, red_len, &mini), full.n);
		for (size_t i = 0; i < full.n; i++) {
			assert_int_equal(mini.v[i].start, full.v[i].start);
			assert_int_equal(mini.v[i].end, full.v[i].end);
			assert_string_equal(mini.v[i].name, full.v[i].name);
		}
		ana_plt_free(&full);
		ana_plt_free(&mini);
		free(red);
		free(buf);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_programs),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_cxx_stub),
		cmocka_unit_test(test_mini),
		cmocka_unit_test(test_edited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
