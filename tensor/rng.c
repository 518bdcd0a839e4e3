/* rng.c - SplitMix64 (Steele, Lea & Flood, 2014): a Weyl sequence through a mixing function. */
#include "rng.h"

#include <math.h>

#define GAMMA 0x9e3779b97f4a7c15ull /* 2^64 / golden ratio, odd */

uint64_t rng_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t rng_key(uint64_t seed, uint64_t stream)
{
    return rng_mix(rng_mix(seed + GAMMA) ^ (stream * 0xd1b54a32d192ed03ull + 1));
}

Rng rng_stream(uint64_t seed, uint64_t stream)
{
    Rng r = {rng_key(seed, stream)};
    return r;
}

uint64_t rng_next(Rng *r)
{
    r->state += GAMMA;
    return rng_mix(r->state);
}

uint32_t rng_below(Rng *r, uint32_t n)
{
    /* Rejection: drop the top (2^32 mod n) values so every residue is equally likely. */
    uint32_t limit = (uint32_t)(-n) % n; /* = 2^32 mod n */
    for (;;) {
        uint32_t x = (uint32_t)(rng_next(r) >> 32);
        if (x >= limit) return x % n;
    }
}

/* a draw is redrawn while taken */
void rng_distinct_below(Rng *r, int n, int below, int *out)
{
    for (int i = 0; i < n; i++) {
        int x, fresh;
        do {
            x = (int)rng_below(r, (uint32_t)below);
            fresh = 1;
            for (int j = 0; j < i; j++) fresh &= out[j] != x;
        } while (!fresh);
        out[i] = x;
    }
}

double rng_uniform(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

double rng_normal(Rng *r)
{
    /* Box-Muller: sqrt(-2 ln u1) cos(2 pi u2) is N(0,1) for independent uniforms; u1 in (0, 1]. */
    double u1 = 1.0 - rng_uniform(r);
    double u2 = rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double rng_uniform_at(uint64_t key, uint64_t i)
{
    return (double)(rng_mix(key + (i + 1) * GAMMA) >> 11) * 0x1.0p-53;
}
