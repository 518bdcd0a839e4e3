/* report_plot_outcomes.c - see report_plot_outcomes.h.
 *
 * outcomes_TASK.svg answers "what did every test run of this cell do?", which a mean and its
 * bar cannot when a cell's runs either learn or stay at guessing. One column per cell of the
 * design (outcome_study_cells: the primaries' sides, then the secondary cells, in the order of
 * ./report --design), each from the stage outcome_find picks for it (never the sweep, stage
 * "lr"), at its chosen rate:
 *   - every run as a small disc, spread sideways by its place in the cell (deterministic), so
 *     that equal accuracies stay visible;
 *   - beside them the statistic the task's verdicts are read from: for a task decided by
 *     Fisher's test (bimodal outcomes) the success fraction with its 95 % Wilson interval, a
 *     hollow diamond; for the sign-flip test the mean with its 95 % t interval, a filled square;
 *   - "n=K" under each column (and "of N" when planned runs are missing), its name below;
 *   - the task's chance level (dashed) and success threshold (dotted) across the panel, labelled,
 *     both from g_outcome_tasks.
 * The y axis is test accuracy 0..1; a success fraction is drawn on the same 0..1 scale. */
#include "report_plot_outcomes.h"

#include "report_common.h"
#include "report_figure.h"
#include "report_outcomes.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A column's width; the panel's height; where a column's discs and its statistic stand, in
 * pixels from its centre (the discs spread over DOTS_SPREAD pixels around DOTS_AT). */
enum { COLUMN_W = 88, OUTCOME_PANEL_H = 300, DOTS_AT = -14, DOTS_SPREAD = 20, STAT_AT = 16, LABEL_SIZE = 11 };
/* Below the panel: the n of each column, then its name, a line of LABEL_SIZE text each 1.3 em apart. */
enum { N_BELOW = 16, NAME_BELOW = 32 };
/* The legend's box, wider than the other figures': its entries say what each mark is. */
enum { OUTCOME_LEGEND_W = 320 };

/* A column: a cell of the design and the cell of runs that stands for it. */
typedef struct OutcomeColumn {
    StudyCell cell;
    bool primary;
    const Cell *runs;
} OutcomeColumn;

/* The cells of the design that have runs of task t outside stage "lr", in the design's order;
 * how many (of *planned, the design's cells). */
static int outcome_columns(const Cells *cs, const OutcomeTask *t, OutcomeColumn *out, int *planned)
{
    StudyCell cells[MAX_STUDY_CELLS];
    bool primary[MAX_STUDY_CELLS];
    int n = 0;
    *planned = outcome_study_cells(cells, primary);
    for (int i = 0; i < *planned; i++) {
        const Cell *c = outcome_find(cs, t->task, cells[i].optim, &cells[i].side, cells[i].dk);
        if (c) out[n++] = (OutcomeColumn){cells[i], primary[i], c};
    }
    return n;
}

/* The lines of a column's name: its variant (without "attn="), its scale, its dk; how many. */
static int column_name(const StudyCell *c, char lines[3][64])
{
    int n = 0;
    const char *variant = c->side.variant;
    if (!strncmp(variant, "attn=", 5)) variant += 5;
    if (strcmp(variant, "-")) snprintf(lines[n++], 64, "%s", variant);
    if (!scale_is_none(c->side.scale)) snprintf(lines[n++], 64, "s = %s", scale_label(c->side.scale, SCALE_PLOT));
    snprintf(lines[n++], 64, "dk %.0f", c->dk);
    return n;
}

/* How many lines of text the names of the columns take at most (for the figure's height). */
static int name_lines(const OutcomeColumn *cols, int n)
{
    int most = 1;
    for (int j = 0; j < n; j++) {
        char lines[3][64];
        int k = column_name(&cols[j].cell, lines), total = 0;
        for (int l = 0; l < k; l++) total += svg_text_lines(lines[l], LABEL_SIZE, COLUMN_W - 6);
        most = total > most ? total : most;
    }
    return most;
}

/* The x (in the panel's units: column j spans [j, j + 1]) that stands `pixels` right of
 * column j's centre. */
static double column_x(int j, double pixels) { return j + 0.5 + pixels / COLUMN_W; }

/* Where run k of a column stands sideways: the fractional parts of k times the golden ratio
 * spread any number of runs evenly over the width, the same every time. */
static double dot_offset(int k)
{
    double f = fmod(k * 0.6180339887498949, 1.0);
    return DOTS_AT + DOTS_SPREAD * (f - 0.5);
}

/* Column j's runs as discs, in its scale's colour; returns how many counted. */
static int draw_runs(Svg *s, const SvgPanel *panel, int j, const Cell *c, const char *color)
{
    int k = 0;
    for (int i = 0; i < c->n; i++) {
        const Row *r = c->runs[i];
        if (!outcome_counts(r)) continue;
        char title[256];
        snprintf(title, sizeof title, "%s: test accuracy %s (seed %ld)", r->job[JOB_ID], r->metric[M_TEST_ACC], r->seed);
        svg_dot(s, panel, column_x(j, dot_offset(k++)), r->value[M_TEST_ACC], 3, color, "seed", title);
    }
    return k;
}

/* Beside the discs, the statistic of the task's test: the success fraction with its Wilson
 * interval (Fisher), or the mean with its t interval (sign-flip). */
static void draw_statistic(Svg *s, const SvgPanel *panel, int j, const Cell *c, const OutcomeTask *t)
{
    double x = column_x(j, STAT_AT);
    if (t->test == OUTCOME_FISHER) {
        OutcomeCell o = outcome_cell(c, t);
        svg_error_bar(s, panel, x, o.wilson.lo, o.wilson.hi, "#000000");
        svg_shape(s, panel, x, o.wilson.est, SVG_DIAMOND, 5, "#000000", SVG_HOLLOW);
        return;
    }
    double *v = mem_alloc(sizeof(double) * (size_t)(c->n + 1));
    int n = 0;
    for (int i = 0; i < c->n; i++)
        if (outcome_counts(c->runs[i])) v[n++] = c->runs[i]->value[M_TEST_ACC];
    StatsCi ci = stats_ci95(v, n);
    mem_free(v);
    if (ci.defined) svg_error_bar(s, panel, x, clip01(ci.lo), clip01(ci.hi), "#000000");
    svg_shape(s, panel, x, ci.mean, SVG_SQUARE, 4, "#000000", SVG_FILLED);
}

/* Under column j: its n (of the planned runs, when some are missing), then its name. */
static void draw_column_text(Svg *s, const SvgPanel *panel, int j, int counted, const OutcomeColumn *col)
{
    double centre = panel->left + (j + 0.5) * COLUMN_W, bottom = panel->top + panel->height;
    char n_text[64], lines[3][64];
    if (counted < col->runs->n) snprintf(n_text, sizeof n_text, "n=%d of %d", counted, col->runs->n);
    else snprintf(n_text, sizeof n_text, "n=%d", counted);
    svg_text(s, centre, bottom + N_BELOW, LABEL_SIZE, "middle", n_text);
    int k = column_name(&col->cell, lines), drawn = 0;
    for (int l = 0; l < k; l++)
        drawn += svg_text_wrapped_at(s, centre, bottom + NAME_BELOW + 1.3 * LABEL_SIZE * drawn, LABEL_SIZE, COLUMN_W - 6,
                                     "middle", lines[l]);
}

/* A group's name centred at x, on one line: the long one when it fits in the group's width. */
static void group_name(Svg *s, double x, double y, double width, const char *name, const char *short_name)
{
    svg_text(s, x, y, 12, "middle", svg_text_width(name, 12) <= width ? name : short_name);
}

/* The two groups of columns named above the panel, a dashed line between them. */
static void draw_groups(Svg *s, const SvgPanel *panel, int n_primary, int n)
{
    static const SvgStyle split = {"#999999", "4,4", SVG_NO_MARKER, 1, SVG_FILLED};
    double y = panel->top - 8;
    if (n_primary > 0)
        group_name(s, panel->left + n_primary * COLUMN_W / 2.0, y, n_primary * COLUMN_W - 6, "sides of the primary contrasts",
                   "primary");
    if (n > n_primary)
        group_name(s, panel->left + (n_primary + n) * COLUMN_W / 2.0, y, (n - n_primary) * COLUMN_W - 6, "secondary cells",
                   "secondary");
    if (n_primary > 0 && n > n_primary) {
        double x[2] = {n_primary, n_primary}, yy[2] = {panel->y.lo, panel->y.hi};
        svg_series(s, panel, x, yy, 2, &split);
    }
}

/* The chance level (dashed) and the success threshold (dotted), labelled at the right, where
 * the panel keeps a column's width free of runs for them. */
static const SvgStyle g_chance_style = {"#555555", "6,4", SVG_NO_MARKER, 1.2, SVG_FILLED};
static const SvgStyle g_threshold_style = {"#555555", "1.5,3", SVG_NO_MARKER, 1.5, SVG_FILLED};
static void draw_reference_lines(Svg *s, const SvgPanel *panel, const OutcomeTask *t)
{
    char chance[64], threshold[64];
    snprintf(chance, sizeof chance, "chance %.3f", t->chance);
    snprintf(threshold, sizeof threshold, "success ≥ %.2f", t->threshold);
    svg_hline_styled(s, panel, t->chance, &g_chance_style, "chance", chance, "end");
    svg_hline_styled(s, panel, t->threshold, &g_threshold_style, "threshold", threshold, "end");
}

/* The stages the columns' runs come from, "test" or "headline, dk16", into buf. */
static void stages_text(char *buf, size_t len, const OutcomeColumn *cols, int n)
{
    const char *seen[MAX_STUDY_CELLS];
    int k = 0;
    buf[0] = 0;
    for (int j = 0; j < n; j++) {
        const char *stage = cell_row(cols[j].runs)->job[JOB_STAGE];
        int i = 0;
        while (i < k && strcmp(seen[i], stage)) i++;
        if (i < k) continue;
        seen[k++] = stage;
        strncat(buf, k > 1 ? ", " : "", len - strlen(buf) - 1);
        strncat(buf, stage, len - strlen(buf) - 1);
    }
}

/* The subtitle: what a disc and the statistic are, why that statistic, what is left out. */
static void outcome_subtitle(char *buf, size_t len, const OutcomeTask *t, int n, int planned)
{
    char missing[96] = "";
    if (n < planned) snprintf(missing, sizeof missing, " %d of the design's %d cells have test runs.", n, planned);
    if (t->test == OUTCOME_FISHER)
        snprintf(buf, len,
                 "Each cell at its chosen learning rate; a disc: one run (seed), spread sideways. Beside them the success "
                 "fraction (runs with test accuracy ≥ %.2f) with its 95 %% Wilson interval, on the same 0–1 axis: %s's "
                 "runs either learn or stay near chance, so its verdicts are Fisher's test on these counts, not a mean. "
                 "No run of the learning-rate sweep (stage %s) is drawn.%s",
                 t->threshold, t->task, LR_STAGE, missing);
    else
        snprintf(buf, len,
                 "Each cell at its chosen learning rate; a disc: one run (seed), spread sideways. Beside them the mean "
                 "with its 95 %% t interval: %s's verdicts are the sign-flip test on the test accuracy paired by seed. "
                 "No run of the learning-rate sweep (stage %s) is drawn.%s",
                 t->task, LR_STAGE, missing);
}

static void outcome_legend(Svg *s, double x, double y, const OutcomeTask *t)
{
    static const SvgStyle run = {"#777777", NULL, SVG_CIRCLE, 0, SVG_FILLED};
    static const SvgStyle fraction = {"#000000", NULL, SVG_DIAMOND, 0, SVG_HOLLOW};
    static const SvgStyle mean = {"#000000", NULL, SVG_SQUARE, 0, SVG_FILLED};
    char chance[160], threshold[96];
    snprintf(chance, sizeof chance, "chance: %.3f (%s)", t->chance, t->chance_note);
    snprintf(threshold, sizeof threshold, "success: test accuracy ≥ %.2f", t->threshold);
    const char *labels[6] = {"one run (seed), in the colour of its cell's scale",
                             t->test == OUTCOME_FISHER ? "success fraction, 95 % Wilson interval (the task's test: Fisher)"
                                                       : "mean, 95 % t interval (the task's test: sign-flip)",
                             chance, threshold, "n: test runs per column", "no sweep (lr) run drawn"};
    const SvgStyle *styles[6] = {&run, t->test == OUTCOME_FISHER ? &fraction : &mean, &g_chance_style, &g_threshold_style,
                                 NULL, NULL};
    svg_legend(s, x, y, OUTCOME_LEGEND_W, labels, styles, 6);
}

bool plot_outcomes(const char *dir, const Cells *cs, const OutcomeTask *t)
{
    OutcomeColumn cols[MAX_STUDY_CELLS];
    int planned, n = outcome_columns(cs, t, cols, &planned), n_primary = 0;
    if (n == 0) return false;
    while (n_primary < n && cols[n_primary].primary) n_primary++;
    char name[256], title[512], subtitle[1024], stages[256];
    stages_text(stages, sizeof stages, cols, n);
    snprintf(name, sizeof name, "outcomes_%s.svg", t->task);
    snprintf(title, sizeof title, "%s: the test accuracy of every run, per cell of the design (stage %s)", t->task, stages);
    outcome_subtitle(subtitle, sizeof subtitle, t, n, planned);
    /* the panel: a column per cell, and one more column's width at the right for the lines' labels */
    double panel_w = (n + 1) * COLUMN_W;
    int width = figure_width(MARGIN + (int)panel_w + MARGIN + OUTCOME_LEGEND_W), top = figure_top(width, title, subtitle) + 10;
    int height = top + OUTCOME_PANEL_H + NAME_BELOW + (int)ceil(1.3 * LABEL_SIZE * name_lines(cols, n)) + 20;
    static const double no_ticks[1] = {0};
    SvgPanel panel = {MARGIN, top, panel_w, OUTCOME_PANEL_H, {0, n + 1, SVG_LINEAR, NULL, no_ticks, 0},
                      accuracy_axis("test accuracy (exact match)"), NULL};
    Plot plot;
    Svg *s = plot_open(&plot, dir, name, width, height);
    svg_panel(s, &panel);
    draw_groups(s, &panel, n_primary, n);
    draw_reference_lines(s, &panel, t);
    for (int j = 0; j < n; j++) {
        int counted = draw_runs(s, &panel, j, cols[j].runs, figure_scale_style(cols[j].cell.side.scale).color);
        draw_statistic(s, &panel, j, cols[j].runs, t);
        draw_column_text(s, &panel, j, counted, &cols[j]);
    }
    figure_titles(s, width, title, subtitle);
    outcome_legend(s, MARGIN + panel_w + MARGIN - 30, top, t);
    plot_close(&plot);
    return true;
}
