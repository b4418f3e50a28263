// SPDX-License-Identifier: MIT
/*
 * format/checksum_x86.c - XXH3-64 (the format's checksum, FORMAT.md §1)
 * built for AVX2, which amb_checksum() (header.c) calls on CPUs that have
 * it.  libxxhash's XXH3_64bits() is built for SSE2, half the speed; its
 * own dispatcher picks AVX-512 where there is one, which made the rest of
 * a verify slower than XXH3 got faster.  xxhash.h's code, inlined here
 * (XXH_INLINE_ALL), gives the same hash (tests/unit/format/test_header.c
 * compares them).
 */
#include <stddef.h>
#include <stdint.h>

#include "format/format_internal.h"

#if AMB_CHECKSUM_AVX2
#pragma GCC target("avx2")
#define XXH_INLINE_ALL
#define XXH_VECTOR XXH_AVX2
#include <xxhash.h>

uint64_t amb_checksum_avx2(const void *p, size_t len)
{
	return XXH3_64bits(p, len);
}
#endif
