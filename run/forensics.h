/* forensics.h - NaN forensics: when a loss, a gradient or an update goes non-finite, find the
 * first tensor, layer and op that did it, then stop (exit 3) or count it and skip the update. */
#ifndef RUN_FORENSICS_H
#define RUN_FORENSICS_H

#include "../model/gpt.h"

typedef enum NanMode {
    NAN_STOP,     /* exit 3 with the report */
    NAN_CONTINUE, /* count it, skip the step's update, go on */
} NanMode;

/* The name of a mode as --nan spells it and a line of help; NULL past the last. */
const char *nan_mode_name(int mode, const char **help);

typedef struct Forensics {
    NanMode mode;
    bool quiet;          /* no warnings for counted ones */
    long *nan_count;     /* the run's count (checkpoints keep it) */
} Forensics;

/* After the forward pass: true when the loss is finite. Otherwise names the first output on
 * the tape (in forward order) holding a NaN or an Inf and the first parameter holding one. */
bool forensics_check_loss(const Forensics *f, int step, const Tape *tp, const Gpt *m, const Tensor *loss);
/* After the backward pass: true when every gradient is finite. Otherwise runs the backward
 * pass again op by op, from zeroed gradients, to name the op whose backward made the first
 * non-finite gradient; the gradients are then the replay's. */
bool forensics_check_gradients(const Forensics *f, int step, Tape *tp, Gpt *m, Tensor *loss);
/* The optimizer refused an update that would have made parameter `bad` non-finite. */
void forensics_update_refused(const Forensics *f, int step, const Gpt *m, int bad, double grad_norm, double lr);

#endif
