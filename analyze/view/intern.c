// SPDX-License-Identifier: MIT
/*
 * analyze/view/intern.c - interned strings: each stored once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "analyze/view/intern.h"

static bool str_eq(uint64_t stored, const void *key)
{
	return !strcmp((const char *)(uintptr_t)stored, key);
}

const char *ana_intern(struct ana_intern *in, const char *s)
{
	uint64_t h = XXH3_64bits(s, strlen(s));
	char *copy = amb_hashmap_find(&in->map, h, str_eq, s);

	if (copy)
		return copy;
	copy = strdup(s);
	if (!copy)
		return NULL;
	if (amb_hashmap_add(&in->map, h, (uintptr_t)copy, copy)) {
		free(copy);
		return NULL;
	}
	return copy;
}

void ana_intern_free(struct ana_intern *in)
{
	struct amb_hashmap_slot *slot;

	amb_hashmap_for_each(&in->map, slot)
		free(slot->value);
	amb_hashmap_free(&in->map);
}
