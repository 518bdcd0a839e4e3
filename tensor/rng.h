/* rng.h - the project's own random numbers: same seed, same numbers, on every machine.
 *
 * The generator is SplitMix64: a 64-bit counter advanced by a fixed odd constant, then
 * scrambled by a bijective mixing function. Because the mixer alone turns any counter into
 * a good random word, the same function also gives "counter-based" randomness: the value at
 * position i of a key is rng_mix(key + i * GAMMA), which any thread can compute on its own.
 * That is how dropout masks stay identical for any number of threads.
 */
#ifndef TENSOR_RNG_H
#define TENSOR_RNG_H

#include "tensor.h"

#include <stdint.h>

typedef struct Rng {
    uint64_t state;
} Rng;

uint64_t rng_mix(uint64_t x);                        /* the SplitMix64 finaliser */
uint64_t rng_key(uint64_t seed, uint64_t stream);    /* a key for one purpose of one seed */
Rng rng_stream(uint64_t seed, uint64_t stream);      /* a sequential stream from that key */
uint64_t rng_next(Rng *r);                           /* 64 random bits */
uint32_t rng_below(Rng *r, uint32_t n);              /* uniform in [0, n), unbiased; n >= 1 */
double rng_uniform(Rng *r);                          /* uniform in [0, 1), 53 bits */
double rng_normal(Rng *r);                           /* N(0, 1), Box-Muller */
void rng_fill_normal(Rng *r, real *x, size_t n);     /* n draws of N(0, 1), two per Box-Muller pair */
double rng_uniform_at(uint64_t key, uint64_t i);     /* counter-based uniform in [0, 1) */

#endif
