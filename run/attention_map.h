/* attention_map.h - what every head attends to, for one held-out example.
 *
 * The example is laid out as the decoder reads it, BOS source SEP target (n positions; the
 * final EOS is only a target), and run through the model alone, without dropout. Each layer's
 * trace holds P = softmax(S) with the causal mask; the map keeps a copy of it per head:
 *     weights[((l H + h) n + i) n + j] = P_ij of layer l, head h: how much query i takes from key j
 * with P_ij = 0 for j > i (hidden by the mask). Nothing here writes a file.
 */
#ifndef RUN_ATTENTION_MAP_H
#define RUN_ATTENTION_MAP_H

#include "../data/data.h"
#include "../model/gpt.h"

typedef struct AttentionMap {
    int layers, heads, n;    /* n: positions of the decoder input */
    int *tokens;             /* [n]: the input, BOS source SEP target */
    real *weights;           /* [layers, heads, n, n] */
    double *multiplier;      /* [layers, heads]: the factor the scores got (s, or cosine's tau); NaN for none */
    const char *multiplier_name; /* "s", "tau", or NULL when scores are not scaled (additive) */
    double *entropy;         /* [layers, heads]: attention_mean_entropy of the head, nats */
    Split split;
    int example;             /* its index in the split */
    int step;                /* the steps the model had done */
} AttentionMap;

/* The map of example `example` of a split (which must hold it) under model m, as it is after
 * `step` steps. Uses its own arena and tape: a training step in progress, its tape and its
 * arena are left as they are. Free with attention_map_free. */
void attention_map_capture(AttentionMap *am, Gpt *m, const Dataset *d, Split split, int example, int step);
void attention_map_free(AttentionMap *am);

/* P_ij of layer l, head h. */
real attention_map_weight(const AttentionMap *am, int l, int h, int i, int j);

#endif
