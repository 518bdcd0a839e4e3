/* train_step.h - one optimisation step, the only one: ./train, the benchmark and the tests
 * all run this function.
 *
 *   zero the gradients -> forward (recorded on the tape) -> cross-entropy -> backward
 *   -> gradient norm -> clip to Trainer.clip -> optimizer update at the scheduled rate -> reset the tape
 *
 * What ./train adds around it (NaN checks and forensics, metrics, fault injection, the state
 * dump) rides on the step as hooks, called at the named points; a NULL hook is skipped.
 */
#ifndef MODEL_TRAIN_STEP_H
#define MODEL_TRAIN_STEP_H

#include "gpt.h"
#include "optim.h"

typedef struct Trainer {
    Gpt *model;
    Optimizer *opt;
    Tape *tape;
    uint64_t seed;       /* with the step, keys the dropout masks */
    double clip;         /* maximum global gradient norm; 0: no clipping */
    bool measure;        /* this step is measured: the traces also record each query row's |dL/dS| */
    AttentionTrace trace[GPT_MAX_LAYERS]; /* what each layer's attention computed in this step */
} Trainer;

/* One step's examples: tokens, targets [B, T]; mask [B, T] (1: the position counts in the
 * loss) or NULL for all. */
typedef struct StepBatch {
    const int *tokens, *targets;
    const unsigned char *mask;
    int B, T;
} StepBatch;

typedef struct StepResult {
    double loss;
    double grad_norm;    /* before clipping; NaN when the backward pass did not run */
    double lr;           /* the step's scheduled learning rate */
    bool backward;       /* the backward pass ran */
    bool updated;        /* the parameters changed */
} StepResult;

typedef struct StepHooks {
    void *ctx;           /* passed to every hook */
    /* before the forward pass */
    void (*before_forward)(void *ctx, int step);
    /* the loss is computed; returning false skips the backward pass and the update */
    bool (*after_forward)(void *ctx, int step, Tensor *loss);
    /* the gradients are computed; returning false skips the update */
    bool (*after_backward)(void *ctx, int step, Tensor *loss);
    /* before clipping and the update: the gradients and res->grad_norm are the step's own
     * (the tape, the traces and `logits` are still valid) */
    void (*before_update)(void *ctx, int step, const StepResult *res, Tensor *logits, Tensor *loss);
    /* the optimizer refused the update: it would have made parameter `bad_param` non-finite */
    void (*update_refused)(void *ctx, int step, const StepResult *res, int bad_param);
} StepHooks;

/* The key of step `step`'s dropout masks: a different mask at every step, the same for the
 * same (seed, step), so a resumed run draws what an uninterrupted one would. */
uint64_t train_dropout_key(uint64_t seed, int step);

/* Runs step `step` (0-based: the schedule's position) on batch b. hooks may be NULL. */
StepResult train_step(Trainer *t, const StepBatch *b, int step, const StepHooks *hooks);

#endif
