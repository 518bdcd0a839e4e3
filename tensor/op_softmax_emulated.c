/* op_softmax_emulated.c - the softmax as a GPU computing in a reduced precision would, for the
 * ablation (--softmax=naive, --precision=bf16|fp16). The textbook op is op_softmax.c; this one
 * computes p = softmax(s x) under a mask as SoftmaxEmulation (ops.h) asks:
 *
 *   naive     m = 0: p_j = exp(y_j) / sum_i exp(y_i) as written, with libm's exp for any y
 *             (Inf past ~88.7 in float; then Inf / Inf = NaN). Otherwise m = max_i y_i.
 *   format    e_j = round(exp(y_j - m)), S = round(sum_j e_j) (the sum of the rounded e_j added
 *             in the working precision, in column order, then rounded once), p_j = round(e_j / S).
 *             The exp is libm's here too, so that bf16's subnormals (below exp(-87)) exist.
 *   counts    what went wrong in a row, over its visible entries:
 *               overflow   exp values e_j that are +-Inf though y_j - m is finite, and row sums
 *                          S that are Inf though every e_j is finite;
 *               nan        NaN weights p_j made here (Inf / Inf), not NaN inputs passed on;
 *               underflow  weights p_j that are 0 though y_j - m and S are finite (the exp, the
 *                          division or a rounding lost a nonzero value).
 *
 * The backward pass is op_softmax.c's (softmax_record): the roundings are treated as the
 * identity (the straight-through gradient, as op_round), and the naive form is the same
 * function as the stable one.
 */
#include "op_softmax.h"
#include "parallel.h"

#include <assert.h>

/* p = softmax(s x) as em says (naive, rounded to em->format); counts added to em->counts. */
static void emulated_rows(const Tensor *x, const SoftmaxEmulation *em, real *out)
{
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    size_t rows = tensor_rows(x);
    real s = em->scale;
    NumFormat f = em->format;
    long overflow = 0, nan = 0, underflow = 0; /* integer sums: exact in any order (op_round.c) */
#pragma omp parallel for schedule(static) reduction(+ : overflow, nan, underflow) if (x->size >= PARALLEL_MIN_HEAVY)
    for (size_t row = 0; row < rows; row++) {
        const real *in = x->data + row * N;
        real *p = out + row * N;
        int n = mask_visible((int)(row % R), R, N, em->mask);
        real m = 0; /* naive: nothing subtracted */
        if (!em->naive) {
            m = s * in[0];
            for (int j = 1; j < n; j++) m = s * in[j] > m ? s * in[j] : m;
        }
        real sum = 0;
        bool finite_terms = true;
        for (int j = 0; j < n; j++) {
            real a = s * in[j] - m;
            p[j] = format_round(real_exp_full(a), f); /* e_j, until divided below */
            overflow += isfinite(a) && isinf(p[j]);
            finite_terms &= isfinite(p[j]);
            sum += p[j];
        }
        real S = format_round(sum, f);
        overflow += finite_terms && isinf(S);
        bool nan_in = false; /* a NaN that came in is not made here */
        for (int j = 0; j < n; j++) nan_in |= isnan(in[j]);
        for (int j = 0; j < n; j++) {
            /* e / S in the working precision, then rounded: still the correctly rounded quotient,
             * since rounding twice is harmless when the first has >= 2p + 2 bits (float: 24 >= 2*11 + 2) */
            p[j] = format_round(p[j] / S, f);
            nan += isnan(p[j]) && !nan_in; /* made here: Inf / Inf, an Inf - Inf row max */
            underflow += p[j] == 0 && isfinite(s * in[j] - m) && isfinite(S);
        }
        for (int j = n; j < N; j++) p[j] = 0;
    }
    if (em->counts) {
        em->counts->overflow += overflow;
        em->counts->nan += nan;
        em->counts->underflow += underflow;
    }
}

Tensor *op_softmax_emulated(Tape *tp, Tensor *x, const SoftmaxEmulation *em)
{
    assert(softmax_mask_fits(x, em->mask));
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "softmax");
    emulated_rows(x, em, out->data);
    softmax_record(tp, out, x, em->scale, em->mask, em->naive ? "naive softmax" : NULL);
    return out;
}
