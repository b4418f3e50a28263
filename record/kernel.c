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

#include "record/rec_internal.h"

#define KALLSYMS_MAX (256u << 20)

long rec_proc_sys_long(const char *name, long def)
{
	char path[256], *text, *end;
	long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	text = amb_read_file(path, 64, NULL);
	if (!text)
		return def;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text)
		v = def;
	free(text);
	return v;
}

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
		const char *name = memchr(text + in, ' ', n);

		/* "ADDR TYPE NAME[\t[MODULE]]": the name follows the second space. */
		if (name)
			name = memchr(name + 1, ' ', n - (size_t)(name + 1 - (text + in)));
		if (!name || strncmp(name + 1, "__pfx_", 6) != 0) {
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
	bool any = false;

	if (!text)
		return NULL;
	/* With kptr_restrict (or without CAP_SYSLOG) every address reads as
	 * zero: the names alone cannot symbolize anything. */
	for (const char *p = text; *p && !any; ) {
		const char *nl = strchr(p, '\n');

		while (*p == '0')
			p++;
		if (*p != ' ' && *p != '\n' && *p)
			any = true;
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!any) {
		free(text);
		errno = EPERM;
		return NULL;
	}
	*len = rec_kallsyms_drop_padding(text, *len);
	return text;
}

int rec_kallsyms_find(const char *text, size_t len, const char *sym, uint64_t *addr)
{
	size_t symlen = strlen(sym);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *name;

		/* "ffffffff81000000 T _stext" (optionally "\t[module]") */
		name = memchr(p, ' ', (size_t)(le - p));
		if (name && le - name > 3) {
			name += 3;
			if ((size_t)(le - name) >= symlen && !memcmp(name, sym, symlen) &&
			    (name + symlen == le || name[symlen] == '\t')) {
				*addr = strtoull(p, NULL, 16);
				return 0;
			}
		}
		p = le + 1;
	}
	return -ENOENT;
}

int rec_modules_parse(const char *text, size_t len, struct rec_module **out)
{
	struct rec_module *v = NULL;
	size_t n = 0, cap = 0;
	const char *p = text, *end = text + len;

	*out = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = (size_t)((nl ? nl : end) - p);
		char line[512], name[64];
		unsigned long long size, addr;
		int pos = 0;

		if (ll >= sizeof(line))
			ll = sizeof(line) - 1;
		memcpy(line, p, ll);
		line[ll] = '\0';
		p += ll + 1;
		/* "name size refcnt deps state 0xaddr [taint]" */
		if (sscanf(line, "%63s %llu %*s %*s %*s %n", name, &size, &pos) < 2 || !pos)
			continue;
		addr = strtoull(line + pos, NULL, 16);
		if (!addr)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct rec_module *nv = realloc(v, nc * sizeof(*nv));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap = nc;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		v[n].addr = addr;
		v[n].size = size;
		n++;
	}
	*out = v;
	return (int)n;
}
