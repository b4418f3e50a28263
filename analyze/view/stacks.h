/* SPDX-License-Identifier: MIT */
/*
 * analyze/stacks.h - a tree of stacks keyed by frame names: the
 * aggregation behind flame graphs, folded stacks and `diff`.
 *
 * Stacks are added root first; equal paths (same names and kinds, frame by
 * frame) share nodes.  Every node keeps, per slot, the weight of the stacks
 * through it (total) and of those ending at it (self).  Two slots let one
 * tree hold two recordings (diff: slot 0 the base, slot 1 the new one) so
 * that a path is matched by its names, never by addresses.
 *
 * Node 0 is the root (no name): its total is the weight of everything.
 */
#ifndef AMB_ANALYZE_STACKS_H
#define AMB_ANALYZE_STACKS_H

#include <stdint.h>
#include <stdio.h>

#define ANA_STK_SLOTS 2
#define ANA_STK_NONE UINT32_MAX
#define ANA_STK_ROOT 0u
/* Stacks deeper than this are cut at their outermost frames. */
#define ANA_STK_MAX_DEPTH 4096u

/* What a frame is; flame graphs colour by it (flame_svg.h). */
enum ana_stk_kind {
	ANA_STK_USER = 0,    /* a user-space function */
	ANA_STK_KERNEL,      /* a kernel function */
	ANA_STK_INLINE,      /* a function inlined into the next frame out */
	ANA_STK_UNKNOWN,     /* no symbol: unknown address, no ELF, stale build-id */
	ANA_STK_OTHER,       /* not code: the root, a command name */
};

/* One frame of a stack to add: @name is copied. */
struct ana_stk_frame {
	const char *name;
	enum ana_stk_kind kind;
};

/* A node, read-only to users of the tree. */
struct ana_stk_node {
	const char *name;                 /* "" for the root */
	enum ana_stk_kind kind;
	uint32_t parent;                  /* ANA_STK_NONE for the root */
	uint32_t depth;                   /* 0 for the root */
	uint32_t first_child, next_sibling; /* ANA_STK_NONE at the end */
	uint64_t total[ANA_STK_SLOTS];
	uint64_t self[ANA_STK_SLOTS];
};

struct ana_stk_tree;

/* An empty tree (just the root).  NULL with errno = ENOMEM.  Free with
 * ana_stk_tree_free() (NULL accepted). */
struct ana_stk_tree *ana_stk_tree_new(void);
void ana_stk_tree_free(struct ana_stk_tree *t);

/*
 * Add @weight in @slot along @frames[0..n), outermost first (n = 0 adds to
 * the root's self weight).  At most ANA_STK_MAX_DEPTH frames are used: deeper
 * stacks lose their outermost ones.  Returns 0, -EINVAL for a bad slot,
 * -ENOMEM.  Node pointers obtained before the call may be invalidated.
 */
int ana_stk_tree_add(struct ana_stk_tree *t, const struct ana_stk_frame *frames, size_t n,
		 unsigned slot, uint64_t weight);

/*
 * ana_stk_tree_add(), and the node the path ends at (the root for n = 0)
 * in *@leaf, for ana_stk_tree_add_again().  Errors as ana_stk_tree_add();
 * *@leaf is ANA_STK_NONE then.
 */
int ana_stk_tree_add_path(struct ana_stk_tree *t, const struct ana_stk_frame *frames, size_t n,
			  unsigned slot, uint64_t weight, uint32_t *leaf);

/*
 * Add @weight in @slot along the path from the root to node @leaf (from
 * ana_stk_tree_add_path()), exactly as adding the same frames again would,
 * without looking them up.  Returns 0, -EINVAL for a bad slot or node.
 */
int ana_stk_tree_add_again(struct ana_stk_tree *t, uint32_t leaf, unsigned slot, uint64_t weight);

/* Number of nodes, the root included. */
size_t ana_stk_tree_count(const struct ana_stk_tree *t);

/* Node @i (0 <= i < ana_stk_tree_count()); valid until the next ana_stk_tree_add(). */
const struct ana_stk_node *ana_stk_tree_node(const struct ana_stk_tree *t, uint32_t i);

/*
 * Order every node's children by name (then kind), as flame graphs draw
 * them; first_child/next_sibling follow this order afterwards.  Returns 0
 * or -ENOMEM.
 */
int ana_stk_tree_sort(struct ana_stk_tree *t);

/*
 * Write the folded stacks of @slot to @f: one line per node with a self
 * weight, "outer;...;inner WEIGHT", in the tree's child order (sort first
 * for a stable output).  ';' in a name is written as ':', and control
 * characters as '?', so that every line parses back.  The weights of the
 * lines add up to the root's total.  Returns 0, -EINVAL for a bad slot,
 * -EIO when a write fails, -ENOMEM.
 */
int ana_stk_tree_write_folded(const struct ana_stk_tree *t, unsigned slot, FILE *f);

#endif /* AMB_ANALYZE_STACKS_H */
