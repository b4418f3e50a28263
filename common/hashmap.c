// SPDX-License-Identifier: MIT
/* common/hashmap.c - growing and clearing the open-addressing hash map. */
#include "common/hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void put_slot(struct amb_hashmap_slot *slots, size_t cap, uint64_t hash, uint64_t key,
		     void *value)
{
	size_t i;

	for (i = hash & (cap - 1); slots[i].value; i = (i + 1) & (cap - 1))
		;
	slots[i].hash = hash;
	slots[i].key = key;
	slots[i].value = value;
}

int amb_hashmap_add(struct amb_hashmap *m, uint64_t hash, uint64_t key, void *value)
{
	if ((m->nr + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64, i;
		struct amb_hashmap_slot *slots;

		if (cap > SIZE_MAX / sizeof(*slots))
			return -ENOMEM;
		slots = calloc(cap, sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		for (i = 0; i < m->cap; i++)
			if (m->slots[i].value)
				put_slot(slots, cap, m->slots[i].hash, m->slots[i].key,
					 m->slots[i].value);
		free(m->slots);
		m->slots = slots;
		m->cap = cap;
	}
	put_slot(m->slots, m->cap, hash, key, value);
	m->nr++;
	return 0;
}

int amb_hashmap_put_u64(struct amb_hashmap *m, uint64_t hash, uint64_t key, void *value,
			void **old)
{
	size_t i;

	if (old)
		*old = NULL;
	if (m->cap) {
		for (i = hash & (m->cap - 1); m->slots[i].value; i = (i + 1) & (m->cap - 1)) {
			if (m->slots[i].hash == hash && m->slots[i].key == key) {
				if (old)
					*old = m->slots[i].value;
				m->slots[i].value = value;
				return 0;
			}
		}
	}
	return amb_hashmap_add(m, hash, key, value);
}

void amb_hashmap_clear(struct amb_hashmap *m)
{
	if (m->slots)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->nr = 0;
}

void amb_hashmap_free(struct amb_hashmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->nr = 0;
}
