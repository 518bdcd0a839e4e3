/* report.c - ./report DIR: summarises a grid of ./train runs made by scripts/ablation.sh.
 *
 * Reads DIR/runs/<task>_scale-<scale>_dk<dk>_seed<seed>.csv (the --log of each run) and the
 * matching .out (its console output, for the summary line), groups the runs by
 * (task, scale, dk), and writes, with mean and standard deviation over seeds:
 *   DIR/summary.csv, DIR/summary.md, and the plots DIR/loss_<task>.svg and DIR/vs_dk_<task>.svg.
 * Exit status 2 when DIR holds no complete run or a file cannot be read.
 */
#define _POSIX_C_SOURCE 200809L /* opendir */

#include "svg.h"

#include "../base/base.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RUNS = 4096, MAX_COLS = 256, MAX_LAYERS = 24, MAX_GROUPS = 512 };

typedef struct Run {
    char task[32], scale[32];
    int dk, seed;
    int rows, cols;
    char *names[MAX_COLS];
    double *table;             /* rows x cols, NAN where a cell is empty */
    double steps_to_threshold; /* NAN when never reached */
    long steps;                /* the run's length, from its summary line */
} Run;

/* The per-run numbers the summary reports. */
enum Metric {
    M_FINAL_LOSS, M_VAL_LOSS, M_VAL_ACC, M_STEPS, M_STD_INIT, M_STD_END, M_ENT_INIT, M_ENT_END,
    M_MAXW_END, M_GQ_INIT, M_GK_INIT, M_NAN, M_SCALE_END, N_METRICS
};
static const char *const g_metric_names[N_METRICS] = {
    "final_loss", "val_loss", "val_acc", "steps_to_threshold", "score_std_init", "score_std_end",
    "entropy_norm_init", "entropy_norm_end", "max_weight_end", "gnorm_wq_init", "gnorm_wk_init", "nan_count",
    "scale_x_sqrt_dk_end"};

typedef struct Group {
    char task[32], scale[32];
    int dk;
    int runs[64];
    int n;
    double mean[N_METRICS], std[N_METRICS];
    int count[N_METRICS];      /* runs where the metric exists (steps: runs that reached the threshold) */
} Group;

static Run g_runs[MAX_RUNS];
static int g_n_runs;
static Group g_groups[MAX_GROUPS];
static int g_n_groups;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "error: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

/* ------------------------------------------------------------------ reading runs */

static int column(const Run *r, const char *name)
{
    for (int c = 0; c < r->cols; c++)
        if (!strcmp(r->names[c], name)) return c;
    return -1;
}

static double cell(const Run *r, int row, const char *name)
{
    int c = column(r, name);
    return c < 0 || row < 0 || row >= r->rows ? NAN : r->table[(size_t)row * r->cols + c];
}

static int layers_of(const Run *r)
{
    int l = 0;
    char name[64];
    for (;; l++) {
        snprintf(name, sizeof name, "l%d_score_std", l);
        if (column(r, name) < 0) return l;
    }
}

/* Mean over layers of lN_<what> in a row. */
static double layer_mean(const Run *r, int row, const char *what)
{
    int L = layers_of(r);
    double s = 0;
    char name[64];
    for (int l = 0; l < L; l++) {
        snprintf(name, sizeof name, "l%d_%s", l, what);
        s += cell(r, row, name);
    }
    return L ? s / L : NAN;
}

/* Reads a run's CSV log. Every row must be whole: as many fields as the header, each a number
 * or empty, and a line end; the last row must be the run's last step. A log cut short (a full
 * disk, a copy interrupted) is an error naming the file and line, never a partial summary. */
static void read_csv(Run *r, const char *path)
{
    char why[256];
    FILE *f = file_open_regular(path, why, sizeof why); /* a FIFO is refused, not waited on */
    if (!f) die("%s: %s", path, why);
    static char line[1 << 16];
    if (!fgets(line, sizeof line, f)) die("%s: empty", path);
    line[strcspn(line, "\r\n")] = 0;
    for (char *tok = strtok(line, ","); tok && r->cols < MAX_COLS; tok = strtok(NULL, ",")) r->names[r->cols++] = strdup(tok);
    int cap = 64, step_col = column(r, "step");
    if (step_col != 0) die("%s:1: not a log of ./train (no step column first)", path);
    r->table = malloc((size_t)cap * r->cols * sizeof(double));
    for (int lineno = 2; fgets(line, sizeof line, f); lineno++) {
        if (!strchr(line, '\n')) die("%s:%d: the last row is cut short (no line end): the log is incomplete", path, lineno);
        if (r->rows == cap) {
            cap *= 2;
            r->table = realloc(r->table, (size_t)cap * r->cols * sizeof(double));
        }
        double *row = r->table + (size_t)r->rows * r->cols;
        char *p = line;
        for (int c = 0; c < r->cols; c++) {
            char *end;
            double v = strtod(p, &end);
            bool empty = end == p;
            row[c] = empty ? NAN : v;
            if (*end != (c + 1 < r->cols ? ',' : '\n') && !(c + 1 == r->cols && *end == '\r'))
                die("%s:%d: field %d (%s) is not a number, or the row has %s fields than the header's %d", path, lineno,
                    c + 1, r->names[c], *end == '\n' ? "fewer" : "more", r->cols);
            p = end + 1;
        }
        r->rows++;
    }
    fclose(f);
    if (r->rows == 0) die("%s: no rows", path);
    long last = (long)r->table[(size_t)(r->rows - 1) * r->cols];
    if (last != r->steps) die("%s: its last row is step %ld but the run did %ld steps: the log is incomplete", path, last, r->steps);
}

/* steps_to_threshold from the summary line of the run's console output. */
static bool read_summary(Run *r, const char *path)
{
    char why[256];
    FILE *f = file_open_regular(path, why, sizeof why);
    if (!f) return false;
    char line[4096];
    bool found = false;
    while (fgets(line, sizeof line, f)) {
        const char *k = strstr(line, "steps_to_threshold="), *s = strstr(line, " steps=");
        if (strncmp(line, "summary:", 8) == 0 && k && s) {
            long v = strtol(k + 19, NULL, 10);
            r->steps_to_threshold = v < 0 ? NAN : (double)v;
            r->steps = strtol(s + 7, NULL, 10);
            found = true;
        }
    }
    fclose(f);
    return found;
}

static void load_runs(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/runs", dir);
    DIR *d = opendir(path);
    if (!d) die("cannot open %s", path);
    struct dirent *e;
    while ((e = readdir(d)) && g_n_runs < MAX_RUNS) {
        Run *r = &g_runs[g_n_runs];
        memset(r, 0, sizeof *r);
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".csv")) continue;
        char stem[1024];
        snprintf(stem, sizeof stem, "%.*s", (int)(n - 4), e->d_name);
        /* <task>_scale-<scale>_dk<dk>_seed<seed> */
        char *a = strstr(stem, "_scale-"), *b = strstr(stem, "_dk"), *c = strstr(stem, "_seed");
        if (!a || !b || !c || !(a < b && b < c)) continue;
        snprintf(r->task, sizeof r->task, "%.*s", (int)(a - stem), stem);
        snprintf(r->scale, sizeof r->scale, "%.*s", (int)(b - a - 7), a + 7);
        r->dk = atoi(b + 3);
        r->seed = atoi(c + 5);
        char csv[8192], out[8192];
        snprintf(csv, sizeof csv, "%s/%s.csv", path, stem);
        snprintf(out, sizeof out, "%s/%s.out", path, stem);
        if (!read_summary(r, out)) continue; /* not finished */
        read_csv(r, csv);
        g_n_runs++;
    }
    closedir(d);
    if (g_n_runs == 0) die("%s holds no complete run", path);
}

/* ------------------------------------------------------------------ grouping */

/* Sort key of a scale: 1, sqrt, dk, then constants by value, then learned. */
static double scale_rank(const char *s)
{
    if (!strcmp(s, "1")) return 0;
    if (!strcmp(s, "sqrt")) return 1;
    if (!strcmp(s, "dk")) return 2;
    if (!strcmp(s, "learned")) return 1e12;
    return 3 + atof(s);
}

static int cmp_group(const void *x, const void *y)
{
    const Group *a = x, *b = y;
    int t = strcmp(a->task, b->task);
    if (t) return t;
    double ra = scale_rank(a->scale), rb = scale_rank(b->scale);
    if (ra != rb) return ra < rb ? -1 : 1;
    return a->dk - b->dk;
}

static double metric(const Run *r, int m)
{
    int last = r->rows - 1;
    switch (m) {
    case M_FINAL_LOSS: return cell(r, last, "loss");
    case M_VAL_LOSS: return cell(r, last, "val_loss");
    case M_VAL_ACC: return cell(r, last, "val_acc");
    case M_STEPS: return r->steps_to_threshold;
    case M_STD_INIT: return layer_mean(r, 0, "score_std");
    case M_STD_END: return layer_mean(r, last, "score_std");
    case M_ENT_INIT: return layer_mean(r, 0, "entropy_norm");
    case M_ENT_END: return layer_mean(r, last, "entropy_norm");
    case M_MAXW_END: return layer_mean(r, last, "max_weight");
    case M_GQ_INIT: return layer_mean(r, 0, "gnorm_wq");
    case M_GK_INIT: return layer_mean(r, 0, "gnorm_wk");
    case M_NAN: return cell(r, last, "nan_count");
    case M_SCALE_END: return column(r, "l0_scale_x_sqrt_dk") < 0 ? NAN : layer_mean(r, last, "scale_x_sqrt_dk");
    }
    return NAN;
}

static void build_groups(void)
{
    for (int i = 0; i < g_n_runs; i++) {
        Run *r = &g_runs[i];
        Group *g = NULL;
        for (int k = 0; k < g_n_groups && !g; k++)
            if (!strcmp(g_groups[k].task, r->task) && !strcmp(g_groups[k].scale, r->scale) && g_groups[k].dk == r->dk)
                g = &g_groups[k];
        if (!g) {
            if (g_n_groups == MAX_GROUPS) die("too many groups");
            g = &g_groups[g_n_groups++];
            memset(g, 0, sizeof *g);
            snprintf(g->task, sizeof g->task, "%.31s", r->task);
            snprintf(g->scale, sizeof g->scale, "%.31s", r->scale);
            g->dk = r->dk;
        }
        if (g->n < 64) g->runs[g->n++] = i;
    }
    qsort(g_groups, (size_t)g_n_groups, sizeof(Group), cmp_group);
    for (int k = 0; k < g_n_groups; k++) {
        Group *g = &g_groups[k];
        for (int m = 0; m < N_METRICS; m++) {
            double s = 0, s2 = 0;
            int n = 0;
            for (int i = 0; i < g->n; i++) {
                double v = metric(&g_runs[g->runs[i]], m);
                if (!isfinite(v)) continue;
                s += v;
                s2 += v * v;
                n++;
            }
            g->count[m] = n;
            g->mean[m] = n ? s / n : NAN;
            g->std[m] = n > 1 ? sqrt(fmax(0, (s2 - s * s / n) / (n - 1))) : (n ? 0 : NAN); /* sample std */
        }
    }
}

/* ------------------------------------------------------------------ tables */

static void write_csv(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s", path);
    fprintf(f, "task,scale,dk,seeds");
    for (int m = 0; m < N_METRICS; m++) fprintf(f, ",%s_mean,%s_std,%s_n", g_metric_names[m], g_metric_names[m], g_metric_names[m]);
    fprintf(f, "\n");
    for (int k = 0; k < g_n_groups; k++) {
        const Group *g = &g_groups[k];
        fprintf(f, "%s,%s,%d,%d", g->task, g->scale, g->dk, g->n);
        for (int m = 0; m < N_METRICS; m++) {
            if (g->count[m]) fprintf(f, ",%.6g,%.6g,%d", g->mean[m], g->std[m], g->count[m]);
            else fprintf(f, ",,,0");
        }
        fprintf(f, "\n");
    }
    fclose(f);
}

/* "mean ± std" with a precision fitting the size, or "–" when missing. */
static const char *pm(const Group *g, int m, int digits)
{
    static char bufs[16][64]; /* one printf uses up to 13 */
    static int next;
    char *b = bufs[next++ % 16];
    if (!g->count[m]) snprintf(b, 64, "–");
    else if (fabs(g->mean[m]) >= 1e-3 || g->mean[m] == 0) snprintf(b, 64, "%.*f ± %.*f", digits, g->mean[m], digits, g->std[m]);
    else snprintf(b, 64, "%.1e ± %.0e", g->mean[m], g->std[m]);
    return b;
}

static void write_markdown(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s", path);
    fprintf(f, "# Scale ablation: summary\n\n%d runs. Mean ± sample standard deviation over seeds. "
               "Score std, entropy and gradient norms are averaged over layers; \"init\" is the first "
               "logged step (before any update), \"end\" the last. Entropy is divided by log(number of "
               "visible keys): 1 = uniform attention, 0 = one-hot.\n", g_n_runs);
    for (int k = 0; k < g_n_groups; k++) {
        const Group *g = &g_groups[k];
        if (k == 0 || strcmp(g->task, g_groups[k - 1].task)) {
            fprintf(f, "\n## %s\n\n", g->task);
            fprintf(f, "| scale | dk | seeds | val accuracy | val loss | final train loss | steps to threshold (reached) "
                       "| score std init | score std end | entropy/log n init | entropy/log n end | max weight end "
                       "| grad Wq init | grad Wk init | NaN steps | learned s·√dk end |\n");
            fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        }
        char steps[96];
        snprintf(steps, sizeof steps, "%s (%d/%d)", g->count[M_STEPS] ? pm(g, M_STEPS, 0) : "never", g->count[M_STEPS], g->n);
        fprintf(f, "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", g->scale, g->dk, g->n,
                pm(g, M_VAL_ACC, 3), pm(g, M_VAL_LOSS, 3), pm(g, M_FINAL_LOSS, 3), steps, pm(g, M_STD_INIT, 2),
                pm(g, M_STD_END, 2), pm(g, M_ENT_INIT, 3), pm(g, M_ENT_END, 3), pm(g, M_MAXW_END, 3), pm(g, M_GQ_INIT, 3),
                pm(g, M_GK_INIT, 3), pm(g, M_NAN, 1), pm(g, M_SCALE_END, 3));
    }
    fclose(f);
}

/* ------------------------------------------------------------------ plots */

static const char *scale_color(const char *s)
{
    if (!strcmp(s, "1")) return "#d62728";
    if (!strcmp(s, "sqrt")) return "#1f77b4";
    if (!strcmp(s, "dk")) return "#2ca02c";
    if (!strcmp(s, "learned")) return "#9467bd";
    return "#ff7f0e";
}

static const char *scale_label(const char *s)
{
    static char b[8][48];
    static int next;
    char *out = b[next++ % 8];
    if (!strcmp(s, "1")) snprintf(out, 48, "s = 1");
    else if (!strcmp(s, "sqrt")) snprintf(out, 48, "s = 1/sqrt(dk)");
    else if (!strcmp(s, "dk")) snprintf(out, 48, "s = 1/dk");
    else if (!strcmp(s, "learned")) snprintf(out, 48, "s learned");
    else snprintf(out, 48, "s = 1/%s", s);
    return out;
}

/* The distinct values of a task's groups: scales (in group order) and dks (ascending). */
static int task_scales(const char *task, const char **out)
{
    int n = 0;
    for (int k = 0; k < g_n_groups; k++) {
        if (strcmp(g_groups[k].task, task)) continue;
        bool seen = false;
        for (int i = 0; i < n; i++) seen |= !strcmp(out[i], g_groups[k].scale);
        if (!seen && n < 16) out[n++] = g_groups[k].scale;
    }
    return n;
}

static int task_dks(const char *task, double *out)
{
    int n = 0;
    for (int k = 0; k < g_n_groups; k++) {
        if (strcmp(g_groups[k].task, task)) continue;
        bool seen = false;
        for (int i = 0; i < n; i++) seen |= out[i] == g_groups[k].dk;
        if (!seen && n < 16) out[n++] = g_groups[k].dk;
    }
    for (int i = 1; i < n; i++) /* insertion sort */
        for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
            double t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

static const Group *find_group(const char *task, const char *scale, int dk)
{
    for (int k = 0; k < g_n_groups; k++)
        if (!strcmp(g_groups[k].task, task) && !strcmp(g_groups[k].scale, scale) && g_groups[k].dk == dk) return &g_groups[k];
    return NULL;
}

/* Training loss against step: one panel per dk, one colour per scale, a thin line per seed
 * and a thick line for their mean. */
static void plot_loss(const char *dir, const char *task)
{
    const char *scales[16];
    double dks[16];
    int ns = task_scales(task, scales), nd = task_dks(task, dks);
    double lo = INFINITY, hi = 0, max_step = 1;
    for (int i = 0; i < g_n_runs; i++) {
        const Run *r = &g_runs[i];
        if (strcmp(r->task, task)) continue;
        for (int row = 0; row < r->rows; row++) {
            double v = cell(r, row, "loss");
            if (v > 0 && isfinite(v)) {
                lo = fmin(lo, v);
                hi = fmax(hi, v);
            }
            max_step = fmax(max_step, cell(r, row, "step"));
        }
    }
    int W = 300, H = 260, margin = 70;
    char path[4096], title[128];
    snprintf(path, sizeof path, "%s/loss_%s.svg", dir, task);
    Svg s;
    if (!svg_open(&s, path, margin + nd * (W + margin) + 170, H + 110)) die("cannot write %s", path);
    snprintf(title, sizeof title, "%s: training loss (mean over the log interval), thin lines = seeds, thick = mean", task);
    svg_text(&s, margin, 22, 14, "start", title);
    for (int d = 0; d < nd; d++) {
        char ptitle[64];
        snprintf(ptitle, sizeof ptitle, "dk = %.0f", dks[d]);
        SvgPanel p = {margin + d * (W + margin), 50, W, H, svg_axis_for(0, max_step, false, "step"),
                      svg_axis_for(lo, hi, true, "training loss (log)"), ptitle};
        p.x.lo = 0;
        p.x.hi = max_step;
        svg_panel(&s, &p);
        for (int k = 0; k < ns; k++) {
            const Group *g = find_group(task, scales[k], (int)dks[d]);
            if (!g) continue;
            const char *color = scale_color(scales[k]);
            int rows = g_runs[g->runs[0]].rows;
            double *mx = calloc((size_t)rows, sizeof(double)), *my = calloc((size_t)rows, sizeof(double));
            for (int i = 0; i < g->n; i++) {
                const Run *r = &g_runs[g->runs[i]];
                double *x = malloc((size_t)r->rows * sizeof(double)), *y = malloc((size_t)r->rows * sizeof(double));
                for (int row = 0; row < r->rows; row++) {
                    x[row] = cell(r, row, "step");
                    y[row] = cell(r, row, "loss");
                    if (row < rows) {
                        mx[row] = x[row];
                        my[row] += y[row] / g->n;
                    }
                }
                if (g->n > 1) svg_line(&s, &p, x, y, r->rows, color, 0.8, 0.45, false);
                free(x);
                free(y);
            }
            svg_line(&s, &p, mx, my, rows, color, 2.2, 1, false);
            free(mx);
            free(my);
        }
    }
    const char *labels[16], *colors[16];
    for (int k = 0; k < ns; k++) {
        labels[k] = scale_label(scales[k]);
        colors[k] = scale_color(scales[k]);
    }
    svg_legend(&s, margin + nd * (W + margin) - 40, 60, labels, colors, ns);
    svg_close(&s);
}

/* Accuracy, attention entropy and score std against dk: one line per scale, error bars = std
 * over seeds; entropy and score std at initialisation dashed, at the end solid. */
static void plot_vs_dk(const char *dir, const char *task)
{
    const char *scales[16];
    double dks[16];
    int ns = task_scales(task, scales), nd = task_dks(task, dks);
    struct {
        int end, init;
        const char *title, *ylabel;
        bool log;
    } panels[3] = {{M_VAL_ACC, -1, "held-out exact match", "accuracy", false},
                   {M_ENT_END, M_ENT_INIT, "attention entropy / log(visible keys)", "normalised entropy", false},
                   {M_STD_END, M_STD_INIT, "std of scaled scores s q.k", "score std (log)", true}};
    int W = 300, H = 260, margin = 80;
    char path[4096], title[200];
    snprintf(path, sizeof path, "%s/vs_dk_%s.svg", dir, task);
    Svg s;
    if (!svg_open(&s, path, margin + 3 * (W + margin) + 170, H + 110)) die("cannot write %s", path);
    snprintf(title, sizeof title, "%s: against head size dk (mean ± std over seeds; dashed = at initialisation, solid = end of training)", task);
    svg_text(&s, margin, 22, 14, "start", title);
    for (int pi = 0; pi < 3; pi++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int k = 0; k < ns; k++)
            for (int d = 0; d < nd; d++) {
                const Group *g = find_group(task, scales[k], (int)dks[d]);
                if (!g) continue;
                int ms[2] = {panels[pi].end, panels[pi].init};
                for (int j = 0; j < 2; j++) {
                    if (ms[j] < 0 || !g->count[ms[j]]) continue;
                    double a = g->mean[ms[j]] - g->std[ms[j]], b = g->mean[ms[j]] + g->std[ms[j]];
                    if (panels[pi].log && a <= 0) a = g->mean[ms[j]];
                    lo = fmin(lo, a);
                    hi = fmax(hi, b);
                }
            }
        if (!panels[pi].log) {
            lo = fmin(lo, 0);
            hi = fmax(hi, 1);
        }
        SvgPanel p = {margin + pi * (W + margin), 50, W, H, svg_axis_for(dks[0] / 1.5, dks[nd - 1] * 1.5, true, "dk (log)"),
                      svg_axis_for(lo, hi, panels[pi].log, panels[pi].ylabel), panels[pi].title};
        p.x.lo = dks[0] / 1.5;
        p.x.hi = dks[nd - 1] * 1.5;
        p.x.ticks = dks;
        p.x.n_ticks = nd;
        svg_panel(&s, &p);
        for (int k = 0; k < ns; k++) {
            const char *color = scale_color(scales[k]);
            int ms[2] = {panels[pi].end, panels[pi].init};
            for (int j = 0; j < 2; j++) {
                if (ms[j] < 0) continue;
                double x[16], y[16];
                for (int d = 0; d < nd; d++) {
                    const Group *g = find_group(task, scales[k], (int)dks[d]);
                    x[d] = dks[d];
                    y[d] = g && g->count[ms[j]] ? g->mean[ms[j]] : NAN;
                    if (g && g->count[ms[j]]) {
                        svg_marker(&s, &p, x[d], y[d], color);
                        svg_error_bar(&s, &p, x[d], y[d] - g->std[ms[j]], y[d] + g->std[ms[j]], color);
                    }
                }
                svg_line(&s, &p, x, y, nd, color, j == 0 ? 2 : 1.5, j == 0 ? 1 : 0.7, j == 1);
            }
        }
    }
    const char *labels[16], *colors[16];
    for (int k = 0; k < ns; k++) {
        labels[k] = scale_label(scales[k]);
        colors[k] = scale_color(scales[k]);
    }
    svg_legend(&s, margin + 3 * (W + margin) - 50, 60, labels, colors, ns);
    svg_close(&s);
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: %s RESULTS_DIR   (the folder scripts/ablation.sh wrote)\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    load_runs(dir);
    build_groups();
    write_csv(dir);
    write_markdown(dir);
    const char *tasks[16];
    int nt = 0;
    for (int k = 0; k < g_n_groups; k++)
        if ((nt == 0 || strcmp(tasks[nt - 1], g_groups[k].task)) && nt < 16) tasks[nt++] = g_groups[k].task;
    for (int t = 0; t < nt; t++) {
        plot_loss(dir, tasks[t]);
        plot_vs_dk(dir, tasks[t]);
    }
    printf("report: %d runs in %d groups -> %s/summary.csv, summary.md, loss_*.svg, vs_dk_*.svg\n", g_n_runs, g_n_groups, dir);
    for (int i = 0; i < g_n_runs; i++) {
        for (int c = 0; c < g_runs[i].cols; c++) free(g_runs[i].names[c]);
        free(g_runs[i].table);
    }
    return 0;
}
