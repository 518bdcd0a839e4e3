/* eval.h - held-out loss and exact-match accuracy of greedy decoding.
 *
 * The accuracy needs no decoding loop: greedy decoding reproduces target + EOS exactly when,
 * teacher-forced, the model's most likely next token is the right one at every target position.
 * (Both see the same prefix up to the first mistake, and the causal mask makes a position's
 * logits independent of what follows it, to the bit.) So one forward pass per batch gives the
 * loss and the accuracy together; tests/test_eval.c checks it against real greedy decoding. */
#ifndef RUN_EVAL_H
#define RUN_EVAL_H

#include "../tensor/rng.h"
#include "../data/data.h"
#include "../model/gpt.h"

#include <stdio.h>

typedef struct EvalResult {
    double loss;        /* mean cross-entropy over target and EOS positions (teacher forcing) */
    double accuracy;    /* fraction of examples whose greedy decoding is exactly target + EOS */
    int correct;        /* how many */
    int examples;
    int nonfinite;      /* examples whose loss was not finite */
    FormatCounts rounding; /* --precision: what rounding did in the forward passes, all layers */
} EvalResult;

/* Sampling instead of greedy decoding (--decode --temperature): each next token is drawn from
 * softmax(z / temperature) over the top_k most likely tokens (ties: the lower id first; 0: all),
 * by one stream of random numbers, drawn in order. The buffers are allocated once, for V tokens. */
typedef struct Sampler {
    double temperature;    /* > 0 */
    int top_k;             /* 0 or >= V - first: every token it may draw */
    int V;
    int first;             /* the lowest id it may draw (TOK_EOS for --decode: no answer holds
                              <pad>, <bos> or <sep>, which a high temperature would draw) */
    Rng rng;
    int *candidates;       /* [V] token ids, most likely first */
    double *weights;       /* [V] exp((z - max) / temperature) of each candidate */
} Sampler;

void sampler_init(Sampler *s, int V, int first, double temperature, int top_k, uint64_t seed);
void sampler_free(Sampler *s);
/* A token drawn from the logits z[0 .. V): p_i ∝ exp(z_i / T) over the top K of the ids from
 * `first` on. No allocation. */
int sampler_draw(Sampler *s, const real *z);

typedef struct Evaluator {
    Batch batch;
    int *decode;        /* [B, T + 1] prompts and generated tokens */
    int *length;        /* [B] current length of each row */
    unsigned char *done;
    unsigned char *right;  /* [B] each row of the batch is right */
    /* Greedy decoding with want_attention also finds, for each generated token (at its index
     * in the row), the source position its query weighs most in the last layer, by the mean
     * over heads of the attention weights: argmax_j (1/H) sum_h P[h, query, j] over the source's
     * positions j, and that mean weight. */
    bool want_attention;
    int *attended;          /* [B, T + 1]: 0-based position in the source */
    real *attended_weight;  /* [B, T + 1] */
    /* NULL (as evaluator_init leaves it, so for training's examples and evaluations): greedy
     * decoding; else decode_sources draws each next token with it (--decode --temperature). */
    Sampler *sampler;
    /* NULL, or asked between batches: nonzero stops an evaluation early (a signal asking the run
     * to stop: a test set of a million examples takes a minute); its result then counts the
     * examples evaluated so far. */
    int (*stop_requested)(void);
} Evaluator;

/* What greedy decoding generated for one row, after decode_sources (or print_examples). */
typedef struct Decoding {
    const int *tokens;           /* the generated tokens, EOS included when the model ended with it */
    int n;
    bool ended;                  /* the last token is EOS (false: the context or the longest
                                    target of the data ran out first) */
    const int *attended;         /* with want_attention, per token: see Evaluator */
    const real *attended_weight;
} Decoding;

void evaluator_init(Evaluator *e, int B, int T);
void evaluator_free(Evaluator *e);
/* Over the first max_examples examples of a held-out split. Uses tp in evaluation mode (no
 * grad, no dropout) and resets it. If `correct` is not NULL, correct[i] says whether example i
 * was right. */
EvalResult evaluate(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, Split split, int max_examples,
                    unsigned char *correct);
/* The same accuracy by real greedy decoding, token by token (slower: for the tests). */
EvalResult evaluate_by_decoding(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, Split split, int max_examples,
                                unsigned char *correct);
/* Decodes the first n validation examples and prints source, expected and predicted target. */
void print_examples(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, int n, FILE *out);
/* Greedy decoding, the same as print_examples and evaluate_by_decoding do, of any n sources
 * (1 <= n <= B; word tokens, each source at most T - 2 long so that BOS and SEP fit around it),
 * in evaluation mode; decoded_row(e, r) then gives what source r generated. d bounds the
 * answer's length as for its own examples (its longest target + EOS). With e->sampler, each
 * token is sampled instead (rows in order, for the same draws on any number of threads). */
void decode_sources(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, const Example *sources, int n);
/* Row r of the last greedy decoding (valid until the next). */
Decoding decoded_row(const Evaluator *e, int r);

#endif
