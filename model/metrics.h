/* metrics.h - what the scale ablation measures inside attention. */
#ifndef MODEL_METRICS_H
#define MODEL_METRICS_H

#include "gpt.h"

typedef struct AttentionStats {
    double score_mean, score_std; /* of the scaled scores s q.k over visible (unmasked) entries */
    double entropy;       /* mean over query rows of -sum_j p_j log p_j (nats) */
    double entropy_norm;  /* mean of entropy / log(visible keys), rows with >= 2 visible keys */
    double max_weight;    /* mean over query rows of max_j p_j */
    long rows, entries;   /* how many rows and entries were averaged */
} AttentionStats;

/* From one layer's trace: the scores S = trace->scale * trace->scores and the weights P, both
 * [B, H, T, T] with a causal mask (row i sees j <= i).
 * row_valid[b * T + i] says whether query i of sequence b is a real token (not padding);
 * NULL counts every row. Summed in a fixed order: same result for any thread count.
 * Scratch space comes from `scratch` (the tape's arena: no allocation). */
AttentionStats attention_stats(Arena *scratch, const AttentionTrace *trace, const unsigned char *row_valid);

/* sqrt(sum of squares), in double. */
double l2_norm(const real *x, size_t n);

#endif
