/* stats_t.h - Student's t, exactly: its distribution function, its quantiles, and the power of
 * the one-sample t test (through the noncentral t), for the law experiment of
 * docs/ablation/DESIGN.md: its tests of the exponent alpha over seeds, their minimum detectable
 * differences, and the number of seeds they need.
 *
 * How, briefly:
 *   P(T <= t) for T ~ t(df):  1 - I_x(df/2, 1/2) / 2 at t >= 0, x = df / (df + t^2), with I the
 *     regularized incomplete beta function (continued fraction); by symmetry below 0.
 *   The noncentral T' = (Z + delta) / U, Z standard normal, U = sqrt(V / df), V ~ chi^2(df):
 *     P(|T'| > c) = E_U[ Q(c U - delta) + Phi(-c U - delta) ], the expectation over the chi
 *     distribution of sqrt(V), by Simpson's rule (Q the normal upper tail).
 * The test: n values with mean m and sd sd; H0 m = m0 rejected at level alpha when
 * |t| = |m - m0| sqrt(n) / sd > t_{1 - alpha/2, n-1}; under a true difference Delta, t is
 * noncentral with delta = Delta sqrt(n) / sd. NAN for what cannot be computed. */
#ifndef STUDY_STATS_T_H
#define STUDY_STATS_T_H

/* P(T <= t) for Student's t with df > 0 degrees of freedom; NAN for df <= 0 or t NaN. */
double stats_t_cdf(double t, double df);
/* The two-sided p of an observed t: P(|T| >= |t|). */
double stats_t_p2(double t, double df);
/* The q-quantile (0 < q < 1) of t(df), by bisection on stats_t_cdf to 1e-10. */
double stats_t_quantile(double q, double df);
/* The power of the two-sided one-sample t test at level alpha with n values, against a true
 * difference of shift standard deviations (delta = shift sqrt(n)); NAN for n < 2. */
double stats_t_power(double shift, int n, double alpha);
/* The minimum detectable difference: sd times the smallest shift (to 1e-6) whose power is
 * >= STATS_POWER (0.8); NAN for n < 2 or sd not >= 0. */
double stats_mdd_t(double sd, int n, double alpha);
/* The seeds a test needs: the smallest n from n_min to n_max at which the test detects a true
 * difference delta with power >= STATS_POWER when the values' sd is sd; -1 when none does. */
int stats_t_seeds(double delta, double sd, double alpha, int n_min, int n_max);

#endif
