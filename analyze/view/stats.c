// SPDX-License-Identifier: MIT
/*
 * analyze/stats.c - significance tests for `diff`: normal and binomial
 * tails, the two-proportion z-test, the conditional test of two Poisson
 * rates, and Holm's correction.  See stats.h for what each one assumes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analyze/view/stats.h"

/* Below this a continued-fraction term counts as converged. */
#define CF_EPS 1e-15
/* Guards the Lentz recurrence against division by zero. */
#define CF_TINY 1e-300

double ana_stats_normal_p2(double z)
{
	if (isnan(z))
		return NAN;
	return erfc(fabs(z) / M_SQRT2);
}

/*
 * One term of the modified Lentz method: fold the partial numerator @num
 * into the recurrences @c and @d and return the factor that multiplies
 * the value (1 once it has converged).
 */
static double lentz_step(double num, double *c, double *d)
{
	*d = 1.0 + num * *d;
	*c = 1.0 + num / *c;
	if (fabs(*d) < CF_TINY)
		*d = CF_TINY;
	if (fabs(*c) < CF_TINY)
		*c = CF_TINY;
	*d = 1.0 / *d;
	return *d * *c;
}

/*
 * The continued fraction of I_x(a, b) (Abramowitz & Stegun 26.5.8),
 * evaluated with the modified Lentz method.  It converges quickly for
 * x < (a + 1) / (a + b + 2); the caller uses the symmetry otherwise.  The
 * number of terms needed grows like sqrt(max(a, b)), so the cap is far
 * beyond any sample count of a recording.
 */
static double beta_cf(double a, double b, double x)
{
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;
	unsigned long m, max_terms = 1000000;

	if (fabs(d) < CF_TINY)
		d = CF_TINY;
	d = 1.0 / d;
	h = d;
	for (m = 1; m <= max_terms; m++) {
		double m2 = 2.0 * (double)m, delta;

		/* The even term d_2m ... */
		h *= lentz_step((double)m * (b - (double)m) * x / ((a + m2 - 1.0) * (a + m2)),
				&c, &d);
		/* ... then the odd term d_2m+1. */
		delta = lentz_step(-(a + (double)m) * (a + b + (double)m) * x /
				   ((a + m2) * (a + m2 + 1.0)), &c, &d);
		h *= delta;
		if (fabs(delta - 1.0) < CF_EPS)
			break;
	}
	return h;
}

double ana_stats_inc_beta(double a, double b, double x)
{
	double lfront;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lfront) * beta_cf(a, b, x) / a;
	return 1.0 - exp(lfront) * beta_cf(b, a, 1.0 - x) / b;
}

double ana_stats_binom_cdf(uint64_t k, uint64_t n, double p)
{
	if (!(p >= 0) || !(p <= 1))
		return NAN;
	if (k >= n)
		return 1.0;
	/* P(X <= k) = I_{1-p}(n - k, k + 1). */
	return ana_stats_inc_beta((double)(n - k), (double)k + 1.0, 1.0 - p);
}

/* P(X >= k) for X ~ Binomial(n, p). */
static double binom_sf_incl(uint64_t k, uint64_t n, double p)
{
	if (k == 0)
		return 1.0;
	if (k > n)
		return 0.0;
	/* P(X >= k) = I_p(k, n - k + 1). */
	return ana_stats_inc_beta((double)k, (double)(n - k) + 1.0, p);
}

double ana_stats_binom_test(uint64_t k, uint64_t n, double p)
{
	double lo, hi;

	if (!(p >= 0) || !(p <= 1) || k > n)
		return NAN;
	if (!n)
		return 1.0;
	lo = ana_stats_binom_cdf(k, n, p);
	hi = binom_sf_incl(k, n, p);
	return fmin(1.0, 2.0 * fmin(lo, hi));
}

double ana_stats_two_prop_test(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2, double *z)
{
	double p1, p2, pool, se, stat;

	if (z)
		*z = 0;
	if (!n1 || !n2 || x1 > n1 || x2 > n2)
		return 1.0;
	p1 = (double)x1 / (double)n1;
	p2 = (double)x2 / (double)n2;
	pool = ((double)x1 + (double)x2) / ((double)n1 + (double)n2);
	se = sqrt(pool * (1.0 - pool) * (1.0 / (double)n1 + 1.0 / (double)n2));
	if (!(se > 0))
		return 1.0;
	stat = (p2 - p1) / se;
	if (z)
		*z = stat;
	return ana_stats_normal_p2(stat);
}

double ana_stats_poisson_rate_test(uint64_t c1, uint64_t c2, double t2_over_t1)
{
	if (!(t2_over_t1 > 0) || isinf(t2_over_t1))
		return NAN;
	if (c1 + c2 == 0)
		return 1.0;
	return ana_stats_binom_test(c2, c1 + c2, t2_over_t1 / (1.0 + t2_over_t1));
}

static const double *holm_p;

static int holm_cmp(const void *a, const void *b)
{
	double x = holm_p[*(const size_t *)a], y = holm_p[*(const size_t *)b];

	/* NaN sorts last, where it does the least harm. */
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return x < y ? -1 : x > y;
}

int ana_stats_holm(const double *p, double *adj, size_t n)
{
	size_t *order = NULL, i;
	double *tmp = NULL, running = 0;
	int err = -ENOMEM;

	if (!n)
		return 0;
	order = malloc(n * sizeof(*order));
	/* A scratch copy of the result: @adj may alias @p. */
	tmp = malloc(n * sizeof(*tmp));
	if (!order || !tmp)
		goto out;
	for (i = 0; i < n; i++)
		order[i] = i;
	holm_p = p;
	qsort(order, n, sizeof(*order), holm_cmp);
	holm_p = NULL;
	/* In ascending order, adj(i) = max over j <= i of min(1, (n - j) p(j)). */
	for (i = 0; i < n; i++) {
		double v = fmin(1.0, (double)(n - i) * p[order[i]]);

		if (isnan(v))
			v = 1.0;
		running = fmax(running, v);
		tmp[order[i]] = running;
	}
	for (i = 0; i < n; i++)
		adj[i] = tmp[i];
	err = 0;
out:
	free(order);
	free(tmp);
	return err;
}
