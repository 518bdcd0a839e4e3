/* attention_stats.c - score statistics, attention entropy and peakedness, per layer. */
#include "attention_stats.h"

#include "../tensor/parallel.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sums for one (batch, head) matrix, later added up in order. */
typedef struct StatSums {
    double n, sum, sumsq;           /* visible scores */
    double rows, ent, ent_rows, ent_norm, maxw;
} StatSums;

/* |J|_F of the softmax Jacobian J = diag(p) - p p^T at probabilities p[0..n), J_ij = p_i (d_ij - p_j):
 *     |J|_F^2 = sum_i p_i^2 (1 - p_i)^2 + sum_{i != j} p_i^2 p_j^2.
 * (The same as sum p^2 - 2 sum p^3 + (sum p^2)^2, but that form subtracts numbers near 1 and
 * returns rounding noise for a saturated row.) With m the largest entry, 1 - p_m is the sum of
 * the others, R, and the cross terms are 2 p_m^2 A + (A^2 - B) with A, B the sums of the
 * others' squares and fourth powers: every term is computed without cancellation. */
static double jacobian_norm(const real *p, int n)
{
    int m = 0;
    for (int j = 1; j < n; j++)
        if (p[j] > p[m]) m = j;
    double pm = p[m], R = 0, A = 0, B = 0, diag = 0;
    for (int j = 0; j < n; j++) {
        if (j == m) continue;
        double v = p[j], v2 = v * v;
        R += v;
        A += v2;
        B += v2 * v2;
        diag += v2 * (1 - v) * (1 - v);
    }
    double f2 = pm * pm * R * R + diag + 2 * pm * pm * A + (A * A - B);
    return sqrt(f2 > 0 ? f2 : 0);
}

double quantile_sorted(const double *x, long n, double q)
{
    if (n <= 0) return NAN;
    double at = q * (double)(n - 1);
    long i = (long)at;
    if (i >= n - 1) return x[n - 1];
    return x[i] + (at - (double)i) * (x[i + 1] - x[i]);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median and 10th percentile of the rows counted in x[0..n) (reordered): a negative entry
 * is a row left out; a NaN among the others makes both NaN (the layer's weights or gradients
 * were not finite: no quantile should look valid then). */
static void median_p10(double *x, long n, double *median, double *p10)
{
    long m = 0;
    bool nan = false;
    for (long i = 0; i < n; i++) {
        nan |= isnan(x[i]);
        if (x[i] >= 0) x[m++] = x[i];
    }
    qsort(x, (size_t)m, sizeof *x, compare_doubles);
    *median = nan ? NAN : quantile_sorted(x, m, 0.5);
    *p10 = nan ? NAN : quantile_sorted(x, m, 0.1);
}

AttentionStats attention_stats(Arena *scratch, const AttentionTrace *trace, const unsigned char *row_valid)
{
    const Tensor *S = trace->scores, *P = trace->weights;
    real s_scale = trace->scale;
    assert(S->ndim == 4 && tensor_same_shape(S, P) && S->shape[2] == S->shape[3]);
    int B = S->shape[0], H = S->shape[1], T = S->shape[2];
    StatSums *parts = arena_calloc(scratch, (size_t)B * H * sizeof *parts);
    /* per query row (-1: left out): the Jacobian norm, and the gradient norm when recorded
     * (-1 also where no gradient reached the row, NaN where the backward pass did not run) */
    size_t n_rows = (size_t)B * H * T;
    double *jac = arena_alloc(scratch, n_rows * sizeof *jac), *qgrad = arena_alloc(scratch, n_rows * sizeof *qgrad);
    const real *row_grads = trace->row_grad_norms;
#pragma omp parallel for schedule(static) if (S->size >= PARALLEL_MIN)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H;
        StatSums *st = &parts[bh];
        for (int i = 0; i < T; i++) {
            size_t row = (size_t)bh * T + i;
            jac[row] = qgrad[row] = -1;
            if (row_valid && !row_valid[b * T + i]) continue;
            const real *s = S->data + row * T, *p = P->data + row * T;
            int visible = i + 1;
            if (visible >= 2) { /* a row with one key has p = 1 and J = 0 at any scale: left out */
                jac[row] = jacobian_norm(p, visible);
                if (row_grads) qgrad[row] = row_grads[row];
            }
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
    median_p10(jac, (long)n_rows, &r.jac_median, &r.jac_p10);
    median_p10(qgrad, (long)n_rows, &r.qgrad_median, &r.qgrad_p10);
    return r;
}

double attention_mean_entropy(const real *p, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++) {
        const real *row = p + (size_t)i * n;
        double h = 0;
        for (int j = 0; j <= i; j++)
            if (!(row[j] <= 0)) h -= row[j] * log((double)row[j]); /* a NaN weight makes H NaN */
        sum += h;
    }
    return n > 0 ? sum / n : NAN;
}

void rounding_add(FormatCounts *per_layer, const AttentionTrace *trace, int layers)
{
    for (int l = 0; l < layers; l++) {
        per_layer[l].overflow += trace[l].rounding.overflow;
        per_layer[l].underflow += trace[l].rounding.underflow;
        per_layer[l].nan += trace[l].rounding.nan;
    }
}

FormatCounts rounding_total(const FormatCounts *per_layer, int layers)
{
    FormatCounts t = {0};
    for (int l = 0; l < layers; l++) {
        t.overflow += per_layer[l].overflow;
        t.underflow += per_layer[l].underflow;
        t.nan += per_layer[l].nan;
    }
    return t;
}

double l2_norm(const real *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)x[i] * x[i];
    return sqrt(s);
}
