// SPDX-License-Identifier: MIT
/*
 * fuzz_ksyms - the input is a recording's KSYMS text (/proc/kallsyms lines,
 * analyze/ksyms.c).  Whatever it holds, lookups must answer with a symbol
 * starting at or below the address, at the offset they report, and never
 * with one whose successor starts at or below the address.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/resolve.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ana_ksyms *k = ana_ksyms_parse((const char *)data, size);
	size_t i;

	if (!k)
		return 0;
	assert(ana_ksyms_count(k) <= size / 4 + 1);
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
