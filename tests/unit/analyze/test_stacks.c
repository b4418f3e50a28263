// SPDX-License-Identifier: MIT
/* Unit tests for analyze/stacks.c: aggregation, order, folded output. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/view/stacks.h"

#define U(n) { (n), ANA_STK_USER }

/* The child of @parent named @name of @kind, or ANA_STK_NONE. */
static uint32_t child(const struct ana_stk_tree *t, uint32_t parent, const char *name,
		      enum ana_stk_kind kind)
{
	uint32_t c;

	for (c = ana_stk_tree_node(t, parent)->first_child; c != ANA_STK_NONE;
	     c = ana_stk_tree_node(t, c)->next_sibling)
		if (!strcmp(ana_stk_tree_node(t, c)->name, name) && ana_stk_tree_node(t, c)->kind == kind)
			return c;
	return ANA_STK_NONE;
}

static char *folded(const struct ana_stk_tree *t, unsigned slot)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(ana_stk_tree_write_folded(t, slot, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_aggregate(void **state)
{
	const struct ana_stk_frame abc[] = { U("a"), U("b"), U("c") };
	const struct ana_stk_frame ad[] = { U("a"), U("d") };
	const struct ana_stk_frame ak[] = { U("a"), { "d", ANA_STK_KERNEL } };
	struct ana_stk_tree *t = ana_stk_tree_new();
	uint32_t a, b, c, d;

	(void)state;
	assert_non_null(t);
	assert_int_equal(ana_stk_tree_add(t, abc, 3, 0, 1), 0);
	assert_int_equal(ana_stk_tree_add(t, abc, 3, 0, 1), 0);
	assert_int_equal(ana_stk_tree_add(t, abc, 2, 0, 3), 0);
	assert_int_equal(ana_stk_tree_add(t, ad, 2, 0, 1), 0);
	assert_int_equal(ana_stk_tree_add(t, ak, 2, 0, 4), 0);
	assert_int_equal(ana_stk_tree_add(t, abc, 3, 1, 5), 0);
	assert_int_equal(ana_stk_tree_add(t, NULL, 0, 1, 2), 0);
	assert_int_equal(ana_stk_tree_add(t, abc, 3, ANA_STK_SLOTS, 1), -EINVAL);
	assert_int_equal(ana_stk_tree_sort(t), 0);

	/* root, a, b, c, d (user), d (kernel) */
	assert_int_equal(ana_stk_tree_count(t), 6);
	assert_int_equal(ana_stk_tree_node(t, ANA_STK_ROOT)->total[0], 10);
	assert_int_equal(ana_stk_tree_node(t, ANA_STK_ROOT)->total[1], 7);
	assert_int_equal(ana_stk_tree_node(t, ANA_STK_ROOT)->self[1], 2);
	a = child(t, ANA_STK_ROOT, "a", ANA_STK_USER);
	assert_int_not_equal(a, ANA_STK_NONE);
	b = child(t, a, "b", ANA_STK_USER);
	c = child(t, b, "c", ANA_STK_USER);
	d = child(t, a, "d", ANA_STK_USER);
	assert_int_not_equal(c, ANA_STK_NONE);
	assert_int_equal(ana_stk_tree_node(t, a)->total[0], 10);
	assert_int_equal(ana_stk_tree_node(t, a)->self[0], 0);
	assert_int_equal(ana_stk_tree_node(t, b)->total[0], 5);
	assert_int_equal(ana_stk_tree_node(t, b)->self[0], 3);
	assert_int_equal(ana_stk_tree_node(t, c)->total[0], 2);
	assert_int_equal(ana_stk_tree_node(t, c)->total[1], 5);
	assert_int_equal(ana_stk_tree_node(t, c)->depth, 3);
	assert_int_equal(ana_stk_tree_node(t, c)->parent, b);
	assert_int_equal(ana_stk_tree_node(t, d)->total[0], 1);
	/* Same name, other kind: another node. */
	assert_int_equal(ana_stk_tree_node(t, child(t, a, "d", ANA_STK_KERNEL))->total[0], 4);
	/* Sorted: b before d. */
	assert_int_equal(ana_stk_tree_node(t, a)->first_child, b);
	ana_stk_tree_free(t);
	ana_stk_tree_free(NULL);
}

/* Adding a path again from its leaf weighs the same nodes as adding its
 * frames again: two trees, one filled each way, print alike. */
static void test_add_again(void **state)
{
	const struct ana_stk_frame abc[] = { U("a"), U("b"), U("c") };
	const struct ana_stk_frame ad[] = { U("a"), U("d") };
	struct ana_stk_tree *t1 = ana_stk_tree_new(), *t2 = ana_stk_tree_new();
	uint32_t leaf_abc, leaf_ad, leaf_root;
	char *f1, *f2;

	(void)state;
	assert_non_null(t1);
	assert_non_null(t2);
	assert_int_equal(ana_stk_tree_add_path(t1, abc, 3, 0, 1, &leaf_abc), 0);
	assert_int_equal(ana_stk_tree_add_path(t1, ad, 2, 1, 2, &leaf_ad), 0);
	assert_int_equal(ana_stk_tree_add_path(t1, NULL, 0, 0, 3, &leaf_root), 0);
	assert_int_equal(leaf_root, ANA_STK_ROOT);
	assert_string_equal(ana_stk_tree_node(t1, leaf_abc)->name, "c");
	assert_int_equal(ana_stk_tree_add_again(t1, leaf_abc, 0, 4), 0);
	assert_int_equal(ana_stk_tree_add_again(t1, leaf_ad, 0, 5), 0);
	assert_int_equal(ana_stk_tree_add_again(t1, leaf_abc, 1, 6), 0);
	assert_int_equal(ana_stk_tree_add_again(t1, leaf_root, 1, 7), 0);
	assert_int_equal(ana_stk_tree_add_again(t1, leaf_abc, ANA_STK_SLOTS, 1), -EINVAL);
	assert_int_equal(ana_stk_tree_add_again(t1, 99, 0, 1), -EINVAL);
	assert_int_equal(ana_stk_tree_add_path(t1, abc, 3, ANA_STK_SLOTS, 1, &leaf_abc), -EINVAL);
	assert_int_equal(leaf_abc, ANA_STK_NONE);

	assert_int_equal(ana_stk_tree_add(t2, abc, 3, 0, 1), 0);
	assert_int_equal(ana_stk_tree_add(t2, ad, 2, 1, 2), 0);
	assert_int_equal(ana_stk_tree_add(t2, NULL, 0, 0, 3), 0);
	assert_int_equal(ana_stk_tree_add(t2, abc, 3, 0, 4), 0);
	assert_int_equal(ana_stk_tree_add(t2, ad, 2, 0, 5), 0);
	assert_int_equal(ana_stk_tree_add(t2, abc, 3, 1, 6), 0);
	assert_int_equal(ana_stk_tree_add(t2, NULL, 0, 1, 7), 0);
	assert_int_equal(ana_stk_tree_sort(t1), 0);
	assert_int_equal(ana_stk_tree_sort(t2), 0);
	for (unsigned slot = 0; slot < 2; slot++) {
		f1 = folded(t1, slot);
		f2 = folded(t2, slot);
		assert_string_equal(f1, f2);
		free(f1);
		free(f2);
		assert_int_equal(ana_stk_tree_node(t1, ANA_STK_ROOT)->total[slot],
				 ana_stk_tree_node(t2, ANA_STK_ROOT)->total[slot]);
		assert_int_equal(ana_stk_tree_node(t1, ANA_STK_ROOT)->self[slot],
				 ana_stk_tree_node(t2, ANA_STK_ROOT)->self[slot]);
	}
	ana_stk_tree_free(t1);
	ana_stk_tree_free(t2);
}

static void test_folded(void **state)
{
	const struct ana_stk_frame abc[] = { U("a"), U("b"), U("c") };
	const struct ana_stk_frame ad[] = { U("a"), U("d") };
	const struct ana_stk_frame odd[] = { U("x;y"), U("new\nline") };
	struct ana_stk_tree *t = ana_stk_tree_new();
	char *s;

	(void)state;
	assert_non_null(t);
	/* Added out of order: the output follows the sorted tree. */
	assert_int_equal(ana_stk_tree_add(t, ad, 2, 0, 1), 0);
	assert_int_equal(ana_stk_tree_add(t, abc, 3, 0, 2), 0);
	assert_int_equal(ana_stk_tree_add(t, abc, 2, 0, 3), 0);
	assert_int_equal(ana_stk_tree_add(t, odd, 2, 0, 7), 0);
	assert_int_equal(ana_stk_tree_add(t, abc, 1, 1, 9), 0);
	assert_int_equal(ana_stk_tree_sort(t), 0);
	s = folded(t, 0);
	assert_string_equal(s, "a;b 3\na;b;c 2\na;d 1\nx:y;new\\x0aline 7\n");
	free(s);
	s = folded(t, 1);
	assert_string_equal(s, "a 9\n");
	free(s);
	assert_int_equal(ana_stk_tree_write_folded(t, 2, stdout), -EINVAL);
	ana_stk_tree_free(t);
}

static void test_folded_sums(void **state)
{
	struct ana_stk_tree *t = ana_stk_tree_new();
	struct ana_stk_frame f[6];
	char names[6][8], *s, *line, *save = NULL;
	uint64_t sum = 0, expect = 0;
	unsigned i, j;

	(void)state;
	assert_non_null(t);
	/* Pseudo-random stacks over a small alphabet: many shared prefixes. */
	srand(42);
	for (i = 0; i < 2000; i++) {
		unsigned depth = 1 + (unsigned)rand() % 6;
		uint64_t w = 1 + (unsigned)rand() % 5;

		for (j = 0; j < depth; j++) {
			snprintf(names[j], sizeof(names[j]), "f%d", rand() % 4);
			f[j].name = names[j];
			f[j].kind = ANA_STK_USER;
		}
		assert_int_equal(ana_stk_tree_add(t, f, depth, 0, w), 0);
		expect += w;
	}
	assert_int_equal(ana_stk_tree_sort(t), 0);
	assert_int_equal(ana_stk_tree_node(t, ANA_STK_ROOT)->total[0], expect);
	s = folded(t, 0);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		sum += strtoull(strrchr(line, ' ') + 1, NULL, 10);
	assert_int_equal(sum, expect);
	free(s);
	ana_stk_tree_free(t);
}

static void test_depth_cap_and_growth(void **state)
{
	struct ana_stk_tree *t = ana_stk_tree_new();
	size_t n = ANA_STK_MAX_DEPTH + 10, i;
	struct ana_stk_frame *f = calloc(n, sizeof(*f));
	char (*names)[16] = calloc(n, sizeof(*names));
	uint32_t first;

	(void)state;
	assert_non_null(t);
	assert_non_null(f);
	assert_non_null(names);
	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "d%zu", i);
		f[i].name = names[i];
		f[i].kind = ANA_STK_USER;
	}
	assert_int_equal(ana_stk_tree_add(t, f, n, 0, 1), 0);
	assert_int_equal(ana_stk_tree_count(t), ANA_STK_MAX_DEPTH + 1);
	/* The outermost frames were dropped: the leaf is kept. */
	first = ana_stk_tree_node(t, ANA_STK_ROOT)->first_child;
	assert_string_equal(ana_stk_tree_node(t, first)->name, "d10");
	assert_string_equal(ana_stk_tree_node(t, (uint32_t)ANA_STK_MAX_DEPTH)->name, names[n - 1]);
	ana_stk_tree_free(t);

	/* Wide fan-out: the hash grows, and re-adding creates nothing. */
	t = ana_stk_tree_new();
	assert_non_null(t);
	for (unsigned round = 0; round < 2; round++)
		for (i = 0; i < n; i++)
			assert_int_equal(ana_stk_tree_add(t, &f[i], 1, 0, 1), 0);
	assert_int_equal(ana_stk_tree_count(t), n + 1);
	assert_int_equal(ana_stk_tree_node(t, ANA_STK_ROOT)->total[0], 2 * n);
	ana_stk_tree_free(t);
	free(f);
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_add_again),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_folded_sums),
		cmocka_unit_test(test_depth_cap_and_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
