/* test_report.c - the statistics of ./report (lab/study/stats.c, lab/study/stats_outcomes.c), against
 * values worked out by hand or counted by brute force here (never the code's own output); and
 * two parts of the SVG writer the plots rely on (run/svg.c): the text estimate and the bands. */
#include "test.h"

#include "../lab/study/stats.h"
#include "../lab/study/stats_outcomes.h"
#include "../lab/study/stats_power.h"
#include "../lab/study/stats_t.h"
#include "../run/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------------ outcomes (stats_outcomes.c) */

/* The density of Student's t with df degrees of freedom. */
static void test_wilson(void)
{
    /* 0 of 10: [0, z^2 / (n + z^2)] = [0, 3.841459 / 13.841459] = [0, 0.277533] */
    StatsInterval w = stats_wilson(0, 10);
    CHECK(w.est == 0 && w.lo == 0 && near(w.hi, 0.277533, 1e-6), "0/10: [%g, %.6f]", w.lo, w.hi);
    /* 5 of 10: centre 1/2, half 1.959964 / 13.841459 * sqrt(2.5 + 0.960365) = 0.141601 * 1.860206 = 0.263407 */
    w = stats_wilson(5, 10);
    CHECK(near(w.lo, 0.236593, 1e-6) && near(w.hi, 0.763407, 1e-6), "5/10: [%.6f, %.6f], want [0.236593, 0.763407]", w.lo, w.hi);
    /* every bound solves (k/n - p)^2 = z^2 p (1 - p) / n, the score test's edge (k = 0, n: one bound) */
    double z = 1.959963984540054;
    for (int n = 1; n <= 30; n += 7)
        for (int k = 0; k <= n; k++) {
            w = stats_wilson(k, n);
            double ph = (double)k / n, bounds[2] = {w.lo, w.hi};
            for (int b = 0; b < 2; b++) {
                double p = bounds[b];
                if ((k == 0 && b == 0) || (k == n && b == 1)) continue;
                double resid = (ph - p) * (ph - p) - z * z * p * (1 - p) / n;
                CHECK(fabs(resid) < 1e-12, "%d/%d bound %.6f: residual %.3g", k, n, p, resid);
            }
            CHECK(w.lo <= ph && ph <= w.hi, "%d/%d: the estimate inside its interval", k, n);
        }
    CHECK(isnan(stats_wilson(0, 0).est) && isnan(stats_wilson(4, 3).lo), "n = 0, k > n: NAN");
}

static void test_newcombe(void)
{
    /* 3/3 vs 0/3: d = 1; Wilson 0/3 = [0, z^2 / (3 + z^2)] = [0, 3.841459 / 6.841459] = [0, 0.561497],
     * 3/3 its mirror [0.438503, 1]: lo = 1 - sqrt(2) 0.561497 = 1 - 0.794077 = 0.205923, hi = 1 */
    StatsInterval d = stats_newcombe(3, 3, 0, 3);
    CHECK(d.est == 1 && near(d.lo, 0.205923, 1e-6) && near(d.hi, 1, 1e-12), "3/3 - 0/3: %.6f [%.6f, %.6f]", d.est, d.lo, d.hi);
    StatsInterval e = stats_newcombe(0, 3, 3, 3);
    CHECK(near(e.lo, -1, 1e-12) && near(e.hi, -0.205923, 1e-6), "0/3 - 3/3: the mirror [%.6f, %.6f]", e.lo, e.hi);
    d = stats_newcombe(5, 10, 5, 10); /* equal: symmetric about 0 */
    CHECK(d.est == 0 && near(d.lo, -d.hi, 1e-12) && d.hi > 0, "5/10 - 5/10: [%g, %g]", d.lo, d.hi);
}

/* P(x) of the hypergeometric by integer binomials (Pascal's triangle), for the brute-force Fisher. */
static double pascal[41][41];
static void fill_pascal(void)
{
    for (int n = 0; n <= 40; n++) {
        pascal[n][0] = pascal[n][n] = 1;
        for (int k = 1; k < n; k++) pascal[n][k] = pascal[n - 1][k - 1] + pascal[n - 1][k];
    }
}

static void test_fisher(void)
{
    CHECK(near(stats_fisher(3, 3, 0, 3), 0.1, 1e-12), "3/3 vs 0/3: p = 2/20 = 0.1, got %.12g", stats_fisher(3, 3, 0, 3));
    /* [[3, 1], [1, 3]]: P(x) = C(4, x) C(4, 4 - x) / 70 = 1, 16, 36, 16, 1 / 70; x = 3: 34/70 */
    CHECK(near(stats_fisher(3, 4, 1, 4), 34.0 / 70, 1e-12), "3/4 vs 1/4: 34/70, got %.12g", stats_fisher(3, 4, 1, 4));
    /* 4/5 vs 0/5: P = 6, 60, 120, 60, 6 / 252; x = 4: 12/252 = 0.047619 */
    CHECK(near(stats_fisher(4, 5, 0, 5), 12.0 / 252, 1e-12), "4/5 vs 0/5: 12/252, got %.12g", stats_fisher(4, 5, 0, 5));
    CHECK(near(stats_fisher(10, 10, 0, 10), 2 / 184756.0, 1e-15), "10/10 vs 0/10: 2 / C(20, 10)");
    CHECK(near(stats_fisher(2, 4, 2, 4), 1, 1e-12), "equal proportions: p = 1");
    /* brute force: every table with na, nb <= 9, by exact integer counts */
    fill_pascal();
    double worst = 0;
    for (int na = 1; na <= 9; na++)
        for (int nb = 1; nb <= 9; nb++)
            for (int ka = 0; ka <= na; ka++)
                for (int kb = 0; kb <= nb; kb++) {
                    int k = ka + kb;
                    double total = pascal[na + nb][na], obs = pascal[k][ka] * pascal[na + nb - k][na - ka], sum = 0;
                    for (int x = 0; x <= na && x <= k; x++)
                        if (k - x <= nb) {
                            double c = pascal[k][x] * pascal[na + nb - k][na - x];
                            if (c <= obs) sum += c; /* integers: no tolerance needed */
                        }
                    worst = test_max(worst, fabs(stats_fisher(ka, na, kb, nb) - sum / total));
                }
    CHECK(worst < 1e-12, "brute force over every table up to 9 + 9: worst difference %.3g", worst);
    CHECK(isnan(stats_fisher(0, 0, 1, 3)), "an empty group: NAN");
}

/* The sign-flip p by recursion over the signs (independent of the code's loop over masks). */
static long flips_reaching(const double *d, int n, int i, double sum, double reach)
{
    if (i == n) return fabs(sum) >= reach;
    return flips_reaching(d, n, i + 1, sum + d[i], reach) + flips_reaching(d, n, i + 1, sum - d[i], reach);
}

/* P(|2X - n| >= |2k - n|) for X ~ Binomial(n, 1/2): the sign-flip p of n equal-sized differences, k positive. */
static double binomial_two_sided(int n, int k)
{
    double p = 0;
    for (int x = 0; x <= n; x++)
        if (abs(2 * x - n) >= abs(2 * k - n)) p += pascal[n][x] / pow(2, n);
    return p;
}

static void test_sign_flip(void)
{
    fill_pascal();
    bool exact = false;
    double d3[3] = {1, 2, 3}; /* sums of +-1 +-2 +-3: only +6 and -6 reach |6| */
    CHECK(near(stats_sign_flip(d3, 3, &exact), 2.0 / 8, 1e-15) && exact, "{1, 2, 3}: 2/8");
    double d6[6] = {0.10, 0.12, 0.14, 0.16, 0.18, 0.20};
    CHECK(near(stats_sign_flip(d6, 6, &exact), 2.0 / 64, 1e-15), "six positive: 2/64 = 0.03125");
    double d2[2] = {1, -1};
    CHECK(stats_sign_flip(d2, 2, &exact) == 1, "{1, -1}: mean 0, every flip reaches: 1");
    double zero[4] = {0, 0, 0, 0};
    CHECK(stats_sign_flip(zero, 4, &exact) == 1, "all zero: p = 1");
    CHECK(isnan(stats_sign_flip(d3, 0, &exact)), "no pair: NAN");
    /* random differences, against the recursion */
    double r[12];
    unsigned s = 12345;
    for (int t = 0; t < 20; t++) {
        double sum = 0, abs_sum = 0;
        for (int i = 0; i < 12; i++) {
            s = s * 1103515245u + 12345u;
            r[i] = ((s >> 8) % 2001) / 1000.0 - 0.7;
            sum += r[i];
            abs_sum += fabs(r[i]);
        }
        double want = flips_reaching(r, 12, 0, 0, fabs(sum) - 1e-9 * abs_sum) / 4096.0;
        CHECK(near(stats_sign_flip(r, 12, &exact), want, 1e-15), "random set %d: %.6f, want %.6f", t, stats_sign_flip(r, 12, &exact), want);
    }
    /* n = 20 (exact, the largest): 15 of 20 equal differences positive: 2 P(X >= 15) = 0.041389 */
    double d20[20];
    for (int i = 0; i < 20; i++) d20[i] = i < 15 ? 0.3 : -0.3;
    double p20 = stats_sign_flip(d20, 20, &exact);
    CHECK(exact && near(p20, binomial_two_sided(20, 15), 1e-12) && near(p20, 0.041389, 1e-6), "n = 20: %.6f exact", p20);
    /* n = 30 (Monte Carlo, 200000 draws): 20 of 30 positive, 2 P(X >= 20) = 0.098712; 5 standard errors 0.0033 */
    double d30[30];
    for (int i = 0; i < 30; i++) d30[i] = i < 20 ? 1 : -1;
    double p30 = stats_sign_flip(d30, 30, &exact), want30 = binomial_two_sided(30, 20);
    CHECK(!exact && fabs(p30 - want30) < 0.0033, "n = 30: Monte Carlo %.5f, exact %.5f", p30, want30);
    CHECK(stats_sign_flip(d30, 30, &exact) == p30, "the Monte Carlo seed is fixed: the same p twice");
    /* 30 equal positive differences: only the two all-same-sign draws reach (P = 2^-29 = 1.9e-9),
     * so none of the 200000 draws does, and p is (1 + 0) / (1 + 200000): never 0 */
    double same30[30];
    for (int i = 0; i < 30; i++) same30[i] = 0.25;
    double p_same = stats_sign_flip(same30, 30, &exact);
    CHECK(!exact && p_same == 1.0 / (1.0 + STATS_FLIP_DRAWS), "30 equal differences: %.9g, want 1/200001", p_same);
    /* a large n: the draws shrink so that the work stays bounded (n = 20000: 2e8 / n = 10000 draws), and
     * with equal differences p is then 1/10001 */
    enum { BIG = 20000 };
    static double big[BIG];
    for (int i = 0; i < BIG; i++) big[i] = 1;
    double p_big = stats_sign_flip(big, BIG, &exact);
    CHECK(p_big == 1.0 / (1.0 + STATS_FLIP_MIN_DRAWS), "n = %d: %.9g, want 1/10001 (10000 draws)", BIG, p_big);
}

static void test_holm_and_bh(void)
{
    /* sorted 0.005 0.01 0.03 0.04, m = 4: Holm 4 x 0.005 = 0.02, 3 x 0.01 = 0.03, 2 x 0.03 = 0.06,
     * max(0.06, 1 x 0.04) = 0.06; BH 0.02, 0.02, 0.04, 0.04 (m p / j, then the minimum from the right) */
    double p[5] = {0.01, 0.04, NAN, 0.03, 0.005}, h[5], b[5];
    stats_holm(p, 5, h);
    stats_bh(p, 5, b);
    CHECK(near(h[0], 0.03, 1e-15) && near(h[1], 0.06, 1e-15) && isnan(h[2]) && near(h[3], 0.06, 1e-15) && near(h[4], 0.02, 1e-15),
          "Holm: %g %g %g %g %g", h[0], h[1], h[2], h[3], h[4]);
    CHECK(near(b[0], 0.02, 1e-15) && near(b[1], 0.04, 1e-15) && isnan(b[2]) && near(b[3], 0.04, 1e-15) && near(b[4], 0.02, 1e-15),
          "BH: %g %g %g %g %g", b[0], b[1], b[2], b[3], b[4]);
    /* capped at 1, monotone in p, never below p */
    double q[3] = {0.5, 0.6, 0.9}, hq[3], bq[3];
    stats_holm(q, 3, hq);
    stats_bh(q, 3, bq);
    CHECK(hq[0] == 1 && hq[1] == 1 && hq[2] == 1, "Holm capped at 1: %g %g %g", hq[0], hq[1], hq[2]);
    CHECK(near(bq[0], 0.9, 1e-15) && near(bq[1], 0.9, 1e-15) && near(bq[2], 0.9, 1e-15), "BH: 1.5, 0.9, 0.9 -> 0.9 each");
    double one[1] = {0.03}, h1[1], b1[1];
    stats_holm(one, 1, h1);
    stats_bh(one, 1, b1);
    CHECK(h1[0] == 0.03 && b1[0] == 0.03, "one test: unchanged");
    /* a raw 0.03 among two: Holm lifts it over 0.05 */
    double two[2] = {0.03, 0.001}, h2[2];
    stats_holm(two, 2, h2);
    CHECK(near(h2[0], 0.03, 1e-15) && near(h2[1], 0.002, 1e-15), "the second smallest: max(2 x 0.001, 0.03) = 0.03");
    double tie[2] = {0.03, 0.03};
    stats_holm(tie, 2, h2);
    CHECK(near(h2[0], 0.06, 1e-15) && near(h2[1], 0.06, 1e-15), "two raw 0.03: both 0.06 after Holm");
}

/* P(X >= k), X ~ Binom(n, p), summed term by term (independent of stats_power.c) */
static double binom_tail(int k, int n, double p)
{
    double t = 0;
    for (int x = k; x <= n; x++) t += exp(lgamma(n + 1.0) - lgamma(x + 1.0) - lgamma(n - x + 1.0) + x * log(p) + (n - x) * log1p(-p));
    return t;
}

static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

static void test_judged_alpha(void)
{
    /* three tests (one NaN: no test): ranks 0.001 (1), 0.02 (2), 0.04 (3) */
    double p[4] = {0.04, NAN, 0.001, 0.02}, a[4], adj[4];
    stats_holm_alpha(p, 4, 0.05, a);
    CHECK(near(a[0], 0.05, 1e-15) && isnan(a[1]) && near(a[2], 0.05 / 3, 1e-15) && near(a[3], 0.025, 1e-15),
          "Holm: alpha / (m - j + 1) = %g %g %g %g", a[0], a[1], a[2], a[3]);
    stats_bh_alpha(p, 4, 0.05, a);
    CHECK(near(a[0], 0.05, 1e-15) && isnan(a[1]) && near(a[2], 0.05 / 3, 1e-15) && near(a[3], 0.1 / 3, 1e-15),
          "BH: alpha j / m = %g %g %g %g", a[0], a[1], a[2], a[3]);
    /* each test's own p against its alpha agrees with its adjusted p against 0.05 where the
     * procedure decides by the test's own step: Holm's smallest p, BH's largest */
    stats_holm_alpha(p, 4, 0.05, a);
    stats_holm(p, 4, adj);
    CHECK((p[2] <= a[2]) == (adj[2] <= 0.05), "Holm's first step");
    stats_bh_alpha(p, 4, 0.05, a);
    stats_bh(p, 4, adj);
    CHECK((p[0] <= a[0]) == (adj[0] <= 0.05), "BH's last step");
}

static void test_fisher_power(void)
{
    double alpha = 0.05 / 15; /* Holm's first step over the second study's 15 primaries */
    /* against 0/10 the test rejects exactly when a has >= 7 of 10 (Fisher's p of 7/10 vs 0/10 is
     * 0.0031, of 6/10 0.0108): power = P(Binom(10, pa) >= 7), whose 0.8 root is found here by
     * bisection on that tail alone */
    CHECK(stats_fisher(7, 10, 0, 10) <= alpha && stats_fisher(6, 10, 0, 10) > alpha, "the region's edge at 7/10");
    double lo = 0, hi = 1;
    for (int it = 0; it < 60; it++) {
        double mid = (lo + hi) / 2;
        if (binom_tail(7, 10, mid) >= 0.8) hi = mid;
        else lo = mid;
    }
    double mdd = stats_mdd_fisher(0, 10, 10, alpha, 1);
    CHECK(near(mdd, hi, 1e-6) && mdd > 0.75 && mdd < 0.77, "MDD against 0/10 at Holm's first alpha: %.6f, want %.6f (about 0.76)", mdd, hi);
    CHECK(near(stats_fisher_power(0.5, 10, 0, 10, alpha), binom_tail(7, 10, 0.5), 1e-12), "power at pa 0.5 = P(X >= 7)");
    CHECK(isnan(stats_mdd_fisher(0, 10, 10, alpha, -1)), "no fall from 0/10");
    /* against 7/10: neither way (a rise of 0.3 is all there is; a fall to 0 is detected only
     * when b shows >= 7 of 10, probability 0.65 < 0.8) */
    CHECK(isnan(stats_mdd_fisher(0.7, 10, 10, alpha, 1)) && isnan(stats_mdd_fisher(0.7, 10, 10, alpha, -1)), "none either way at 7/10");
    CHECK(near(stats_fisher_power(0, 10, 0.7, 10, alpha), binom_tail(7, 10, 0.7), 1e-12), "power of a fall to 0 from 0.7 = P(kb >= 7)");
    /* at an uncorrected 0.05 it is smaller than at Holm's alpha, and at more runs smaller still */
    double m05 = stats_mdd_fisher(0, 10, 10, 0.05, 1), m20 = stats_mdd_fisher(0, 20, 20, alpha, 1);
    CHECK(m05 < mdd && m20 < mdd, "alpha 0.05: %.3f, n 20: %.3f, both below %.3f", m05, m20, mdd);
    /* the power function against a simulation of the test itself (20000 pairs of counts) */
    unsigned long long st = 12345;
    int hits = 0, draws = 20000;
    for (int r = 0; r < draws; r++) {
        int ka = 0, kb = 0;
        for (int i = 0; i < 10; i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            ka += (double)(st >> 11) * 0x1p-53 < 0.6;
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            kb += (double)(st >> 11) * 0x1p-53 < 0.2;
        }
        hits += stats_fisher(ka, 10, kb, 10) <= 0.05;
    }
    double sim = (double)hits / draws, exact = stats_fisher_power(0.6, 10, 0.2, 10, 0.05);
    CHECK(fabs(sim - exact) < 4 * sqrt(exact * (1 - exact) / draws), "0.6 vs 0.2 at 0.05: exact %.4f, simulated %.4f", exact, sim);
    CHECK(stats_fisher_power(0.3, 10, 0.3, 10, 0.05) <= 0.05, "no difference: power <= alpha (the test is conservative)");
}

static void test_sign_flip_power(void)
{
    /* the early-stopping test agrees with the exact p of stats_sign_flip, on data with ties
     * (values on a grid of 0.01, zeros among them) and without, at many levels */
    double levels[6] = {0.05 / 15, 0.01, 0.05 / 3, 0.05, 0.2, 1};
    unsigned long long st = 777;
    int agree = 0, cases = 0;
    for (int r = 0; r < 600; r++) {
        int n = 1 + r % 12;
        double d[12];
        for (int i = 0; i < n; i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(st >> 11) * 0x1p-53;
            d[i] = r % 2 ? round((u - 0.3) * 20) / 100 : u - 0.25;
        }
        double p = stats_sign_flip(d, n, NULL);
        for (int l = 0; l < 6; l++) {
            cases++;
            agree += stats_sign_flip_rejects(d, n, levels[l]) == (p <= levels[l]);
        }
    }
    CHECK(agree == cases, "rejects <=> p <= alpha: %d of %d", agree, cases);
    /* at n = 10 and Holm's first alpha (limit floor(alpha 2^9) = 1) it rejects only when all ten
     * differences have one sign: power = Phi(s)^10 + Phi(-s)^10 exactly */
    double alpha = 0.05 / 15, s = 1.5, exact = pow(normal_cdf(s), 10) + pow(normal_cdf(-s), 10);
    double sim = stats_sign_flip_power(s, 10, alpha);
    CHECK(fabs(sim - exact) < 4 * sqrt(exact * (1 - exact) / STATS_POWER_DRAWS), "power at shift 1.5: %.4f, exact %.4f", sim, exact);
    double lo = 0, hi = 10;
    for (int it = 0; it < 60; it++) {
        double mid = (lo + hi) / 2;
        if (pow(normal_cdf(mid), 10) + pow(normal_cdf(-mid), 10) >= 0.8) hi = mid;
        else lo = mid;
    }
    double mdd = stats_mdd_sign_flip(0.2, 10, alpha);
    CHECK(fabs(mdd / 0.2 - hi) < 0.03, "MDD at sd 0.2: %.4f = %.4f sd, exact %.4f sd", mdd, mdd / 0.2, hi);
    CHECK(near(stats_mdd_sign_flip(0.4, 10, alpha), 2 * mdd, 1e-12), "in units of the sd");
    CHECK(stats_mdd_sign_flip(0.2, 10, 0.05) < mdd, "smaller at an uncorrected 0.05");
    CHECK(isnan(stats_mdd_sign_flip(0.2, 4, 0.05)), "n 4 at 0.05: p >= 2/16 > alpha, never rejects: none");
    /* beyond 20 pairs, the normal approximation: (1.959964 + 0.841621) / 5 at n 25 */
    CHECK(near(stats_mdd_sign_flip(1, 25, 0.05), 0.560317, 1e-5), "n 25: %.6f", stats_mdd_sign_flip(1, 25, 0.05));
}

static void test_student_t(void)
{
    /* closed forms: df 1 is Cauchy, F(t) = 1/2 + atan(t)/pi; df 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)) */
    CHECK(near(stats_t_cdf(1, 1), 0.75, 1e-12), "Cauchy F(1) %.15f", stats_t_cdf(1, 1));
    CHECK(near(stats_t_cdf(-3, 1), 0.5 + atan(-3.0) / 3.141592653589793, 1e-12), "Cauchy F(-3)");
    CHECK(near(stats_t_cdf(2, 2), 0.5 + 1 / sqrt(6.0), 1e-12), "df 2 F(2) %.15f", stats_t_cdf(2, 2));
    CHECK(near(stats_t_p2(-2, 2), 2 * (0.5 - 1 / sqrt(6.0)), 1e-12), "two-sided p at df 2");
    CHECK(near(stats_t_cdf(0.7, 300), normal_cdf(0.7), 2e-3), "large df: near the normal");
    /* the quantiles agree with the table of stats_t975 (6-7 digits) at every df it holds */
    int agree = 0;
    for (int df = 1; df <= 30; df++) agree += fabs(stats_t_quantile(0.975, df) - stats_t975(df)) < 2e-6 * stats_t975(df);
    CHECK(agree == 30, "t_{0.975, df} = the table at %d of 30 df", agree);
    /* power: alpha at no shift; the textbook value 0.8031 at n 10, one sd, alpha 0.05; and
     * against a simulation of the test (n 6, alpha 0.05/6, shift 1.8 sd) */
    CHECK(near(stats_t_power(0, 8, 0.01), 0.01, 1e-7), "no shift: power = alpha (%.9f)", stats_t_power(0, 8, 0.01));
    CHECK(fabs(stats_t_power(1, 10, 0.05) - 0.8031) < 1e-4, "n 10, 1 sd: %.5f", stats_t_power(1, 10, 0.05));
    int n = 6, draws = 20000, reject = 0;
    double alpha = 0.05 / 6, crit = stats_t_quantile(1 - alpha / 2, n - 1);
    unsigned long long st = 4242;
    for (int r = 0; r < draws; r++) {
        double x[6];
        for (int i = 0; i < n; i += 2) { /* Box-Muller: two normals from two uniforms */
            double u[2];
            for (int j = 0; j < 2; j++) {
                st = st * 6364136223846793005ull + 1442695040888963407ull;
                u[j] = ((double)(st >> 11) + 0.5) * 0x1p-53;
            }
            x[i] = 1.8 + sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
            x[i + 1] = 1.8 + sqrt(-2 * log(u[0])) * sin(6.283185307179586 * u[1]);
        }
        double m = stats_mean(x, n), sd = stats_sd(x, n);
        reject += fabs(m / (sd / sqrt(n))) > crit;
    }
    double sim = (double)reject / draws, exact = stats_t_power(1.8, n, alpha);
    CHECK(fabs(sim - exact) < 4 * sqrt(exact * (1 - exact) / draws), "n 6, 1.8 sd: simulated %.4f, computed %.4f", sim, exact);
    /* the MDD is where the power reaches 0.8, in units of the sd; the seeds are the first n that reach it */
    double mdd = stats_mdd_t(0.3, 7, 0.05 / 6);
    CHECK(near(stats_t_power(mdd / 0.3, 7, 0.05 / 6), 0.8, 1e-5), "power at the MDD %.6f", stats_t_power(mdd / 0.3, 7, 0.05 / 6));
    CHECK(near(stats_mdd_t(0.6, 7, 0.05 / 6), 2 * mdd, 1e-5), "in units of the sd");
    int seeds = stats_t_seeds(0.5, 0.3, 0.05 / 6, 2, 100);
    CHECK(seeds > 2 && stats_t_power(0.5 / 0.3, seeds, 0.05 / 6) >= 0.8 && stats_t_power(0.5 / 0.3, seeds - 1, 0.05 / 6) < 0.8,
          "seeds for 0.5 at sd 0.3: %d", seeds);
    CHECK(stats_t_seeds(0.5, 0.3, 0.05 / 6, 50, 60) == 50, "at least n_min");
    CHECK(stats_t_seeds(0.01, 1, 0.05, 2, 10) == -1, "none within n_max");
    CHECK(isnan(stats_t_power(1, 1, 0.05)) && isnan(stats_mdd_t(1, 1, 0.05)) && isnan(stats_t_cdf(1, 0)), "n 1, df 0: NAN");
}

static void test_logrank_power(void)
{
    /* no difference: the rejections are the test's size, near alpha (the log-rank is asymptotic:
     * within 0.02 at 30 runs a group) */
    double size = stats_logrank_power(1, 0.7, 30, 30, 0.05);
    CHECK(fabs(size - 0.05) < 0.02, "size at hr 1: %.4f", size);
    /* more power for a larger difference, for more runs, at a looser alpha */
    double p = stats_logrank_power(0.4, 0.9, 15, 15, 0.01);
    CHECK(stats_logrank_power(0.25, 0.9, 15, 15, 0.01) > p && stats_logrank_power(0.4, 0.9, 25, 25, 0.01) > p &&
              stats_logrank_power(0.4, 0.9, 15, 15, 0.05) > p,
          "monotone (%.4f at hr 0.4, 15 + 15, alpha 0.01)", p);
    /* against Schoenfeld's events formula, 4 (z_{0.975} + z_{0.8})^2 / ln(hr)^2 = 65.3 events at
     * hr 1/2, all runs learning: 33 runs a group (an approximation: within 4) */
    int n = stats_logrank_seeds(0.5, 0.9999, 0.05, 2, 80);
    CHECK(n >= 29 && n <= 37, "seeds at hr 1/2: %d (Schoenfeld 33)", n);
    CHECK(stats_logrank_power(0.5, 0.9999, n, n, 0.05) >= 0.8 && stats_logrank_power(0.5, 0.9999, n - 1, n - 1, 0.05) < 0.8,
          "the first n that reaches 0.8");
    CHECK(isnan(stats_logrank_power(0.5, 1, 10, 10, 0.05)) && isnan(stats_logrank_power(0, 0.5, 10, 10, 0.05)), "bad arguments: NAN");
    /* the MDD as a rate ratio: power reaches 0.8 there and not 0.01 closer to 1; against
     * Schoenfeld at 22 + 22 runs all learning, ln(hr) = -(1.96 + 0.8416) / sqrt(44 / 4): hr 0.430 */
    double mdd = stats_mdd_logrank(0.9999, 22, 22, 0.05);
    CHECK(stats_logrank_power(mdd, 0.9999, 22, 22, 0.05) >= 0.8 && stats_logrank_power(mdd + 0.01, 0.9999, 22, 22, 0.05) < 0.8 &&
              fabs(mdd - 0.430) < 0.04,
          "MDD at 22 + 22, alpha 0.05: rate ratio %.3f (Schoenfeld 0.430)", mdd);
    CHECK(isnan(stats_mdd_logrank(0.5, 1, 1, 1e-6)), "no ratio reaches the power (1 + 1 runs at alpha 1e-6): NAN");
}

static void test_kaplan_meier(void)
{
    /* events at 100, 200, 400; censored at 300, 500: S = 4/5, then 4/5 * 3/4 = 0.6, (300 leaves the
     * risk set), then 0.6 * 1/2 = 0.3 at 400: the median is 400 */
    double t[5] = {300, 100, 500, 400, 200};
    bool e[5] = {false, true, false, true, true};
    StatsKm km = stats_km_median(t, e, 5);
    CHECK(km.median == 400 && km.events == 3 && km.censored == 2, "median %g (want 400), %d events, %d censored", km.median,
          km.events, km.censored);
    /* four events at 1..4: S(2) = 1/2 exactly: the median is 2 */
    double t4[4] = {4, 3, 2, 1};
    bool all[4] = {true, true, true, true};
    CHECK(stats_km_median(t4, all, 4).median == 2, "S = 1/2 exactly at t = 2: median 2");
    /* a censoring at the time of an event is still at risk there: events 10, 10 (censored), 20,
     * censored 30, 30: S(10) = 1 - 1/5 = 0.8, S(20) = 0.8 (1 - 1/3) = 0.533: not reached */
    double tc[5] = {10, 10, 20, 30, 30};
    bool ec[5] = {true, false, true, false, false};
    km = stats_km_median(tc, ec, 5);
    CHECK(isnan(km.median) && km.events == 2 && km.censored == 3, "S ends at 0.533: not reached (%g)", km.median);
    /* every run censored: not reached */
    bool none[4] = {false, false, false, false};
    CHECK(isnan(stats_km_median(t4, none, 4).median), "no event: not reached");
    /* no censoring: the median is the ordinary lower median */
    double t3[3] = {7, 5, 9};
    bool e3[3] = {true, true, true};
    CHECK(stats_km_median(t3, e3, 3).median == 7, "5, 7, 9: median 7");
    /* the curve of the first example: (100, 0.8), (200, 0.6), (400, 0.3); none at the censorings */
    double ct[5], cs[5];
    int m = stats_km_curve(t, e, 5, ct, cs);
    CHECK(m == 3 && ct[0] == 100 && ct[1] == 200 && ct[2] == 400 && fabs(cs[0] - 0.8) < 1e-15 && fabs(cs[1] - 0.6) < 1e-15 &&
              fabs(cs[2] - 0.3) < 1e-15,
          "KM curve: %d steps, (%g, %g) (%g, %g) (%g, %g)", m, ct[0], cs[0], ct[1], cs[1], ct[2], cs[2]);
    CHECK(stats_km_curve(t4, none, 4, ct, cs) == 0, "no event: an empty curve");
}

static void test_logrank(void)
{
    /* a: events at 1, 2; b: an event at 3, censored at 4.
     * t = 1: r_a 2, r_b 2, d 1: E_a 1/2, V 2*2*1*3 / (16*3) = 1/4; t = 2: r_a 1, r_b 2: E_a 1/3, V 2/9;
     * t = 3: r_a 0: nothing. O_a - E_a = 2 - 5/6 = 7/6, V = 17/36, chi^2 = 49/17, p = erfc(sqrt(49/34)) = 0.089555 */
    double ta[2] = {1, 2}, tb[2] = {3, 4};
    bool ea[2] = {true, true}, eb[2] = {true, false};
    double p = stats_logrank(ta, ea, 2, tb, eb, 2);
    CHECK(near(p, 0.0895551, 1e-6), "log-rank p = %.7f, want 0.0895551", p);
    CHECK(near(stats_logrank(tb, eb, 2, ta, ea, 2), p, 1e-15), "symmetric in the groups");
    /* the same times in both groups: O = E, p = 1 */
    CHECK(near(stats_logrank(ta, ea, 2, ta, ea, 2), 1, 1e-12), "identical groups: p = 1");
    /* no event at all: no test */
    bool no[2] = {false, false};
    CHECK(isnan(stats_logrank(ta, no, 2, tb, no, 2)), "no event: NAN");
    /* tied times, unequal groups: a events at 1, 1, 3; b an event at 1, censored at 4.
     * t = 1: r_a 3, r_b 2, r 5, d 3 (ties): E_a 3*3/5 = 1.8, V 3*2*3*(5-3) / (25*4) = 0.36 (without
     * the tie factor (r - d)/(r - 1) it would be 0.72); t = 3: r_a 1, r_b 1, d 1: E_a 1/2, V 1/4.
     * O_a - E_a = 3 - 2.3 = 0.7, V = 0.61, chi^2 = 0.49/0.61, p = erfc(sqrt(chi^2 / 2)) = 0.3701149 */
    double tc[3] = {1, 1, 3}, td[2] = {1, 4};
    bool ec[3] = {true, true, true}, ed[2] = {true, false};
    double p_ties = stats_logrank(tc, ec, 3, td, ed, 2);
    CHECK(near(p_ties, 0.3701149, 1e-6), "tied times, 3 against 2: p = %.7f, want 0.3701149", p_ties);
    /* the direction: O_a - E_a = 7/6 above (a learned sooner), -7/6 the other way round */
    CHECK(near(stats_logrank_excess(ta, ea, 2, tb, eb, 2), 7.0 / 6, 1e-12), "O_a - E_a = 7/6");
    CHECK(near(stats_logrank_excess(tb, eb, 2, ta, ea, 2), -7.0 / 6, 1e-12), "the slower group: -7/6");
}

/* The estimate by its classes (run/svg.c, char_em), by hand: i, l and a space 0.34 em; a, 0..9
 * 0.66; A 0.8; m, W 1.0; a UTF-8 character (√: 3 bytes) once, at 1 em. */
static void test_text_width(void)
{
    CHECK(near(svg_text_width("il ", 10), 3 * 3.4, 1e-9), "i, l, space: %g", svg_text_width("il ", 10));
    CHECK(near(svg_text_width("a0A", 10), 6.6 + 6.6 + 8, 1e-9), "a, 0, A: %g", svg_text_width("a0A", 10));
    CHECK(near(svg_text_width("mW", 12), 24, 1e-9), "m, W at 12 px: %g", svg_text_width("mW", 12));
    CHECK(near(svg_text_width("1/√dk", 10), 6.6 + 4.6 + 10 + 6.6 + 6.6, 1e-9), "√ counted once: %g",
          svg_text_width("1/√dk", 10));
    /* wrapped: as many words as fit in 65 px (m 10 px, a space 3.4): "mmmmmm" (60), "mm mmm" (53.4),
     * "mmmmm m" (63.4), "mmmm" (40; with " mmmmmm" 103.4), "mmmmmm" */
    const char *text = "mmmmmm mm mmm mmmmm m mmmm mmmmmm";
    CHECK(svg_text_lines(text, 10, 65) == 5, "lines: %d (want 5)", svg_text_lines(text, 10, 65));
    CHECK(svg_text_lines("short", 10, 200) == 1, "a short text: one line");
}

/* The text an SVG writer call writes, through a temporary file (room for 4 KB). */
static char g_written[4096];
static const char *written_by_band(const double *x, const double *lo, const double *hi, int n)
{
    FILE *f = tmpfile();
    Svg s;
    svg_begin(&s, f, 100, 100);
    SvgPanel p = {0, 0, 100, 100, {0, 10, SVG_LINEAR, NULL, NULL, 0}, {0, 10, SVG_LINEAR, NULL, NULL, 0}, NULL};
    svg_band(&s, &p, x, lo, hi, n, "#123456", "iqr");
    svg_end(&s);
    rewind(f);
    size_t k = fread(g_written, 1, sizeof g_written - 1, f);
    g_written[k] = 0;
    fclose(f);
    return strstr(g_written, "<path") ? strstr(g_written, "<path") : "";
}

/* One path element per band; a closed outline per run of drawable points (a NaN breaks it), along
 * the lower edge and back along the upper one; values past the panel at its edge. */
static void test_band(void)
{
    double x[5] = {0, 1, 2, 3, 4}, lo[5] = {1, 2, NAN, 4, -5}, hi[5] = {2, 3, 3, 20, 6};
    const char *band = written_by_band(x, lo, hi, 5);
    CHECK(!strncmp(band, "<path class=\"iqr\" fill=\"#123456\" fill-opacity=\"0.18\" stroke=\"none\" d=\"", 70),
          "the band's element: %.80s", band);
    CHECK(strstr(band, "d=\"M0.0,90.0 L10.0,80.0 L10.0,70.0 L0.0,80.0 Z M30.0,60.0 L40.0,100.0 L40.0,40.0 L30.0,0.0 Z \"/>"),
          "two outlines, clipped to the panel: %s", band);
    CHECK(!strstr(band + 1, "<path"), "one element");
    double none[2] = {NAN, NAN};
    CHECK(!*written_by_band(x, none, none, 2), "no drawable point: no element");
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
        {"outcome stats: Wilson interval by hand and as the score test's edge", test_wilson},
        {"outcome stats: Newcombe interval of a difference of proportions by hand", test_newcombe},
        {"outcome stats: Fisher's exact test by hand and against integer counts", test_fisher},
        {"outcome stats: sign-flip test by hand, by recursion, binomial (exact and Monte Carlo)", test_sign_flip},
        {"outcome stats: Holm and Benjamini-Hochberg by hand (NaN skipped, capped, monotone)", test_holm_and_bh},
        {"outcome stats: the alpha each test is judged at (Holm, BH)", test_judged_alpha},
        {"outcome stats: Fisher's exact power and MDD (against P(Binom >= 7), a simulation)", test_fisher_power},
        {"outcome stats: the sign-flip test's power and MDD (early stop = exact p; all one sign)", test_sign_flip_power},
        {"t stats: Student's t CDF, quantiles (the table), noncentral power against a simulation, MDD, seeds", test_student_t},
        {"outcome stats: Kaplan-Meier median with censoring, 'not reached'", test_kaplan_meier},
        {"outcome stats: log-rank test by hand", test_logrank},
        {"outcome stats: the log-rank test's power (simulated): its size, monotone, near Schoenfeld's n", test_logrank_power},
        {"plots: the text width estimate by its classes, wrapping inside a width", test_text_width},
        {"plots: an interquartile band, one element, an outline per run of points, clipped", test_band},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
