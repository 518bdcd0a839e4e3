/* op_layernorm.c - layer normalisation over the last dim, with gain and bias.
 *
 * Per row of C values:  mu = mean(x),  var = mean((x - mu)^2),  r = 1 / sqrt(var + eps),
 *                       xhat = (x - mu) r,  y = xhat * gain + bias.
 */
#include "ops.h"
#include "parallel.h"
#include "sum16.h"

#include <assert.h>

typedef struct LayernormSaved {
    const real *stats; /* per row: mu, r */
} LayernormSaved;

/* The gain and bias gradients of columns [j0, j1): sums over rows, one thread per block. */
typedef struct LayernormParamGrads {
    const Tensor *x;
    const real *g, *stats;
    real *dgain, *dbias; /* NULL where no gradient is wanted */
} LayernormParamGrads;

static void layernorm_param_block(void *ctx, int j0, int j1)
{
    const LayernormParamGrads *c = ctx;
    int C = tensor_cols(c->x);
    size_t rows = tensor_rows(c->x);
    real sg[COLUMN_BLOCK] = {0}, sb[COLUMN_BLOCK] = {0};
    for (size_t row = 0; row < rows; row++) {
        const real *xr = c->x->data + row * C, *gr = c->g + row * C;
        real mu = c->stats[2 * row], r = c->stats[2 * row + 1];
        for (int j = j0; j < j1; j++) {
            sg[j - j0] += gr[j] * (xr[j] - mu) * r;
            sb[j - j0] += gr[j];
        }
    }
    for (int j = j0; j < j1; j++) {
        if (c->dgain) c->dgain[j] += sg[j - j0];
        if (c->dbias) c->dbias[j] += sb[j - j0];
    }
}

/* sum_j h_j and sum_j h_j xhat_j of one row, h = g * gain, xhat = (x - mu) r: 16 partial sums
 * each, in sum16.h's fixed order (so the compiler vectorises it and the bits stay put). */
static inline void layernorm_grad_sums(const real *g, const real *gain, const real *x, real mu, real r, int C,
                                       real *sum_h, real *sum_hx)
{
    real ah[SUM_LANES] = {0}, ahx[SUM_LANES] = {0};
    int i = 0;
    for (; i + SUM_LANES <= C; i += SUM_LANES)
        for (int l = 0; l < SUM_LANES; l++) {
            real h = g[i + l] * gain[i + l];
            ah[l] += h;
            ahx[l] += h * ((x[i + l] - mu) * r);
        }
    for (int l = 0; i + l < C; l++) {
        real h = g[i + l] * gain[i + l];
        ah[l] += h;
        ahx[l] += h * ((x[i + l] - mu) * r);
    }
    *sum_h = sum16_combine(ah);
    *sum_hx = sum16_combine(ahx);
}

static void layernorm_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0], *gain = e->in[1], *bias = e->in[2];
    const LayernormSaved *saved = e->saved;
    const real *stats = saved->stats;
    const real *g = e->out->grad;
    int C = tensor_cols(x);
    size_t rows = tensor_rows(x);
    if (x->requires_grad) {
        /* With h = g * gain (the gradient at xhat), differentiating through mu and r gives
         *   dx = r (h - mean(h) - xhat mean(h xhat)). */
        bool first_in;
        real *dx = tape_grad_whole(tp, x, &first_in);
        const bool first = first_in; /* a copy the loop can keep in a register */
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
        for (size_t row = 0; row < rows; row++) {
            const real *xr = x->data + row * C, *gr = g + row * C;
            real mu = stats[2 * row], r = stats[2 * row + 1];
            real mean_h, mean_hx;
            layernorm_grad_sums(gr, gain->data, xr, mu, r, C, &mean_h, &mean_hx);
            mean_h /= C;
            mean_hx /= C;
            real *d = dx + row * C;
            for (int j = 0; j < C; j++) {
                real h = gr[j] * gain->data[j], xhat = (xr[j] - mu) * r;
                real v = r * (h - mean_h - xhat * mean_hx);
                d[j] = first ? v : d[j] + v;
            }
        }
    }
    if (gain->requires_grad || bias->requires_grad) {
        /* dgain_j = sum over rows of g xhat,  dbias_j = sum over rows of g */
        LayernormParamGrads c = {x, g, stats, NULL, NULL};
        if (gain->requires_grad) c.dgain = tape_grad(tp, gain);
        if (bias->requires_grad) c.dbias = tape_grad(tp, bias);
        parallel_column_blocks(C, x->size, layernorm_param_block, &c);
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
        real mu = sum16(xr, C) / C;
        real var = sum16_squares_centred(xr, C, mu) / C; /* two passes: no cancellation */
        real r = 1 / real_sqrt(var + eps);
        for (int j = 0; j < C; j++) y[j] = (xr[j] - mu) * r * gain->data[j] + bias->data[j];
        stats[2 * row] = mu;
        stats[2 * row + 1] = r;
    }
    TapeEntry *e = tape_push(tp, layernorm_backward, "layernorm", out, x, gain, bias);
    /* 8 per element (mean: 1, variance: 3, (x - mu) r gain + bias: 4) and 5 per row (two
     * divisions by C, + eps, sqrt, 1 /); dx reads x and the gain, dgain reads x; both the stats */
    tape_cost(e, 8 * (uint64_t)x->size + 5 * (uint64_t)rows,
              (x->requires_grad || gain->requires_grad ? TAPE_READS_IN0 : 0) | (x->requires_grad ? TAPE_READS_IN1 : 0),
              2 * rows * sizeof(real));
    if (e) {
        LayernormSaved *saved = tape_save(tp, e, sizeof *saved);
        saved->stats = stats;
    }
    return out;
}
