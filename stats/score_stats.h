/* score_stats.h - the statistics behind the 1/sqrt(dk) argument, by Monte Carlo, without
 * training: how q.k is distributed, what the softmax of such scores looks like, and how large
 * the softmax's Jacobian is. Used by ./probe and by the tests. */
#ifndef STATS_SCORE_STATS_H
#define STATS_SCORE_STATS_H

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

/* One query against n keys, all iid N(0, 1) in dk dims, scores q.k / divisor:
 * means over `samples` draws of the softmax's entropy (nats), of its largest weight, and of
 * the Frobenius norm of its Jacobian diag(p) - p p^T; with their standard errors. */
typedef struct SoftmaxStats {
    double entropy, entropy_se;
    double max_weight;
    double jacobian, jacobian_se;
} SoftmaxStats;

/* Fills out[d] for each of the n_div divisors, from one shared set of draws. */
void softmax_stats(int dk, int n_keys, const double *divisors, int n_div, long samples, uint64_t seed,
                   SoftmaxStats *out);

/* ||diag(p) - p p^T||_F for a probability vector p of length n. */
double softmax_jacobian_norm(const double *p, int n);

#endif
