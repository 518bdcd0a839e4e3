/* optim.c - AdamW (Loshchilov & Hutter) and plain SGD.
 *
 * Adam keeps running averages of the gradient (m) and of its square (v):
 *     m = b1 m + (1 - b1) g,   v = b2 v + (1 - b2) g^2,   mhat = m / (1 - b1^t),  vhat = v / (1 - b2^t)
 *     p -= lr * (mhat / (sqrt(vhat) + eps) + wd * p)
 * Each step is roughly lr in size whatever the gradient's scale; the decay term is "decoupled":
 * it shrinks p directly instead of being added to g (where Adam would rescale it).
 */
#include "optim.h"

#include <math.h>
#include <string.h>

enum { NORM_CHUNK = 4096 };

void optim_init(Optimizer *o, const OptimConfig *cfg, Tensor **params, const bool *decay, int n_params)
{
    memset(o, 0, sizeof *o);
    o->cfg = *cfg;
    o->params = params;
    o->decay = decay;
    o->n_params = n_params;
    o->n_partial = 0;
    for (int i = 0; i < n_params; i++) {
        o->n_values += params[i]->size;
        o->n_partial += (params[i]->size + NORM_CHUNK - 1) / NORM_CHUNK;
    }
    o->m = mem_alloc(o->n_values * sizeof(real)); /* zeroed */
    o->v = mem_alloc(o->n_values * sizeof(real));
    o->partial = mem_alloc(o->n_partial * sizeof(double));
}

void optim_free(Optimizer *o)
{
    mem_free(o->m);
    mem_free(o->v);
    mem_free(o->partial);
    memset(o, 0, sizeof *o);
}

double optim_lr(const OptimConfig *c, int step)
{
    /* warmup steps 0 .. w-1 rise to lr; cosine steps w .. steps-1 fall so that the last one
     * uses min_lr exactly */
    if (step < c->warmup) return c->lr * (step + 1) / c->warmup;
    int span = c->steps - c->warmup;
    if (span <= 0) return c->lr;
    double progress = (double)(step - c->warmup + 1) / span;
    if (progress > 1) progress = 1;
    return c->min_lr + 0.5 * (c->lr - c->min_lr) * (1 + cos(3.141592653589793 * progress));
}

double optim_grad_norm(Optimizer *o)
{
    /* Chunks of fixed size, each summed by one thread; the partial sums added in order. */
    size_t k = 0;
    for (int i = 0; i < o->n_params; i++) {
        const Tensor *p = o->params[i];
        long chunks = (long)((p->size + NORM_CHUNK - 1) / NORM_CHUNK);
        double *part = o->partial + k;
#pragma omp parallel for schedule(static) if (chunks > 8)
        for (long c = 0; c < chunks; c++) {
            size_t j0 = (size_t)c * NORM_CHUNK, j1 = j0 + NORM_CHUNK < p->size ? j0 + NORM_CHUNK : p->size;
            double s = 0;
            for (size_t j = j0; j < j1; j++) s += (double)p->grad[j] * p->grad[j];
            part[c] = s;
        }
        k += (size_t)chunks;
    }
    double total = 0;
    for (size_t c = 0; c < k; c++) total += o->partial[c];
    return sqrt(total);
}

void optim_scale_grads(Optimizer *o, double f)
{
    for (int i = 0; i < o->n_params; i++) {
        Tensor *p = o->params[i];
#pragma omp parallel for schedule(static) if (p->size > 65536)
        for (size_t j = 0; j < p->size; j++) p->grad[j] = (real)(p->grad[j] * f);
    }
}

/* The new values of one element: SGD changes only p; AdamW also m and v. In the working
 * precision, with the bias corrections as factors, so that the loops vectorise. */
typedef struct UpdateConsts {
    real lr, wd, b1, b2, c1, c2, inv_bc1, inv_bc2, eps;
    bool sgd;
} UpdateConsts;

static inline void update_one(const UpdateConsts *k, real p, real g, real m, real v, real *np, real *nm, real *nv)
{
    if (k->sgd) { /* p -= lr (g + wd p) */
        *np = p - k->lr * (g + k->wd * p);
        *nm = m;
        *nv = v;
        return;
    }
    real m2 = k->b1 * m + k->c1 * g, v2 = k->b2 * v + k->c2 * g * g;
    real step = (m2 * k->inv_bc1) / (real_sqrt(v2 * k->inv_bc2) + k->eps) + k->wd * p;
    *np = p - k->lr * step;
    *nm = m2;
    *nv = v2;
}

bool optim_step(Optimizer *o, int step, double lr, int *bad_param)
{
    const OptimConfig *c = &o->cfg;
    UpdateConsts k = {(real)lr, 0, (real)c->beta1, (real)c->beta2, (real)(1 - c->beta1), (real)(1 - c->beta2),
                      (real)(1 / (1 - pow(c->beta1, step + 1))), (real)(1 / (1 - pow(c->beta2, step + 1))), (real)c->eps,
                      c->kind == OPTIM_SGD};
    /* Pass 1 computes every new value without storing it: a step that would produce a NaN or
     * an Inf (an overflow, a bad gradient) must leave the model exactly as it was. */
    size_t off = 0;
    for (int i = 0; i < o->n_params; i++) {
        const Tensor *p = o->params[i];
        const real *m = o->m + off, *v = o->v + off;
        k.wd = o->decay[i] ? (real)c->weight_decay : 0;
        real probe = 0; /* x * 0 is NaN exactly when x is NaN or infinite */
#pragma omp parallel for simd schedule(static) reduction(+ : probe) if (p->size > 65536)
        for (size_t j = 0; j < p->size; j++) {
            real np, nm, nv;
            update_one(&k, p->data[j], p->grad[j], m[j], v[j], &np, &nm, &nv);
            probe += np * 0 + nm * 0 + nv * 0;
        }
        if (probe != 0) {
            *bad_param = i;
            return false;
        }
        off += p->size;
    }
    /* Pass 2 applies it. */
    off = 0;
    for (int i = 0; i < o->n_params; i++) {
        Tensor *p = o->params[i];
        real *m = o->m + off, *v = o->v + off;
        k.wd = o->decay[i] ? (real)c->weight_decay : 0;
#pragma omp parallel for simd schedule(static) if (p->size > 65536)
        for (size_t j = 0; j < p->size; j++) update_one(&k, p->data[j], p->grad[j], m[j], v[j], &p->data[j], &m[j], &v[j]);
        off += p->size;
    }
    return true;
}
