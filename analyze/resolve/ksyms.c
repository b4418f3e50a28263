// SPDX-License-Identifier: MIT
/*
 * analyze/ksyms.c - kernel symbols from the /proc/kallsyms text a recording
 * carries (KSYMS block, FORMAT.md §5): a sorted array and binary search.
 *
 * Every command that resolves kernel addresses parses the whole table
 * (some 60,000 text symbols, megabytes of text) before its first kernel
 * symbol, so parsing is kept cheap: one copy of the text, one pass over it
 * that scans each byte once and cuts the names out in place (no copy per
 * name), memory allocated once, and no sort at all when the text is in
 * address order already, as the kernel's own symbols are; otherwise a
 * stable radix sort.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/ksyms.h"
#include <amber/common.h>
#include "common/util.h"

/* The last symbol has no successor to bound it; kernel functions are far
 * smaller than this. */
#define KSYM_LAST_SPAN (1u << 20)

struct ana_ksyms {
	struct ana_ksym *syms;         /* amb_big_alloc()ed, @syms_size bytes */
	size_t nr, cap, syms_size;
	char *pool;                    /* a copy of the text, names cut out in place */
	size_t pool_size;              /* amb_big_alloc()ed bytes */
	size_t bad_lines;
};

static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char *skip_blanks(char *s, const char *end)
{
	while (s < end && is_blank(*s))
		s++;
	return s;
}

/*
 * The first blank in [s, end), or end.  Names average some 25 bytes, so
 * eight are looked at a time while a blank cannot be among them; the exact
 * place is found a byte at a time.
 */
static char *skip_field(char *s, const char *end)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;

	while (end - s >= 8) {
		uint64_t w, sp, tab;

		memcpy(&w, s, sizeof(w));
		sp = w ^ (ones * ' ');
		tab = w ^ (ones * '\t');
		/* Nonzero if and only if some byte of sp or tab is zero. */
		if ((((sp - ones) & ~sp) | ((tab - ones) & ~tab)) & highs)
			break;
		s += 8;
	}
	while (s < end && !is_blank(*s))
		s++;
	return s;
}

/* 1 + the value of each hex digit, 0 for any other byte. */
static const uint8_t hex_value[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/*
 * One line, [line, end) of the pool (the text's copy): "ADDR TYPE NAME
 * [MODULE]", fields split by blanks, more fields after the module ignored.
 * A text symbol's name and module are cut out in place, a NUL written
 * over the byte after each: only bytes of this line, all looked at by then.
 */
static int parse_line(struct ana_ksyms *k, char *line, char *end, bool *any_nonzero)
{
	char *p = skip_blanks(line, end);
	char *name, *name_end, *mod = NULL, *mod_end = NULL;
	uint64_t addr = 0;
	unsigned d;
	int n = 0;
	char type;

	for (; p < end && (d = hex_value[(unsigned char)*p]); p++, n++) {
		if (n == 16)
			return -EINVAL;
		addr = addr << 4 | (d - 1);
	}
	if (!n || p == end || !is_blank(*p))
		return -EINVAL;
	p = skip_blanks(p, end);
	if (p == end || (p + 1 < end && !is_blank(p[1])))
		return -EINVAL;
	type = *p;
	name = skip_blanks(p + 1, end);
	if (name == end)
		return -EINVAL;
	name_end = skip_field(name, end);
	p = skip_blanks(name_end, end);
	if (p < end) {
		mod = p;
		mod_end = skip_field(p, end);
		/* keep the brackets: "[e1000]" is how it is shown */
		if (mod_end - mod < 3 || *mod != '[' || mod_end[-1] != ']')
			return -EINVAL;
	}
	if (addr)
		*any_nonzero = true;
	if (!is_text_type(type))
		return 0;
	/* ana_ksyms_parse() made room for every line. */
	assert(k->nr < k->cap);
	*name_end = '\0';
	if (mod)
		*mod_end = '\0';
	k->syms[k->nr++] = (struct ana_ksym){ addr, name, mod };
	return 0;
}

/*
 * Sort @syms by address, aliases (equal addresses) in their text order,
 * which ana_ksyms_find() relies on to show the first one.  An LSD radix
 * sort, 8 bits a pass, is stable; the passes over a byte that all
 * addresses share (most of the high ones) are skipped.
 */
static int ksyms_sort(struct ana_ksym *syms, size_t nr)
{
	struct ana_ksym *tmp = malloc(nr * sizeof(*tmp)), *src = syms, *dst = tmp;
	uint64_t differ = 0;
	unsigned shift;
	size_t i;

	if (!tmp)
		return -ENOMEM;
	for (i = 1; i < nr; i++)
		differ |= syms[i].addr ^ syms[0].addr;
	for (shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, sum = 0;
		struct ana_ksym *x;

		if (!((differ >> shift) & 0xff))
			continue;
		for (i = 0; i < nr; i++)
			count[(src[i].addr >> shift) & 0xff]++;
		for (i = 0; i < 256; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < nr; i++)
			dst[count[(src[i].addr >> shift) & 0xff]++] = src[i];
		x = src;
		src = dst;
		dst = x;
	}
	if (src != syms)
		memcpy(syms, src, nr * sizeof(*syms));
	free(tmp);
	return 0;
}

struct ana_ksyms *ana_ksyms_parse(const char *text, size_t len)
{
	struct ana_ksyms *k = calloc(1, sizeof(*k));
	bool any_nonzero = false, sorted = true;
	char *p, *end;
	size_t lines = 1;

	if (!k)
		return NULL;
	/* One symbol a line at most: room for all at once.  The names stay
	 * where they are in a copy of the text; its NUL ends the last line. */
	k->pool = amb_big_alloc(len + 1, &k->pool_size);
	if (!k->pool)
		goto fail;
	memcpy(k->pool, text, len);
	k->pool[len] = '\0';
	end = k->pool + len;
	for (p = k->pool; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		lines++;
	if (lines > SIZE_MAX / sizeof(*k->syms))
		goto fail;
	k->syms = amb_big_alloc(lines * sizeof(*k->syms), &k->syms_size);
	if (!k->syms)
		goto fail;
	k->cap = lines;
	p = k->pool;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *le = nl ? nl : end;

		if (le > p) {
			size_t nr = k->nr;

			if (parse_line(k, p, le, &any_nonzero))
				k->bad_lines++;
			if (nr && k->nr > nr && k->syms[nr].addr < k->syms[nr - 1].addr)
				sorted = false;
		}
		p = le + 1;
	}
	if (!any_nonzero) {
		/* kptr_restrict hid the addresses: names alone are useless. */
		k->nr = 0;
	}
	if (!sorted && ksyms_sort(k->syms, k->nr))
		goto fail;
	return k;
fail:
	ana_ksyms_free(k);
	errno = ENOMEM;
	return NULL;
}

void ana_ksyms_free(struct ana_ksyms *k)
{
	if (!k)
		return;
	amb_big_free(k->syms, k->syms_size);
	amb_big_free(k->pool, k->pool_size);
	free(k);
}

size_t ana_ksyms_count(const struct ana_ksyms *k)
{
	return k ? k->nr : 0;
}

size_t ana_ksyms_bad_lines(const struct ana_ksyms *k)
{
	return k ? k->bad_lines : 0;
}

const struct ana_ksym *ana_ksyms_find(const struct ana_ksyms *k, uint64_t addr,
				      uint64_t *offset)
{
	size_t lo = 0, hi, i;
	const struct ana_ksym *s;

	if (!k || !k->nr || addr < k->syms[0].addr)
		return NULL;
	hi = k->nr;
	/* Invariant: syms[lo].addr <= addr, and addr < syms[hi].addr if hi < nr. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	i = lo;
	s = &k->syms[i];
	if (i + 1 == k->nr && addr - s->addr >= KSYM_LAST_SPAN)
		return NULL;
	/* Aliases share an address; the first of them is the one shown. */
	while (i > 0 && k->syms[i - 1].addr == s->addr)
		s = &k->syms[--i];
	if (offset)
		*offset = addr - s->addr;
	return s;
}
