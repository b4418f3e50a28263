// SPDX-License-Identifier: MIT
/*
 * Unit tests for analyze/stats.c, against values computed independently
 * (exact binomial sums, R's prop.test / binom.test / p.adjust).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyze/view/stats.h"

#define assert_close(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

static void test_normal(void **state)
{
	(void)state;
	assert_close(ana_stats_normal_p2(0), 1.0, 1e-12);
	assert_close(ana_stats_normal_p2(1.959963985), 0.05, 1e-8);
	assert_close(ana_stats_normal_p2(-1.959963985), 0.05, 1e-8);
	assert_close(ana_stats_normal_p2(3.290526731), 0.001, 1e-9);
	assert_true(isnan(ana_stats_normal_p2(NAN)));
}

static void test_inc_beta(void **state)
{
	(void)state;
	/* I_0.4(2, 3) = P(Binomial(4, 0.4) >= 2). */
	assert_close(ana_stats_inc_beta(2, 3, 0.4), 0.5248, 1e-12);
	/* I_x(1, 1) = x; the symmetry I_x(a, b) = 1 - I_{1-x}(b, a). */
	assert_close(ana_stats_inc_beta(1, 1, 0.3), 0.3, 1e-12);
	assert_close(ana_stats_inc_beta(5, 7, 0.8), 1 - ana_stats_inc_beta(7, 5, 0.2), 1e-12);
	assert_close(ana_stats_inc_beta(3, 4, 0), 0, 0);
	assert_close(ana_stats_inc_beta(3, 4, 1), 1, 0);
	assert_true(isnan(ana_stats_inc_beta(0, 1, 0.5)));
	assert_true(isnan(ana_stats_inc_beta(1, 1, 1.5)));
}

static void test_binom(void **state)
{
	(void)state;
	assert_close(ana_stats_binom_cdf(3, 10, 0.3), 0.6496107184, 1e-9);
	assert_close(ana_stats_binom_cdf(10, 10, 0.3), 1.0, 0);
	/* Far in a tail of a large n: exact sum over i <= 4900. */
	assert_close(ana_stats_binom_cdf(4900, 10000, 0.5), 0.0232927638522, 1e-9);
	assert_true(isnan(ana_stats_binom_cdf(1, 2, -0.1)));

	/* binom.test(7, 10): 2 * 176 / 1024. */
	assert_close(ana_stats_binom_test(7, 10, 0.5), 0.34375, 1e-12);
	assert_close(ana_stats_binom_test(3, 10, 0.5), 0.34375, 1e-12);
	assert_close(ana_stats_binom_test(60, 100, 0.5), 0.05688793364, 1e-9);
	assert_close(ana_stats_binom_test(0, 10, 0.5), 0.001953125, 1e-12);
	assert_close(ana_stats_binom_test(5000, 10000, 0.5), 1.0, 0);
	assert_close(ana_stats_binom_test(0, 0, 0.5), 1.0, 0);
	assert_true(isnan(ana_stats_binom_test(11, 10, 0.5)));
}

static void test_two_prop(void **state)
{
	double z;

	(void)state;
	/* prop.test(c(45, 60), c(100, 100), correct = FALSE). */
	assert_close(ana_stats_two_prop_test(45, 100, 60, 100, &z), 0.03367206886, 1e-9);
	assert_close(z, 2.123976976, 1e-8);
	assert_close(ana_stats_two_prop_test(60, 100, 45, 100, &z), 0.03367206886, 1e-9);
	assert_close(z, -2.123976976, 1e-8);
	/* Equal shares of different totals: no evidence at all. */
	assert_close(ana_stats_two_prop_test(100, 1000, 300, 3000, &z), 1.0, 1e-12);
	/* Degenerate: empty sample, or no variance. */
	assert_close(ana_stats_two_prop_test(0, 0, 5, 10, NULL), 1.0, 0);
	assert_close(ana_stats_two_prop_test(0, 10, 0, 20, NULL), 1.0, 0);
	assert_close(ana_stats_two_prop_test(10, 10, 20, 20, NULL), 1.0, 0);
	assert_close(ana_stats_two_prop_test(11, 10, 20, 20, NULL), 1.0, 0);
}

static void test_poisson(void **state)
{
	(void)state;
	/* poisson.test(c(30, 10)): binom.test(30, 40). */
	assert_close(ana_stats_poisson_rate_test(10, 30, 1.0), 0.002221433773, 1e-9);
	assert_close(ana_stats_poisson_rate_test(30, 10, 1.0), 0.002221433773, 1e-9);
	assert_close(ana_stats_poisson_rate_test(500, 500, 1.0), 1.0, 1e-12);
	assert_close(ana_stats_poisson_rate_test(0, 0, 1.0), 1.0, 0);
	/* Twice the exposure: 20 against 40 is what equal rates give. */
	assert_true(ana_stats_poisson_rate_test(20, 40, 2.0) > 0.9);
	assert_true(ana_stats_poisson_rate_test(20, 40, 1.0) < 0.02);
	assert_true(isnan(ana_stats_poisson_rate_test(1, 2, 0)));
}

static void test_holm(void **state)
{
	/* p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm"). */
	double p[] = { 0.01, 0.04, 0.03, 0.005 }, adj[4];
	double same[] = { 0.5, 0.9, 0.2 };

	(void)state;
	assert_int_equal(ana_stats_holm(p, adj, 4), 0);
	assert_close(adj[0], 0.03, 1e-12);
	assert_close(adj[1], 0.06, 1e-12);
	assert_close(adj[2], 0.06, 1e-12);
	assert_close(adj[3], 0.02, 1e-12);
	/* In place, capped at 1: 0.2*3 = 0.6, max(0.6, 0.5*2) = 1, then 1. */
	assert_int_equal(ana_stats_holm(same, same, 3), 0);
	assert_close(same[0], 1.0, 1e-12);
	assert_close(same[1], 1.0, 1e-12);
	assert_close(same[2], 0.6, 1e-12);
	assert_int_equal(ana_stats_holm(NULL, NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normal),   cmocka_unit_test(test_inc_beta),
		cmocka_unit_test(test_binom),    cmocka_unit_test(test_two_prop),
		cmocka_unit_test(test_poisson),  cmocka_unit_test(test_holm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
