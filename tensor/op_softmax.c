/* op_softmax.c - softmax over the last dim, with an optional causal mask and an optional
 * scale folded in (softmax(s x) in one pass: the attention's "scale, mask, softmax").
 *
 * p_j = exp(x_j - m) / sum_i exp(x_i - m), m = max_i x_i. Subtracting the row max changes
 * nothing mathematically (the factor exp(-m) cancels) but keeps every exponent <= 0, so no
 * input, however large, overflows. Masked entries are left out of the max and the sum and
 * get p = 0 exactly (not a tiny number from exp(-1e9)).
 */
#include "ops.h"
#include "parallel.h"

#include <assert.h>

typedef struct SoftmaxSaved {
    real scale; /* s of softmax(s x) */
    Mask mask;
} SoftmaxSaved;

/* How many leading columns row r of an R x N matrix may see. */
static int visible_cols(int r, int R, int N, Mask mask)
{
    if (mask == MASK_NONE) return N;
    int v = r + 1 + (N - R);
    return v < 0 ? 0 : (v > N ? N : v);
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
        int n = visible_cols((int)(row % R), R, N, mask);
        real m = s * in[0];
#pragma omp simd reduction(max : m)
        for (int j = 1; j < n; j++) m = s * in[j] > m ? s * in[j] : m;
        real sum = 0;
#pragma omp simd reduction(+ : sum)
        for (int j = 0; j < n; j++) {
            p[j] = real_exp(s * in[j] - m);
            sum += p[j];
        }
        real inv = 1 / sum; /* sum >= 1: the max term is exp(0) */
        for (int j = 0; j < n; j++) p[j] *= inv;
        for (int j = n; j < N; j++) p[j] = 0;
    }
}

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
        int n = visible_cols((int)(row % R), R, N, saved->mask);
        real dot = 0;
#pragma omp simd reduction(+ : dot)
        for (int j = 0; j < n; j++) dot += g[j] * p[j];
        for (int j = 0; j < n; j++) d[j] += s * (p[j] * (g[j] - dot));
    }
}

Tensor *op_softmax_scaled(Tape *tp, Tensor *x, real s, Mask mask)
{
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    assert(mask == MASK_NONE || (x->ndim >= 2 && R <= N)); /* every row sees at least one column */
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "softmax");
    softmax_rows(x, s, mask, out->data);
    TapeEntry *e = tape_push(tp, softmax_backward, s == 1 ? "softmax" : "scaled softmax", out, x, NULL, NULL);
    if (e) {
        SoftmaxSaved *saved = tape_save(tp, e, sizeof *saved);
        saved->scale = s;
        saved->mask = mask;
    }
    return out;
}

Tensor *op_softmax(Tape *tp, Tensor *x, Mask mask) { return op_softmax_scaled(tp, x, 1, mask); }
