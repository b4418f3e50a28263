/* SPDX-License-Identifier: MIT */
/*
 * analyze/view/intern.h - interned strings (intern.c): each distinct string
 * stored once, so that equal strings have equal pointers and compare by
 * pointer.
 */
#ifndef AMB_ANALYZE_INTERN_H
#define AMB_ANALYZE_INTERN_H

#include <stddef.h>

#include "common/hashmap.h"

/* A set of strings; zero-initialise it. */
struct ana_intern {
	struct amb_hashmap map;    /* the strings, each its own key */
};

/* The stored copy of @s (added if new), or NULL on -ENOMEM.  Valid until
 * ana_intern_free(). */
const char *ana_intern(struct ana_intern *in, const char *s);
/* Free every stored string; @in is empty (and reusable) after. */
void ana_intern_free(struct ana_intern *in);

#endif /* AMB_ANALYZE_INTERN_H */
