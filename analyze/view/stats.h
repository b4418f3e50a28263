/* SPDX-License-Identifier: MIT */
/*
 * analyze/stats.h - the significance tests behind `amber-analyze diff`.
 *
 * Two samples of a profile are compared one row (symbol) at a time:
 *  - by share: a row holds x1 of n1 samples in the base run and x2 of n2 in
 *    the new one; the two-proportion z-test (pooled, no continuity
 *    correction, as R's prop.test(correct = FALSE)) asks whether the two
 *    shares differ;
 *  - by count (--absolute): the counts c1, c2 of a row are taken as Poisson
 *    with rates r1, r2 over exposures t1, t2 (equal run durations and
 *    sampling rates give t2/t1 = 1).  Given c1 + c2, c2 is binomial with
 *    p = r2 t2 / (r1 t1 + r2 t2), which is t2 / (t1 + t2) when r1 = r2: the
 *    exact conditional binomial test of equal rates.
 * Every row is a test: Holm-Bonferroni adjusts the p-values for their number.
 *
 * Pure functions of their arguments; nothing here allocates but
 * ana_stats_holm().
 */
#ifndef AMB_ANALYZE_STATS_H
#define AMB_ANALYZE_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Two-sided p-value of a standard normal statistic @z: P(|Z| >= |z|). */
double ana_stats_normal_p2(double z);

/*
 * Regularized incomplete beta function I_x(a, b) for a, b > 0 and
 * 0 <= x <= 1, by its continued fraction.  NaN for arguments outside
 * that domain.
 */
double ana_stats_inc_beta(double a, double b, double x);

/* P(X <= k) for X ~ Binomial(n, p).  NaN when p is not in [0, 1]. */
double ana_stats_binom_cdf(uint64_t k, uint64_t n, double p);

/*
 * Exact two-sided binomial test of @k successes in @n trials against
 * success probability @p: min(1, 2 min(P(X <= k), P(X >= k))), the
 * doubling rule (equal to R's binom.test when p = 0.5).  1 when n = 0.
 */
double ana_stats_binom_test(uint64_t k, uint64_t n, double p);

/*
 * Two-proportion z-test of x1/n1 against x2/n2 (pooled variance).
 * Stores the statistic in *z (positive when the second share is larger;
 * may be NULL) and returns the two-sided p-value; 1 when a sample is
 * empty or the pooled share is 0 or 1 (no variance: nothing to tell).
 */
double ana_stats_two_prop_test(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2, double *z);

/*
 * Conditional binomial test that counts @c1 and @c2 come from Poisson
 * processes of equal rate over exposures in the ratio @t2_over_t1 (> 0;
 * 1 for runs of equal duration and sampling rate).  Returns the two-sided
 * p-value; 1 when both counts are 0; NaN for a ratio <= 0.
 */
double ana_stats_poisson_rate_test(uint64_t c1, uint64_t c2, double t2_over_t1);

/*
 * Holm-Bonferroni step-down adjustment of @n p-values: @adj[i] is the
 * adjusted value of @p[i] (the order is kept; @adj may be @p).  Returns 0
 * or -ENOMEM.
 */
int ana_stats_holm(const double *p, double *adj, size_t n);

#endif /* AMB_ANALYZE_STATS_H */
