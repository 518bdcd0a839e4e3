/* gradcheck.h - compare a graph's analytic gradients with central finite differences.
 *
 * The graph is rebuilt by `build` from persistent input tensors. With a fixed random
 * projection R, the scalar L = sum(R * out) has dL/d(out) = R; the tape gives dL/dx for every
 * input, and each checked element is compared with (L(x + h) - L(x - h)) / (2h).
 */
#ifndef TESTS_GRADCHECK_H
#define TESTS_GRADCHECK_H

#include "../tensor/tensor.h"

typedef Tensor *(*GradcheckBuild)(Tape *tp, Tensor **inputs, void *ctx);

typedef struct GradcheckResult {
    int checked;        /* elements compared */
    int bad;            /* elements outside the tolerance */
    double worst;       /* largest |analytic - numeric| / (atol + rtol max(|a|, |n|)) */
    double analytic, numeric; /* the pair with the worst ratio */
    int worst_input;
    long worst_index;
} GradcheckResult;

/* Tolerance: |analytic - numeric| <= GRADCHECK_ATOL + GRADCHECK_RTOL * max(|analytic|, |numeric|).
 * The checks run in double precision (the test binary is built with -DREAL_DOUBLE), where a
 * central difference with h = 1e-5 is accurate to about 1e-9: a tolerance of 1e-6 relative
 * leaves a wide margin for rounding and still fails on any real bug, which is off by O(1).
 * In float32 the same difference would carry errors near 1e-2 and could hide small bugs. */
#define GRADCHECK_H 1e-5
#define GRADCHECK_ATOL 1e-8
#define GRADCHECK_RTOL 1e-6
#define GRADCHECK_PREFILL 0.25 /* adds a rounding near 1e-17, far below the tolerance */

/* At most `max_per_input` elements of each input are checked (a fixed random subset when the
 * input is larger). Inputs must live outside tp's arena and have requires_grad set. */
GradcheckResult gradcheck(Tape *tp, GradcheckBuild build, void *ctx, Tensor **inputs, int n_inputs,
                          int max_per_input, uint64_t seed);

/* The gradient buffer of a test's own input tensor, allocated (zeroed) from `a` on first use.
 * (Ops use tape_grad; this is for tensors that live outside the tape's arena.) */
real *tensor_grad(Arena *a, Tensor *t);

/* Fill with uniform values in [lo, hi) from a seeded stream. */
void fill_uniform(Tensor *t, double lo, double hi, uint64_t seed);

#endif
