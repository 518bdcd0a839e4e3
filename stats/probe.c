/* probe.c - ./probe: the statistics behind "divide q.k by sqrt(dk)", measured by Monte Carlo
 * with the project's engine and RNG, no training. Prints Markdown tables:
 *   1. mean and variance of q.k for iid N(0,1) q, k (the variance should be dk);
 *   2. the first seed's experiment: dk = 512, 128 keys, score ranges and softmax extremes;
 *   3, 5. the mean softmax entropy of one query against 3 (64) keys, several divisors and dk;
 *   4, 6. the mean Frobenius norm of the softmax Jacobian diag(p) - p p^T, same settings.
 *
 *   ./probe [--samples=N] [--pairs=N] [--seed=S] [--draws=N]
 */
#include "score_stats.h"

#include "../base/rng.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int g_dks[] = {16, 64, 256, 512, 1024};
enum { N_DK = 5 };

typedef struct ProbeOptions {
    long pairs;    /* q.k pairs per dk (part 1) */
    long samples;  /* queries per (dk, n) cell (parts 3, 4) */
    int draws;     /* repetitions of the first seed's experiment (part 2) */
    uint64_t seed;
} ProbeOptions;

static void usage_error(const char *arg, long min, long max)
{
    if (min > max)
        fprintf(stderr, "error: %s: unknown option (expected --pairs=N, --samples=N, --draws=N, --seed=S or --help)\n", arg);
    else
        fprintf(stderr, "error: %s: expected a whole number from %ld to %ld\n", arg, min, max);
    exit(2);
}

/* A count in [min, max]: a variance needs at least 2 draws. */
static long parse_count(const char *arg, const char *value, long min, long max)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (!(*value >= '0' && *value <= '9') || *end || v < min || v > max) usage_error(arg, min, max);
    return v;
}

/* Progress on stderr (the tables on stdout stay the same for any thread count): a part can
 * take minutes with large counts. */
static void progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "probe: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static ProbeOptions parse_args(int argc, char **argv)
{
    ProbeOptions o = {50000, 2000, 100, 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            printf("usage: %s [--pairs=50000] [--samples=2000] [--draws=100] [--seed=1]\n", argv[0]);
            exit(0);
        } else if (!strncmp(a, "--pairs=", 8)) o.pairs = parse_count(a, a + 8, 2, 100000000);
        else if (!strncmp(a, "--samples=", 10)) o.samples = parse_count(a, a + 10, 2, 1000000);
        else if (!strncmp(a, "--draws=", 8)) o.draws = (int)parse_count(a, a + 8, 1, 100000);
        else if (!strncmp(a, "--seed=", 7)) o.seed = (uint64_t)parse_count(a, a + 7, 0, 1000000000);
        else usage_error(a, 1, 0);
    }
    return o;
}

static void part_moments(const ProbeOptions *o)
{
    printf("## 1. q.k for q, k with iid N(0, 1) entries\n\n");
    printf("%ld independent pairs per dk, seed %llu. Theory: mean 0, Var(q.k) = dk, so q.k / sqrt(dk) has std 1.\n"
           "The standard error of var/dk is sqrt((2 + 6/dk) / pairs) (q.k has kurtosis 3 + 6/dk).\n\n",
           o->pairs, (unsigned long long)o->seed);
    printf("| dk | mean of q.k | Var(q.k) | Var / dk | its standard error | std of q.k / sqrt(dk) |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    QkMoments m[N_DK];
    int done = 0;
    progress("part 1: %d values of dk, %ld pairs each", N_DK, o->pairs);
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < N_DK; i++) {
        m[i] = qk_moments(g_dks[i], o->pairs, rng_key(o->seed, (uint64_t)g_dks[i]));
#pragma omp critical
        progress("part 1: dk = %d done (%d of %d)", g_dks[i], ++done, N_DK);
    }
    for (int i = 0; i < N_DK; i++) {
        int dk = g_dks[i];
        printf("| %d | %.3f | %.1f | %.4f | %.4f | %.4f |\n", dk, m[i].mean, m[i].var, m[i].var / dk,
               sqrt((2 + 6.0 / dk) / o->pairs), m[i].scaled_std);
    }
    printf("\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void part_row_experiment(const ProbeOptions *o)
{
    enum { DK = 512, KEYS = 128 };
    printf("## 2. The first seed's experiment: dk = %d, %d queries and keys\n\n", DK, KEYS);
    printf("S = Q K^T with Q, K of iid N(0, 1) entries; softmax of S's first row. %d independent draws\n"
           "(seed %llu); the seed reports one draw of its own (numpy seed 42).\n\n", o->draws, (unsigned long long)o->seed);
    double *v[8];
    for (int k = 0; k < 8; k++) {
        v[k] = calloc((size_t)o->draws, sizeof(double));
        if (!v[k]) {
            fprintf(stderr, "error: out of memory for %d draws\n", o->draws);
            exit(2);
        }
    }
    progress("part 2: %d draws", o->draws);
#pragma omp parallel for schedule(dynamic)
    for (int d = 0; d < o->draws; d++) {
        RowExperiment e = row_experiment(DK, KEYS, rng_key(o->seed, 1000 + (uint64_t)d));
        double x[8] = {e.raw_min, e.raw_max, e.scaled_min, e.scaled_max, e.raw_pmax, e.raw_pmin, e.scaled_pmax, e.scaled_pmin};
        for (int k = 0; k < 8; k++) v[k][d] = x[k];
    }
    const char *names[8] = {"min of raw scores", "max of raw scores", "min of scaled scores", "max of scaled scores",
                            "raw: largest weight of row 0", "raw: smallest weight of row 0",
                            "scaled: largest weight of row 0", "scaled: smallest weight of row 0"};
    const char *claims[8] = {"-51.3", "49.8", "-2.3", "2.2", "0.999999", "0.0000000000", "0.1564", "0.0042"};
    printf("| quantity | the seed's draw | our median | our 5%% .. 95%% range |\n|---|---:|---:|---:|\n");
    for (int k = 0; k < 8; k++) {
        qsort(v[k], (size_t)o->draws, sizeof(double), cmp_double);
        int lo = (int)(0.05 * (o->draws - 1)), hi = (int)(0.95 * (o->draws - 1));
        printf("| %s | %s | %.4g | %.4g .. %.4g |\n", names[k], claims[k], v[k][o->draws / 2], v[k][lo], v[k][hi]);
        free(v[k]);
    }
    printf("\n");
}

/* One set of draws, two tables: entropies (section `first`) and Jacobian norms (first + 1). */
static void part_softmax(const ProbeOptions *o, int n_keys, int first)
{
    enum { N_DIV = 8 };
    const char *headers[N_DIV] = {"1", "sqrt(dk)", "dk", "4", "8", "16", "32", "10"};
    SoftmaxStats st[N_DK][N_DIV];
    int done = 0;
    progress("parts %d-%d: %d values of dk, %ld queries against %d keys each", first, first + 1, N_DK, o->samples, n_keys);
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < N_DK; i++) {
        double dk = g_dks[i];
        double div[N_DIV] = {1, sqrt(dk), dk, 4, 8, 16, 32, 10};
        softmax_stats(g_dks[i], n_keys, div, N_DIV, o->samples, rng_key(o->seed, 2000 + (uint64_t)(g_dks[i] * 100 + n_keys)),
                      st[i]);
#pragma omp critical
        progress("parts %d-%d: dk = %d done (%d of %d)", first, first + 1, g_dks[i], ++done, N_DK);
    }
    for (int table = 0; table < 2; table++) {
        double worst_se = 0;
        if (table == 0)
            printf("## %d. Softmax entropy, one query against %d keys (nats; uniform = log %d = %.4f)\n\n", first, n_keys,
                   n_keys, log((double)n_keys));
        else
            printf("## %d. Frobenius norm of the softmax Jacobian diag(p) - p p^T, %d keys (uniform: sqrt(1/n - 1/n^2) = %.4f)\n\n",
                   first + 1, n_keys, sqrt(1.0 / n_keys - 1.0 / ((double)n_keys * n_keys)));
        printf("Scores q.k / divisor, q and keys iid N(0, 1); mean over %ld queries per cell, seed %llu.\n"
               "Columns 4, 8, 16, 32 are sqrt(16), sqrt(64), sqrt(256), sqrt(1024): the third seed's fixed divisors.\n\n",
               o->samples, (unsigned long long)o->seed);
        printf("| dk |");
        for (int d = 0; d < N_DIV; d++) printf(" / %s |", headers[d]);
        printf("\n|---:|");
        for (int d = 0; d < N_DIV; d++) printf("---:|");
        printf("\n");
        for (int i = 0; i < N_DK; i++) {
            printf("| %d |", g_dks[i]);
            for (int d = 0; d < N_DIV; d++) {
                const SoftmaxStats *s = &st[i][d];
                printf(" %.3f |", table == 0 ? s->entropy : s->jacobian);
                worst_se = fmax(worst_se, table == 0 ? s->entropy_se : s->jacobian_se);
            }
            printf("\n");
        }
        printf("\nLargest standard error of a cell: %.4f.\n\n", worst_se);
    }
}

int main(int argc, char **argv)
{
    ProbeOptions o = parse_args(argc, argv);
    printf("# ./probe: statistics of attention scores (no training)\n\n");
    part_moments(&o);
    part_row_experiment(&o);
    part_softmax(&o, 3, 3);
    part_softmax(&o, 64, 5);
    return 0;
}
