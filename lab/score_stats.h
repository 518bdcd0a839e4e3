/* score_stats.h - the statistics behind the 1/sqrt(dk) argument, by Monte Carlo, without
 * training: how q.k is distributed, what the softmax of such scores looks like, and how large
 * the softmax's Jacobian is. Used by ./probe and by the tests. */
#ifndef LAB_SCORE_STATS_H
#define LAB_SCORE_STATS_H

#include <stdint.h>

/* q.k for q, k with iid N(0, 1) entries, over `samples` independent pairs. */
typedef struct QkMoments {
    double mean, var;               /* of q.k */
    double scaled_mean, scaled_std; /* of q.k / sqrt(dk) */
} QkMoments;

QkMoments qk_moments(int dk, long samples, uint64_t seed);

/* The first seed's experiment: Q, K of n_keys rows of dk iid N(0, 1) entries; S = Q K^T.
 * Raw and 1/sqrt(dk)-scaled: the range of all of S, and the largest and smallest softmax
 * weight of S's first row. */
typedef struct RowExperiment {
    double raw_min, raw_max, scaled_min, scaled_max;
    double raw_pmax, raw_pmin, scaled_pmax, scaled_pmin;
} RowExperiment;

RowExperiment row_experiment(int dk, int n_keys, uint64_t seed);

/* One query against n keys, all iid N(0, 1) in dk dims, scores s q.k:
 * means over `samples` draws of the softmax's entropy (nats), of its largest weight, and of
 * the Frobenius norm of its Jacobian diag(p) - p p^T; with their standard errors. */
typedef struct SoftmaxStats {
    double entropy, entropy_se;
    double max_weight;
    double jacobian, jacobian_se;
} SoftmaxStats;

/* Fills out[d] for each of the n_mult multipliers s = mult[d], from one shared set of draws
 * (score_rows(dk, n_keys, samples, seed), then softmax_stats_of). */
void softmax_stats(int dk, int n_keys, const double *mult, int n_mult, long samples, uint64_t seed,
                   SoftmaxStats *out);

/* The raw scores q.k of `rows` queries, each against its own n_keys keys, all iid N(0, 1) in
 * dk dims, computed with the engine's matmul: rows * n_keys values, row after row. The caller
 * frees them (mem_free()); exits with a message when out of memory. */
double *score_rows(int dk, int n_keys, long rows, uint64_t seed);

/* softmax_stats on scores already drawn (rows * n_keys values from score_rows). */
void softmax_stats_of(const double *scores, long rows, int n_keys, const double *mult, int n_mult,
                      SoftmaxStats *out);

/* ||diag(p) - p p^T||_F for a probability vector p of length n, by the closed form
 * ||J||_F^2 = sum p^2 - 2 sum p^3 + (sum p^2)^2. It cancels to rounding noise (about 1e-8)
 * when p is nearly one-hot; softmax_row_grad does not. */
double softmax_jacobian_norm(const double *p, int n);

/* ---------------------------------------------------------------- the gradient reaching the scores
 * One row of scores y (length n), p = softmax(y), J = diag(p) - p p^T (the Jacobian dp/dy, symmetric)
 * and an upstream gradient g = dL/dp: the backward pass gives dL/dy = J g, i.e.
 * (J g)_i = p_i (g_i - sum_j p_j g_j). Both norms are computed in double in a form without
 * cancellation (see score_stats.c), so a saturated row gets its true tiny value, not noise. */
typedef struct SoftmaxRowGrad {
    double grad_norm;     /* |J g| = |dL/dy| */
    double jacobian_norm; /* ||J||_F */
} SoftmaxRowGrad;

/* p (n entries) receives the softmax of y. */
SoftmaxRowGrad softmax_row_grad(const double *y, const double *g, int n, double *p);

/* Over the rows of scores S = s * qk (rows * n_keys values from score_rows), each with its own
 * upstream gradient g ~ N(0, 1) per key (drawn from `seed`: the same g for any s), the
 * distribution over rows of |dL/dS_row| and ||J||_F. */
typedef struct ScoreGradStats {
    double grad_median, grad_p10; /* |dL/dS_row| = |J g| */
    double jac_median, jac_p10;   /* ||J||_F */
    double qk_grad_median;        /* |dL/d(q.k)_row| = s |dL/dS_row| */
} ScoreGradStats;

ScoreGradStats score_grad_stats(const double *qk, long rows, int n_keys, double s, uint64_t seed);

/* The q-quantile (0 <= q <= 1) of v[0..n-1], interpolated between order statistics as numpy's
 * default does: v sorted, h = (n - 1) q, v[floor h] + (h - floor h) (v[floor h + 1] - v[floor h]).
 * Sorts v in place. */
double quantile(double *v, long n, double q);

/* ---------------------------------------------------------------- score ranges (the first seed's ±60)
 * `sequences` independent sequences of n_tokens queries and keys, iid N(0, 1) in dk dims, raw
 * scores S = Q K^T (n_tokens x n_tokens). Per query row, the largest |S_ij| over its n_tokens
 * keys; per sequence, the largest over all n_tokens^2 scores. */
typedef struct RangeStats {
    double row_median, row_p95, row_p99; /* of the row's max |q.k| */
    double row_within;                   /* fraction of rows with every |q.k| <= limit */
    double seq_median, seq_p95, seq_p99; /* of the sequence's max |q.k| */
    double seq_within;                   /* fraction of sequences with every |q.k| <= limit */
} RangeStats;

RangeStats range_stats(int dk, int n_tokens, long sequences, double limit, uint64_t seed);

/* ---------------------------------------------------------------- overflow of exp without max subtraction
 * A softmax computed as written, exp(y_j) / sum_i exp(y_i), with y = s * q.k, in a format whose
 * largest finite value is `limit` (FP16_MAX = 65504): exp(y) exceeds it when y > ln(limit). */
typedef struct OverflowStats {
    double entry;   /* fraction of the entries with exp(y) > limit */
    double row_any; /* fraction of rows with at least one such entry */
    double row_sum; /* fraction of rows with sum_j exp(y_j) > limit (the sum kept in the format) */
} OverflowStats;

OverflowStats overflow_stats(const double *qk, long rows, int n_keys, double s, double limit);

/* P(Z > z) for Z ~ N(0, 1): erfc(z / sqrt 2) / 2. */
double normal_tail(double z);

/* The normal approximation q.k ~ N(0, dk) of the entry probability above: P(s q.k > ln limit)
 * = normal_tail(ln(limit) / (s sqrt(dk))), for s > 0. */
double overflow_prob_normal(int dk, double s, double limit);

/* softmax(z) for a short vector with the engine's softmax (the seeds' worked examples); n <= 16. */
void softmax_small(const double *z, int n, double *p);

#endif
