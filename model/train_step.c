/* train_step.c - see train_step.h. */
#include "train_step.h"

#include <string.h>

StepResult gpt_train_step(Gpt *m, Tape *tp, Optimizer *opt, const int *tokens, const int *targets,
                          const unsigned char *mask, int B, int T, int step, double clip)
{
    StepResult r;
    memset(m->grads, 0, m->n_values * sizeof(real));
    Tensor *loss = op_cross_entropy(tp, gpt_forward(m, tp, tokens, B, T), targets, mask);
    tape_backward(tp, loss);
    r.loss = loss->data[0];
    r.grad_norm = optim_grad_norm(opt);
    if (clip > 0 && r.grad_norm > clip) optim_scale_grads(opt, clip / r.grad_norm);
    int bad;
    r.updated = optim_step(opt, step, optim_lr(&opt->cfg, step), &bad);
    tape_reset(tp);
    return r;
}
