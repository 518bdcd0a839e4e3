/* report_law.c - see report_law.h: law.md (the groups: report_law_groups.c; the figure:
 * report_law_figure.c). Everything from runs.csv's rows, in a fixed order, with fixed formats:
 * the same runs.csv gives the same bytes. */
#include "report_law.h"

#include "report_common.h"
#include "report_law_figure.h"
#include "report_law_grid.h"
#include "report_law_groups.h"
#include "stats.h"
#include "stats_outcomes.h"
#include "stats_t.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ law.md */

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

/* One init's table of a group and its alpha line; planned: the seeds a stage-law group's
 * calibration sized (0: not stage law, or none), to say when alpha-hat is an interim look. */
static void write_init_table(FILE *f, const LawGroup *g, int init, int planned)
{
    fprintf(f, "\n**qk-init=%s** (%d runs)\n\n| dₖ | σ₀ (median) | 1/σ₀ | s* (median c*/√dₖ) |", g_law_inits[init], g->init_n[init]);
    for (int s = 0; s < g->ns; s++) fprintf(f, " seed %ld |", g->seeds[s]);
    fprintf(f, " median c* [95 %% bootstrap] |\n|---:|---:|---:|---:|");
    for (int s = 0; s < g->ns; s++) fprintf(f, "---|");
    fprintf(f, "---|\n");
    for (int d = 0; d < g->nd; d++) {
        int runs_here = 0; /* a dk this init has no run done or planned at: no row */
        for (int s = 0; s < g->ns; s++) runs_here += g->ran[init][d][s] + g->missing[init][d][s];
        if (!runs_here) continue;
        double med, lo, hi;
        int n = law_median_kstar(g, init, d, &med, &lo, &hi);
        char m[32], l[32], h[32];
        law_c_text(m, sizeof m, med);
        law_c_text(l, sizeof l, lo);
        law_c_text(h, sizeof h, hi);
        double sstar = isnan(med) ? NAN : exp2(med) / sqrt(g->dks[d]);
        char star[32];
        if (isnan(sstar)) snprintf(star, sizeof star, "–");
        else snprintf(star, sizeof star, "%.3g", sstar);
        if (isnan(g->sigma0[init][d])) fprintf(f, "| %.0f | – | – | %s |", g->dks[d], star); /* no run done here yet */
        else fprintf(f, "| %.0f | %.3g | %.3g | %s |", g->dks[d], g->sigma0[init][d], 1 / g->sigma0[init][d], star);
        for (int s = 0; s < g->ns; s++) {
            if (!g->ran[init][d][s]) {
                if (g->missing[init][d][s]) fprintf(f, " not run yet (0 of %d c) |", g->missing[init][d][s]);
                else fprintf(f, " – |");
                continue;
            }
            char c[32];
            law_c_text(c, sizeof c, g->kstar[init][d][s] == LAW_NO_C ? NAN : g->kstar[init][d][s]);
            if (g->missing[init][d][s]) fprintf(f, " not all run (%d of %d c) |", g->ran[init][d][s], g->ran[init][d][s] + g->missing[init][d][s]);
            else if (g->kstar[init][d][s] == LAW_NO_C) fprintf(f, " none (0 of %d c) |", g->ran[init][d][s]);
            else fprintf(f, " %s at step %.0f (%d of %d c) |", c, g->tstar[init][d][s], g->learned[init][d][s], g->ran[init][d][s]);
        }
        if (n >= 2) fprintf(f, " %s [%s, %s] (n = %d) |\n", m, l, h, n);
        else fprintf(f, " %s (n = %d) |\n", m, n);
    }
    double a[LAW_MAX_SEEDS];
    int n = law_defined_alphas(g, init, a);
    fprintf(f, "\nα per seed (minus the slope of log₂ s* on log₂ dₖ, at least 3 dₖ):");
    if (g->nd < 3) fprintf(f, " none (%d dₖ)", g->nd);
    for (int s = 0; s < g->ns && g->nd >= 3; s++) {
        if (isfinite(g->alpha[init][s])) fprintf(f, " %ld: %.3f%s", g->seeds[s], g->alpha[init][s] + 0.0, s + 1 < g->ns ? ";" : ""); /* + 0.0: never "-0.000" */
        else fprintf(f, " %ld: –%s", g->seeds[s], s + 1 < g->ns ? ";" : "");
    }
    StatsCi ci = stats_ci95(a, n);
    if (ci.defined && n < planned)
        fprintf(f, ". α̂ = %.3f [%.3f, %.3f] (mean, 95 %% t interval, n = %d: an interim look, %d seeds planned).", ci.mean, ci.lo, ci.hi, n, planned);
    else if (ci.defined) fprintf(f, ". **α̂ = %.3f [%.3f, %.3f]** (mean, 95 %% t interval, n = %d).", ci.mean, ci.lo, ci.hi, n);
    else if (n == 1) fprintf(f, ". α̂ = %.3f (one seed: no interval).", ci.mean);
    else fprintf(f, ".");
    double ap[LAW_MAX_SEEDS];
    int nap = 0;
    for (int s = 0; s < g->ns; s++)
        if (isfinite(g->alpha_pred_seed[init][s])) ap[nap++] = g->alpha_pred_seed[init][s];
    if (isfinite(g->alpha_pred[init]) && nap >= 2) /* its spread: it is taken as known in the tests */
        fprintf(f, " Predicted from σ₀: α_pred = %.3f (per seed, from its own runs: %.3f to %.3f, sd %.3f, n = %d).\n", g->alpha_pred[init],
                stats_quantile(ap, nap, 0), stats_quantile(ap, nap, 1), stats_sd(ap, nap), nap);
    else if (isfinite(g->alpha_pred[init])) fprintf(f, " Predicted from σ₀: α_pred = %.3f.\n", g->alpha_pred[init]);
    else fprintf(f, " Predicted from σ₀: α_pred undefined (σ₀ at fewer than 2 dₖ).\n");
}

/* The seeds the experiment needs, from a calibration group with at least 3 dk (DESIGN.md). */
static void write_seed_sizing(FILE *f, const LawGroup *g)
{
    int missing = 0;
    for (int i = 0; i < LAW_INITS; i++)
        for (int d = 0; d < g->nd; d++)
            for (int s = 0; s < g->ns; s++) missing += g->missing[i][d][s];
    fprintf(f, "\nSeeds for the experiment (DESIGN.md)%s: the spread of α between the two calibration seeds, |α₁ − α₂|/√2:",
            missing ? ", preliminary (runs of the grid not all done)" : "");
    for (int i = 0; i < LAW_INITS; i++) {
        double a[LAW_MAX_SEEDS], spread = law_seed_spread(g, i);
        if (isfinite(spread)) fprintf(f, " %s %.3f;", g_law_inits[i], spread);
        else fprintf(f, " %s undefined (%d seeds with α);", g_law_inits[i], law_defined_alphas(g, i, a));
    }
    double sd;
    int n = law_seeds_needed(g, &sd);
    fprintf(f, " the sd assumed, the larger of these and %.2f: %.3f. The one-sample t test at α = %.5f (Holm's first step of "
               "6) reaches power %.1f against |α − α₀| = %.1f with **n = %d seeds** (exact, noncentral t).\n",
            LAW_SD_FLOOR, sd, LAW_FAMILY_ALPHA / 6, 0.8, LAW_DELTA, n);
}

/* The six pre-registered tests of a stage-law group; planned: the seeds its calibration sized
 * (0: none in the runs). Fewer seeds than planned is an interim look: its numbers are shown,
 * never judged (the tests were sized, and are judged, at the planned n). */
static void write_tests(FILE *f, const LawGroup *g, int planned)
{
    double p[6], adj[6], judged[6], mean[6], sd[6], null[6];
    int n[6];
    const char *names[6];
    for (int i = 0; i < LAW_INITS; i++) {
        double a[LAW_MAX_SEEDS];
        int m = law_defined_alphas(g, i, a);
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
               "(exact: noncentral t, the observed sd). They are judged only at the seeds the calibration sized; with fewer seeds done a row is shown and not judged.\n\n| init | H₀ | α̂ | sd | n | p | Holm p | judged at | verdict |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---|\n",
            LAW_FAMILY_ALPHA);
    for (int t = 0; t < 6; t++) {
        fprintf(f, "| %s | %s", g_law_inits[t / 3], names[t]);
        if (t % 3 == 2 && isfinite(null[t])) fprintf(f, " = %.3f", null[t]);
        if (isnan(p[t])) {
            fprintf(f, " | %s | – | %d | – | – | – | no test (n < 2 or no spread) |\n", n[t] ? "see above" : "–", n[t]);
            continue;
        }
        fprintf(f, " | %.3f | %.3f | %d | %.2g | %.2g | %.4f | ", mean[t], sd[t], n[t], p[t], adj[t], judged[t]);
        if (planned == 0) fprintf(f, "not judged (no calibration of this budget in the runs to size the seeds) |\n");
        else if (n[t] < planned) fprintf(f, "interim, not judged (%d of the %d seeds planned) |\n", n[t], planned);
        else if (adj[t] < LAW_FAMILY_ALPHA) fprintf(f, "α ≠ %.3f |\n", null[t]);
        else fprintf(f, "not distinguishable (MDD %.3f at α %.4f) |\n", stats_mdd_t(sd[t], n[t], judged[t]), judged[t]);
    }
}

/* The robustness arm beside the experiment (DESIGN.md, "The robustness arm's estimate"): under
 * unit init, the seeds' alpha at this rate from its dk, the same seeds' alpha at the experiment's
 * rate from the same dk, and the paired difference; descriptive, no test. */
static void write_robust_comparison(FILE *f, const LawGroup *g, const LawGroup *main)
{
    const int init = 0; /* unit: the arm runs under the premise only */
    double here[LAW_MAX_SEEDS], there[LAW_MAX_SEEDS], diff[LAW_MAX_SEEDS];
    long seed[LAW_MAX_SEEDS];
    int n = 0;
    for (int s = 0; s < g->ns; s++) {
        int sm = 0;
        while (sm < main->ns && main->seeds[sm] != g->seeds[s]) sm++;
        double a = g->alpha[init][s], b = sm < main->ns ? law_alpha_at(main, init, sm, g->dks, g->nd) : NAN;
        if (!isfinite(a) || !isfinite(b)) continue;
        seed[n] = g->seeds[s];
        here[n] = a;
        there[n] = b;
        diff[n++] = a - b;
    }
    fprintf(f, "\nBeside the experiment (lr %s), under unit init, on the seeds with α at both rates, each α from dₖ", main->lr_text);
    for (int d = 0; d < g->nd; d++) fprintf(f, "%s %.0f", d ? (d + 1 < g->nd ? "," : " and") : "", g->dks[d]);
    fprintf(f, " only (descriptive, no test):");
    if (n == 0) {
        fprintf(f, " no seed has α at both rates yet.\n");
        return;
    }
    StatsCi a = stats_ci95(here, n), b = stats_ci95(there, n), d = stats_ci95(diff, n);
    if (n < 2) {
        fprintf(f, " one seed (%ld): α %.3f here, %.3f at lr %s, a difference of %+.3f (no interval).\n", seed[0], here[0], there[0],
                main->lr_text, diff[0] + 0.0);
        return;
    }
    fprintf(f, "\n\n| lr | α̂ [95 %% t] | n |\n|---|---|---:|\n| %s (this arm) | %.3f [%.3f, %.3f] | %d |\n"
               "| %s (the experiment) | %.3f [%.3f, %.3f] | %d |\n| paired difference, %s − %s | %+.3f [%+.3f, %+.3f] | %d |\n",
            g->lr_text, a.mean, a.lo, a.hi, n, main->lr_text, b.mean, b.lo, b.hi, n, g->lr_text, main->lr_text, d.mean + 0.0, d.lo + 0.0, d.hi + 0.0, n);
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
               "bootstrap interval (%d resamples, fixed seed). Success, steps to learn, σ₀ and end entropy against c at each "
               "dₖ: [law_grid.md](law_grid.md).\n",
            LAW_BOOTSTRAP);
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
        int planned = law_seeds_planned(gs, ng, g);
        for (int i = 0; i < LAW_INITS; i++)
            if (g->init_n[i]) write_init_table(f, g, i, planned);
        law_write_twins(f, g);
        if (!strcmp(g->stage, "cal") && g->nd >= 3) write_seed_sizing(f, g);
        if (!strcmp(g->stage, "law")) write_tests(f, g, planned);
        if (!strcmp(g->stage, "robust")) {
            const LawGroup *main = NULL; /* the experiment at the same steps */
            for (int j = 0; j < ng; j++)
                if (!strcmp(gs[j].stage, "law") && gs[j].steps == g->steps) main = &gs[j];
            if (main) write_robust_comparison(f, g, main);
        }
    }
    out_close(&o);
}

int write_law(const char *dir, const Row *rows, int n_rows)
{
    static LawGroup gs[LAW_MAX_GROUPS];
    int ng = law_groups_build(gs, rows, n_rows);
    if (ng == 0) return 0;
    write_law_md(dir, gs, ng);
    write_law_grid(dir, gs, ng);
    return write_law_svg(dir, gs, ng) ? 3 : 2;
}
