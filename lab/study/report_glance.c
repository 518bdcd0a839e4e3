/* report_glance.c - one run or a few at a glance, from the CSV logs ./train --log writes.
 *
 *   ./report run.csv [run2.csv ...] [--out DIR]
 *
 * One SVG with a panel per quantity, every run on the same axes: the training loss, the
 * held-out accuracy (at the evaluation steps), the std of the scaled scores s·q·k, the attention
 * entropy ÷ log(visible keys), the gradient norms of Wq and Wk, and the global gradient norm
 * (the attention statistics as means over layers). Each run has its own colour and marker, and
 * the legend names it by the flags in which the runs differ, read from the first line of each
 * log: the command that makes the run's model, which ./train writes there ("# ./train
 * --scale=1 --dk=64"; a log without it is named by its file). Then a table on standard output:
 * per run, its last step, final loss, last held-out accuracy, score std and entropy at the first
 * and the last row, and its steps with a NaN.
 */
#include "report_glance.h"

#include "report_common.h"
#include "report_figure.h"
#include "report_log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RUNS = 64, MAX_FLAGS = 128, LABEL_LEN = 160 };

typedef struct GlanceRun {
    const char *path;
    LogTable log;
    char stem[256];        /* the file name without its folder and .csv */
    char label[LABEL_LEN]; /* the legend's name: the flags in which it differs from the others */
} GlanceRun;

/* ------------------------------------------------------------------ names from the flags */

typedef struct Flag {
    char name[64], value[256];
} Flag;

/* The flags "--name=value" of a command, quoted as options_command_line writes them ('a b',
 * with '\'' for a quote); the first word (the program) is not one. Returns how many. */
static int command_flags(const char *command, Flag *out, int max)
{
    int n = 0, words = 0;
    const char *p = command;
    while (*p && n < max) {
        while (*p == ' ') p++;
        char word[320];
        size_t len = 0;
        for (bool quoted = false; *p && (quoted || *p != ' '); p++) {
            char ch = *p;
            if (ch == '\'') {
                quoted = !quoted;
                continue;
            }
            if (ch == '\\' && !quoted && p[1]) ch = *++p; /* \' between quoted parts */
            if (len + 1 < sizeof word) word[len++] = ch;
        }
        word[len] = 0;
        if (words++ == 0 || strncmp(word, "--", 2)) continue;
        const char *eq = strchr(word, '=');
        snprintf(out[n].name, sizeof out[n].name, "%.*s", (int)(eq ? eq - word - 2 : (long)len - 2), word + 2);
        snprintf(out[n].value, sizeof out[n].value, "%s", eq ? eq + 1 : "1");
        n++;
    }
    return n;
}

/* The value of flag `name` among flags, or "default" (options_command_line leaves defaults out). */
static const char *flag_value(const Flag *flags, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(flags[i].name, name)) return flags[i].value;
    return "default";
}

/* ", name=value" at the end of a label (cut short with "…" where it does not fit). */
static void append_flag(char *label, const char *name, const char *value)
{
    size_t len = strlen(label), room = LABEL_LEN - len;
    int w = snprintf(label + len, room, "%s%s=%s", len ? ", " : "", name, value);
    if (w >= 0 && (size_t)w < room) return;
    snprintf(label + LABEL_LEN - sizeof "…", sizeof "…", "…");
}

/* Each run's label: "name=value, ..." over the flags whose values are not the same in every
 * run; the file's name when the runs' commands do not tell them apart (or are not known). */
static void label_runs(GlanceRun *runs, int n)
{
    static Flag flags[MAX_RUNS][MAX_FLAGS];
    int nf[MAX_RUNS];
    bool known = true;
    for (int r = 0; r < n; r++) {
        nf[r] = runs[r].log.command ? command_flags(runs[r].log.command, flags[r], MAX_FLAGS) : 0;
        known &= runs[r].log.command != NULL;
        runs[r].label[0] = 0;
    }
    for (int r = 0; known && r < n; r++)
        for (int i = 0; i < nf[r]; i++) { /* each name once: where it first appears */
            const char *name = flags[r][i].name;
            bool seen = false, differs = false;
            for (int q = 0; q < r && !seen; q++) seen = strcmp(flag_value(flags[q], nf[q], name), "default") != 0;
            for (int q = 1; q < n; q++)
                differs |= strcmp(flag_value(flags[q], nf[q], name), flag_value(flags[0], nf[0], name)) != 0;
            if (seen || !differs) continue;
            for (int q = 0; q < n; q++) append_flag(runs[q].label, name, flag_value(flags[q], nf[q], name));
        }
    for (int r = 0; r < n; r++)
        if (!runs[r].label[0]) snprintf(runs[r].label, LABEL_LEN, "%s", runs[r].stem);
}

/* ------------------------------------------------------------------ the figure */

/* The quantities drawn, a panel each; `dashed`: a second column drawn dashed in the same panel. */
typedef enum AxisFrom { AXIS_FROM_ZERO, AXIS_ZERO_TO_ONE, AXIS_DECADES } AxisFrom;
static const struct {
    const char *title, *y_label;
    LogColumnId column;
    int dashed; /* a LogColumnId, or -1 */
    AxisFrom axis;
} g_panels[] = {
    {"training loss", "nats per target token", LOG_LOSS, -1, AXIS_FROM_ZERO},
    {"held-out accuracy (evaluation steps)", "exact-match accuracy", LOG_VAL_ACC, -1, AXIS_ZERO_TO_ONE},
    {"std of the scores s·q·k", "mean over layers (log)", LOG_SCORE_STD, -1, AXIS_DECADES},
    {"attention entropy ÷ log(visible keys)", "mean over layers (1: uniform)", LOG_ENTROPY_NORM, -1, AXIS_ZERO_TO_ONE},
    {"‖∇Wq‖ (solid) and ‖∇Wk‖ (dashed)", "mean over layers (log)", LOG_GNORM_WQ, LOG_GNORM_WK, AXIS_DECADES},
    {"global gradient norm, before clipping", "norm (log)", LOG_GRAD_NORM, -1, AXIS_DECADES},
};
enum { N_PANELS = (int)(sizeof g_panels / sizeof g_panels[0]), PANEL_COLS = 3 };

/* Run r's style: a colour and a marker of its own, a solid line. */
static SvgStyle run_style(int r)
{
    static const char *const colors[10] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                           "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
    static const SvgShape shapes[6] = {SVG_CIRCLE, SVG_SQUARE, SVG_TRIANGLE, SVG_DIAMOND, SVG_CROSS, SVG_PLUS};
    return (SvgStyle){colors[r % 10], NULL, shapes[r % 6], 1.6, SVG_FILLED};
}

/* The points of column c of run r with a value: x the steps, y the values (the mean over
 * layers); where an evaluation column has none (the other steps) the point is left out, where
 * another column holds a NaN the line breaks. Returns how many. */
static int column_points(const GlanceRun *run, LogColumnId c, double *x, double *y)
{
    int n = 0;
    for (int i = 0; i < run->log.rows; i++) {
        double v = log_table_mean(&run->log, c, i);
        if (isnan(v) && g_log_columns[c].filled == LOG_EVAL_ROWS) continue;
        x[n] = log_table_mean(&run->log, LOG_STEP, i);
        y[n++] = v;
    }
    return n;
}

/* The y axis of panel k over every run's values. */
static SvgAxis panel_y_axis(const GlanceRun *runs, int n, int k, double *x, double *y)
{
    if (g_panels[k].axis == AXIS_ZERO_TO_ONE) return accuracy_axis(g_panels[k].y_label);
    double lo = INFINITY, hi = -INFINITY;
    for (int r = 0; r < n; r++)
        for (int pass = 0; pass < 2; pass++) {
            int c = pass ? g_panels[k].dashed : (int)g_panels[k].column;
            for (int i = c < 0 ? 0 : column_points(&runs[r], c, x, y); i-- > 0;)
                if (isfinite(y[i]) && (g_panels[k].axis != AXIS_DECADES || y[i] > 0)) {
                    lo = fmin(lo, y[i]);
                    hi = fmax(hi, y[i]);
                }
        }
    if (g_panels[k].axis == AXIS_DECADES) return svg_axis_for(lo, hi, SVG_LOG, g_panels[k].y_label);
    SvgAxis a = {0, hi > 0 && isfinite(hi) ? hi * 1.05 : 1, SVG_LINEAR, g_panels[k].y_label, NULL, 0}; /* from 0 */
    return a;
}

/* Panel k: every run's line (markers at about 8 points each; at every point of an evaluation
 * column), and its second column dashed. */
static void draw_panel(Svg *s, const SvgPanel *panel, const GlanceRun *runs, int n, int k, double *x, double *y)
{
    for (int r = 0; r < n; r++)
        for (int pass = 0; pass < 2; pass++) {
            int c = pass ? g_panels[k].dashed : (int)g_panels[k].column;
            if (c < 0) continue;
            int m = column_points(&runs[r], c, x, y);
            SvgStyle st = run_style(r);
            st.marker = SVG_NO_MARKER;
            if (pass) st.dash = "5,3";
            svg_series(s, panel, x, y, m, &st);
            int every = g_log_columns[c].filled == LOG_EVAL_ROWS || m < 16 ? 1 : m / 8;
            SvgStyle mk = run_style(r);
            for (int j = r % every; j < m; j += every) svg_shape(s, panel, x[j], y[j], mk.marker, 3, mk.color, pass ? SVG_HOLLOW : SVG_FILLED);
        }
}

/* The legend, right of the panels: a line per run, its label (cut short with "…" past
 * LABEL_CHARS characters: the table on standard output has it whole). */
enum { GLANCE_LEGEND_W = 400, LABEL_CHARS = 48 };
static void runs_legend(Svg *s, double x, double y, const GlanceRun *runs, int n)
{
    static char shown[MAX_RUNS][LABEL_LEN + 8];
    const char *labels[MAX_RUNS + 1];
    SvgStyle styles[MAX_RUNS];
    const SvgStyle *ptr[MAX_RUNS + 1];
    for (int r = 0; r < n; r++) {
        styles[r] = run_style(r);
        ptr[r] = &styles[r];
        const char *label = runs[r].label;
        size_t cut = 0;
        for (int chars = 0; label[cut] && chars < LABEL_CHARS; chars++) /* whole UTF-8 characters */
            for (cut++; ((unsigned char)label[cut] & 0xC0) == 0x80; cut++) continue;
        snprintf(shown[r], sizeof shown[r], "%.*s%s", (int)cut, label, label[cut] ? "…" : "");
        labels[r] = shown[r];
    }
    ptr[n] = NULL;
    labels[n] = "each run: its colour and marker";
    svg_legend(s, x, y, GLANCE_LEGEND_W - 20, labels, ptr, n + 1);
}

static void draw_figure(const char *dir, const char *name, const GlanceRun *runs, int n)
{
    int max_rows = 1;
    double max_step = 1;
    for (int r = 0; r < n; r++) {
        max_rows = runs[r].log.rows > max_rows ? runs[r].log.rows : max_rows;
        max_step = fmax(max_step, log_table_mean(&runs[r].log, LOG_STEP, runs[r].log.rows - 1));
    }
    double *x = mem_alloc(sizeof(double) * (size_t)max_rows), *y = mem_alloc(sizeof(double) * (size_t)max_rows);
    char title[512];
    if (n == 1) snprintf(title, sizeof title, "%s: one run at a glance", runs[0].stem);
    else snprintf(title, sizeof title, "%d runs at a glance, named by the flags in which they differ", n);
    const char *subtitle = n == 1 && runs[0].log.command ? runs[0].log.command : "the attention statistics: means over layers";
    int rows = (N_PANELS + PANEL_COLS - 1) / PANEL_COLS;
    int width = figure_width(MARGIN + PANEL_COLS * (PANEL_W + MARGIN) + GLANCE_LEGEND_W), top = figure_top(width, title, subtitle);
    Plot plot;
    Svg *s = plot_open(&plot, dir, name, width, top + rows * (PANEL_H + 80));
    for (int k = 0; k < N_PANELS; k++) {
        SvgAxis steps = {0, max_step, SVG_LINEAR, "step", NULL, 0}; /* from 0: no step is below it */
        SvgPanel panel = {MARGIN + (k % PANEL_COLS) * (PANEL_W + MARGIN), top + (k / PANEL_COLS) * (PANEL_H + 80), PANEL_W,
                          PANEL_H, steps, panel_y_axis(runs, n, k, x, y), g_panels[k].title};
        svg_panel(s, &panel);
        draw_panel(s, &panel, runs, n, k, x, y);
    }
    mem_free(x);
    mem_free(y);
    figure_titles(s, width, title, subtitle);
    runs_legend(s, MARGIN + PANEL_COLS * (PANEL_W + MARGIN) - 30, top, runs, n);
    plot_close(&plot);
}

/* ------------------------------------------------------------------ the table */

/* The last value of column c in a run's log (an evaluation column: its last evaluation); NAN: none. */
static double last_value(const LogTable *t, LogColumnId c)
{
    for (int i = t->rows - 1; i >= 0; i--) {
        double v = log_table_mean(t, c, i);
        if (!isnan(v) || g_log_columns[c].filled != LOG_EVAL_ROWS) return v;
    }
    return NAN;
}

static void print_table(const GlanceRun *runs, int n)
{
    int w = 3; /* the labels' column: as wide as the longest */
    for (int r = 0; r < n; r++) w = (int)strlen(runs[r].label) > w ? (int)strlen(runs[r].label) : w;
    printf("%-*s %6s %10s %7s %15s %9s %13s %7s %9s\n", w, "run", "steps", "final loss", "val acc", "score std first", "last",
           "H/log n first", "last", "NaN steps");
    for (int r = 0; r < n; r++) {
        const LogTable *t = &runs[r].log;
        int last = t->rows - 1;
        printf("%-*s %6.0f %10.4g %7.3f %15.3g %9.3g %13.3f %7.3f %9.0f\n", w, runs[r].label,
               log_table_mean(t, LOG_STEP, last), log_table_mean(t, LOG_LOSS, last), last_value(t, LOG_VAL_ACC),
               log_table_mean(t, LOG_SCORE_STD, 0), log_table_mean(t, LOG_SCORE_STD, last), log_table_mean(t, LOG_ENTROPY_NORM, 0),
               log_table_mean(t, LOG_ENTROPY_NORM, last), log_table_mean(t, LOG_NAN_COUNT, last));
    }
}

/* ------------------------------------------------------------------ all of it */

/* The file name of path without its folder and a ".csv". */
static void stem_of(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && !strcmp(base + len - 4, ".csv")) len -= 4;
    snprintf(out, n, "%.*s", (int)len, base);
}

void report_glance(const char *const *logs, int n_logs, const char *dir)
{
    if (n_logs > MAX_RUNS) die(EXIT_USER, "%d logs: at most %d runs are drawn together", n_logs, MAX_RUNS);
    GlanceRun *runs = mem_alloc(sizeof(GlanceRun) * (size_t)n_logs);
    for (int r = 0; r < n_logs; r++) {
        runs[r].path = logs[r];
        log_table_read(&runs[r].log, logs[r], NULL);
        log_table_require_whole(&runs[r].log, logs[r]);
        stem_of(logs[r], runs[r].stem, sizeof runs[r].stem);
    }
    label_runs(runs, n_logs);
    char name[400];
    if (n_logs == 1) snprintf(name, sizeof name, "%s.svg", runs[0].stem);
    else snprintf(name, sizeof name, "%s_and_%d_more.svg", runs[0].stem, n_logs - 1);
    out_make_dirs(dir);
    draw_figure(dir, name, runs, n_logs);
    printf("report: %d run%s -> %s/%s\n", n_logs, n_logs == 1 ? "" : "s", dir, name);
    print_table(runs, n_logs);
    for (int r = 0; r < n_logs; r++) log_table_free(&runs[r].log);
    mem_free(runs);
}
