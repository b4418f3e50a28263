// SPDX-License-Identifier: MIT
/*
 * common/kallsyms.c - walks over /proc/kallsyms text; the grammar itself
 * is in kallsyms.h, inline for the analyzer's one-pass table.
 */
#include "common/kallsyms.h"

int amb_kallsyms_for_each(const char *text, size_t len, amb_kallsyms_fn fn, void *ctx,
			  size_t *bad_lines)
{
	const char *pos = text, *end = text + len;
	struct amb_kallsym sym;
	int ret;

	while ((ret = amb_kallsyms_next(text, &pos, end, &sym)) != 0) {
		if (ret < 0) {
			if (bad_lines)
				(*bad_lines)++;
			continue;
		}
		ret = fn(ctx, &sym);
		if (ret)
			return ret;
	}
	return 0;
}

struct find_ctx {
	const char *name;
	size_t name_len;
	uint64_t addr;
};

static int find_one(void *ctx, const struct amb_kallsym *sym)
{
	struct find_ctx *f = ctx;

	if (sym->name_len != f->name_len || memcmp(sym->name, f->name, f->name_len))
		return 0;
	f->addr = sym->addr;
	return 1;
}

int amb_kallsyms_find(const char *text, size_t len, const char *name, uint64_t *addr)
{
	struct find_ctx f = { name, strlen(name), 0 };

	if (!amb_kallsyms_for_each(text, len, find_one, &f, NULL))
		return -ENOENT;
	*addr = f.addr;
	return 0;
}

static int nonzero(void *ctx, const struct amb_kallsym *sym)
{
	(void)ctx;
	return sym->addr != 0;
}

bool amb_kallsyms_has_addresses(const char *text, size_t len)
{
	return amb_kallsyms_for_each(text, len, nonzero, NULL, NULL) != 0;
}
