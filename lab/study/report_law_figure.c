/* report_law_figure.c - see report_law_figure.h. */
#include "report_law_figure.h"

#include "report_figure.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const LawGroup *law_figure_group(const LawGroup *gs, int ng)
{
    const LawGroup *best = NULL;
    for (int i = 0; i < ng; i++) {
        if (gs[i].nd < 3) continue;
        if (!strcmp(gs[i].stage, "law")) return &gs[i];
        if (!strcmp(gs[i].stage, "cal") && (!best || gs[i].nd > best->nd)) best = &gs[i];
    }
    return best;
}

/* planned: the seeds planned for a stage-law group (0: none known); fewer is an interim look. */
static void draw_law_svg(const char *dir, const LawGroup *g, int planned)
{
    static const char *const colors[LAW_INITS] = {"#1f77b4", "#d62728"};
    char title[256], subtitle[1024];
    snprintf(title, sizeof title, "The best multiplier s* against dk (stage %s, %d steps at lr %s)", g->stage, g->steps, g->lr_text);
    int interim = 0; /* an init with fewer seeds' alpha than planned */
    for (int i = 0; i < LAW_INITS; i++) {
        double a[LAW_MAX_SEEDS];
        if (g->init_n[i] && law_defined_alphas(g, i, a) < planned) interim = 1;
    }
    int at = interim ? snprintf(subtitle, sizeof subtitle, "An interim look: fewer seeds than the %d planned, nothing judged. ", planned) : 0;
    snprintf(subtitle + at, sizeof subtitle - (size_t)at,
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
        double a[LAW_MAX_SEEDS];
        int na = law_defined_alphas(g, i, a);
        StatsCi ci = stats_ci95(a, na);
        if (!g->init_n[i]) snprintf(ptitle, sizeof ptitle, "qk-init=%s: no runs", g_law_inits[i]);
        else if (na == 0) snprintf(ptitle, sizeof ptitle, "qk-init=%s: no seed with alpha yet", g_law_inits[i]);
        else snprintf(ptitle, sizeof ptitle, "qk-init=%s: alpha-hat %.2f, alpha_pred %.2f (n = %d)", g_law_inits[i], ci.mean, g->alpha_pred[i], na);
        SvgPanel p = {MARGIN + i * (PANEL_W + MARGIN), top, PANEL_W, PANEL_H,
                      {g->dks[0] / 1.5, g->dks[g->nd - 1] * 1.5, SVG_LOG, "dk (log)", g->dks, g->nd},
                      svg_axis_for(lo, hi, SVG_LOG, "s* (log)"), ptitle};
        svg_panel(s, &p);
        double rule[LAW_MAX_DK], pred[LAW_MAX_DK], med[LAW_MAX_DK], fit[LAW_MAX_DK], level = 0;
        int nl = 0;
        for (int d = 0; d < g->nd; d++) {
            double m, l, h;
            law_median_kstar(g, i, d, &m, &l, &h);
            rule[d] = 1 / sqrt(g->dks[d]);
            pred[d] = 1 / g->sigma0[i][d];
            med[d] = isnan(m) ? NAN : exp2(m) * rule[d];
            if (isfinite(med[d])) {
                level += log2(med[d]) + ci.mean * log2(g->dks[d]);
                nl++;
            }
            for (int sd = 0; sd < g->ns; sd++)
                if (g->kstar[i][d][sd] != LAW_NO_C) {
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

bool write_law_svg(const char *dir, const LawGroup *gs, int ng)
{
    const LawGroup *g = law_figure_group(gs, ng);
    if (g) draw_law_svg(dir, g, law_seeds_planned(gs, ng, g));
    return g != NULL;
}
