/* eval.h - validation loss and exact-match accuracy of greedy decoding. */
#ifndef EVAL_EVAL_H
#define EVAL_EVAL_H

#include "../data/data.h"
#include "../model/gpt.h"

#include <stdio.h>

typedef struct EvalResult {
    double loss;        /* mean cross-entropy over target and EOS positions (teacher forcing) */
    double accuracy;    /* fraction of examples whose greedy decoding is exactly target + EOS */
    int examples;
    int nonfinite;      /* examples whose loss was not finite */
} EvalResult;

typedef struct Evaluator {
    Batch batch;
    int *decode;        /* [B, T] prompts and generated tokens */
    int *length;        /* [B] current length of each row */
    unsigned char *done;
} Evaluator;

void evaluator_init(Evaluator *e, int B, int T);
void evaluator_free(Evaluator *e);
/* Over the first max_examples validation examples. Uses tp in evaluation mode (no grad, no
 * dropout) and resets it. */
EvalResult evaluate(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, int max_examples);
/* Decodes the first n validation examples and prints source, expected and predicted target. */
void print_examples(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, int n, FILE *out);

#endif
