/* gradcheck.c - finite-difference gradient checking. */
#include "gradcheck.h"

#include "../tensor/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void fill_uniform(Tensor *t, double lo, double hi, uint64_t seed)
{
    Rng r = rng_stream(seed, 7);
    for (size_t i = 0; i < t->size; i++) t->data[i] = (real)(lo + (hi - lo) * rng_uniform(&r));
}

/* L = sum(R * out) for the current input values, with nothing recorded. */
static double eval_projection(Tape *tp, GradcheckBuild build, void *ctx, Tensor **inputs, const real *R)
{
    tape_reset(tp);
    bool was = tp->grad_enabled;
    tp->grad_enabled = false;
    Tensor *out = build(tp, inputs, ctx);
    tp->grad_enabled = was;
    double L = 0;
    for (size_t i = 0; i < out->size; i++) L += (double)R[i] * out->data[i];
    return L;
}

GradcheckResult gradcheck(Tape *tp, GradcheckBuild build, void *ctx, Tensor **inputs, int n_inputs,
                          int max_per_input, uint64_t seed)
{
    GradcheckResult res = {0};
    Rng rng = rng_stream(seed, 99);

    /* 1. analytic gradients. The input gradients start at GRADCHECK_PREFILL, not 0, and the
     * prefill is subtracted afterwards: an op that overwrites (=) instead of accumulating (+=)
     * loses it and fails, even when the test uses the input only once. */
    tape_reset(tp);
    for (int k = 0; k < n_inputs; k++)
        for (size_t i = 0; i < inputs[k]->size; i++) inputs[k]->grad[i] = (real)GRADCHECK_PREFILL;
    Tensor *out = build(tp, inputs, ctx);
    size_t n_out = out->size;
    real *R = malloc(n_out * sizeof(real));
    for (size_t i = 0; i < n_out; i++) R[i] = (real)(2 * rng_uniform(&rng) - 1);
    tape_backward_from(tp, out, R);
    real **analytic = malloc((size_t)n_inputs * sizeof(real *));
    for (int k = 0; k < n_inputs; k++) {
        analytic[k] = malloc(inputs[k]->size * sizeof(real));
        for (size_t i = 0; i < inputs[k]->size; i++)
            analytic[k][i] = inputs[k]->grad[i] - (real)GRADCHECK_PREFILL;
    }

    /* 2. central differences, element by element */
    for (int k = 0; k < n_inputs; k++) {
        Tensor *x = inputs[k];
        long n = (long)x->size, count = n < max_per_input ? n : max_per_input;
        for (long c = 0; c < count; c++) {
            long i = count == n ? c : (long)(rng_next(&rng) % (uint64_t)n);
            real saved = x->data[i];
            x->data[i] = saved + (real)GRADCHECK_H;
            double up = eval_projection(tp, build, ctx, inputs, R);
            x->data[i] = saved - (real)GRADCHECK_H;
            double down = eval_projection(tp, build, ctx, inputs, R);
            x->data[i] = saved;
            double num = (up - down) / (2 * GRADCHECK_H), ana = analytic[k][i];
            double tol = GRADCHECK_ATOL + GRADCHECK_RTOL * fmax(fabs(ana), fabs(num));
            double ratio = fabs(ana - num) / tol;
            res.checked++;
            if (!(ratio <= 1)) res.bad++; /* also catches NaN */
            if (!(ratio <= res.worst)) {
                res.worst = ratio;
                res.analytic = ana;
                res.numeric = num;
                res.worst_input = k;
                res.worst_index = i;
            }
        }
    }
    for (int k = 0; k < n_inputs; k++) free(analytic[k]);
    free(analytic);
    free(R);
    tape_reset(tp);
    return res;
}

real *tensor_grad(Arena *a, Tensor *t)
{
    if (!t->grad) t->grad = arena_calloc(a, t->size * sizeof(real));
    return t->grad;
}
