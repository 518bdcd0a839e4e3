/* optim_sgd.c - stochastic gradient descent, plain or with heavy-ball momentum, and decoupled
 * weight decay:
 *     plain (mu = 0):   p -= lr (g + wd p)
 *     momentum:         u = mu u + g,   p -= lr (u + wd p)
 * Heavy-ball (Polyak), not Nesterov: u sums the past gradients with weights mu^age, so a steady
 * gradient moves p 1 / (1 - mu) times further than plain SGD would. The step follows the
 * gradient's scale (unlike Adam's): this is what makes SGD sensitive to the attention scale.
 * The decay stays out of u ("decoupled", as in SGDW, Loshchilov & Hutter 2019); PyTorch's
 * torch.optim.SGD(momentum=mu, dampening=0) adds wd p to g before u, so with weight decay the
 * two differ from the second step on (with --weight-decay=0 they are the same).
 *
 * Its only state is the momentum buffer u, kept only when mu > 0 (optim.h: a run keeps the state
 * of its own optimizer, nothing else). */
#include "optim.h"

enum { SGD_MOMENTUM }; /* its state */

/* The new p and u of one element (u unused when mu = 0). */
static inline void sgd_one(real lr, real wd, real mu, real p, real g, real u, real *np, real *nu)
{
    real u2 = mu * u + g;
    *nu = u2;
    *np = p - lr * (u2 + wd * p);
}

static real sgd_update(const OptimStep *s, size_t n, real *p, const real *g, real *const *state, OptimWrite write)
{
    real lr = (real)s->lr, wd = (real)s->weight_decay, mu = (real)s->cfg->momentum;
    real probe = 0; /* NaN exactly when a new value would be NaN or infinite */
    if (s->cfg->momentum == 0) {
        if (write == OPTIM_APPLY) {
#pragma omp simd
            for (size_t j = 0; j < n; j++) p[j] = p[j] - lr * (g[j] + wd * p[j]);
            return 0;
        }
#pragma omp simd reduction(+ : probe)
        for (size_t j = 0; j < n; j++) probe += (p[j] - lr * (g[j] + wd * p[j])) * 0;
        return probe;
    }
    real *u = state[SGD_MOMENTUM];
    if (write == OPTIM_APPLY) {
#pragma omp simd
        for (size_t j = 0; j < n; j++) sgd_one(lr, wd, mu, p[j], g[j], u[j], &p[j], &u[j]);
        return 0;
    }
#pragma omp simd reduction(+ : probe)
    for (size_t j = 0; j < n; j++) {
        real np, nu;
        sgd_one(lr, wd, mu, p[j], g[j], u[j], &np, &nu);
        probe += np * 0 + nu * 0;
    }
    return probe;
}

/* the momentum buffer when mu > 0 */
static bool sgd_state_used(const OptimConfig *cfg, int k) { return k != SGD_MOMENTUM || cfg->momentum > 0; }

const OptimSpec optim_sgd = {
    .name = "sgd",
    .help = "gradient descent, with heavy-ball momentum when --momentum > 0",
    .reads = {"momentum"},
    .n_state = 1,
    .state = {[SGD_MOMENTUM] = {"momentum", false}},
    .state_used = sgd_state_used,
    .update = sgd_update,
};
