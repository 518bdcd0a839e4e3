/* stats_outcomes.h - the statistics of outcomes that are not a mean: success counts of runs
 * (Wilson and Newcombe intervals, Fisher's exact test), an exact paired permutation test, the
 * corrections for many tests (Holm, Benjamini-Hochberg) with the alpha each test is judged at,
 * and steps to a threshold that some runs never reach (Kaplan-Meier median, log-rank test).
 * Two-sided tests throughout; the power of the exact tests, and the minimum detectable
 * differences from it, are stats_power.h's. Plain C on arrays; NAN for what cannot be computed,
 * as in stats.h. Used by lab/study/report_outcomes.c. */
#ifndef STUDY_STATS_OUTCOMES_H
#define STUDY_STATS_OUTCOMES_H

#include <stdbool.h>

/* An estimate and a 95 % interval around it (NAN when undefined). */
typedef struct StatsInterval {
    double est, lo, hi;
} StatsInterval;

/* Wilson score interval for k successes of n, z = z_{0.975}:
 *   (k + z^2/2) / (n + z^2)  +-  z / (n + z^2) * sqrt(k (n - k) / n + z^2 / 4);
 * est = k / n. All NAN when n < 1 or k is outside [0, n]. */
StatsInterval stats_wilson(int k, int n);

/* Newcombe's hybrid score interval for p_a - p_b (his method 10), from the Wilson intervals
 * [la, ua], [lb, ub]: d - sqrt((pa - la)^2 + (ub - pb)^2) .. d + sqrt((ua - pa)^2 + (pb - lb)^2). */
StatsInterval stats_newcombe(int ka, int na, int kb, int nb);

/* Fisher's exact test, two-sided, of ka successes of na against kb of nb: with the margins
 * fixed, P(x) = C(K, x) C(N - K, na - x) / C(N, na) (K = ka + kb, N = na + nb), and p is the
 * sum of P(x) over every x with P(x) <= P(ka) (1 + 1e-7). NAN when na or nb < 1. */
double stats_fisher(int ka, int na, int kb, int nb);

/* The paired permutation (sign-flip) test of the mean of n paired differences d: under the
 * null each d_i is +-|d_i| with probability 1/2, and p = P(|sum s_i d_i| >= |sum d_i|) (a
 * relative tolerance of 1e-9 counts ties as reaching). Exact for n <= 20 (all 2^n sign
 * vectors); beyond, a Monte Carlo estimate (1 + hits) / (1 + draws) from a fixed seed
 * (SplitMix64), *exact set false: 200000 draws, fewer when n > 1000 so that the work stays at
 * 2e8 flips (10000 at least: a p resolution of 1e-4). NAN when n < 1. */
#define STATS_EXACT_FLIPS_MAX 20
#define STATS_FLIP_DRAWS 200000
#define STATS_FLIP_MIN_DRAWS 10000
#define STATS_FLIP_WORK 200000000L
double stats_sign_flip(const double *d, int n, bool *exact);

/* Adjusted p-values of m tests (NaN entries are no test: left NaN, and not counted in m).
 * Holm's step-down, p_(1) <= .. <= p_(m):  adj_(i) = min(1, max_{j <= i} (m - j + 1) p_(j)).
 * Benjamini-Hochberg:                      adj_(i) = min(1, min_{j >= i} m p_(j) / j). */
void stats_holm(const double *p, int m, double *adj);
void stats_bh(const double *p, int m, double *adj);
/* The alpha each of m tests is judged at (NaN p: no test, NAN out, not counted in m), at a
 * family-wise (Holm) or false-discovery (BH) level `level`: Holm level / (m - j + 1), BH
 * level j / m, j the rank of the test's p (1 = the smallest; tied p's in the order given). */
void stats_holm_alpha(const double *p, int m, double level, double *alpha);
void stats_bh_alpha(const double *p, int m, double level, double *alpha);

/* Steps to a threshold that some runs never reach: time[i] is the step run i reached it
 * (event[i]) or its last step (censored, !event[i]).
 * Kaplan-Meier: S(t) = prod over event times t_j <= t of (1 - d_j / r_j), d_j the runs reaching
 * the threshold at t_j, r_j those still at risk (time >= t_j: a run censored at t_j counts as at
 * risk there). The median is the first event time with S(t) <= 1/2; NAN ("not reached") when the
 * curve never falls to 1/2. */
typedef struct StatsKm {
    double median;
    int events, censored;
} StatsKm;
StatsKm stats_km_median(const double *time, const bool *event, int n);
/* The Kaplan-Meier curve itself: S just after each event time, t_out[k] and s_out[k] (room for n
 * each); returns how many event times. S is 1 before t_out[0] and s_out[k] from t_out[k] on. */
int stats_km_curve(const double *time, const bool *event, int n, double *t_out, double *s_out);
/* The log-rank test of two such groups: at each event time, E_a += d r_a / r and
 * V += r_a r_b d (r - d) / (r^2 (r - 1)); chi^2 = (O_a - E_a)^2 / V on 1 degree of freedom,
 * p = erfc(sqrt(chi^2 / 2)). An asymptotic test: rough at a few runs per group. NAN when V = 0
 * (no event, or nothing to compare). */
double stats_logrank(const double *ta, const bool *ea, int na, const double *tb, const bool *eb, int nb);
/* Its direction: O_a - E_a, group a's events minus those expected were both groups alike;
 * below 0 when a learns more slowly than b. */
double stats_logrank_excess(const double *ta, const bool *ea, int na, const double *tb, const bool *eb, int nb);

#endif
