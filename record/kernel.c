// SPDX-License-Identifier: MIT
/*
 * record/kernel.c - what the recorder learns about the running kernel:
 * /proc/sys/kernel knobs, /proc/kallsyms (respecting kptr_restrict) and
 * /proc/modules.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kallsyms.h"
#include "common/util.h"
#include "record/kernel.h"

#define KALLSYMS_MAX (256u << 20)

/*
 * Kernels built with function padding (CONFIG_FUNCTION_PADDING_CFI, 6.2+)
 * list a "__pfx_NAME" symbol for the NOP padding in front of every
 * function: almost half of /proc/kallsyms, never executed, and so never
 * sampled.  Leaving them out halves the KSYMS block (FORMAT.md §5).
 */
size_t rec_kallsyms_drop_padding(char *text, size_t len)
{
	size_t in = 0, out = 0;

	while (in < len) {
		char *nl = memchr(text + in, '\n', len - in);
		size_t n = nl ? (size_t)(nl - (text + in)) + 1 : len - in;
		struct amb_kallsym sym;

		/* Lines that do not parse stay: this is no place to judge them. */
		if (amb_kallsyms_parse_line(text + in, text + in + n - (nl != NULL), &sym) ||
		    sym.name_len < 6 || memcmp(sym.name, "__pfx_", 6)) {
			memmove(text + out, text + in, n);
			out += n;
		}
		in += n;
	}
	text[out] = 0;
	return out;
}

char *rec_kallsyms_read(size_t *len)
{
	char *text = amb_read_file("/proc/kallsyms", KALLSYMS_MAX, len);

	if (!text)
		return NULL;
	if (!amb_kallsyms_has_addresses(text, *len)) {
		free(text);
		errno = EPERM;
		return NULL;
	}
	*len = rec_kallsyms_drop_padding(text, *len);
	return text;
}

/* The next space-separated field of [*@s, @le): its start, *@s moved past
 * it and its length in *@n.  NULL when the line has no more fields. */
static const char *next_field(const char **s, const char *le, size_t *n)
{
	const char *f = *s, *e;

	while (f < le && (*f == ' ' || *f == '\t'))
		f++;
	for (e = f; e < le && *e != ' ' && *e != '\t'; e++)
		;
	*s = e;
	*n = (size_t)(e - f);
	return *n ? f : NULL;
}

int rec_modules_parse(const char *text, size_t len, struct rec_module **out)
{
	struct rec_module *v = NULL;
	size_t n = 0, cap = 0;
	const char *p = text, *end = text + len;

	*out = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *s = p;
		const char *f[6];
		size_t flen[6];
		char num[24], *e;
		uint64_t size, addr;
		size_t i;

		p = nl ? nl + 1 : end;
		/* "name size refcnt deps state 0xaddr [taint]": fields are
		 * walked in place, for the dependency list has no length
		 * limit (a line of nf_conntrack easily passes 512 bytes). */
		for (i = 0; i < AMB_ARRAY_SIZE(f); i++)
			if (!(f[i] = next_field(&s, le, &flen[i])))
				break;
		if (i < AMB_ARRAY_SIZE(f) || flen[0] >= sizeof(v->name) || flen[1] >= sizeof(num) ||
		    flen[5] >= sizeof(num))
			continue;
		memcpy(num, f[1], flen[1]);
		num[flen[1]] = '\0';
		errno = 0;
		size = strtoull(num, &e, 10);
		if (errno || *e || e == num)
			continue;
		memcpy(num, f[5], flen[5]);
		num[flen[5]] = '\0';
		addr = strtoull(num, &e, 16);
		if (errno || *e || !addr)
			continue;
		if (amb_ensure_cap((void **)&v, &cap, sizeof(*v), n + 1)) {
			free(v);
			return -ENOMEM;
		}
		memcpy(v[n].name, f[0], flen[0]);
		v[n].name[flen[0]] = '\0';
		v[n].addr = addr;
		v[n].size = size;
		n++;
	}
	*out = v;
	return (int)n;
}
