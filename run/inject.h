/* inject.h - --inject: faults the tests provoke on purpose, to prove that they are caught.
 *
 *   nan:STEP:PARAM        a NaN in PARAM's first value before step STEP's forward pass (lasting)
 *   nan:STEP:grad.PARAM   a NaN in PARAM's first gradient after step STEP's backward pass
 *   crash-in-save:N       the N-th checkpoint write dies half-way (the process is killed)
 *   crash-after-step:N    the process is killed right after step N (and its saves)
 */
#ifndef RUN_INJECT_H
#define RUN_INJECT_H

#include "../model/gpt.h"

typedef enum InjectKind { INJECT_NONE, INJECT_NAN, INJECT_CRASH_IN_SAVE, INJECT_CRASH_AFTER_STEP } InjectKind;

typedef struct Injection {
    InjectKind kind;
    int n;              /* the step (1-based), or the save's number */
    Tensor *param;      /* INJECT_NAN */
    bool grad;          /* INJECT_NAN into the gradient */
} Injection;

/* The fault `text` asks for in a run of steps [start, stop) that writes `saves` checkpoints;
 * one that could not happen in this run is refused (false, with a message). */
bool inject_parse(Injection *in, const char *text, const Gpt *m, int start, int stop, int saves, char *err,
                  size_t err_len);
/* Before step `step` (0-based)'s forward pass: a NaN into a weight, if asked for then. */
void inject_before_forward(const Injection *in, int step);
/* After its backward pass: a NaN into a gradient, if asked for then. */
void inject_after_backward(const Injection *in, int step);
/* Before checkpoint number `save` (1-based) is written: arms the crash in the middle of it. */
void inject_before_save(const Injection *in, int save);
/* After step `step` (0-based) and its saves: kills the process, if asked for then. */
void inject_after_step(const Injection *in, int step);

#endif
