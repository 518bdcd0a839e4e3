/* op_round.c - a tensor rounded to a reduced-precision format (format.h), with the
 * straight-through gradient.
 *
 * round() is a staircase: its derivative is 0 between the steps and undefined on them, which
 * would stop all learning behind it. The straight-through estimator passes the gradient on
 * unchanged, as if the rounding were the identity (it is, up to half an ulp).
 */
#include "ops.h"
#include "parallel.h"

#include <assert.h>

typedef struct RoundSaved {
    Mask mask;
} RoundSaved;

/* straight-through: d round(x)/dx taken as 1, so dx = g; a masked entry is a constant 0 */
static void round_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0];
    const RoundSaved *saved = e->saved;
    real *dx = tape_grad(tp, x);
    const real *g = e->out->grad;
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    size_t rows = tensor_rows(x);
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t row = 0; row < rows; row++) {
        int n = mask_visible((int)(row % R), R, N, saved->mask);
        for (int j = 0; j < n; j++) dx[row * N + j] += g[row * N + j];
    }
}

Tensor *op_round(Tape *tp, Tensor *x, NumFormat format, Mask mask, FormatCounts *counts)
{
    assert(mask == MASK_NONE || x->ndim >= 2);
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "round");
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    size_t rows = tensor_rows(x);
    /* counts are integers: their sum is exact in any order, so reduction(+) gives the same
     * counts for any thread count (unlike a floating-point sum) */
    long overflow = 0, nan = 0, underflow = 0;
#pragma omp parallel for schedule(static) reduction(+ : overflow, nan, underflow) if (x->size >= PARALLEL_MIN_HEAVY) /* a rounding */
    for (size_t row = 0; row < rows; row++) {
        int n = mask_visible((int)(row % R), R, N, mask);
        const real *in = x->data + row * N;
        real *o = out->data + row * N;
        for (int j = 0; j < n; j++) {
            real v = in[j], r = format_round(v, format);
            o[j] = r;
            overflow += isfinite(v) && isinf(r);
            nan += isnan(r) && !isnan(v); /* never, for a rounding: a NaN is only passed on */
            underflow += v != 0 && r == 0;
        }
        for (int j = n; j < N; j++) o[j] = 0;
    }
    if (counts) {
        counts->overflow += overflow;
        counts->nan += nan;
        counts->underflow += underflow;
    }
    TapeEntry *e = tape_push(tp, round_backward, "round", out, x, NULL, NULL);
    if (e) {
        uint64_t visible = 0; /* 1 per rounded (visible) entry; the backward reads nothing */
        for (int r = 0; r < R; r++) visible += (uint64_t)mask_visible(r, R, N, mask);
        tape_cost(e, visible * (rows / (size_t)R), 0, 0);
        RoundSaved *saved = tape_save(tp, e, sizeof *saved);
        saved->mask = mask;
    }
    return out;
}
