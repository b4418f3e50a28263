// SPDX-License-Identifier: MIT
/*
 * analyze/view/stacks.c - the stack tree: nodes in one array, found by a
 * hash of (parent, kind, name), so that adding a stack costs one lookup
 * per frame whatever the fan-out.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "analyze/view/stacks.h"
#include "common/hashmap.h"
#include "common/util.h"
#include <amber/common.h>

struct ana_stk_tree {
	struct ana_stk_node *nodes;
	size_t nr, cap;
	struct amb_hashmap children;   /* (parent, kind, name) -> node index + 1 */
};

static uint64_t node_hash(uint32_t parent, enum ana_stk_kind kind, const char *name)
{
	uint64_t seed = (uint64_t)parent << 8 | (uint64_t)kind;

	return XXH3_64bits_withSeed(name, strlen(name), seed);
}

/* Append a node; returns its index or ANA_STK_NONE on -ENOMEM. */
static uint32_t node_new(struct ana_stk_tree *t, uint32_t parent, enum ana_stk_kind kind,
			 const char *name)
{
	struct ana_stk_node *n;

	if (t->nr + 1 >= ANA_STK_NONE ||
	    amb_ensure_cap((void **)&t->nodes, &t->cap, sizeof(*t->nodes), t->nr + 1))
		return ANA_STK_NONE;
	n = &t->nodes[t->nr];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	if (!n->name)
		return ANA_STK_NONE;
	n->kind = kind;
	n->parent = parent;
	n->depth = parent == ANA_STK_NONE ? 0 : t->nodes[parent].depth + 1;
	n->first_child = n->next_sibling = ANA_STK_NONE;
	if (parent != ANA_STK_NONE) {
		/* Newest child first until ana_stk_tree_sort() orders them. */
		n->next_sibling = t->nodes[parent].first_child;
		t->nodes[parent].first_child = (uint32_t)t->nr;
	}
	return (uint32_t)t->nr++;
}

struct ana_stk_tree *ana_stk_tree_new(void)
{
	struct ana_stk_tree *t = calloc(1, sizeof(*t));

	if (!t || node_new(t, ANA_STK_NONE, ANA_STK_OTHER, "") == ANA_STK_NONE) {
		ana_stk_tree_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void ana_stk_tree_free(struct ana_stk_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++)
		free((char *)t->nodes[i].name);
	free(t->nodes);
	amb_hashmap_free(&t->children);
	free(t);
}

/* A child being looked up. */
struct child_key {
	const struct ana_stk_tree *t;
	uint32_t parent;
	const struct ana_stk_frame *f;
};

static bool child_eq(uint64_t stored, const void *key)
{
	const struct child_key *k = key;
	const struct ana_stk_node *n = &k->t->nodes[stored];

	return n->parent == k->parent && n->kind == k->f->kind && !strcmp(n->name, k->f->name);
}

/* The child of @parent named @name of @kind, created if missing. */
static uint32_t child_get(struct ana_stk_tree *t, uint32_t parent, const struct ana_stk_frame *f)
{
	struct child_key k = { t, parent, f };
	uint64_t h = node_hash(parent, f->kind, f->name);
	uintptr_t found = (uintptr_t)amb_hashmap_find(&t->children, h, child_eq, &k);
	uint32_t id;

	/* Values must not be NULL: the map holds index + 1. */
	if (found)
		return (uint32_t)(found - 1);
	id = node_new(t, parent, f->kind, f->name);
	if (id != ANA_STK_NONE &&
	    amb_hashmap_add(&t->children, h, id, (void *)((uintptr_t)id + 1)))
		return ANA_STK_NONE;
	return id;
}

int ana_stk_tree_add_path(struct ana_stk_tree *t, const struct ana_stk_frame *frames, size_t n,
			  unsigned slot, uint64_t weight, uint32_t *leaf)
{
	uint32_t cur = ANA_STK_ROOT;
	size_t i;

	*leaf = ANA_STK_NONE;
	if (slot >= ANA_STK_SLOTS)
		return -EINVAL;
	if (n > ANA_STK_MAX_DEPTH) {
		frames += n - ANA_STK_MAX_DEPTH;
		n = ANA_STK_MAX_DEPTH;
	}
	t->nodes[ANA_STK_ROOT].total[slot] += weight;
	for (i = 0; i < n; i++) {
		cur = child_get(t, cur, &frames[i]);
		if (cur == ANA_STK_NONE)
			return -ENOMEM;
		t->nodes[cur].total[slot] += weight;
	}
	t->nodes[cur].self[slot] += weight;
	*leaf = cur;
	return 0;
}

int ana_stk_tree_add(struct ana_stk_tree *t, const struct ana_stk_frame *frames, size_t n,
		 unsigned slot, uint64_t weight)
{
	uint32_t leaf;

	return ana_stk_tree_add_path(t, frames, n, slot, weight, &leaf);
}

int ana_stk_tree_add_again(struct ana_stk_tree *t, uint32_t leaf, unsigned slot, uint64_t weight)
{
	if (slot >= ANA_STK_SLOTS || leaf >= t->nr)
		return -EINVAL;
	t->nodes[leaf].self[slot] += weight;
	for (uint32_t i = leaf; i != ANA_STK_NONE; i = t->nodes[i].parent)
		t->nodes[i].total[slot] += weight;
	return 0;
}

size_t ana_stk_tree_count(const struct ana_stk_tree *t)
{
	return t->nr;
}

const struct ana_stk_node *ana_stk_tree_node(const struct ana_stk_tree *t, uint32_t i)
{
	assert(i < t->nr);
	return &t->nodes[i];
}

static const struct ana_stk_node *sort_nodes;

static int sibling_cmp(const void *a, const void *b)
{
	const struct ana_stk_node *x = &sort_nodes[*(const uint32_t *)a];
	const struct ana_stk_node *y = &sort_nodes[*(const uint32_t *)b];
	int c;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return (int)x->kind - (int)y->kind;
}

int ana_stk_tree_sort(struct ana_stk_tree *t)
{
	uint32_t *order;
	size_t i, nr = t->nr - 1;

	if (!nr)
		return 0;
	order = malloc(nr * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		order[i] = (uint32_t)i + 1;
	sort_nodes = t->nodes;
	qsort(order, nr, sizeof(*order), sibling_cmp);
	sort_nodes = NULL;
	for (i = 0; i < t->nr; i++)
		t->nodes[i].first_child = ANA_STK_NONE;
	/* Link back to front so that each list ends up in sorted order. */
	for (i = nr; i-- > 0;) {
		struct ana_stk_node *n = &t->nodes[order[i]];

		n->next_sibling = t->nodes[n->parent].first_child;
		t->nodes[n->parent].first_child = order[i];
	}
	free(order);
	return 0;
}

/* A frame of a folded line: ';' separates frames, so it prints as ':';
 * the rest is text from the recording (amb_text_safe_prefix()). */
static int put_folded_name(FILE *f, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		size_t esc, ok = amb_text_safe_prefix(s, len, &esc);

		for (size_t i = 0; i < ok; i++)
			if (putc(s[i] == ';' ? ':' : s[i], f) == EOF)
				return -EIO;
		for (size_t i = 0; i < esc; i++)
			if (fprintf(f, "\\x%02x", (unsigned char)s[ok + i]) < 0)
				return -EIO;
		s += ok + esc;
		len -= ok + esc;
	}
	return 0;
}

int ana_stk_tree_write_folded(const struct ana_stk_tree *t, unsigned slot, FILE *f)
{
	uint32_t *path = NULL, id;
	size_t depth = 0, i;
	int err = 0;

	if (slot >= ANA_STK_SLOTS)
		return -EINVAL;
	path = malloc((ANA_STK_MAX_DEPTH + 1) * sizeof(*path));
	if (!path)
		return -ENOMEM;
	if (t->nodes[ANA_STK_ROOT].self[slot] &&
	    fprintf(f, "[root] %" PRIu64 "\n", t->nodes[ANA_STK_ROOT].self[slot]) < 0) {
		err = -EIO;
		goto out;
	}
	/* Depth-first, without recursion: @path holds the nodes from the
	 * root's child down to the current one. */
	id = t->nodes[ANA_STK_ROOT].first_child;
	while (id != ANA_STK_NONE) {
		const struct ana_stk_node *n = &t->nodes[id];

		path[depth++] = id;
		if (n->self[slot]) {
			for (i = 0; i < depth && !err; i++) {
				if (i && putc(';', f) == EOF)
					err = -EIO;
				if (!err)
					err = put_folded_name(f, t->nodes[path[i]].name);
			}
			if (!err && fprintf(f, " %" PRIu64 "\n", n->self[slot]) < 0)
				err = -EIO;
			if (err)
				goto out;
		}
		if (n->first_child != ANA_STK_NONE && n->total[slot]) {
			id = n->first_child;
			continue;
		}
		/* Up until a node has a next sibling. */
		while (depth && t->nodes[path[depth - 1]].next_sibling == ANA_STK_NONE)
			depth--;
		if (!depth)
			break;
		id = t->nodes[path[--depth]].next_sibling;
	}
	if (ferror(f))
		err = -EIO;
out:
	free(path);
	return err;
}
