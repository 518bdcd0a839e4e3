/* stats.h - the statistics of ./report: means, 95 % confidence intervals over seeds (Student t),
 * paired per-seed differences, the binomial error of one accuracy, quantiles, and the choice
 * of a best learning rate. Plain C on arrays of doubles; nothing here knows about files.
 *
 * Conventions: a value that cannot be computed is NAN (never a made-up 0): the mean of no
 * values, the standard deviation of one, the interval of one run.
 */
#ifndef STUDY_STATS_H
#define STUDY_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* (1/n) sum x_i; NAN when n < 1. */
double stats_mean(const double *x, int n);
/* Sample standard deviation sqrt(sum (x_i - mean)^2 / (n - 1)); NAN when n < 2. */
double stats_sd(const double *x, int n);
/* t_{0.975, df}: the two-sided 95 % quantile of Student's t with df degrees of freedom, from a
 * table for df = 1..30 and the normal quantile 1.959964 beyond; NAN when df < 1. */
double stats_t975(int df);

/* A 95 % confidence interval for the mean of n values:
 *   mean +- half,  half = t_{0.975, n-1} * sd / sqrt(n).
 * With n = 1 the mean is known but the interval is not: defined is false and half, lo, hi are
 * NAN. With n = 0 the mean is NAN too. */
typedef struct StatsCi {
    double mean, half, lo, hi;
    int n;
    bool defined; /* n >= 2 */
} StatsCi;
StatsCi stats_ci95(const double *x, int n);

/* Paired differences a_seed - b_seed over the seeds both lists hold, in ascending seed order:
 * writes them to diff (room for max) and returns how many. A seed listed twice in one list is
 * used once (its first value). */
int stats_paired(const long *seed_a, const double *a, int na, const long *seed_b, const double *b, int nb,
                 double *diff, int max);

/* What a 95 % interval of a difference a - b says: */
typedef enum StatsVerdict {
    VERDICT_UNDEFINED,    /* n < 2: no interval */
    VERDICT_HIGHER,       /* the whole interval is above 0: a is higher */
    VERDICT_LOWER,        /* the whole interval is below 0: a is lower */
    VERDICT_NOT_DISTINCT, /* the interval contains 0 */
} StatsVerdict;
StatsVerdict stats_verdict(StatsCi diff);

/* The binomial standard error of an accuracy p measured on n examples: sqrt(p (1 - p) / n),
 * at most 0.5 / sqrt(n) (at p = 0.5); NAN when n < 1 or p is outside [0, 1]. */
double stats_binomial_se(double p, int n);

/* The q-quantile (0 <= q <= 1) of x[0..n), linear between order statistics (x sorted,
 * position q (n - 1)); sorts x in place. NAN when n < 1. */
double stats_quantile(double *x, int n, double q);

/* The index i of the highest score[i] (NaN scores are skipped); among equal scores the one
 * with the smallest key[i] (the smaller learning rate). -1 when no score is a number. */
int stats_best(const double *key, const double *score, int n);

#endif
