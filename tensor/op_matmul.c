/* op_matmul.c - batched matrix product with transpose flags, forward and backward.
 *
 * C = op(A) op(B). The chain rule for a product of matrices:
 *     dL/d op(A) = G op(B)^T        dL/d op(B) = op(A)^T G          (G = dL/dC)
 * and when A is stored transposed, its stored gradient is the transpose of dL/d op(A).
 * All four cases are again products, so the backward pass is two more gemm calls.
 *
 * op_matmul_groups is the same product over matrices that are groups of columns of a wider
 * tensor, read and written in place by the gemm (row stride = the wider row); its backward is
 * op_matmul's, each gradient written in its operand's layout.
 */
#include "gemm.h"
#include "ops.h"
#include "parallel.h"

#include <assert.h>

/* Where the matrices of one operand (a, b or out) are: the row stride of each, and the distance
 * between batch items, or, when they come in runs (MatmulDims.group), between runs and between
 * the items of a run (as GemmShape). */
typedef struct MatrixLayout {
    int ld;
    size_t stride, group_stride;
} MatrixLayout;

/* The geometry of one op_matmul or op_matmul_groups call, shared by forward and backward. */
typedef struct MatmulDims {
    int batch, M, N, K;
    bool shared_b; /* b is a 2-D matrix used by every batch item (a's batch folded into M) */
    int group;     /* the batch items come in runs of `group` (1: no runs) */
    MatrixLayout a, b, c;
} MatmulDims;

static MatmulDims matmul_dims(const Tensor *a, const Tensor *b, Transpose t)
{
    bool ta = t & TRANSPOSE_A, tb = t & TRANSPOSE_B;
    MatmulDims d = {.group = 1};
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
        d.a.stride = (size_t)d.M * d.K;
        d.b.stride = (size_t)d.K * d.N;
    }
    d.c.stride = (size_t)d.M * d.N;
    d.a.ld = a_c, d.b.ld = b_c, d.c.ld = d.N; /* densely stored rows */
    return d;
}

/* z (+)= op(x) op(y), an M x N x K product for each of d's batch items, each operand where its
 * layout says. */
static void product(const MatmulDims *d, int M, int N, int K, bool tx, bool ty, bool accumulate, const real *x,
                    MatrixLayout lx, const real *y, MatrixLayout ly, real *z, MatrixLayout lz)
{
    GemmShape s = gemm_layout((GemmShape){.M = M, .N = N, .K = K, .trans_a = tx, .trans_b = ty, .accumulate = accumulate,
                                          .lda = lx.ld, .ldb = ly.ld, .ldc = lz.ld, .batch = d->batch,
                                          .stride_a = lx.stride, .stride_b = ly.stride, .stride_c = lz.stride,
                                          .group = d->group, .group_stride_a = lx.group_stride,
                                          .group_stride_b = ly.group_stride, .group_stride_c = lz.group_stride});
    gemm(&s, x, y, z);
}

/* The gradients of C = op(A) op(B) given G = dL/dC (laid out as C), added into A's and B's
 * gradients (each laid out as its operand). */
static void matmul_grads(Tape *tp, Tensor *a, Tensor *b, Transpose t, const MatmulDims *d, const real *G)
{
    bool ta = t & TRANSPOSE_A, tb = t & TRANSPOSE_B;
    if (a->requires_grad) {
        bool first; /* the first gradient to reach a: the product is written, not added */
        real *dA = tape_grad_whole(tp, a, &first);
        if (!ta) /* dA = G op(B)^T */
            product(d, d->M, d->K, d->N, false, !tb, !first, G, d->c, b->data, d->b, dA, d->a);
        else     /* dA (stored K x M) = op(B) G^T */
            product(d, d->K, d->M, d->N, tb, true, !first, b->data, d->b, G, d->c, dA, d->a);
    }
    if (b->requires_grad) {
        bool first;
        real *dB = tape_grad_whole(tp, b, &first);
        if (!tb) /* dB = op(A)^T G; with a shared b this sums over every row of every batch item */
            product(d, d->K, d->N, d->M, !ta, false, !first, a->data, d->a, G, d->c, dB, d->b);
        else     /* dB (stored N x K) = G^T op(A) */
            product(d, d->N, d->K, d->M, true, ta, !first, G, d->c, a->data, d->a, dB, d->b);
    }
}

typedef struct MatmulSaved {
    Transpose transpose;
    MatmulDims dims;
} MatmulSaved;

static void matmul_backward(Tape *tp, TapeEntry *e)
{
    const MatmulSaved *s = e->saved;
    matmul_grads(tp, e->in[0], e->in[1], s->transpose, &s->dims, e->out->grad);
}

/* out = op(a) op(b) as d lays them out, recorded on the tape as `name`. */
static void matmul_forward(Tape *tp, const char *name, Tensor *a, Tensor *b, Transpose transpose, const MatmulDims *d,
                           Tensor *out)
{
    product(d, d->M, d->N, d->K, transpose & TRANSPOSE_A, transpose & TRANSPOSE_B, false, a->data, d->a, b->data, d->b,
            out->data, d->c);
    TapeEntry *e = tape_push(tp, matmul_backward, name, out, a, b, NULL);
    /* 2 M N K per batch item; dA = G op(B)^T reads b, dB = op(A)^T G reads a */
    tape_cost(e, 2 * (uint64_t)d->batch * d->M * d->N * d->K,
              (b->requires_grad ? TAPE_READS_IN0 : 0) | (a->requires_grad ? TAPE_READS_IN1 : 0), 0);
    if (e) {
        MatmulSaved *saved = tape_save(tp, e, sizeof *saved);
        saved->transpose = transpose;
        saved->dims = *d;
    }
}

Tensor *op_matmul(Tape *tp, Tensor *a, Tensor *b, Transpose transpose)
{
    MatmulDims d = matmul_dims(a, b, transpose);
    int shape[TENSOR_MAX_DIMS];
    for (int i = 0; i < a->ndim - 2; i++) shape[i] = a->shape[i];
    shape[a->ndim - 2] = d.shared_b ? a->shape[a->ndim - 2] : d.M;
    shape[a->ndim - 1] = d.N;
    Tensor *out = tensor_new(tp->arena, a->ndim, shape, "matmul");
    matmul_forward(tp, "matmul", a, b, transpose, &d, out);
    return out;
}

/* ------------------------------------------------------------------ over groups of columns */

/* One operand of op_matmul_groups: its matrices' size as stored (rows x cols) and layout. */
typedef struct GroupedOperand {
    int n, rows, cols;
    MatrixLayout layout;
} GroupedOperand;

static GroupedOperand grouped_operand(const Tensor *x, int groups, bool grouped)
{
    GroupedOperand o;
    if (grouped) { /* [N, R, G*C]: matrix (n, g) is columns g C .. g C + C - 1 of x[n] */
        assert(x->ndim == 3 && x->shape[2] % groups == 0);
        o.n = x->shape[0], o.rows = x->shape[1], o.cols = x->shape[2] / groups;
        o.layout = (MatrixLayout){.ld = x->shape[2], .stride = (size_t)o.rows * x->shape[2], .group_stride = (size_t)o.cols};
    } else {       /* [N, G, R, C]: one matrix after another */
        assert(x->ndim == 4 && x->shape[1] == groups);
        o.n = x->shape[0], o.rows = x->shape[2], o.cols = x->shape[3];
        size_t size = (size_t)o.rows * o.cols;
        o.layout = (MatrixLayout){.ld = o.cols, .stride = groups * size, .group_stride = size};
    }
    return o;
}

Tensor *op_matmul_groups(Tape *tp, Tensor *a, Tensor *b, Transpose transpose, int groups, Grouped grouped)
{
    bool ta = transpose & TRANSPOSE_A, tb = transpose & TRANSPOSE_B;
    assert(groups >= 1);
    GroupedOperand oa = grouped_operand(a, groups, grouped & GROUPED_A);
    GroupedOperand ob = grouped_operand(b, groups, grouped & GROUPED_B);
    assert(oa.n == ob.n);
    MatmulDims d = {.batch = oa.n * groups, .group = groups, .a = oa.layout, .b = ob.layout};
    d.M = ta ? oa.cols : oa.rows;
    d.K = ta ? oa.rows : oa.cols;
    d.N = tb ? ob.rows : ob.cols;
    assert((tb ? ob.cols : ob.rows) == d.K);
    Tensor *out;
    if (grouped & GROUPED_OUT) { /* [N, M, G*Ncols] */
        int shape[3] = {oa.n, d.M, groups * d.N};
        out = tensor_new(tp->arena, 3, shape, "matmul_groups");
        d.c = (MatrixLayout){.ld = shape[2], .stride = (size_t)d.M * shape[2], .group_stride = (size_t)d.N};
    } else {                     /* [N, G, M, Ncols] */
        int shape[4] = {oa.n, groups, d.M, d.N};
        out = tensor_new(tp->arena, 4, shape, "matmul_groups");
        d.c = (MatrixLayout){.ld = d.N, .stride = (size_t)groups * d.M * d.N, .group_stride = (size_t)d.M * d.N};
    }
    matmul_forward(tp, "matmul_groups", a, b, transpose, &d, out);
    return out;
}

/* ------------------------------------------------------------------ linear: x W + b */

static void linear_backward(Tape *tp, TapeEntry *e)
{
    MatmulDims d = matmul_dims(e->in[0], e->in[1], TRANSPOSE_NONE);
    matmul_grads(tp, e->in[0], e->in[1], TRANSPOSE_NONE, &d, e->out->grad); /* dx = g W^T, dW = x^T g */
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
    product(&d, d.M, d.N, d.K, false, false, false, x->data, d.a, W->data, d.b, out->data, d.c);
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
