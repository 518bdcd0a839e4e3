/* attention_stats.h - what the scale ablation measures inside attention. */
#ifndef RUN_ATTENTION_STATS_H
#define RUN_ATTENTION_STATS_H

#include "../model/gpt.h"

typedef struct AttentionStats {
    double score_mean, score_std; /* of the scaled scores s q.k over visible (unmasked) entries */
    double entropy;       /* mean over query rows of -sum_j p_j log p_j (nats) */
    double entropy_norm;  /* mean of entropy / log(visible keys), rows with >= 2 visible keys */
    double max_weight;    /* mean over query rows of max_j p_j */
    /* The gradient reaching one query's scores, typical and small: the median and the 10th
     * percentile over query rows of |dL/dS_row| (S, what the softmax exponentiates), over the
     * rows a gradient reached (in the last layer, not the positions outside the loss); NaN when
     * the backward pass did not record it. And of the row's softmax Jacobian norm |J|_F,
     * J = diag(p) - p p^T. Both over rows of real tokens with at least two visible keys; NaN
     * when a counted row is not finite. A saturated (one-hot) row has J = 0: no gradient gets
     * through. */
    double qgrad_median, qgrad_p10;
    double jac_median, jac_p10;
    long rows, entries;   /* how many rows and entries were averaged */
} AttentionStats;

/* From one layer's trace: the scores S = trace->scale * trace->scores and the weights P, both
 * [B, H, T, T] with a causal mask (row i sees j <= i), and trace->row_grad_norms when set.
 * row_valid[b * T + i] says whether query i of sequence b is a real token (not padding);
 * NULL counts every row. Summed in a fixed order: same result for any thread count.
 * Scratch space comes from `scratch` (the tape's arena: no allocation). */
AttentionStats attention_stats(Arena *scratch, const AttentionTrace *trace, const unsigned char *row_valid);

/* The mean attention entropy of one head: for causal weights p [n, n] (row i spreads 1 over the
 * keys j <= i), the mean over the n query rows of H_i = -sum_{j <= i} p_ij log p_ij, in nats
 * (0 log 0 = 0). Row 0 sees one key and has H = 0; a row of i + 1 equal weights has log(i + 1). */
double attention_mean_entropy(const real *p, int n);

/* The q-quantile (0 <= q <= 1) of sorted x[0..n), interpolated linearly; NaN when n = 0. */
double quantile_sorted(const double *x, long n, double q);

/* Adds what rounding to a reduced precision did in each layer's trace of a step to per_layer[l]. */
void rounding_add(FormatCounts *per_layer, const AttentionTrace *trace, int layers);
/* The sum of per_layer[0 .. layers). */
FormatCounts rounding_total(const FormatCounts *per_layer, int layers);

/* sqrt(sum of squares), in double. */
double l2_norm(const real *x, size_t n);

#endif
