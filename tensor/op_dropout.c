/* op_dropout.c - inverted dropout with a counter-based mask.
 *
 * keep_i ~ Bernoulli(1 - p), out_i = x_i keep_i / (1 - p): dividing by the keep rate keeps
 * E[out] = x, so evaluation needs no rescaling. The mask is never stored: keep_i is a pure
 * function of (key, i), recomputed in the backward pass, identical for any thread count.
 */
#include "ops.h"
#include "parallel.h"

#include "rng.h"

#include <assert.h>

static inline bool keep(uint64_t key, size_t i, real p) { return rng_uniform_at(key, i) >= p; }

typedef struct DropoutSaved {
    real p;       /* the drop rate */
    uint64_t key; /* the mask's key: the mask is recomputed, not stored */
} DropoutSaved;

static void dropout_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0];
    const DropoutSaved *s = e->saved;
    real p = s->p, inv = 1 / (1 - p), *dx = tape_grad(tp, x);
    const real *g = e->out->grad;
    /* d out_i / d x_i = keep_i / (1 - p) */
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t i = 0; i < x->size; i++)
        if (keep(s->key, i, p)) dx[i] += g[i] * inv;
}

Tensor *op_dropout(Tape *tp, Tensor *x, real p)
{
    assert(p >= 0 && p < 1);
    if (p == 0 || !tp->training) return x;
    uint64_t key = rng_mix(tp->dropout_key + ++tp->dropout_calls); /* one key per call per step */
    Tensor *out = tensor_new(tp->arena, x->ndim, x->shape, "dropout");
    real inv = 1 / (1 - p);
#pragma omp parallel for schedule(static) if (x->size >= PARALLEL_MIN)
    for (size_t i = 0; i < x->size; i++) out->data[i] = keep(key, i, p) ? x->data[i] * inv : 0;
    TapeEntry *e = tape_push(tp, dropout_backward, "dropout", out, x, NULL, NULL);
    tape_cost(e, out->size, 0, 0); /* 1 per element; the mask is recomputed from its key, not kept */
    if (e) {
        DropoutSaved *s = tape_save(tp, e, sizeof *s);
        s->p = p;
        s->key = key;
    }
    return out;
}
