// SPDX-License-Identifier: MIT
/*
 * fuzz_elf - the input is an ELF file, as the analyzer finds one by
 * build-id or embedded in a recording: the PLT stubs' names read from it
 * (analyze/resolve/plt.c), and its reduction for `archive --mini`
 * (analyze/resolve/elfmini.c), whose result is read for names again.
 * The stubs found must be sorted, disjoint, non-empty and named NAME@plt,
 * and each must be found by its first and last address; a reduction that
 * succeeds must be an ELF libelf reads.
 */
#include <assert.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/elfmini.h"
#include "analyze/resolve/plt.h"

/* Names an ifunc at an even address, none at an odd one. */
static const char *name_at(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr & 1 ? NULL : "ifunc";
}

/* The stubs of the ELF image @data, checked. */
static void check_stubs(const uint8_t *data, size_t size)
{
	Elf *elf = elf_memory((char *)(uintptr_t)data, size);
	struct ana_plt p;

	if (!elf)
		return;
	if (ana_plt_load(elf, &p) == 0) {
		for (size_t i = 0; i < p.n; i++) {
			const char *name = ana_plt_name(&p, &p.v[i], name_at, NULL);
			size_t len;

			if (!name)
				continue;   /* no memory */
			len = strlen(name);
			assert(name == p.v[i].name);
			assert(p.v[i].start < p.v[i].end);
			assert(!i || p.v[i - 1].end <= p.v[i].start);
			assert(len > 4 && !strcmp(name + len - 4, "@plt"));
			assert(ana_plt_find(&p, p.v[i].start) == &p.v[i]);
			assert(ana_plt_find(&p, p.v[i].end - 1) == &p.v[i]);
		}
		ana_plt_free(&p);
	}
	elf_end(elf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy, *mini = NULL;
	size_t mini_len = 0;

	elf_version(EV_CURRENT);
	/* libelf may write to an image it reads from memory: a copy. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	check_stubs(copy, size);
	memcpy(copy, data, size);
	if (ana_elf_reduce(copy, size, &mini, &mini_len) == 0) {
		Elf *elf = elf_memory((char *)mini, mini_len);
		GElf_Ehdr eh;

		assert(elf && gelf_getehdr(elf, &eh));
		elf_end(elf);
		check_stubs(mini, mini_len);
		free(mini);
	}
	free(copy);
	return 0;
}
