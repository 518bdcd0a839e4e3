/* train_step.c - the training step (see train_step.h). */
#include "train_step.h"

#include "../tensor/rng.h"

#include <math.h>
#include <string.h>

uint64_t train_dropout_key(uint64_t seed, int step) { return rng_key(rng_key(seed, RNG_STREAM_DROPOUT), (uint64_t)step); }

StepResult train_step(Trainer *t, const StepBatch *b, int step, const StepHooks *hooks)
{
    static const StepHooks none = {0};
    const StepHooks *h = hooks ? hooks : &none;
    Gpt *m = t->model;
    Tape *tp = t->tape;
    StepResult res = {.grad_norm = NAN, .lr = optim_lr(&t->opt->cfg, step)};
    if (h->before_forward) h->before_forward(h->ctx, step);

    /* forward: the model's logits and the mean cross-entropy of the answer positions */
    profile_restart(tp->profile); /* the step's map (profile.h) starts here, when one is kept */
    memset(m->grads, 0, m->n_values * sizeof(real));
    profile_charge(tp->profile, PROFILE_GRAD_CLEAR, PROFILE_FORWARD);
    tp->training = true;
    tp->grad_enabled = true;
    tp->dropout_key = train_dropout_key(t->seed, step);
    for (int l = 0; l < m->cfg.layers; l++) t->trace[l].want_row_grads = t->measure;
    Tensor *logits = gpt_forward(m, tp, b->tokens, b->B, b->T, t->trace);
    tp->scope = "loss"; /* the label of what is recorded next (tensor.h) */
    Tensor *loss = op_cross_entropy(tp, logits, b->targets, b->mask);
    tp->scope = NULL;
    res.loss = loss->data[0];
    bool ok = !h->after_forward || h->after_forward(h->ctx, step, loss);

    /* backward: d(loss)/d(every parameter), into m->grads */
    if (ok) {
        tape_backward(tp, loss);
        res.backward = true;
        ok = !h->after_backward || h->after_backward(h->ctx, step, loss);
        res.grad_norm = optim_grad_norm(t->opt);
        profile_charge(tp->profile, PROFILE_GRAD_NORM, PROFILE_FORWARD);
    }
    if (h->before_update) h->before_update(h->ctx, step, &res, logits, loss);

    /* update: clip the gradient to a global norm of at most t->clip, then one optimizer step */
    if (ok) {
        if (t->clip > 0 && res.grad_norm > t->clip) optim_scale_grads(t->opt, t->clip / res.grad_norm);
        profile_charge(tp->profile, PROFILE_GRAD_NORM, PROFILE_FORWARD);
        int bad;
        res.updated = optim_step(t->opt, step, res.lr, &bad);
        profile_charge(tp->profile, PROFILE_OPTIMIZER, PROFILE_FORWARD);
        if (!res.updated && h->update_refused) h->update_refused(h->ctx, step, &res, bad);
    }
    tape_reset(tp); /* the activations' memory is reused by the next step */
    profile_charge(tp->profile, PROFILE_REST, PROFILE_FORWARD);
    return res;
}
