/* optim.c - what every optimizer shares: the table of optimizers, their state buffers, the
 * learning-rate schedule, the gradient norm and clipping, and the all-or-nothing update. */
#include "optim.h"

#include "../tensor/parallel.h"

#include <math.h>
#include <string.h>

static const OptimSpec *const g_optimizers[] = {
    [OPTIM_ADAMW] = &optim_adamw,
    [OPTIM_SGD] = &optim_sgd,
};
enum { N_OPTIMIZERS = (int)(sizeof g_optimizers / sizeof g_optimizers[0]) };

const OptimSpec *optim_spec(int kind) { return kind >= 0 && kind < N_OPTIMIZERS ? g_optimizers[kind] : NULL; }

const char *optim_name(int kind, const char **help)
{
    const OptimSpec *s = optim_spec(kind);
    if (s && help) *help = s->help;
    return s ? s->name : NULL;
}

enum { NORM_CHUNK = 4096 };

void optim_init(Optimizer *o, const OptimConfig *cfg, Tensor **params, const bool *decay, int n_params)
{
    memset(o, 0, sizeof *o);
    o->cfg = *cfg;
    o->spec = optim_spec(cfg->kind);
    o->params = params;
    o->decay = decay;
    o->n_params = n_params;
    o->n_partial = 0;
    for (int i = 0; i < n_params; i++) {
        o->n_values += params[i]->size;
        o->n_partial += (params[i]->size + NORM_CHUNK - 1) / NORM_CHUNK;
    }
    for (int s = 0; s < o->spec->n_state; s++)
        if (optim_state_used(o, s)) o->state[s] = mem_alloc(o->n_values * sizeof(real)); /* zeroed */
    o->partial = mem_alloc(o->n_partial * sizeof(double));
}

bool optim_state_used(const Optimizer *o, int k)
{
    return k < o->spec->n_state && (!o->spec->state_used || o->spec->state_used(&o->cfg, k));
}

void optim_free(Optimizer *o)
{
    for (int s = 0; s < OPTIM_MAX_STATE; s++) mem_free(o->state[s]);
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
#pragma omp parallel for schedule(static) if (p->size >= PARALLEL_MIN)
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
#pragma omp parallel for schedule(static) if (p->size >= PARALLEL_MIN)
        for (size_t j = 0; j < p->size; j++) p->grad[j] = (real)(p->grad[j] * f);
    }
}

/* The state buffers of the parameter that starts at element `off`. */
static void state_at(const Optimizer *o, size_t off, real **out)
{
    for (int s = 0; s < o->spec->n_state; s++) out[s] = o->state[s] ? o->state[s] + off : NULL;
}

bool optim_step(Optimizer *o, int step, double lr, int *bad_param)
{
    OptimStep k = {&o->cfg, step, lr, 0};
    real *state[OPTIM_MAX_STATE];
    /* Pass 1 computes every new value without storing it: a step that would produce a NaN or
     * an Inf (an overflow, a bad gradient) must leave the model exactly as it was. */
    size_t off = 0;
    for (int i = 0; i < o->n_params; i++) {
        Tensor *p = o->params[i];
        k.weight_decay = o->decay[i] ? o->cfg.weight_decay : 0;
        state_at(o, off, state);
        if (o->spec->update(&k, p->size, p->data, p->grad, state, false) != 0) {
            *bad_param = i;
            return false;
        }
        off += p->size;
    }
    /* Pass 2 applies it. */
    off = 0;
    for (int i = 0; i < o->n_params; i++) {
        Tensor *p = o->params[i];
        k.weight_decay = o->decay[i] ? o->cfg.weight_decay : 0;
        state_at(o, off, state);
        o->spec->update(&k, p->size, p->data, p->grad, state, true);
        off += p->size;
    }
    return true;
}
