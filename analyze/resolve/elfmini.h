/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/elfmini.h - ELF reduction for archives (elfmini.c).
 */
#ifndef AMB_ANALYZE_ELFMINI_H
#define AMB_ANALYZE_ELFMINI_H

#include <stddef.h>
#include <stdint.h>

/*
 * Reduce the ELF @image (@len bytes) to its symbol tables, CFI
 * (.eh_frame, .debug_frame), line and inline information (.debug_info,
 * .debug_line, ...), notes and program headers; other sections become
 * SHT_NOBITS; on x86-64 the PLT sections and the relocations that name
 * their stubs stay too (plt.h).  Returns 0 with a malloc'ed *out of
 * *out_len bytes, -EINVAL for what libelf cannot read, write or read back
 * (or a result larger than @image plus a MiB), -ENOMEM, -errno.
 */
int ana_elf_reduce(const void *image, size_t len, uint8_t **out, size_t *out_len);

#endif /* AMB_ANALYZE_ELFMINI_H */
