/* op_matmul.c - batched matrix product with transpose flags, forward and backward.
 *
 * C = op(A) op(B). The chain rule for a product of matrices:
 *     dL/d op(A) = G op(B)^T        dL/d op(B) = op(A)^T G          (G = dL/dC)
 * and when A is stored transposed, its stored gradient is the transpose of dL/d op(A).
 * All four cases are again products, so the backward pass is two more gemm calls.
 */
#include "gemm.h"
#include "ops.h"
#include "parallel.h"

#include <assert.h>

/* The geometry of one op_matmul call, shared by forward and backward. */
typedef struct MatmulDims {
    int batch, M, N, K;
    bool shared_b; /* b is a 2-D matrix used by every batch item (a's batch folded into M) */
    size_t stride_a, stride_b, stride_c; /* between batch items (0 for a shared b) */
} MatmulDims;

static MatmulDims matmul_dims(const Tensor *a, const Tensor *b, Transpose t)
{
    bool ta = t & TRANSPOSE_A, tb = t & TRANSPOSE_B;
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
        d.stride_a = (size_t)d.M * d.K;
        d.stride_b = (size_t)d.K * d.N;
    }
    d.stride_c = (size_t)d.M * d.N;
    return d;
}

/* The gradients of C = op(A) op(B) given G = dL/dC, added into A's and B's gradients. */
static void matmul_grads(Tape *tp, Tensor *a, Tensor *b, Transpose t, const real *G)
{
    bool ta = t & TRANSPOSE_A, tb = t & TRANSPOSE_B;
    MatmulDims d = matmul_dims(a, b, t);
    if (a->requires_grad) {
        bool first; /* the first gradient to reach a: the product is written, not added */
        real *dA = tape_grad_whole(tp, a, &first);
        if (!ta) { /* dA = G op(B)^T */
            GemmShape s = gemm_layout((GemmShape){.M = d.M, .N = d.K, .K = d.N, .trans_b = !tb, .accumulate = !first,
                                                  .batch = d.batch, .stride_a = d.stride_c, .stride_b = d.stride_b,
                                                  .stride_c = d.stride_a});
            gemm(&s, G, b->data, dA);
        } else {   /* dA (stored K x M) = op(B) G^T */
            GemmShape s = gemm_layout((GemmShape){.M = d.K, .N = d.M, .K = d.N, .trans_a = tb, .trans_b = true,
                                                  .accumulate = !first, .batch = d.batch, .stride_a = d.stride_b,
                                                  .stride_b = d.stride_c, .stride_c = d.stride_a});
            gemm(&s, b->data, G, dA);
        }
    }
    if (b->requires_grad) {
        bool first;
        real *dB = tape_grad_whole(tp, b, &first);
        if (!tb) { /* dB = op(A)^T G; with a shared b this sums over every row of every batch item */
            GemmShape s = gemm_layout((GemmShape){.M = d.K, .N = d.N, .K = d.M, .trans_a = !ta, .accumulate = !first,
                                                  .batch = d.batch, .stride_a = d.stride_a, .stride_b = d.stride_c,
                                                  .stride_c = d.stride_b});
            gemm(&s, a->data, G, dB);
        } else {   /* dB (stored N x K) = G^T op(A) */
            GemmShape s = gemm_layout((GemmShape){.M = d.N, .N = d.K, .K = d.M, .trans_a = true, .trans_b = ta,
                                                  .accumulate = !first, .batch = d.batch, .stride_a = d.stride_c,
                                                  .stride_b = d.stride_a, .stride_c = d.stride_b});
            gemm(&s, G, a->data, dB);
        }
    }
}

typedef struct MatmulSaved {
    Transpose transpose;
} MatmulSaved;

static void matmul_backward(Tape *tp, TapeEntry *e)
{
    const MatmulSaved *s = e->saved;
    matmul_grads(tp, e->in[0], e->in[1], s->transpose, e->out->grad);
}

Tensor *op_matmul(Tape *tp, Tensor *a, Tensor *b, Transpose transpose)
{
    bool ta = transpose & TRANSPOSE_A, tb = transpose & TRANSPOSE_B;
    MatmulDims d = matmul_dims(a, b, transpose);
    int shape[TENSOR_MAX_DIMS];
    for (int i = 0; i < a->ndim - 2; i++) shape[i] = a->shape[i];
    shape[a->ndim - 2] = d.shared_b ? a->shape[a->ndim - 2] : d.M;
    shape[a->ndim - 1] = d.N;
    Tensor *out = tensor_new(tp->arena, a->ndim, shape, "matmul");
    GemmShape s = gemm_layout((GemmShape){.M = d.M, .N = d.N, .K = d.K, .trans_a = ta, .trans_b = tb, .batch = d.batch,
                                          .stride_a = d.stride_a, .stride_b = d.stride_b, .stride_c = d.stride_c});
    gemm(&s, a->data, b->data, out->data);
    TapeEntry *e = tape_push(tp, matmul_backward, "matmul", out, a, b, NULL);
    /* 2 M N K per batch item; dA = G op(B)^T reads b, dB = op(A)^T G reads a */
    tape_cost(e, 2 * (uint64_t)d.batch * d.M * d.N * d.K,
              (b->requires_grad ? TAPE_READS_IN0 : 0) | (a->requires_grad ? TAPE_READS_IN1 : 0), 0);
    if (e) {
        MatmulSaved *saved = tape_save(tp, e, sizeof *saved);
        saved->transpose = transpose;
    }
    return out;
}

/* ------------------------------------------------------------------ linear: x W + b */

static void linear_backward(Tape *tp, TapeEntry *e)
{
    matmul_grads(tp, e->in[0], e->in[1], TRANSPOSE_NONE, e->out->grad); /* dx = g W^T, dW = x^T g */
    Tensor *b = e->in[2];
    if (b && b->requires_grad) sum_rows_into(e->out->grad, tensor_rows(e->out), (int)b->size, tape_grad(tp, b));
}

Tensor *op_linear(Tape *tp, Tensor *x, Tensor *W, Tensor *b)
{
    assert(W->ndim == 2 && (!b || b->size == (size_t)W->shape[1]));
    MatmulDims d = matmul_dims(x, W, TRANSPOSE_NONE);
    int shape[TENSOR_MAX_DIMS];
    for (int i = 0; i < x->ndim - 1; i++) shape[i] = x->shape[i];
    shape[x->ndim - 1] = d.N;
    Tensor *out = tensor_new(tp->arena, x->ndim, shape, "linear");
    GemmShape s = gemm_layout((GemmShape){.M = d.M, .N = d.N, .K = d.K});
    gemm(&s, x->data, W->data, out->data);
    if (b) {
        size_t rows = (size_t)d.M;
#pragma omp parallel for schedule(static) if (out->size >= PARALLEL_MIN)
        for (size_t r = 0; r < rows; r++) {
            real *y = out->data + r * d.N;
#pragma omp simd
            for (int j = 0; j < d.N; j++) y[j] += b->data[j];
        }
    }
    TapeEntry *e = tape_push(tp, linear_backward, "linear", out, x, W, b);
    /* 2 M N K, and M N for the bias; dx = g W^T reads W, dW = x^T g reads x, db reads only g */
    tape_cost(e, 2 * (uint64_t)d.M * d.N * d.K + (b ? (uint64_t)d.M * d.N : 0),
              (W->requires_grad ? TAPE_READS_IN0 : 0) | (x->requires_grad ? TAPE_READS_IN1 : 0), 0);
    return out;
}
