/* op_softmax.c - softmax over the last dim, with an optional causal mask and an optional
 * scale folded in: softmax(s x) in one pass (the attention's "scale, mask, softmax").
 *
 * p_j = exp(y_j - m) / sum_i exp(y_i - m), y = s x, m = max_i y_i. Subtracting the row max
 * changes nothing mathematically (the factor exp(-m) cancels) but keeps every exponent <= 0,
 * so no input, however large, overflows. Masked entries are left out of the max and the sum
 * and get p = 0 exactly (not a tiny number from exp(-1e9)).
 *
 * What a GPU's reduced precision does to it (the naive form, rounding, counts) is another op,
 * op_softmax_emulated.c, recorded with this file's backward pass (softmax_record).
 */
#include "op_softmax.h"
#include "parallel.h"
#include "sum16.h"

#include <assert.h>

/* p[j] = exp(s x[j] - m) for j < n, in groups of SUM_LANES: the last, partial group through
 * a zero-padded copy, so that a short row (a causal row with few visible entries) runs as
 * vector code too. Each value is the one a plain loop computes: only the loop's shape changes. */
static inline void exp_shifted_row(const real *x, int n, real s, real m, real *p)
{
    int j = 0;
    for (; j + SUM_LANES <= n; j += SUM_LANES)
        for (int l = 0; l < SUM_LANES; l++) p[j + l] = real_exp(s * x[j + l] - m);
    if (j == n) return;
    real t[SUM_LANES];
#pragma omp simd
    for (int l = 0; l < SUM_LANES; l++) t[l] = j + l < n ? x[j + l] : 0;
#pragma omp simd
    for (int l = 0; l < SUM_LANES; l++) t[l] = real_exp(s * t[l] - m); /* the padding's values are not used */
    for (int l = 0; j + l < n; l++) p[j + l] = t[l];
}

/* p = softmax(s x) over each row, for the rows of x. */
static void softmax_rows(const Tensor *x, real s, Mask mask, real *out)
{
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    size_t rows = tensor_rows(x);
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t row = 0; row < rows; row++) {
        const real *in = x->data + row * N;
        real *p = out + row * N;
        int n = mask_visible((int)(row % R), R, N, mask);
        real m = max16_scaled(in, n, s); /* exact: any order gives the same max */
        exp_shifted_row(in, n, s, m, p); /* p_j = exp(s x_j - m) */
        real sum = sum16(p, n); /* in a fixed order: the same bits on every machine (sum16.h) */
        real inv = 1 / sum; /* sum >= 1: the max term is exp(0) */
#pragma omp simd
        for (int j = 0; j < n; j++) p[j] *= inv;
        for (int j = n; j < N; j++) p[j] = 0; /* masked: exactly 0 (never read before: the arena's) */
    }
}

typedef struct SoftmaxSaved {
    real scale; /* s of softmax(s x) */
    Mask mask;
} SoftmaxSaved;

static void softmax_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0];
    const Tensor *out = e->out;
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    const SoftmaxSaved *saved = e->saved;
    real s = saved->scale;
    size_t rows = tensor_rows(x);
    real *dx = tape_grad(tp, x);
    /* dp/dy = diag(p) - p p^T with y = s x, so dx_j = s p_j (g_j - sum_i g_i p_i) */
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t row = 0; row < rows; row++) {
        const real *p = out->data + row * N, *g = out->grad + row * N;
        real *d = dx + row * N;
        int n = mask_visible((int)(row % R), R, N, saved->mask);
        real dot = dot16(g, p, n); /* sum_i g_i p_i, in a fixed order (sum16.h) */
        for (int j = 0; j < n; j++) d[j] += s * (p[j] * (g[j] - dot));
    }
}

void softmax_record(Tape *tp, Tensor *out, Tensor *x, real s, Mask mask, const char *name)
{
    TapeEntry *e = tape_push(tp, softmax_backward, name ? name : s == 1 ? "softmax" : "scaled softmax", out, x, NULL, NULL);
    if (!e) return;
    /* per visible entry: the max, the subtraction, exp, the sum, the normalisation (5), and
     * the multiply by s when there is one; the backward reads p */
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    uint64_t visible = 0;
    for (int r = 0; r < R; r++) visible += (uint64_t)mask_visible(r, R, N, mask);
    visible *= tensor_rows(x) / (size_t)R;
    tape_cost(e, (s == 1 ? 5 : 6) * visible, TAPE_READS_OUT, 0);
    SoftmaxSaved *saved = tape_save(tp, e, sizeof *saved);
    saved->scale = s;
    saved->mask = mask;
}

Tensor *op_softmax_scaled(Tape *tp, Tensor *x, real s, Mask mask)
{
    assert(softmax_mask_fits(x, mask));
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "softmax");
    softmax_rows(x, s, mask, out->data);
    softmax_record(tp, out, x, s, mask, NULL);
    return out;
}

Tensor *op_softmax(Tape *tp, Tensor *x, Mask mask) { return op_softmax_scaled(tp, x, 1, mask); }
