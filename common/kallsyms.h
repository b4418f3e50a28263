/* SPDX-License-Identifier: MIT */
/*
 * common/kallsyms.h - the one parser of /proc/kallsyms text, which the
 * recorder reads, stores (KSYMS block, FORMAT.md §5.8) and trims to the
 * symbols its samples use (record/kernel.c, record/ksyms_trim.c), and the
 * analyzer turns into its symbol table (analyze/resolve/ksyms.c).  A trim
 * keeps what the analysis would read because both read it through this
 * grammar:
 *
 *     line   := [blanks] ADDR blanks TYPE blanks NAME [blanks MODULE [blanks ...]] [blanks]
 *     ADDR   := 1 to 16 hex digits
 *     TYPE   := one byte, not a blank ('t', 'T', 'w', 'W' for text symbols)
 *     NAME   := bytes up to the next blank
 *     MODULE := "[" bytes "]", at least three, up to the next blank
 *     blanks := one or more ' ' or '\t'
 *
 * Lines end at '\n'; the last one may lack it.  Empty lines are skipped;
 * any other line that does not match is malformed (counted by the callers
 * that care, never fatal).  Fields after the module are ignored.  Nothing
 * is allocated or copied: a parsed line points into the text.
 *
 * The line parser and the iterator are inline: the analyzer parses some
 * 200,000 lines before its first kernel symbol, in one pass that cuts the
 * names out in place, and a call per line would show.
 */
#ifndef AMB_COMMON_KALLSYMS_H
#define AMB_COMMON_KALLSYMS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One line of kallsyms text that parsed. */
struct amb_kallsym {
	uint64_t addr;
	const char *name;          /* in the text, @name_len bytes, not NUL-terminated */
	const char *module;        /* "[name]" in the text, @module_len bytes; NULL: the kernel */
	size_t name_len, module_len;
	char type;                 /* nm(1)'s symbol type letter */
	size_t off, len;           /* the line in the text, its newline included when it
				    * has one (set by amb_kallsyms_next()) */
};

/* Whether symbol type @type is code: 't', 'T', 'w' or 'W'. */
static inline bool amb_kallsyms_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* ---- helpers of the inline parser ---------------------------------------- */

static inline bool amb_kallsyms_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline const char *amb_kallsyms_skip_blanks(const char *s, const char *end)
{
	while (s < end && amb_kallsyms_blank(*s))
		s++;
	return s;
}

/*
 * The first blank in [s, end), or end.  Names average some 25 bytes, so
 * eight are looked at a time while a blank cannot be among them; the exact
 * place is found a byte at a time.
 */
static inline const char *amb_kallsyms_skip_field(const char *s, const char *end)
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
	while (s < end && !amb_kallsyms_blank(*s))
		s++;
	return s;
}

/* 1 + the value of hex digit @c, 0 for any other byte. */
static inline unsigned amb_kallsyms_hex(unsigned char c)
{
	static const uint8_t value[256] = {
		['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
		['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
		['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
		['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
	};

	return value[c];
}

/* ---- the grammar ------------------------------------------------------------- */

/*
 * Parse one line, [@line, @end) without its newline, into @sym (all but
 * off and len).  Returns 0, or -EINVAL when the line is malformed (@sym
 * then holds nothing useful).
 */
static inline int amb_kallsyms_parse_line(const char *line, const char *end,
					  struct amb_kallsym *sym)
{
	const char *p = amb_kallsyms_skip_blanks(line, end);
	const char *name, *name_end, *mod = NULL, *mod_end = NULL;
	uint64_t addr = 0;
	unsigned d;
	int n = 0;

	for (; p < end && (d = amb_kallsyms_hex((unsigned char)*p)); p++, n++) {
		if (n == 16)
			return -EINVAL;
		addr = addr << 4 | (d - 1);
	}
	if (!n || p == end || !amb_kallsyms_blank(*p))
		return -EINVAL;
	p = amb_kallsyms_skip_blanks(p, end);
	if (p == end || (p + 1 < end && !amb_kallsyms_blank(p[1])))
		return -EINVAL;
	sym->type = *p;
	name = amb_kallsyms_skip_blanks(p + 1, end);
	if (name == end)
		return -EINVAL;
	name_end = amb_kallsyms_skip_field(name, end);
	p = amb_kallsyms_skip_blanks(name_end, end);
	if (p < end) {
		mod = p;
		mod_end = amb_kallsyms_skip_field(p, end);
		if (mod_end - mod < 3 || *mod != '[' || mod_end[-1] != ']')
			return -EINVAL;
	}
	sym->addr = addr;
	sym->name = name;
	sym->name_len = (size_t)(name_end - name);
	sym->module = mod;
	sym->module_len = mod ? (size_t)(mod_end - mod) : 0;
	return 0;
}

/*
 * The next non-empty line of the text @text, from *@pos up to @end: parse
 * it into @sym, with its place in the text (off, len), and move *@pos past
 * it.  Returns 1 for a line that parsed, -EINVAL for a malformed one (*@pos
 * moves past it all the same; sym->off and len say where it is), and 0 at
 * the end of the text.
 */
static inline int amb_kallsyms_next(const char *text, const char **pos, const char *end,
				    struct amb_kallsym *sym)
{
	const char *p = *pos, *nl, *le;

	for (;;) {
		if (p >= end)
			return 0;
		nl = memchr(p, '\n', (size_t)(end - p));
		le = nl ? nl : end;
		if (le > p)
			break;
		p = le + 1;
	}
	*pos = nl ? nl + 1 : end;
	sym->off = (size_t)(p - text);
	sym->len = (size_t)(*pos - p);
	return amb_kallsyms_parse_line(p, le, sym) ? -EINVAL : 1;
}

/* ---- walks ---------------------------------------------------------------------- */

/* Called for every line that parsed; a nonzero return stops the walk. */
typedef int (*amb_kallsyms_fn)(void *ctx, const struct amb_kallsym *sym);

/*
 * Call @fn(@ctx, sym) for every line of kallsyms text @text (@len bytes,
 * need not be NUL-terminated) that parses, in text order.  Malformed lines
 * are skipped and counted in *@bad_lines when it is not NULL.  Returns 0,
 * or the first nonzero value @fn returned.
 */
int amb_kallsyms_for_each(const char *text, size_t len, amb_kallsyms_fn fn, void *ctx,
			  size_t *bad_lines);

/*
 * The address of the first symbol named @name (kernel or module) in @text
 * (@len bytes) into *@addr.  Returns 0, or -ENOENT when there is none.
 */
int amb_kallsyms_find(const char *text, size_t len, const char *name, uint64_t *addr);

/*
 * Whether some line of @text (@len bytes) has a nonzero address.  With
 * kptr_restrict (or without CAP_SYSLOG) every address reads as zero, and
 * the names alone can symbolize nothing: the analyzer then keeps no
 * symbol, and the recorder stores no table.
 */
bool amb_kallsyms_has_addresses(const char *text, size_t len);

#endif /* AMB_COMMON_KALLSYMS_H */
