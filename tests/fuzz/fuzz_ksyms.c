// SPDX-License-Identifier: MIT
/*
 * fuzz_ksyms - the input is a recording's KSYMS text (/proc/kallsyms lines):
 * the common parser (common/kallsyms.h) and the analyzer's table built with
 * it (analyze/resolve/ksyms.c).  Every line the parser accepts lies in the
 * text, its fields in the line; the table holds exactly the text symbols
 * of those lines (none when every address is zero) and counts the lines
 * refused.  Whatever the input holds, lookups must answer with a symbol
 * starting at or below the address, at the offset they report, and never
 * with one whose successor starts at or below the address.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/resolve.h"
#include "common/kallsyms.h"

/* Look @addr up and check the answer against the table's rules. */
static void check_find(const struct ana_ksyms *k, uint64_t addr)
{
	const struct ana_ksym *s, *next;
	uint64_t off = UINT64_MAX, next_off;

	s = ana_ksyms_find(k, addr, &off);
	if (!s)
		return;
	assert(s->addr <= addr && off == addr - s->addr);
	assert(s->name && (!s->module || s->module[0] == '['));
	/* Just past the symbol's start the answer is the same symbol or a
	 * later one, never an earlier one. */
	if (addr < UINT64_MAX) {
		next = ana_ksyms_find(k, addr + 1, &next_off);
		assert(!next || next->addr >= s->addr);
	}
}

struct lines {
	const char *text;
	size_t size, text_syms;
};

/* A line the common parser accepted: within the text, fields within it. */
static int check_line(void *ctx, const struct amb_kallsym *sym)
{
	struct lines *l = ctx;
	const char *line = l->text + sym->off;

	assert(sym->len && sym->off + sym->len <= l->size);
	assert(sym->name > line && sym->name + sym->name_len <= line + sym->len);
	assert(sym->name_len && !memchr(sym->name, ' ', sym->name_len));
	assert(!sym->module || (sym->module > sym->name &&
				sym->module + sym->module_len <= line + sym->len &&
				sym->module[0] == '[' && sym->module[sym->module_len - 1] == ']'));
	l->text_syms += amb_kallsyms_is_text(sym->type);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lines l = { (const char *)data, size, 0 };
	struct ana_ksyms *k;
	size_t i, bad = 0;

	amb_kallsyms_for_each(l.text, size, check_line, &l, &bad);
	k = ana_ksyms_parse((const char *)data, size);
	if (!k)
		return 0;
	assert(ana_ksyms_count(k) <= size / 4 + 1);
	assert(ana_ksyms_bad_lines(k) == bad);
	assert(ana_ksyms_count(k) ==
	       (amb_kallsyms_has_addresses(l.text, size) ? l.text_syms : 0));
	/* Addresses taken from the input itself: every 8 bytes, little endian. */
	for (i = 0; i + 8 <= size && i < 64 * 8; i += 8) {
		uint64_t a;

		memcpy(&a, data + i, sizeof(a));
		check_find(k, a);
		check_find(k, a & 0xffffffffffffull);
	}
	check_find(k, 0);
	check_find(k, UINT64_MAX);
	ana_ksyms_free(k);
	return 0;
}
