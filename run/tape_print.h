/* tape_print.h - ./train --print-tape: the ops one training step recorded, as a table.
 *
 * One row per tape entry, in the order the forward pass recorded them (the backward pass replays
 * them from the last row up): the op, the label of the model part that recorded it (the tape's
 * scope), its input and output shapes, its forward FLOPs (the convention: tape_cost in
 * tensor/tensor.h), and the bytes its backward needs kept alive. Then the totals. The helpers
 * below are shared with the graph writer (tape_dot.c).
 */
#ifndef RUN_TAPE_PRINT_H
#define RUN_TAPE_PRINT_H

#include "../model/gpt.h"

#include <stdio.h>

/* What one step's tape adds up to. */
typedef struct TapeTotals {
    int ops;               /* entries */
    uint64_t flops;        /* forward FLOPs, summed over the entries */
    size_t saved_bytes;    /* what the backward reads: each activation it reads counted once,
                              plus the ops' own arrays */
    int param_tensors;     /* distinct parameters the tape reads */
    size_t param_values;   /* their values */
} TapeTotals;

/* The tensor whose memory t is: t itself, or what a reshape view t shows (tensor.h: view_of). */
const Tensor *tape_source(const Tensor *t);
/* The index in m->params of the parameter t is (or views), or -1. */
int tape_param_of(const Gpt *m, const Tensor *t);
/* The entry whose output t is (or views), or -1: t is then not an activation of this step. */
int tape_producer(const Tape *tp, const Tensor *t);
/* Bytes entry k's backward keeps alive: the step's activations among the tensors it reads
 * (TapeEntry.reads; parameters are not counted, they stay anyway) and its own arrays. */
size_t tape_entry_saved_bytes(const Tape *tp, int k);
TapeTotals tape_totals(const Tape *tp, const Gpt *m);

/* "32x18x64" into buf. */
void tape_shape_text(const Tensor *t, char *buf, size_t len);
/* 1234567 as "1.23M" (k, M, G, T: powers of 1000), into buf. */
void tape_count_text(double n, char *buf, size_t len);
/* Bytes as "1.2 KiB" (powers of 1024), into buf. */
void tape_bytes_text(double n, char *buf, size_t len);

/* The table of the tape of step `step` (0-based) on tokens [B, T], with its header and totals.
 * Returns false when a write to f failed. */
bool tape_print(FILE *f, const Tape *tp, const Gpt *m, int step, int B, int T);

#endif
