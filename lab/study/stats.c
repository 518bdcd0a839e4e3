/* stats.c - see stats.h. */
#include "stats.h"

#include "../../tensor/base.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double stats_mean(const double *x, int n)
{
    if (n < 1) return NAN;
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    return s / n;
}

/* Two passes (mean first, then squared deviations): no cancellation when the values are close. */
double stats_sd(const double *x, int n)
{
    if (n < 2) return NAN;
    double m = stats_mean(x, n), ss = 0;
    for (int i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
    return sqrt(ss / (n - 1));
}

/* t_{0.975, df} for df = 1..30 (the 97.5th percentile: 2.5 % in each tail). */
static const double g_t975[30] = {
    12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185, 2.36462425, 2.30600414,
    2.26215716, 2.22813885, 2.20098516, 2.17881283, 2.16036866, 2.14478669, 2.13144955, 2.11990530,
    2.10981558, 2.10092204, 2.09302405, 2.08596345, 2.07961384, 2.07387307, 2.06865761, 2.06389856,
    2.05953855, 2.05552944, 2.05183052, 2.04840714, 2.04522964, 2.04227246};

double stats_t975(int df)
{
    if (df < 1) return NAN;
    if (df <= 30) return g_t975[df - 1];
    return 1.95996398; /* the normal quantile z_{0.975} */
}

StatsCi stats_ci95(const double *x, int n)
{
    StatsCi c = {stats_mean(x, n), NAN, NAN, NAN, n, false};
    if (n < 2) return c;
    c.half = stats_t975(n - 1) * stats_sd(x, n) / sqrt((double)n);
    c.lo = c.mean - c.half;
    c.hi = c.mean + c.half;
    c.defined = true;
    return c;
}

/* A seed and where it stands in its list. */
typedef struct SeedAt {
    long seed;
    int at;
} SeedAt;

static int cmp_seed_at(const void *x, const void *y)
{
    const SeedAt *a = x, *b = y;
    if (a->seed != b->seed) return a->seed < b->seed ? -1 : 1;
    return a->at - b->at; /* a seed listed twice: its first place first */
}

/* The seeds of a list sorted, each with its place (n log n: a study's cells may hold many seeds). */
static SeedAt *sorted_seeds(const long *seeds, int n)
{
    SeedAt *s = mem_alloc(sizeof(SeedAt) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) s[i] = (SeedAt){seeds[i], i};
    qsort(s, (size_t)n, sizeof(SeedAt), cmp_seed_at);
    return s;
}

int stats_paired(const long *seed_a, const double *a, int na, const long *seed_b, const double *b, int nb,
                 double *diff, int max)
{
    SeedAt *sa = sorted_seeds(seed_a, na), *sb = sorted_seeds(seed_b, nb);
    int n = 0;
    /* merge the two sorted lists: each seed of a once (its first value), in ascending order */
    for (int i = 0, j = 0; i < na; i++) {
        if (i > 0 && sa[i].seed == sa[i - 1].seed) continue;
        while (j < nb && sb[j].seed < sa[i].seed) j++;
        if (j < nb && sb[j].seed == sa[i].seed && n < max) diff[n++] = a[sa[i].at] - b[sb[j].at];
    }
    mem_free(sa);
    mem_free(sb);
    return n;
}

StatsVerdict stats_verdict(StatsCi d)
{
    if (!d.defined || !isfinite(d.lo) || !isfinite(d.hi)) return VERDICT_UNDEFINED;
    if (d.lo > 0) return VERDICT_HIGHER;
    if (d.hi < 0) return VERDICT_LOWER;
    return VERDICT_NOT_DISTINCT;
}

double stats_binomial_se(double p, int n)
{
    if (n < 1 || !(p >= 0 && p <= 1)) return NAN;
    return sqrt(p * (1 - p) / n);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

double stats_quantile(double *x, int n, double q)
{
    if (n < 1) return NAN;
    qsort(x, (size_t)n, sizeof(double), cmp_double);
    double pos = q * (n - 1);
    int i = (int)floor(pos);
    if (i >= n - 1) return x[n - 1];
    if (i < 0) return x[0];
    double w = pos - i; /* between x[i] and x[i+1] */
    return x[i] + w * (x[i + 1] - x[i]);
}

int stats_best(const double *key, const double *score, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (isnan(score[i])) continue;
        if (best < 0 || score[i] > score[best] || (score[i] == score[best] && key[i] < key[best])) best = i;
    }
    return best;
}
