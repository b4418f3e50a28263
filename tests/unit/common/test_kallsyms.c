// SPDX-License-Identifier: MIT
/*
 * Unit tests for common/kallsyms.{h,c}: the grammar of a /proc/kallsyms
 * line (any blanks, modules, what is malformed), the line iterator (empty
 * lines, a last line without newline, where each line is), the walks, and
 * every prefix of a line parsed from an exact-size copy so that ASan sees
 * any read past it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/kallsyms.h"

static int parse(const char *line, struct amb_kallsym *sym)
{
	memset(sym, 0, sizeof(*sym));
	return amb_kallsyms_parse_line(line, line + strlen(line), sym);
}

static void expect_sym(const char *line, uint64_t addr, char type, const char *name,
		       const char *module)
{
	struct amb_kallsym sym;

	assert_int_equal(parse(line, &sym), 0);
	assert_true(sym.addr == addr);
	assert_int_equal(sym.type, type);
	assert_int_equal(sym.name_len, strlen(name));
	assert_memory_equal(sym.name, name, sym.name_len);
	if (module) {
		assert_non_null(sym.module);
		assert_int_equal(sym.module_len, strlen(module));
		assert_memory_equal(sym.module, module, sym.module_len);
	} else {
		assert_null(sym.module);
		assert_int_equal(sym.module_len, 0);
	}
}

static void test_lines(void **state)
{
	(void)state;
	expect_sym("ffffffff81000000 T _stext", 0xffffffff81000000ull, 'T', "_stext", NULL);
	expect_sym("ffffffffc0001000 t ext4_fill_super\t[ext4]", 0xffffffffc0001000ull, 't',
		   "ext4_fill_super", "[ext4]");
	/* Any blanks between the fields, before and after them. */
	expect_sym("  ffffffff81000010\t\tW  weak_fn \t", 0xffffffff81000010ull, 'W', "weak_fn",
		   NULL);
	expect_sym("1 t a [m] more fields", 1, 't', "a", "[m]");
	expect_sym("0000000000000000 A fixed_percpu_data", 0, 'A', "fixed_percpu_data", NULL);
	expect_sym("ABCDEF0123456789 d X", 0xabcdef0123456789ull, 'd', "X", NULL);
	/* A name longer than the eight bytes the field scan takes at a time. */
	expect_sym("ff t a_rather_long_symbol_name_for_the_wide_scan\t[mod_with_long_name]",
		   0xff, 't', "a_rather_long_symbol_name_for_the_wide_scan",
		   "[mod_with_long_name]");
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"   ",
		"not a symbol line",
		"ffffffff81000000",
		"ffffffff81000000 ",
		"ffffffff81000000 T",
		"ffffffff81000000 T ",
		"ffffffff81000000T name",
		"ffffffff81000000 TT name",
		"11111111111111111 T seventeen_digits",
		"0x10 T hex_prefix",
		"g10 T not_hex",
		"10 T name ext4]",
		"10 T name [ext4",
		"10 T name []",
		"10 T name [",
	};
	struct amb_kallsym sym;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse(bad[i], &sym), -EINVAL);
	/* Sixteen digits are fine. */
	assert_int_equal(parse("ffffffffffffffff T max", &sym), 0);
	assert_true(sym.addr == UINT64_MAX);
}

/* The field scan looks at eight bytes at a time: a blank at any place of
 * a word must end the name there. */
static void test_field_scan(void **state)
{
	char line[80];
	struct amb_kallsym sym;

	(void)state;
	for (size_t n = 1; n < 40; n++) {
		for (int tab = 0; tab < 2; tab++) {
			size_t len = (size_t)snprintf(line, sizeof(line), "10 t ");

			memset(line + len, 'x', n);
			len += n;
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%c[m]", tab ? '\t' : ' ');
			assert_int_equal(amb_kallsyms_parse_line(line, line + len, &sym), 0);
			assert_int_equal(sym.name_len, n);
			assert_int_equal(sym.module_len, 3);
		}
	}
}

/* Every prefix of a valid line, from an exact-size copy: parsed or refused,
 * never read past, and what parses points inside the prefix. */
static void test_prefixes(void **state)
{
	static const char line[] = " ffffffffc0001000\tt  ext4_fill_super \t[ext4]\t x";
	struct amb_kallsym sym;

	(void)state;
	for (size_t n = 0; n <= strlen(line); n++) {
		char *b = malloc(n ? n : 1);
		int ret;

		assert_non_null(b);
		memcpy(b, line, n);
		ret = amb_kallsyms_parse_line(b, b + n, &sym);
		if (!ret) {
			assert_true(sym.name >= b && sym.name + sym.name_len <= b + n);
			assert_true(!sym.module || sym.module + sym.module_len <= b + n);
		}
		/* A prefix parses from the name's first byte (22) on, except
		 * while the module is cut short ("[" to "[ext4", 39 to 43). */
		assert_int_equal(ret, (n >= 22 && n <= 38) || n >= 44 ? 0 : -EINVAL);
		free(b);
	}
}

static void test_next(void **state)
{
	static const char text[] =
		"\n"
		"ffffffff81000000 T _stext\n"
		"\n"
		"garbage\n"
		"ffffffffc0000000 t mod_fn\t[mymod]";
	const char *pos = text, *end = text + strlen(text);
	struct amb_kallsym sym;

	(void)state;
	assert_int_equal(amb_kallsyms_next(text, &pos, end, &sym), 1);
	assert_int_equal(sym.off, 1);
	assert_int_equal(sym.len, strlen("ffffffff81000000 T _stext\n"));
	assert_int_equal(sym.name_len, 6);
	assert_int_equal(amb_kallsyms_next(text, &pos, end, &sym), -EINVAL);
	assert_int_equal(sym.off, 1 + 26 + 1);
	assert_int_equal(sym.len, strlen("garbage\n"));
	assert_int_equal(amb_kallsyms_next(text, &pos, end, &sym), 1);
	assert_int_equal(sym.len, strlen("ffffffffc0000000 t mod_fn\t[mymod]"));
	assert_int_equal(sym.off + sym.len, strlen(text));
	assert_int_equal(sym.module_len, 7);
	assert_int_equal(amb_kallsyms_next(text, &pos, end, &sym), 0);
	assert_int_equal(amb_kallsyms_next(text, &pos, end, &sym), 0);
	pos = text;
	assert_int_equal(amb_kallsyms_next(text, &pos, text, &sym), 0);
}

struct collect {
	size_t n, text;
	int stop_at;
};

static int collect(void *ctx, const struct amb_kallsym *sym)
{
	struct collect *c = ctx;

	c->n++;
	c->text += amb_kallsyms_is_text(sym->type);
	return c->stop_at && (int)c->n == c->stop_at ? 42 : 0;
}

static const char table[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000300 D some_data\n"
	"not a symbol line\n"
	"ffffffff81000500 w delta\n"
	"\n"
	"ffffffff81000400 T _etext\n"
	"ffffffffc0000000 t mod_fn\t[mymod]\n"
	"ffffffffc0000100 t _stext\t[other]";

static void test_for_each(void **state)
{
	struct collect c = { 0 };
	size_t bad = 0;

	(void)state;
	assert_int_equal(amb_kallsyms_for_each(table, strlen(table), collect, &c, &bad), 0);
	assert_int_equal(c.n, 8);
	assert_int_equal(c.text, 6);
	assert_int_equal(bad, 1);
	c = (struct collect){ .stop_at = 2 };
	assert_int_equal(amb_kallsyms_for_each(table, strlen(table), collect, &c, NULL), 42);
	assert_int_equal(c.n, 2);
	c = (struct collect){ 0 };
	assert_int_equal(amb_kallsyms_for_each("", 0, collect, &c, NULL), 0);
	assert_int_equal(c.n, 0);
}

static void test_find(void **state)
{
	uint64_t a = 0;

	(void)state;
	/* The first one: the kernel's _stext, not the module's. */
	assert_int_equal(amb_kallsyms_find(table, strlen(table), "_stext", &a), 0);
	assert_true(a == 0xffffffff81000000ull);
	assert_int_equal(amb_kallsyms_find(table, strlen(table), "_etext", &a), 0);
	assert_true(a == 0xffffffff81000400ull);
	assert_int_equal(amb_kallsyms_find(table, strlen(table), "mod_fn", &a), 0);
	assert_true(a == 0xffffffffc0000000ull);
	assert_int_equal(amb_kallsyms_find(table, strlen(table), "_stex", &a), -ENOENT);
	assert_int_equal(amb_kallsyms_find(table, strlen(table), "symbol", &a), -ENOENT);
}

static void test_has_addresses(void **state)
{
	static const char hidden[] =
		"0000000000000000 T _stext\n"
		"0000000000000000 t foo\t[m]\n"
		"ffffffff not a line\n";

	(void)state;
	assert_true(amb_kallsyms_has_addresses(table, strlen(table)));
	assert_false(amb_kallsyms_has_addresses(hidden, strlen(hidden)));
	assert_false(amb_kallsyms_has_addresses("", 0));
	assert_true(amb_kallsyms_is_text('t') && amb_kallsyms_is_text('W'));
	assert_false(amb_kallsyms_is_text('D') || amb_kallsyms_is_text('A'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_field_scan),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_for_each),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_has_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
