/* stats_power.h - the power of the study's two exact tests, and from it the minimum detectable
 * difference (MDD) of a contrast: the smallest true difference the test, at the alpha the
 * contrast is judged at, detects with probability 0.8.
 *
 * The alpha is the contrast's own: with Holm's step-down over m tests, the test ranked j-th by
 * its p is judged at alpha / (m - j + 1); with Benjamini-Hochberg, at alpha j / m. An MDD
 * computed at an uncorrected 0.05 would promise power the corrected test does not have.
 *
 * Fisher's exact test: exact. The rejection region (every (ka, kb) whose two-sided p <= alpha)
 * is enumerated, and power(pa) = sum over it of Binom(ka; na, pa) Binom(kb; nb, pb).
 * The sign-flip test: exact for n <= STATS_EXACT_FLIPS_MAX pairs, its power by simulation
 * under normal paired differences (the test's answer does not change when every difference is
 * multiplied by the same number, so the MDD is a multiple of their sd). Beyond 20 pairs, the
 * normal approximation (z_{1 - alpha/2} + z_{0.80}) sd / sqrt(n). Plain C; NAN for what cannot
 * be computed. Used by lab/study/report_outcomes.c. */
#ifndef STUDY_STATS_POWER_H
#define STUDY_STATS_POWER_H

#include "stats_outcomes.h" /* STATS_EXACT_FLIPS_MAX; the alpha each test is judged at */

#include <stdbool.h>

#define STATS_POWER 0.8            /* the power every MDD is stated at */
#define STATS_POWER_DRAWS 10000    /* simulated samples per sign-flip power (fixed seed) */

/* Fisher's exact test, two-sided, at level alpha, of na runs succeeding with probability pa
 * against nb with pb: the probability that it rejects. */
double stats_fisher_power(double pa, int na, double pb, int nb, double alpha);
/* The smallest delta > 0 at which stats_fisher_power(pb + dir delta, na, pb, nb, alpha) >=
 * STATS_POWER, with dir +1 (a above b) or -1 (a below b): found on a grid of 1/1000 of the
 * room (1 - pb upwards, pb downwards), then by bisection to 1e-9. NAN ("none") when no pa in
 * [0, 1] on that side reaches the power (from a reference of 2/10, no fall can be shown), or
 * when na, nb < 1 or pb is outside [0, 1]. */
double stats_mdd_fisher(double pb, int na, int nb, double alpha, int dir);

/* The exact sign-flip test of stats_sign_flip (stats_outcomes.h) at level alpha, without
 * computing p: true when p <= alpha. For n <= STATS_EXACT_FLIPS_MAX; false for n < 1.
 * How: p = 2 c / 2^n, where c counts the sets F of pairs whose flip keeps the sum at least
 * |observed|: sum |d| - 2 sum_F |d| >= |observed|, i.e. sum_F |d| <= the minority sign's mass.
 * Those sets are enumerated smallest first and the count stops at alpha 2^(n-1) + 1. */
bool stats_sign_flip_rejects(const double *d, int n, double alpha);
/* Its power when the n paired differences are independent normal with mean shift and sd 1:
 * the share of STATS_POWER_DRAWS simulated samples it rejects (from a fixed seed, the same
 * samples for every shift). NAN when n < 1 or n > STATS_EXACT_FLIPS_MAX. */
double stats_sign_flip_power(double shift, int n, double alpha);
/* sd times the smallest shift (in sd units, to 1e-4) whose simulated power is >= STATS_POWER;
 * NAN ("none") when the test can never reject at this n and alpha (2 / 2^n > alpha), or n < 2,
 * or sd is not >= 0. For n > STATS_EXACT_FLIPS_MAX, the normal approximation above. */
double stats_mdd_sign_flip(double sd, int n, double alpha);

/* The log-rank test (stats_logrank) at level alpha, of na runs against nb, when the steps to
 * learn are exponential: group b learns within the budget with probability p_ref, group a at
 * hr times b's rate (hr < 1: slower); a run not learned by the budget is censored there. Its
 * power: the share of STATS_POWER_DRAWS simulated pairs of groups (fixed seed) it rejects
 * (Monte Carlo error about 0.004 at power 0.8). NAN for bad arguments. */
double stats_logrank_power(double hr, double p_ref, int na, int nb, double alpha);
/* The MDD of that test as a rate ratio: the largest hr below 1 (the least slowdown) at which its
 * power is >= STATS_POWER, to 0.002 (a grid of 0.02, then bisection); NAN when no hr >= 0.02 reaches it. */
double stats_mdd_logrank(double p_ref, int na, int nb, double alpha);
/* The smallest n (runs per group, n_min .. n_max) at which that power is >= STATS_POWER; -1
 * when none is. */
int stats_logrank_seeds(double hr, double p_ref, double alpha, int n_min, int n_max);

#endif
