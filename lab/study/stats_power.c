/* stats_power.c - see stats_power.h. */
#include "stats_power.h"

#include "../../tensor/base.h"
#include "../../tensor/rng.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define Z80 0.8416212335729143 /* z_{0.80} */
#define TWO_PI 6.283185307179586
#define SQRT2 1.4142135623730951

/* The smallest x in (0, top] with power(x) >= STATS_POWER: the first point of a grid of `step`
 * that reaches it, then bisection between it and the point before, to `tol`. NAN when no point
 * of the grid reaches it. */
typedef double (*PowerAt)(double x, const void *ctx);
static double first_reaching(PowerAt power, const void *ctx, double step, double top, double tol)
{
    double lo = 0, hi = NAN;
    for (int i = 1; i * step <= top * (1 + 1e-12); i++) {
        if (power(i * step, ctx) >= STATS_POWER) {
            hi = i * step;
            break;
        }
        lo = i * step;
    }
    if (!isnan(hi))
        while (hi - lo > tol) {
            double mid = (lo + hi) / 2;
            if (power(mid, ctx) >= STATS_POWER) hi = mid;
            else lo = mid;
        }
    return hi;
}

/* ------------------------------------------------------------------ Fisher's exact test */

/* Binom(k; n, p) = C(n, k) p^k (1 - p)^(n - k), exact at p = 0 and 1. */
static double binom_pmf(int k, int n, double p)
{
    if (p <= 0) return k == 0 ? 1 : 0;
    if (p >= 1) return k == n ? 1 : 0;
    return exp(lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) + k * log(p) + (n - k) * log1p(-p));
}

/* The rejection region: rej[ka (nb + 1) + kb] when Fisher's p of ka/na against kb/nb is <= alpha. */
static bool *fisher_region(int na, int nb, double alpha)
{
    bool *rej = mem_alloc(sizeof(bool) * (size_t)(na + 1) * (size_t)(nb + 1));
    for (int ka = 0; ka <= na; ka++)
        for (int kb = 0; kb <= nb; kb++) rej[ka * (nb + 1) + kb] = stats_fisher(ka, na, kb, nb) <= alpha;
    return rej;
}

/* power = sum over the region of P(ka) P(kb) */
static double region_power(const bool *rej, double pa, int na, double pb, int nb)
{
    double power = 0;
    for (int ka = 0; ka <= na; ka++) {
        double pka = binom_pmf(ka, na, pa);
        for (int kb = 0; kb <= nb; kb++)
            if (rej[ka * (nb + 1) + kb]) power += pka * binom_pmf(kb, nb, pb);
    }
    return power;
}

double stats_fisher_power(double pa, int na, double pb, int nb, double alpha)
{
    if (na < 1 || nb < 1 || !(pa >= 0 && pa <= 1) || !(pb >= 0 && pb <= 1)) return NAN;
    bool *rej = fisher_region(na, nb, alpha);
    double power = region_power(rej, pa, na, pb, nb);
    mem_free(rej);
    return power;
}

/* Fisher's power at pa = pb + dir delta, for first_reaching. */
typedef struct FisherShift {
    const bool *rej;
    double pb;
    int dir, na, nb;
} FisherShift;
static double fisher_power_at(double delta, const void *ctx)
{
    const FisherShift *f = ctx;
    return region_power(f->rej, f->pb + f->dir * delta, f->na, f->pb, f->nb);
}

double stats_mdd_fisher(double pb, int na, int nb, double alpha, int dir)
{
    if (na < 1 || nb < 1 || !(pb >= 0 && pb <= 1) || (dir != 1 && dir != -1)) return NAN;
    double room = dir > 0 ? 1 - pb : pb;
    if (room <= 0) return NAN;
    bool *rej = fisher_region(na, nb, alpha);
    /* a grid of 1/1000 of the room: a bisection over [0, room] alone might miss the smallest
     * delta (a discrete test's power need not grow steadily with delta) */
    FisherShift ctx = {rej, pb, dir, na, nb};
    double delta = first_reaching(fisher_power_at, &ctx, room / 1000, room, 1e-9);
    mem_free(rej);
    return delta;
}

/* ------------------------------------------------------------------ the sign-flip test */

/* How many sets of the values v[from..] (sorted ascending), each added to `mass`, keep it <= w:
 * counted onto `count`, stopping once it exceeds `limit`. Sorted, the first value that
 * overflows ends the loop: every later one is at least as large. */
static long light_sets(const double *v, int n, int from, double mass, double w, long count, long limit)
{
    for (int j = from; j < n && count <= limit; j++) {
        double m = mass + v[j];
        if (m > w) break;
        count = light_sets(v, n, j + 1, m, w, count + 1, limit);
    }
    return count;
}

bool stats_sign_flip_rejects(const double *d, int n, double alpha)
{
    if (n < 1 || n > STATS_EXACT_FLIPS_MAX) return false;
    double v[STATS_EXACT_FLIPS_MAX], obs = 0, scale = 0;
    for (int i = 0; i < n; i++) {
        obs += d[i];
        scale += fabs(d[i]);
    }
    double reach = fabs(obs) - 1e-9 * scale; /* the tolerance of stats_sign_flip */
    if (reach <= 0) return alpha >= 1;        /* every sign vector reaches: p = 1 */
    /* p = 2 c / 2^n <= alpha  <=>  c <= alpha 2^(n-1) (exact: a power of two) */
    long limit = (long)floor(alpha * (double)(1L << (n - 1)));
    if (limit < 1) return false; /* c >= 1: no flip at all keeps the observed sum */
    for (int i = 0; i < n; i++) { /* |d| sorted ascending (insertion: n <= 20) */
        double x = fabs(d[i]);
        int j = i;
        for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
    /* sum_F |d| <= (sum |d| - reach) / 2: the sets F whose flip keeps |sum| >= reach (on one
     * side; their complements give the other) */
    long c = light_sets(v, n, 0, 0, (scale - reach) / 2, 1, limit);
    return c <= limit;
}

/* Standard normal numbers: Box-Muller on SplitMix64 (tensor/rng.h), from a fixed seed. */
static double uniform_open(Rng *r) { return ((double)(rng_next(r) >> 11) + 1) * 0x1p-53; } /* (0, 1] */

/* STATS_POWER_DRAWS samples of n standard normal numbers (the same for every call with this n). */
static double *normal_draws(int n)
{
    double *z = mem_alloc(sizeof(double) * (size_t)STATS_POWER_DRAWS * (size_t)n);
    Rng state = {0x9A11EDF11Bull + (uint64_t)n};
    for (long i = 0; i < (long)STATS_POWER_DRAWS * n; i += 2) {
        double r = sqrt(-2 * log(uniform_open(&state))), t = TWO_PI * uniform_open(&state);
        z[i] = r * cos(t);
        if (i + 1 < (long)STATS_POWER_DRAWS * n) z[i + 1] = r * sin(t);
    }
    return z;
}

static double draws_power(const double *z, double shift, int n, double alpha)
{
    double d[STATS_EXACT_FLIPS_MAX];
    long hits = 0;
    for (long r = 0; r < STATS_POWER_DRAWS; r++) {
        for (int i = 0; i < n; i++) d[i] = shift + z[r * n + i];
        hits += stats_sign_flip_rejects(d, n, alpha);
    }
    return (double)hits / STATS_POWER_DRAWS;
}

/* The sign-flip test's simulated power at a shift, for first_reaching. */
typedef struct FlipShift {
    double *z;
    int n;
    double alpha;
} FlipShift;
static double flip_power_at(double shift, const void *ctx)
{
    const FlipShift *f = ctx;
    return draws_power(f->z, shift, f->n, f->alpha);
}

double stats_sign_flip_power(double shift, int n, double alpha)
{
    if (n < 1 || n > STATS_EXACT_FLIPS_MAX) return NAN;
    double *z = normal_draws(n);
    double power = draws_power(z, shift, n, alpha);
    mem_free(z);
    return power;
}

/* z_q of the standard normal, by bisection on Phi(x) = erfc(-x / sqrt 2) / 2 */
static double normal_quantile(double q)
{
    double lo = -40, hi = 40;
    for (int it = 0; it < 200; it++) {
        double mid = (lo + hi) / 2;
        if (0.5 * erfc(-mid / SQRT2) < q) lo = mid;
        else hi = mid;
    }
    return (lo + hi) / 2;
}

/* The MDD in sd units depends on n and alpha only through the test's rejection count
 * limit = floor(alpha 2^(n-1)), so each (n, limit) is simulated once per process. */
enum { SHIFT_CACHE = 64 };
typedef struct CachedShift {
    int n;
    long limit;
    double shift;
} CachedShift;
static CachedShift g_shift_cache[SHIFT_CACHE];
static int g_shift_cached;

static double mdd_shift(int n, double alpha)
{
    long limit = (long)floor(alpha * (double)(1L << (n - 1)));
    if (limit < 1) return NAN;
    for (int i = 0; i < g_shift_cached; i++)
        if (g_shift_cache[i].n == n && g_shift_cache[i].limit == limit) return g_shift_cache[i].shift;
    /* a grid of 1/4 sd up to 16 sd (far past any limit >= 1: then all n differences are
     * positive, which rejects, with probability Phi(16)^n), then bisection to 1e-4 */
    FlipShift ctx = {normal_draws(n), n, alpha};
    double hi = first_reaching(flip_power_at, &ctx, 0.25, 16, 1e-4);
    mem_free(ctx.z);
    if (g_shift_cached < SHIFT_CACHE) g_shift_cache[g_shift_cached++] = (CachedShift){n, limit, hi};
    return hi;
}

double stats_mdd_sign_flip(double sd, int n, double alpha)
{
    if (n < 2 || !(sd >= 0) || !(alpha > 0 && alpha < 1)) return NAN;
    if (n > STATS_EXACT_FLIPS_MAX) return (normal_quantile(1 - alpha / 2) + Z80) * sd / sqrt((double)n);
    double shift = mdd_shift(n, alpha);
    return isnan(shift) ? NAN : shift * sd;
}

/* ------------------------------------------------------------------ the log-rank test */

double stats_logrank_power(double hr, double p_ref, int na, int nb, double alpha)
{
    if (na < 1 || nb < 1 || !(hr > 0) || !(p_ref > 0 && p_ref < 1) || !(alpha > 0 && alpha < 1)) return NAN;
    /* times on [0, 1] (1 = the budget): exponential, b at rate lambda = -ln(1 - p_ref) (so that a
     * share p_ref learns within the budget), a at hr lambda; censored at 1 */
    double lambda = -log1p(-p_ref);
    double *ta = mem_alloc(sizeof(double) * (size_t)na), *tb = mem_alloc(sizeof(double) * (size_t)nb);
    bool *ea = mem_alloc(sizeof(bool) * (size_t)na), *eb = mem_alloc(sizeof(bool) * (size_t)nb);
    Rng state = {0x106AA7ull + (uint64_t)na * 1000003u + (uint64_t)nb};
    long hits = 0;
    for (long r = 0; r < STATS_POWER_DRAWS; r++) {
        for (int i = 0; i < na; i++) {
            double t = -log(uniform_open(&state)) / (hr * lambda);
            ea[i] = t <= 1;
            ta[i] = ea[i] ? t : 1;
        }
        for (int i = 0; i < nb; i++) {
            double t = -log(uniform_open(&state)) / lambda;
            eb[i] = t <= 1;
            tb[i] = eb[i] ? t : 1;
        }
        double p = stats_logrank(ta, ea, na, tb, eb, nb);
        hits += p <= alpha; /* NaN (no event at all): no rejection */
    }
    mem_free(ta);
    mem_free(tb);
    mem_free(ea);
    mem_free(eb);
    return (double)hits / STATS_POWER_DRAWS;
}

/* power at 1 - x: x, the distance of the rate ratio from 1, for first_reaching */
typedef struct LogrankCase {
    double p_ref, alpha;
    int na, nb;
} LogrankCase;
static double logrank_power_at(double x, const void *ctx)
{
    const LogrankCase *c = ctx;
    return stats_logrank_power(1 - x, c->p_ref, c->na, c->nb, c->alpha);
}

double stats_mdd_logrank(double p_ref, int na, int nb, double alpha)
{
    if (na < 1 || nb < 1 || !(p_ref > 0 && p_ref < 1) || !(alpha > 0 && alpha < 1)) return NAN;
    LogrankCase c = {p_ref, alpha, na, nb};
    double x = first_reaching(logrank_power_at, &c, 0.02, 0.98, 0.002);
    return isnan(x) ? NAN : 1 - x;
}

int stats_logrank_seeds(double hr, double p_ref, double alpha, int n_min, int n_max)
{
    for (int n = n_min < 1 ? 1 : n_min; n <= n_max; n++)
        if (stats_logrank_power(hr, p_ref, n, n, alpha) >= STATS_POWER) return n;
    return -1;
}
