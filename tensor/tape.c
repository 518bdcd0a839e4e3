/* tape.c - the record of the forward pass, replayed backwards.
 *
 * Reverse-mode autodiff in one sentence: if out = f(in), then
 *     d(loss)/d(in) += d(loss)/d(out) . d(out)/d(in)          (the chain rule)
 * and doing this for every op in reverse order of the forward pass visits each op after
 * all the ops that consumed its output, so out->grad is complete when the op is visited.
 * Gradients are accumulated with +=, which is exactly right when a tensor feeds several ops.
 */
#include "tensor.h"

#include <assert.h>
#include <string.h>

void tape_init(Tape *tp, Arena *arena)
{
    memset(tp, 0, sizeof *tp);
    tp->arena = arena;
    tp->grad_enabled = true;
    tp->training = true;
}

void tape_free(Tape *tp)
{
    mem_free(tp->entries);
    tp->entries = NULL;
    tp->n = tp->cap = 0;
}

TapeEntry *tape_push(Tape *tp, BackwardFn fn, const char *op, Tensor *out,
                     Tensor *in0, Tensor *in1, Tensor *in2)
{
    bool needs = (in0 && in0->requires_grad) || (in1 && in1->requires_grad) ||
                 (in2 && in2->requires_grad);
    out->requires_grad = tp->grad_enabled && needs;
    if (!out->requires_grad) return NULL;
    if (tp->n == tp->cap) {
        /* Grows during the first step only: the tape keeps its capacity across resets. */
        int cap = tp->cap ? 2 * tp->cap : 256;
        TapeEntry *e = mem_alloc((size_t)cap * sizeof *e);
        if (tp->n) memcpy(e, tp->entries, (size_t)tp->n * sizeof *e);
        mem_free(tp->entries);
        tp->entries = e;
        tp->cap = cap;
    }
    TapeEntry *e = &tp->entries[tp->n++];
    memset(e, 0, sizeof *e);
    e->backward = fn;
    e->op = op;
    e->out = out;
    e->in[0] = in0;
    e->in[1] = in1;
    e->in[2] = in2;
    if (tp->scope) out->name = tp->scope;
    return e;
}

void tape_backward_from(Tape *tp, Tensor *out, const real *seed_grad)
{
    assert(out->requires_grad);
    real *g = tensor_grad(tp->arena, out);
    for (size_t i = 0; i < out->size; i++) g[i] += seed_grad[i];
    for (int k = tp->n - 1; k >= 0; k--) {
        TapeEntry *e = &tp->entries[k];
        if (!e->out->grad) continue; /* no gradient reached this op's output */
        e->backward(tp, e);
    }
}

void tape_backward(Tape *tp, Tensor *loss)
{
    assert(loss->size == 1);
    real one = 1;
    tape_backward_from(tp, loss, &one);
}

void tape_reset(Tape *tp)
{
    tp->n = 0;
    tp->dropout_calls = 0;
    arena_reset(tp->arena);
}

int tape_first_nonfinite_output(const Tape *tp, size_t *element)
{
    for (int k = 0; k < tp->n; k++) {
        const Tensor *t = tp->entries[k].out;
        size_t i = find_nonfinite(t->data, t->size);
        if (i != SIZE_MAX) {
            *element = i;
            return k;
        }
    }
    return -1;
}

int tape_first_nonfinite_grad(const Tape *tp, size_t *element)
{
    for (int k = tp->n - 1; k >= 0; k--) {
        const Tensor *t = tp->entries[k].out;
        size_t i = t->grad ? find_nonfinite(t->grad, t->size) : SIZE_MAX;
        if (i != SIZE_MAX) {
            *element = i;
            return k;
        }
    }
    return -1;
}
