/* optim.h - AdamW and SGD over a list of parameters, the learning-rate schedule, and
 * global-norm gradient clipping. */
#ifndef MODEL_OPTIM_H
#define MODEL_OPTIM_H

#include "../tensor/tensor.h"

typedef enum OptimKind { OPTIM_ADAMW, OPTIM_SGD } OptimKind;

typedef struct OptimConfig {
    OptimKind kind;
    double lr, min_lr;          /* peak and final learning rate */
    int warmup, steps;          /* linear warmup steps, total steps (the cosine's length) */
    double beta1, beta2, eps;   /* Adam's moment decay rates and denominator guard */
    double weight_decay;        /* decoupled: p -= lr * wd * p, on the parameters marked to decay */
} OptimConfig;

typedef struct Optimizer {
    OptimConfig cfg;
    Tensor **params;
    const bool *decay;          /* per parameter */
    int n_params;
    size_t n_values;            /* total elements; m and v follow the parameters' order */
    real *m, *v;                /* Adam's first and second moments */
    double *partial;            /* scratch for the deterministic gradient norm */
    size_t n_partial;
} Optimizer;

void optim_init(Optimizer *o, const OptimConfig *cfg, Tensor **params, const bool *decay, int n_params);
void optim_free(Optimizer *o);
/* Learning rate at step (0-based): linear warmup to lr, then cosine decay reaching min_lr at
 * the last step (steps - 1). */
double optim_lr(const OptimConfig *cfg, int step);
/* sqrt(sum of squared gradients), summed in a fixed order (same bits for any thread count). */
double optim_grad_norm(Optimizer *o);
/* Multiply every gradient by f (used to clip to a maximum global norm). */
void optim_scale_grads(Optimizer *o, double f);
/* One update with learning rate lr; `step` is the 0-based step (for Adam's bias correction).
 * If any new value (parameter or Adam moment) would be NaN or infinite, nothing is changed and
 * the function returns false with the index of the first such parameter in *bad_param. */
bool optim_step(Optimizer *o, int step, double lr, int *bad_param);

#endif
