/* report_slower.c - see report_slower.h. Everything from runs.csv's rows, in a fixed order
 * (the rows' order of cells: task, then scale and variant as runs.csv lists them first). */
#include "report_slower.h"

#include "report_common.h"
#include "report_figure.h"
#include "report_outcome_table.h"
#include "stats_outcomes.h"
#include "stats_power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SLOWER_CELLS = 32 };

/* A cell: the runs of one task, scale and variant (the variant's steps=N included). */
typedef struct SlowerCell {
    const char *task, *scale, *variant, *lr;
    const Row **runs;
    int n;
} SlowerCell;

/* The steps of a run to the loss threshold: an event, or censored at its last step. */
static bool run_time(const Row *r, double *t, bool *event)
{
    double s = r->value[M_STEPS_TO_THRESHOLD];
    *event = s >= 0;
    *t = *event ? s : r->value[M_STEPS];
    return r->done && isfinite(*t);
}

static int cell_times(const SlowerCell *c, double *t, bool *e)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        if (run_time(c->runs[i], &t[n], &e[n])) n++;
    return n;
}

/* The cells, in the order their first runs appear. */
static int slower_cells(const Row *rows, int n_rows, SlowerCell *cells)
{
    int nc = 0;
    for (int i = 0; i < n_rows; i++) {
        const Row *r = &rows[i];
        if (strcmp(r->job[JOB_STAGE], SLOWER_STAGE) || !r->done) continue;
        int c = 0;
        while (c < nc && (strcmp(cells[c].task, r->job[JOB_TASK]) || strcmp(cells[c].scale, r->job[JOB_SCALE]) ||
                          strcmp(cells[c].variant, r->job[JOB_VARIANT])))
            c++;
        if (c == nc) {
            if (nc == MAX_SLOWER_CELLS) die(EXIT_USER, "more than %d cells in stage %s", MAX_SLOWER_CELLS, SLOWER_STAGE);
            cells[nc] = (SlowerCell){r->job[JOB_TASK], r->job[JOB_SCALE], r->job[JOB_VARIANT], r->job[JOB_LR],
                                     mem_alloc(sizeof(Row *) * (size_t)(n_rows + 1)), 0};
            nc++;
        }
        cells[c].runs[cells[c].n++] = r;
    }
    return nc;
}

/* The reference of a cell: 1/sqrt(dk) of the same task with the plain model at the same steps
 * (its variant is "steps=N" where the cell's ends in ",steps=N" or is it). */
static int reference_of(const SlowerCell *cells, int nc, int c)
{
    const char *steps = strstr(cells[c].variant, "steps=");
    for (int i = 0; i < nc; i++)
        if (i != c && !strcmp(cells[i].task, cells[c].task) && scale_is_rule(cells[i].scale) && steps &&
            !strcmp(cells[i].variant, steps))
            return i;
    return -1;
}

/* "s = 1", or the variant's own words for a variant of another kind (additive) */
static void cell_name(char *buf, size_t n, const SlowerCell *c)
{
    const char *steps = strstr(c->variant, "steps=");
    size_t len = steps && steps > c->variant ? (size_t)(steps - c->variant - 1) : 0;
    if (len) snprintf(buf, n, "`%.*s`", (int)len, c->variant);
    else snprintf(buf, n, "s = %s", scale_label(c->scale, SCALE_MARKDOWN));
}

/* ------------------------------------------------------------------ the figure: learned by step */

/* The budget the task had in the second study (its --steps= in the outcome table), or NAN. */
static double study_budget(const char *task)
{
    const OutcomeTask *t = outcome_task(task);
    const char *steps = t ? strstr(t->flags, "--steps=") : NULL;
    return steps ? atof(steps + 8) : NAN;
}

/* slower.svg: a panel per task, for each cell the share of its runs that have learned by each
 * step, 1 - S(t) of its Kaplan-Meier curve, as a staircase; a vertical line at the second
 * study's budget. */
static void draw_slower_svg(const char *dir, const SlowerCell *cells, int nc, double *t, bool *e)
{
    const char *tasks[MAX_SLOWER_CELLS];
    int nt = 0;
    double last = 0;
    for (int c = 0; c < nc; c++) {
        int k = 0;
        while (k < nt && strcmp(tasks[k], cells[c].task)) k++;
        if (k == nt) tasks[nt++] = cells[c].task;
        for (int i = 0; i < cells[c].n; i++) last = fmax(last, cells[c].runs[i]->value[M_STEPS]);
    }
    const char *title = "Fails, or slower? The share of runs that learned, by step";
    const char *subtitle = "Each line: one cell's runs (1 - the Kaplan-Meier curve of the steps to the loss threshold; a run that "
                           "never reached it is censored at the end). Grey vertical line: the second study's budget, at which "
                           "these cells were judged. Each cell at the second study's chosen rate, dk 64 (slower.md).";
    int width = figure_width(MARGIN + nt * (PANEL_W + MARGIN) + LEGEND_W), top = figure_top(width, title, subtitle);
    Plot plot;
    Svg *s = plot_open(&plot, dir, "slower.svg", width, top + PANEL_H + 100);
    const char *labels[MAX_SLOWER_CELLS + 1];
    SvgStyle styles[MAX_SLOWER_CELLS + 1];
    const SvgStyle *sp[MAX_SLOWER_CELLS + 1];
    char names[MAX_SLOWER_CELLS][192];
    int nl = 0;
    for (int k = 0; k < nt; k++) {
        SvgPanel p = {MARGIN + k * (PANEL_W + MARGIN), top, PANEL_W, PANEL_H, {0, last, SVG_LINEAR, "step", NULL, 0},
                      accuracy_axis("share of runs that learned"), tasks[k]};
        svg_panel(s, &p);
        double budget = study_budget(tasks[k]), bx[2] = {budget, budget}, by[2] = {0, 1};
        SvgStyle budget_style = {"#888888", "2,3", SVG_NO_MARKER, 1, SVG_FILLED};
        if (isfinite(budget)) svg_series(s, &p, bx, by, 2, &budget_style);
        for (int c = 0; c < nc; c++) {
            if (strcmp(cells[c].task, tasks[k])) continue;
            int n = cell_times(&cells[c], t, e);
            double *ct = mem_alloc(sizeof(double) * (size_t)(n + 1)), *cs = mem_alloc(sizeof(double) * (size_t)(n + 1));
            int m = stats_km_curve(t, e, n, ct, cs);
            /* the staircase: (0, 0), then at each event time a riser, then along to the last step */
            double *x = mem_alloc(sizeof(double) * (size_t)(2 * m + 2)), *y = mem_alloc(sizeof(double) * (size_t)(2 * m + 2));
            int np = 0;
            x[np] = 0, y[np++] = 0;
            for (int j = 0; j < m; j++) {
                x[np] = ct[j], y[np++] = j ? 1 - cs[j - 1] : 0;
                x[np] = ct[j], y[np++] = 1 - cs[j];
            }
            x[np] = last, y[np++] = m ? 1 - cs[m - 1] : 0;
            SvgStyle st = scale_style(cells[c].scale, 0, 2);
            st.marker = SVG_NO_MARKER;
            if (strstr(cells[c].variant, "attn=")) st.dash = "6,3";
            svg_series(s, &p, x, y, np, &st);
            if (nl < MAX_SLOWER_CELLS) {
                char name[128];
                cell_name(name, sizeof name, &cells[c]);
                snprintf(names[nl], sizeof names[nl], "%s: %s (%d runs)", cells[c].task, name, n);
                styles[nl] = st;
                labels[nl] = names[nl];
                sp[nl] = &styles[nl];
                nl++;
            }
            mem_free(x);
            mem_free(y);
            mem_free(ct);
            mem_free(cs);
        }
    }
    figure_titles(s, width, title, subtitle);
    svg_legend(s, MARGIN + nt * (PANEL_W + MARGIN) - 30, top, LEGEND_W - 10, labels, sp, nl);
    plot_close(&plot);
}

bool write_slower(const char *dir, const Row *rows, int n_rows)
{
    SlowerCell cells[MAX_SLOWER_CELLS];
    int nc = slower_cells(rows, n_rows, cells);
    if (nc == 0) return false;
    double *t = mem_alloc(sizeof(double) * (size_t)(n_rows + 1)), *tr = mem_alloc(sizeof(double) * (size_t)(n_rows + 1));
    bool *e = mem_alloc(sizeof(bool) * (size_t)(n_rows + 1)), *er = mem_alloc(sizeof(bool) * (size_t)(n_rows + 1));
    OutFile o;
    FILE *f = out_open(&o, dir, "slower.md");
    fprintf(f, "# Fails, or slower? Five times the budget\n\n"
               "Made by ./report from runs.csv: the runs of stage %s (docs/ablation/DESIGN.md, \"Pre-registration: fails, "
               "or slower?\"). Steps to learn: the first logged step whose mean training loss is at most the loss threshold; "
               "a run that never reaches it is censored at its last step. Learned: such runs, with the 95 %% Wilson interval. "
               "Success: test accuracy at the end at least the task's threshold (outcomes.md's).\n\n"
               "| task | cell | lr | steps | runs | learned [95 %%] | Kaplan–Meier median steps | successes |\n"
               "|---|---|---:|---|---:|---|---:|---:|\n",
            SLOWER_STAGE);
    for (int c = 0; c < nc; c++) {
        int n = cell_times(&cells[c], t, e), ev = 0, succ = 0, counted = 0;
        for (int i = 0; i < n; i++) ev += e[i];
        const OutcomeTask *task = outcome_task(cells[c].task);
        for (int i = 0; i < cells[c].n; i++)
            if (isfinite(cells[c].runs[i]->value[M_TEST_ACC])) {
                counted++;
                succ += task && cells[c].runs[i]->value[M_TEST_ACC] >= task->threshold;
            }
        StatsInterval w = stats_wilson(ev, n);
        StatsKm km = stats_km_median(t, e, n);
        char name[128], med[32];
        cell_name(name, sizeof name, &cells[c]);
        if (isnan(km.median)) snprintf(med, sizeof med, "not reached");
        else snprintf(med, sizeof med, "%.0f", km.median);
        const char *steps = strstr(cells[c].variant, "steps=");
        fprintf(f, "| %s | %s | %s | %s | %d | %d/%d [%.2f, %.2f] | %s | ", cells[c].task, name, cells[c].lr, steps ? steps + 6 : "?",
                n, ev, n, w.lo, w.hi, med);
        if (task) fprintf(f, "%d/%d |\n", succ, counted);
        else fprintf(f, "– |\n");
    }
    /* the contrasts: each cell but the references against its task's reference */
    int from[MAX_SLOWER_CELLS], to[MAX_SLOWER_CELLS], m = 0;
    double p[MAX_SLOWER_CELLS], adj[MAX_SLOWER_CELLS], judged[MAX_SLOWER_CELLS], excess[MAX_SLOWER_CELLS];
    int events[MAX_SLOWER_CELLS], ref_events[MAX_SLOWER_CELLS];
    for (int c = 0; c < nc; c++) {
        int r = reference_of(cells, nc, c);
        if (r < 0) continue; /* a reference itself, or a cell without one */
        int na = cell_times(&cells[c], t, e), nb = cell_times(&cells[r], tr, er);
        events[m] = ref_events[m] = 0;
        for (int i = 0; i < na; i++) events[m] += e[i];
        for (int i = 0; i < nb; i++) ref_events[m] += er[i];
        p[m] = stats_logrank(t, e, na, tr, er, nb);
        excess[m] = stats_logrank_excess(t, e, na, tr, er, nb);
        from[m] = c;
        to[m++] = r;
    }
    stats_holm(p, m, adj);
    stats_holm_alpha(p, m, OUTCOME_ALPHA, judged);
    fprintf(f, "\n## Contrasts: the log-rank test, Holm over %d\n\n"
               "O − E: the cell's runs that learned minus those expected were it like 1/√dₖ (below 0: slower). Verdict at "
               "Holm's p < %.2f: \"slower\" (O − E < 0, some run learned), \"fails within the budget\" (no run learned), "
               "\"faster\" (O − E > 0); else \"not distinguishable\", with its MDD: the ratio of a's rate of learning to b's at "
               "which the test, at the α it is judged at, detects the slowdown with probability 0.8 (a ratio nearer 1 may "
               "go undetected; simulated: exponential steps to learn, b's share learned as observed, kept within half a "
               "run of 0 and 1; the seeds were sized to detect a ratio of ¼: DESIGN.md).\n\n| task | a | b | learned a / b | O − E | p | Holm p | judged at | verdict |\n"
               "|---|---|---|---|---:|---:|---:|---:|---|\n",
            m, OUTCOME_ALPHA);
    for (int k = 0; k < m; k++) {
        const SlowerCell *a = &cells[from[k]], *b = &cells[to[k]];
        char na[128], nb[128];
        cell_name(na, sizeof na, a);
        cell_name(nb, sizeof nb, b);
        char verdict[160];
        if (isnan(adj[k])) snprintf(verdict, sizeof verdict, "no test (no run learned on either side)");
        else if (adj[k] < OUTCOME_ALPHA)
            snprintf(verdict, sizeof verdict, "%s", excess[k] > 0 ? "faster" : events[k] == 0 ? "fails within the budget" : "slower");
        else {
            /* the MDD at b's observed share learned, kept off 0 and 1 by half a run */
            double p_ref = fmin(fmax((double)ref_events[k], 0.5), b->n - 0.5) / b->n;
            double mdd = stats_mdd_logrank(p_ref, a->n, b->n, judged[k]);
            if (isnan(mdd)) snprintf(verdict, sizeof verdict, "not distinguishable (MDD: none)");
            else snprintf(verdict, sizeof verdict, "not distinguishable (MDD: a rate ratio of %.2f)", mdd);
        }
        fprintf(f, "| %s | %s | %s | %d/%d / %d/%d | %.2f | %.2g | %.2g | %.4f | %s |\n", a->task, na, nb, events[k], a->n, ref_events[k],
                b->n, excess[k], p[k], adj[k], judged[k], verdict);
    }
    out_close(&o);
    draw_slower_svg(dir, cells, nc, t, e);
    for (int c = 0; c < nc; c++) mem_free(cells[c].runs);
    mem_free(t);
    mem_free(tr);
    mem_free(e);
    mem_free(er);
    return true;
}
