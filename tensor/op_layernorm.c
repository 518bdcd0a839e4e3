/* op_layernorm.c - layer normalisation over the last dim, with gain and bias.
 *
 * Per row of C values:  mu = mean(x),  var = mean((x - mu)^2),  r = 1 / sqrt(var + eps),
 *                       xhat = (x - mu) r,  y = xhat * gain + bias.
 */
#include "ops.h"

#include <assert.h>

#define PARALLEL_MIN 32768

static void layernorm_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0], *gain = e->in[1], *bias = e->in[2];
    const real *stats = e->saved; /* mean, rstd per row */
    const real *g = e->out->grad;
    int C = tensor_cols(x);
    size_t rows = tensor_rows(x);
    if (x->requires_grad) {
        /* With h = g * gain (the gradient at xhat), differentiating through mu and r gives
         *   dx = r (h - mean(h) - xhat mean(h xhat)). */
        real *dx = tape_grad(tp, x);
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
        for (size_t row = 0; row < rows; row++) {
            const real *xr = x->data + row * C, *gr = g + row * C;
            real mu = stats[2 * row], r = stats[2 * row + 1];
            real mean_h = 0, mean_hx = 0;
            for (int j = 0; j < C; j++) {
                real h = gr[j] * gain->data[j], xhat = (xr[j] - mu) * r;
                mean_h += h;
                mean_hx += h * xhat;
            }
            mean_h /= C;
            mean_hx /= C;
            real *d = dx + row * C;
            for (int j = 0; j < C; j++) {
                real h = gr[j] * gain->data[j], xhat = (xr[j] - mu) * r;
                d[j] += r * (h - mean_h - xhat * mean_hx);
            }
        }
    }
    if (gain->requires_grad || bias->requires_grad) {
        /* dgain_j = sum over rows of g xhat,  dbias_j = sum over rows of g.
         * Split by columns so each sum is taken by one thread, rows in order. */
        real *dgain = gain->requires_grad ? tape_grad(tp, gain) : NULL;
        real *dbias = bias->requires_grad ? tape_grad(tp, bias) : NULL;
        enum { COLS = 64 };
        int blocks = (C + COLS - 1) / COLS;
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
        for (int blk = 0; blk < blocks; blk++) {
            int j0 = blk * COLS, j1 = j0 + COLS < C ? j0 + COLS : C;
            real sg[COLS] = {0}, sb[COLS] = {0};
            for (size_t row = 0; row < rows; row++) {
                const real *xr = x->data + row * C, *gr = g + row * C;
                real mu = stats[2 * row], r = stats[2 * row + 1];
                for (int j = j0; j < j1; j++) {
                    sg[j - j0] += gr[j] * (xr[j] - mu) * r;
                    sb[j - j0] += gr[j];
                }
            }
            for (int j = j0; j < j1; j++) {
                if (dgain) dgain[j] += sg[j - j0];
                if (dbias) dbias[j] += sb[j - j0];
            }
        }
    }
}

Tensor *op_layernorm(Tape *tp, Tensor *x, Tensor *gain, Tensor *bias, real eps)
{
    int C = tensor_cols(x);
    assert(gain->size == (size_t)C && bias->size == (size_t)C);
    size_t rows = tensor_rows(x);
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "layernorm");
    real *stats = arena_alloc(tp->arena, 2 * rows * sizeof(real));
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t row = 0; row < rows; row++) {
        const real *xr = x->data + row * C;
        real *y = out->data + row * C;
        real mu = 0, var = 0;
        for (int j = 0; j < C; j++) mu += xr[j];
        mu /= C;
        for (int j = 0; j < C; j++) var += (xr[j] - mu) * (xr[j] - mu); /* two passes: no cancellation */
        var /= C;
        real r = 1 / real_sqrt(var + eps);
        for (int j = 0; j < C; j++) y[j] = (xr[j] - mu) * r * gain->data[j] + bias->data[j];
        stats[2 * row] = mu;
        stats[2 * row + 1] = r;
    }
    TapeEntry *e = tape_push(tp, layernorm_backward, "layernorm", out, x, gain, bias);
    if (e) e->saved = stats;
    return out;
}
