/* op_l2_normalize.c - each row (the last dim) scaled to unit length.
 *
 * Per row: r = sqrt(|x|^2 + eps), y = x / r. The eps keeps a zero row finite (y = 0) and makes
 * the length slightly less than 1 for short rows; eps = 0 gives exactly unit rows (and NaN for a
 * zero row, which is not hidden).
 */
#include "ops.h"
#include "parallel.h"

typedef struct L2NormalizeSaved {
    const real *inv_r; /* per row: 1 / r */
} L2NormalizeSaved;

/* y_i = x_i / r with dr/dx_j = x_j / r = y_j, so dy_i/dx_j = (delta_ij - y_i y_j) / r and
 * dx_j = sum_i g_i dy_i/dx_j = (g_j - y_j (y . g)) / r. */
static void l2_normalize_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0];
    const L2NormalizeSaved *saved = e->saved;
    const real *y = e->out->data, *g = e->out->grad;
    real *dx = tape_grad(tp, x);
    int C = tensor_cols(x);
    size_t rows = tensor_rows(x);
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t row = 0; row < rows; row++) {
        const real *yr = y + row * C, *gr = g + row * C;
        real *d = dx + row * C;
        real dot = 0;
        for (int j = 0; j < C; j++) dot += yr[j] * gr[j];
        for (int j = 0; j < C; j++) d[j] += saved->inv_r[row] * (gr[j] - yr[j] * dot);
    }
}

Tensor *op_l2_normalize(Tape *tp, Tensor *x, real eps)
{
    int C = tensor_cols(x);
    size_t rows = tensor_rows(x);
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "l2_normalize");
    real *inv_r = arena_alloc(tp->arena, rows * sizeof(real));
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t row = 0; row < rows; row++) {
        const real *xr = x->data + row * C;
        real *yr = out->data + row * C;
        real sq = 0;
        for (int j = 0; j < C; j++) sq += xr[j] * xr[j];
        real inv = 1 / real_sqrt(sq + eps);
        for (int j = 0; j < C; j++) yr[j] = xr[j] * inv;
        inv_r[row] = inv;
    }
    TapeEntry *e = tape_push(tp, l2_normalize_backward, "l2_normalize", out, x, NULL, NULL);
    /* 3 per element (square, sum, multiply) and 3 per row (+ eps, sqrt, 1 /); the backward
     * reads y and keeps 1/r per row */
    tape_cost(e, 3 * (uint64_t)x->size + 3 * (uint64_t)rows, TAPE_READS_OUT, rows * sizeof(real));
    if (e) {
        L2NormalizeSaved *saved = tape_save(tp, e, sizeof *saved);
        saved->inv_r = inv_r;
    }
    return out;
}
