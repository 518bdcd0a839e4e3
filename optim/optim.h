/* optim.h - optimizers over a list of parameters, the learning-rate schedule, and global-norm
 * gradient clipping.
 *
 * An optimizer is one OptimSpec (its own file, optim_<name>.c) and one row of the table in
 * optim.c: its name, the state it keeps per parameter element (named, so that checkpoints can
 * store it as "optim.<state>.<parameter>") and its update rule.
 */
#ifndef OPTIM_OPTIM_H
#define OPTIM_OPTIM_H

#include "../tensor/tensor.h"

typedef enum OptimKind { OPTIM_ADAMW, OPTIM_SGD } OptimKind;

typedef struct OptimConfig {
    OptimKind kind;
    double lr, min_lr;          /* peak and final learning rate */
    int warmup, steps;          /* linear warmup steps, total steps (the cosine's length) */
    double beta1, beta2, eps;   /* Adam's moment decay rates and denominator guard */
    double momentum;            /* SGD: the heavy-ball coefficient mu (0: plain SGD) */
    double weight_decay;        /* decoupled: p -= lr * wd * p, on the parameters marked to decay */
} OptimConfig;

enum { OPTIM_MAX_STATE = 4 };

/* The constants of one update. */
typedef struct OptimStep {
    const OptimConfig *cfg;
    int step;                   /* 0-based (Adam's bias correction counts step + 1 updates) */
    double lr;
    double weight_decay;        /* for this parameter: cfg->weight_decay, or 0 where it does not decay */
    double inv_bias1, inv_bias2; /* 1 / (1 - beta^(step + 1)), Adam's bias corrections: once per step,
                                    not once per chunk */
} OptimStep;

typedef struct OptimSpec {
    const char *name;           /* as --optim spells it */
    const char *help;
    int n_state;                /* buffers kept per parameter element */
    const char *state_name[OPTIM_MAX_STATE]; /* "m", "v": checkpoints store "optim.m.h.0.attn.wq" */
    bool state_nonnegative[OPTIM_MAX_STATE]; /* checked on load (a second moment is a mean of squares) */
    /* Whether state buffer k is kept (allocated, updated, saved) under this configuration;
     * NULL: all of them. (SGD's momentum buffer exists only when mu > 0.) */
    bool (*state_used)(const OptimConfig *cfg, int k);
    /* The new values of n elements of one parameter (a chunk, on one thread: the caller
     * spreads the chunks over the threads): p from p, its gradient g and the state buffers
     * (state[i] + the chunk's offset). With apply, they are written in place and
     * the result is 0. Without, nothing is written and the result is the sum of 0 * every new
     * value: NaN exactly when one of them would be NaN or infinite. */
    real (*update)(const OptimStep *k, size_t n, real *p, const real *g, real *const *state, bool apply);
} OptimSpec;

extern const OptimSpec optim_adamw, optim_sgd;

/* The spec of an optimizer kind; NULL past the last. */
const OptimSpec *optim_spec(int kind);
/* Its name as --optim spells it and a line of help; NULL past the last. */
const char *optim_name(int kind, const char **help);

enum { OPTIM_CHUNK = 4096 };

typedef struct OptimChunk {
    int param;                  /* index into params */
    size_t j0, j1;              /* elements [j0, j1) of it */
    size_t offset;              /* where the parameter starts in the state buffers */
} OptimChunk;

typedef struct Optimizer {
    OptimConfig cfg;
    const OptimSpec *spec;
    Tensor **params;
    const bool *decay;          /* per parameter */
    int n_params;
    size_t n_values;            /* total elements; each state buffer follows the parameters' order */
    real *state[OPTIM_MAX_STATE]; /* spec->n_state buffers of n_values, zero at the start;
                                     NULL for a buffer this configuration does not use */
    /* The parameters cut into chunks of at most OPTIM_CHUNK elements, each handled by one
     * thread: the gradient norm, the clipping and the update each run as one parallel loop
     * over all the chunks of all the parameters (one parallel region, not one per parameter). */
    OptimChunk *chunks;
    size_t n_chunks;
    double *partial;            /* per chunk: its sum of squares, or its update's NaN probe */
} Optimizer;

/* Whether the optimizer keeps state buffer k under its configuration (see OptimSpec). */
bool optim_state_used(const Optimizer *o, int k);

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
 * If any new value (parameter or state) would be NaN or infinite, nothing is changed and
 * the function returns false with the index of the first such parameter in *bad_param. */
bool optim_step(Optimizer *o, int step, double lr, int *bad_param);

#endif
