/* report_law_grid.c - see report_law_grid.h. Fixed formats: the same runs.csv gives the same
 * bytes. */
#include "report_law_grid.h"

#include "report_common.h"
#include "stats_outcomes.h"

#include <math.h>

/* c = 2^k as text: "1/4", "1", "8". */
static void c_label(char *buf, size_t n, int k)
{
    if (k < 0) snprintf(buf, n, "1/%.0f", ldexp(1, -k));
    else snprintf(buf, n, "%.0f", ldexp(1, k));
}

static void write_grid_table(FILE *f, const LawGroup *g, int init)
{
    fprintf(f, "\n**qk-init=%s**\n\n| dₖ | c | s = c/√dₖ | runs | learned | Kaplan–Meier median steps to learn | successes [95 %% Wilson] "
               "| σ₀ (median) | end entropy (median) |\n|---:|---:|---:|---:|---:|---:|---|---:|---:|\n",
            g_law_inits[init]);
    for (int d = 0; d < g->nd; d++)
        for (int j = 0; j < g->nk; j++) {
            const LawCell *c = &g->cell[init][d][j];
            if (c->runs == 0) continue;
            char cl[16], med[32], succ[64];
            c_label(cl, sizeof cl, g->ks[j]);
            if (isnan(c->km_median)) snprintf(med, sizeof med, "not reached");
            else snprintf(med, sizeof med, "%.0f", c->km_median);
            StatsInterval w = stats_wilson(c->successes, c->tested);
            if (c->tested) snprintf(succ, sizeof succ, "%d/%d [%.2f, %.2f]", c->successes, c->tested, w.lo, w.hi);
            else snprintf(succ, sizeof succ, "–");
            fprintf(f, "| %.0f | %s | %.3g | %d | %d/%d | %s | %s | %.3g | %.3f |\n", g->dks[d], cl, ldexp(1, g->ks[j]) / sqrt(g->dks[d]),
                    c->runs, c->learned, c->runs, med, succ, c->sigma0, c->entropy_end);
        }
}

void write_law_grid(const char *dir, const LawGroup *gs, int ng)
{
    OutFile o;
    FILE *f = out_open(&o, dir, "law_grid.md");
    fprintf(f, "# The law: outcomes against c at each dₖ\n\n"
               "Made by ./report from runs.csv (the law's stages, as law.md). A row: the done runs of one (dₖ, c) over the "
               "seeds. Learned: the loss threshold reached within the budget; the Kaplan–Meier median of the steps to it (a run "
               "that never reached it censored at its last step; \"not reached\": the curve stays above ½). Successes: test "
               "accuracy at the end at least the task's threshold (outcomes.md's), with a 95 %% Wilson interval. σ₀: the raw "
               "q·k std at step 1 (score_std_init / s). End entropy: the attention entropy over log(keys) at the last step.\n");
    for (int gi = 0; gi < ng; gi++) {
        const LawGroup *g = &gs[gi];
        fprintf(f, "\n## %s: %d steps at lr %s\n", g->stage, g->steps, g->lr_text);
        for (int i = 0; i < LAW_INITS; i++)
            if (g->init_n[i]) write_grid_table(f, g, i);
    }
    out_close(&o);
}
