/* op_softmax.c - softmax over the last dim, with an optional causal mask and an optional
 * scale folded in (softmax(s x) in one pass: the attention's "scale, mask, softmax"), and the
 * variants that show what a GPU's reduced precision does to it (op_softmax_spec).
 *
 * p_j = exp(x_j - m) / sum_i exp(x_i - m), m = max_i x_i. Subtracting the row max changes
 * nothing mathematically (the factor exp(-m) cancels) but keeps every exponent <= 0, so no
 * input, however large, overflows. Masked entries are left out of the max and the sum and
 * get p = 0 exactly (not a tiny number from exp(-1e9)).
 *
 * The variants (a row function of their own, so the default path stays as it was):
 *   naive     m = 0: p_j = exp(y_j) / sum_i exp(y_i) as written, with libm's exp for any y
 *             (Inf past ~88.7 in float; then Inf / Inf = NaN).
 *   format    e_j = round(exp(y_j - m)), S = round(sum_j e_j) (the sum of the rounded e_j added
 *             in the working precision, in column order, then rounded once), p_j = round(e_j / S).
 *             The exp is libm's here too, so that bf16's subnormals (below exp(-87)) exist.
 *   counts    what went wrong in a row, over its visible entries:
 *               overflow   exp values e_j that are +-Inf though y_j - m is finite, and row sums
 *                          S that are Inf though every e_j is finite;
 *               nan        NaN weights p_j made here (Inf / Inf), not NaN inputs passed on;
 *               underflow  weights p_j that are 0 though y_j - m and S are finite (the exp, the
 *                          division or a rounding lost a nonzero value).
 * The backward pass is the same for all: the roundings are treated as the identity (the
 * straight-through gradient, as op_round), the naive form is the same function as the stable one.
 */
#include "ops.h"
#include "parallel.h"
#include "sum16.h"

#include <assert.h>

typedef struct SoftmaxSaved {
    real scale; /* s of softmax(s x) */
    Mask mask;
    real *row_grad_norms; /* NULL, or where the backward writes |dL/dy| of each row */
} SoftmaxSaved;

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
        for (int j = 0; j < n; j++) p[j] = real_exp(s * in[j] - m);
        real sum = sum16(p, n); /* in a fixed order: the same bits on every machine (sum16.h) */
        real inv = 1 / sum; /* sum >= 1: the max term is exp(0) */
        for (int j = 0; j < n; j++) p[j] *= inv;
        for (int j = n; j < N; j++) p[j] = 0;
    }
}

/* The counts of softmax_rows' output (the fast path rounds nothing, no exponent is > 0 and the
 * row sum is >= 1): NaN weights, and zero weights of a finite y (their exp underflowed). */
static void count_fast_rows(const Tensor *x, real s, Mask mask, const real *out, FormatCounts *counts)
{
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    size_t rows = tensor_rows(x);
    for (size_t row = 0; row < rows; row++) {
        const real *in = x->data + row * N, *p = out + row * N;
        int n = mask_visible((int)(row % R), R, N, mask);
        bool nan_in = false;
        for (int j = 0; j < n; j++) nan_in |= isnan(in[j]);
        for (int j = 0; j < n; j++) {
            counts->nan += isnan(p[j]) && !nan_in;
            counts->underflow += p[j] == 0 && isfinite(s * in[j]);
        }
    }
}

/* p = softmax(s x) as spec says (naive, rounded to spec->format); counts added to spec->counts. */
static void softmax_rows_spec(const Tensor *x, const SoftmaxSpec *spec, real *out)
{
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    size_t rows = tensor_rows(x);
    real s = spec->scale;
    NumFormat f = spec->format;
    long overflow = 0, nan = 0, underflow = 0; /* integer sums: exact in any order (op_round.c) */
#pragma omp parallel for schedule(static) reduction(+ : overflow, nan, underflow) if (x->size >= PARALLEL_MIN / 8)
    for (size_t row = 0; row < rows; row++) {
        const real *in = x->data + row * N;
        real *p = out + row * N;
        int n = mask_visible((int)(row % R), R, N, spec->mask);
        real m = 0; /* naive: nothing subtracted */
        if (!spec->naive) {
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
    if (spec->counts) {
        spec->counts->overflow += overflow;
        spec->counts->nan += nan;
        spec->counts->underflow += underflow;
    }
}

/* |dL/dy| of one row: with dy_j = p_j (g_j - sum_i g_i p_i), sqrt(sum_j dy_j^2), in double;
 * -1 when no gradient reached the row (g = 0). */
static real row_grad_norm(const real *p, const real *g, int n)
{
    bool reached = false;
    for (int j = 0; j < n && !reached; j++) reached = g[j] != 0;
    if (!reached) return -1;
    double dot = 0, sq = 0;
    for (int j = 0; j < n; j++) dot += (double)g[j] * p[j];
    for (int j = 0; j < n; j++) {
        double d = p[j] * (g[j] - dot);
        sq += d * d;
    }
    return (real)sqrt(sq);
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
        int n = mask_visible((int)(row % R), R, N, saved->mask);
        real dot = dot16(g, p, n); /* sum_i g_i p_i, in a fixed order (sum16.h) */
        for (int j = 0; j < n; j++) d[j] += s * (p[j] * (g[j] - dot));
    }
    if (saved->row_grad_norms) { /* a loop of its own: the one above stays as fast as without */
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
        for (size_t row = 0; row < rows; row++) {
            int n = mask_visible((int)(row % R), R, N, saved->mask);
            saved->row_grad_norms[row] = row_grad_norm(out->data + row * N, out->grad + row * N, n);
        }
    }
}

Tensor *op_softmax_spec(Tape *tp, Tensor *x, const SoftmaxSpec *spec)
{
    int N = tensor_cols(x), R = x->ndim >= 2 ? x->shape[x->ndim - 2] : 1;
    assert(spec->mask == MASK_NONE || (x->ndim >= 2 && R <= N)); /* every row sees at least one column */
    real s = spec->scale;
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "softmax");
    if (spec->naive || spec->format != FORMAT_FP32) {
        softmax_rows_spec(x, spec, out->data);
    } else {
        softmax_rows(x, s, spec->mask, out->data);
        if (spec->counts) count_fast_rows(x, s, spec->mask, out->data, spec->counts);
    }
    const char *name = spec->naive ? "naive softmax" : s == 1 ? "softmax" : "scaled softmax";
    TapeEntry *e = tape_push(tp, softmax_backward, name, out, x, NULL, NULL);
    if (e) {
        /* per visible entry: the max, the subtraction, exp, the sum, the normalisation (5), and
         * the multiply by s when there is one; the backward reads p */
        uint64_t visible = 0;
        for (int r = 0; r < R; r++) visible += (uint64_t)mask_visible(r, R, N, spec->mask);
        visible *= tensor_rows(x) / (size_t)R;
        tape_cost(e, (s == 1 ? 5 : 6) * visible, TAPE_READS_OUT, 0);
        SoftmaxSaved *saved = tape_save(tp, e, sizeof *saved);
        saved->scale = s;
        saved->mask = spec->mask;
        saved->row_grad_norms = spec->row_grad_norms;
    }
    return out;
}

Tensor *op_softmax_scaled(Tape *tp, Tensor *x, real s, Mask mask)
{
    SoftmaxSpec spec = {.scale = s, .mask = mask};
    return op_softmax_spec(tp, x, &spec);
}

Tensor *op_softmax(Tape *tp, Tensor *x, Mask mask) { return op_softmax_scaled(tp, x, 1, mask); }
