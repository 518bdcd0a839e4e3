/* rng.h - the project's own random numbers: same seed, same numbers, on every machine.
 *
 * The generator is SplitMix64: a 64-bit counter advanced by a fixed odd constant, then
 * scrambled by a bijective mixing function. Because the mixer alone turns any counter into
 * a good random word, the same function also gives "counter-based" randomness: the value at
 * position i of a key is rng_mix(key + (i + 1) * GAMMA), which any thread can compute on its
 * own. That is how dropout masks stay identical for any number of threads.
 */
#ifndef TENSOR_RNG_H
#define TENSOR_RNG_H

#include <stdint.h>

/* One stream per purpose, each derived from the run's seed, so that changing one use of
 * randomness (say the dropout rate) leaves the others (the data order, the initial weights)
 * exactly as they were. Every stream the programs use is listed here. */
typedef enum RngStream {
    RNG_STREAM_INIT = 1,        /* initial weights (model/gpt.c) */
    RNG_STREAM_VALIDATION = 11, /* the held-out examples of a synthetic task (data/dataset.c) */
    RNG_STREAM_TRAINING = 12,   /* each step's training batch, keyed by the step (data/dataset.c) */
    RNG_STREAM_DROPOUT = 21,    /* each step's dropout masks, keyed by the step (model/train_step.c) */
    RNG_STREAM_PROBE_QK = 31,   /* ./probe: q.k moments (lab/score_stats.c) */
    RNG_STREAM_PROBE_ROWS = 32, /* ./probe: the first seed's experiment */
    RNG_STREAM_PROBE_SOFTMAX = 33, /* ./probe: softmax entropy and Jacobian */
    RNG_STREAM_BENCH = 41,      /* the benchmark's inputs (lab/bench/bench.c) */
    RNG_STREAM_SAMPLING = 51,   /* --decode --temperature: the sampled tokens (run/eval.c) */
} RngStream;

typedef struct Rng {
    uint64_t state;
} Rng;

uint64_t rng_mix(uint64_t x);                        /* the SplitMix64 finaliser */
uint64_t rng_key(uint64_t seed, uint64_t stream);    /* a key for one purpose of one seed */
Rng rng_stream(uint64_t seed, uint64_t stream);      /* a sequential stream from that key */
uint64_t rng_next(Rng *r);                           /* 64 random bits */
uint32_t rng_below(Rng *r, uint32_t n);              /* uniform in [0, n), unbiased; n >= 1 */
double rng_uniform(Rng *r);                          /* uniform in [0, 1), 53 bits */
void rng_distinct_below(Rng *r, int n, int below, int *out); /* n distinct draws of rng_below(below), n <= below */
double rng_normal(Rng *r);                           /* N(0, 1), Box-Muller */
double rng_uniform_at(uint64_t key, uint64_t i);     /* counter-based uniform in [0, 1) */

#endif
