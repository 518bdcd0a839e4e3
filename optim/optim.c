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

void optim_init(Optimizer *o, const OptimConfig *cfg, Tensor **params, const bool *decay, int n_params)
{
    memset(o, 0, sizeof *o);
    o->cfg = *cfg;
    o->spec = optim_spec(cfg->kind);
    o->params = params;
    o->decay = decay;
    o->n_params = n_params;
    for (int i = 0; i < n_params; i++) {
        o->n_values += params[i]->size;
        o->n_chunks += (params[i]->size + OPTIM_CHUNK - 1) / OPTIM_CHUNK;
    }
    for (int s = 0; s < o->spec->n_state; s++)
        if (optim_state_used(o, s)) o->state[s] = mem_alloc(o->n_values * sizeof(real)); /* zeroed */
    o->chunks = mem_alloc(o->n_chunks * sizeof *o->chunks);
    o->partial = mem_alloc(o->n_chunks * sizeof(double));
    size_t c = 0, offset = 0;
    for (int i = 0; i < n_params; i++) {
        for (size_t j0 = 0; j0 < params[i]->size; j0 += OPTIM_CHUNK)
            o->chunks[c++] = (OptimChunk){i, j0, j0 + OPTIM_CHUNK < params[i]->size ? j0 + OPTIM_CHUNK : params[i]->size, offset};
        offset += params[i]->size;
    }
}

bool optim_state_used(const Optimizer *o, int k)
{
    return k < o->spec->n_state && (!o->spec->state_used || o->spec->state_used(&o->cfg, k));
}

void optim_free(Optimizer *o)
{
    for (int s = 0; s < OPTIM_MAX_STATE; s++) mem_free(o->state[s]);
    mem_free(o->chunks);
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
    /* Each chunk summed by one thread, the chunks' sums added in order: the same bits for any
     * thread count. */
#pragma omp parallel for schedule(static) if (o->n_values >= PARALLEL_MIN)
    for (size_t c = 0; c < o->n_chunks; c++) {
        const OptimChunk *k = &o->chunks[c];
        const real *g = o->params[k->param]->grad;
        double s = 0;
        for (size_t j = k->j0; j < k->j1; j++) s += (double)g[j] * g[j];
        o->partial[c] = s;
    }
    double total = 0;
    for (size_t c = 0; c < o->n_chunks; c++) total += o->partial[c];
    return sqrt(total);
}

void optim_scale_grads(Optimizer *o, double f)
{
#pragma omp parallel for schedule(static) if (o->n_values >= PARALLEL_MIN)
    for (size_t c = 0; c < o->n_chunks; c++) {
        const OptimChunk *k = &o->chunks[c];
        real *g = o->params[k->param]->grad;
        for (size_t j = k->j0; j < k->j1; j++) g[j] = (real)(g[j] * f);
    }
}

/* The update of every chunk: with apply, written in place; without, each chunk's NaN probe
 * into o->partial (see OptimSpec.update). */
static void update_chunks(Optimizer *o, int step, double lr, bool apply)
{
    double inv_bias1 = 1 / (1 - pow(o->cfg.beta1, step + 1)), inv_bias2 = 1 / (1 - pow(o->cfg.beta2, step + 1));
#pragma omp parallel for schedule(static) if (o->n_values >= PARALLEL_MIN)
    for (size_t c = 0; c < o->n_chunks; c++) {
        const OptimChunk *k = &o->chunks[c];
        Tensor *p = o->params[k->param];
        OptimStep s = {&o->cfg, step, lr, o->decay[k->param] ? o->cfg.weight_decay : 0, inv_bias1, inv_bias2};
        real *state[OPTIM_MAX_STATE];
        for (int b = 0; b < o->spec->n_state; b++) state[b] = o->state[b] ? o->state[b] + k->offset + k->j0 : NULL;
        real probe = o->spec->update(&s, k->j1 - k->j0, p->data + k->j0, p->grad + k->j0, state, apply);
        o->partial[c] = probe;
    }
}

bool optim_step(Optimizer *o, int step, double lr, int *bad_param)
{
    /* Pass 1 computes every new value without storing it: a step that would produce a NaN or
     * an Inf (an overflow, a bad gradient) must leave the model exactly as it was. */
    update_chunks(o, step, lr, false);
    for (size_t c = 0; c < o->n_chunks; c++)
        if (o->partial[c] != 0) { /* NaN: the first chunk that has one names the parameter */
            *bad_param = o->chunks[c].param;
            return false;
        }
    /* Pass 2 applies it. */
    update_chunks(o, step, lr, true);
    return true;
}
