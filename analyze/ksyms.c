// SPDX-License-Identifier: MIT
/*
 * analyze/ksyms.c - kernel symbols from the /proc/kallsyms text a recording
 * carries (KSYMS block, FORMAT.md §5): a sorted array and binary search.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/symbols.h"

/* The last symbol has no successor to bound it; kernel functions are far
 * smaller than this. */
#define KSYM_LAST_SPAN (1u << 20)

struct ana_ksyms {
	struct ana_ksym *syms;
	size_t nr, cap;
	char *pool;            /* names and module names, NUL-separated */
	size_t bad_lines;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ana_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Among aliases prefer global names (they sort first by pointer
	 * order of the pool, which keeps the text's order): stable enough. */
	return x->name < y->name ? -1 : x->name > y->name;
}

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
static bool next_field(char **p, char *end, char **f, char **fend)
{
	char *s = *p;

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

static int parse_line(struct ana_ksyms *k, char *line, char *end, bool *any_nonzero)
{
	char *p = line, *f, *fe;
	char *name, *name_end, *mod = NULL, *mod_end = NULL;
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
	if (k->nr == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 4096;
		struct ana_ksym *n = realloc(k->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		k->syms = n;
		k->cap = cap;
	}
	/* The pool is a private copy of the text: terminate in place. */
	*name_end = '\0';
	if (mod)
		*mod_end = '\0';
	k->syms[k->nr++] = (struct ana_ksym){ addr, name, mod };
	return 0;
}

struct ana_ksyms *ana_ksyms_parse(const char *text, size_t len)
{
	struct ana_ksyms *k = calloc(1, sizeof(*k));
	bool any_nonzero = false;
	char *p, *end;

	if (!k)
		return NULL;
	k->pool = malloc(len + 1);
	if (!k->pool)
		goto fail;
	memcpy(k->pool, text, len);
	k->pool[len] = '\0';
	p = k->pool;
	end = k->pool + len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *le = nl ? nl : end;
		int err;

		if (le > p) {
			err = parse_line(k, p, le, &any_nonzero);
			if (err == -ENOMEM)
				goto fail;
			if (err)
				k->bad_lines++;
		}
		p = le + 1;
	}
	if (!any_nonzero) {
		/* kptr_restrict hid the addresses: names alone are useless. */
		k->nr = 0;
	}
	if (k->nr)
		qsort(k->syms, k->nr, sizeof(*k->syms), ksym_cmp);
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
