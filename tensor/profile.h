/* profile.h - where a training step's time goes, by kind of work (the map of `make bench`).
 *
 * A clock with one mark. Each charge adds the time since the mark to one kind of work and moves
 * the mark to now, so the charges of a step add up to the step's whole time, with nothing
 * counted twice and nothing left out. The tape charges for the ops: every op computes its output
 * first and records it (tape_push) last (ops.h, rule 1), so the time since the previous charge
 * is that op's forward pass; tape_backward charges each entry's backward after it runs. The
 * training step charges for its own passes (clearing the gradients, their norm, the update).
 *
 * Off unless a caller hangs a Profile on the tape (tp->profile, NULL by default): every charge
 * is then one test of a NULL pointer, and the numbers computed are the same either way.
 */
#ifndef TENSOR_PROFILE_H
#define TENSOR_PROFILE_H

#include <stdbool.h>

/* The kinds of work; profile_kind_label names each, profile_kind_of_op maps an op to its kind. */
typedef enum ProfileKind {
    PROFILE_PRODUCT,        /* products with a weight matrix: linear (x W + b), matmul */
    PROFILE_GROUP_PRODUCT,  /* products over groups of columns: attention's per-head products */
    PROFILE_SOFTMAX,
    PROFILE_LAYERNORM,
    PROFILE_GELU,
    PROFILE_DROPOUT,
    PROFILE_CROSS_ENTROPY,
    PROFILE_EMBEDDING,
    PROFILE_ADD,            /* residual adds: their backward passes the gradient on (accumulation) */
    PROFILE_COPY,           /* permutes */
    PROFILE_OTHER_OP,       /* every other op (scale, exp, tanh, rounding, ...) */
    PROFILE_GRAD_CLEAR,     /* zeroing the parameters' gradients before the step */
    PROFILE_GRAD_NORM,      /* the global gradient norm and clipping (and ./train's hooks around
                               them, which the bench does not run) */
    PROFILE_OPTIMIZER,      /* the update (AdamW's moments and step) */
    PROFILE_REST,           /* the rest: resetting the tape, work between the charges above */
    PROFILE_KINDS
} ProfileKind;

/* forward or backward: the two passes of an op (the step's own passes count as forward) */
enum { PROFILE_FORWARD, PROFILE_BACKWARD, PROFILE_PASSES };

typedef struct Profile {
    double mark;                                   /* the clock when last charged (seconds) */
    double seconds[PROFILE_KINDS][PROFILE_PASSES]; /* time charged to each kind and pass */
    long calls[PROFILE_KINDS][PROFILE_PASSES];     /* how many charges each got */
} Profile;

const char *profile_kind_label(ProfileKind kind);
/* The kind of an op from its tape name (TapeEntry.op); PROFILE_OTHER_OP for a name not listed. */
ProfileKind profile_kind_of_op(const char *op);

/* Everything to zero and the mark to now. */
void profile_clear(Profile *p);
/* The mark to now, charging nothing (what ran since is not the step's). p may be NULL. */
void profile_restart(Profile *p);
/* The time since the mark to (kind, pass); the mark to now. p may be NULL: nothing happens. */
void profile_charge(Profile *p, ProfileKind kind, int pass);

#endif
