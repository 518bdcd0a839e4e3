/* gemm.c - C = op(A) op(B): the reference loop and the fast blocked kernel.
 *
 * The fast kernel follows the classic recipe (Goto & van de Geijn): split C into tiles,
 * and for each slice of K copy ("pack") the pieces of A and B that the tile needs into
 * small contiguous buffers laid out in the exact order the innermost loop reads them.
 * Packing also absorbs the transposes: one inner kernel serves A.B, A.B^T, A^T.B and A^T.B^T.
 *
 *   for each tile of C (MC x NC)            <- threads share these, static schedule
 *     for each slice of K (KC)              <- in order: fixed summation order
 *       pack A[tile rows, slice] into MR-row strips, B[slice, tile cols] into NR-col strips
 *       for each NR strip, for each MR strip: micro-kernel, an MR x NR block of C in registers
 *
 * Per output element: acc = sum over k in the slice (in order), then C += acc, slice by slice.
 * That order does not depend on the thread count.
 */
#include "gemm.h"

#include <assert.h>
#include <math.h>
#include <omp.h>
#include <string.h>

GemmShape gemm_shape(int M, int N, int K, bool trans_a, bool trans_b, bool accumulate)
{
    GemmShape s = {0};
    s.M = M;
    s.N = N;
    s.K = K;
    s.trans_a = trans_a;
    s.trans_b = trans_b;
    s.lda = trans_a ? M : K;
    s.ldb = trans_b ? K : N;
    s.ldc = N;
    s.accumulate = accumulate;
    s.batch = 1;
    return s;
}

/* Element (i, k) of op(A) and (k, j) of op(B). */
static inline real at_a(const GemmShape *s, const real *A, int i, int k)
{
    return s->trans_a ? A[(size_t)k * s->lda + i] : A[(size_t)i * s->lda + k];
}

static inline real at_b(const GemmShape *s, const real *B, int k, int j)
{
    return s->trans_b ? B[(size_t)j * s->ldb + k] : B[(size_t)k * s->ldb + j];
}

void gemm_reference(const GemmShape *s, const real *A, const real *B, real *C)
{
    for (int b = 0; b < s->batch; b++) {
        const real *Ab = A + b * s->stride_a, *Bb = B + b * s->stride_b;
        real *Cb = C + b * s->stride_c;
        for (int i = 0; i < s->M; i++)
            for (int j = 0; j < s->N; j++) {
                real sum = 0;
                for (int k = 0; k < s->K; k++) sum += at_a(s, Ab, i, k) * at_b(s, Bb, k, j);
                real *c = &Cb[(size_t)i * s->ldc + j];
                *c = s->accumulate ? *c + sum : sum;
            }
    }
}

/* ------------------------------------------------------------------ fast path */

enum {
    MR = 8,    /* rows of the register block */
    NR = 32,   /* columns of the register block (two 16-float vectors, or four of 8) */
    KC = 256,  /* slice of K packed at a time: an MR x KC strip of A stays in L1 */
    MC = 64,   /* rows of a tile: its packed A (MC x KC) stays in L2 */
    NC = 256,  /* columns of a tile */
};

/* Packing buffers, one pair per thread and never allocated at run time. Thread-local rather
 * than indexed by omp_get_thread_num(): gemm may be called from inside a parallel region
 * (./probe does), where thread numbers of the inner team are not unique. */
static _Thread_local _Alignas(64) real g_pack_a[MC * KC];
static _Thread_local _Alignas(64) real g_pack_b[KC * NC];

#if defined(__GNUC__) || defined(__clang__)
__attribute__((no_sanitize("address", "undefined"))) /* inlined into micro_kernel: see there */
#endif
static inline real fma_r(real a, real b, real c)
{
#ifdef REAL_DOUBLE
    return fma(a, b, c);
#else
    return fmaf(a, b, c);
#endif
}

/* Pack rows [i0, i0+mc) x cols [k0, k0+kc) of op(A) as MR-row strips: strip p holds, for each
 * k, the MR values A(i0 + p*MR + r, k0 + k), r = 0..MR-1 (zero past the last row). */
static void pack_a(const GemmShape *s, const real *A, int i0, int mc, int k0, int kc, real *dst)
{
    for (int p = 0; p < mc; p += MR) {
        int rows = mc - p < MR ? mc - p : MR;
        real *d = dst + (size_t)p * kc;
        if (s->trans_a) { /* A stored K x M: row k of storage has the MR values contiguous */
            for (int k = 0; k < kc; k++) {
                const real *src = A + (size_t)(k0 + k) * s->lda + i0 + p;
                for (int r = 0; r < rows; r++) d[k * MR + r] = src[r];
                for (int r = rows; r < MR; r++) d[k * MR + r] = 0;
            }
        } else {
            for (int r = 0; r < MR; r++) {
                if (r < rows) {
                    const real *src = A + (size_t)(i0 + p + r) * s->lda + k0;
                    for (int k = 0; k < kc; k++) d[k * MR + r] = src[k];
                } else {
                    for (int k = 0; k < kc; k++) d[k * MR + r] = 0;
                }
            }
        }
    }
}

/* Pack rows [k0, k0+kc) x cols [j0, j0+nc) of op(B) as NR-column strips: strip q holds, for
 * each k, the NR values B(k0 + k, j0 + q*NR + c) (zero past the last column). */
static void pack_b(const GemmShape *s, const real *B, int k0, int kc, int j0, int nc, real *dst)
{
    for (int q = 0; q < nc; q += NR) {
        int cols = nc - q < NR ? nc - q : NR;
        real *d = dst + (size_t)q * kc;
        if (!s->trans_b) { /* B stored K x N: the NR values of row k are contiguous */
            for (int k = 0; k < kc; k++) {
                const real *src = B + (size_t)(k0 + k) * s->ldb + j0 + q;
                for (int c = 0; c < cols; c++) d[k * NR + c] = src[c];
                for (int c = cols; c < NR; c++) d[k * NR + c] = 0;
            }
        } else {
            for (int c = 0; c < NR; c++) {
                if (c < cols) {
                    const real *src = B + (size_t)(j0 + q + c) * s->ldb + k0;
                    for (int k = 0; k < kc; k++) d[k * NR + c] = src[k];
                } else {
                    for (int k = 0; k < kc; k++) d[k * NR + c] = 0;
                }
            }
        }
    }
}

/* The micro-kernel: acc[MR][NR] = sum_k a[k][r] * b[k][c], one rank-1 update per k.
 * The compiler keeps acc in vector registers (MR*NR/16 = 16 AVX-512 registers).
 * It reads only the packing buffers, with fixed bounds, so the sanitizer builds leave it
 * uninstrumented (instrumented, it does not vectorise and the tests run 20x slower); the
 * packing code, which touches the callers' memory, stays checked. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((no_sanitize("address", "undefined")))
#endif
static void micro_kernel(int kc, const real *restrict a, const real *restrict b,
                         real acc[restrict MR][NR])
{
    real t[MR][NR];
    for (int r = 0; r < MR; r++)
        for (int c = 0; c < NR; c++) t[r][c] = 0;
    for (int k = 0; k < kc; k++) {
        const real *bk = b + (size_t)k * NR;
        const real *ak = a + (size_t)k * MR;
        for (int r = 0; r < MR; r++) {
            real ar = ak[r];
#pragma omp simd
            for (int c = 0; c < NR; c++) t[r][c] = fma_r(ar, bk[c], t[r][c]);
        }
    }
    for (int r = 0; r < MR; r++)
        for (int c = 0; c < NR; c++) acc[r][c] = t[r][c];
}

/* One tile of one batch item: rows [i0, i0+mc), cols [j0, j0+nc) of C. */
static void gemm_tile(const GemmShape *s, const real *A, const real *B, real *C,
                      int i0, int mc, int j0, int nc, real *pa, real *pb)
{
    for (int k0 = 0; k0 < s->K; k0 += KC) {
        int kc = s->K - k0 < KC ? s->K - k0 : KC;
        bool add = s->accumulate || k0 > 0;
        pack_a(s, A, i0, mc, k0, kc, pa);
        pack_b(s, B, k0, kc, j0, nc, pb);
        for (int q = 0; q < nc; q += NR) {
            int cols = nc - q < NR ? nc - q : NR;
            for (int p = 0; p < mc; p += MR) {
                int rows = mc - p < MR ? mc - p : MR;
                real acc[MR][NR];
                micro_kernel(kc, pa + (size_t)p * kc, pb + (size_t)q * kc, acc);
                for (int r = 0; r < rows; r++) {
                    real *c = C + (size_t)(i0 + p + r) * s->ldc + j0 + q;
                    if (add)
                        for (int j = 0; j < cols; j++) c[j] += acc[r][j];
                    else
                        for (int j = 0; j < cols; j++) c[j] = acc[r][j];
                }
            }
        }
    }
    if (s->K == 0 && !s->accumulate) /* empty sum */
        for (int r = 0; r < mc; r++) memset(C + (size_t)(i0 + r) * s->ldc + j0, 0, (size_t)nc * sizeof(real));
}

void gemm(const GemmShape *s, const real *A, const real *B, real *C)
{
    assert(s->M >= 0 && s->N >= 0 && s->K >= 0 && s->batch >= 1);
    int tiles_m = (s->M + MC - 1) / MC, tiles_n = (s->N + NC - 1) / NC;
    long tiles = (long)s->batch * tiles_m * tiles_n;
    if (tiles == 0) return;
    /* Parallelise only when there is enough work to pay for waking the threads. */
    double flops = 2.0 * s->batch * s->M * s->N * (double)s->K;
    int threads = omp_get_max_threads();
    if (flops < 1e6 || tiles == 1) threads = 1; /* below ~20 us of work a parallel region costs more */
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long t = 0; t < tiles; t++) {
        int b = (int)(t / ((long)tiles_m * tiles_n));
        int rest = (int)(t % ((long)tiles_m * tiles_n));
        int i0 = (rest / tiles_n) * MC, j0 = (rest % tiles_n) * NC;
        int mc = s->M - i0 < MC ? s->M - i0 : MC, nc = s->N - j0 < NC ? s->N - j0 : NC;
        gemm_tile(s, A + b * s->stride_a, B + b * s->stride_b, C + b * s->stride_c, i0, mc, j0, nc, g_pack_a, g_pack_b);
    }
}
