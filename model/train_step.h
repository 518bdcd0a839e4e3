/* train_step.h - one bare optimisation step: forward, loss, backward, clipping, update.
 *
 * ./train runs the same sequence with its NaN checks, forensics and logging woven in
 * (train.c); the benchmark and the tests use this plain version. */
#ifndef MODEL_TRAIN_STEP_H
#define MODEL_TRAIN_STEP_H

#include "gpt.h"
#include "optim.h"

typedef struct StepResult {
    real loss;
    double grad_norm;  /* before clipping */
    bool updated;      /* false when the update was refused (a non-finite result) */
} StepResult;

/* tokens, targets: [B, T]; mask: [B, T] (1 = the position counts in the loss) or NULL.
 * Zeroes the gradients first and resets the tape at the end. */
StepResult gpt_train_step(Gpt *m, Tape *tp, Optimizer *opt, const int *tokens, const int *targets,
                          const unsigned char *mask, int B, int T, int step, double clip);

#endif
