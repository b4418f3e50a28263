/* SPDX-License-Identifier: MIT */
/*
 * record/kernel.h - what the recorder reads of the running kernel
 * (kernel.c): /proc/kallsyms, as the KSYMS block stores it, and
 * /proc/modules.
 */
#ifndef AMB_REC_KERNEL_H
#define AMB_REC_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/*
 * /proc/kallsyms text (caller frees; *@len, which must not be NULL, gets its
 * length), without the never-executed "__pfx_" padding symbols.  When
 * kptr_restrict hides the addresses (all zero) returns NULL with errno
 * EPERM: storing it would be useless.  Other errors: NULL with errno.
 */
char *rec_kallsyms_read(size_t *len);

/* Remove the "__pfx_" symbols' lines from kallsyms @text of @len bytes, in
 * place (the result stays NUL-terminated; lines that do not parse stay).
 * Returns the new length. */
size_t rec_kallsyms_drop_padding(char *text, size_t len);

/* A loaded module: its name, load address and size. */
struct rec_module {
	char name[64];
	uint64_t addr, size;
};

/* Parse /proc/modules text (@len bytes) into a malloc'ed array *@out
 * (caller frees).  Returns the count or -errno.  Modules with a hidden
 * (zero) address are skipped. */
int rec_modules_parse(const char *text, size_t len, struct rec_module **out);

#endif /* AMB_REC_KERNEL_H */
