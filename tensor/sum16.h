/* sum16.h - sums of a row in one fixed order, the same on every machine and compiler.
 *
 * Floating-point addition is not associative, so a sum's last bits depend on the order of its
 * terms. A loop written `#pragma omp simd reduction(+ : s)` lets the compiler pick that order:
 * one partial sum per vector lane, 4, 8 or 16 of them (SSE, AVX2, AVX-512, or clang's own
 * unrolling), combined in its own way. The same source then gives other bits under
 * -march=native, -march=x86-64-v2 or clang, and a checkpoint made on one machine is not
 * reproduced on another.
 *
 * Here the order is part of the code: 16 partial sums, acc[l] adding x[l], x[l + 16],
 * x[l + 32], ... in turn; the n % 16 terms left over go to acc[0 .. n % 16) in the same way;
 * then the 16 are combined in a fixed tree (acc[l] += acc[l + 8], then + 4, + 2, + 1). Every
 * step is an elementwise operation on the array acc, which any vector width (4, 8 or 16 floats)
 * computes without changing a single rounding; so the compiler vectorises it and the bits stay
 * the same. -ffp-contract=off (Makefile) keeps a * b + c from being fused in dot16.
 * A max is exact, so any order gives the same value; max16_scaled uses the 16 lanes only so that
 * every compiler vectorises it (clang will not vectorise a max kept in one variable).
 */
#ifndef TENSOR_SUM16_H
#define TENSOR_SUM16_H

#include "tensor.h"

enum { SUM_LANES = 16 };

/* acc[0] += acc[8], ..., acc[0] += acc[1]: the 16 partial sums into acc[0], in a fixed tree. */
static inline real sum16_combine(real acc[SUM_LANES])
{
    for (int l = 0; l < 8; l++) acc[l] += acc[l + 8]; /* written out: a loop over the widths stays scalar */
    for (int l = 0; l < 4; l++) acc[l] += acc[l + 4];
    for (int l = 0; l < 2; l++) acc[l] += acc[l + 2];
    return acc[0] + acc[1];
}

/* x[0] + ... + x[n - 1] in the fixed order above. */
static inline real sum16(const real *x, int n)
{
    real acc[SUM_LANES] = {0};
    int i = 0;
    for (; i + SUM_LANES <= n; i += SUM_LANES)
        for (int l = 0; l < SUM_LANES; l++) acc[l] += x[i + l];
#pragma omp simd /* one masked load, not n % 16 scalar adds */
    for (int l = 0; l < SUM_LANES; l++) acc[l] += i + l < n ? x[i + l] : -(real)0; /* x + (-0) == x for every x, -0 too */
    return sum16_combine(acc);
}

/* a[0] b[0] + ... + a[n - 1] b[n - 1]: each product rounded, then added as in sum16. */
static inline real dot16(const real *a, const real *b, int n)
{
    real acc[SUM_LANES] = {0};
    int i = 0;
    for (; i + SUM_LANES <= n; i += SUM_LANES)
        for (int l = 0; l < SUM_LANES; l++) acc[l] += a[i + l] * b[i + l];
#pragma omp simd /* one masked load, not n % 16 scalar adds */
    for (int l = 0; l < SUM_LANES; l++) acc[l] += i + l < n ? a[i + l] * b[i + l] : -(real)0;
    return sum16_combine(acc);
}

/* (x[0] - mu)^2 + ... + (x[n - 1] - mu)^2: each square rounded, then added as in sum16. */
static inline real sum16_squares_centred(const real *x, int n, real mu)
{
    real acc[SUM_LANES] = {0};
    int i = 0;
    for (; i + SUM_LANES <= n; i += SUM_LANES)
        for (int l = 0; l < SUM_LANES; l++) acc[l] += (x[i + l] - mu) * (x[i + l] - mu);
    for (int l = 0; i + l < n; l++) acc[l] += (x[i + l] - mu) * (x[i + l] - mu);
    return sum16_combine(acc);
}

/* max_j s x[j] over j < n (n >= 1), each term taken when it is > the max so far: a NaN term is
 * passed over, unless x[0] is NaN (then the max is NaN, and so is the softmax row). */
static inline real max16_scaled(const real *x, int n, real s)
{
    real acc[SUM_LANES];
    for (int l = 0; l < SUM_LANES; l++) acc[l] = s * x[0];
    int i = 1;
    for (; i + SUM_LANES <= n; i += SUM_LANES)
        for (int l = 0; l < SUM_LANES; l++) acc[l] = s * x[i + l] > acc[l] ? s * x[i + l] : acc[l];
#pragma omp simd
    for (int l = 0; l < SUM_LANES; l++) { /* past n, x[0] again: never above a lane's max */
        real v = s * (i + l < n ? x[i + l] : x[0]);
        acc[l] = v > acc[l] ? v : acc[l];
    }
    for (int l = 0; l < 8; l++) acc[l] = acc[l + 8] > acc[l] ? acc[l + 8] : acc[l];
    for (int l = 0; l < 4; l++) acc[l] = acc[l + 4] > acc[l] ? acc[l + 4] : acc[l];
    for (int l = 0; l < 2; l++) acc[l] = acc[l + 2] > acc[l] ? acc[l + 2] : acc[l];
    acc[0] = acc[1] > acc[0] ? acc[1] : acc[0];
    return acc[0];
}

#endif
