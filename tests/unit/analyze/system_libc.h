/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/analyze/system_libc.h - the system's libc, which the symbol
 * tests use as a real ELF with thousands of functions, aliases and a PLT.
 */
#ifndef AMB_TEST_SYSTEM_LIBC_H
#define AMB_TEST_SYSTEM_LIBC_H

#include <stddef.h>
#include <unistd.h>

/* The path of a readable libc.so.6 where Debian or others keep it, or
 * NULL (the caller skips). */
static inline const char *system_libc(void)
{
	static const char *const paths[] = {
		"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/libc.so.6", "/usr/lib64/libc.so.6",
	};

	for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++)
		if (!access(paths[k], R_OK))
			return paths[k];
	return NULL;
}

#endif /* AMB_TEST_SYSTEM_LIBC_H */
