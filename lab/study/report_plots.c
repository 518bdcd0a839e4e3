/* report_plots.c - the SVG plots of ./report (drawn with run/svg.c).
 *
 *   lr_TASK_OPTIM.svg      validation accuracy vs learning rate (log), one line per scale, one
 *                          panel per dk (and variant) of stage lr; the chosen rate ringed
 *   lr_STAGE_TASK_OPTIM.svg  the same for another stage that sweeps rates (the width sweep)
 *   dk_TASK.svg            test accuracy vs dk, each scale at its best learning rate, one panel
 *                          per optimizer; bars = 95 % CI over seeds, clipped to [0, 1]
 *   curves_TASK_OPTIM.svg  score std, per-query gradient median (log y) and loss vs step, median
 *                          over seeds over a shaded band of their 25th-75th percentile: a row of
 *                          panels per dk, a column per quantity; only where the runs' logs were read
 *   outcomes_TASK.svg      every test run of each cell of the design, for the tasks of the outcome
 *                          table, with the statistic of the task's test (report_plot_outcomes.c)
 *
 * Every scale has one style (colour, dash, marker) in every plot and a legend entry; the points
 * of one x are dodged a few pixels apart by scale, centred on their x (a legend note says so),
 * so that equal values stay visible and every cluster reads as one x; the curves are drawn at
 * their true steps, told apart by their markers; each panel states its n; accuracy axes are
 * [0, 1] in every panel, and the step and loss axes start at 0; titles, subtitles and legend
 * entries wrap inside the figure (by svg_text_width's conservative estimate).
 */
#include "report_plots.h"

#include "report_cells.h"
#include "report_common.h"
#include "report_figure.h"
#include "report_plot_outcomes.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LIST = 64 };

/* ------------------------------------------------------------------ selecting runs */

/* The cells a query can match, [*from, *to): those sharing its leading keys that are not "any". */
static void key_range(const Cells *cs, const CellKey *q, int *from, int *to)
{
    int depth = !q->stage ? 0 : !q->task ? KEYS_STAGE : !q->optim ? KEYS_TASK : !q->variant ? KEYS_OPTIM
              : !q->scale ? KEYS_VARIANT : isnan(q->dk) ? KEYS_SCALE : isnan(q->lr) ? KEYS_DK : KEYS_LR;
    *from = 0;
    *to = cs->n;
    if (depth == 0) return;
    *from = cells_find(cs, q, depth);
    *to = *from < 0 ? (*from = 0) : cells_group_end(cs, *from, depth);
}

/* Whether some cell matches a query. */
static bool any_cell(const Cells *cs, const CellKey *q)
{
    int from, to;
    key_range(cs, q, &from, &to);
    for (int i = from; i < to; i++)
        if (cell_key_matches(cell_row(&cs->cell[i]), q)) return true;
    return false;
}

/* The cell of a whole key (no "any"), or NULL when it was not planned. */
static const Cell *cell_at(const Cells *cs, const CellKey *k)
{
    int i = cells_find(cs, k, CELL_KEYS);
    return i < 0 ? NULL : &cs->cell[i];
}

/* The values of one metric over the done runs of a cell (finite ones only; none for NULL). */
static int gather(const Cell *c, int metric, double *out)
{
    int n = 0;
    for (int i = 0; c && i < c->n; i++) {
        const Row *r = c->runs[i];
        if (r->done && isfinite(r->value[metric])) out[n++] = r->value[metric];
    }
    return n;
}

/* Distinct values of a job column over the cells a query matches, in table order (at most
 * MAX_LIST). */
static int distinct_text(const Cells *cs, const CellKey *q, int col, const char **out)
{
    int n = 0, from, to;
    key_range(cs, q, &from, &to);
    for (int i = from; i < to; i++) {
        const Row *r = cell_row(&cs->cell[i]);
        if (!cell_key_matches(r, q)) continue;
        const char *v = r->job[col];
        int j = 0;
        while (j < n && strcmp(out[j], v)) j++;
        if (j == n && n < MAX_LIST) out[n++] = v;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int c = col == JOB_SCALE     ? scale_compare(out[j], out[j - 1])
                    : col == JOB_STAGE   ? stage_compare(out[j], out[j - 1])
                    : col == JOB_VARIANT ? variant_compare(out[j], out[j - 1])
                                         : strcmp(out[j], out[j - 1]);
            if (c >= 0) break;
            const char *t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* Distinct values of the dk (col JOB_DK) or lr (JOB_LR) of the cells a query matches, ascending. */
static int distinct_number(const Cells *cs, const CellKey *q, int col, double *out)
{
    int n = 0, from, to;
    key_range(cs, q, &from, &to);
    for (int i = from; i < to; i++) {
        const Row *r = cell_row(&cs->cell[i]);
        if (!cell_key_matches(r, q)) continue;
        double v = col == JOB_LR ? r->lr : r->dk;
        int j = 0;
        while (j < n && out[j] != v) j++;
        if (j == n && n < MAX_LIST) out[n++] = v;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
            double t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* The lr of the best cell of a (stage, task, optim, variant, scale, dk); NAN when none is done. */
static double best_lr(const Cells *cs, const CellKey *k)
{
    const Cell *c = cells_best(cs, k);
    return c ? cell_row(c)->lr : NAN;
}

/* ------------------------------------------------------------------ points and legends (the styles: report_figure.c) */

/* The points of a panel, scale i at x value j: their means and intervals, and the x each is
 * drawn at. The points of one x value are dodged DODGE_PX pixels apart, in the order of the
 * legend, centred on it (a point alone stands on it), so that equal values do not hide each
 * other and every cluster reads as the one x of its tick (a legend note says so). */
enum { DODGE_PX = 3 };
static const char *const g_dodge_note = "points of one x: 3 px apart, by scale";
typedef struct PanelPoints {
    StatsCi ci[MAX_LIST][MAX_LIST];
    const Cell *cell[MAX_LIST][MAX_LIST]; /* the runs of the point (NULL: none) */
    double x[MAX_LIST][MAX_LIST];
    int metric;                           /* what the points are: M_VAL_ACC, M_TEST_ACC */
    int cut;                              /* bar ends cut at 0 or 1 so far, in the whole figure */
} PanelPoints;

static void dodge_points(const SvgPanel *panel, const double *xs, int nx, int ns, PanelPoints *pts)
{
    for (int j = 0; j < nx; j++) {
        int present = 0, rank = 0;
        for (int i = 0; i < ns; i++) present += isfinite(pts->ci[i][j].mean);
        for (int i = 0; i < ns; i++) {
            double offset = isfinite(pts->ci[i][j].mean) ? DODGE_PX * (rank++ - (present - 1) / 2.0) : 0;
            pts->x[i][j] = svg_dodge(panel, xs[j], offset);
        }
    }
}

/* Every done run of a point, a small disc at the point's x (its id and value as a tooltip): a
 * mean never stands for seeds the reader cannot see. */
static void draw_seeds(Svg *s, const SvgPanel *panel, double x, const Cell *c, int metric, const char *color)
{
    for (int i = 0; c && i < c->n; i++) {
        const Row *r = c->runs[i];
        if (!r->done || !isfinite(r->value[metric])) continue;
        char title[256];
        snprintf(title, sizeof title, "%s: %s %s (seed %ld)", r->job[JOB_ID], metric == M_VAL_ACC ? "validation accuracy" : "test accuracy",
                 r->metric[metric], r->seed);
        svg_dot(s, panel, x, r->value[metric], 2, color, "seed", title);
    }
}

/* A bar end cut at 0 or 1 (the interval goes on beyond, where no accuracy lies): a hollow
 * triangle marks it, and it is counted for the legend. */
static void mark_cut(Svg *s, const SvgPanel *panel, double x, double v, const char *color, PanelPoints *pts)
{
    if (v >= 0 && v <= 1) return;
    svg_shape(s, panel, x, clip01(v), SVG_TRIANGLE, 3.5, color, SVG_HOLLOW);
    pts->cut++;
}

/* The panel's lines, a scale each, with their intervals and every seed, at the dodged x. */
static void draw_points(Svg *s, const SvgPanel *panel, const char *const *scales, int ns, int nx, PanelPoints *pts)
{
    for (int i = 0; i < ns; i++) {
        SvgStyle st = figure_scale_style(scales[i]);
        double y[MAX_LIST];
        for (int j = 0; j < nx; j++) {
            const StatsCi *ci = &pts->ci[i][j];
            y[j] = ci->mean;
            draw_seeds(s, panel, pts->x[i][j], pts->cell[i][j], pts->metric, st.color);
            if (!ci->defined) continue;
            svg_error_bar(s, panel, pts->x[i][j], clip01(ci->lo), clip01(ci->hi), st.color);
            mark_cut(s, panel, pts->x[i][j], ci->lo, st.color, pts);
            mark_cut(s, panel, pts->x[i][j], ci->hi, st.color, pts);
        }
        svg_series(s, panel, pts->x[i], y, nx, &st);
    }
}

/* The legend's note on the bars: what they are and how many were cut at 0 or 1. */
static void bars_note(char *buf, size_t len, int hi_n, int cut)
{
    if (hi_n <= 1) snprintf(buf, len, "one seed: no interval");
    else if (cut == 0) snprintf(buf, len, "bars: 95 %% CI over seeds (Student t); discs: the seeds; no bar reaches past 0 or 1");
    else snprintf(buf, len, "bars: 95 %% CI over seeds (Student t), cut at 0 and 1: %d bar end%s beyond, marked by a hollow triangle; discs: the seeds",
                  cut, cut == 1 ? " reaches" : "s reach");
}

/* "n = 5 per point" or "n = 3–5 per point" (per: "point", "line") */
static void n_text(char *buf, size_t len, int lo, int hi, const char *per)
{
    if (hi == 0) snprintf(buf, len, "no done run");
    else if (lo == hi) snprintf(buf, len, "n = %d per %s", lo, per);
    else snprintf(buf, len, "n = %d–%d per %s", lo, hi, per);
}

/* A legend of the scales drawn, then notes. */
static void scale_legend(Svg *s, double x, double y, const char **scales, int ns, const SvgStyle *extra,
                         const char *extra_label, const char *const *notes, int n_notes)
{
    const char *labels[MAX_LIST + 8];
    SvgStyle styles[MAX_LIST + 8];
    const SvgStyle *ptr[MAX_LIST + 8];
    int n = 0;
    for (int i = 0; i < ns; i++) {
        styles[n] = figure_scale_style(scales[i]);
        labels[n++] = figure_scale_name(scales[i]);
    }
    if (extra) {
        styles[n] = *extra;
        labels[n++] = extra_label;
    }
    for (int i = 0; i < n; i++) ptr[i] = &styles[i];
    for (int i = 0; i < n_notes && n < MAX_LIST + 8; i++) {
        ptr[n] = NULL;
        labels[n++] = notes[i];
    }
    svg_legend(s, x, y, LEGEND_W - 10, labels, ptr, n);
}

/* A panel at (left, top): its x axis log, a tick at each of the n values xs (ascending), with
 * room for the markers (a factor either side); its y axis an accuracy. */
static SvgPanel accuracy_panel(double left, double top, const double *xs, int n, double room, const char *x_label,
                               const char *y_label, const char *title)
{
    SvgPanel p = {left, top, PANEL_W, PANEL_H, {xs[0] / room, xs[n - 1] * room, SVG_LOG, x_label, xs, n},
                  accuracy_axis(y_label), title};
    return p;
}

/* ------------------------------------------------------------------ lr_TASK_OPTIM.svg */

/* An lr plot of one (stage, task, optim): a panel per (variant, dk) that has runs, a line per
 * scale across the learning rates. */
typedef struct LrPlot {
    const Cells *cs;
    CellKey pick;                    /* the stage, task and optim */
    const char *scales[MAX_LIST];
    double lrs[MAX_LIST];
    const char *variant[MAX_LIST]; /* panel k: variant[k], dk[k] */
    double dk[MAX_LIST];
    int ns, nl, np;
    double *vals;                 /* room for the values of one point */
} LrPlot;

static void lr_plan(LrPlot *lp, const Cells *cs, const char *stage, const char *task, const char *optim)
{
    lp->cs = cs;
    lp->pick = any_key();
    lp->pick.stage = stage;
    lp->pick.task = task;
    lp->pick.optim = optim;
    const char *variants[MAX_LIST];
    double dks[MAX_LIST];
    int nv = distinct_text(cs, &lp->pick, JOB_VARIANT, variants);
    lp->ns = distinct_text(cs, &lp->pick, JOB_SCALE, lp->scales);
    lp->nl = distinct_number(cs, &lp->pick, JOB_LR, lp->lrs);
    lp->np = 0;
    for (int v = 0; v < nv; v++) {
        CellKey q = lp->pick;
        q.variant = variants[v];
        int nd = distinct_number(cs, &q, JOB_DK, dks);
        for (int d = 0; d < nd && lp->np < MAX_LIST; d++) {
            lp->variant[lp->np] = variants[v];
            lp->dk[lp->np++] = dks[d];
        }
    }
    lp->vals = mem_alloc(sizeof(double) * (size_t)(cs->n_rows + 1));
}

/* The cell of panel k at one scale and rate. */
static CellKey lr_point(const LrPlot *lp, int k, const char *scale, double lr)
{
    CellKey q = lp->pick;
    q.variant = lp->variant[k];
    q.dk = lp->dk[k];
    q.scale = scale;
    q.lr = lr;
    return q;
}

/* The fewest and the most done runs of a planned point of panel k. */
static void lr_panel_n(const LrPlot *lp, int k, int *lo, int *hi)
{
    *lo = 1 << 30;
    *hi = 0;
    for (int i = 0; i < lp->ns; i++)
        for (int l = 0; l < lp->nl; l++) {
            CellKey q = lr_point(lp, k, lp->scales[i], lp->lrs[l]);
            const Cell *c = cell_at(lp->cs, &q);
            if (!c) continue; /* not planned */
            int n = gather(c, M_VAL_ACC, lp->vals);
            *lo = n < *lo ? n : *lo;
            *hi = n > *hi ? n : *hi;
        }
}

/* Panel k's lines: the mean validation accuracy per rate, its interval, the chosen rate ringed. */
static void draw_lr_panel(Svg *s, const LrPlot *lp, int k, const SvgPanel *panel, PanelPoints *pts)
{
    pts->metric = M_VAL_ACC;
    for (int i = 0; i < lp->ns; i++)
        for (int l = 0; l < lp->nl; l++) {
            CellKey q = lr_point(lp, k, lp->scales[i], lp->lrs[l]);
            pts->cell[i][l] = cell_at(lp->cs, &q);
            pts->ci[i][l] = stats_ci95(lp->vals, gather(pts->cell[i][l], M_VAL_ACC, lp->vals));
        }
    dodge_points(panel, lp->lrs, lp->nl, lp->ns, pts);
    draw_points(s, panel, lp->scales, lp->ns, lp->nl, pts);
    for (int i = 0; i < lp->ns; i++) { /* the chosen rate of each line, ringed */
        CellKey line = lr_point(lp, k, lp->scales[i], NAN);
        double chosen = best_lr(lp->cs, &line);
        for (int l = 0; l < lp->nl; l++)
            if (lp->lrs[l] == chosen && pts->ci[i][l].n)
                svg_shape(s, panel, pts->x[i][l], pts->ci[i][l].mean, SVG_CIRCLE, 8, figure_scale_style(lp->scales[i]).color, SVG_HOLLOW);
    }
}

static void plot_lr(const char *dir, const Cells *cs, const char *stage, const char *task, const char *optim)
{
    LrPlot lp;
    lr_plan(&lp, cs, stage, task, optim);
    int plo[MAX_LIST], phi[MAX_LIST], lo_n = 1 << 30, hi_n = 0; /* n per point, per panel and over all */
    for (int k = 0; k < lp.np; k++) {
        lr_panel_n(&lp, k, &plo[k], &phi[k]);
        lo_n = plo[k] < lo_n ? plo[k] : lo_n;
        hi_n = phi[k] > hi_n ? phi[k] : hi_n;
    }
    char name[256], title[512], subtitle[512], nt[64];
    if (!strcmp(stage, LR_STAGE)) snprintf(name, sizeof name, "lr_%s_%s.svg", task, optim);
    else snprintf(name, sizeof name, "lr_%s_%s_%s.svg", stage, task, optim);
    snprintf(title, sizeof title, "%s, %s: validation accuracy vs learning rate (stage %s)", task, optim, stage);
    snprintf(subtitle, sizeof subtitle,
             "%s; ringed: the chosen rate of each line (highest mean validation accuracy; ties: the smaller)",
             hi_n > 1 ? "Mean over seeds, n in each panel" : "One seed per point");
    int cols = lp.np < 4 ? lp.np : 4, panel_rows = (lp.np + cols - 1) / cols;
    int width = figure_width(MARGIN + cols * (PANEL_W + MARGIN) + LEGEND_W), top = figure_top(width, title, subtitle);
    Plot plot;
    Svg *s = plot_open(&plot, dir, name, width, top + panel_rows * (PANEL_H + 80) + 20);
    static PanelPoints pts;
    pts.cut = 0;
    for (int k = 0; k < lp.np; k++) {
        char ptitle[256];
        n_text(nt, sizeof nt, plo[k], phi[k], "point");
        if (strcmp(lp.variant[k], "-")) snprintf(ptitle, sizeof ptitle, "dk = %.0f, %s (%s)", lp.dk[k], lp.variant[k], nt);
        else snprintf(ptitle, sizeof ptitle, "dk = %.0f (%s)", lp.dk[k], nt);
        SvgPanel panel = accuracy_panel(MARGIN + (k % cols) * (PANEL_W + MARGIN), top + (k / cols) * (PANEL_H + 80), lp.lrs,
                                        lp.nl, 2, "learning rate (log)", "validation accuracy", ptitle);
        svg_panel(s, &panel);
        draw_lr_panel(s, &lp, k, &panel, &pts);
    }
    mem_free(lp.vals);
    n_text(nt, sizeof nt, lo_n, hi_n, "point");
    figure_titles(s, width, title, subtitle);
    SvgStyle ring = {"#000000", NULL, SVG_CIRCLE, 0, SVG_HOLLOW};
    char bars[256];
    bars_note(bars, sizeof bars, hi_n, pts.cut);
    const char *notes[3] = {bars, nt, g_dodge_note};
    scale_legend(s, MARGIN + cols * (PANEL_W + MARGIN) - 30, top, lp.scales, lp.ns, &ring, "chosen learning rate", notes, 3);
    plot_close(&plot);
}

/* ------------------------------------------------------------------ dk_TASK.svg */

/* Where a (task, optim, scale, dk) point of the dk plot comes from: the stage (not lr, variant
 * "-") with the most done runs at its best learning rate; else stage lr at the chosen rate. */
static const char *dk_source(const Cells *cs, const char *task, const char *optim, const char *scale, double dk,
                             double *lr_out, double *vals)
{
    CellKey q = {NULL, task, optim, "-", scale, dk, NAN};
    const char *best = NULL;
    int best_n = -1;
    for (int k = 0; k < cs->n_stages; k++) { /* in stage order: the first of equals wins */
        q.stage = cell_row(&cs->cell[cs->stage_from[k]])->job[JOB_STAGE];
        q.lr = NAN;
        const Cell *c = strcmp(q.stage, LR_STAGE) ? cells_best(cs, &q) : NULL;
        if (!c) continue;
        int n = gather(c, M_TEST_ACC, vals);
        if (n > best_n) {
            best_n = n;
            best = q.stage;
            *lr_out = cell_row(c)->lr;
        }
    }
    if (best) return best;
    q.stage = LR_STAGE;
    *lr_out = best_lr(cs, &q);
    return isnan(*lr_out) ? NULL : LR_STAGE;
}

/* A dk plot of one task: a panel per optimizer, a line per scale across dk, of the plain model
 * (variant "-"); each point from the stage and rate dk_source picks. */
typedef struct DkPlot {
    const Cells *cs;
    CellKey pick;                      /* the task, variant "-" */
    const char *optims[MAX_LIST], *scales[MAX_LIST];
    double dks[MAX_LIST];
    int no, ns, nd;
    const char *used[MAX_LIST];     /* the stages the points came from, in the order met */
    int n_used;
    double *vals;                   /* room for the values of one point */
} DkPlot;

/* Where the points of one panel come from: point (scale i, dk d) from the cell of scale
 * scale[i][d] in stage[i][d] (NULL: none) at rate lr[i][d]. That scale is scale i's own, or,
 * where scale i never ran at that dk, another that gives the same s there (the constant 1/8 at
 * dk 64 is 1/sqrt(dk)'s runs): one setting, one set of runs, drawn on both lines. */
typedef struct DkSources {
    const char *stage[MAX_LIST][MAX_LIST];
    const char *scale[MAX_LIST][MAX_LIST];
    double lr[MAX_LIST][MAX_LIST];
} DkSources;

/* The done runs of point (i, d) of optimizer o's panel. */
static CellKey dk_point(const DkPlot *dp, int o, const DkSources *src, int i, int d)
{
    CellKey q = dp->pick;
    q.optim = dp->optims[o];
    q.stage = src->stage[i][d];
    q.scale = src->scale[i][d];
    q.dk = dp->dks[d];
    q.lr = src->lr[i][d];
    return q;
}

/* The multiplier s of a fixed scale at dk; NAN for a learned scale or none. */
static double scale_s_at(const char *scale, double dk)
{
    double c;
    const ScaleRow *r = scale_row_find(scale, &c);
    return r && r->mode != SCALE_LEARNED ? scale_row_s(r, c, (int)dk) : NAN;
}

/* The sources of optimizer o's points, and the fewest and most runs of a point (for its title). */
static void dk_sources(DkPlot *dp, int o, DkSources *src, int *lo, int *hi)
{
    *lo = 1 << 30;
    *hi = 0;
    for (int i = 0; i < dp->ns; i++)
        for (int d = 0; d < dp->nd; d++) {
            src->scale[i][d] = dp->scales[i];
            const char *st = src->stage[i][d] =
                dk_source(dp->cs, dp->pick.task, dp->optims[o], dp->scales[i], dp->dks[d], &src->lr[i][d], dp->vals);
            double s = scale_s_at(dp->scales[i], dp->dks[d]);
            for (int j = 0; !st && isfinite(s) && j < dp->ns; j++) /* never ran here: the same s under another name */
                if (j != i && scale_s_at(dp->scales[j], dp->dks[d]) == s) {
                    st = src->stage[i][d] =
                        dk_source(dp->cs, dp->pick.task, dp->optims[o], dp->scales[j], dp->dks[d], &src->lr[i][d], dp->vals);
                    if (st) src->scale[i][d] = dp->scales[j];
                }
            if (!st) continue;
            CellKey q = dk_point(dp, o, src, i, d);
            int n = gather(cell_at(dp->cs, &q), M_TEST_ACC, dp->vals);
            *lo = n < *lo ? n : *lo;
            *hi = n > *hi ? n : *hi;
            int u = 0;
            while (u < dp->n_used && strcmp(dp->used[u], st)) u++;
            if (u == dp->n_used && dp->n_used < MAX_LIST) dp->used[dp->n_used++] = st;
        }
}

/* Optimizer o's lines: the mean test accuracy per dk, its interval and every seed. */
static void draw_dk_panel(Svg *s, const DkPlot *dp, int o, const DkSources *src, const SvgPanel *panel, PanelPoints *pts)
{
    pts->metric = M_TEST_ACC;
    for (int i = 0; i < dp->ns; i++)
        for (int d = 0; d < dp->nd; d++) {
            CellKey q = dk_point(dp, o, src, i, d);
            pts->cell[i][d] = src->stage[i][d] ? cell_at(dp->cs, &q) : NULL;
            pts->ci[i][d] = stats_ci95(dp->vals, gather(pts->cell[i][d], M_TEST_ACC, dp->vals));
        }
    dodge_points(panel, dp->dks, dp->nd, dp->ns, pts);
    draw_points(s, panel, dp->scales, dp->ns, dp->nd, pts);
}

/* "; 1/8 at dk 64: the runs of 1/sqrt(dk) (the same s)" for each point drawn from another
 * scale's runs (optimizer o's panel), appended to buf once each. */
static void dk_shared_note(char *buf, size_t len, const DkPlot *dp, const DkSources *src)
{
    for (int i = 0; i < dp->ns; i++)
        for (int d = 0; d < dp->nd; d++) {
            if (!src->stage[i][d] || src->scale[i][d] == dp->scales[i]) continue;
            char note[256];
            snprintf(note, sizeof note, "; %s at dk %.0f: the runs of %s (the same s)", scale_label(dp->scales[i], SCALE_PLOT),
                     dp->dks[d], scale_label(src->scale[i][d], SCALE_PLOT));
            if (!strstr(buf, note)) strncat(buf, note, len - strlen(buf) - 1);
        }
}

/* The subtitle: what a point is, and the stages the points came from. */
static void dk_subtitle(char *from, size_t len, const DkPlot *dp, int all_hi)
{
    snprintf(from, len, "%s; the rate of the highest mean validation accuracy in the stage; from stage%s",
             all_hi > 1 ? "Mean over seeds, bars = 95 % CI" : "One seed per point", dp->n_used > 1 ? "s" : "");
    for (int u = 0; u < dp->n_used; u++) {
        strncat(from, u ? ", " : " ", len - strlen(from) - 1);
        strncat(from, dp->used[u], len - strlen(from) - 1);
    }
    strncat(from, "; the plain model (no variant flags)", len - strlen(from) - 1);
}

static void plot_dk(const char *dir, const Cells *cs, const char *task)
{
    DkPlot dp = {.cs = cs, .pick = any_key()};
    dp.pick.task = task;
    dp.pick.variant = "-";
    dp.no = distinct_text(cs, &dp.pick, JOB_OPTIM, dp.optims);
    dp.ns = distinct_text(cs, &dp.pick, JOB_SCALE, dp.scales);
    dp.nd = distinct_number(cs, &dp.pick, JOB_DK, dp.dks);
    if (dp.no == 0 || dp.nd == 0) return;
    dp.vals = mem_alloc(sizeof(double) * (size_t)(cs->n_rows + 1));
    static DkSources src;
    int lo_n[MAX_LIST], hi_n[MAX_LIST], all_hi = 0; /* n per point, per panel (first: for the titles) */
    for (int o = 0; o < dp.no; o++) {
        dk_sources(&dp, o, &src, &lo_n[o], &hi_n[o]);
        all_hi = hi_n[o] > all_hi ? hi_n[o] : all_hi;
    }
    char name[256], title[512], subtitle[1024];
    snprintf(name, sizeof name, "dk_%s.svg", task);
    snprintf(title, sizeof title, "%s: test accuracy vs dk, each scale at its best learning rate", task);
    dk_subtitle(subtitle, sizeof subtitle, &dp, all_hi);
    for (int o = 0; o < dp.no; o++) {
        dk_sources(&dp, o, &src, &lo_n[o], &hi_n[o]);
        dk_shared_note(subtitle, sizeof subtitle, &dp, &src);
    }
    int width = figure_width(MARGIN + dp.no * (PANEL_W + MARGIN) + LEGEND_W), top = figure_top(width, title, subtitle);
    Plot plot;
    Svg *s = plot_open(&plot, dir, name, width, top + PANEL_H + 100);
    static PanelPoints pts;
    pts.cut = 0;
    for (int o = 0; o < dp.no; o++) {
        char ptitle[256], nt[64];
        dk_sources(&dp, o, &src, &lo_n[o], &hi_n[o]);
        n_text(nt, sizeof nt, hi_n[o] ? lo_n[o] : 0, hi_n[o], "point");
        snprintf(ptitle, sizeof ptitle, "%s (%s)", dp.optims[o], nt);
        SvgPanel panel = accuracy_panel(MARGIN + o * (PANEL_W + MARGIN), top, dp.dks, dp.nd, 1.6, "dk (log)", "test accuracy", ptitle);
        svg_panel(s, &panel);
        draw_dk_panel(s, &dp, o, &src, &panel, &pts);
    }
    mem_free(dp.vals);
    figure_titles(s, width, title, subtitle);
    char bars[256];
    bars_note(bars, sizeof bars, all_hi, pts.cut);
    const char *notes[3] = {bars, "n: runs per point", g_dodge_note};
    scale_legend(s, MARGIN + dp.no * (PANEL_W + MARGIN) - 30, top, dp.scales, dp.ns, NULL, NULL, notes, 3);
    plot_close(&plot);
}

/* ------------------------------------------------------------------ curves_TASK_OPTIM.svg */

/* The curve of run id, or NULL; curves are in id order (report_io.h). */
static const Curve *curve_of(const Curve *curves, int n, const char *id)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(curves[mid].id, id);
        if (c == 0) return &curves[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

static int cmp_curve_id(const void *x, const void *y)
{
    return strcmp((*(const Curve *const *)x)->id, (*(const Curve *const *)y)->id);
}

/* The logged runs of a (stage, task, optim, "-", scale, dk) at its best lr, in id order (into
 * out, when not NULL); returns how many. */
static int logged_runs(const Cells *cs, const Curve *curves, int n_curves, const CellKey *line, const Curve **out)
{
    const Cell *best = cells_best(cs, line);
    int n = 0;
    for (int i = 0; best && i < best->n; i++) {
        if (!best->runs[i]->done) continue;
        const Curve *c = curve_of(curves, n_curves, best->runs[i]->job[JOB_ID]);
        if (c && out) out[n] = c;
        n += c != NULL;
    }
    if (out) qsort(out, (size_t)n, sizeof *out, cmp_curve_id);
    return n;
}

/* The metrics of the curves plot, one row of panels each. */
enum { CURVE_STD, CURVE_QGRAD, CURVE_LOSS, N_CURVE_METRICS };

static double curve_value(const Curve *c, int metric, int i)
{
    return metric == CURVE_STD ? c->score_std[i] : metric == CURVE_QGRAD ? c->qgrad_median[i] : c->loss[i];
}

/* One line of the curves plot: per logged row of its first run, the step, and the median and
 * the quartiles (25th and 75th percentiles) over its runs that logged the same step. */
typedef struct CurveLine {
    double *x, *median, *q25, *q75; /* room for MAX_POINTS each */
    int n;
} CurveLine;

static void quartile_curve(const Curve *const *cs, int n, int metric, CurveLine *line, int max)
{
    int rows = cs[0]->n < max ? cs[0]->n : max;
    double v[256];
    for (int i = 0; i < rows; i++) {
        int m = 0;
        for (int k = 0; k < n && m < 256; k++) {
            if (cs[k]->n <= i || cs[k]->step[i] != cs[0]->step[i]) continue;
            double value = curve_value(cs[k], metric, i);
            if (isfinite(value) && (value > 0 || metric == CURVE_LOSS)) v[m++] = value;
        }
        line->x[i] = cs[0]->step[i];
        line->median[i] = stats_quantile(v, m, 0.5);
        line->q25[i] = stats_quantile(v, m, 0.25);
        line->q75[i] = stats_quantile(v, m, 0.75);
    }
    line->n = rows;
}

/* A curves plot of one (task, optim) of the plain model: a row of panels per metric, a panel
 * per dk, a line per scale (the median over its logged runs at its best rate). */
typedef struct CurvesPlot {
    const Cells *cs;
    const Curve *curves;
    int n_curves;
    CellKey pick;                             /* the stage, task, optim, variant "-" */
    const char *scales[MAX_LIST];
    double dks[MAX_LIST];
    int ns, nd;
    double lo[N_CURVE_METRICS], hi[N_CURVE_METRICS]; /* the y range of each row of panels */
    double max_step, vocab, chance;        /* chance: the loss of a uniform guess (NAN: no one vocabulary) */
    int top;                               /* where the panels start, below the titles */
    const Curve **line;                    /* room for the curves of one line */
    CurveLine points;                      /* room for one line's points */
} CurvesPlot;
enum { MAX_POINTS = 4096 };

/* The logged runs of scale i at dk d (into cp->cs); how many. */
static int line_runs(CurvesPlot *cp, int i, int d)
{
    CellKey line = cp->pick;
    line.scale = cp->scales[i];
    line.dk = cp->dks[d];
    return logged_runs(cp->cs, cp->curves, cp->n_curves, &line, cp->line);
}

/* The stage the plot shows: headline when it has logs, else the other one with the most, else lr. */
static const char *curves_stage(const CurvesPlot *cp)
{
    const Cells *cs = cp->cs;
    const char *stage = NULL;
    int best = 0, n_rows = cs->n_rows;
    for (int k = 0; k < cs->n_stages; k++) {
        CellKey q = cp->pick;
        q.stage = cell_row(&cs->cell[cs->stage_from[k]])->job[JOB_STAGE];
        const char *sc[MAX_LIST];
        double dd[MAX_LIST];
        int nsc = distinct_text(cs, &q, JOB_SCALE, sc), ndd = distinct_number(cs, &q, JOB_DK, dd);
        int logged = 0;
        for (int a = 0; a < nsc; a++)
            for (int d = 0; d < ndd; d++) {
                CellKey line = q;
                line.scale = sc[a];
                line.dk = dd[d];
                logged += logged_runs(cs, cp->curves, cp->n_curves, &line, NULL);
            }
        int rank = logged == 0 ? 0 : !strcmp(q.stage, "headline") ? 3 * n_rows + logged
                                 : strcmp(q.stage, LR_STAGE)      ? n_rows + logged
                                                                  : logged;
        if (rank > best) {
            best = rank;
            stage = q.stage;
        }
    }
    return stage;
}

/* The y ranges, one per metric, the same in every panel of its row; the loss axis from 0 and
 * up to the chance level at least; the vocabulary: the one of every logged run, when they
 * agree. */
static void curves_ranges(CurvesPlot *cp)
{
    for (int m = 0; m < N_CURVE_METRICS; m++) {
        cp->lo[m] = m == CURVE_LOSS ? 0 : INFINITY;
        cp->hi[m] = 0;
    }
    cp->max_step = 1;
    cp->vocab = NAN;
    bool one_vocab = true;
    for (int m = 0; m < N_CURVE_METRICS; m++)
        for (int i = 0; i < cp->ns; i++)
            for (int d = 0; d < cp->nd; d++) {
                int n = line_runs(cp, i, d);
                if (!n) continue;
                for (int c = 0; c < n; c++) {
                    if (isnan(cp->vocab)) cp->vocab = cp->line[c]->vocab;
                    one_vocab &= cp->line[c]->vocab == cp->vocab;
                }
                CurveLine *line = &cp->points;
                quartile_curve(cp->line, n, m, line, MAX_POINTS);
                for (int j = 0; j < line->n; j++) { /* the band with its line: from its 25th to its 75th percentile */
                    cp->max_step = fmax(cp->max_step, line->x[j]);
                    double lo = line->q25[j], hi = line->q75[j];
                    if (!isfinite(lo) || !isfinite(hi) || (m != CURVE_LOSS && !(lo > 0))) continue;
                    if (m != CURVE_LOSS) cp->lo[m] = fmin(cp->lo[m], lo);
                    cp->hi[m] = fmax(cp->hi[m], hi);
                }
            }
    cp->chance = one_vocab && cp->vocab > 1 ? log(cp->vocab) : NAN; /* uniform over the vocabulary */
    if (isfinite(cp->chance)) cp->hi[CURVE_LOSS] = fmax(cp->hi[CURVE_LOSS], cp->chance);
    if (!(cp->hi[CURVE_LOSS] > 0)) cp->hi[CURVE_LOSS] = 1;
}

/* The interquartile band of scale i's runs at dk d: at each logged step, from the 25th to the
 * 75th percentile over them, shaded in the scale's colour (the spread the median hides). */
static void draw_curve_band(Svg *s, CurvesPlot *cp, const SvgPanel *panel, int m, int d, int i)
{
    int n = line_runs(cp, i, d);
    if (!n) return;
    CurveLine *line = &cp->points;
    quartile_curve(cp->line, n, m, line, MAX_POINTS);
    svg_band(s, panel, line->x, line->q25, line->q75, line->n, figure_scale_style(cp->scales[i]).color, "iqr");
}

/* The median line of scale i's runs at dk d, at the true steps, with markers at about 8 points,
 * each scale at its own phase, so that equal curves stay told apart by their markers. */
static void draw_curve_line(Svg *s, CurvesPlot *cp, const SvgPanel *panel, int m, int d, int i)
{
    int n = line_runs(cp, i, d);
    if (!n) return;
    CurveLine *line = &cp->points;
    quartile_curve(cp->line, n, m, line, MAX_POINTS);
    int k = line->n;
    SvgStyle st = figure_scale_style(cp->scales[i]);
    st.marker = SVG_NO_MARKER;
    svg_series(s, panel, line->x, line->median, k, &st);
    int every = k / 8 > 1 ? k / 8 : 1, phase = figure_scale_index(cp->scales[i]) % every;
    SvgStyle mk = figure_scale_style(cp->scales[i]);
    for (int j = phase; j < k; j += every) svg_shape(s, panel, line->x[j], line->median[j], mk.marker, 3.5, mk.color, SVG_FILLED);
}

/* The panel of metric m at dk d: its frame, the chance level, a line per scale. */
static void draw_curves_panel(Svg *s, CurvesPlot *cp, int m, int d)
{
    static const char *const ylabels[N_CURVE_METRICS] = {"std of the scores s·q·k (log)",
                                                         "median over queries of ‖∂L/∂S_row‖ (log)",
                                                         "training loss (nats per target token)"};
    int lo_n = 1 << 30, hi_n = 0;
    for (int i = 0; i < cp->ns; i++) {
        int n = line_runs(cp, i, d);
        if (!n) continue;
        lo_n = n < lo_n ? n : lo_n;
        hi_n = n > hi_n ? n : hi_n;
    }
    char ptitle[256], nt[64];
    n_text(nt, sizeof nt, hi_n ? lo_n : 0, hi_n, "line");
    snprintf(ptitle, sizeof ptitle, "dk = %.0f (%s)", cp->dks[d], nt);
    /* a row per dk, a column per metric; the step axis and the loss axis from 0 */
    SvgPanel panel = {MARGIN + m * (PANEL_W + MARGIN), cp->top + d * (PANEL_H + 80), PANEL_W, PANEL_H,
                      svg_axis_for(0, cp->max_step, SVG_LINEAR, "step"),
                      svg_axis_for(cp->lo[m], cp->hi[m], m != CURVE_LOSS ? SVG_LOG : SVG_LINEAR, ylabels[m]), ptitle};
    svg_panel(s, &panel);
    if (m == CURVE_LOSS && isfinite(cp->chance)) {
        char label[96];
        snprintf(label, sizeof label, "chance: ln %.0f = %.2f (uniform over the vocabulary)", cp->vocab, cp->chance);
        svg_hline(s, &panel, cp->chance, "#888888", label);
    }
    for (int i = 0; i < cp->ns; i++) draw_curve_band(s, cp, &panel, m, d, i); /* every band under every line */
    for (int i = 0; i < cp->ns; i++) draw_curve_line(s, cp, &panel, m, d, i);
}

static bool plot_curves(const char *dir, const Cells *cs, const Curve *curves, int n_curves, const char *task, const char *optim)
{
    CurvesPlot cp = {.cs = cs, .curves = curves, .n_curves = n_curves, .pick = any_key()};
    cp.pick.task = task;
    cp.pick.optim = optim;
    cp.pick.variant = "-";
    const char *stage = cp.pick.stage = curves_stage(&cp);
    if (!stage) return false;
    cp.ns = distinct_text(cs, &cp.pick, JOB_SCALE, cp.scales);
    cp.nd = distinct_number(cs, &cp.pick, JOB_DK, cp.dks);
    cp.line = mem_alloc(sizeof(Curve *) * (size_t)(n_curves + 1));
    CurveLine *points = &cp.points;
    points->x = mem_alloc(sizeof(double) * MAX_POINTS);
    points->median = mem_alloc(sizeof(double) * MAX_POINTS);
    points->q25 = mem_alloc(sizeof(double) * MAX_POINTS);
    points->q75 = mem_alloc(sizeof(double) * MAX_POINTS);
    curves_ranges(&cp);
    char name[256], title[512];
    snprintf(name, sizeof name, "curves_%s_%s.svg", task, optim);
    snprintf(title, sizeof title, "%s, %s: attention statistics and loss during training (stage %s)", task, optim, stage);
    const char *subtitle = "The plain model (no variant flags), each scale at its best learning rate; a line: the median over "
                           "seeds (of the mean over layers, for the attention statistics); its shaded band: the 25th to "
                           "75th percentile over the same runs at each logged step";
    int width = figure_width(MARGIN + N_CURVE_METRICS * (PANEL_W + MARGIN) + LEGEND_W);
    cp.top = figure_top(width, title, subtitle);
    Plot plot;
    Svg *s = plot_open(&plot, dir, name, width, cp.top + cp.nd * (PANEL_H + 80) + 20);
    for (int m = 0; m < N_CURVE_METRICS; m++)
        for (int d = 0; d < cp.nd; d++) draw_curves_panel(s, &cp, m, d);
    mem_free(cp.line);
    mem_free(points->x);
    mem_free(points->median);
    mem_free(points->q25);
    mem_free(points->q75);
    figure_titles(s, width, title, subtitle);
    const char *notes[2] = {"line: median over runs; band: their 25th–75th percentile", "n: logged runs per line"};
    scale_legend(s, MARGIN + N_CURVE_METRICS * (PANEL_W + MARGIN) - 30, cp.top, cp.scales, cp.ns, NULL, NULL, notes, 2);
    plot_close(&plot);
    return true;
}

/* ------------------------------------------------------------------ all plots */

/* True when some (variant, scale, dk) of a (stage, task, optim) was run at several learning rates. */
static bool sweeps(const Cells *cs, const CellKey *q)
{
    int from, to;
    key_range(cs, q, &from, &to);
    for (int a = from, b; a < to; a = b)
        if ((b = cells_group_end(cs, a, KEYS_DK)) - a > 1) return true;
    return false;
}

int write_plots(const char *dir, const Cells *cs, const Curve *curves, int n_curves)
{
    CellKey all = any_key();
    const char *scales[MAX_LIST];
    figure_set_scales(scales, distinct_text(cs, &all, JOB_SCALE, scales));
    const char *tasks[MAX_LIST], *optims[MAX_LIST];
    int nt = distinct_text(cs, &all, JOB_TASK, tasks), plots = 0;
    for (int t = 0; t < nt; t++) {
        CellKey p = all;
        p.task = tasks[t];
        int no = distinct_text(cs, &p, JOB_OPTIM, optims);
        for (int o = 0; o < no; o++) {
            /* a sensitivity plot for stage lr, and for every other stage that sweeps rates */
            CellKey q = p;
            q.optim = optims[o];
            const char *stages[MAX_LIST];
            int n_st = distinct_text(cs, &q, JOB_STAGE, stages);
            for (int st = 0; st < n_st; st++) {
                q.stage = stages[st];
                if (strcmp(stages[st], LR_STAGE) && !sweeps(cs, &q)) continue;
                plot_lr(dir, cs, stages[st], tasks[t], optims[o]);
                plots++;
            }
            if (n_curves && plot_curves(dir, cs, curves, n_curves, tasks[t], optims[o])) plots++;
        }
        CellKey q = p;
        q.variant = "-";
        if (any_cell(cs, &q)) { /* the task has runs of the plain model */
            plot_dk(dir, cs, tasks[t]);
            plots++;
        }
    }
    for (int t = 0; t < g_n_outcome_tasks; t++) plots += plot_outcomes(dir, cs, &g_outcome_tasks[t]);
    return plots;
}
