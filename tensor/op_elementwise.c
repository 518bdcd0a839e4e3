/* op_elementwise.c - add (with bias broadcast), scale, per-head scale, GELU, tanh, exp, and the
 * pairwise add of additive attention.
 *
 * Parallel loops split the *output* between threads; a gradient that sums over rows (a bias)
 * is split by column (sum_rows_into), each column summed by one thread in row order.
 */
#include "ops.h"
#include "parallel.h"

#include <assert.h>
#include <math.h>
#include "openmp.h"

/* ------------------------------------------------------------------ add */

/* da (or db, not broadcast) = g when this op is the first to reach it (tape_grad_whole: no zeroed
 * buffer to add to), += g otherwise. */
static void pass_gradient(Tape *tp, Tensor *x, const real *g)
{
    bool first;
    real *dx = tape_grad_whole(tp, x, &first);
    if (first) {
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
        for (size_t i = 0; i < x->size; i++) dx[i] = g[i];
    } else {
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
        for (size_t i = 0; i < x->size; i++) dx[i] += g[i];
    }
}

static void add_backward(Tape *tp, TapeEntry *e)
{
    Tensor *a = e->in[0], *b = e->in[1];
    const real *g = e->out->grad;
    if (a->requires_grad) pass_gradient(tp, a, g); /* d(a + b)/da = 1 */
    if (b->requires_grad && b->size == a->size) pass_gradient(tp, b, g);
    else if (b->requires_grad) { /* b was added to every row: its gradient is the sum over rows */
        real *db = tape_grad(tp, b);
        sum_rows_into(g, a->size / b->size, (int)b->size, db);
    }
}

Tensor *op_add(Tape *tp, Tensor *a, Tensor *b)
{
    /* b's shape must be a's trailing dims */
    assert(b->ndim <= a->ndim);
    for (int d = 1; d <= b->ndim; d++) assert(b->shape[b->ndim - d] == a->shape[a->ndim - d]);
    Tensor *out = tensor_new(tp->arena, a->ndim, a->shape, "add");
    size_t n = b->size, rows = a->size / n;
    if (rows == 1) { /* the same shape (the residual stream): split the elements, not the one row */
#pragma omp parallel for schedule(static) if (a->size >= PARALLEL_MIN)
        for (size_t i = 0; i < n; i++) out->data[i] = a->data[i] + b->data[i];
    } else {         /* b broadcast over rows */
#pragma omp parallel for schedule(static) if (a->size >= PARALLEL_MIN)
        for (size_t r = 0; r < rows; r++)
            for (size_t j = 0; j < n; j++) out->data[r * n + j] = a->data[r * n + j] + b->data[j];
    }
    tape_cost(tape_push(tp, add_backward, "add", out, a, b, NULL), out->size, 0, 0); /* 1 per element; reads nothing */
    return out;
}

/* ------------------------------------------------------------------ scale */

typedef struct ScaleSaved {
    real s;
} ScaleSaved;

static void scale_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0];
    const ScaleSaved *saved = e->saved;
    real s = saved->s, *dx = tape_grad(tp, x);
    const real *g = e->out->grad;
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t i = 0; i < x->size; i++) dx[i] += s * g[i]; /* d(s x)/dx = s */
}

Tensor *op_scale(Tape *tp, Tensor *x, real s)
{
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "scale");
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t i = 0; i < x->size; i++) out->data[i] = s * x->data[i];
    TapeEntry *e = tape_push(tp, scale_backward, "scale", out, x, NULL, NULL);
    tape_cost(e, out->size, 0, 0); /* 1 per element; the backward needs only s */
    if (e) {
        ScaleSaved *saved = tape_save(tp, e, sizeof *saved);
        saved->s = s;
    }
    return out;
}

/* ------------------------------------------------------------------ per-head scale */

static void scale_heads_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0], *s = e->in[1];
    int B = x->shape[0], H = x->shape[1];
    size_t n = x->size / ((size_t)B * H); /* elements per (batch, head) matrix */
    const real *g = e->out->grad;
    if (x->requires_grad) { /* dx = s[h] g */
        real *dx = tape_grad(tp, x);
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
        for (int bh = 0; bh < B * H; bh++)
            for (size_t i = 0; i < n; i++) dx[bh * n + i] += s->data[bh % H] * g[bh * n + i];
    }
    if (s->requires_grad) { /* ds[h] = sum over its elements of g * x, batch items in order */
        real *ds = tape_grad(tp, s);
        double *part = arena_alloc(tp->arena, (size_t)B * H * sizeof(double));
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
        for (int bh = 0; bh < B * H; bh++) {
            double acc = 0;
            for (size_t i = 0; i < n; i++) acc += (double)g[bh * n + i] * x->data[bh * n + i];
            part[bh] = acc;
        }
        for (int h = 0; h < H; h++) {
            double acc = 0;
            for (int b = 0; b < B; b++) acc += part[b * H + h];
            ds[h] += (real)acc;
        }
    }
}

Tensor *op_scale_heads(Tape *tp, Tensor *x, Tensor *s)
{
    assert(x->ndim == 4 && s->size == (size_t)x->shape[1]);
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "scale_heads");
    int B = x->shape[0], H = x->shape[1];
    size_t n = x->size / ((size_t)B * H);
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (int bh = 0; bh < B * H; bh++)
        for (size_t i = 0; i < n; i++) out->data[bh * n + i] = s->data[bh % H] * x->data[bh * n + i];
    TapeEntry *e = tape_push(tp, scale_heads_backward, "scale_heads", out, x, s, NULL);
    /* 1 per element; dx = s g reads s, ds = sum g x reads x */
    tape_cost(e, out->size, (s->requires_grad ? TAPE_READS_IN0 : 0) | (x->requires_grad ? TAPE_READS_IN1 : 0), 0);
    return out;
}

/* ------------------------------------------------------------------ GELU */

#define GELU_C 0.7978845608028654 /* sqrt(2 / pi) */

/* y = x/2 (1 + tanh u), u = c (x + 0.044715 x^3). Since (1 + tanh u)/2 = sigma(2u), the logistic
 * function, y = x sigma(2u); with e = exp(-2|u|) <= 1 (no overflow, one exp, one division):
 *     sigma(2u) = 1 / (1 + e) for u >= 0,  e / (1 + e) for u < 0. */
static inline real gelu_sigma(real v)
{
    real u = (real)GELU_C * (v + (real)0.044715 * v * v * v);
    real e = real_exp(-2 * (u < 0 ? -u : u));
    return (u < 0 ? e : 1) / (1 + e);
}

/* dy/dx = sigma + x sigma (1 - sigma) 2c (1 + 3 * 0.044715 x^2), since sigma' = sigma (1 - sigma).
 * Where sigma (1 - sigma) is 0 (|x| beyond ~10) the slope is sigma: the second term would be
 * 0 * Inf = NaN for |x| above ~1e19, where x^2 overflows. */
static inline real gelu_slope(real v)
{
    real sig = gelu_sigma(v);
    if (sig * (1 - sig) == 0) return sig;
    return sig + v * sig * (1 - sig) * (real)(2 * GELU_C) * (1 + (real)(3 * 0.044715) * v * v);
}

/* dx = g dy/dx, the slope recomputed from x (cheaper than keeping an array of it alive) */
static void gelu_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0];
    bool first;
    real *dx = tape_grad_whole(tp, x, &first);
    const real *g = e->out->grad, *xd = x->data;
    size_t n = x->size;
    if (first) {
#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN_HEAVY) /* an exp, a division */
        for (size_t i = 0; i < n; i++) dx[i] = g[i] * gelu_slope(xd[i]);
    } else {
#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN_HEAVY)
        for (size_t i = 0; i < n; i++) dx[i] += g[i] * gelu_slope(xd[i]);
    }
}

Tensor *op_gelu(Tape *tp, Tensor *x)
{
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "gelu");
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN_HEAVY) /* an exp, a division */
    for (size_t i = 0; i < x->size; i++) out->data[i] = x->data[i] * gelu_sigma(x->data[i]);
    /* 9 per element (x^3: 2, the polynomial: 3, exp, 1 +, the division, the multiply); the
     * backward reads x */
    tape_cost(tape_push(tp, gelu_backward, "gelu", out, x, NULL, NULL), 9 * (uint64_t)out->size, TAPE_READS_IN0, 0);
    return out;
}

/* ------------------------------------------------------------------ tanh, exp */

/* Both derivatives are functions of the output y alone, so the backward reads y, not x. */
typedef enum Pointwise { POINTWISE_TANH, POINTWISE_EXP } Pointwise;

typedef struct PointwiseSaved {
    Pointwise fn;
} PointwiseSaved;

static void pointwise_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0];
    const PointwiseSaved *saved = e->saved;
    real *dx = tape_grad(tp, x);
    const real *y = e->out->data, *g = e->out->grad;
    if (saved->fn == POINTWISE_TANH) { /* d tanh(x)/dx = 1 - tanh^2 x = 1 - y^2 */
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
        for (size_t i = 0; i < x->size; i++) dx[i] += g[i] * (1 - y[i] * y[i]);
    } else { /* d exp(x)/dx = exp(x) = y */
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
        for (size_t i = 0; i < x->size; i++) dx[i] += g[i] * y[i];
    }
}

static Tensor *pointwise(Tape *tp, Tensor *x, Pointwise fn, const char *name)
{
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, name);
    real *y = out->data;
    if (fn == POINTWISE_TANH) {
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN_HEAVY) /* a tanh */
        for (size_t i = 0; i < x->size; i++) y[i] = real_tanh(x->data[i]);
    } else { /* libm's exp, for any x: overflows to Inf where exp(x) is beyond the largest real */
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN_HEAVY) /* libm's exp */
        for (size_t i = 0; i < x->size; i++) y[i] = real_exp_full(x->data[i]);
    }
    TapeEntry *e = tape_push(tp, pointwise_backward, name, out, x, NULL, NULL);
    tape_cost(e, out->size, TAPE_READS_OUT, 0); /* 1 per element; the derivative is a function of y */
    if (e) {
        PointwiseSaved *saved = tape_save(tp, e, sizeof *saved);
        saved->fn = fn;
    }
    return out;
}

Tensor *op_tanh(Tape *tp, Tensor *x) { return pointwise(tp, x, POINTWISE_TANH, "tanh"); }

Tensor *op_exp(Tape *tp, Tensor *x) { return pointwise(tp, x, POINTWISE_EXP, "exp"); }

/* ------------------------------------------------------------------ add every pair of rows */

/* out[n, i, j, :] = a[n, i, :] + b[n, j, :], so each a row reaches C outputs and each b row R:
 *   da[n, i] = sum over j of g[n, i, j],  db[n, j] = sum over i of g[n, i, j].
 * Each gradient row is one output of the loop, summed by one thread in order of j (or i). */
static void add_pairs_backward(Tape *tp, TapeEntry *e)
{
    Tensor *a = e->in[0], *b = e->in[1];
    int N = a->shape[0], R = a->shape[1], C = b->shape[1], D = a->shape[2];
    const real *g = e->out->grad;
    if (a->requires_grad) {
        real *da = tape_grad(tp, a);
#pragma omp parallel for schedule(static) if (e->out->size >= PARALLEL_MIN)
        for (int ni = 0; ni < N * R; ni++) /* the row (n, i) of a: g[n, i, j] for j = 0..C-1 */
            for (int j = 0; j < C; j++)
                for (int d = 0; d < D; d++) da[(size_t)ni * D + d] += g[((size_t)ni * C + j) * D + d];
    }
    if (b->requires_grad) {
        real *db = tape_grad(tp, b);
#pragma omp parallel for schedule(static) if (e->out->size >= PARALLEL_MIN)
        for (int nj = 0; nj < N * C; nj++) { /* the row (n, j) of b: g[n, i, j] for i = 0..R-1 */
            int n = nj / C, j = nj % C;
            for (int i = 0; i < R; i++)
                for (int d = 0; d < D; d++) db[(size_t)nj * D + d] += g[(((size_t)n * R + i) * C + j) * D + d];
        }
    }
}

Tensor *op_add_pairs(Tape *tp, Tensor *a, Tensor *b)
{
    assert(a->ndim == 3 && b->ndim == 3 && a->shape[0] == b->shape[0] && a->shape[2] == b->shape[2]);
    int N = a->shape[0], R = a->shape[1], C = b->shape[1], D = a->shape[2];
    Tensor *out = tensor_new4(tp->arena, N, R, C, D, "add_pairs");
#pragma omp parallel for schedule(static) if (out->size >= PARALLEL_MIN)
    for (int ni = 0; ni < N * R; ni++) {
        const real *ar = a->data + (size_t)ni * D;
        for (int j = 0; j < C; j++) {
            const real *br = b->data + ((size_t)(ni / R) * C + j) * D;
            real *o = out->data + ((size_t)ni * C + j) * D;
            for (int d = 0; d < D; d++) o[d] = ar[d] + br[d];
        }
    }
    tape_cost(tape_push(tp, add_pairs_backward, "add_pairs", out, a, b, NULL), out->size, 0, 0); /* 1 per output */
    return out;
}
