/* optim_sgd.c - plain stochastic gradient descent with decoupled weight decay:
 *     p -= lr (g + wd p)
 * Its step is the gradient itself, so its size follows the gradient's scale (unlike Adam's):
 * this is what makes it sensitive to the attention scale.
 *
 * SGD needs no state, but it keeps AdamW's two buffers, untouched: --optim may change when a
 * run is resumed, and switching to SGD and back then keeps Adam's moments (and an SGD
 * checkpoint has the same layout as an AdamW one). */
#include "optim.h"

#include "../tensor/parallel.h"

static real sgd_update(const OptimStep *s, size_t n, real *p, const real *g, real *const *state, bool apply)
{
    (void)state;
    real lr = (real)s->lr, wd = (real)s->weight_decay;
    if (apply) {
#pragma omp parallel for simd schedule(static) if (n >= PARALLEL_MIN)
        for (size_t j = 0; j < n; j++) p[j] = p[j] - lr * (g[j] + wd * p[j]);
        return 0;
    }
    real probe = 0; /* NaN exactly when a new value would be NaN or infinite */
#pragma omp parallel for simd schedule(static) reduction(+ : probe) if (n >= PARALLEL_MIN)
    for (size_t j = 0; j < n; j++) probe += (p[j] - lr * (g[j] + wd * p[j])) * 0;
    return probe;
}

const OptimSpec optim_sgd = {
    .name = "sgd",
    .help = "plain gradient descent (no momentum)",
    .n_state = 2,
    .state_name = {"m", "v"}, /* AdamW's, kept as they are (see above) */
    .state_nonnegative = {false, true},
    .update = sgd_update,
};
