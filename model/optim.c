/* optim.c - what every optimizer shares: their state buffers, the learning-rate schedule, the
 * gradient norm and clipping, and the all-or-nothing update. */
#include "optim.h"

#include "../tensor/parallel.h"

#include <assert.h>
#include <math.h>
#include <string.h>

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
    /* the chosen optimizer's buffers that it uses under this configuration (optim.h) */
    int kind, k;
    for (int b = 0; optim_buffer(b, &kind, &k); b++) {
        assert(b < OPTIM_MAX_BUFFERS);
        if (kind != cfg->kind) continue;
        if (k == 0) o->own = b;
        if (!o->spec->state_used || o->spec->state_used(cfg, k)) o->state[b] = mem_alloc(o->n_values * sizeof(real)); /* zeroed */
    }
    o->chunks = mem_alloc(o->n_chunks * sizeof *o->chunks);
    o->partial = mem_alloc(o->n_chunks * sizeof(double));
    size_t c = 0, offset = 0;
    for (int i = 0; i < n_params; i++) {
        for (size_t j0 = 0; j0 < params[i]->size; j0 += OPTIM_CHUNK)
            o->chunks[c++] = (OptimChunk){i, j0, j0 + OPTIM_CHUNK < params[i]->size ? j0 + OPTIM_CHUNK : params[i]->size, offset};
        offset += params[i]->size;
    }
}

bool optim_state_kept(const Optimizer *o, int b) { return b >= 0 && b < OPTIM_MAX_BUFFERS && o->state[b]; }

void optim_free(Optimizer *o)
{
    for (int b = 0; b < OPTIM_MAX_BUFFERS; b++) mem_free(o->state[b]);
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
     * thread count. Within a chunk, 8 partial sums (lane l adds the squares at l, l + 8, ...)
     * combined in a fixed tree, so the compiler vectorises it without changing the order. */
    enum { LANES = 8 };
#pragma omp parallel for schedule(static) if (o->n_values >= PARALLEL_MIN)
    for (size_t c = 0; c < o->n_chunks; c++) {
        const OptimChunk *k = &o->chunks[c];
        const real *g = o->params[k->param]->grad + k->j0;
        size_t n = k->j1 - k->j0, j = 0;
        double acc[LANES] = {0};
        for (; j + LANES <= n; j += LANES)
            for (int l = 0; l < LANES; l++) acc[l] += (double)g[j + l] * g[j + l];
        for (int l = 0; j + l < n; l++) acc[l] += (double)g[j + l] * g[j + l];
        for (int w = LANES / 2; w >= 1; w /= 2)
            for (int l = 0; l < w; l++) acc[l] += acc[l + w];
        o->partial[c] = acc[0];
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

/* The update of every chunk: with OPTIM_APPLY, written in place; with OPTIM_PROBE, each chunk's
 * NaN probe into o->partial (see OptimSpec.update). */
static void update_chunks(Optimizer *o, const OptimStep *step, OptimWrite write)
{
#pragma omp parallel for schedule(static) if (o->n_values >= PARALLEL_MIN)
    for (size_t c = 0; c < o->n_chunks; c++) {
        const OptimChunk *k = &o->chunks[c];
        Tensor *p = o->params[k->param];
        OptimStep s = *step;
        s.weight_decay = o->decay[k->param] ? o->cfg.weight_decay : 0;
        real *state[OPTIM_MAX_STATE];
        for (int b = 0; b < o->spec->n_state; b++) {
            real *own = o->state[o->own + b];
            state[b] = own ? own + k->offset + k->j0 : NULL;
        }
        o->partial[c] = o->spec->update(&s, k->j1 - k->j0, p->data + k->j0, p->grad + k->j0, state, write);
    }
}

bool optim_step(Optimizer *o, int step, double lr, int *bad_param)
{
    OptimStep s = {.cfg = &o->cfg, .step = step, .lr = lr};
    if (o->spec->prepare) o->spec->prepare(&s);
    /* Pass 1 computes every new value without storing it: a step that would produce a NaN or
     * an Inf (an overflow, a bad gradient) must leave the model exactly as it was. */
    update_chunks(o, &s, OPTIM_PROBE);
    for (size_t c = 0; c < o->n_chunks; c++)
        if (o->partial[c] != 0) { /* NaN: the first chunk that has one names the parameter */
            *bad_param = o->chunks[c].param;
            return false;
        }
    /* Pass 2 applies it. */
    update_chunks(o, &s, OPTIM_APPLY);
    return true;
}
