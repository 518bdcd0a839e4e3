/* report_law_groups.c - see report_law_groups.h. */
#include "report_law_groups.h"

#include "report_common.h"
#include "report_outcome_table.h"
#include "stats_outcomes.h"
#include "stats.h"
#include "stats_t.h"
#include "../../tensor/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const g_law_inits[LAW_INITS] = {"unit", "xavier"};
static const char *const g_stages[] = {"cal", "law", "robust"};

/* One done run of a law stage. */
typedef struct LawRun {
    const Row *row;
    int init, steps, k; /* c = 2^k */
    double t;           /* steps to the loss threshold; INFINITY when never reached */
    double sigma0;      /* the raw q.k std at step 1 */
} LawRun;

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
        size_t n = strlen("qk-init=") + strlen(g_law_inits[i]);
        if (!strncmp(v, "qk-init=", 8) && !strncmp(v + 8, g_law_inits[i], strlen(g_law_inits[i])) && !strncmp(v + n, ",steps=", 7)) {
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
        if (!strcmp(gs[i].stage, r->job[JOB_STAGE]) && gs[i].steps == run->steps && gs[i].lr == r->lr) {
            if (strcmp(gs[i].task, r->job[JOB_TASK])) /* the design has one task per group: no mixing of tasks' c* */
                die(EXIT_USER, "run %s: task %s among stage %s's runs of task %s at %d steps, lr %s (one task per law group)",
                    r->job[JOB_ID], r->job[JOB_TASK], gs[i].stage, gs[i].task, gs[i].steps, gs[i].lr_text);
            return i;
        }
    if (*ng == LAW_MAX_GROUPS) die(EXIT_USER, "more than %d (stage, steps, rate) groups of law runs", LAW_MAX_GROUPS);
    LawGroup *g = &gs[(*ng)++];
    memset(g, 0, sizeof *g);
    g->stage = r->job[JOB_STAGE];
    g->task = r->job[JOB_TASK];
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
    double best_loss[LAW_MAX_DK][LAW_MAX_SEEDS];
    for (int d = 0; d < g->nd; d++)
        for (int s = 0; s < g->ns; s++) {
            g->kstar[init][d][s] = LAW_NO_C;
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

/* Twin runs: the pairs of runs of the two inits at the same (dk, c, seed), and those of them
 * whose every recorded number but the time is the same text (the same weights at step 0 give
 * the same bits: with H dk = C, Xavier's Var(W) = 2/(C + H dk) is unit's 1/C). */
static void count_twins(LawGroup *g, const LawRun *runs, int n)
{
    for (int i = 0; i < n; i++) {
        if (runs[i].init != 0) continue;
        const Row *a = runs[i].row;
        for (int j = 0; j < n; j++) {
            const Row *b = runs[j].row;
            if (runs[j].init != 1 || runs[j].k != runs[i].k || b->dk != a->dk || b->seed != a->seed) continue;
            int d = index_of_dk(g, a->dk), same = 1;
            for (int m = 0; m < N_METRICS; m++)
                if (m != M_TIME_S && strcmp(a->metric[m], b->metric[m])) same = 0;
            g->twin_pairs[d]++;
            g->twin_same[d] += same;
        }
    }
}

/* Success, time to learn, sigma0 and end entropy per (dk, c) of one init, over the seeds. */
static void cell_stats(LawGroup *g, const LawRun *runs, int n, int init)
{
    double *t = mem_alloc(sizeof(double) * (size_t)(n + 1)), *sig = mem_alloc(sizeof(double) * (size_t)(n + 1));
    double *ent = mem_alloc(sizeof(double) * (size_t)(n + 1));
    bool *event = mem_alloc(sizeof(bool) * (size_t)(n + 1));
    for (int d = 0; d < g->nd; d++)
        for (int j = 0; j < g->nk; j++) {
            LawCell *c = &g->cell[init][d][j];
            int ns = 0, ne = 0;
            for (int i = 0; i < n; i++) {
                const Row *r = runs[i].row;
                if (runs[i].init != init || r->dk != g->dks[d] || runs[i].k != g->ks[j]) continue;
                event[c->runs] = isfinite(runs[i].t); /* else censored at its last step */
                t[c->runs] = event[c->runs] ? runs[i].t : r->value[M_STEPS];
                c->learned += event[c->runs];
                c->runs++;
                const OutcomeTask *task = outcome_task(r->job[JOB_TASK]);
                if (task && isfinite(r->value[M_TEST_ACC])) {
                    c->tested++;
                    c->successes += r->value[M_TEST_ACC] >= task->threshold;
                }
                if (isfinite(runs[i].sigma0)) sig[ns++] = runs[i].sigma0;
                if (isfinite(r->value[M_ENTROPY_END])) ent[ne++] = r->value[M_ENTROPY_END];
            }
            c->km_median = c->runs ? stats_km_median(t, event, c->runs).median : NAN;
            c->sigma0 = ns ? stats_quantile(sig, ns, 0.5) : NAN;
            c->entropy_end = ne ? stats_quantile(ent, ne, 0.5) : NAN;
        }
    mem_free(t);
    mem_free(sig);
    mem_free(ent);
    mem_free(event);
}

double law_alpha_at(const LawGroup *g, int init, int s, const double *dks, int nd)
{
    double x[LAW_MAX_DK], y[LAW_MAX_DK];
    int m = 0, missing = 0; /* a seed whose planned grid there is not all done has no alpha yet */
    for (int j = 0; j < nd && m < LAW_MAX_DK; j++) {
        int d = index_of_dk(g, dks[j]);
        if (d < 0) continue;
        x[m] = log2(g->dks[d]); /* log2 s* = k* - log2(dk) / 2 */
        y[m++] = g->kstar[init][d][s] == LAW_NO_C ? NAN : g->kstar[init][d][s] - log2(g->dks[d]) / 2;
        missing += g->missing[init][d][s];
    }
    return missing ? NAN : -slope(x, y, m);
}

/* alpha_i per seed, the median sigma0 per dk and alpha_pred, of one init. */
static void fit_init(LawGroup *g, const LawRun *runs, int n, int init)
{
    for (int s = 0; s < g->ns; s++) g->alpha[init][s] = law_alpha_at(g, init, s, g->dks, g->nd);
    double *lx = mem_alloc(sizeof(double) * (size_t)(n + 1)), *ly = mem_alloc(sizeof(double) * (size_t)(n + 1));
    for (int d = 0; d < g->nd; d++) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (runs[i].init == init && runs[i].row->dk == g->dks[d] && isfinite(runs[i].sigma0) && runs[i].sigma0 > 0)
                ly[k++] = runs[i].sigma0;
        g->sigma0[init][d] = k ? stats_quantile(ly, k, 0.5) : NAN;
    }
    /* s_pred = 1/sigma0: log2 s_pred falls with slope alpha_pred; over every run, and per seed */
    for (int s = -1; s < g->ns; s++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (runs[i].init == init && (s < 0 || runs[i].row->seed == g->seeds[s]) && isfinite(runs[i].sigma0) && runs[i].sigma0 > 0) {
                lx[m] = log2(runs[i].row->dk);
                ly[m++] = log2(runs[i].sigma0);
            }
        if (s < 0) g->alpha_pred[init] = slope(lx, ly, m);
        else g->alpha_pred_seed[init][s] = slope(lx, ly, m);
    }
    mem_free(lx);
    mem_free(ly);
}

/* Adds a run's dk and seed to a group's lists if new. */
static void add_dk_and_seed(LawGroup *g, const Row *r)
{
    if (index_of_dk(g, r->dk) < 0) {
        if (g->nd == LAW_MAX_DK) die(EXIT_USER, "law runs at more than %d dk in one group", LAW_MAX_DK);
        g->dks[g->nd++] = r->dk;
    }
    if (index_of_seed(g, r->seed) < 0) {
        if (g->ns == LAW_MAX_SEEDS) die(EXIT_USER, "law runs of more than %d seeds in one group", LAW_MAX_SEEDS);
        g->seeds[g->ns++] = r->seed;
    }
}

/* Adds c = 2^k to a group's grid if new, keeping it ascending. */
static void add_k(LawGroup *g, int k)
{
    int j = 0;
    while (j < g->nk && g->ks[j] < k) j++;
    if (j < g->nk && g->ks[j] == k) return;
    if (g->nk == LAW_MAX_C) die(EXIT_USER, "law runs at more than %d c in one group", LAW_MAX_C);
    memmove(&g->ks[j + 1], &g->ks[j], sizeof(int) * (size_t)(g->nk - j));
    g->ks[j] = k;
    g->nk++;
}

/* Collects the law runs into groups (sorted) and computes each group's estimates. */
int law_groups_build(LawGroup *gs, const Row *rows, int n_rows)
{
    LawRun *runs = mem_alloc(sizeof(LawRun) * (size_t)(n_rows + 1));
    int *group_of = mem_alloc(sizeof(int) * (size_t)(n_rows + 1));
    int n = 0, ng = 0;
    for (int i = 0; i < n_rows; i++) {
        const Row *r = &rows[i];
        if (!is_law_stage(r->job[JOB_STAGE]) || !r->done) continue;
        LawRun run = law_run(r);
        int gi = find_group(gs, &ng, r, &run);
        add_dk_and_seed(&gs[gi], r);
        add_k(&gs[gi], run.k);
        gs[gi].init_n[run.init]++;
        group_of[n] = gi;
        runs[n++] = run;
    }
    /* the planned runs not done, in the groups that have done runs (at any dk and seed: a tier
     * not yet at its last dk still plans it) */
    int *missing_group = mem_alloc(sizeof(int) * (size_t)(n_rows + 1));
    for (int i = 0; i < n_rows; i++) {
        const Row *r = &rows[i];
        missing_group[i] = -1;
        if (!is_law_stage(r->job[JOB_STAGE]) || r->done) continue;
        LawRun run = law_run(r);
        for (int gi = 0; gi < ng; gi++)
            if (!strcmp(gs[gi].stage, r->job[JOB_STAGE]) && gs[gi].steps == run.steps && gs[gi].lr == r->lr) {
                add_dk_and_seed(&gs[gi], r);
                missing_group[i] = gi;
            }
    }
    for (int gi = 0; gi < ng; gi++) {
        LawGroup *g = &gs[gi];
        qsort(g->dks, (size_t)g->nd, sizeof(double), cmp_double);
        qsort(g->seeds, (size_t)g->ns, sizeof(long), cmp_long);
    }
    for (int i = 0; i < n_rows; i++)
        if (missing_group[i] >= 0) {
            LawGroup *g = &gs[missing_group[i]];
            g->missing[law_run(&rows[i]).init][index_of_dk(g, rows[i].dk)][index_of_seed(g, rows[i].seed)]++;
        }
    mem_free(missing_group);
    /* each group's runs, then its estimates (before sorting the groups: group_of indexes them) */
    LawRun *mine = mem_alloc(sizeof(LawRun) * (size_t)(n + 1));
    for (int gi = 0; gi < ng; gi++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (group_of[i] == gi) mine[m++] = runs[i];
        for (int init = 0; init < LAW_INITS; init++) {
            find_kstar(&gs[gi], mine, m, init);
            for (int d = 0; d < gs[gi].nd; d++) /* a c grid not all done yet has no c* (its best may be still to run) */
                for (int sd = 0; sd < gs[gi].ns; sd++)
                    if (gs[gi].missing[init][d][sd]) gs[gi].kstar[init][d][sd] = LAW_NO_C;
            fit_init(&gs[gi], mine, m, init);
            cell_stats(&gs[gi], mine, m, init);
        }
        count_twins(&gs[gi], mine, m);
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

/* The median of the defined k* over the seeds of one (init, dk), and its 95 % percentile
 * bootstrap interval (resampling those seeds); returns how many seeds are defined. */
int law_median_kstar(const LawGroup *g, int init, int d, double *median, double *lo, double *hi)
{
    double k[LAW_MAX_SEEDS], boot[LAW_MAX_SEEDS];
    int n = 0;
    for (int s = 0; s < g->ns; s++)
        if (g->kstar[init][d][s] != LAW_NO_C) k[n++] = g->kstar[init][d][s];
    *median = *lo = *hi = NAN;
    if (n == 0) return 0;
    double tmp[LAW_MAX_SEEDS];
    memcpy(tmp, k, sizeof(double) * (size_t)n);
    *median = stats_quantile(tmp, n, 0.5);
    if (n < 2) return n;
    double *medians = mem_alloc(sizeof(double) * LAW_BOOTSTRAP);
    Rng st = {20261207}; /* the bootstrap's fixed stream (SplitMix64, tensor/rng.h) */
    for (int b = 0; b < LAW_BOOTSTRAP; b++) {
        for (int i = 0; i < n; i++) boot[i] = k[rng_next(&st) % (uint64_t)n];
        medians[b] = stats_quantile(boot, n, 0.5);
    }
    *lo = stats_quantile(medians, LAW_BOOTSTRAP, 0.025);
    *hi = stats_quantile(medians, LAW_BOOTSTRAP, 0.975);
    mem_free(medians);
    return n;
}

/* The alpha_i of one init that are defined, into a; returns how many. */
int law_defined_alphas(const LawGroup *g, int init, double *a)
{
    int n = 0;
    for (int s = 0; s < g->ns; s++)
        if (isfinite(g->alpha[init][s])) a[n++] = g->alpha[init][s];
    return n;
}


/* ------------------------------------------------------------------ the seeds the experiment needs */

double law_seed_spread(const LawGroup *cal, int init)
{
    double a[LAW_MAX_SEEDS];
    return law_defined_alphas(cal, init, a) == 2 ? fabs(a[0] - a[1]) / sqrt(2.0) : NAN;
}

int law_seeds_needed(const LawGroup *cal, double *sd)
{
    *sd = LAW_SD_FLOOR; /* two seeds underestimate a spread */
    for (int i = 0; i < LAW_INITS; i++) {
        double spread = law_seed_spread(cal, i);
        if (isfinite(spread) && spread > *sd) *sd = spread;
    }
    return stats_t_seeds(LAW_DELTA, *sd, LAW_FAMILY_ALPHA / 6, 5, 100);
}

int law_seeds_planned(const LawGroup *gs, int ng, const LawGroup *g)
{
    if (strcmp(g->stage, "law")) return 0;
    double sd;
    for (int i = 0; i < ng; i++)
        if (!strcmp(gs[i].stage, "cal") && gs[i].steps == g->steps && gs[i].lr == g->lr && gs[i].nd >= 3)
            return law_seeds_needed(&gs[i], &sd);
    return 0;
}

void law_c_text(char *buf, size_t n, double k)
{
    if (isnan(k)) snprintf(buf, n, "–");
    else if (k != floor(k)) snprintf(buf, n, "2^%g", k);
    else if (k < 0) snprintf(buf, n, "1/%.0f", ldexp(1, (int)-k));
    else snprintf(buf, n, "%.0f", ldexp(1, (int)k));
}

/* See report_law_groups.h. A dk where only some pairs are alike is named apart (the same
 * weights would make them all alike). */
void law_write_twins(FILE *f, const LawGroup *g)
{
    for (int whole = 1; whole >= 0; whole--) {
        int first = 1;
        for (int d = 0; d < g->nd; d++) {
            if (!g->twin_same[d] || (g->twin_same[d] == g->twin_pairs[d]) != whole) continue;
            fprintf(f, "%s dₖ %.0f (%d of %d pairs of runs at one c and seed alike in every number of runs.csv but the time)",
                    first ? (whole ? "\nThe two inits are one init at" : "\nSome runs of the two inits are alike at") : ";",
                    g->dks[d], g->twin_same[d], g->twin_pairs[d]);
            first = 0;
        }
        if (!first && whole) fprintf(f, ": with H·dₖ = C, Xavier's Var(W) = 2/(C + H·dₖ) is unit's 1/C, the same weights. Both inits' α use those runs.\n");
        else if (!first) fprintf(f, ", not all: not one init there.\n");
    }
}
