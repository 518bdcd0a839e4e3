/* op_softmax.h - what the two softmax ops share, inside tensor/ (callers use ops.h).
 *
 * The textbook softmax (op_softmax.c) and its emulation in a reduced precision
 * (op_softmax_emulated.c) differ in their forward pass only: both record their output with
 * softmax_record, which hangs the one backward pass on it. For the emulation that backward
 * treats the roundings as the identity (the straight-through gradient, as op_round) and the
 * naive form as what it is mathematically, the same function as the stable one.
 */
#ifndef TENSOR_OP_SOFTMAX_H
#define TENSOR_OP_SOFTMAX_H

#include "ops.h"

/* Under a mask, every row of x sees at least one column (x is a matrix with R <= N). */
static inline bool softmax_mask_fits(const Tensor *x, Mask mask)
{
    return mask == MASK_NONE || (x->ndim >= 2 && x->shape[x->ndim - 2] <= tensor_cols(x));
}

/* Records out = softmax(s x) under `mask` on the tape with the softmax's backward pass,
 * dx_j = s p_j (g_j - sum_i g_i p_i), its cost and its saved state. name: the tape's name of
 * the op, or NULL for "softmax" ("scaled softmax" when s != 1). Records nothing when the tape
 * does not (tape_push). */
void softmax_record(Tape *tp, Tensor *out, Tensor *x, real s, Mask mask, const char *name);

#endif
