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
    if (tp->profile) profile_charge(tp->profile, profile_kind_of_op(op), PROFILE_FORWARD); /* the op just computed out */
    bool needs = (in0 && in0->requires_grad) || (in1 && in1->requires_grad) ||
                 (in2 && in2->requires_grad);
    out->requires_grad = tp->grad_enabled && needs;
    if (!out->requires_grad) return NULL;
    if (tp->n == tp->cap) {
        /* Grows during the first step only: the tape keeps its capacity across resets. */
        int cap = tp->cap ? 2 * tp->cap : 256;
        tp->entries = mem_grow(tp->entries, (size_t)tp->n * sizeof(TapeEntry), (size_t)cap * sizeof(TapeEntry));
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
    e->scope = tp->scope;
    if (tp->scope) out->name = tp->scope;
    return e;
}

void *tape_save(Tape *tp, TapeEntry *e, size_t bytes)
{
    e->saved = arena_calloc(tp->arena, bytes);
    return e->saved;
}

/* ------------------------------------------------------------------ the gradient pool */

static GradFreeList *free_list(Tape *tp, size_t bytes)
{
    for (int i = 0; i < tp->n_sizes; i++)
        if (tp->free_grads[i].bytes == bytes) return &tp->free_grads[i];
    if (tp->n_sizes == TAPE_GRAD_SIZES) return NULL; /* too many sizes: that one is not reused */
    GradFreeList *l = &tp->free_grads[tp->n_sizes++];
    l->bytes = bytes;
    l->head = NULL;
    return l;
}

/* t's gradient buffer; a new one is zeroed unless the caller will write all of it (*first). */
static real *grad_buffer(Tape *tp, Tensor *t, bool *first)
{
    /* a view shares its source's gradient: ask the source every time, since the source's buffer
     * goes back to the pool after its backward, and a later pass gets a new one */
    if (t->view_of) return t->grad = grad_buffer(tp, t->view_of, first);
    if (first) *first = !t->grad;
    if (t->grad) return t->grad;
    size_t bytes = (t->size * sizeof(real) + 63) / 64 * 64;
    GradFreeList *l = free_list(tp, bytes);
    void *block = l ? l->head : NULL;
    if (block) l->head = *(void **)block;
    else block = arena_alloc(tp->arena, bytes);
    if (!first) memset(block, 0, bytes);
    t->grad = block;
    t->grad_pooled = true;
    return t->grad;
}

real *tape_grad(Tape *tp, Tensor *t) { return grad_buffer(tp, t, NULL); }

real *tape_grad_whole(Tape *tp, Tensor *t, bool *first) { return grad_buffer(tp, t, first); }

/* Gives t's gradient back to the pool (it is dead: its producer's backward has run). */
static void release_grad(Tape *tp, Tensor *t)
{
    if (!t->grad_pooled || tp->keep_grads) return;
    GradFreeList *l = free_list(tp, (t->size * sizeof(real) + 63) / 64 * 64);
    if (l) {
        *(void **)t->grad = l->head;
        l->head = t->grad;
    }
    t->grad = NULL;
    t->grad_pooled = false;
}

bool tape_watch_grad(Tape *tp, const Tensor *t, GradWatchFn fn, void *ctx)
{
    if (!t->requires_grad) return false; /* not recorded: no gradient will come */
    assert(!t->view_of); /* a view has no entry: watch the tensor it views */
    for (int k = tp->n - 1; k >= 0; k--) { /* from the end: t is most often the latest output */
        TapeEntry *e = &tp->entries[k];
        if (e->out != t) continue;
        assert(!e->watch);
        e->watch = fn;
        e->watch_ctx = ctx;
        return true;
    }
    assert(!"tape_watch_grad: no entry of this tape produced t");
    return false;
}

/* Entry e's backward, after the watch on its output (if any) has seen the finished gradient. */
static void run_backward(Tape *tp, TapeEntry *e)
{
    if (e->watch) e->watch(e->out, e->watch_ctx);
    e->backward(tp, e);
    if (tp->profile) profile_charge(tp->profile, profile_kind_of_op(e->op), PROFILE_BACKWARD);
}

void tape_backward_from(Tape *tp, Tensor *out, const real *seed_grad)
{
    assert(out->requires_grad);
    if (tp->profile) profile_charge(tp->profile, PROFILE_REST, PROFILE_FORWARD); /* since the last op */
    real *g = tape_grad(tp, out);
    for (size_t i = 0; i < out->size; i++) g[i] += seed_grad[i];
    for (int k = tp->n - 1; k >= 0; k--) {
        TapeEntry *e = &tp->entries[k];
        if (!e->out->grad) continue; /* no gradient reached this op's output */
        run_backward(tp, e);
        release_grad(tp, e->out);
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
    tp->n_sizes = 0; /* the pool's blocks were arena memory */
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

int tape_backward_find_nonfinite(Tape *tp, Tensor *loss, TapeFinding *found)
{
    assert(loss->size == 1 && loss->requires_grad);
    bool keep = tp->keep_grads;
    tp->keep_grads = true;
    found->entry = -1;
    tape_grad(tp, loss)[0] += 1;
    for (int k = tp->n - 1; k >= 0; k--) {
        TapeEntry *e = &tp->entries[k];
        if (!e->out->grad) continue;
        run_backward(tp, e);
        /* every gradient was finite before this backward ran: a non-finite one now is its doing */
        for (int j = 0; j < 3 && found->entry < 0; j++) {
            const Tensor *in = e->in[j];
            size_t i = in && in->requires_grad && in->grad ? find_nonfinite(in->grad, in->size) : SIZE_MAX;
            if (i != SIZE_MAX) *found = (TapeFinding){.entry = k, .input = j, .element = i};
        }
    }
    tp->keep_grads = keep;
    return found->entry;
}
