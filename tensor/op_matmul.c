/* op_matmul.c - batched matrix product with transpose flags, forward and backward.
 *
 * C = op(A) op(B). The chain rule for a product of matrices:
 *     dL/d op(A) = G op(B)^T        dL/d op(B) = op(A)^T G          (G = dL/dC)
 * and when A is stored transposed, its stored gradient is the transpose of dL/d op(A).
 * All four cases are again products, so the backward pass is two more gemm calls.
 */
#include "gemm.h"
#include "ops.h"

#include <assert.h>

/* The geometry of one op_matmul call, shared by forward and backward. */
typedef struct MatmulDims {
    int batch, M, N, K;
    bool shared_b; /* b is a 2-D matrix used by every batch item (a's batch folded into M) */
} MatmulDims;

static MatmulDims matmul_dims(const Tensor *a, const Tensor *b, bool ta, bool tb)
{
    MatmulDims d = {0};
    assert(a->ndim >= 2 && b->ndim >= 2);
    int a_r = a->shape[a->ndim - 2], a_c = a->shape[a->ndim - 1];
    int b_r = b->shape[b->ndim - 2], b_c = b->shape[b->ndim - 1];
    d.K = ta ? a_r : a_c;
    d.N = tb ? b_r : b_c;
    assert((tb ? b_c : b_r) == d.K);
    if (b->ndim == 2 && a->ndim > 2) {
        assert(!ta); /* folding a's batch into rows needs a row-major, untransposed a */
        d.shared_b = true;
        d.batch = 1;
        d.M = (int)tensor_rows(a);
    } else {
        assert(a->ndim == b->ndim);
        for (int i = 0; i < a->ndim - 2; i++) assert(a->shape[i] == b->shape[i]);
        d.batch = (int)(a->size / ((size_t)a_r * a_c));
        d.M = ta ? a_c : a_r;
    }
    return d;
}

/* One gemm call per (batched) product: X (rows x inner) times Y, into Z. */
static GemmShape batched(const MatmulDims *d, int M, int N, int K, bool tx, bool ty, bool acc,
                         size_t sx, size_t sy, size_t sz)
{
    GemmShape s = gemm_shape(M, N, K, tx, ty, acc);
    s.batch = d->batch;
    s.stride_a = sx;
    s.stride_b = sy;
    s.stride_c = sz;
    return s;
}

static void matmul_backward(Tape *tp, TapeEntry *e)
{
    Tensor *a = e->in[0], *b = e->in[1];
    bool ta = e->i[0], tb = e->i[1];
    MatmulDims d = matmul_dims(a, b, ta, tb);
    const real *G = e->out->grad;
    size_t sa = d.shared_b ? 0 : (size_t)d.M * d.K;
    size_t sb = d.shared_b ? 0 : (size_t)d.K * d.N;
    size_t sg = (size_t)d.M * d.N;
    if (a->requires_grad) {
        real *dA = tape_grad(tp, a);
        if (!ta) { /* dA = G op(B)^T */
            GemmShape s = batched(&d, d.M, d.K, d.N, false, !tb, true, sg, sb, sa);
            gemm(&s, G, b->data, dA);
        } else {   /* dA (stored K x M) = op(B) G^T */
            GemmShape s = batched(&d, d.K, d.M, d.N, tb, true, true, sb, sg, sa);
            gemm(&s, b->data, G, dA);
        }
    }
    if (b->requires_grad) {
        real *dB = tape_grad(tp, b);
        if (!tb) { /* dB = op(A)^T G; with a shared b this sums over every row of every batch item */
            GemmShape s = batched(&d, d.K, d.N, d.M, !ta, false, true, sa, sg, sb);
            gemm(&s, a->data, G, dB);
        } else {   /* dB (stored N x K) = G^T op(A) */
            GemmShape s = batched(&d, d.N, d.K, d.M, true, ta, true, sg, sa, sb);
            gemm(&s, G, a->data, dB);
        }
    }
}

Tensor *op_matmul(Tape *tp, Tensor *a, Tensor *b, bool trans_a, bool trans_b)
{
    MatmulDims d = matmul_dims(a, b, trans_a, trans_b);
    int shape[TENSOR_MAX_DIMS];
    for (int i = 0; i < a->ndim - 2; i++) shape[i] = a->shape[i];
    shape[a->ndim - 2] = d.shared_b ? a->shape[a->ndim - 2] : d.M;
    shape[a->ndim - 1] = d.N;
    Tensor *out = tensor_new(tp->arena, a->ndim, shape, "matmul");
    size_t sa = d.shared_b ? 0 : (size_t)d.M * d.K;
    size_t sb = d.shared_b ? 0 : (size_t)d.K * d.N;
    GemmShape s = batched(&d, d.M, d.N, d.K, trans_a, trans_b, false, sa, sb, (size_t)d.M * d.N);
    gemm(&s, a->data, b->data, out->data);
    TapeEntry *e = tape_push(tp, matmul_backward, "matmul", out, a, b, NULL);
    if (e) {
        e->i[0] = trans_a;
        e->i[1] = trans_b;
    }
    return out;
}

/* ------------------------------------------------------------------ linear: x W + b */

static void linear_backward(Tape *tp, TapeEntry *e)
{
    matmul_backward(tp, e); /* dx = g W^T, dW = x^T g: in[0] and in[1] as for op_matmul */
    Tensor *b = e->in[2];
    if (b && b->requires_grad) sum_rows_into(e->out->grad, tensor_rows(e->out), (int)b->size, tape_grad(tp, b));
}

Tensor *op_linear(Tape *tp, Tensor *x, Tensor *W, Tensor *b)
{
    assert(W->ndim == 2 && (!b || b->size == (size_t)W->shape[1]));
    MatmulDims d = matmul_dims(x, W, false, false);
    int shape[TENSOR_MAX_DIMS];
    for (int i = 0; i < x->ndim - 1; i++) shape[i] = x->shape[i];
    shape[x->ndim - 1] = d.N;
    Tensor *out = tensor_new(tp->arena, x->ndim, shape, "linear");
    GemmShape s = gemm_shape(d.M, d.N, d.K, false, false, false);
    gemm(&s, x->data, W->data, out->data);
    if (b) {
        size_t rows = (size_t)d.M;
#pragma omp parallel for schedule(static) if (out->size >= 32768)
        for (size_t r = 0; r < rows; r++) {
            real *y = out->data + r * d.N;
#pragma omp simd
            for (int j = 0; j < d.N; j++) y[j] += b->data[j];
        }
    }
    TapeEntry *e = tape_push(tp, linear_backward, "linear", out, x, W, b);
    if (e) e->i[0] = e->i[1] = 0; /* no transposes, for matmul_backward */
    return out;
}
