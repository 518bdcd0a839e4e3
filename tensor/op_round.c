/* op_round.c - a tensor rounded to a reduced-precision format (format.h), with the
 * straight-through gradient.
 *
 * round() is a staircase: its derivative is 0 between the steps and undefined on them, which
 * would stop all learning behind it. The straight-through estimator passes the gradient on
 * unchanged, as if the rounding were the identity (it is, up to half an ulp).
 */
#include "ops.h"
#include "parallel.h"

/* straight-through: d round(x)/dx taken as 1, so dx = g */
static void round_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0];
    real *dx = tape_grad(tp, x);
    const real *g = e->out->grad;
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t i = 0; i < x->size; i++) dx[i] += g[i];
}

Tensor *op_round(Tape *tp, Tensor *x, NumFormat format, FormatCounts *counts)
{
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "round");
    /* counts are integers: their sum is exact in any order, so reduction(+) gives the same
     * counts for any thread count (unlike a floating-point sum) */
    long overflow = 0, nan = 0, underflow = 0;
    /* a rounding (a few libm calls) costs many adds: worth splitting from 1/8 of PARALLEL_MIN */
#pragma omp parallel for schedule(static) reduction(+ : overflow, nan, underflow) if (x->size >= PARALLEL_MIN / 8)
    for (size_t i = 0; i < x->size; i++) {
        real v = x->data[i], r = format_round(v, format);
        out->data[i] = r;
        overflow += isfinite(v) && isinf(r);
        nan += isnan(r);
        underflow += v != 0 && r == 0; /* a NaN v gives a NaN r, which is != 0 */
    }
    if (counts) {
        counts->overflow += overflow;
        counts->nan += nan;
        counts->underflow += underflow;
    }
    tape_push(tp, round_backward, "round", out, x, NULL, NULL);
    return out;
}
