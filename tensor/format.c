/* format.c - rounding to bf16 and fp16 in software (see format.h).
 *
 * A format with p significant bits (the implicit leading 1 included) and exponents down to
 * emin holds, near a value a with 2^e <= a < 2^(e+1), the multiples of the spacing
 *     2^q,  q = max(e, emin) - (p - 1)
 * (below 2^emin the spacing stays 2^(emin - p + 1): the subnormals). Rounding a to the format is
 * therefore rint(a / 2^q) 2^q. Both scalings are by a power of two, so they are exact, and rint
 * rounds to the nearest integer, ties to even (the default rounding mode): one correct rounding.
 * The arithmetic is in double, which holds every float and every double exactly, so the same
 * code is right for both builds. The largest finite value is (2 - 2^(1-p)) 2^emax; a value at or
 * beyond (2 - 2^-p) 2^emax, halfway to 2^(emax+1), rounds to Inf; below half the smallest
 * subnormal, rint gives 0 (exactly half is a tie, and 0 is even).
 */
#include "format.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct FormatSpec {
    const char *name, *help;
    int precision;    /* p: significant bits, the implicit leading 1 included */
    int min_exp;      /* emin: exponent of the smallest normal number */
    int max_exp;      /* emax: exponent of the largest finite number */
} FormatSpec;

static const FormatSpec g_formats[] = {
    [FORMAT_FP32] = {"fp32", "no rounding: the engine's own precision", 24, -126, 127},
    [FORMAT_BF16] = {"bf16", "bfloat16: fp32's range, 8 significant bits", 8, -126, 127},
    [FORMAT_FP16] = {"fp16", "IEEE binary16: 11 significant bits, largest finite 65504", 11, -14, 15},
};
enum { N_FORMATS = (int)(sizeof g_formats / sizeof g_formats[0]) };

#ifndef REAL_DOUBLE
/* The float build's fast path: the same rounding on the bits. A float is sign, 8 exponent bits
 * and 23 fraction bits; keeping the top 23 - drop fraction bits, to nearest even, is adding
 * just under half of the dropped part (plus the kept last bit, which breaks a tie towards
 * even) and clearing it. A carry out of the fraction moves to the next exponent, and past the
 * largest finite float to Inf, as rounding should. Used for bf16 everywhere (its exponents are
 * fp32's, float subnormals included) and for fp16's normal numbers; fp16's subnormals (below
 * 2^-14, spacing 2^-24) are rint(x 2^24) 2^-24, both scalings exact. tests/test_engine.c checks
 * the result against gcc's _Float16 and a bit-level bf16 reference. */
static float keep_fraction_bits(float x, int drop)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u = (u + ((1u << (drop - 1)) - 1) + ((u >> drop) & 1)) & ~((1u << drop) - 1);
    memcpy(&x, &u, sizeof x);
    return x;
}

static float round_float(float x, NumFormat f)
{
    if (isnan(x)) return x;
    if (f == FORMAT_BF16) return keep_fraction_bits(x, 16);
    float a = fabsf(x);
    if (a < 0x1p-14f) return rintf(x * 0x1p24f) * 0x1p-24f; /* fp16 subnormals, and 0 below half of 2^-24 */
    float r = keep_fraction_bits(x, 13);
    return fabsf(r) > (float)FP16_MAX ? copysignf(INFINITY, x) : r;
}
#endif

real format_round(real x, NumFormat f)
{
    if (f == FORMAT_FP32) return x;
#ifndef REAL_DOUBLE
    return round_float(x, f);
#endif
    const FormatSpec *s = &g_formats[f];
    double a = fabs((double)x);
    if (!(a < ldexp(2 - ldexp(1, -s->precision), s->max_exp))) /* NaN, Inf, or past max + half an ulp */
        return isnan(x) ? x : (real)copysign(INFINITY, (double)x);
    int e;
    frexp(a, &e); /* a = m 2^e with 1/2 <= m < 1: a's leading bit is 2^(e - 1) (e = 0 for a = 0) */
    int q = (e - 1 > s->min_exp ? e - 1 : s->min_exp) - (s->precision - 1);
    return (real)copysign(ldexp(rint(ldexp(a, -q)), q), (double)x);
}

double format_max(NumFormat f)
{
    switch (f) {
    case FORMAT_FP32: break;
    case FORMAT_BF16: return BF16_MAX;
    case FORMAT_FP16: return FP16_MAX;
    }
#ifdef REAL_DOUBLE
    return DBL_MAX;
#else
    return FLT_MAX;
#endif
}

const char *format_name(int f, const char **help)
{
    if (f < 0 || f >= N_FORMATS) return NULL;
    if (help) *help = g_formats[f].help;
    return g_formats[f].name;
}
