/* metrics.c - score statistics, attention entropy and peakedness, per layer. */
#include "metrics.h"

#include "../tensor/parallel.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* Sums for one (batch, head) matrix, later added up in order. */
typedef struct StatSums {
    double n, sum, sumsq;           /* visible scores */
    double rows, ent, ent_rows, ent_norm, maxw;
} StatSums;

AttentionStats attention_stats(Arena *scratch, const AttentionTrace *trace, const unsigned char *row_valid)
{
    const Tensor *S = trace->scores, *P = trace->weights;
    real s_scale = trace->scale;
    assert(S->ndim == 4 && tensor_same_shape(S, P) && S->shape[2] == S->shape[3]);
    int B = S->shape[0], H = S->shape[1], T = S->shape[2];
    StatSums *parts = arena_calloc(scratch, (size_t)B * H * sizeof *parts);
#pragma omp parallel for schedule(static) if (S->size >= PARALLEL_MIN)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H;
        StatSums *st = &parts[bh];
        for (int i = 0; i < T; i++) {
            if (row_valid && !row_valid[b * T + i]) continue;
            const real *s = S->data + ((size_t)bh * T + i) * T, *p = P->data + ((size_t)bh * T + i) * T;
            int visible = i + 1;
            double h = 0, mx = 0;
            for (int j = 0; j < visible; j++) {
                double v = (double)(s_scale * s[j]); /* the scaled score, rounded as the softmax saw it */
                st->n += 1;
                st->sum += v;
                st->sumsq += v * v;
                if (p[j] > 0) h -= p[j] * log((double)p[j]); /* 0 log 0 = 0 */
                if (p[j] > mx) mx = p[j];
            }
            st->rows += 1;
            st->ent += h;
            st->maxw += mx;
            if (visible >= 2) {
                st->ent_rows += 1;
                st->ent_norm += h / log((double)visible);
            }
        }
    }
    StatSums t = {0};
    for (int k = 0; k < B * H; k++) {
        t.n += parts[k].n;
        t.sum += parts[k].sum;
        t.sumsq += parts[k].sumsq;
        t.rows += parts[k].rows;
        t.ent += parts[k].ent;
        t.ent_rows += parts[k].ent_rows;
        t.ent_norm += parts[k].ent_norm;
        t.maxw += parts[k].maxw;
    }
    AttentionStats r = {0};
    r.rows = (long)t.rows;
    r.entries = (long)t.n;
    if (t.n > 0) {
        r.score_mean = t.sum / t.n;
        double var = t.sumsq / t.n - r.score_mean * r.score_mean;
        r.score_std = sqrt(var > 0 ? var : 0);
    }
    if (t.rows > 0) {
        r.entropy = t.ent / t.rows;
        r.max_weight = t.maxw / t.rows;
    }
    if (t.ent_rows > 0) r.entropy_norm = t.ent_norm / t.ent_rows;
    return r;
}

double l2_norm(const real *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)x[i] * x[i];
    return sqrt(s);
}
