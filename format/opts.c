// SPDX-License-Identifier: MIT
/*
 * format/opts.c - checking the options structs callers pass (AMB_OPTS,
 * <amber/common.h>): a caller built against an older header passes fewer
 * fields, one built against a newer header more, which must then be zero.
 */
#include "format/format_internal.h"

#include <amber/common.h>

/* Larger than any options struct will grow; a bigger sz is an
 * uninitialised struct, and its "extra bytes" are not ours to read. */
#define AMB_OPTS_SZ_MAX 4096u

bool amb_opts_valid(const void *opts, size_t known, const char *type)
{
	const uint8_t *b = opts;
	size_t sz;

	if (!opts)
		return true;
	sz = *(const size_t *)opts;
	if (sz < sizeof(size_t) || sz > AMB_OPTS_SZ_MAX) {
		amb_warn("%s: sz %zu is not the size of an options struct (set it with AMB_OPTS)",
			 type, sz);
		return false;
	}
	for (size_t i = known; i < sz; i++) {
		if (b[i]) {
			amb_warn("%s: byte %zu is not zero, but this library knows only the "
				 "first %zu bytes (built against a newer <amber/format.h>?)",
				 type, i, known);
			return false;
		}
	}
	return true;
}
