/* op_softmax.c - softmax over the last dim, with an optional causal mask.
 *
 * p_j = exp(x_j - m) / sum_i exp(x_i - m), m = max_i x_i. Subtracting the row max changes
 * nothing mathematically (the factor exp(-m) cancels) but keeps every exponent <= 0, so no
 * input, however large, overflows. Masked entries are left out of the max and the sum and
 * get p = 0 exactly (not a tiny number from exp(-1e9)).
 */
#include "ops.h"

#include <assert.h>

#define PARALLEL_MIN 32768

/* How many leading columns row r of an R x N matrix may see. */
static int visible_cols(int r, int R, int N, bool causal)
{
    if (!causal) return N;
    int v = r + 1 + (N - R);
    return v < 0 ? 0 : (v > N ? N : v);
}

static void softmax_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0];
    const Tensor *out = e->out;
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    bool causal = e->i[0];
    size_t rows = tensor_rows(x);
    real *dx = tensor_grad(tp->arena, x);
    /* dp/dx = diag(p) - p p^T, so dx_j = p_j (g_j - sum_i g_i p_i) */
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t row = 0; row < rows; row++) {
        const real *p = out->data + row * N, *g = out->grad + row * N;
        real *d = dx + row * N;
        int n = visible_cols((int)(row % R), R, N, causal);
        real dot = 0;
        for (int j = 0; j < n; j++) dot += g[j] * p[j];
        for (int j = 0; j < n; j++) d[j] += p[j] * (g[j] - dot);
    }
}

Tensor *op_softmax(Tape *tp, Tensor *x, bool causal)
{
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    assert(!causal || (x->ndim >= 2 && R <= N)); /* every row sees at least one column */
    size_t rows = tensor_rows(x);
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "softmax");
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t row = 0; row < rows; row++) {
        const real *in = x->data + row * N;
        real *p = out->data + row * N;
        int n = visible_cols((int)(row % R), R, N, causal);
        real m = in[0];
        for (int j = 1; j < n; j++) m = in[j] > m ? in[j] : m;
        real sum = 0;
        for (int j = 0; j < n; j++) {
            p[j] = real_exp(in[j] - m);
            sum += p[j];
        }
        real inv = 1 / sum; /* sum >= 1: the max term is exp(0) */
        for (int j = 0; j < n; j++) p[j] *= inv;
        for (int j = n; j < N; j++) p[j] = 0;
    }
    TapeEntry *e = tape_push(tp, softmax_backward, "softmax", out, x, NULL, NULL);
    if (e) e->i[0] = causal;
    return out;
}
