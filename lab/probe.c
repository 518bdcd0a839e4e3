/* probe.c - ./probe: the statistics behind "divide q.k by sqrt(dk)", measured by Monte Carlo
 * with the project's engine and RNG, no training. Prints Markdown tables:
 *   1. mean and variance of q.k for iid N(0,1) q, k (the variance should be dk);
 *   2. S1's experiment: dk = 512, 128 keys, score ranges and softmax extremes;
 *   3, 5. the mean softmax entropy of one query against 3 (64) keys, several divisors and dk;
 *   4, 6. the mean Frobenius norm of the softmax Jacobian diag(p) - p p^T, same settings;
 *   7. per query row, the gradient a random upstream gradient sends to the scores, |J g|;
 *   8. S1's "10 tokens at dk = 512: scores within +-60";
 *   9. the sources' small softmax examples, their numbers next to ours;
 *  10. how often exp(s q.k) exceeds the fp16 maximum when the row max is not subtracted.
 * Sections 5, 6, 7 and 10 share one set of draws (64 keys per query).
 *
 * Random numbers: each cell has its own key rng_key(seed, X), used with one of the probe's
 * streams (tensor/rng.h): X = dk (part 1, stream QK), 1000 + draw (part 2, ROWS),
 * 2000 + 100 dk + keys (parts 3-6, SOFTMAX), 200000 + dk (part 7's upstream gradients,
 * SOFTMAX), 300000 + dk (part 8, ROWS). No two cells share a stream, so the tables are
 * independent and do not depend on the thread count.
 *
 *   ./probe [--samples=N] [--pairs=N] [--seed=S] [--draws=N]
 */
#include "score_stats.h"

#include "../tensor/base.h" /* nearest_flag */
#include "../tensor/rng.h"
#include "../run/threads.h" /* threads_from_env */
#include "../model/scale_table.h" /* the scales: names, s(dk), labels */
#include "../tensor/format.h" /* FP16_MAX */
#include "../tensor/fpmode.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int g_dks[] = {16, 64, 256, 512, 1024};

/* The three score multipliers of the training grid's main rows (1, 1/sqrt(dk), 1/dk), by their
 * names in the scale table (model/scale_table.h). */
enum { N_SCALE = 3 };
static const char *const g_scales[N_SCALE] = {"1", "sqrt", "dk"};
/* s as ./train computes it (model/attn_scale.c) */
static double scale_of(const char *name, int dk)
{
    double c;
    const ScaleRow *r = scale_row_find(name, &c);
    return scale_row_s(r, c, dk);
}
static const char *scale_text(const char *name)
{
    static char bufs[4][32];
    static int next;
    return scale_write_label(name, SCALE_ASCII, bufs[next++ % 4], sizeof bufs[0]);
}
enum { N_DK = 5 };

typedef struct ProbeOptions {
    long pairs;    /* q.k pairs per dk (part 1) */
    long samples;  /* queries per (dk, n) cell (parts 3-7, 10); sequences in part 8 */
    int draws;     /* repetitions of S1's experiment (part 2) */
    uint64_t seed;
} ProbeOptions;

static void usage_error(const char *arg, long min, long max)
{
    static const char *const known[] = {"pairs", "samples", "draws", "seed", "help", NULL};
    const char *near = min > max ? nearest_flag(arg, known) : NULL;
    if (near)
        fprintf(stderr, "error: %s: unknown option; did you mean --%s? (see --help)\n", arg, near);
    else if (min > max)
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

/* The progress of a loop over g_dks whose threads finish in any order: each finished dk is
 * marked, and the lines come out in the order of g_dks (a dk is reported once every one before it
 * is done), so that "dk = 64 done" never comes before 16. Call inside `omp critical`. */
typedef struct DkProgress {
    char part[32];
    bool done[N_DK];
    int next;
} DkProgress;

static void dk_done(DkProgress *p, int i)
{
    p->done[i] = true;
    for (; p->next < N_DK && p->done[p->next]; p->next++)
        progress("%s: dk = %d done (%d of %d)", p->part, g_dks[p->next], p->next + 1, N_DK);
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
    DkProgress done = {"part 1", {false}, 0};
    progress("part 1: %d values of dk, %ld pairs each", N_DK, o->pairs);
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < N_DK; i++) {
        m[i] = qk_moments(g_dks[i], o->pairs, rng_key(o->seed, (uint64_t)g_dks[i]));
#pragma omp critical
        dk_done(&done, i);
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
    printf("## 2. S1's experiment: dk = %d, %d queries and keys\n\n", DK, KEYS);
    printf("S = Q K^T with Q, K of iid N(0, 1) entries; softmax of S's first row. %d independent draw%s\n"
           "(seed %llu); S1 reports one draw of its own (numpy, random seed 42), the column \"S1's draw\".\n\n", o->draws,
           o->draws == 1 ? "" : "s", (unsigned long long)o->seed);
    double *v[8];
    for (int k = 0; k < 8; k++) {
        v[k] = mem_alloc((size_t)o->draws * sizeof(double));
    }
    progress("part 2: %d draw%s of %d x %d scores at dk = %d", o->draws, o->draws == 1 ? "" : "s", KEYS, KEYS, DK);
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
    printf("| quantity | S1's draw | our median | our 5%% .. 95%% range |\n|---|---:|---:|---:|\n");
    for (int k = 0; k < 8; k++) {
        qsort(v[k], (size_t)o->draws, sizeof(double), cmp_double);
        int lo = (int)(0.05 * (o->draws - 1)), hi = (int)(0.95 * (o->draws - 1));
        printf("| %s | %s | %.4g | %.4g .. %.4g |\n", names[k], claims[k], v[k][o->draws / 2], v[k][lo], v[k][hi]);
        mem_free(v[k]);
    }
    printf("\n");
}

/* The key of the draws of one (dk, number of keys) cell of parts 3-7 and 10. */
static uint64_t softmax_key(const ProbeOptions *o, int dk, int n_keys)
{
    return rng_key(o->seed, 2000 + (uint64_t)(dk * 100 + n_keys));
}

/* One set of draws, two tables: entropies (section `first`) and Jacobian norms (first + 1).
 * rows[i] (for g_dks[i]): the draws, already made; or rows == NULL to draw them here. */
static void part_softmax(const ProbeOptions *o, int n_keys, int first, double *const *rows)
{
    /* the grid's three rules, S3's fixed divisors sqrt(16) .. sqrt(1024), and its 10 */
    enum { N_DIV = 8 };
    static const char *const scales[N_DIV] = {"1", "sqrt", "dk", "4", "8", "16", "32", "10"};
    SoftmaxStats st[N_DK][N_DIV];
    DkProgress done = {"", {false}, 0};
    snprintf(done.part, sizeof done.part, "parts %d-%d", first, first + 1);
    progress("%s: %d values of dk, %ld queries against %d keys each", done.part, N_DK, o->samples, n_keys);
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < N_DK; i++) {
        double s[N_DIV];
        for (int d = 0; d < N_DIV; d++) s[d] = scale_of(scales[d], g_dks[i]);
        if (rows)
            softmax_stats_of(rows[i], o->samples, n_keys, s, N_DIV, st[i]);
        else
            softmax_stats(g_dks[i], n_keys, s, N_DIV, o->samples, softmax_key(o, g_dks[i], n_keys), st[i]);
#pragma omp critical
        dk_done(&done, i);
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
               "Columns 4, 8, 16, 32 are sqrt(16), sqrt(64), sqrt(256), sqrt(1024): S3's fixed divisors.\n\n",
               o->samples, (unsigned long long)o->seed);
        printf("| dk |");
        for (int d = 0; d < N_DIV; d++) {
            char divisor[32];
            printf(" / %s |", scale_write_divisor(scales[d], SCALE_ASCII, divisor, sizeof divisor));
        }
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


static void part_gradients(const ProbeOptions *o, int n_keys, double *const *rows)
{
    ScoreGradStats st[N_DK][N_SCALE];
    progress("part 7: %d values of dk, %ld rows of %d keys each", N_DK, o->samples, n_keys);
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < N_DK; i++)
        for (int k = 0; k < N_SCALE; k++)
            st[i][k] = score_grad_stats(rows[i], o->samples, n_keys, scale_of(g_scales[k], g_dks[i]),
                                        rng_key(o->seed, 200000 + (uint64_t)g_dks[i]));
    printf("## 7. The gradient reaching one query's scores, %d keys, for a random upstream gradient\n\n", n_keys);
    printf("Per query row: scores S = s q.k against %d keys (the draws of sections 5-6), p = softmax(S), an\n"
           "upstream gradient g = dL/dp with iid N(0, 1) entries, and what the backward pass sends to the\n"
           "scores, dL/dS = J g with J = diag(p) - p p^T. Over %ld rows per cell (seed %llu): the median and\n"
           "the 10th percentile of |dL/dS| (the row's Euclidean norm) and of ||J||_F, and the median of\n"
           "|dL/d(q.k)| = s |dL/dS|, what goes on to q and k. For such g, E|J g|^2 = ||J||_F^2; a uniform p\n"
           "gives ||J||_F = sqrt(1/%d - 1/%d^2) = %.4f. Computed in double without cancellation, so a\n"
           "saturated row gets its true tiny value (float32, as ./train runs, rounds the smallest to 0).\n\n",
           n_keys, o->samples, (unsigned long long)o->seed, n_keys, n_keys,
           sqrt(1.0 / n_keys - 1.0 / ((double)n_keys * n_keys)));
    printf("| s | dk | \\|dL/dS\\| median | \\|dL/dS\\| 10th pct | \\|\\|J\\|\\|_F median | \\|\\|J\\|\\|_F 10th pct | \\|dL/d(q.k)\\| median |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < N_SCALE; k++)
        for (int i = 0; i < N_DK; i++) {
            const ScoreGradStats *s = &st[i][k];
            printf("| %s | %d | %.3g | %.3g | %.3g | %.3g | %.3g |\n", scale_text(g_scales[k]), g_dks[i], s->grad_median,
                   s->grad_p10, s->jac_median, s->jac_p10, s->qk_grad_median);
        }
    const ScoreGradStats *a = &st[0][0], *b = &st[N_DK - 1][0];
    printf("\nWith s = 1 the typical row's gradient shrinks as dk grows: from dk = %d to %d the median |dL/dS|\n"
           "falls by a factor of %.2g and the 10th percentile by %.2g, so it is the typical query, not only\n"
           "the average, that gets almost nothing back. With 1/sqrt(dk) the first four columns are the same\n"
           "at every dk. With 1/dk the softmax is nearly uniform and |dL/dS| stays near its uniform value,\n"
           "but the factor s divides what reaches q.k by dk (last column). What reaches q itself is about\n"
           "sqrt(dk) times the last column (dL/dq = sum_j dL/d(q.k_j) k_j, and |k_j| ~ sqrt(dk)): constant\n"
           "in dk with 1/sqrt(dk), falling as 1/sqrt(dk) with 1/dk.\n\n",
           g_dks[0], g_dks[N_DK - 1], a->grad_median / b->grad_median, a->grad_p10 / b->grad_p10);
}

static void part_range(const ProbeOptions *o)
{
    enum { DK = 512, TOKENS = 10 };
    const double limit = 60;
    progress("part 8: %ld sequences of %d tokens at dk = %d", o->samples, TOKENS, DK);
    RangeStats r = range_stats(DK, TOKENS, o->samples, limit, rng_key(o->seed, 300000 + DK));
    double sd = sqrt((double)DK), inside = erf(limit / (sd * sqrt(2.0))); /* P(|N(0, dk)| <= 60) */
    printf("## 8. S1's \"10 tokens at dk = %d: scores within +-%g\"\n\n", DK, limit);
    printf("S1 (seeds/000) writes that for a sequence of length %d at dk = %d the dot products \"may fluctuate\n"
           "between -60 and 60 (about 3 standard deviations)\". Raw scores q.k, q and k iid N(0, 1); %ld\n"
           "sequences of %d queries and %d keys (seed %llu). The normal approximation treats the scores as\n"
           "independent N(0, dk): P(|q.k| <= %g)^%d per row, ^%d per sequence.\n\n",
           TOKENS, DK, o->samples, TOKENS, TOKENS, (unsigned long long)o->seed, limit, TOKENS, TOKENS * TOKENS);
    printf("| largest \\|q.k\\| of | median | 95th pct | 99th pct | fraction within +-%g | normal approximation |\n", limit);
    printf("|---|---:|---:|---:|---:|---:|\n");
    printf("| one query's %d scores | %.1f | %.1f | %.1f | %.3f | %.3f |\n", TOKENS, r.row_median, r.row_p95, r.row_p99,
           r.row_within, pow(inside, TOKENS));
    printf("| the sequence's %d scores | %.1f | %.1f | %.1f | %.3f | %.3f |\n\n", TOKENS * TOKENS, r.seq_median, r.seq_p95,
           r.seq_p99, r.seq_within, pow(inside, TOKENS * TOKENS));
    printf("The standard deviation of q.k is sqrt(%d) = %.1f, so +-%g is +-%.2f standard deviations, not 3\n"
           "(3 sd = %.1f). The claim holds for one query's scores (%.0f%% of rows stay within +-%g) but only\n"
           "about half the time for the whole sequence: %.0f%% of sequences keep all %d scores within +-%g,\n"
           "and the median sequence's largest |q.k| is %.1f.\n\n",
           DK, sd, limit, limit / sd, 3 * sd, 100 * r.row_within, limit, 100 * r.seq_within, TOKENS * TOKENS, limit,
           r.seq_median);
}

/* `value` rounded as the string `claimed` is written (its decimals, or its mantissa's decimals
 * in 7.5e9 notation), into buf; returns whether that equals the claimed number. */
static int rounds_to(double value, const char *claimed, char *buf, size_t len)
{
    const char *dot = strchr(claimed, '.'), *e = strpbrk(claimed, "eE");
    int decimals = 0;
    if (dot)
        for (const char *c = dot + 1; *c >= '0' && *c <= '9'; c++) decimals++;
    snprintf(buf, len, e ? "%.*e" : "%.*f", decimals, value);
    return strtod(buf, NULL) == strtod(claimed, NULL);
}

static void print_values(const double *v, int n)
{
    printf("[");
    for (int j = 0; j < n; j++) printf(v[j] != 0 && fabs(v[j]) < 1e-3 ? "%s%.2e" : "%s%.4f", j ? ", " : "", v[j]);
    printf("]");
}

static void part_examples(void)
{
    enum { MAX_N = 3 };
    typedef struct Example {
        const char *seed;         /* who says it */
        const char *kind;         /* "softmax", "linear" (z / sum z) or "exp" */
        int n;
        double z[MAX_N];
        const char *claimed[MAX_N]; /* as the source writes them */
    } Example;
    static const Example ex[] = {
        {"S1 (000)", "softmax", 3, {1, 2, 3}, {"0.090", "0.245", "0.665"}},
        {"S1 (000)", "softmax", 3, {10, 20, 30}, {"0.000", "0.000", "1.000"}},
        {"S1 (000)", "softmax", 3, {0.001, 0.002, 0.003}, {"0.333", "0.333", "0.334"}},
        {"S2 (001)", "softmax", 2, {1, 2}, {"0.27", "0.73"}},
        {"S2 (001)", "linear", 2, {1, 2}, {"0.33", "0.67"}},
        {"S3 (004)", "softmax", 3, {1, 2, 3}, {"0.09", "0.24", "0.67"}},
        {"S3 (004)", "softmax", 3, {2, 4, 6}, {"0.02", "0.12", "0.86"}},
        {"S3 (004)", "softmax", 3, {10, 20, 30}, {"0.00", "0.00", "1.00"}},
        {"S3 (004)", "exp", 1, {22.6}, {"7.5e9"}},
    };
    printf("## 9. The sources' worked examples\n\n");
    printf("The small examples the articles compute by hand, next to the engine's softmax (float32; exp in\n"
           "double). \"yes\" when ours, rounded to the decimals the source writes, gives its numbers;\n"
           "otherwise ours so rounded (S1, S2, S3: the sources listed at the top). S2's z / sum(z) row is its\n"
           "contrast to softmax([1, 2]), S3's exp(22.6) its overflow example (22.6 = sqrt(512)).\n\n");
    printf("| source | computes | it writes | ours | same at its precision |\n|---|---|---|---|---|\n");
    for (size_t k = 0; k < sizeof ex / sizeof ex[0]; k++) {
        const Example *e = &ex[k];
        int is_exp = !strcmp(e->kind, "exp"), is_linear = !strcmp(e->kind, "linear");
        double v[MAX_N], sum = 0;
        for (int j = 0; j < e->n; j++) sum += e->z[j];
        if (is_exp)
            v[0] = exp(e->z[0]);
        else if (is_linear)
            for (int j = 0; j < e->n; j++) v[j] = e->z[j] / sum;
        else
            softmax_small(e->z, e->n, v);
        printf("| %s | ", e->seed);
        if (is_exp)
            printf("exp(%g) | %s | %.3g", e->z[0], e->claimed[0], v[0]);
        else {
            printf(is_linear ? "z / sum(z) for z = [" : "softmax([");
            for (int j = 0; j < e->n; j++) printf("%s%g", j ? ", " : "", e->z[j]);
            printf(is_linear ? "] | [" : "]) | [");
            for (int j = 0; j < e->n; j++) printf("%s%s", j ? ", " : "", e->claimed[j]);
            printf("] | ");
            print_values(v, e->n);
        }
        char rounded[MAX_N][32];
        int same = 1;
        for (int j = 0; j < e->n; j++) same &= rounds_to(v[j], e->claimed[j], rounded[j], sizeof rounded[j]);
        if (same)
            printf(" | yes |\n");
        else {
            printf(" | no: %s", e->n > 1 ? "[" : "");
            for (int j = 0; j < e->n; j++) printf("%s%s", j ? ", " : "", rounded[j]);
            printf("%s |\n", e->n > 1 ? "]" : "");
        }
    }
    printf("\n");
}

/* A probability for the tables: 4 decimals, or 3 significant digits when small. */
static void print_prob(double p)
{
    if (p == 0)
        printf(" 0 |");
    else if (p < 1e-4)
        printf(" %.2e |", p);
    else
        printf(" %.4f |", p);
}

static void part_overflow(const ProbeOptions *o, int n_keys, double *const *rows)
{
    const double t = log(FP16_MAX);
    printf("## 10. exp(s q.k) beyond the fp16 maximum when the row max is not subtracted\n\n");
    printf("A softmax computed as written, exp(S_j) / sum_i exp(S_i) with S = s q.k, overflows in fp16 as\n"
           "soon as one S_j > ln(%.0f) = %.4f (the largest finite fp16, FP16_MAX in tensor/format.h;\n"
           "round-to-nearest gives Inf from 65520, ln = %.4f, no visible difference here). Subtracting the\n"
           "row max first, as this engine's softmax and every framework's do, removes the overflow at any\n"
           "scale. The draws of sections 5-7: %ld rows of %d keys per dk (seed %llu), %ld entries. The normal\n"
           "approximation takes q.k ~ N(0, dk): P(entry) = P(Z > %.4f / (s sqrt(dk))), and per row\n"
           "1 - (1 - P)^%d (as if a row's entries were independent; they share q). \"0\": none sampled, or\n"
           "below 1e-300. The last column: the row's sum of exp(S_j) exceeds %.0f (a sum kept in fp16).\n\n",
           FP16_MAX, t, log(65520.0), o->samples, n_keys, (unsigned long long)o->seed, o->samples * n_keys, t, n_keys,
           FP16_MAX);
    printf("| s | dk | P(entry) normal | P(entry) sampled | P(row has one) normal | P(row has one) sampled | P(row sum > max) sampled |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < N_SCALE; k++)
        for (int i = 0; i < N_DK; i++) {
            double s = scale_of(g_scales[k], g_dks[i]), p = overflow_prob_normal(g_dks[i], s, FP16_MAX);
            OverflowStats st = overflow_stats(rows[i], o->samples, n_keys, s, FP16_MAX);
            printf("| %s | %d |", scale_text(g_scales[k]), g_dks[i]);
            print_prob(p);
            print_prob(st.entry);
            print_prob(-expm1(n_keys * log1p(-p))); /* 1 - (1 - p)^n without rounding 1 - p */
            print_prob(st.row_any);
            print_prob(st.row_sum);
            printf("\n");
        }
    printf("\nWhere sampled and normal differ at small dk, the normal approximation is what is off: q.k has\n"
           "heavier tails (kurtosis 3 + 6/dk), which shows 2.8 standard deviations out at dk = 16.\n"
           "S3 (seeds/004) writes exp(22.6) ~ 7.5e9 for one standard deviation at dk = 512: it is %.3g\n"
           "(section 9), and any score above %.2f already overflows fp16: at dk = 512 that is %.2f standard\n"
           "deviations, crossed by %.0f%% of unscaled scores.\n\n",
           exp(22.6), t, t / sqrt(512.0), 100 * overflow_prob_normal(512, 1, FP16_MAX));
}

int main(int argc, char **argv)
{
    enum { KEYS = 64 };
    ProbeOptions o = parse_args(argc, argv);
    threads_from_env(); /* a bad $OMP_NUM_THREADS or $OMP_DYNAMIC: one line, exit 2, as for ./train */
    fpmode_flush_subnormals(); /* as ./train (tensor/fpmode.h) */
    printf("# ./probe: statistics of attention scores (no training)\n\n");
    printf("The claims checked here come from the three articles that started this project (in Chinese;\n"
           "docs/ABLATION.md has what training says about the same claims):\n"
           "- S1: \"Why does Transformer attention divide by sqrt(dk)? The mathematics, from variance to\n"
           "  vanishing gradients\"; it runs its own numpy experiments.\n"
           "- S2: a mathematical companion to a Transformer tutorial: the softmax gradient, softmax with\n"
           "  cross-entropy, and the scale in scaled dot-product attention.\n"
           "- S3: \"Why does self-attention divide by sqrt(d_k)?\": the question as a design decision, by\n"
           "  an NLP course teacher, with worked softmax examples and an fp16 overflow argument.\n\n");
    part_moments(&o);
    part_row_experiment(&o);
    part_softmax(&o, 3, 3, NULL);
    double *rows[N_DK]; /* one query against KEYS keys, o.samples times per dk: parts 5-7 and 10 */
    progress("parts 5-7, 10: drawing %ld queries against %d keys for each of %d values of dk", o.samples, KEYS, N_DK);
#pragma omp parallel for schedule(dynamic)
    for (int i = N_DK - 1; i >= 0; i--) rows[i] = score_rows(g_dks[i], KEYS, o.samples, softmax_key(&o, g_dks[i], KEYS));
    part_softmax(&o, KEYS, 5, rows);
    part_gradients(&o, KEYS, rows);
    part_range(&o);
    part_examples();
    part_overflow(&o, KEYS, rows);
    for (int i = 0; i < N_DK; i++) mem_free(rows[i]);
    return 0;
}
