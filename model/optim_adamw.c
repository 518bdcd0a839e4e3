/* optim_adamw.c - AdamW (Loshchilov & Hutter, 2019).
 *
 * Adam keeps running averages of the gradient (m) and of its square (v):
 *     m = b1 m + (1 - b1) g,   v = b2 v + (1 - b2) g^2,   mhat = m / (1 - b1^t),  vhat = v / (1 - b2^t)
 *     p -= lr * (mhat / (sqrt(vhat) + eps) + wd * p)
 * Each step is roughly lr in size whatever the gradient's scale; the decay term is "decoupled":
 * it shrinks p directly instead of being added to g (where Adam would rescale it). eps sits
 * outside the square root: it guards the division, it does not soften small second moments.
 */
#include "optim.h"

#include <math.h>

enum { ADAM_M, ADAM_V };                    /* its state */
enum { ADAM_INV_BIAS1, ADAM_INV_BIAS2 };    /* its constants of a step */

/* 1 / (1 - beta^t) after t = step + 1 updates: the bias corrections, once per step */
static void adamw_prepare(OptimStep *s)
{
    s->k[ADAM_INV_BIAS1] = 1 / (1 - pow(s->cfg->beta1, s->step + 1));
    s->k[ADAM_INV_BIAS2] = 1 / (1 - pow(s->cfg->beta2, s->step + 1));
}

/* The update's constants in the working precision, the bias corrections as factors, so that
 * the loops vectorise. */
typedef struct AdamConsts {
    real lr, wd, b1, b2, c1, c2, inv_bc1, inv_bc2, eps;
} AdamConsts;

static inline void adamw_one(const AdamConsts *k, real p, real g, real m, real v, real *np, real *nm, real *nv)
{
    real m2 = k->b1 * m + k->c1 * g, v2 = k->b2 * v + k->c2 * g * g;
    real step = (m2 * k->inv_bc1) / (real_sqrt(v2 * k->inv_bc2) + k->eps) + k->wd * p;
    *np = p - k->lr * step;
    *nm = m2;
    *nv = v2;
}

static real adamw_update(const OptimStep *s, size_t n, real *p, const real *g, real *const *state, OptimWrite write)
{
    const OptimConfig *c = s->cfg;
    AdamConsts k = {(real)s->lr, (real)s->weight_decay, (real)c->beta1, (real)c->beta2, (real)(1 - c->beta1),
                    (real)(1 - c->beta2), (real)s->k[ADAM_INV_BIAS1], (real)s->k[ADAM_INV_BIAS2], (real)c->eps};
    real *m = state[ADAM_M], *v = state[ADAM_V];
    if (write == OPTIM_APPLY) {
#pragma omp simd
        for (size_t j = 0; j < n; j++) adamw_one(&k, p[j], g[j], m[j], v[j], &p[j], &m[j], &v[j]);
        return 0;
    }
    real probe = 0; /* x * 0 is NaN exactly when x is NaN or infinite */
#pragma omp simd reduction(+ : probe)
    for (size_t j = 0; j < n; j++) {
        real np, nm, nv;
        adamw_one(&k, p[j], g[j], m[j], v[j], &np, &nm, &nv);
        probe += np * 0 + nm * 0 + nv * 0;
    }
    return probe;
}

const OptimSpec optim_adamw = {
    .name = "adamw",
    .help = "Adam with decoupled weight decay",
    .reads = {"beta1", "beta2", "eps"},
    .n_state = 2,
    .state = {[ADAM_M] = {"m", false}, [ADAM_V] = {"v", true}},
    .prepare = adamw_prepare,
    .update = adamw_update,
};
