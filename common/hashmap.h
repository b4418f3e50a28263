/* SPDX-License-Identifier: MIT */
/*
 * common/hashmap.h - the one hash map of amber's tools.
 *
 * Open addressing with linear probing over (hash, key, value) slots.  The
 * caller computes the hash (amb_hash_u64(), XXH3 for byte strings) and owns
 * keys and values: a slot stores a 64-bit key word, either the key itself
 * (a thread id, an address) or a pointer to it, and a non-NULL value
 * pointer.  Lookups compare the stored hash first, then the key word
 * (amb_hashmap_find_u64) or what an equality callback says
 * (amb_hashmap_find); both are inline so that a callback known at compile
 * time is inlined too.  The table doubles at half load, so a probe
 * sequence is short; entries are never removed one by one, only all at once
 * (amb_hashmap_clear), which is what every user needs.
 *
 * A zeroed struct amb_hashmap is an empty map; amb_hashmap_free() releases
 * the table (never the keys or values) and accepts an empty map.
 */
#ifndef AMB_COMMON_HASHMAP_H
#define AMB_COMMON_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct amb_hashmap_slot {
	uint64_t hash;
	uint64_t key;
	void *value;          /* NULL: the slot is free */
};

struct amb_hashmap {
	struct amb_hashmap_slot *slots;
	size_t cap;           /* 0 or a power of two */
	size_t nr;
};

/* A well-mixed hash of a 64-bit integer (the splitmix64 finaliser). */
static inline uint64_t amb_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * A hash of the @n words at @w, for keys of a few words (the stack memos
 * of report and flame): four independent lanes of multiplications, then
 * amb_hash_u64(), several times cheaper there than XXH3 on their bytes.
 * Only for spreading a map's buckets.
 */
static inline uint64_t amb_hash_words(const uint64_t *w, size_t n)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t lane[4] = { n, 1, 2, 3 };
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		lane[0] = (lane[0] ^ w[i]) * k;
		lane[1] = (lane[1] ^ w[i + 1]) * k;
		lane[2] = (lane[2] ^ w[i + 2]) * k;
		lane[3] = (lane[3] ^ w[i + 3]) * k;
	}
	for (; i < n; i++)
		lane[i % 4] = (lane[i % 4] ^ w[i]) * k;
	return amb_hash_u64(lane[0] ^ (lane[1] << 1 | lane[1] >> 63) ^
			    (lane[2] << 2 | lane[2] >> 62) ^ (lane[3] << 3 | lane[3] >> 61));
}

/* True when the stored key word @stored matches the looked-up @key. */
typedef bool (*amb_hashmap_eq_fn)(uint64_t stored, const void *key);

/* The value stored under @hash whose key word equals @key, or NULL. */
static inline void *amb_hashmap_find_u64(const struct amb_hashmap *m, uint64_t hash,
					 uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = hash & (m->cap - 1); m->slots[i].value; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].hash == hash && m->slots[i].key == key)
			return m->slots[i].value;
	return NULL;
}

/* The value stored under @hash whose key word @eq accepts for @key, or NULL. */
static inline void *amb_hashmap_find(const struct amb_hashmap *m, uint64_t hash,
				     amb_hashmap_eq_fn eq, const void *key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = hash & (m->cap - 1); m->slots[i].value; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].hash == hash && eq(m->slots[i].key, key))
			return m->slots[i].value;
	return NULL;
}

/*
 * Store @value (not NULL) under @hash and key word @key.  The caller has
 * made sure the key is not there yet (a second entry would shadow nothing:
 * lookups find the first).  Returns 0, or -ENOMEM with the map unchanged.
 */
int amb_hashmap_add(struct amb_hashmap *m, uint64_t hash, uint64_t key, void *value);

/*
 * Store @value (not NULL) under @hash and the integer key @key, replacing
 * the value already stored under that key word if any; *@old (may be
 * NULL) receives the replaced value, or NULL.  Returns 0, or -ENOMEM with
 * the map unchanged.
 */
int amb_hashmap_put_u64(struct amb_hashmap *m, uint64_t hash, uint64_t key, void *value,
			void **old);

/* Number of entries. */
static inline size_t amb_hashmap_count(const struct amb_hashmap *m)
{
	return m->nr;
}

/* Forget every entry, keeping the table's memory. */
void amb_hashmap_clear(struct amb_hashmap *m);

/* Free the table (not the keys or values); @m is an empty map after. */
void amb_hashmap_free(struct amb_hashmap *m);

/* Visit every slot in use as @slot (a struct amb_hashmap_slot *), in table
 * order; the map must not change during the walk. */
#define amb_hashmap_for_each(m, slot)                                         \
	for ((slot) = (m)->slots; (slot) && (slot) < (m)->slots + (m)->cap; (slot)++) \
		if ((slot)->value)

#endif /* AMB_COMMON_HASHMAP_H */
