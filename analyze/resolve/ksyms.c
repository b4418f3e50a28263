// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/ksyms.c - kernel symbols from the /proc/kallsyms text a recording
 * carries (KSYMS block, FORMAT.md §5): a sorted array and binary search.
 *
 * Every command that resolves kernel addresses parses the whole table
 * (some 60,000 text symbols, megabytes of text) before its first kernel
 * symbol, so parsing is kept cheap: one copy of the text, one pass over it
 * with the inline parser of common/kallsyms.h (the grammar the recorder's
 * trim uses too) that scans each byte once and cuts the names out in place
 * (no copy per name), memory allocated once, and no sort at all when the
 * text is in address order already, as the kernel's own symbols are;
 * otherwise a stable radix sort.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/ksyms.h"
#include <amber/common.h>
#include "common/kallsyms.h"
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

/*
 * A line common/kallsyms.h parsed, in the pool (the text's copy): a text
 * symbol's name and module are cut out in place, a NUL written over the
 * byte after each, which is a blank, the line's newline or the pool's
 * final NUL.
 */
static void add_line(struct ana_ksyms *k, const struct amb_kallsym *sym)
{
	char *name = k->pool + (sym->name - k->pool);
	char *mod = sym->module ? k->pool + (sym->module - k->pool) : NULL;

	/* ana_ksyms_parse() made room for every line. */
	assert(k->nr < k->cap);
	name[sym->name_len] = '\0';
	if (mod)
		mod[sym->module_len] = '\0';
	k->syms[k->nr++] = (struct ana_ksym){ sym->addr, name, mod };
}

/*
 * Sort @syms by address, aliases (equal addresses) in their text order,
 * which ana_ksyms_find() relies on to show the last one.  An LSD radix
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
	struct amb_kallsym sym;
	const char *pos;
	char *p, *end;
	size_t lines = 1;
	int ret;

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
	pos = k->pool;
	while ((ret = amb_kallsyms_next(k->pool, &pos, end, &sym)) != 0) {
		if (ret < 0) {
			k->bad_lines++;
			continue;
		}
		/* The rule of amb_kallsyms_has_addresses(), in this one pass. */
		if (sym.addr)
			any_nonzero = true;
		if (!amb_kallsyms_is_text(sym.type))
			continue;
		add_line(k, &sym);
		if (k->nr > 1 && k->syms[k->nr - 1].addr < k->syms[k->nr - 2].addr)
			sorted = false;
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
	/* Of the aliases sharing an address, syms[lo] is the last in the
	 * text, the one perf 6.1 shows: it gives each kernel symbol the end
	 * where the next one starts, so only the last of a run of aliases has
	 * a size, and of symbols at one start it keeps one with a size
	 * (memset, __memset, __pi_memset: __pi_memset). */
	if (offset)
		*offset = addr - s->addr;
	return s;
}

uint64_t ana_ksyms_size(const struct ana_ksyms *k, const struct ana_ksym *s)
{
	size_t i;

	if (!k || !k->nr || s < k->syms || s >= k->syms + k->nr)
		return 0;
	for (i = (size_t)(s - k->syms) + 1; i < k->nr; i++)
		if (k->syms[i].addr != s->addr)
			return k->syms[i].addr - s->addr;
	return 0;
}
