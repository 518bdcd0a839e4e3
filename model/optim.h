/* optim.h - optimizers over a list of parameters, the learning-rate schedule, and global-norm
 * gradient clipping.
 *
 * An optimizer is one OptimSpec (its own file, optim_<name>.c) and one row of the table in
 * optim_table.c: its name, the options of its hyper-parameters (which --help and the "does
 * nothing here" check read), the state it keeps per parameter element (named, so that
 * checkpoints can store it as "optim.<state>.<parameter>"), its constants of a step and its
 * update rule.
 *
 * Only the chosen optimizer's state is kept, in memory and in checkpoints: each of its buffers
 * that it uses under this configuration (AdamW's m and v always, SGD's momentum when --momentum
 * > 0). A run resumed with another --optim starts the new optimizer's state at zero (and says
 * so). Every buffer of the table has its own place (optim_buffer) and a name no other optimizer
 * uses (tests/test_model.c checks it), so a checkpoint's names say whose state it holds.
 */
#ifndef MODEL_OPTIM_H
#define MODEL_OPTIM_H

#include "../tensor/tensor.h"

typedef struct OptimConfig {
    int kind;                   /* the optimizer: its row in optim_table.c */
    double lr, min_lr;          /* peak and final learning rate */
    int warmup, steps;          /* linear warmup steps, total steps (the cosine's length) */
    double beta1, beta2, eps;   /* Adam's moment decay rates and denominator guard */
    double momentum;            /* SGD: the heavy-ball coefficient mu (0: plain SGD) */
    double weight_decay;        /* decoupled: p -= lr * wd * p, on the parameters marked to decay */
} OptimConfig;

enum { OPTIM_MAX_STATE = 4, OPTIM_MAX_READS = 4, OPTIM_MAX_CONSTS = 4, OPTIM_MAX_BUFFERS = 8 };

/* The constants of one update. */
typedef struct OptimStep {
    const OptimConfig *cfg;
    int step;                   /* 0-based */
    double lr;
    double weight_decay;        /* for this parameter: cfg->weight_decay, or 0 where it does not decay */
    double k[OPTIM_MAX_CONSTS]; /* the optimizer's own constants of this step (its prepare): computed
                                   once per step, not once per chunk */
} OptimStep;

/* update() either writes the new values in place, or only probes them (see OptimSpec.update). */
typedef enum OptimWrite { OPTIM_PROBE, OPTIM_APPLY } OptimWrite;

/* One buffer of state, one value per parameter element, zero at the start. */
typedef struct OptimState {
    const char *name;           /* "m": checkpoints store "optim.m.h.0.attn.wq" */
    bool nonnegative;           /* checked on load (a second moment is a mean of squares) */
} OptimState;

typedef struct OptimSpec {
    const char *name;           /* as --optim spells it */
    const char *help;
    const char *reads[OPTIM_MAX_READS]; /* the options of its hyper-parameters ("beta1"): given to
                                   another optimizer, they are refused as doing nothing */
    int n_state;
    OptimState state[OPTIM_MAX_STATE];
    /* Whether its state buffer k is used under this configuration; NULL: all of them. (SGD's
     * momentum buffer is used only when mu > 0.) */
    bool (*state_used)(const OptimConfig *cfg, int k);
    /* Its constants of step s->step into s->k, once per step (Adam's bias corrections); NULL: none. */
    void (*prepare)(OptimStep *s);
    /* The new values of n elements of one parameter (a chunk, on one thread: the caller
     * spreads the chunks over the threads): p from p, its gradient g and its own state buffers
     * (state[k] + the chunk's offset; NULL for a buffer not used). With OPTIM_APPLY, they are
     * written in place and the result is 0. With OPTIM_PROBE, nothing is written and the result
     * is the sum of 0 * every new value: NaN exactly when one of them would be NaN or infinite. */
    real (*update)(const OptimStep *s, size_t n, real *p, const real *g, real *const *state, OptimWrite write);
} OptimSpec;

/* The table (optim_table.c). */
const OptimSpec *optim_spec(int kind); /* NULL past the last; name_find(optim_name, "sgd") finds a kind */
/* Its name as --optim spells it and a line of help; NULL past the last. */
const char *optim_name(int kind, const char **help);
/* The state buffers of every optimizer of the table, one after the other in the table's order:
 * buffer b is state k of optimizer *kind; NULL past the last. */
const OptimState *optim_buffer(int b, int *kind, int *k);

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
    real *state[OPTIM_MAX_BUFFERS]; /* the chosen optimizer's buffers at their places (optim_buffer b),
                                       n_values each, zero at the start; NULL for every other */
    int own;                    /* the chosen optimizer's first buffer among them */
    /* The parameters cut into chunks of at most OPTIM_CHUNK elements, each handled by one
     * thread: the gradient norm, the clipping and the update each run as one parallel loop
     * over all the chunks of all the parameters (one parallel region, not one per parameter). */
    OptimChunk *chunks;
    size_t n_chunks;
    double *partial;            /* per chunk: its sum of squares, or its update's NaN probe */
} Optimizer;

/* Whether the optimizer keeps buffer b (optim_buffer) under its configuration (see the top). */
bool optim_state_kept(const Optimizer *o, int b);

void optim_init(Optimizer *o, const OptimConfig *cfg, Tensor **params, const bool *decay, int n_params);
void optim_free(Optimizer *o);
/* Learning rate at step (0-based): linear warmup to lr, then cosine decay reaching min_lr at
 * the last step (steps - 1). */
double optim_lr(const OptimConfig *cfg, int step);
/* sqrt(sum of squared gradients), summed in a fixed order (same bits for any thread count). */
double optim_grad_norm(Optimizer *o);
/* Multiply every gradient by f (used to clip to a maximum global norm). */
void optim_scale_grads(Optimizer *o, double f);
/* One update with learning rate lr; `step` is the 0-based step (for the optimizer's prepare).
 * If any new value (parameter or state) would be NaN or infinite, nothing is changed and
 * the function returns false with the index of the first such parameter in *bad_param. */
bool optim_step(Optimizer *o, int step, double lr, int *bad_param);

#endif
