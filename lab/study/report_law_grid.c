/* report_law_grid.c - see report_law_grid.h. Fixed formats: the same runs.csv gives the same
 * bytes. */
#include "report_law_grid.h"

#include "report_common.h"
#include "report_figure.h"
#include "report_law_figure.h"
#include "stats_outcomes.h"

#include <assert.h>
#include <math.h>

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
            law_c_text(cl, sizeof cl, g->ks[j]);
            if (isnan(c->km_median)) snprintf(med, sizeof med, "not reached");
            else snprintf(med, sizeof med, "%.0f", c->km_median);
            StatsInterval w = stats_wilson(c->successes, c->tested);
            if (c->tested) snprintf(succ, sizeof succ, "%d/%d [%.2f, %.2f]", c->successes, c->tested, w.lo, w.hi);
            else snprintf(succ, sizeof succ, "–");
            fprintf(f, "| %.0f | %s | %.3g | %d | %d/%d | %s | %s | %.3g | %.3f |\n", g->dks[d], cl, ldexp(1, g->ks[j]) / sqrt(g->dks[d]),
                    c->runs, c->learned, c->runs, med, succ, c->sigma0, c->entropy_end);
        }
}

/* The multipliers the articles' claims name (study scale names; s from model/scale_table.c):
 * no scale, the rule, 1/dk and the constant 1/8. */
static const char *const g_named_scales[] = {"1", "sqrt", "dk", "8"};

/* The grid's cells at those multipliers: s = c/sqrt(dk) is a grid point where c = s sqrt(dk)
 * is a power of 2 that ran (1/dk and 1/8 are at even log2 dk only; between two points at
 * the others). Descriptive: the calibrated rate for every cell, no test. */
static void write_named_table(FILE *f, const LawGroup *g)
{
    fprintf(f, "\n### The claims' multipliers in the grid\n\nThe cells above at the multipliers the articles' claims name: "
               "learned of runs (the Kaplan–Meier median steps to learn; \"–\": not reached by half). \"Not a grid point\": c = "
               "s·√dₖ is not a power of 2 there; \"outside the grid\": beyond its c. Descriptive: every cell at the one rate above, no test.\n\n| init | s |");
    for (int d = 0; d < g->nd; d++) fprintf(f, " dₖ %.0f |", g->dks[d]);
    fprintf(f, "\n|---|---|");
    for (int d = 0; d < g->nd; d++) fprintf(f, "---|");
    fprintf(f, "\n");
    for (int i = 0; i < LAW_INITS; i++) {
        if (!g->init_n[i]) continue;
        for (size_t r = 0; r < sizeof g_named_scales / sizeof g_named_scales[0]; r++) {
            double cc;
            const ScaleRow *sr = scale_row_find(g_named_scales[r], &cc);
            assert(sr);
            fprintf(f, "| %s | %s |", g_law_inits[i], scale_label(g_named_scales[r], SCALE_MARKDOWN));
            for (int d = 0; d < g->nd; d++) {
                double k = log2(scale_row_s(sr, cc, (int)g->dks[d]) * sqrt(g->dks[d]));
                int j = -1;
                for (int q = 0; q < g->nk; q++)
                    if (fabs(k - g->ks[q]) < 1e-9) j = q;
                const LawCell *c = j >= 0 ? &g->cell[i][d][j] : NULL;
                if (fabs(k - round(k)) > 1e-9) fprintf(f, " not a grid point |");
                else if (g->nk == 0 || k < g->ks[0] || k > g->ks[g->nk - 1]) fprintf(f, " outside the grid |");
                else if (!c || c->runs == 0) fprintf(f, " not run |");
                else if (isnan(c->km_median)) fprintf(f, " %d/%d (–) |", c->learned, c->runs);
                else fprintf(f, " %d/%d (%.0f) |", c->learned, c->runs, c->km_median);
            }
            fprintf(f, "\n");
        }
    }
}

/* ------------------------------------------------------------------ law_grid.svg */

/* A colour and a marker per dk drawn, in order (they repeat past 8). */
static SvgStyle dk_style(int d)
{
    static const char *const colors[8] = {"#440154", "#46327e", "#365c8d", "#277f8e", "#1fa187", "#4ac16d", "#a0da39", "#d4b800"};
    static const SvgShape shapes[8] = {SVG_CIRCLE, SVG_SQUARE, SVG_TRIANGLE, SVG_DIAMOND, SVG_CROSS, SVG_PLUS, SVG_CIRCLE, SVG_SQUARE};
    SvgStyle st = {colors[d % 8], NULL, shapes[d % 8], 1.5, d % 8 >= 6 ? SVG_HOLLOW : SVG_FILLED};
    return st;
}

/* Two rows of panels, a column per init: the share of seeds that learned, and the Kaplan-Meier
 * median steps to learn, against c, a line per dk. */
static void draw_grid_svg(const char *dir, const LawGroup *g)
{
    char title[256], subtitle[1024];
    snprintf(title, sizeof title, "Success and time to learn against c = s sqrt(dk) (stage %s, %d steps at lr %s)", g->stage, g->steps,
             g->lr_text);
    snprintf(subtitle, sizeof subtitle,
             "A line per dk, a point per c over the seeds done there (law_grid.md's rows). Top: the share of runs that reached "
             "the loss threshold within the budget. Bottom: their Kaplan-Meier median steps to it (no point: not reached by "
             "half). Dotted grey: c = 1, i.e. s = 1/sqrt(dk).");
    double cs[LAW_MAX_C], ticks[LAW_MAX_C];
    int nt = 0, used[LAW_MAX_DK], nu = 0; /* every other c labelled (their labels would overlap); the dk with runs */
    for (int j = 0; j < g->nk; j++) {
        cs[j] = ldexp(1, g->ks[j]);
        if (j % 2 == 0) ticks[nt++] = cs[j];
    }
    for (int d = 0; d < g->nd; d++) {
        int runs = 0;
        for (int i = 0; i < LAW_INITS; i++)
            for (int j = 0; j < g->nk; j++) runs += g->cell[i][d][j].runs;
        if (runs) used[nu++] = d;
    }
    int width = figure_width(MARGIN + LAW_INITS * (PANEL_W + MARGIN) + LEGEND_W), top = figure_top(width, title, subtitle);
    Plot plot;
    Svg *s = plot_open(&plot, dir, "law_grid.svg", width, top + 2 * PANEL_H + MARGIN + 100);
    SvgStyle rule_style = {"#888888", "2,3", SVG_NO_MARKER, 1, SVG_FILLED};
    for (int i = 0; i < LAW_INITS; i++)
        for (int row = 0; row < 2; row++) {
            char ptitle[128];
            snprintf(ptitle, sizeof ptitle, "qk-init=%s: %s", g_law_inits[i], row ? "median steps to learn" : "share learned");
            SvgAxis y = row ? (SvgAxis){0, g->steps, SVG_LINEAR, "Kaplan-Meier median steps", NULL, 0} : accuracy_axis("share of runs learned");
            SvgPanel p = {MARGIN + i * (PANEL_W + MARGIN), top + row * (PANEL_H + MARGIN), PANEL_W, PANEL_H,
                          {cs[0] / 1.5, cs[g->nk - 1] * 1.5, SVG_LOG, "c (log)", ticks, nt}, y, ptitle};
            svg_panel(s, &p);
            double rx[2] = {1, 1}, ry[2] = {y.lo, y.hi};
            svg_series(s, &p, rx, ry, 2, &rule_style);
            for (int u = 0; u < nu; u++) {
                int d = used[u];
                double v[LAW_MAX_C];
                for (int j = 0; j < g->nk; j++) {
                    const LawCell *c = &g->cell[i][d][j];
                    v[j] = c->runs == 0 ? NAN : row ? c->km_median : (double)c->learned / c->runs;
                }
                SvgStyle st = dk_style(u);
                svg_series(s, &p, cs, v, g->nk, &st);
            }
        }
    figure_titles(s, width, title, subtitle);
    SvgStyle st[LAW_MAX_DK];
    const SvgStyle *ptr[LAW_MAX_DK];
    char names[LAW_MAX_DK][32];
    const char *labels[LAW_MAX_DK];
    for (int u = 0; u < nu; u++) {
        st[u] = dk_style(u);
        ptr[u] = &st[u];
        snprintf(names[u], sizeof names[u], "dk %.0f", g->dks[used[u]]);
        labels[u] = names[u];
    }
    svg_legend(s, MARGIN + LAW_INITS * (PANEL_W + MARGIN) - 30, top, LEGEND_W - 10, labels, ptr, nu);
    plot_close(&plot);
}

/* ------------------------------------------------------------------ both */

void write_law_grid(const char *dir, const LawGroup *gs, int ng)
{
    const LawGroup *fg = law_figure_group(gs, ng);
    if (fg) draw_grid_svg(dir, fg);
    OutFile o;
    FILE *f = out_open(&o, dir, "law_grid.md");
    fprintf(f, "# The law: outcomes against c at each dₖ\n\n"
               "Made by ./report from runs.csv (the law's stages, as law.md). A row: the done runs of one (dₖ, c) over the "
               "seeds. Learned: the loss threshold reached within the budget; the Kaplan–Meier median of the steps to it (a run "
               "that never reached it censored at its last step; \"not reached\": the curve stays above ½). Successes: test "
               "accuracy at the end at least the task's threshold (outcomes.md's), with a 95 %% Wilson interval. σ₀: the raw "
               "q·k std at step 1 (score_std_init / s). End entropy: the attention entropy over log(keys) at the last step.\n");
    if (fg) fprintf(f, "\nThe figure of the rows of stage %s, %d steps at lr %s: [law_grid.svg](law_grid.svg).\n", fg->stage, fg->steps, fg->lr_text);
    for (int gi = 0; gi < ng; gi++) {
        const LawGroup *g = &gs[gi];
        fprintf(f, "\n## %s: %d steps at lr %s\n", g->stage, g->steps, g->lr_text);
        for (int i = 0; i < LAW_INITS; i++)
            if (g->init_n[i]) write_grid_table(f, g, i);
        law_write_twins(f, g);
        write_named_table(f, g);
    }
    out_close(&o);
}
