/* format.h - reduced-precision number formats, emulated in software.
 *
 * A GPU that computes attention in bfloat16 or IEEE binary16 (fp16) rounds every result to
 * the format. To see what that does to attention without such hardware, a value can be
 * rounded here exactly as the format would store it:
 *
 *   format  bits (sign, exponent, fraction)  largest finite   smallest normal  smallest subnormal
 *   fp32    1, 8, 23                          3.40e38          1.18e-38         1.40e-45
 *   bf16    1, 8, 7                           3.39e38          1.18e-38         9.18e-41
 *   fp16    1, 5, 10                          65504            6.10e-5          5.96e-8
 *
 * Rounding is to nearest, ties to even (the IEEE default). A value beyond the largest finite
 * number by half a unit or more becomes +-Inf (overflow); a value below half the smallest
 * subnormal becomes +-0 (underflow, "flushed to zero"); values in between keep the format's
 * subnormal spacing. NaN stays NaN.
 */
#ifndef TENSOR_FORMAT_H
#define TENSOR_FORMAT_H

#include "tensor.h"

typedef enum NumFormat {
    FORMAT_FP32, /* the engine's own: no rounding (in the double build too) */
    FORMAT_BF16,
    FORMAT_FP16,
} NumFormat;

#define FP16_MAX 65504.0                      /* (2 - 2^-10) 2^15 */
#define BF16_MAX 3.3895313892515355e38        /* (2 - 2^-7) 2^127 */

/* What rounding did to a tensor's values, counted element by element (added to, never reset). */
typedef struct FormatCounts {
    long overflow;   /* finite values that became +-Inf */
    long nan;        /* NaN results */
    long underflow;  /* nonzero values that became 0 */
} FormatCounts;

/* x rounded to the format (the identity for FORMAT_FP32). */
real format_round(real x, NumFormat f);
/* The format's largest finite value (FLT_MAX, or DBL_MAX in the double build, for FORMAT_FP32). */
double format_max(NumFormat f);
/* Its name as --precision spells it ("fp32", "bf16", "fp16") and a line of help; NULL past the last. */
const char *format_name(int f, const char **help);

#endif
