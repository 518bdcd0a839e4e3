/* report_law.c - see report_law.h. Everything from runs.csv's rows, in a fixed order, with
 * fixed formats: the same runs.csv gives the same bytes. */
#include "report_law.h"

#include "report_common.h"
#include "report_figure.h"
#include "stats.h"
#include "stats_outcomes.h"
#include "stats_t.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { LAW_INITS = 2, MAX_DK = 16, MAX_SEEDS = 128, MAX_GROUPS = 32, NO_C = -1000, BOOTSTRAP = 10000 };
static const char *const g_inits[LAW_INITS] = {"unit", "xavier"};
static const char *const g_stages[] = {"cal", "law", "robust"};
#define LAW_FAMILY_ALPHA 0.05 /* the six tests' family-wise level (Holm) */
#define LAW_DELTA 0.5         /* the |alpha - alpha0| the seeds are sized for */
#define LAW_SD_FLOOR 0.25     /* the least sd of alpha_i assumed in sizing */

/* One done run of a law stage. */
typedef struct LawRun {
    const Row *row;
    int init, steps, k; /* c = 2^k */
    double t;           /* steps to the loss threshold; INFINITY when never reached */
    double sigma0;      /* the raw q.k std at step 1 */
} LawRun;

/* The runs of one stage at one budget (steps, rate), and what is computed from them per init. */
typedef struct LawGroup {
    const char *stage, *lr_text;
    int steps;
    double lr;
    int init_n[LAW_INITS];                      /* runs per init */
    double dks[MAX_DK];
    int nd;
    long seeds[MAX_SEEDS];
    int ns;
    int kstar[LAW_INITS][MAX_DK][MAX_SEEDS];    /* NO_C: undefined (no c learned, or no run) */
    int learned[LAW_INITS][MAX_DK][MAX_SEEDS];  /* c that reached the threshold */
    int ran[LAW_INITS][MAX_DK][MAX_SEEDS];      /* c run (done) */
    int missing[LAW_INITS][MAX_DK][MAX_SEEDS];  /* c planned, not done (yet) */
    double tstar[LAW_INITS][MAX_DK][MAX_SEEDS]; /* the steps of c* */
    double sigma0[LAW_INITS][MAX_DK];           /* median over runs */
    double alpha[LAW_INITS][MAX_SEEDS];         /* per seed; NAN with fewer than 3 dk */
    double alpha_pred[LAW_INITS];
} LawGroup;

/* ------------------------------------------------------------------ reading the runs */

static bool is_law_stage(const char *stage)
{
    for (size_t i = 0; i < sizeof g_stages / sizeof g_stages[0]; i++)
        if (!strcmp(stage, g_stages[i])) return true;
    return false;
}

/* The run of a law stage's row: its init and steps from the variant "qk-init=INIT,steps=N",
 * its c from the scale (s = 1/scale = c/sqrt(dk), c a power of 2). */
static LawRun law_run(const Row *r)
{
    LawRun run = {.row = r, .init = -1};
    const char *v = r->job[JOB_VARIANT];
    for (int i = 0; i < LAW_INITS; i++) {
        size_t n = strlen("qk-init=") + strlen(g_inits[i]);
        if (!strncmp(v, "qk-init=", 8) && !strncmp(v + 8, g_inits[i], strlen(g_inits[i])) && !strncmp(v + n, ",steps=", 7)) {
            long steps;
            if (parse_long(v + n + 7, &steps) && steps > 0 && steps <= 100000000) {
                run.init = i;
                run.steps = (int)steps;
            }
        }
    }
    if (run.init < 0) die(EXIT_USER, "run %s: a law run's variant is qk-init=unit|xavier,steps=N, not \"%s\"", r->job[JOB_ID], v);
    double cc, sm = NAN; /* s of the run's scale at its dk: a constant's 1/c, or a named rule's ("1" is c = sqrt(dk)) */
    const ScaleRow *sr = scale_row_find(r->job[JOB_SCALE], &cc);
    if (sr && sr->mode != SCALE_LEARNED) sm = scale_row_s(sr, cc, (int)r->dk);
    double c = sm * sqrt(r->dk), k = round(log2(c));
    if (!isfinite(c) || fabs(log2(c) - k) > 1e-6)
        die(EXIT_USER, "run %s: a law run's scale is sqrt(dk)/c with c a power of 2, not \"%s\"", r->job[JOB_ID], r->job[JOB_SCALE]);
    run.k = (int)k;
    double s = r->value[M_STEPS_TO_THRESHOLD];
    run.t = s >= 0 ? s : INFINITY;
    run.sigma0 = r->value[M_STD_INIT] / sm;
    return run;
}

static int index_of_dk(const LawGroup *g, double dk)
{
    for (int d = 0; d < g->nd; d++)
        if (g->dks[d] == dk) return d;
    return -1;
}

static int index_of_seed(const LawGroup *g, long seed)
{
    for (int s = 0; s < g->ns; s++)
        if (g->seeds[s] == seed) return s;
    return -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The groups: one per (stage, steps, rate), in the order of g_stages, then steps, then rate. */
static int group_order(const LawGroup *a, const LawGroup *b)
{
    int sa = 0, sb = 0;
    while (strcmp(g_stages[sa], a->stage)) sa++;
    while (strcmp(g_stages[sb], b->stage)) sb++;
    if (sa != sb) return sa - sb;
    if (a->steps != b->steps) return a->steps - b->steps;
    return (a->lr > b->lr) - (a->lr < b->lr);
}

static int find_group(LawGroup *gs, int *ng, const Row *r, const LawRun *run)
{
    for (int i = 0; i < *ng; i++)
        if (!strcmp(gs[i].stage, r->job[JOB_STAGE]) && gs[i].steps == run->steps && gs[i].lr == r->lr) return i;
    if (*ng == MAX_GROUPS) die(EXIT_USER, "more than %d (stage, steps, rate) groups of law runs", MAX_GROUPS);
    LawGroup *g = &gs[(*ng)++];
    memset(g, 0, sizeof *g);
    g->stage = r->job[JOB_STAGE];
    g->lr_text = r->job[JOB_LR];
    g->steps = run->steps;
    g->lr = r->lr;
    return *ng - 1;
}

/* The least-squares slope of y on x over the n points with finite y; NAN with fewer than 3. */
static double slope(const double *x, const double *y, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(y[i]) && isfinite(x[i])) {
            sx += x[i];
            sy += y[i];
            m++;
        }
    if (m < 3) return NAN;
    double mx = sx / m, my = sy / m;
    for (int i = 0; i < n; i++)
        if (isfinite(y[i]) && isfinite(x[i])) {
            sxx += (x[i] - mx) * (x[i] - mx);
            sxy += (x[i] - mx) * (y[i] - my);
        }
    return sxx > 0 ? sxy / sxx : NAN;
}

/* c*, per dk and seed, of one init: the fewest steps, ties to the lower final loss. */
static void find_kstar(LawGroup *g, const LawRun *runs, int n, int init)
{
    double best_loss[MAX_DK][MAX_SEEDS];
    for (int d = 0; d < g->nd; d++)
        for (int s = 0; s < g->ns; s++) {
            g->kstar[init][d][s] = NO_C;
            g->tstar[init][d][s] = INFINITY;
            best_loss[d][s] = INFINITY;
        }
    for (int i = 0; i < n; i++) {
        if (runs[i].init != init) continue;
        int d = index_of_dk(g, runs[i].row->dk), s = index_of_seed(g, runs[i].row->seed);
        g->ran[init][d][s]++;
        if (!isfinite(runs[i].t)) continue;
        g->learned[init][d][s]++;
        double loss = runs[i].row->value[M_FINAL_LOSS];
        if (runs[i].t < g->tstar[init][d][s] || (runs[i].t == g->tstar[init][d][s] && loss < best_loss[d][s])) {
            g->tstar[init][d][s] = runs[i].t;
            best_loss[d][s] = loss;
            g->kstar[init][d][s] = runs[i].k;
        }
    }
}

/* alpha_i per seed, the median sigma0 per dk and alpha_pred, of one init. */
static void fit_init(LawGroup *g, const LawRun *runs, int n, int init)
{
    double x[MAX_DK], y[MAX_DK];
    for (int d = 0; d < g->nd; d++) x[d] = log2(g->dks[d]);
    for (int s = 0; s < g->ns; s++) {
        for (int d = 0; d < g->nd; d++) /* log2 s* = k* - log2(dk) / 2 */
            y[d] = g->kstar[init][d][s] == NO_C ? NAN : g->kstar[init][d][s] - x[d] / 2;
        g->alpha[init][s] = -slope(x, y, g->nd);
    }
    double *lx = mem_alloc(sizeof(double) * (size_t)(n + 1)), *ly = mem_alloc(sizeof(double) * (size_t)(n + 1));
    for (int d = 0; d < g->nd; d++) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (runs[i].init == init && runs[i].row->dk == g->dks[d] && isfinite(runs[i].sigma0) && runs[i].sigma0 > 0)
                ly[k++] = runs[i].sigma0;
        g->sigma0[init][d] = k ? stats_quantile(ly, k, 0.5) : NAN;
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (runs[i].init == init && isfinite(runs[i].sigma0) && runs[i].sigma0 > 0) {
            lx[m] = log2(runs[i].row->dk);
            ly[m++] = log2(runs[i].sigma0);
        }
    g->alpha_pred[init] = slope(lx, ly, m); /* s_pred = 1/sigma0: log2 s_pred falls with slope alpha_pred */
    mem_free(lx);
    mem_free(ly);
}

/* Collects the law runs into groups (sorted) and computes each group's estimates. */
static int build_groups(LawGroup *gs, const Row *rows, int n_rows)
{
    LawRun *runs = mem_alloc(sizeof(LawRun) * (size_t)(n_rows + 1));
    int *group_of = mem_alloc(sizeof(int) * (size_t)(n_rows + 1));
    int n = 0, ng = 0;
    for (int i = 0; i < n_rows; i++) {
        const Row *r = &rows[i];
        if (!is_law_stage(r->job[JOB_STAGE]) || !r->done) continue;
        LawRun run = law_run(r);
        int gi = find_group(gs, &ng, r, &run);
        LawGroup *g = &gs[gi];
        if (index_of_dk(g, r->dk) < 0) {
            if (g->nd == MAX_DK) die(EXIT_USER, "law runs at more than %d dk in one group", MAX_DK);
            g->dks[g->nd++] = r->dk;
        }
        if (index_of_seed(g, r->seed) < 0) {
            if (g->ns == MAX_SEEDS) die(EXIT_USER, "law runs of more than %d seeds in one group", MAX_SEEDS);
            g->seeds[g->ns++] = r->seed;
        }
        g->init_n[run.init]++;
        group_of[n] = gi;
        runs[n++] = run;
    }
    for (int gi = 0; gi < ng; gi++) {
        LawGroup *g = &gs[gi];
        qsort(g->dks, (size_t)g->nd, sizeof(double), cmp_double);
        qsort(g->seeds, (size_t)g->ns, sizeof(long), cmp_long);
    }
    /* the planned runs not done, in the groups, dk and seeds that have done runs */
    for (int i = 0; i < n_rows; i++) {
        const Row *r = &rows[i];
        if (!is_law_stage(r->job[JOB_STAGE]) || r->done) continue;
        LawRun run = law_run(r);
        for (int gi = 0; gi < ng; gi++) {
            LawGroup *g = &gs[gi];
            if (strcmp(g->stage, r->job[JOB_STAGE]) || g->steps != run.steps || g->lr != r->lr) continue;
            int d = index_of_dk(g, r->dk), sd = index_of_seed(g, r->seed);
            if (d >= 0 && sd >= 0) g->missing[run.init][d][sd]++;
        }
    }
    /* each group's runs, then its estimates (before sorting the groups: group_of indexes them) */
    LawRun *mine = mem_alloc(sizeof(LawRun) * (size_t)(n + 1));
    for (int gi = 0; gi < ng; gi++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (group_of[i] == gi) mine[m++] = runs[i];
        for (int init = 0; init < LAW_INITS; init++) {
            find_kstar(&gs[gi], mine, m, init);
            fit_init(&gs[gi], mine, m, init);
        }
    }
    mem_free(mine);
    /* the groups in order (insertion sort: few) */
    for (int i = 1; i < ng; i++)
        for (int j = i; j > 0 && group_order(&gs[j - 1], &gs[j]) > 0; j--) {
            LawGroup t = gs[j];
            gs[j] = gs[j - 1];
            gs[j - 1] = t;
        }
    mem_free(runs);
    mem_free(group_of);
    return ng;
}

/* ------------------------------------------------------------------ statistics of c* */

/* SplitMix64: the bootstrap's fixed stream. */
static uint64_t splitmix(uint64_t *st)
{
    uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The median of the defined k* over the seeds of one (init, dk), and its 95 % percentile
 * bootstrap interval (resampling those seeds); returns how many seeds are defined. */
static int median_kstar(const LawGroup *g, int init, int d, double *median, double *lo, double *hi)
{
    double k[MAX_SEEDS], boot[MAX_SEEDS];
    int n = 0;
    for (int s = 0; s < g->ns; s++)
        if (g->kstar[init][d][s] != NO_C) k[n++] = g->kstar[init][d][s];
    *median = *lo = *hi = NAN;
    if (n == 0) return 0;
    double tmp[MAX_SEEDS];
    memcpy(tmp, k, sizeof(double) * (size_t)n);
    *median = stats_quantile(tmp, n, 0.5);
    if (n < 2) return n;
    double *medians = mem_alloc(sizeof(double) * BOOTSTRAP);
    uint64_t st = 20261207;
    for (int b = 0; b < BOOTSTRAP; b++) {
        for (int i = 0; i < n; i++) boot[i] = k[splitmix(&st) % (uint64_t)n];
        medians[b] = stats_quantile(boot, n, 0.5);
    }
    *lo = stats_quantile(medians, BOOTSTRAP, 0.025);
    *hi = stats_quantile(medians, BOOTSTRAP, 0.975);
    mem_free(medians);
    return n;
}

/* The alpha_i of one init that are defined, into a; returns how many. */
static int defined_alphas(const LawGroup *g, int init, double *a)
{
    int n = 0;
    for (int s = 0; s < g->ns; s++)
        if (isfinite(g->alpha[init][s])) a[n++] = g->alpha[init][s];
    return n;
}

/* ------------------------------------------------------------------ law.md */

/* c = 2^k as text: "1/4", "1", "8", or "2^-2.5" for a median between two powers. */
static void c_text(char *buf, size_t n, double k)
{
    if (isnan(k)) snprintf(buf, n, "–");
    else if (k != floor(k)) snprintf(buf, n, "2^%g", k);
    else if (k < 0) snprintf(buf, n, "1/%.0f", ldexp(1, (int)-k));
    else snprintf(buf, n, "%.0f", ldexp(1, (int)k));
}

/* Whether a calibration group qualifies: at every (dk, init, seed) whose planned runs are all
 * done, some c reached the threshold and some did not; *complete counts those (dk, init, seed),
 * *incomplete the others with some run done (not judged yet). */
static bool group_qualifies(const LawGroup *g, int *complete, int *incomplete)
{
    bool ok = true;
    *complete = *incomplete = 0;
    for (int i = 0; i < LAW_INITS; i++)
        for (int d = 0; d < g->nd; d++)
            for (int s = 0; s < g->ns; s++) {
                if (!g->ran[i][d][s]) continue;
                if (g->missing[i][d][s]) {
                    ++*incomplete;
                    continue;
                }
                ++*complete;
                if (g->learned[i][d][s] == 0 || g->learned[i][d][s] == g->ran[i][d][s]) ok = false;
            }
    return ok && *complete > 0;
}

static void write_init_table(FILE *f, const LawGroup *g, int init)
{
    fprintf(f, "\n**qk-init=%s** (%d runs)\n\n| dₖ | σ₀ (median) | 1/σ₀ | s* (median c*/√dₖ) |", g_inits[init], g->init_n[init]);
    for (int s = 0; s < g->ns; s++) fprintf(f, " seed %ld |", g->seeds[s]);
    fprintf(f, " median c* [95 %% bootstrap] |\n|---:|---:|---:|---:|");
    for (int s = 0; s < g->ns; s++) fprintf(f, "---|");
    fprintf(f, "---|\n");
    for (int d = 0; d < g->nd; d++) {
        double med, lo, hi;
        int n = median_kstar(g, init, d, &med, &lo, &hi);
        char m[32], l[32], h[32];
        c_text(m, sizeof m, med);
        c_text(l, sizeof l, lo);
        c_text(h, sizeof h, hi);
        double sstar = isnan(med) ? NAN : exp2(med) / sqrt(g->dks[d]);
        char star[32];
        if (isnan(sstar)) snprintf(star, sizeof star, "–");
        else snprintf(star, sizeof star, "%.3g", sstar);
        fprintf(f, "| %.0f | %.3g | %.3g | %s |", g->dks[d], g->sigma0[init][d], 1 / g->sigma0[init][d], star);
        for (int s = 0; s < g->ns; s++) {
            if (!g->ran[init][d][s]) {
                fprintf(f, " – |");
                continue;
            }
            char c[32];
            c_text(c, sizeof c, g->kstar[init][d][s] == NO_C ? NAN : g->kstar[init][d][s]);
            if (g->kstar[init][d][s] == NO_C) fprintf(f, " none (0 of %d c) |", g->ran[init][d][s]);
            else fprintf(f, " %s at step %.0f (%d of %d c) |", c, g->tstar[init][d][s], g->learned[init][d][s], g->ran[init][d][s]);
        }
        if (n >= 2) fprintf(f, " %s [%s, %s] (n = %d) |\n", m, l, h, n);
        else fprintf(f, " %s (n = %d) |\n", m, n);
    }
    double a[MAX_SEEDS];
    int n = defined_alphas(g, init, a);
    fprintf(f, "\nα per seed (minus the slope of log₂ s* on log₂ dₖ, at least 3 dₖ):");
    if (g->nd < 3) fprintf(f, " none (%d dₖ)", g->nd);
    for (int s = 0; s < g->ns && g->nd >= 3; s++) {
        if (isfinite(g->alpha[init][s])) fprintf(f, " %ld: %.3f%s", g->seeds[s], g->alpha[init][s] + 0.0, s + 1 < g->ns ? ";" : ""); /* + 0.0: never "-0.000" */
        else fprintf(f, " %ld: –%s", g->seeds[s], s + 1 < g->ns ? ";" : "");
    }
    StatsCi ci = stats_ci95(a, n);
    if (ci.defined) fprintf(f, ". **α̂ = %.3f [%.3f, %.3f]** (mean, 95 %% t interval, n = %d).", ci.mean, ci.lo, ci.hi, n);
    else if (n == 1) fprintf(f, ". α̂ = %.3f (one seed: no interval).", ci.mean);
    else fprintf(f, ".");
    if (isfinite(g->alpha_pred[init])) fprintf(f, " Predicted from σ₀: α_pred = %.3f.\n", g->alpha_pred[init]);
    else fprintf(f, " Predicted from σ₀: α_pred undefined (σ₀ at fewer than 2 dₖ).\n");
}

/* The seeds the experiment needs, from a calibration group with at least 3 dk (DESIGN.md). */
static void write_seed_sizing(FILE *f, const LawGroup *g)
{
    double sd = LAW_SD_FLOOR;
    fprintf(f, "\nSeeds for the experiment (DESIGN.md): the spread of α between the two calibration seeds, |α₁ − α₂|/√2:");
    for (int i = 0; i < LAW_INITS; i++) {
        double a[MAX_SEEDS];
        int n = defined_alphas(g, i, a);
        if (n == 2) {
            double spread = fabs(a[0] - a[1]) / sqrt(2.0);
            fprintf(f, " %s %.3f;", g_inits[i], spread);
            if (spread > sd) sd = spread;
        } else {
            fprintf(f, " %s undefined (%d seeds with α);", g_inits[i], n);
        }
    }
    double alpha = LAW_FAMILY_ALPHA / 6;
    int n = stats_t_seeds(LAW_DELTA, sd, alpha, 5, 100);
    fprintf(f, " the sd assumed, the larger of these and %.2f: %.3f. The one-sample t test at α = %.5f (Holm's first step of "
               "6) reaches power %.1f against |α − α₀| = %.1f with **n = %d seeds** (exact, noncentral t).\n",
            LAW_SD_FLOOR, sd, alpha, 0.8, LAW_DELTA, n);
}

/* The six pre-registered tests of a stage-law group. */
static void write_tests(FILE *f, const LawGroup *g)
{
    double p[6], adj[6], judged[6], mean[6], sd[6], null[6];
    int n[6];
    const char *names[6];
    for (int i = 0; i < LAW_INITS; i++) {
        double a[MAX_SEEDS];
        int m = defined_alphas(g, i, a);
        double nulls[3] = {0, 1, g->alpha_pred[i]};
        static const char *const what[3] = {"α = 0 (a constant s)", "α = 1 (s = 1/dₖ)", "α = α_pred (s = 1/σ₀)"};
        for (int j = 0; j < 3; j++) {
            int t = i * 3 + j;
            names[t] = what[j];
            n[t] = m;
            null[t] = nulls[j];
            mean[t] = stats_mean(a, m);
            sd[t] = stats_sd(a, m);
            p[t] = m >= 2 && sd[t] > 0 ? stats_t_p2((mean[t] - null[t]) / (sd[t] / sqrt(m)), m - 1) : NAN;
        }
    }
    stats_holm(p, 6, adj);
    stats_holm_alpha(p, 6, LAW_FAMILY_ALPHA, judged);
    fprintf(f, "\n### The pre-registered tests\n\nOne-sample t tests on the seeds' α (two-sided), six corrected together by Holm "
               "(family-wise %.2f). MDD: the smallest |α − α₀| the test detects with power 0.8 at the α it is judged at "
               "(exact: noncentral t, the observed sd).\n\n| init | H₀ | α̂ | sd | n | p | Holm p | judged at | verdict |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---|\n",
            LAW_FAMILY_ALPHA);
    for (int t = 0; t < 6; t++) {
        fprintf(f, "| %s | %s", g_inits[t / 3], names[t]);
        if (t % 3 == 2 && isfinite(null[t])) fprintf(f, " = %.3f", null[t]);
        if (isnan(p[t])) {
            fprintf(f, " | %s | – | %d | – | – | – | no test (n < 2 or no spread) |\n", n[t] ? "see above" : "–", n[t]);
            continue;
        }
        fprintf(f, " | %.3f | %.3f | %d | %.2g | %.2g | %.4f | ", mean[t], sd[t], n[t], p[t], adj[t], judged[t]);
        if (adj[t] < LAW_FAMILY_ALPHA) fprintf(f, "α ≠ %.3f |\n", null[t]);
        else fprintf(f, "not distinguishable (MDD %.3f at α %.4f) |\n", stats_mdd_t(sd[t], n[t], judged[t]), judged[t]);
    }
}

static void write_law_md(const char *dir, const LawGroup *gs, int ng)
{
    OutFile o;
    FILE *f = out_open(&o, dir, "law.md");
    fprintf(f, "# The law: the best multiplier s* at each dₖ\n\n"
               "Made by ./report from runs.csv: the runs of stages cal (the calibration), law (the experiment) and robust (the "
               "robustness arm), as docs/ablation/DESIGN.md (\"Pre-registration: the law\") defines them. s = c/√dₖ, c a power "
               "of 2. c* of a seed at a dₖ: the c with the fewest steps to the loss threshold (ties: the lower final training "
               "loss); \"none\" when no c reached it. σ₀: the raw q·k std at step 1 (the score std of runs.csv's score_std_init, the mean over "
               "the layers, divided by s), median over runs; the argument's prediction is s* = 1/σ₀. Median c* over seeds with a 95 %% percentile "
               "bootstrap interval (%d resamples, fixed seed).\n",
            BOOTSTRAP);
    for (int gi = 0; gi < ng; gi++) {
        const LawGroup *g = &gs[gi];
        fprintf(f, "\n## %s: %d steps at lr %s\n", g->stage, g->steps, g->lr_text);
        if (!strcmp(g->stage, "cal")) {
            int complete, incomplete;
            bool ok = group_qualifies(g, &complete, &incomplete);
            fprintf(f, "\nThe calibration's rule (some c reaches the threshold and some does not, at every dₖ, init and seed "
                       "whose runs are all done: %d here", complete);
            if (incomplete) fprintf(f, "; %d more not done yet, not judged", incomplete);
            fprintf(f, "): **%s**.\n", ok ? "qualifies" : "does not qualify");
        }
        for (int i = 0; i < LAW_INITS; i++)
            if (g->init_n[i]) write_init_table(f, g, i);
        if (!strcmp(g->stage, "cal") && g->nd >= 3) write_seed_sizing(f, g);
        if (!strcmp(g->stage, "law")) write_tests(f, g);
    }
    out_close(&o);
}

/* ------------------------------------------------------------------ law.svg */

/* The group the figure shows: the experiment's (stage law, its first budget), else the
 * calibration group with the most dk. NULL when no group has 3 dk. */
static const LawGroup *figure_group(const LawGroup *gs, int ng)
{
    const LawGroup *best = NULL;
    for (int i = 0; i < ng; i++) {
        if (gs[i].nd < 3) continue;
        if (!strcmp(gs[i].stage, "law")) return &gs[i];
        if (!strcmp(gs[i].stage, "cal") && (!best || gs[i].nd > best->nd)) best = &gs[i];
    }
    return best;
}

static void write_law_svg(const char *dir, const LawGroup *g)
{
    static const char *const colors[LAW_INITS] = {"#1f77b4", "#d62728"};
    char title[256], subtitle[1024];
    snprintf(title, sizeof title, "The best multiplier s* against dk (stage %s, %d steps at lr %s)", g->stage, g->steps, g->lr_text);
    snprintf(subtitle, sizeof subtitle,
             "Discs: each seed's s* = c*/sqrt(dk) (dodged by seed); squares: the median over seeds; solid line: the fitted law "
             "s* ~ dk^(-alpha-hat) through the medians' mean level; dashed: the prediction 1/sigma0 (the raw score std at step 1, "
             "median over runs); dotted grey: s = 1/sqrt(dk). A seed with no c learned at a dk has no disc there.");
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < LAW_INITS; i++)
        for (int d = 0; d < g->nd; d++) {
            double r = 1 / sqrt(g->dks[d]); /* the c grid's ends at this dk, and the prediction */
            lo = fmin(lo, fmin(r / 32, 1 / g->sigma0[i][d]));
            hi = fmax(hi, fmax(r * 16, 1 / g->sigma0[i][d]));
        }
    int width = figure_width(MARGIN + LAW_INITS * (PANEL_W + MARGIN) + LEGEND_W), top = figure_top(width, title, subtitle);
    Plot plot;
    Svg *s = plot_open(&plot, dir, "law.svg", width, top + PANEL_H + 100);
    for (int i = 0; i < LAW_INITS; i++) {
        char ptitle[128];
        double a[MAX_SEEDS];
        int na = defined_alphas(g, i, a);
        StatsCi ci = stats_ci95(a, na);
        snprintf(ptitle, sizeof ptitle, "qk-init=%s: alpha-hat %.2f, alpha_pred %.2f (n = %d)", g_inits[i], ci.mean, g->alpha_pred[i], na);
        SvgPanel p = {MARGIN + i * (PANEL_W + MARGIN), top, PANEL_W, PANEL_H,
                      {g->dks[0] / 1.5, g->dks[g->nd - 1] * 1.5, SVG_LOG, "dk (log)", g->dks, g->nd},
                      svg_axis_for(lo, hi, SVG_LOG, "s* (log)"), ptitle};
        svg_panel(s, &p);
        double rule[MAX_DK], pred[MAX_DK], med[MAX_DK], fit[MAX_DK], level = 0;
        int nl = 0;
        for (int d = 0; d < g->nd; d++) {
            double m, l, h;
            median_kstar(g, i, d, &m, &l, &h);
            rule[d] = 1 / sqrt(g->dks[d]);
            pred[d] = 1 / g->sigma0[i][d];
            med[d] = isnan(m) ? NAN : exp2(m) * rule[d];
            if (isfinite(med[d])) {
                level += log2(med[d]) + ci.mean * log2(g->dks[d]);
                nl++;
            }
            for (int sd = 0; sd < g->ns; sd++)
                if (g->kstar[i][d][sd] != NO_C) {
                    char tip[128];
                    snprintf(tip, sizeof tip, "seed %ld, dk %.0f: c* = 2^%d", g->seeds[sd], g->dks[d], g->kstar[i][d][sd]);
                    svg_dot(s, &p, svg_dodge(&p, g->dks[d], 2.0 * (sd - (g->ns - 1) / 2.0)), exp2(g->kstar[i][d][sd]) * rule[d], 2.5,
                            colors[i], "seed", tip);
                }
        }
        SvgStyle rule_style = {"#888888", "2,3", SVG_NO_MARKER, 1, SVG_FILLED};
        SvgStyle pred_style = {"#000000", "6,3", SVG_NO_MARKER, 1.5, SVG_FILLED};
        SvgStyle med_style = {colors[i], NULL, SVG_SQUARE, 0, SVG_HOLLOW};
        SvgStyle fit_style = {colors[i], NULL, SVG_NO_MARKER, 2, SVG_FILLED};
        svg_series(s, &p, g->dks, rule, g->nd, &rule_style);
        svg_series(s, &p, g->dks, pred, g->nd, &pred_style);
        svg_series(s, &p, g->dks, med, g->nd, &med_style);
        if (nl && isfinite(ci.mean)) {
            for (int d = 0; d < g->nd; d++) fit[d] = exp2(level / nl - ci.mean * log2(g->dks[d]));
            svg_series(s, &p, g->dks, fit, g->nd, &fit_style);
        }
    }
    figure_titles(s, width, title, subtitle);
    SvgStyle st[5] = {{colors[0], NULL, SVG_CIRCLE, 0, SVG_FILLED}, {colors[1], NULL, SVG_CIRCLE, 0, SVG_FILLED},
                      {"#000000", NULL, SVG_NO_MARKER, 2, SVG_FILLED}, {"#000000", "6,3", SVG_NO_MARKER, 1.5, SVG_FILLED},
                      {"#888888", "2,3", SVG_NO_MARKER, 1, SVG_FILLED}};
    const SvgStyle *ptr[5] = {&st[0], &st[1], &st[2], &st[3], &st[4]};
    const char *labels[5] = {"qk-init=unit: a seed's s*", "qk-init=xavier: a seed's s*", "fitted law (colour of its init)",
                             "prediction 1/sigma0", "s = 1/sqrt(dk)"};
    svg_legend(s, MARGIN + LAW_INITS * (PANEL_W + MARGIN) - 30, top, LEGEND_W - 10, labels, ptr, 5);
    plot_close(&plot);
}

bool write_law(const char *dir, const Row *rows, int n_rows)
{
    static LawGroup gs[MAX_GROUPS];
    int ng = build_groups(gs, rows, n_rows);
    if (ng == 0) return false;
    write_law_md(dir, gs, ng);
    const LawGroup *fg = figure_group(gs, ng);
    if (fg) write_law_svg(dir, fg);
    return true;
}
