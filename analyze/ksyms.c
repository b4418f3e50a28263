// SPDX-License-Identifier: MIT
/*
 * analyze/ksyms.c - kernel symbols from the /proc/kallsyms text a recording
 * carries (KSYMS block, FORMAT.md §5): a sorted array and binary search.
 *
 * Every command that resolves kernel addresses parses the whole table
 * (some 60,000 text symbols) before its first sample, so parsing is kept
 * cheap: one pass over the text, copying out only the names, into memory
 * allocated once (a page is touched only when used: page faults cost much
 * in a VM), and no sort at all when the text is in address order already,
 * as the kernel's own symbols are; otherwise a stable radix sort.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/symbols.h"

/* The last symbol has no successor to bound it; kernel functions are far
 * smaller than this. */
#define KSYM_LAST_SPAN (1u << 20)

struct ana_ksyms {
	struct ana_ksym *syms;
	size_t nr, cap;
	char *pool;            /* names and module names, NUL-terminated */
	size_t pool_len, pool_cap;
	size_t bad_lines;
};

static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static int parse_hex(const char *s, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	int n = 0;

	for (; s < end; s++, n++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -EINVAL;
		if (n >= 16)
			return -EINVAL;
		x = x << 4 | d;
	}
	if (!n)
		return -EINVAL;
	*v = x;
	return 0;
}

/* Split the next whitespace-separated field of [*p, end) within one line. */
static bool next_field(const char **p, const char *end, const char **f, const char **fend)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end)
		return false;
	*f = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	*fend = s;
	*p = s;
	return true;
}

/* Copy [s, end) into the pool, NUL-terminated. */
static const char *pool_put(struct ana_ksyms *k, const char *s, const char *end)
{
	size_t n = (size_t)(end - s);
	char *d = k->pool + k->pool_len;

	/* A line holds more than the strings it gives (ana_ksyms_parse). */
	assert(k->pool_cap - k->pool_len > n);
	memcpy(d, s, n);
	d[n] = '\0';
	k->pool_len += n + 1;
	return d;
}

static int parse_line(struct ana_ksyms *k, const char *line, const char *end, bool *any_nonzero)
{
	const char *p = line, *f, *fe;
	const char *name, *name_end, *mod = NULL, *mod_end = NULL;
	uint64_t addr;
	char type;

	if (!next_field(&p, end, &f, &fe) || parse_hex(f, fe, &addr))
		return -EINVAL;
	if (!next_field(&p, end, &f, &fe) || fe - f != 1)
		return -EINVAL;
	type = *f;
	if (!next_field(&p, end, &name, &name_end))
		return -EINVAL;
	if (next_field(&p, end, &f, &fe)) {
		if (fe - f < 3 || *f != '[' || fe[-1] != ']')
			return -EINVAL;
		mod = f;      /* keep the brackets: "[e1000]" is how it is shown */
		mod_end = fe;
	}
	if (addr)
		*any_nonzero = true;
	if (!is_text_type(type))
		return 0;
	/* ana_ksyms_parse() made room for every line. */
	assert(k->nr < k->cap);
	name = pool_put(k, name, name_end);
	if (mod)
		mod = pool_put(k, mod, mod_end);
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
	const char *p, *end = text + len;
	size_t lines = 1;

	if (!k)
		return NULL;
	/* One symbol a line at most, and a line's name and module (with their
	 * NULs) are shorter than the line (with its newline): room for all at
	 * once. */
	for (p = text; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		lines++;
	k->syms = malloc(lines * sizeof(*k->syms));
	k->pool = malloc(len + 1);
	if (!k->syms || !k->pool)
		goto fail;
	k->cap = lines;
	k->pool_cap = len + 1;
	p = text;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		int err;

		if (le > p) {
			size_t nr = k->nr;

			err = parse_line(k, p, le, &any_nonzero);
			if (err)
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
	free(k->syms);
	free(k->pool);
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
