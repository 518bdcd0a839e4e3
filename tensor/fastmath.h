/* fastmath.h - exp and tanh that the compiler can vectorise, for the float build.
 *
 * glibc's expf/tanhf are accurate but called one element at a time; in GELU and softmax they
 * took half of a small model's training time. These are accurate to about 1e-7 (relative for
 * exp, see each function), propagate NaN (the NaN checks rely on it), and contain no
 * conversion that would be undefined for NaN. Only arguments <= 0 are needed (softmax, cross-entropy and tanh all
 * arrange for that), which keeps 2^n a normal number.
 */
#ifndef TENSOR_FASTMATH_H
#define TENSOR_FASTMATH_H

#include <stdint.h>
#include <string.h>

/* exp(x) for x <= 0 (tiny positive x is fine); 0 below -87; NaN stays NaN.
 * x = n ln2 + r with |r| <= ln2/2, so exp(x) = 2^n exp(r); exp(r) by its Taylor series to r^7
 * (truncation error r^8/8! < 5e-9); 2^n by writing n + 127 into a float's exponent bits.
 * Measured against libm on [-87, 0]: relative error below 1e-7 (tests/test_engine.c checks 2e-7). */
static inline float exp_nonpositive(float x)
{
    const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer held in the low mantissa bits */
    float xc = x < -87.0f ? -87.0f : x;
    float t = xc * 1.44269504f + magic;
    float n = t - magic;                                       /* round(x / ln 2) */
    float r = xc - n * 0.693145751953125f;                     /* ln 2 in two parts, so r is exact */
    r = r - n * 1.428606820309417232e-6f;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720 + r * (1.0f / 5040)))))));
    uint32_t tb, sb;
    memcpy(&tb, &t, 4);
    sb = (tb - 0x4b400000u + 127u) << 23;                      /* (n + 127) as the exponent of 2^n */
    float scale;
    memcpy(&scale, &sb, 4);
    float y = p * scale;
    return x < -87.0f ? 0.0f : y;
}

/* tanh(u) = sign(u) (1 - e) / (1 + e) with e = exp(-2|u|) <= 1. Near 0, 1 - e cancels, so
 * there the series u - u^3/3 + 2u^5/15 (next term < 2e-10 |u| for |u| < 1/16) is used instead.
 * Absolute error below 1e-7 everywhere, relative error below 1e-6. */
static inline float tanh_fast(float u)
{
    float a = u < 0 ? -u : u;
    float e = exp_nonpositive(-2.0f * a);
    float t = (1.0f - e) / (1.0f + e);
    float a2 = a * a;
    float series = a * (1.0f - a2 * (1.0f / 3 - a2 * (2.0f / 15)));
    t = a < 0.0625f ? series : t;
    return u < 0 ? -t : t;
}

#endif
