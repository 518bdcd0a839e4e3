/* gemm.c - C = op(A) op(B): the reference loop and the fast blocked kernel.
 *
 * The fast kernel follows the classic recipe (Goto & van de Geijn): copy ("pack") the pieces
 * of A and B that a block of C needs into small contiguous buffers, laid out in the exact order
 * the innermost loop reads them, then update C one small register block at a time. Packing
 * also absorbs the transposes: one inner kernel serves A.B, A.B^T, A^T.B and A^T.B^T.
 *
 *   C is cut into tiles of MC rows x NC columns, ordered (batch item, column block, row block);
 *   each thread takes a contiguous range of tiles (a static split). For each run of its tiles
 *   that share a column block:
 *     for each slice of K (KC)                     <- in order: a fixed summation order
 *       pack B[slice, columns] once                <- shared by all the run's row blocks
 *       for each row block (A read in place, not packed); for each NR strip, each MR strip:
 *         the micro-kernel: an MR x NR block of C in registers, += a rank-KC update
 *
 * Per output element: acc = sum over k in the slice (in order), then C += acc, slice by slice.
 * That order does not depend on how the tiles are split between threads.
 */
#include "gemm.h"
#include "parallel.h"

#include <assert.h>
#include <math.h>
#include "openmp.h"
#include <string.h>

GemmShape gemm_layout(GemmShape s)
{
    if (s.lda == 0) s.lda = s.trans_a ? s.M : s.K;
    if (s.ldb == 0) s.ldb = s.trans_b ? s.K : s.N;
    if (s.ldc == 0) s.ldc = s.N;
    if (s.batch == 0) s.batch = 1;
    if (s.group == 0) s.group = 1;
    return s;
}

/* Where batch item n of an operand starts: n stride, or, in runs of `group`, (n / group) stride
 * + (n % group) group_stride. */
static inline size_t item_offset(long n, int group, size_t stride, size_t group_stride)
{
    if (group <= 1) return (size_t)n * stride;
    return (size_t)(n / group) * stride + (size_t)(n % group) * group_stride;
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
        const real *Ab = A + item_offset(b, s->group, s->stride_a, s->group_stride_a);
        const real *Bb = B + item_offset(b, s->group, s->stride_b, s->group_stride_b);
        real *Cb = C + item_offset(b, s->group, s->stride_c, s->group_stride_c);
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
    KC = 256,  /* slice of K packed at a time */
    MC = 64,   /* rows of a tile */
    NC = 256,  /* columns of a tile: its packed B (KC x NC) stays in L2, one NR strip in L1 */
};

/* What a kernel does with its block of C: overwrite it (the first slice of K of a product
 * that does not accumulate) or add to it. */
typedef enum BlockStore { STORE_SET, STORE_ADD } BlockStore;

/* The register block's shape: MR x NR for the bulk of C, 2 MR x NR / 2 for strips at most
 * NR / 2 columns wide (see block_kernel). */
typedef enum BlockShape { BLOCK_WIDE, BLOCK_NARROW } BlockShape;

/* The micro-kernel and its two instances are left out of the sanitizer builds' checks (see
 * block_kernel); the attribute must be on every function the kernel is inlined into. */
#if defined(__GNUC__) || defined(__clang__)
#define UNCHECKED __attribute__((no_sanitize("address", "undefined")))
#define UNCHECKED_INLINE __attribute__((always_inline, no_sanitize("address", "undefined")))
#else
#define UNCHECKED
#define UNCHECKED_INLINE
#endif

/* The packing buffer, one per thread and never allocated at run time. Thread-local rather
 * than indexed by omp_get_thread_num(): gemm may be called from inside a parallel region
 * (./probe does), where thread numbers of the inner team are not unique. */
static _Thread_local _Alignas(64) real g_pack_b[KC * NC];

UNCHECKED_INLINE /* inlined into block_kernel: see there */
static inline real fma_r(real a, real b, real c)
{
#ifdef REAL_DOUBLE
    return fma(a, b, c);
#else
    return fmaf(a, b, c);
#endif
}

/* ------------------------------------------------------------------ packing B */

static GemmKernels g_kernels; /* tests ask for the build's own code where there are variants */

void gemm_use_kernels(GemmKernels kernels) { g_kernels = kernels; }

/* Runtime dispatch (x86-64 only): see "the variants" below. GEMM_DISPATCH says whether this
 * compiler can build functions for an ISA the build does not assume, and test the CPU. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GEMM_DISPATCH 1
#include <immintrin.h>
#ifdef __clang__ /* clang uses 256-bit vectors on AVX-512 unless a function asks for 512 */
#define TARGET_AVX512 __attribute__((target("avx512f,avx512vl,fma"), min_vector_width(512)))
#else
#define TARGET_AVX512 __attribute__((target("avx512f,avx512vl,fma")))
#endif
#define TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define GEMM_DISPATCH 0
#endif

#if GEMM_DISPATCH && !defined(REAL_DOUBLE)
/* The x86 fast path of the one transposing copy: 16 rows of 16 floats (row c at src + c ld)
 * to out[k][c] (out + k ldo), transposed in registers in four rounds of interleaving (32-bit
 * pairs, 64-bit pairs, 128-bit lanes, 256-bit halves). It only moves values: the portable loop
 * in pack_b gives the same bits one by one; tests run both and compare them. */
TARGET_AVX512 static void transpose16(const real *src, size_t ld, real *out, size_t ldo)
{
    __m512 r[16], t[16];
    for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_ps(src + i * ld);
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
        r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
        r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2])));
        r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
        r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3])));
    }
    for (int i = 0; i < 16; i += 8)
        for (int j = 0; j < 4; j++) {
            t[i + j] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0x88);
            t[i + j + 4] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0xdd);
        }
    for (int j = 0; j < 8; j++) {
        r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
        r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xdd);
    }
    for (int k = 0; k < 16; k++) _mm512_storeu_ps(out + k * ldo, r[k]);
}
#define HAVE_TRANSPOSE16 1
#else
#define HAVE_TRANSPOSE16 0
#endif

typedef void KernelFn(int kc, const real *a, size_t a_row, size_t a_k, const real *b, real *C, size_t ldc, BlockStore store);
typedef void KernelRowsFn(int rows, BlockShape shape, int kc, const real *a, size_t a_row, size_t a_k, const real *b, real *C,
                          size_t ldc, BlockStore store);
typedef void TransposeFn(const real *src, size_t ld, real *out, size_t ldo);
/* One variant of the code: the micro-kernel's two block shapes, the same for blocks with fewer
 * rows, and the transposing copy (NULL: pack_b's portable loop). */
typedef struct {
    const char *name;
    KernelFn *wide, *narrow;
    KernelRowsFn *rows;
    TransposeFn *transpose16;
} Kernels;
/* Pack rows [k0, k0+kc) x cols [j0, j0+nc) of op(B) as NR-column strips: strip q holds, for
 * each k, the NR values B(k0 + k, j0 + q*NR + c) (zero past the last column). */
static void pack_b(const Kernels *ks, const GemmShape *s, const real *B, int k0, int kc, int j0, int nc, real *dst)
{
    for (int q = 0; q < nc; q += NR) {
        int cols = nc - q < NR ? nc - q : NR;
        real *d = dst + (size_t)q * kc;
        if (!s->trans_b) { /* B stored K x N: the NR values of row k are contiguous */
            /* whole vectors: fixed-size copies. A strip of NR / 2 columns goes to the narrow
             * kernel, which reads only its NR / 2 columns of each k: no zeros needed past them. */
            if (cols == NR || cols == NR / 2) {
                for (int k = 0; k < kc; k++) {
                    const real *src = B + (size_t)(k0 + k) * s->ldb + j0 + q;
                    real *dk = d + (size_t)k * NR;
                    if (cols == NR) {
#pragma omp simd
                        for (int c = 0; c < NR; c++) dk[c] = src[c];
                    } else {
#pragma omp simd
                        for (int c = 0; c < NR / 2; c++) dk[c] = src[c];
                    }
                }
                continue;
            }
            for (int k = 0; k < kc; k++) {
                const real *src = B + (size_t)(k0 + k) * s->ldb + j0 + q;
                for (int c = 0; c < cols; c++) d[k * NR + c] = src[c];
                for (int c = cols; c < NR; c++) d[k * NR + c] = 0;
            }
            continue;
        }
        /* B stored N x K: a transposing copy. Whole 16 x 16 blocks go through registers where
         * the machine allows (the last, partial one of the strip from a zero-padded copy of
         * its rows); everything else, one value at a time. */
        int k_fast = 0, c_fast = 0;
        if (ks->transpose16) {
            k_fast = kc / 16 * 16;
            for (int c = 0; c < cols; c += 16) {
                int n = cols - c < 16 ? cols - c : 16;
                for (int k = 0; k < k_fast; k += 16) {
                    const real *src = B + (size_t)(j0 + q + c) * s->ldb + k0 + k;
                    size_t ld = (size_t)s->ldb;
                    real tile[16 * 16];
                    if (n < 16) { /* rows past the last column of op(B) are zeros */
                        memset(tile, 0, sizeof tile);
                        for (int r = 0; r < n; r++) memcpy(tile + r * 16, src + r * ld, 16 * sizeof(real));
                        src = tile;
                        ld = 16;
                    }
                    ks->transpose16(src, ld, d + (size_t)k * NR + c, NR);
                }
                c_fast = c + 16;
            }
        }
        for (int c = 0; c < NR; c++) {
            const real *src = B + (size_t)(j0 + q + c) * s->ldb + k0;
            for (int k = c < c_fast ? k_fast : 0; k < kc; k++) d[k * NR + c] = c < cols ? src[k] : 0;
        }
    }
}

/* The micro-kernel: C[mr x nr block] (+)= sum over k of A(r, k) * b[k][c], one rank-1 update
 * per k, with A read in place (element (r, k) at a + r a_row + k a_k: a broadcast load costs
 * the same from anywhere, so A needs no packing) and b a packed strip of NR columns.
 * The compiler keeps the block in vector registers: 8 x 32 (MR x NR, 16 AVX-512 registers)
 * for the bulk of C, 16 x 16 for strips at most 16 wide (a narrower block would waste half
 * of an 8 x 32 one). Measured alone, either runs at ~96% of the FMA peak for kc = 256.
 * It always writes a whole block: a branch on partial blocks here makes the compiler keep the
 * block in memory instead, so the edges of C go through edge_kernel (fewer rows: a kernel of
 * fewer rows; fewer columns: a scratch block).
 * Inlined with constant mr and nr, each call site becomes its own fixed-size kernel.
 * It reads only the caller's A and the packing buffer, within the bounds the caller checked,
 * so the sanitizer builds leave it uninstrumented (instrumented, it does not vectorise and a
 * training step gets 50x slower); the packing and the edge handling stay checked. */
UNCHECKED_INLINE
static inline void block_kernel(int mr, int nr, int kc, const real *restrict a, size_t a_row, size_t a_k,
                                const real *restrict b, real *restrict C, size_t ldc, BlockStore store)
{
    real t[MR * NR]; /* the block, row r at t + r nr: both shapes fill it exactly (8 x 32 = 16 x 16) */
#if defined(__GNUC__) || defined(__clang__)
    /* ask for C's lines now (for writing), so they arrive while the k loop runs */
    for (int r = 0; r < mr; r++)
        for (int j = 0; j < nr; j += 64 / (int)sizeof(real)) __builtin_prefetch(C + r * ldc + j, 1);
#endif
    for (int r = 0; r < mr; r++) /* k = 0 starts the sums (zeroing them first costs a memset) */
#pragma omp simd
        for (int c = 0; c < nr; c++) t[r * nr + c] = a[r * a_row] * b[c];
    for (int k = 1; k < kc; k++) {
        const real *bk = b + (size_t)k * NR;
        const real *ak = a + (size_t)k * a_k;
#ifdef __clang__ /* vectorise each row's loop over c, not this one (clang would, with gathers of A) */
#pragma clang loop vectorize(disable)
#endif
        for (int r = 0; r < mr; r++) {
            real ar = ak[r * a_row];
#pragma omp simd
            for (int c = 0; c < nr; c++) t[r * nr + c] = fma_r(ar, bk[c], t[r * nr + c]);
        }
    }
    if (store == STORE_ADD)
        for (int r = 0; r < mr; r++)
#pragma omp simd
            for (int j = 0; j < nr; j++) C[r * ldc + j] += t[r * nr + j];
    else
        for (int r = 0; r < mr; r++)
#pragma omp simd
            for (int j = 0; j < nr; j++) C[r * ldc + j] = t[r * nr + j];
}

/* A block of fewer rows than the shape's (rows < MR wide, < 2 MR narrow): cut into pieces of
 * 8, 4, 2 and 1 rows (the binary digits of rows), each its own fixed-size kernel, so nothing
 * is computed for rows that do not exist and nothing is read past the last row of A. */
UNCHECKED_INLINE
static inline void block_kernel_rows(int rows, BlockShape shape, int kc, const real *a, size_t a_row, size_t a_k,
                                     const real *b, real *C, size_t ldc, BlockStore store)
{
    int nr = shape == BLOCK_NARROW ? NR / 2 : NR;
    int done = 0; /* rows computed so far */
    if (shape == BLOCK_NARROW && (rows & 8)) {
        block_kernel(8, NR / 2, kc, a, a_row, a_k, b, C, ldc, store);
        done += 8;
    }
    if (rows & 4) {
        if (nr == NR) block_kernel(4, NR, kc, a + done * a_row, a_row, a_k, b, C + done * ldc, ldc, store);
        else block_kernel(4, NR / 2, kc, a + done * a_row, a_row, a_k, b, C + done * ldc, ldc, store);
        done += 4;
    }
    if (rows & 2) {
        if (nr == NR) block_kernel(2, NR, kc, a + done * a_row, a_row, a_k, b, C + done * ldc, ldc, store);
        else block_kernel(2, NR / 2, kc, a + done * a_row, a_row, a_k, b, C + done * ldc, ldc, store);
        done += 2;
    }
    if (rows & 1) {
        if (nr == NR) block_kernel(1, NR, kc, a + done * a_row, a_row, a_k, b, C + done * ldc, ldc, store);
        else block_kernel(1, NR / 2, kc, a + done * a_row, a_row, a_k, b, C + done * ldc, ldc, store);
    }
}

/* The variants. Why: a generic x86-64 build (-march=x86-64-v2, what distributions build)
 * may not assume FMA, so there the kernel's fmaf() is a call to libm's exact software routine
 * and training is ~100x slower. So the kernel is compiled three times: for the build's own
 * target, for AVX2 + FMA and for AVX-512 (each a superset of the build's ISA: on a native
 * build they may all be the same code), and gemm picks the widest the CPU has (kernels()).
 * All variants compute the same bits: every element of C is the same sum, over k in order,
 * of correctly rounded fma; they differ only in how many columns one instruction handles.
 * On an x86 without FMA (before 2013) the build's own variant runs, with libm's correctly
 * rounded software fmaf: the same results, slowly. aarch64 always has FMA and its default
 * -O3 has NEON, so there the build's own variant is the fast one. */
UNCHECKED static void kernel_wide(int kc, const real *a, size_t a_row, size_t a_k, const real *b, real *C, size_t ldc, BlockStore store)
{
    block_kernel(MR, NR, kc, a, a_row, a_k, b, C, ldc, store);
}

UNCHECKED static void kernel_narrow(int kc, const real *a, size_t a_row, size_t a_k, const real *b, real *C, size_t ldc, BlockStore store)
{
    block_kernel(2 * MR, NR / 2, kc, a, a_row, a_k, b, C, ldc, store);
}

UNCHECKED static void kernel_rows(int rows, BlockShape shape, int kc, const real *a, size_t a_row, size_t a_k, const real *b,
                                  real *C, size_t ldc, BlockStore store)
{
    block_kernel_rows(rows, shape, kc, a, a_row, a_k, b, C, ldc, store);
}

#if GEMM_DISPATCH
UNCHECKED TARGET_AVX2 static void kernel_wide_avx2(int kc, const real *a, size_t a_row, size_t a_k, const real *b, real *C,
                                                   size_t ldc, BlockStore store)
{
    block_kernel(MR, NR, kc, a, a_row, a_k, b, C, ldc, store);
}

UNCHECKED TARGET_AVX2 static void kernel_narrow_avx2(int kc, const real *a, size_t a_row, size_t a_k, const real *b, real *C,
                                                     size_t ldc, BlockStore store)
{
    block_kernel(2 * MR, NR / 2, kc, a, a_row, a_k, b, C, ldc, store);
}

UNCHECKED TARGET_AVX2 static void kernel_rows_avx2(int rows, BlockShape shape, int kc, const real *a, size_t a_row, size_t a_k,
                                                   const real *b, real *C, size_t ldc, BlockStore store)
{
    block_kernel_rows(rows, shape, kc, a, a_row, a_k, b, C, ldc, store);
}

UNCHECKED TARGET_AVX512 static void kernel_wide_avx512(int kc, const real *a, size_t a_row, size_t a_k, const real *b, real *C,
                                                       size_t ldc, BlockStore store)
{
    block_kernel(MR, NR, kc, a, a_row, a_k, b, C, ldc, store);
}

UNCHECKED TARGET_AVX512 static void kernel_narrow_avx512(int kc, const real *a, size_t a_row, size_t a_k, const real *b,
                                                         real *C, size_t ldc, BlockStore store)
{
    block_kernel(2 * MR, NR / 2, kc, a, a_row, a_k, b, C, ldc, store);
}

UNCHECKED TARGET_AVX512 static void kernel_rows_avx512(int rows, BlockShape shape, int kc, const real *a, size_t a_row,
                                                       size_t a_k, const real *b, real *C, size_t ldc, BlockStore store)
{
    block_kernel_rows(rows, shape, kc, a, a_row, a_k, b, C, ldc, store);
}
#endif

/* The variant for this call: the widest the CPU has, or the build's own when a test forces the
 * portable code. Checked on every call (a load and a bit test): gemm may be called from several
 * threads at once, and there is then no first call to initialise anything in. */
static const Kernels *kernels(void)
{
    static const Kernels build = {"build", kernel_wide, kernel_narrow, kernel_rows, NULL};
#if GEMM_DISPATCH
    static const Kernels avx2 = {"avx2", kernel_wide_avx2, kernel_narrow_avx2, kernel_rows_avx2, NULL};
#if HAVE_TRANSPOSE16
    static const Kernels avx512 = {"avx512", kernel_wide_avx512, kernel_narrow_avx512, kernel_rows_avx512, transpose16};
#else
    static const Kernels avx512 = {"avx512", kernel_wide_avx512, kernel_narrow_avx512, kernel_rows_avx512, NULL};
#endif
    if (g_kernels == GEMM_KERNELS_BUILD) return &build;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return &avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &avx2;
#endif
    return &build;
}

const char *gemm_kernel_name(void) { return kernels()->name; }

/* A block at the edge of C (fewer rows or columns than the kernel's). Fewer rows: the rows
 * kernel, straight into C when all the columns are there. Fewer columns: the block is
 * computed into a scratch block, then its valid part is stored. */
static void edge_kernel(const Kernels *ks, BlockShape shape, int kc, const real *a, size_t a_row, size_t a_k, const real *b, real *C, size_t ldc,
                        int rows, int cols, BlockStore store)
{
    int mr = shape == BLOCK_NARROW ? 2 * MR : MR, nr = shape == BLOCK_NARROW ? NR / 2 : NR;
    if (cols == nr) {
        ks->rows(rows, shape, kc, a, a_row, a_k, b, C, ldc, store);
        return;
    }
    real t[2 * MR * NR];
    if (rows < mr) ks->rows(rows, shape, kc, a, a_row, a_k, b, t, NR, STORE_SET);
    else if (shape == BLOCK_NARROW) ks->narrow(kc, a, a_row, a_k, b, t, NR, STORE_SET);
    else ks->wide(kc, a, a_row, a_k, b, t, NR, STORE_SET);
    if (store == STORE_ADD)
        for (int r = 0; r < rows; r++)
            for (int j = 0; j < cols; j++) C[r * ldc + j] += t[r * NR + j];
    else
        for (int r = 0; r < rows; r++) memcpy(C + r * ldc, t + r * NR, (size_t)cols * sizeof(real));
}

/* Row blocks [ib_lo, ib_hi) of one column block jb (of width nc_max) of one batch item. */
static void gemm_run(const Kernels *ks, const GemmShape *s, const real *A, const real *B, real *C, int nc_max, int jb, int ib_lo, int ib_hi)
{
    int j0 = jb * nc_max, nc = s->N - j0 < nc_max ? s->N - j0 : nc_max;
    if (s->K == 0) { /* an empty sum */
        if (!s->accumulate)
            for (int i = ib_lo * MC; i < ib_hi * MC && i < s->M; i++) memset(C + (size_t)i * s->ldc + j0, 0, (size_t)nc * sizeof(real));
        return;
    }
    for (int k0 = 0; k0 < s->K; k0 += KC) {
        int kc = s->K - k0 < KC ? s->K - k0 : KC;
        BlockStore store = s->accumulate || k0 > 0 ? STORE_ADD : STORE_SET;
        pack_b(ks, s, B, k0, kc, j0, nc, g_pack_b);
        /* A is read in place: element (i, k) of op(A) at A + i a_row + k a_k */
        size_t a_row = s->trans_a ? 1 : (size_t)s->lda, a_k = s->trans_a ? (size_t)s->lda : 1;
        for (int ib = ib_lo; ib < ib_hi; ib++) {
            int i0 = ib * MC, mc = s->M - i0 < MC ? s->M - i0 : MC;
            for (int q = 0; q < nc; q += NR) {
                int cols = nc - q < NR ? nc - q : NR;
                BlockShape shape = cols <= NR / 2 ? BLOCK_NARROW : BLOCK_WIDE; /* 16 x 16 instead of 8 x 32 */
                int mr = shape == BLOCK_NARROW ? 2 * MR : MR, nr = shape == BLOCK_NARROW ? NR / 2 : NR;
                for (int p = 0; p < mc; p += mr) {
                    int rows = mc - p < mr ? mc - p : mr;
                    const real *a = A + (size_t)(i0 + p) * a_row + (size_t)k0 * a_k, *b = g_pack_b + (size_t)q * kc;
                    real *c = C + (size_t)(i0 + p) * s->ldc + j0 + q;
                    if (rows < mr || cols < nr) edge_kernel(ks, shape, kc, a, a_row, a_k, b, c, (size_t)s->ldc, rows, cols, store);
                    else if (shape == BLOCK_NARROW) ks->narrow(kc, a, a_row, a_k, b, c, (size_t)s->ldc, store);
                    else ks->wide(kc, a, a_row, a_k, b, c, (size_t)s->ldc, store);
                }
            }
        }
    }
}

void gemm(const GemmShape *s, const real *A, const real *B, real *C)
{
    assert(s->M >= 0 && s->N >= 0 && s->K >= 0 && s->batch >= 1);
    /* each stored row fits in its stride */
    assert(s->lda >= (s->trans_a ? s->M : s->K) && s->ldb >= (s->trans_b ? s->K : s->N) && s->ldc >= s->N);
    /* Parallelise only when there is enough work to pay for waking the threads. */
    double flops = 2.0 * s->batch * s->M * s->N * (double)s->K;
    int threads = flops < PARALLEL_MIN_FLOPS ? 1 : omp_get_max_threads();
    /* Narrower column blocks when there are too few tiles for the threads. The tile shape does
     * not change any element's summation order (only KC does), so results stay the same. */
    int nc_max = NC;
    long mb = (s->M + MC - 1) / MC, nb = (s->N + nc_max - 1) / nc_max;
    while ((long)s->batch * nb * mb < 2L * threads && nc_max > NR) {
        nc_max /= 2;
        nb = (s->N + nc_max - 1) / nc_max;
    }
    long tiles = (long)s->batch * nb * mb;
    if (tiles == 0) return;
    if (tiles == 1) threads = 1;
    const Kernels *ks = kernels();
#pragma omp parallel num_threads(threads)
    {
        /* this thread's share of the tiles, in (batch, column block, row block) order */
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        long lo = tiles * t / n, hi = tiles * (t + 1) / n;
        while (lo < hi) {
            long b = lo / (nb * mb), rest = lo % (nb * mb), jb = rest / mb, ib = rest % mb;
            long end = lo + (mb - ib) < hi ? lo + (mb - ib) : hi; /* the rest of this column block */
            gemm_run(ks, s, A + item_offset(b, s->group, s->stride_a, s->group_stride_a),
                     B + item_offset(b, s->group, s->stride_b, s->group_stride_b),
                     C + item_offset(b, s->group, s->stride_c, s->group_stride_c), nc_max, (int)jb, (int)ib,
                     (int)(ib + end - lo));
            lo = end;
        }
    }
}
