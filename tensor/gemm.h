/* gemm.h - matrix multiply kernels: C = op(A) . op(B) (+ C), op(X) = X or X^T.
 *
 * Matrices are row-major; ld* is the row stride of the matrix *as stored*. With trans_a,
 * A is stored K x M and used as its transpose; with trans_b, B is stored N x K. A row stride
 * may exceed the row's length (a matrix of some columns of a wider one, read and written in
 * place): the fast path reads A in place and copies B into its panels either way, so any
 * stride costs about the same.
 *
 * gemm() is the fast path (packed panels, cache blocking, OpenMP over output tiles).
 * gemm_reference() is the three-loop definition, kept for tests.
 * Both give each output element to one thread, summed in a fixed order, so results are
 * bit-identical for any number of threads.
 */
#ifndef TENSOR_GEMM_H
#define TENSOR_GEMM_H

#include "tensor.h"

typedef struct GemmShape {
    int M, N, K;
    bool trans_a, trans_b;
    bool accumulate;          /* C += op(A) op(B) instead of C = ... */
    int lda, ldb, ldc;
    int batch;                /* number of independent products (>= 1) */
    size_t stride_a, stride_b, stride_c; /* distance between consecutive batch items */
    /* Optionally a batch of batches: the items come in runs of `group` (0 or 1: no runs), item
     * n at (n / group) stride_x + (n % group) group_stride_x. E.g. a [N, R, G*C] read as N*G
     * matrices [R, C], of columns g C .. g C + C - 1: group G, stride R G C, group stride C,
     * ld G C. */
    int group;
    size_t group_stride_a, group_stride_b, group_stride_c;
} GemmShape;

/* s with the row strides of densely stored row-major matrices filled in where they were left
 * 0 (and batch and group 1 when left 0). Written with named fields:
 *     GemmShape s = gemm_layout((GemmShape){.M = m, .N = n, .K = k, .trans_b = true}); */
GemmShape gemm_layout(GemmShape s);

void gemm(const GemmShape *s, const real *A, const real *B, real *C);
/* On x86-64, gemm runs the kernel variant for the widest vector ISA the CPU has (AVX-512,
 * AVX2 + FMA, or the build's own code), and AVX-512 intrinsics for a transposing copy; every
 * variant computes the same bits. Tests make gemm use the build's own, portable code to compare
 * the two. gemm_kernel_name says which variant runs: "avx512", "avx2" or "build". */
typedef enum GemmKernels {
    GEMM_KERNELS_WIDEST, /* the widest the CPU has (the default) */
    GEMM_KERNELS_BUILD,  /* the build's own, portable code */
} GemmKernels;
void gemm_use_kernels(GemmKernels kernels);
const char *gemm_kernel_name(void);
void gemm_reference(const GemmShape *s, const real *A, const real *B, real *C);

#endif
