/* report_outcomes.c - see report_outcomes.h. Everything from runs.csv's rows, in a fixed order,
 * with fixed formats: the same runs.csv gives the same bytes. */
#include "report_outcomes.h"

#include "../../tensor/progress.h"

#include "report_common.h"
#include "stats.h"
#include "stats_power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

OutcomeVerdict outcome_verdict(double p_corrected, double effect)
{
    if (isnan(p_corrected) || isnan(effect)) return OUTCOME_NO_TEST;
    if (p_corrected < OUTCOME_ALPHA && effect > 0) return OUTCOME_HIGHER;
    if (p_corrected < OUTCOME_ALPHA && effect < 0) return OUTCOME_LOWER;
    return OUTCOME_NOT_DISTINCT;
}

bool outcome_counts(const Row *r) { return r->done && isfinite(r->value[M_TEST_ACC]); }

/* The steps of run r to the loss threshold: the step it reached it (event), or its last step
 * (censored: steps_to_threshold = -1). False when the run has neither. */
static bool steps_of(const Row *r, double *t, bool *event)
{
    double s = r->value[M_STEPS_TO_THRESHOLD];
    *event = s >= 0;
    *t = *event ? s : r->value[M_STEPS];
    return isfinite(*t);
}

/* The times of a cell's runs; returns how many (room for c->n). */
static int cell_times(const Cell *c, double *t, bool *e)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        if (outcome_counts(c->runs[i]) && steps_of(c->runs[i], &t[n], &e[n])) n++;
    return n;
}

OutcomeCell outcome_cell(const Cell *c, const OutcomeTask *t)
{
    OutcomeCell o = {0, 0, {NAN, NAN, NAN}, {NAN, 0, 0}};
    for (int i = 0; i < c->n; i++)
        if (outcome_counts(c->runs[i])) {
            o.n++;
            o.successes += c->runs[i]->value[M_TEST_ACC] >= t->threshold;
        }
    o.wilson = stats_wilson(o.successes, o.n);
    double *times = mem_alloc(sizeof(double) * (size_t)c->n);
    bool *events = mem_alloc(sizeof(bool) * (size_t)c->n);
    o.km = stats_km_median(times, events, cell_times(c, times, events));
    mem_free(times);
    mem_free(events);
    return o;
}

const Cell *outcome_find(const Cells *cs, const char *task, const char *optim, const OutcomeSide *s, double dk)
{
    const Cell *best = NULL;
    for (int k = 0; k < cs->n_stages; k++) {
        const char *stage = cell_row(&cs->cell[cs->stage_from[k]])->job[JOB_STAGE];
        if (!strcmp(stage, LR_STAGE)) continue;
        CellKey key = {stage, task, optim, s->variant, s->scale, dk, NAN};
        const Cell *c = cells_best(cs, &key);
        if (c && (!best || c->done > best->done)) best = c;
    }
    return best;
}

/* The test accuracies a - b paired by seed, into d (room for a->n); returns how many. */
static int paired_diffs(const Cell *a, const Cell *b, double *d)
{
    long *sa = mem_alloc(sizeof(long) * (size_t)a->n), *sb = mem_alloc(sizeof(long) * (size_t)b->n);
    double *va = mem_alloc(sizeof(double) * (size_t)a->n), *vb = mem_alloc(sizeof(double) * (size_t)b->n);
    int na = 0, nb = 0;
    for (int i = 0; i < a->n; i++)
        if (outcome_counts(a->runs[i])) {
            sa[na] = a->runs[i]->seed;
            va[na++] = a->runs[i]->value[M_TEST_ACC];
        }
    for (int i = 0; i < b->n; i++)
        if (outcome_counts(b->runs[i])) {
            sb[nb] = b->runs[i]->seed;
            vb[nb++] = b->runs[i]->value[M_TEST_ACC];
        }
    int n = stats_paired(sa, va, na, sb, vb, nb, d, a->n);
    mem_free(sa);
    mem_free(sb);
    mem_free(va);
    mem_free(vb);
    return n;
}

/* The statistics of one contrast whose task, optim, dk and sides are set (the correction and
 * the verdict come after, over all contrasts of its family). */
/* A line now and then while the contrasts are measured (tensor/progress.h: nothing for the first
 * seconds, so a study of ordinary size prints nothing): a runs.csv of 1e5 runs takes a while. */
static Progress g_progress;
static long g_progress_done;

static void contrast_measure(const Cells *cs, OutcomeContrast *c)
{
    c->ca = outcome_find(cs, c->task->task, c->optim, &c->a, c->dk);
    c->cb = outcome_find(cs, c->task->task, c->optim, &c->b, c->dk);
    c->fisher_p = c->sign_flip_p = c->logrank_p = c->p = c->p_corrected = c->effect = c->mdd_up = c->mdd_down = c->alpha = c->sd_pairs = NAN;
    c->diff = stats_ci95(NULL, 0);
    c->rate_diff = (StatsInterval){NAN, NAN, NAN};
    c->sign_flip_exact = true;
    if (!c->ca || !c->cb) return;
    c->oa = outcome_cell(c->ca, c->task);
    c->ob = outcome_cell(c->cb, c->task);
    c->fisher_p = stats_fisher(c->oa.successes, c->oa.n, c->ob.successes, c->ob.n);
    c->rate_diff = stats_newcombe(c->oa.successes, c->oa.n, c->ob.successes, c->ob.n);
    double *d = mem_alloc(sizeof(double) * (size_t)c->ca->n);
    int n = paired_diffs(c->ca, c->cb, d);
    c->diff = stats_ci95(d, n);
    c->sign_flip_p = stats_sign_flip(d, n, &c->sign_flip_exact);
    int na = c->ca->n, nb = c->cb->n;
    double *ta = mem_alloc(sizeof(double) * (size_t)na), *tb = mem_alloc(sizeof(double) * (size_t)nb);
    bool *ea = mem_alloc(sizeof(bool) * (size_t)na), *eb = mem_alloc(sizeof(bool) * (size_t)nb);
    na = cell_times(c->ca, ta, ea);
    nb = cell_times(c->cb, tb, eb);
    c->logrank_p = stats_logrank(ta, ea, na, tb, eb, nb);
    if (c->task->test == OUTCOME_FISHER) {
        c->p = c->fisher_p;
        c->effect = c->rate_diff.est;
        c->n_mdd = c->oa.n < c->ob.n ? c->oa.n : c->ob.n;
    } else {
        c->p = c->sign_flip_p;
        c->effect = c->diff.mean;
        c->sd_pairs = stats_sd(d, n);
        c->n_mdd = n;
    }
    mem_free(d);
    mem_free(ta);
    mem_free(tb);
    mem_free(ea);
    mem_free(eb);
    progress_update(&g_progress, ++g_progress_done);
}

static bool same_side(const OutcomeSide *x, const OutcomeSide *y) { return !strcmp(x->variant, y->variant) && !strcmp(x->scale, y->scale); }

static bool is_primary(const char *optim, double dk, const OutcomeSide *a, const OutcomeSide *b)
{
    for (int i = 0; i < g_n_primary_contrasts; i++) {
        const PrimaryContrast *p = &g_primary_contrasts[i];
        if (!strcmp(p->optim, optim) && p->dk == dk && same_side(&p->a, a) && same_side(&p->b, b)) return true;
    }
    return false;
}

/* Appends a contrast (growing the array). */
static OutcomeContrast *push(OutcomeContrast **v, int *n, int *cap)
{
    *v = mem_grow_array(*v, *n, cap, sizeof(OutcomeContrast), 64);
    OutcomeContrast *c = &(*v)[(*n)++];
    memset(c, 0, sizeof *c);
    return c;
}

/* The secondaries: each cell of a table task (its key once: in the stage outcome_find picks)
 * against 1/√dₖ of its own variant, or of the plain model when its variant has no 1/√dₖ cell
 * or it is one; the primaries left out. */
static void add_secondaries(const Cells *cs, OutcomeContrast **v, int *n, int *cap)
{
    for (int i = 0; i < cs->n; i = cells_group_end(cs, i, KEYS_DK)) {
        const Row *k = cell_row(&cs->cell[i]);
        const OutcomeTask *t = outcome_task(k->job[JOB_TASK]);
        if (!t || !strcmp(k->job[JOB_STAGE], LR_STAGE)) continue;
        OutcomeSide a = {k->job[JOB_VARIANT], k->job[JOB_SCALE]}, b = {k->job[JOB_VARIANT], g_scale_rule};
        const Cell *ca = outcome_find(cs, t->task, k->job[JOB_OPTIM], &a, k->dk);
        if (!ca || strcmp(cell_row(ca)->job[JOB_STAGE], k->job[JOB_STAGE])) continue; /* its key in another stage */
        bool own_sqrt = !scale_is_rule(a.scale) && outcome_find(cs, t->task, k->job[JOB_OPTIM], &b, k->dk);
        if (!own_sqrt) b.variant = "-";
        if (same_side(&a, &b) || !outcome_find(cs, t->task, k->job[JOB_OPTIM], &b, k->dk)) continue;
        if (is_primary(k->job[JOB_OPTIM], k->dk, &a, &b)) continue;
        OutcomeContrast *c = push(v, n, cap);
        *c = (OutcomeContrast){.task = t, .optim = k->job[JOB_OPTIM], .dk = k->dk, .a = a, .b = b, .primary = false};
        contrast_measure(cs, c);
    }
}

/* The MDD of a contrast's test at the alpha it is judged at (power STATS_POWER), dir +1 for a
 * above b, -1 below: Fisher's around b's observed rate (the reference), the sign-flip test's from
 * the sd of the paired differences (the same both ways). */
static double contrast_mdd(const OutcomeContrast *c, int dir)
{
    if (isnan(c->p) || isnan(c->alpha)) return NAN;
    if (c->task->test == OUTCOME_FISHER) return stats_mdd_fisher(c->ob.wilson.est, c->oa.n, c->ob.n, c->alpha, dir);
    return stats_mdd_sign_flip(c->sd_pairs, c->n_mdd, c->alpha);
}

/* Corrects the p of the contrasts [from, to) together (Holm or BH) and judges each, with its
 * MDD at the alpha its own p is judged at. */
static void correct_and_judge(OutcomeContrast *v, int from, int to, bool holm)
{
    int m = to - from;
    size_t bytes = sizeof(double) * (size_t)(m ? m : 1);
    double *p = mem_alloc(bytes), *adj = mem_alloc(bytes), *alpha = mem_alloc(bytes);
    for (int i = 0; i < m; i++) p[i] = v[from + i].p;
    if (holm) {
        stats_holm(p, m, adj);
        stats_holm_alpha(p, m, OUTCOME_ALPHA, alpha);
    } else {
        stats_bh(p, m, adj);
        stats_bh_alpha(p, m, OUTCOME_ALPHA, alpha);
    }
    for (int i = 0; i < m; i++) {
        OutcomeContrast *c = &v[from + i];
        c->p_corrected = adj[i];
        c->alpha = alpha[i];
        c->mdd_up = contrast_mdd(c, 1);
        c->mdd_down = contrast_mdd(c, -1);
        c->verdict = outcome_verdict(adj[i], c->effect);
    }
    mem_free(p);
    mem_free(adj);
    mem_free(alpha);
}

int outcome_contrasts(const Cells *cs, OutcomeContrast **out)
{
    OutcomeContrast *v = NULL;
    int n = 0, cap = 0;
    g_progress_done = 0;
    progress_start(&g_progress, "report: outcome contrasts measured", 0);
    for (int t = 0; t < g_n_outcome_tasks; t++)
        for (int i = 0; i < g_n_primary_contrasts; i++) {
            const PrimaryContrast *p = &g_primary_contrasts[i];
            OutcomeContrast *c = push(&v, &n, &cap);
            *c = (OutcomeContrast){.task = &g_outcome_tasks[t], .optim = p->optim, .dk = p->dk, .a = p->a, .b = p->b, .primary = true};
            contrast_measure(cs, c);
        }
    int primaries = n;
    add_secondaries(cs, &v, &n, &cap);
    correct_and_judge(v, 0, primaries, true);
    correct_and_judge(v, primaries, n, false);
    *out = v;
    return n;
}

static void mdd_text(char *buf, size_t n, double mdd)
{
    if (isfinite(mdd)) snprintf(buf, n, "%.3f", mdd);
    else snprintf(buf, n, "none");
}

void outcome_verdict_text(char *buf, size_t n, const OutcomeContrast *c)
{
    switch (c->verdict) {
    case OUTCOME_HIGHER: snprintf(buf, n, "higher"); break;
    case OUTCOME_LOWER: snprintf(buf, n, "lower"); break;
    case OUTCOME_NOT_DISTINCT:
        if (c->task->test != OUTCOME_FISHER && isfinite(c->mdd_up))
            snprintf(buf, n, "not distinguishable (MDD ±%.3f at α %.3g)", c->mdd_up, c->alpha);
        else if (isnan(c->mdd_up) && isnan(c->mdd_down))
            snprintf(buf, n, "not distinguishable (MDD: none either way at n = %d, α %.3g)", c->n_mdd, c->alpha);
        else {
            char up[32], down[32];
            mdd_text(up, sizeof up, c->mdd_up);
            mdd_text(down, sizeof down, c->mdd_down);
            snprintf(buf, n, "not distinguishable (MDD +%s / −%s at α %.3g)", up, down, c->alpha);
        }
        break;
    case OUTCOME_NO_TEST:
        if (!c->ca && !c->cb) snprintf(buf, n, "no test (not run)");
        else if (!c->ca || !c->cb) snprintf(buf, n, "no test (%s not run)", c->ca ? "b" : "a");
        else snprintf(buf, n, "no test (no pair of runs)");
        break;
    }
}

/* ------------------------------------------------------------------ outcomes.md */

static void side_text(char *buf, size_t n, const OutcomeSide *s)
{
    if (!strcmp(s->variant, "-")) snprintf(buf, n, "%s", scale_label(s->scale, SCALE_MARKDOWN));
    else if (scale_is_none(s->scale)) snprintf(buf, n, "`%s`", s->variant);
    else snprintf(buf, n, "`%s` %s", s->variant, scale_label(s->scale, SCALE_MARKDOWN));
}

/* A p-value: 3 significant digits, "–" for none. */
static void p_text(char *buf, size_t n, double p)
{
    if (isnan(p)) snprintf(buf, n, "–");
    else snprintf(buf, n, "%.3g", p);
}

static void km_text(char *buf, size_t n, const OutcomeCell *o)
{
    int runs = o->km.events + o->km.censored;
    if (runs == 0) snprintf(buf, n, "–");
    else if (isnan(o->km.median)) snprintf(buf, n, "not reached (%d of %d)", o->km.events, runs);
    else snprintf(buf, n, "%.0f (%d of %d)", o->km.median, o->km.events, runs);
}

static void counts_text(char *buf, size_t n, const OutcomeCell *o)
{
    if (o->n == 0) snprintf(buf, n, "–");
    else snprintf(buf, n, "%d/%d [%.2f, %.2f]", o->successes, o->n, o->wilson.lo, o->wilson.hi);
}

static void cells_table(FILE *f, const Cells *cs)
{
    fprintf(f, "\n## Cells\n\nEach at its rate of the highest mean validation accuracy. Successes: runs whose test accuracy "
               "reaches the task's threshold, of the done runs, with the 95 %% Wilson interval of the rate. Steps: the "
               "Kaplan–Meier median of the step at which the mean training loss first fell to ./train's "
               "--loss-threshold (runs that never did are censored at their last step; \"not reached\": the curve never "
               "falls to 1/2), and how many runs reached it.\n\n"
               "| stage | task · optim | variant | s | dₖ | lr | successes [95 %%] | test accuracy | steps to the loss "
               "threshold: median (reached) |\n|---|---|---|---|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < cs->n; i = cells_group_end(cs, i, KEYS_DK)) {
        const Row *k = cell_row(&cs->cell[i]);
        const OutcomeTask *t = outcome_task(k->job[JOB_TASK]);
        if (!t || !strcmp(k->job[JOB_STAGE], LR_STAGE)) continue;
        const Cell *c = cells_best_of(cs, i, cells_group_end(cs, i, KEYS_DK));
        if (!c) c = &cs->cell[i];
        OutcomeCell o = outcome_cell(c, t);
        char ct[64], kt[64], acc[64];
        counts_text(ct, sizeof ct, &o);
        km_text(kt, sizeof kt, &o);
        if (c->test.defined) snprintf(acc, sizeof acc, "%.3f ± %.3f", c->test.mean, c->test.half);
        else if (c->test.n) snprintf(acc, sizeof acc, "%.3f", c->test.mean);
        else snprintf(acc, sizeof acc, "–");
        fprintf(f, "| %s | %s · %s | %s | %s | %s | %s | %s | %s | %s |\n", k->job[JOB_STAGE], k->job[JOB_TASK],
                k->job[JOB_OPTIM], k->job[JOB_VARIANT], scale_label(k->job[JOB_SCALE], SCALE_MARKDOWN), k->job[JOB_DK],
                cell_row(c)->job[JOB_LR], ct, acc, kt);
    }
}

static void contrast_rows(FILE *f, const OutcomeContrast *v, int from, int to, const char *correction)
{
    fprintf(f, "| task · optim | dₖ | a − b | successes a; b | Δ success rate [95 %%] | Fisher p | pairs | Δ accuracy ± "
               "95 %% CI | sign-flip p | log-rank p | test | p → %s | verdict |\n"
               "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---|---|---|\n", correction);
    for (int i = from; i < to; i++) {
        const OutcomeContrast *c = &v[i];
        char sa[96], sb[96], cnt[64] = "–", rate[64] = "–", fp[32], sf[40], lr[32], diff[64] = "–", p[32], pc[32], verdict[96];
        side_text(sa, sizeof sa, &c->a);
        side_text(sb, sizeof sb, &c->b);
        if (c->ca && c->cb) {
            snprintf(cnt, sizeof cnt, "%d/%d; %d/%d", c->oa.successes, c->oa.n, c->ob.successes, c->ob.n);
            if (!isnan(c->rate_diff.est))
                snprintf(rate, sizeof rate, "%+.2f [%+.2f, %+.2f]", c->rate_diff.est, c->rate_diff.lo, c->rate_diff.hi);
            if (c->diff.defined) snprintf(diff, sizeof diff, "%+.3f ± %.3f", c->diff.mean, c->diff.half);
            else if (c->diff.n) snprintf(diff, sizeof diff, "%+.3f", c->diff.mean);
        }
        p_text(fp, sizeof fp, c->fisher_p);
        p_text(sf, sizeof sf, c->sign_flip_p);
        if (!c->sign_flip_exact && !isnan(c->sign_flip_p)) strncat(sf, " (MC)", sizeof sf - strlen(sf) - 1);
        p_text(lr, sizeof lr, c->logrank_p);
        p_text(p, sizeof p, c->p);
        p_text(pc, sizeof pc, c->p_corrected);
        outcome_verdict_text(verdict, sizeof verdict, c);
        fprintf(f, "| %s · %s | %.0f | %s − %s | %s | %s | %s | %d | %s | %s | %s | %s | %s → %s | %s |\n", c->task->task,
                c->optim, c->dk, sa, sb, cnt, rate, fp, c->diff.n, diff, sf, lr,
                c->task->test == OUTCOME_FISHER ? "Fisher" : "sign-flip", p, pc, verdict);
    }
}

/* Where a task's sweeps ran fewer seeds per rate than the design gives it (the design grew after
 * they ran: DESIGN.md's amendments), a line that says so. */
static void sweep_seeds_note(FILE *f, const Cells *cs)
{
    for (int t = 0; t < g_n_outcome_tasks; t++) {
        const OutcomeTask *task = &g_outcome_tasks[t];
        int lo = -1, hi = -1;
        for (int i = 0; i < cs->n; i++) {
            const Row *k = cell_row(&cs->cell[i]);
            if (strcmp(k->job[JOB_STAGE], LR_STAGE) || strcmp(k->job[JOB_TASK], task->task)) continue;
            int d = cs->cell[i].done;
            if (lo < 0 || d < lo) lo = d;
            if (d > hi) hi = d;
        }
        if (lo < 0 || lo >= task->sweep_seeds) continue;
        char seeds[32];
        if (lo == hi) snprintf(seeds, sizeof seeds, "%d", lo);
        else snprintf(seeds, sizeof seeds, "%d to %d", lo, hi);
        fprintf(f, "\nThe sweeps of %s as run: %s seeds per rate, fewer than the %d the design gives it "
                   "(docs/ablation/DESIGN.md, amendments).\n", task->task, seeds, task->sweep_seeds);
    }
}

bool write_outcomes(const char *dir, const Cells *cs)
{
    bool any = false;
    for (int i = 0; i < cs->n && !any; i++) {
        const Row *k = cell_row(&cs->cell[i]);
        any = outcome_task(k->job[JOB_TASK]) && strcmp(k->job[JOB_STAGE], LR_STAGE);
    }
    if (!any) return false;
    OutcomeContrast *v;
    int n = outcome_contrasts(cs, &v), primaries = 0, tested_p = 0, tested_s = 0;
    for (int i = 0; i < n; i++) {
        primaries += v[i].primary;
        if (!isnan(v[i].p)) v[i].primary ? tested_p++ : tested_s++;
    }
    OutFile o;
    FILE *f = out_open(&o, dir, "outcomes.md");
    fprintf(f, "# Scale ablation: outcomes\n\n"
               "Generated by `./report` from runs.csv alone: no number or verdict here is typed in. The tasks, their "
               "success thresholds and the test that decides each task's verdicts, and the primary contrasts, are the "
               "tables of lab/study/report_outcome_table.c (quoted in docs/ablation/DESIGN.md, \"Pre-registration\"):\n\n");
    outcome_table_markdown(f);
    sweep_seeds_note(f, cs);
    fprintf(f, "\nThe verdict on a − b: \"higher\" or \"lower\" (the sign of the task's effect: the difference of success "
               "rates for Fisher's test, the mean paired difference of test accuracy for the sign-flip test) when the "
               "corrected p of the task's test is below %.2f; else \"not distinguishable\", with the minimum detectable "
               "difference (MDD) of that test at that n and at the α its own p is judged at (its step: Holm %.2f / (m − j + 1), "
               "BH %.2f j / m, j its rank among the m tested), power 0.8, from the exact power of the test itself: "
               "Fisher's, summed over its rejection region, b's runs binomial at b's observed rate and a's at a rate "
               "above it (+) or below it (−), \"none\" where no rate on that side reaches the power; the sign-flip "
               "test's (±), simulated with %d samples of normal paired differences (fixed seed), in units of their "
               "observed sd. The other p-values are shown uncorrected, for reading only. Fisher: two-sided, exact. "
               "Sign-flip: exact over all 2ⁿ sign vectors for n ≤ %d pairs (paired by seed), Monte Carlo beyond (MC). "
               "Log-rank: on the steps to the loss threshold, asymptotic (rough at a few runs). Δ success rate: "
               "Newcombe's interval. Each side's cell: from the stage (not `%s`) holding it with the most done runs, at the rate "
               "its sweep chose.\n",
            OUTCOME_ALPHA, OUTCOME_ALPHA, OUTCOME_ALPHA, STATS_POWER_DRAWS, STATS_EXACT_FLIPS_MAX, LR_STAGE);
    cells_table(f, cs);
    fprintf(f, "\n## Primary contrasts: Holm over the %d tested (of %d planned)\n\n", tested_p, primaries);
    contrast_rows(f, v, 0, primaries, "Holm");
    fprintf(f, "\n## Secondary contrasts: Benjamini–Hochberg over the %d tested\n\n"
               "Every other cell of these tasks against 1/√dₖ of its own variant (or of the plain model, for a variant "
               "without a scale or at 1/√dₖ), at the same optimizer and dₖ.\n\n", tested_s);
    if (n > primaries) contrast_rows(f, v, primaries, n, "BH");
    else fprintf(f, "None.\n");
    out_close(&o);
    mem_free(v);
    return true;
}
