/* test_report.c - the statistics of ./report (study/stats.c), against values worked out by hand. */
#include "test.h"

#include "../study/stats.h"

#include <math.h>

static bool near(double a, double b, double tol) { return fabs(a - b) <= tol; }

static void test_mean_and_sd(void)
{
    double x[5] = {0.70, 0.72, 0.74, 0.76, 0.78};
    /* mean 0.74; deviations -0.04 -0.02 0 0.02 0.04, squares sum 0.004, / (n - 1) = 0.001 */
    CHECK(near(stats_mean(x, 5), 0.74, 1e-12), "mean %.15g", stats_mean(x, 5));
    CHECK(near(stats_sd(x, 5), sqrt(0.001), 1e-12), "sd %.15g, want %.15g", stats_sd(x, 5), sqrt(0.001));
    CHECK(isnan(stats_mean(x, 0)), "the mean of nothing is NAN, not 0");
    CHECK(isnan(stats_sd(x, 1)), "the sd of one value is NAN, not 0");
    /* two passes: values close together keep their digits (a one-pass sum of squares would not) */
    double y[3] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    CHECK(near(stats_sd(y, 3), 1, 1e-9), "sd of 1e9 + {1, 2, 3} = %.12g, want 1", stats_sd(y, 3));
}

static void test_t_table(void)
{
    CHECK(near(stats_t975(1), 12.706, 5e-4), "t(1) = %g", stats_t975(1));
    CHECK(near(stats_t975(2), 4.303, 5e-4), "t(2) = %g", stats_t975(2));
    CHECK(near(stats_t975(4), 2.776, 5e-4), "t(4) = %g", stats_t975(4));
    CHECK(near(stats_t975(9), 2.262, 5e-4), "t(9) = %g", stats_t975(9));
    CHECK(near(stats_t975(30), 2.042, 5e-4), "t(30) = %g", stats_t975(30));
    CHECK(near(stats_t975(31), 1.960, 5e-4) && near(stats_t975(1000), 1.960, 5e-4), "beyond 30: the normal 1.960");
    CHECK(isnan(stats_t975(0)) && isnan(stats_t975(-3)), "df < 1 has no quantile");
    for (int df = 1; df < 40; df++) /* the quantile falls towards the normal one as df grows */
        CHECK(stats_t975(df + 1) <= stats_t975(df), "t(%d) = %g > t(%d) = %g", df + 1, stats_t975(df + 1), df, stats_t975(df));
}

static void test_ci95(void)
{
    /* n = 5: half = t(4) sd / sqrt(5) = 2.776445 * 0.0316228 / 2.236068 = 0.039265 */
    double x[5] = {0.70, 0.72, 0.74, 0.76, 0.78};
    StatsCi c = stats_ci95(x, 5);
    CHECK(c.defined && c.n == 5, "defined, n = 5");
    CHECK(near(c.mean, 0.74, 1e-12), "mean %g", c.mean);
    CHECK(near(c.half, 0.039265, 1e-6), "half-width %.7f, want 0.039265", c.half);
    CHECK(near(c.lo, 0.74 - 0.039265, 1e-6) && near(c.hi, 0.74 + 0.039265, 1e-6), "[%g, %g]", c.lo, c.hi);
    /* n = 2: {0, 1}: sd = sqrt(0.5), half = 12.706 * sqrt(0.5) / sqrt(2) = 6.353 */
    double two[2] = {0, 1};
    c = stats_ci95(two, 2);
    CHECK(near(c.half, 12.7062047 / 2, 1e-6), "n = 2: half %.7f, want 6.3531", c.half);
    /* n = 1: the mean is known, the interval is not (not a zero-width one) */
    double one[1] = {0.5};
    c = stats_ci95(one, 1);
    CHECK(!c.defined && c.n == 1 && c.mean == 0.5 && isnan(c.half) && isnan(c.lo) && isnan(c.hi), "n = 1: no interval");
    c = stats_ci95(one, 0);
    CHECK(!c.defined && c.n == 0 && isnan(c.mean), "n = 0: no mean");
    /* identical values: a zero-width interval, which is defined */
    double same[3] = {1, 1, 1};
    c = stats_ci95(same, 3);
    CHECK(c.defined && c.half == 0 && c.mean == 1, "equal values: mean 1 +- 0");
}

static void test_paired_differences(void)
{
    /* a: seeds 3 1 2 5, b: seeds 1 2 3 4: the common seeds 1 2 3, in that order */
    long sa[4] = {3, 1, 2, 5}, sb[4] = {1, 2, 3, 4};
    double a[4] = {0.90, 0.70, 0.85, 0.10}, b[4] = {0.50, 0.60, 0.70, 0.99};
    double d[8];
    int n = stats_paired(sa, a, 4, sb, b, 4, d, 4);
    CHECK(n == 3, "3 common seeds, got %d", n);
    CHECK(n == 3 && near(d[0], 0.20, 1e-12) && near(d[1], 0.25, 1e-12) && near(d[2], 0.20, 1e-12),
          "differences by seed 0.20 0.25 0.20, got %g %g %g", d[0], d[1], d[2]);
    /* mean 0.216667; deviations -1/60 1/30 -1/60 -> ss = 1/600, var = 1/1200, sd = 0.0288675;
     * half = t(2) sd / sqrt(3) = 4.302653 * 0.0166667 = 0.0717109 */
    StatsCi c = stats_ci95(d, n);
    CHECK(near(c.mean, 0.65 / 3, 1e-12), "mean difference %.7f", c.mean);
    CHECK(near(c.half, 4.30265273 * sqrt(1.0 / 1200) / sqrt(3.0), 1e-9) && near(c.half, 0.0717109, 1e-6), "half %.7f", c.half);
    CHECK(stats_verdict(c) == VERDICT_HIGHER, "the interval [%.3f, %.3f] is above 0: higher", c.lo, c.hi);
    /* the other way round: lower */
    n = stats_paired(sb, b, 4, sa, a, 4, d, 4);
    CHECK(n == 3 && stats_verdict(stats_ci95(d, n)) == VERDICT_LOWER, "b - a: lower");
    /* pairing, not pooling: a constant offset over very different seeds is clearly detected */
    long s5[5] = {1, 2, 3, 4, 5};
    double base[5] = {0.2, 0.9, 0.5, 0.7, 0.3}, plus[5];
    for (int i = 0; i < 5; i++) plus[i] = base[i] + 0.01 + 0.001 * (i % 2);
    n = stats_paired(s5, plus, 5, s5, base, 5, d, 5);
    CHECK(n == 5 && stats_verdict(stats_ci95(d, n)) == VERDICT_HIGHER, "a paired offset of 0.01 is seen");
    /* a difference whose interval holds 0 */
    double noisy[5] = {0.25, 0.85, 0.55, 0.65, 0.35};
    n = stats_paired(s5, noisy, 5, s5, base, 5, d, 5);
    CHECK(n == 5 && stats_verdict(stats_ci95(d, n)) == VERDICT_NOT_DISTINCT, "+-0.05 noise: not distinguishable");
    /* one common seed: no interval, no verdict */
    long s1[1] = {2};
    double v1[1] = {0.3};
    n = stats_paired(s1, v1, 1, s5, base, 5, d, 5);
    CHECK(n == 1 && near(d[0], 0.3 - 0.9, 1e-12) && stats_verdict(stats_ci95(d, n)) == VERDICT_UNDEFINED, "n = 1: undefined");
    /* no common seed */
    long s9[1] = {9};
    CHECK(stats_paired(s9, v1, 1, s5, base, 5, d, 5) == 0, "no common seed: 0 differences");
    /* a seed listed twice counts once */
    long dup[3] = {1, 1, 2};
    double vd[3] = {0.5, 0.9, 0.5};
    n = stats_paired(dup, vd, 3, s5, base, 5, d, 5);
    CHECK(n == 2 && near(d[0], 0.5 - 0.2, 1e-12), "a repeated seed: its first value, once (n = %d)", n);
}

static void test_binomial_error(void)
{
    CHECK(near(stats_binomial_se(0.5, 1000), 0.5 / sqrt(1000), 1e-12), "p = 0.5, N = 1000: 0.0158");
    CHECK(near(stats_binomial_se(0.9, 256), sqrt(0.09 / 256), 1e-12), "p = 0.9, N = 256: 0.01875");
    CHECK(stats_binomial_se(1, 100) == 0 && stats_binomial_se(0, 100) == 0, "p = 0 or 1: 0");
    for (double p = 0; p <= 1; p += 0.05)
        CHECK(stats_binomial_se(p, 1000) <= stats_binomial_se(0.5, 1000) + 1e-15, "p = %g: above the p = 0.5 maximum", p);
    CHECK(isnan(stats_binomial_se(0.5, 0)) && isnan(stats_binomial_se(1.5, 10)) && isnan(stats_binomial_se(NAN, 10)),
          "N = 0, p outside [0, 1]: NAN");
}

static void test_quantile(void)
{
    double x[5] = {5, 1, 4, 2, 3};
    CHECK(stats_quantile(x, 5, 0.5) == 3, "median of 1..5 = 3");
    CHECK(x[0] == 1 && x[4] == 5, "sorted in place");
    CHECK(stats_quantile(x, 5, 0) == 1 && stats_quantile(x, 5, 1) == 5, "q = 0, 1: the extremes");
    CHECK(near(stats_quantile(x, 5, 0.1), 1.4, 1e-12), "q = 0.1: 1 + 0.4 (1 -> 2)");
    double y[4] = {10, 40, 20, 30};
    CHECK(stats_quantile(y, 4, 0.5) == 25, "median of an even count: halfway");
    double one[1] = {7};
    CHECK(stats_quantile(one, 1, 0.3) == 7, "one value");
    CHECK(isnan(stats_quantile(one, 0, 0.5)), "no value: NAN");
}

static void test_best_learning_rate(void)
{
    double lr[4] = {1e-3, 3e-4, 3e-3, 1e-4}, acc[4] = {0.80, 0.70, 0.75, 0.60};
    CHECK(stats_best(lr, acc, 4) == 0, "the highest mean: lr 1e-3");
    /* a tie goes to the smaller rate, whatever the order */
    double tie[4] = {0.80, 0.80, 0.80, 0.10};
    CHECK(stats_best(lr, tie, 4) == 1, "tie between 1e-3, 3e-4, 3e-3: the smaller, 3e-4 (got %d)", stats_best(lr, tie, 4));
    double lr2[3] = {3e-3, 1e-3, 3e-4}, tie2[3] = {0.5, 0.9, 0.9};
    CHECK(stats_best(lr2, tie2, 3) == 2, "tie listed high to low: 3e-4");
    /* NaN (no done run) is skipped, never chosen */
    double nan_acc[3] = {NAN, 0.2, 0.1};
    CHECK(stats_best(lr2, nan_acc, 3) == 1, "NaN skipped");
    double all_nan[2] = {NAN, NAN};
    CHECK(stats_best(lr2, all_nan, 2) == -1, "nothing to choose: -1");
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"report stats: mean and sample sd (two passes; NAN for n < 1, n < 2)", test_mean_and_sd},
        {"report stats: t_{0.975, df} table, the normal beyond df = 30", test_t_table},
        {"report stats: 95 % CI by hand at n = 5 and 2; n = 1 undefined, not 0", test_ci95},
        {"report stats: paired differences by seed, their CI and verdict", test_paired_differences},
        {"report stats: binomial error sqrt(p (1 - p) / N), at most 0.5 / sqrt N", test_binomial_error},
        {"report stats: quantiles (linear between order statistics)", test_quantile},
        {"report stats: best learning rate (ties: the smaller; NaN never)", test_best_learning_rate},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
